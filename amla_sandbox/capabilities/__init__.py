"""Capabilities: which tool calls a sandbox may make (docs/capabilities.md).

A :class:`ToolCallCap` (0.2.8's name; :class:`MethodCapability` is 0.1.7's,
a subclass differing only in its ``cap:method:`` key format) grants the
methods its pattern matches, under its :class:`ConstraintSet`, up to
``max_calls`` times. The decisions are made by the Go core; these classes
hold the data and add Python syntax.
"""

from ._counts import CallCounts, policy_json
from .constraints import (
    Constraint,
    ConstraintError,
    ConstraintSet,
    MissingParamError,
    Param,
    TypeMismatchError,
    ViolationError,
)
from .method import METHOD_CAPABILITY_TYPE, MethodCapability
from .patterns import method_matches_pattern, pattern_is_subset
from .tool_call import (
    TOOL_CALL_CAP_TYPE,
    CallLimitExceededError,
    CapabilityError,
    ToolCallCap,
)

# CallCounts (what get_call_counts() returns) and policy_json (capabilities
# as the Go policy reads them) are for the sandbox and its run driver; not in
# __all__, which lists the reference's names.
__all__ = [
    "METHOD_CAPABILITY_TYPE",
    "TOOL_CALL_CAP_TYPE",
    "CallLimitExceededError",
    "CapabilityError",
    "Constraint",
    "ConstraintError",
    "ConstraintSet",
    "MethodCapability",
    "MissingParamError",
    "Param",
    "ToolCallCap",
    "TypeMismatchError",
    "ViolationError",
    "method_matches_pattern",
    "pattern_is_subset",
]
