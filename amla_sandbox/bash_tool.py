"""create_sandbox_tool: the one-call way to give an agent a sandbox that can
call your Python functions, each with a call budget and optional parameter
constraints written as short strings (`{"transfer": {"amount": "<=1000"}}`).

The constraint DSL, per parameter:

    "<=N" ">=N" "<N" ">N" "==N" "!=N"   numeric comparison (N int, or float if it has a ".")
    "startswith:S" "endswith:S" "contains:S"   string tests (S may be empty)
    [a, b, ...]                          the value must equal one of these
    N (an int or float)                  the value must equal N

A string that is none of these is an error (`ValueError` naming the tool, the
parameter and the string): it would leave the tool unconstrained. A
`constraints` or `max_calls` key that names no tool, and a constraint on a
parameter the tool does not have, are accepted as the reference accepts them,
with a `UserWarning` naming the key and the tools.
"""

from __future__ import annotations

import inspect
import logging
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .capabilities import Constraint, ConstraintSet, ToolCallCap
from .network import NetworkArg
from .sandbox_tool import SandboxTool, _build_sandbox, _function_list
from .tools.conversion import _tool_name
from .runtime.runtime import DEFAULT_MEMORY_LIMIT, DEFAULT_TIMEOUT

__all__ = ["create_sandbox_tool", "DEFAULT_MAX_CALLS"]

logger = logging.getLogger(__name__)

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


def _parse_number(text: str) -> int | float:
    """`text` (stripped) as a float if it contains ".", else as an int."""
    s = text.strip()
    try:
        return float(s) if "." in s else int(s)
    except ValueError:
        raise ValueError(f"Invalid numeric value in constraint: '{s}'") from None


def _parse_string_constraint(param: str, spec: str) -> Constraint | None:
    """The constraint a DSL string denotes, or None if it is not one.

    A comparison with an operand that is not a number logs a warning and gives
    None. `create_sandbox_tool` turns every None into an error.
    """
    for op, make in _COMPARISONS:
        if spec.startswith(op):
            try:
                value = _parse_number(spec[len(op) :])
            except ValueError as e:
                logger.warning("Skipping invalid constraint for '%s': %s (spec: '%s')", param, e, spec)
                return None
            return make(param, value)
    for prefix, make_str in _STRING_TESTS:
        if spec.startswith(prefix):
            return make_str(param, spec[len(prefix) :])
    return None


def _parse_constraints(spec: Mapping[str, Any]) -> ConstraintSet:
    """The constraints of one tool, `{param: value}` (see the module docstring).

    Lenient like the reference: unparseable strings and values of other types
    are dropped. `create_sandbox_tool` checks the spec first and refuses them.
    """
    constraints: list[Constraint] = []
    for param, value in spec.items():
        if isinstance(value, str):
            c = _parse_string_constraint(param, value)
            if c is not None:
                constraints.append(c)
        elif isinstance(value, list):
            constraints.append(Constraint.is_in(param, value))
        elif isinstance(value, (int, float)):  # bool included: it is an int
            constraints.append(Constraint.eq(param, value))
    return ConstraintSet(constraints)


def _limit_for(name: str, max_calls: int | Mapping[str, int] | None) -> int:
    if max_calls is None:
        return DEFAULT_MAX_CALLS
    if isinstance(max_calls, Mapping):
        return max_calls.get(name, DEFAULT_MAX_CALLS)
    return max_calls


def _build_capabilities(
    tools: Sequence[Callable[..., Any]],
    constraints: Mapping[str, Mapping[str, Any]] | None = None,
    max_calls: int | Mapping[str, int] | None = None,
) -> list[ToolCallCap]:
    """One capability `mcp:<name>` per tool, with its constraints and budget."""
    constraints = constraints or {}
    caps = []
    for f in tools:
        name = _tool_name(f)
        caps.append(
            ToolCallCap(
                method_pattern=f"mcp:{name}",
                constraints=_parse_constraints(constraints.get(name, {})),
                max_calls=_limit_for(name, max_calls),
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
    # Constraint paths walk into nested values with "/" (API.md §2.2.1).
    return path.removeprefix("/").split("/", 1)[0]


def _warn(message: str) -> None:
    # stacklevel 4: _warn ← _check_spec ← create_sandbox_tool ← the caller.
    warnings.warn(message, UserWarning, stacklevel=4)


def _check_spec(
    tool_map: Mapping[str, Callable[..., Any]],
    constraints: Mapping[str, Any],
    max_calls: int | Mapping[str, int] | None,
) -> None:
    """Refuse what would leave a tool unconstrained or unbudgeted (an
    unparseable constraint, a value of the wrong type); warn about keys the
    reference accepts but that do nothing or block every call."""
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
                if _parse_string_constraint(param, value) is None:
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


def create_sandbox_tool(
    tools: Sequence[Callable[..., Any]] | None = None,
    *,
    constraints: dict[str, dict[str, Any]] | None = None,
    max_calls: int | dict[str, int] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    memory_limit: int = DEFAULT_MEMORY_LIMIT,
    mcp_servers: Any = None,
    snapshot: bytes | None = None,
    require_approval: Sequence[str] | None = None,
    approval_handler: Callable[[str, dict[str, Any]], Any] | None = None,
    record: bool | str = False,
    python_packages: Sequence[str | os.PathLike[str]] | None = None,
    durable_key: bytes | str | None = None,
    redeem: Callable[[str], bool] | None = None,
    network: NetworkArg = None,
    keep_state: bool = False,
    check_types: bool = False,
) -> SandboxTool:
    """A SandboxTool whose sandbox can call `tools` (by their `__name__`).

    Every tool gets a call budget: `max_calls` for all tools (int), per tool
    (dict; unlisted tools get the default) or DEFAULT_MAX_CALLS (100).
    `constraints` maps tool name → parameter → DSL value (module docstring).
    `timeout` (seconds per run) and `memory_limit` (bytes) bound every run.

    Raises ValueError/TypeError for a constraint or limit that would
    otherwise be ignored: an unparseable string, a value of another type.
    Warns (UserWarning) about a `constraints`/`max_calls` key naming no tool
    and a constraint on a parameter the tool does not have.

    `mcp_servers` mounts MCP servers (an `mcpServers` mapping, or an
    `MCPTools` from `from_mcp()`): their tools are `<server>.<tool>`, called
    as method `mcp:<server>/<tool>`, and take constraints and budgets under
    either name (docs/mcp.md).

    Durable sessions (docs/durable.md): `snapshot` starts the sandbox from
    `Sandbox.snapshot()` bytes (its budgets never above what the snapshot
    had left); calls to the tools named in `require_approval` wait for a
    human: `approval_handler(name, params) -> bool` is asked, or without one
    the run stops with ApprovalRequired; `record` keeps a journal of every
    run (`sandbox.last_result.journal`). Snapshots, journals and tokens are
    authenticated under `durable_key` (default $AMLA_SANDBOX_DURABLE_KEY,
    else this machine's key); `redeem(token_id) -> bool` records that a
    token was resumed (default: this machine's ledger), so it runs once.

    `python_packages` makes pure-Python packages (wheels, package
    directories, .py modules) importable from Python scripts, mounted
    read-only; compiled extensions are refused (docs/python.md).

    `network` lets scripts make HTTP requests through the host: a
    `NetworkPolicy`, a dict of its fields or a list of allow rules
    (docs/network.md). Without it there is no network.

    `keep_state=True` keeps each language's variables, imports and
    definitions from one run to the next (docs/sessions.md);
    `tool.sandbox.reset()` starts fresh.

    `check_types=True` type-checks TypeScript, JavaScript and Python code
    before `run()` runs it (`SandboxTool.check`): code with type errors is
    not run, and the diagnostics are the tool's answer; warnings do not
    stop a run. Needs `pip install "amla-sandbox[check]"`
    (docs/declarations.md).
    """
    funcs = _function_list(tools)
    packages = list(python_packages) if python_packages is not None else None
    tool_map = {_tool_name(f): f for f in funcs}
    durable: dict[str, Any] = {
        "record": record, "approval_handler": approval_handler, "durable_key": durable_key, "redeem": redeem,
        "network": network, "keep_state": keep_state,
    }
    if mcp_servers is None:
        _check_spec(tool_map, constraints or {}, max_calls)
        caps = _require_approval(_build_capabilities(funcs, constraints, max_calls), require_approval, None)
        sandbox = _build_sandbox(
            funcs, caps, tool_map, timeout=timeout, memory_limit=memory_limit, python_packages=packages, **durable
        )
        return _with_snapshot(
            SandboxTool(sandbox=sandbox, tools=funcs, _tool_map=tool_map, check_types=check_types), snapshot
        )
    from .tools.mcp import MCPTools

    owned = not isinstance(mcp_servers, MCPTools)
    mcp = MCPTools(mcp_servers, timeout=timeout) if owned else mcp_servers
    try:
        caps = _require_approval(_capabilities_with_mcp(funcs, tool_map, mcp, constraints, max_calls), require_approval, mcp)
        sandbox = _build_sandbox(
            funcs, caps, tool_map, timeout=timeout, memory_limit=memory_limit, mcp_servers=mcp,
            python_packages=packages, **durable
        )
    except BaseException:
        if owned:
            mcp.close()
        raise
    sandbox._mcp_owned = owned
    return _with_snapshot(
        SandboxTool(sandbox=sandbox, tools=funcs, _tool_map=tool_map, check_types=check_types), snapshot
    )


def _require_approval(caps: list[ToolCallCap], names: Sequence[str] | None, mcp: Any) -> list[ToolCallCap]:
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


def _with_snapshot(tool: SandboxTool, snapshot: bytes | None) -> SandboxTool:
    if snapshot is not None:
        from . import durable

        try:
            durable.restore(tool.sandbox, snapshot)
        except BaseException:
            tool.close()
            raise
    return tool


def _capabilities_with_mcp(
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
    _check_spec(known, constraints, max_calls)
    caps = _build_capabilities(funcs, constraints, max_calls)
    return caps + mcp.capabilities(constraints, max_calls, default_max_calls=DEFAULT_MAX_CALLS)
