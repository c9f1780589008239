"""Method capabilities, as amla-sandbox 0.1.7 named them (docs/capabilities.md, "`ToolCallCap` and `MethodCapability`").

:class:`MethodCapability` is :class:`~amla_sandbox.capabilities.tool_call.ToolCallCap`
with 0.1.7's key format, ``cap:method:<pattern>``. The exceptions are the
very classes of ``amla_sandbox.capabilities.tool_call``, so ``except``
clauses written against either module catch them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .tool_call import CallLimitExceededError, CapabilityError, ToolCallCap

__all__ = ["METHOD_CAPABILITY_TYPE", "CallLimitExceededError", "CapabilityError", "MethodCapability"]

METHOD_CAPABILITY_TYPE = "method"


@dataclass(eq=False)
class MethodCapability(ToolCallCap):
    """A :class:`ToolCallCap` whose budget key is ``"cap:method:" +
    method_pattern`` (0.1.7). Budgets are per pattern: a MethodCapability
    and a ToolCallCap with the same pattern share one counter."""

    _kind: ClassVar[str] = METHOD_CAPABILITY_TYPE
    _key_prefix: ClassVar[str] = "cap:method:"

    def key(self) -> str:
        """The budget key, ``"cap:method:" + method_pattern``."""
        return f"cap:method:{self.method_pattern}"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MethodCapability:
        cap = super().from_dict(data)
        assert isinstance(cap, MethodCapability)
        return cap
