"""create_sandbox_tool: the one-call way to give an agent a sandbox that can
call your Python functions, each with a call budget and optional parameter
constraints written as short strings (`{"transfer": {"amount": "<=1000"}}`).

The constraint DSL is `amla_sandbox.capabilities.dsl`; its functions are also
importable from here by the reference's private names (`_parse_constraints`,
`_parse_string_constraint`, `_parse_number`, `_build_capabilities`).
A string it does not recognise is an error (`ValueError` naming the tool, the
parameter and the string): it would leave the tool unconstrained. A
`constraints` or `max_calls` key that names no tool, and a constraint on a
parameter the tool does not have, are accepted as the reference accepts them,
with a `UserWarning` naming the key and the tools.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from .capabilities.dsl import (
    DEFAULT_MAX_CALLS,
    build_capabilities,
    capabilities_with_mcp,
    check_spec,
    mark_requires_approval,
    parse_constraints,
    parse_number,
    parse_string_constraint,
)
from .network import NetworkArg
from .runtime.runtime import DEFAULT_MEMORY_LIMIT, DEFAULT_TIMEOUT
from .sandbox_tool import SandboxTool, build_sandbox, function_list
from .tools.conversion import tool_name

__all__ = ["create_sandbox_tool", "DEFAULT_MAX_CALLS"]

# The reference's private names for the DSL's functions, which its tests import from here.
_parse_number = parse_number
_parse_string_constraint = parse_string_constraint
_parse_constraints = parse_constraints
_build_capabilities = build_capabilities


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
    funcs = function_list(tools)
    packages = list(python_packages) if python_packages is not None else None
    tool_map = {tool_name(f): f for f in funcs}
    durable: dict[str, Any] = {
        "record": record, "approval_handler": approval_handler, "durable_key": durable_key, "redeem": redeem,
        "network": network, "keep_state": keep_state,
    }
    if mcp_servers is None:
        check_spec(tool_map, constraints or {}, max_calls)
        caps = mark_requires_approval(build_capabilities(funcs, constraints, max_calls), require_approval, None)
        sandbox = build_sandbox(
            funcs, caps, tool_map, timeout=timeout, memory_limit=memory_limit, python_packages=packages, **durable
        )
        return _with_snapshot(
            SandboxTool(sandbox=sandbox, tools=funcs, _tool_map=tool_map, check_types=check_types), snapshot
        )
    from .tools.mcp import MCPTools

    owned = not isinstance(mcp_servers, MCPTools)
    mcp = MCPTools(mcp_servers, timeout=timeout) if owned else mcp_servers
    try:
        caps = mark_requires_approval(
            capabilities_with_mcp(funcs, tool_map, mcp, constraints, max_calls), require_approval, mcp
        )
        sandbox = build_sandbox(
            funcs, caps, tool_map, timeout=timeout, memory_limit=memory_limit, mcp_servers=mcp,
            python_packages=packages, **durable
        )
    except BaseException:
        if owned:
            mcp.close()
        raise
    sandbox.attach_mcp(sandbox.mcp_client, owned=owned)
    return _with_snapshot(
        SandboxTool(sandbox=sandbox, tools=funcs, _tool_map=tool_map, check_types=check_types), snapshot
    )


def _with_snapshot(tool: SandboxTool, snapshot: bytes | None) -> SandboxTool:
    if snapshot is not None:
        from . import durable

        try:
            durable.restore(tool.sandbox, snapshot)
        except BaseException:
            tool.close()
            raise
    return tool
