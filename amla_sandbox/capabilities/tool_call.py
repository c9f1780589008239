"""Tool-call capabilities (docs/capabilities.md, "`ToolCallCap` and `MethodCapability`"; docs/compatibility.md, D1-D4): a pattern,
constraints and a call budget. Checks are done by the Go core.

:class:`ToolCallCap` is the class of amla-sandbox 0.2.8 and the one the
library builds. :class:`~amla_sandbox.capabilities.method.MethodCapability`
(0.1.7) is a subclass that differs only in its key prefix; both classes
accept, compare equal to and type-check as each other.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ._wire import core, dumps, params_json
from .constraints import ConstraintSet, constraint_from_dict, constraint_to_dict, error_from

__all__ = ["TOOL_CALL_CAP_TYPE", "CallLimitExceededError", "CapabilityError", "ToolCallCap"]

TOOL_CALL_CAP_TYPE = "tool-call"


from ..errors import CallLimitExceededError, CapabilityError


def _constraint_list(constraints: Any) -> list[Any]:
    # A plain list is accepted where a ConstraintSet is expected.
    if isinstance(constraints, ConstraintSet):
        return constraints.constraints
    return list(constraints or [])


def _call_error(result: dict[str, Any]) -> Exception:
    """The exception a core result object of a capability check stands for:
    CapabilityError (its cause the constraint's error), else as a
    constraint check's."""
    if result.get("kind") != "capability":
        return error_from(result)
    err = CapabilityError(result.get("message", ""))
    cause = result.get("cause")
    if cause:
        err.__cause__ = _call_error(cause)
    return err


class _CapabilityMeta(type):
    """Makes the two capability classes one type for ``isinstance`` and
    ``issubclass``: every ToolCallCap is a MethodCapability and vice versa,
    so 0.1.7 code that checks ``isinstance(c, MethodCapability)`` accepts
    the ToolCallCap objects the library builds."""

    def __instancecheck__(cls, instance: Any) -> bool:
        return type.__instancecheck__(ToolCallCap, instance)

    def __subclasscheck__(cls, subclass: type) -> bool:
        return type.__subclasscheck__(ToolCallCap, subclass)


@dataclass(eq=False)
class ToolCallCap(metaclass=_CapabilityMeta):
    """Grants calls to the methods ``method_pattern`` matches, under
    ``constraints``, at most ``max_calls`` times per sandbox (None:
    unlimited). ``input_schema`` is carried along, never enforced."""

    method_pattern: str
    constraints: ConstraintSet = field(default_factory=ConstraintSet)
    max_calls: int | None = None
    input_schema: dict[str, Any] | None = None
    # A call this capability allows waits for a human's approval before
    # its handler runs (docs/durable.md). Approval narrows, never widens.
    requires_approval: bool = False

    # What the Go core calls this class; it decides the key's format.
    _kind: ClassVar[str] = TOOL_CALL_CAP_TYPE
    _key_prefix: ClassVar[str] = "cap:tool-call:"

    def key(self) -> str:
        """The budget key: ``"cap:tool-call:" + method_pattern`` (a
        MethodCapability's is ``"cap:method:" + method_pattern``). Budgets
        are per pattern, so the two forms name the same budget."""
        return f"{self._key_prefix}{self.method_pattern}"

    def __eq__(self, other: object) -> bool:
        # Equal across the two classes: the class only changes the key format.
        if not type.__instancecheck__(ToolCallCap, other):
            return NotImplemented
        assert isinstance(other, ToolCallCap)
        return (self.method_pattern, self.constraints, self.max_calls, self.input_schema, self.requires_approval) == (
            other.method_pattern,
            other.constraints,
            other.max_calls,
            other.input_schema,
            other.requires_approval,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass was

    def _core_json(self, with_limit: bool = True) -> str:
        return dumps(core_dict(self, with_limit))

    def validate_call(self, method: str, params: dict[str, Any]) -> None:
        """Raise :class:`CapabilityError` unless the pattern matches
        ``method`` and ``params`` pass the constraints (``max_calls`` is
        not consulted)."""
        text = core().capability_validate_call(self._core_json(with_limit=False), method, params_json(params))
        if text:
            raise _call_error(json.loads(text))

    def is_subset_of(self, parent: ToolCallCap) -> bool:
        """True if this capability grants no more than ``parent`` (either
        class)."""
        return bool(core().capability_is_subset(self._core_json(), parent._core_json()))

    def to_dict(self) -> dict[str, Any]:
        """The capability as a dict. It carries no class tag, so the dicts
        of both classes (and of both reference versions) are the same."""
        d: dict[str, Any] = {"method_pattern": self.method_pattern}
        cs = _constraint_list(self.constraints)
        if cs:
            d["constraints"] = [constraint_to_dict(c) for c in cs]
        if self.max_calls is not None:
            d["max_calls"] = self.max_calls
        if self.input_schema is not None:
            d["input_schema"] = self.input_schema
        if self.requires_approval:
            d["requires_approval"] = True
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolCallCap:
        return cls(
            method_pattern=data["method_pattern"],
            constraints=ConstraintSet([constraint_from_dict(c) for c in data.get("constraints", [])]),
            max_calls=data.get("max_calls"),
            input_schema=data.get("input_schema"),
            requires_approval=bool(data.get("requires_approval", False)),
        )


def core_dict(cap: ToolCallCap, with_limit: bool = True) -> dict[str, Any]:
    """What the core needs to decide on `cap` (input_schema never matters
    there, so a schema that is not JSON cannot break a check)."""
    d: dict[str, Any] = {"method_pattern": cap.method_pattern}
    cs = _constraint_list(cap.constraints)
    if cs:
        d["constraints"] = [constraint_to_dict(c) for c in cs]
    if with_limit and cap.max_calls is not None:
        d["max_calls"] = cap.max_calls
    if cap.requires_approval:
        d["requires_approval"] = True
    d["kind"] = cap._kind
    return d
