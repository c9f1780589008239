"""Parameter constraints (docs/capabilities.md, "Constraints").

The classes hold data and add Python syntax (``Param("amount") <= 1000``);
evaluation and subsumption are done by the Go core, which reproduces
Python's semantics (``1 == 1.0 == True``, repr in messages).
"""

from __future__ import annotations

import builtins
import json
from dataclasses import dataclass, field
from typing import Any, Literal

from ._wire import core, dumps, params_json

__all__ = [
    "Constraint",
    "ConstraintError",
    "ConstraintSet",
    "ConstraintType",
    "MissingParamError",
    "Param",
    "TypeMismatchError",
    "ViolationError",
]

ConstraintType = Literal[
    "lt",
    "le",
    "gt",
    "ge",
    "eq",
    "ne",
    "in",
    "not_in",
    "starts_with",
    "ends_with",
    "contains",
    "exists",
    "not_exists",
    "and",
    "or",
]


# The exception classes live in the leaf amla_sandbox.errors (re-exported here).
from ..errors import ConstraintError, MissingParamError, TypeMismatchError, ViolationError  # noqa: E402


# -- crossing to the Go core -------------------------------------------------


def error_from(result: dict[str, Any]) -> Exception:
    """The exception a core result object of a constraint check stands for
    (tool_call decodes the "capability" kind, which only its checks give)."""
    kind = result.get("kind")
    message = result.get("message", "")
    err: Exception
    if kind == "missing":
        err = MissingParamError(result["param"])
    elif kind == "type":
        err = TypeMismatchError(result["param"], result["expected"], result["actual"])
    elif kind == "violation":
        err = ViolationError(result["param"], result["rule"], result["actual"])
    elif kind == "value":
        return ValueError(message)
    else:
        return builtins.RuntimeError(message)
    if str(err) != message:  # the core's text is authoritative
        err.args = (message,)
    return err


def raise_result(text: str) -> None:
    """Raise what a constraint check's core result says, if it failed."""
    if text:
        raise error_from(json.loads(text))


def constraint_to_dict(c: Any) -> dict[str, Any]:
    """Constraint → dict (the to_dict form of docs/capabilities.md, "Constraints")."""
    if not isinstance(c, Constraint):
        raise TypeError(f"Expected Constraint, got {type(c)}")
    d: dict[str, Any] = {"type": c.type}
    if c.param:
        d["param"] = c.param
    if c.value is not None:
        d["value"] = c.value
    if c.values:
        d["values"] = list(c.values)
    if c.prefix:
        d["prefix"] = c.prefix
    if c.suffix:
        d["suffix"] = c.suffix
    if c.substring:
        d["substring"] = c.substring
    if c.constraints:
        d["constraints"] = [constraint_to_dict(x) for x in c.constraints]
    return d


def constraint_from_dict(d: dict[str, Any]) -> Constraint:
    """dict → Constraint (inverse of constraint_to_dict)."""
    return Constraint(
        type=d["type"],
        param=d.get("param", ""),
        value=d.get("value"),
        values=list(d.get("values", [])),
        prefix=d.get("prefix", ""),
        suffix=d.get("suffix", ""),
        substring=d.get("substring", ""),
        constraints=[constraint_from_dict(x) for x in d.get("constraints", [])],
    )


# -- Constraint ---------------------------------------------------------------


@dataclass
class Constraint:
    """One rule on a call's parameters. Build with the class methods
    (``Constraint.le("amount", 1000)``) or with :class:`Param`."""

    type: str
    param: str = ""
    value: Any = None
    values: list[Any] = field(default_factory=list)
    prefix: str = ""
    suffix: str = ""
    substring: str = ""
    constraints: list[Constraint] = field(default_factory=list)

    @classmethod
    def lt(cls, param: str, value: Any) -> Constraint:
        return cls(type="lt", param=param, value=value)

    @classmethod
    def le(cls, param: str, value: Any) -> Constraint:
        return cls(type="le", param=param, value=value)

    @classmethod
    def gt(cls, param: str, value: Any) -> Constraint:
        return cls(type="gt", param=param, value=value)

    @classmethod
    def ge(cls, param: str, value: Any) -> Constraint:
        return cls(type="ge", param=param, value=value)

    @classmethod
    def eq(cls, param: str, value: Any) -> Constraint:
        return cls(type="eq", param=param, value=value)

    @classmethod
    def ne(cls, param: str, value: Any) -> Constraint:
        return cls(type="ne", param=param, value=value)

    @classmethod
    def is_in(cls, param: str, values: list[Any]) -> Constraint:
        return cls(type="in", param=param, values=list(values))

    @classmethod
    def not_in(cls, param: str, values: list[Any]) -> Constraint:
        return cls(type="not_in", param=param, values=list(values))

    @classmethod
    def starts_with(cls, param: str, prefix: str) -> Constraint:
        return cls(type="starts_with", param=param, prefix=prefix)

    @classmethod
    def ends_with(cls, param: str, suffix: str) -> Constraint:
        return cls(type="ends_with", param=param, suffix=suffix)

    @classmethod
    def contains(cls, param: str, substring: str) -> Constraint:
        return cls(type="contains", param=param, substring=substring)

    @classmethod
    def exists(cls, param: str) -> Constraint:
        return cls(type="exists", param=param)

    @classmethod
    def not_exists(cls, param: str) -> Constraint:
        return cls(type="not_exists", param=param)

    @classmethod
    def and_(cls, constraints: list[Constraint]) -> Constraint:
        return cls(type="and", constraints=list(constraints))

    @classmethod
    def or_(cls, constraints: list[Constraint]) -> Constraint:
        return cls(type="or", constraints=list(constraints))

    @property
    def param_name(self) -> str | None:
        """The parameter this constraint reads; None for and/or."""
        if self.type in ("and", "or"):
            return None
        return self.param

    def referenced_params(self) -> list[str]:
        """Every parameter read, in order (recursive for and/or)."""
        if self.type in ("and", "or"):
            out: list[str] = []
            for c in self.constraints:
                out.extend(c.referenced_params())
            return out
        return [self.param]

    def evaluate(self, params: dict[str, Any]) -> None:
        """Raise a :class:`ConstraintError` if ``params`` break the rule
        (``ValueError`` for an unknown constraint type)."""
        raise_result(core().constraint_evaluate(dumps(constraint_to_dict(self)), params_json(params)))

    def subsumes(self, other: Constraint) -> bool:
        """True if this constraint admits everything ``other`` admits
        (by the documented rules)."""
        return bool(
            core().constraint_subsumes(dumps(constraint_to_dict(self)), dumps(constraint_to_dict(other)))
        )


# -- ConstraintSet ------------------------------------------------------------


@dataclass(init=False)
class ConstraintSet:
    """The AND of constraints, checked in order; empty admits everything."""

    constraints: list[Constraint]

    def __init__(self, constraints: list[Constraint] | None = None) -> None:
        self.constraints = list(constraints) if constraints is not None else []

    def is_empty(self) -> bool:
        return not self.constraints

    def __len__(self) -> int:
        return len(self.constraints)

    def _json(self) -> str:
        return dumps([constraint_to_dict(c) for c in self.constraints])

    def evaluate(self, params: dict[str, Any]) -> None:
        """Raise the first failing constraint's error."""
        if not self.constraints:
            return
        raise_result(core().constraint_set_evaluate(self._json(), params_json(params)))

    def subsumes(self, child: ConstraintSet) -> bool:
        """True if this set admits everything ``child`` admits (by the
        documented rule, which accepts children that add constraints on new
        parameters, and children that omit constraints)."""
        return bool(core().constraint_set_subsumes(self._json(), child._json()))

    def extend(self, other: ConstraintSet) -> None:
        self.constraints.extend(other.constraints)

    def merge(self, other: ConstraintSet) -> ConstraintSet:
        return ConstraintSet(self.constraints + other.constraints)


# -- Param --------------------------------------------------------------------


class Param:
    """Builds constraints with operators: ``Param("amount") <= 1000``."""

    __hash__ = None  # type: ignore[assignment]  # == is overloaded

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Param({self.name!r})"

    def __lt__(self, value: Any) -> Constraint:
        return Constraint.lt(self.name, value)

    def __le__(self, value: Any) -> Constraint:
        return Constraint.le(self.name, value)

    def __gt__(self, value: Any) -> Constraint:
        return Constraint.gt(self.name, value)

    def __ge__(self, value: Any) -> Constraint:
        return Constraint.ge(self.name, value)

    def __eq__(self, value: object) -> Constraint:  # type: ignore[override]
        return Constraint.eq(self.name, value)

    def __ne__(self, value: object) -> Constraint:  # type: ignore[override]
        return Constraint.ne(self.name, value)

    def is_in(self, values: list[Any]) -> Constraint:
        return Constraint.is_in(self.name, values)

    def not_in(self, values: list[Any]) -> Constraint:
        return Constraint.not_in(self.name, values)

    def starts_with(self, prefix: str) -> Constraint:
        return Constraint.starts_with(self.name, prefix)

    def ends_with(self, suffix: str) -> Constraint:
        return Constraint.ends_with(self.name, suffix)

    def contains(self, substring: str) -> Constraint:
        return Constraint.contains(self.name, substring)

    def exists(self) -> Constraint:
        return Constraint.exists(self.name)

    def not_exists(self) -> Constraint:
        return Constraint.not_exists(self.name)
