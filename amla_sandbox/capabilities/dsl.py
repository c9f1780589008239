"""The constraint DSL of `create_sandbox_tool`: short strings, lists and
numbers that say what a tool's parameters may be (`{"transfer": {"amount":
"<=1000"}}`), parsed into `Constraint`s, and the one capability per tool that
carries them with the tool's call budget.

Per parameter:

    "<=N" ">=N" "<N" ">N" "==N" "!=N"   numeric comparison (N int, or float if it has a ".")
    "startswith:S" "endswith:S" "contains:S"   string tests (S may be empty)
    [a, b, ...]                          the value must equal one of these
    N (an int or float)                  the value must equal N

`parse_string_constraint` and `parse_constraints` are lenient like the
reference (what they do not recognise is dropped); `check_spec` is what
refuses it, naming the tool, the parameter and the value, since it would leave
the tool unconstrained. `build_capabilities` and `capabilities_with_mcp` give
the capabilities (`mcp:<tool>`); `mark_requires_approval` marks those that
wait for a human. Used by `create_sandbox_tool`, the MCP client (`tools.mcp`),
the MCP server and, through `create_sandbox_tool`, the Ray pool.
"""

from __future__ import annotations

import inspect
import logging
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..tools.conversion import tool_name
from .constraints import Constraint, ConstraintSet
from .tool_call import ToolCallCap

__all__ = [
    "DEFAULT_MAX_CALLS",
    "parse_number",
    "parse_string_constraint",
    "parse_constraints",
    "limit_for",
    "build_capabilities",
    "check_spec",
    "capabilities_with_mcp",
    "mark_requires_approval",
]

# The reference's logger name: callers filter and capture the DSL's warnings by it.
logger = logging.getLogger("amla_sandbox.bash_tool")

DEFAULT_MAX_CALLS = 100

_COMPARISONS: tuple[tuple[str, Callable[[str, Any], Constraint]], ...] = (
    ("<=", Constraint.le),
    (">=", Constraint.ge),
    ("==", Constraint.eq),
    ("!=", Constraint.ne),
    ("<", Constraint.lt),
    (">", Constraint.gt),
)

_STRING_TESTS: tuple[tuple[str, Callable[[str, str], Constraint]], ...] = (
    ("startswith:", Constraint.starts_with),
    ("endswith:", Constraint.ends_with),
    ("contains:", Constraint.contains),
)


def parse_number(text: str) -> int | float:
    """`text` (stripped) as a float if it contains ".", else as an int."""
    s = text.strip()
    try:
        return float(s) if "." in s else int(s)
    except ValueError:
        raise ValueError(f"Invalid numeric value in constraint: '{s}'") from None


def parse_string_constraint(param: str, spec: str) -> Constraint | None:
    """The constraint a DSL string denotes, or None if it is not one.

    A comparison with an operand that is not a number logs a warning and gives
    None. `check_spec` (run by `create_sandbox_tool`) turns every None into
    an error.
    """
    for op, make in _COMPARISONS:
        if spec.startswith(op):
            try:
                value = parse_number(spec[len(op) :])
            except ValueError as e:
                logger.warning("Skipping invalid constraint for '%s': %s (spec: '%s')", param, e, spec)
                return None
            return make(param, value)
    for prefix, make_str in _STRING_TESTS:
        if spec.startswith(prefix):
            return make_str(param, spec[len(prefix) :])
    return None


def parse_constraints(spec: Mapping[str, Any]) -> ConstraintSet:
    """The constraints of one tool, `{param: value}` (see the module docstring).

    Lenient like the reference: unparseable strings and values of other types
    are dropped. `check_spec` refuses them; run it first.
    """
    constraints: list[Constraint] = []
    for param, value in spec.items():
        if isinstance(value, str):
            c = parse_string_constraint(param, value)
            if c is not None:
                constraints.append(c)
        elif isinstance(value, list):
            constraints.append(Constraint.is_in(param, value))
        elif isinstance(value, (int, float)):  # bool included: it is an int
            constraints.append(Constraint.eq(param, value))
    return ConstraintSet(constraints)


def limit_for(name: str, max_calls: int | Mapping[str, int] | None) -> int:
    """The call budget of tool `name`: `max_calls` for every tool (an int),
    per tool (a dict; unlisted tools get DEFAULT_MAX_CALLS), or DEFAULT_MAX_CALLS."""
    if max_calls is None:
        return DEFAULT_MAX_CALLS
    if isinstance(max_calls, Mapping):
        return max_calls.get(name, DEFAULT_MAX_CALLS)
    return max_calls


def build_capabilities(
    tools: Sequence[Callable[..., Any]],
    constraints: Mapping[str, Mapping[str, Any]] | None = None,
    max_calls: int | Mapping[str, int] | None = None,
) -> list[ToolCallCap]:
    """One capability `mcp:<name>` per tool, with its constraints and budget."""
    constraints = constraints or {}
    caps = []
    for f in tools:
        name = tool_name(f)
        caps.append(
            ToolCallCap(
                method_pattern=f"mcp:{name}",
                constraints=parse_constraints(constraints.get(name, {})),
                max_calls=limit_for(name, max_calls),
            )
        )
    return caps


def _preview(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _parameter_names(func: Callable[..., Any]) -> list[str] | None:
    """The keyword parameters `func` accepts, or None if it takes **kwargs
    (or its signature cannot be read)."""
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return None
    return [
        p.name
        for p in params
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        and p.name not in ("self", "cls")
    ]


def _top_level_param(path: str) -> str:
    # Constraint paths walk into nested values with "/" (docs/capabilities.md, "Constraints").
    return path.removeprefix("/").split("/", 1)[0]


def _warn(message: str) -> None:
    # stacklevel 4: _warn ← check_spec ← create_sandbox_tool ← the caller, so
    # the warning points at the line that called create_sandbox_tool.
    warnings.warn(message, UserWarning, stacklevel=4)


def check_spec(
    tool_map: Mapping[str, Callable[..., Any]],
    constraints: Mapping[str, Any],
    max_calls: int | Mapping[str, int] | None,
) -> None:
    """Refuse what would leave a tool unconstrained or unbudgeted (an
    unparseable constraint, a value of the wrong type); warn about keys the
    reference accepts but that do nothing or block every call. `tool_map`
    maps each tool name to its function (None for a tool whose parameters
    are not known, such as an MCP server's)."""
    known = sorted(tool_map)
    if not isinstance(constraints, Mapping):
        raise TypeError(
            f"constraints must be a dict of {{tool name: {{parameter: constraint}}}}, "
            f"got {type(constraints).__name__}"
        )
    for tool, spec in constraints.items():
        if tool not in tool_map:
            _warn(f"constraints name no tool {tool!r}, so they are ignored; the tools are {known}")
        if not isinstance(spec, Mapping):
            raise TypeError(
                f"constraints for tool {tool!r} must be a dict of {{parameter: constraint}}, "
                f"got {type(spec).__name__}: {_preview(spec)}"
            )
        for param, value in spec.items():
            if isinstance(value, str):
                if parse_string_constraint(param, value) is None:
                    raise ValueError(
                        f"Invalid constraint for tool {tool!r}, parameter {param!r}: {value!r}. "
                        "Accepted strings: '<=N', '>=N', '<N', '>N', '==N', '!=N' (N a number), "
                        "'startswith:S', 'endswith:S', 'contains:S'; "
                        "for equality with a string use a list, e.g. ['USD']"
                    )
            elif not isinstance(value, (list, int, float)):
                raise TypeError(
                    f"Invalid constraint for tool {tool!r}, parameter {param!r}: "
                    f"expected a string, a list or a number, got {type(value).__name__}: {_preview(value)}"
                )
        func = tool_map.get(tool)
        accepted = _parameter_names(func) if func is not None else None
        if accepted is not None:
            for param in spec:
                if isinstance(param, str) and _top_level_param(param) not in accepted:
                    _warn(
                        f"constraints for tool {tool!r} name parameter {param!r}, which the tool does not have "
                        f"(its parameters are {accepted}); every call that does not pass it will be denied "
                        f"with 'Missing parameter: {param}'"
                    )
    if isinstance(max_calls, Mapping):
        for tool, limit in max_calls.items():
            if tool not in tool_map:
                _warn(
                    f"max_calls names no tool {tool!r}, so it is ignored; the tools are {known} "
                    f"(tools not listed get {DEFAULT_MAX_CALLS} calls)"
                )
            if isinstance(limit, bool) or not isinstance(limit, int):
                raise TypeError(f"max_calls for tool {tool!r} must be an int, got {type(limit).__name__}")
    elif max_calls is not None and (isinstance(max_calls, bool) or not isinstance(max_calls, int)):
        raise TypeError(f"max_calls must be an int or a dict of {{tool name: int}}, got {type(max_calls).__name__}")


def mark_requires_approval(caps: list[ToolCallCap], names: Sequence[str] | None, mcp: Any) -> list[ToolCallCap]:
    """Mark the capabilities of the tools named in `names` as requiring
    approval. A name that is no tool is a ValueError: a typo must not leave
    a tool that should wait for a human free to run."""
    if names is None:
        return caps
    if isinstance(names, str) or not all(isinstance(n, str) for n in names):
        raise TypeError(f"require_approval must be a list of tool names, got {names!r:.80}")
    by_pattern = {c.method_pattern: c for c in caps}
    for name in names:
        cap = by_pattern.get(f"mcp:{name}")
        if cap is None and mcp is not None:
            d = mcp.resolve(name)  # an MCP server's tool: "server.tool" or "server/tool"
            cap = by_pattern.get(d.method) if d is not None else None
        if cap is None:
            known = sorted(p.removeprefix("mcp:") for p in by_pattern)
            raise ValueError(f"require_approval names no tool {name!r}; the tools are {known}")
        cap.requires_approval = True
    return caps


def capabilities_with_mcp(
    funcs: Sequence[Callable[..., Any]],
    tool_map: Mapping[str, Callable[..., Any]],
    mcp: Any,
    constraints: Mapping[str, Any] | None,
    max_calls: int | Mapping[str, int] | None,
) -> list[ToolCallCap]:
    """The capabilities of Python tools and of the tools of mounted MCP
    servers (an MCPTools), whose `constraints`/`max_calls` keys may be
    "github.create_issue" or "github/create_issue". Checked as
    create_sandbox_tool checks them."""

    def canonical(key: Any) -> Any:
        d = mcp.resolve(key) if key not in tool_map else None
        return d.name if d is not None else key

    constraints = {canonical(k): v for k, v in (constraints or {}).items()}
    if isinstance(max_calls, Mapping):
        max_calls = {canonical(k): v for k, v in max_calls.items()}
    known: dict[str, Any] = {**tool_map, **{d.name: None for d in mcp.definitions}}
    check_spec(known, constraints, max_calls)
    caps = build_capabilities(funcs, constraints, max_calls)
    return caps + mcp.capabilities(constraints, max_calls, default_max_calls=DEFAULT_MAX_CALLS)
