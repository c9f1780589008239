"""Method capabilities (API.md §2.5–2.6): a pattern, constraints and a
call budget. Checks are done by the Go core."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .constraints import (
    ConstraintSet,
    _constraint_from_dict,
    _constraint_to_dict,
    _dumps,
    _params_json,
    _raise_result,
)
from .patterns import _go

__all__ = ["METHOD_CAPABILITY_TYPE", "CallLimitExceededError", "CapabilityError", "MethodCapability"]

METHOD_CAPABILITY_TYPE = "method"


class CapabilityError(Exception):
    """A call is not authorised."""


class CallLimitExceededError(CapabilityError):
    """Every capability that would authorise a call has used its budget."""

    def __init__(self, capability_key: str, max_calls: int) -> None:
        self.capability_key = capability_key
        self.max_calls = max_calls
        super().__init__(f"Call limit exceeded for '{capability_key}': max {max_calls} calls allowed")


def _constraint_list(constraints: Any) -> list[Any]:
    # A plain list is accepted where a ConstraintSet is expected.
    if isinstance(constraints, ConstraintSet):
        return constraints.constraints
    return list(constraints or [])


@dataclass
class MethodCapability:
    """Grants calls to the methods ``method_pattern`` matches, under
    ``constraints``, at most ``max_calls`` times per sandbox (None:
    unlimited). ``input_schema`` is carried along, never enforced."""

    method_pattern: str
    constraints: ConstraintSet = field(default_factory=ConstraintSet)
    max_calls: int | None = None
    input_schema: dict[str, Any] | None = None

    def key(self) -> str:
        """The budget key, ``"cap:method:" + method_pattern``."""
        return f"cap:method:{self.method_pattern}"

    def _core_json(self, with_limit: bool = True) -> str:
        # What the core needs to decide (input_schema never matters there,
        # so a schema that is not JSON cannot break a check).
        d: dict[str, Any] = {"method_pattern": self.method_pattern}
        cs = _constraint_list(self.constraints)
        if cs:
            d["constraints"] = [_constraint_to_dict(c) for c in cs]
        if with_limit and self.max_calls is not None:
            d["max_calls"] = self.max_calls
        return _dumps(d)

    def validate_call(self, method: str, params: dict[str, Any]) -> None:
        """Raise :class:`CapabilityError` unless the pattern matches
        ``method`` and ``params`` pass the constraints (``max_calls`` is
        not consulted)."""
        _raise_result(_go().CapabilityValidateCall(self._core_json(with_limit=False), method, _params_json(params)))

    def is_subset_of(self, parent: MethodCapability) -> bool:
        """True if this capability grants no more than ``parent``."""
        return bool(_go().CapabilityIsSubset(self._core_json(), parent._core_json()))

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"method_pattern": self.method_pattern}
        cs = _constraint_list(self.constraints)
        if cs:
            d["constraints"] = [_constraint_to_dict(c) for c in cs]
        if self.max_calls is not None:
            d["max_calls"] = self.max_calls
        if self.input_schema is not None:
            d["input_schema"] = self.input_schema
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MethodCapability:
        return cls(
            method_pattern=data["method_pattern"],
            constraints=ConstraintSet([_constraint_from_dict(c) for c in data.get("constraints", [])]),
            max_calls=data.get("max_calls"),
            input_schema=data.get("input_schema"),
        )
