"""Capabilities: which tool calls a sandbox may make (API.md §2).

A :class:`MethodCapability` grants the methods its pattern matches, under
its :class:`ConstraintSet`, up to ``max_calls`` times. The decisions are
made by the Go core; these classes hold the data and add Python syntax.
"""

from .constraints import (
    Constraint,
    ConstraintError,
    ConstraintSet,
    MissingParamError,
    Param,
    TypeMismatchError,
    ViolationError,
)
from .method import (
    METHOD_CAPABILITY_TYPE,
    CallLimitExceededError,
    CapabilityError,
    MethodCapability,
)
from .patterns import method_matches_pattern, pattern_is_subset

__all__ = [
    "METHOD_CAPABILITY_TYPE",
    "CallLimitExceededError",
    "CapabilityError",
    "Constraint",
    "ConstraintError",
    "ConstraintSet",
    "MethodCapability",
    "MissingParamError",
    "Param",
    "TypeMismatchError",
    "ViolationError",
    "method_matches_pattern",
    "pattern_is_subset",
]
