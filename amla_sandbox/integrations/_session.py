"""What the Python code-running adapters share (smolagents, LlamaIndex,
OpenAI Agents, CrewAI): a `keep_state` sandbox whose tools are the
framework's tools, left on the host and reached through the sandbox's
capabilities, and the Python functions that let agent code call them the way
the framework's prompt shows them (`search("cats")`, positional or keyword).

Not a public module: its names may change with the adapters.
"""

from __future__ import annotations

import json
import keyword
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Self

from ..capabilities import ToolCallCap
from ..runtime.runtime import DEFAULT_MEMORY_LIMIT, DEFAULT_TIMEOUT, RunResult
from ..sandbox import Sandbox
from ..tools import ToolDefinition

# create_sandbox_tool's constraint DSL (capabilities/dsl.py, from the branch
# pylayers, merged in main after this branch started).
from ..capabilities.dsl import check_spec, limit_for, parse_constraints

__all__ = ["HostTool", "CodeSession", "host_tool_from_function", "require", "printed_value_removed"]

Constraints = Mapping[str, Mapping[str, Any]]
MaxCalls = int | Mapping[str, int] | None

# Names the Python guest defines for every run (docs/python.md): a tool of
# one of these names gets no wrapper (it is reachable with call_tool).
_GUEST_NAMES = frozenset(
    ("call_tool", "list_tools", "get_tool_info", "tools", "shell", "ToolError", "ToolDenied", "ShellError", "asyncio")
)

# Sandbox arguments an adapter sets itself.
_OWN_ARGUMENTS = frozenset(("tools", "capabilities", "tool_handler", "keep_state", "timeout", "memory_limit"))


def require(module: str, *, adapter: str, extra: str, framework: str) -> Any:
    """Import the framework's `module`, or raise ImportError naming the extra
    that installs it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(
            f"amla_sandbox.integrations.{adapter} needs {framework}: pip install \"amla-sandbox[{extra}]\" ({e})"
        ) from e


@dataclass(frozen=True, eq=False)
class HostTool:
    """A framework's tool as the sandbox sees it: `call(**arguments)` runs it
    on the host (it may return an awaitable for runs made with `run_async`),
    `parameters` is the JSON Schema of its arguments, whose properties'
    order is the order positional arguments bind in."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    call: Callable[..., Any]
    # The tool that ends the run once called (smolagents' final_answer):
    # its arguments that are not JSON are sent as their str(), and the
    # wrapper raises SystemExit after the call.
    final: bool = False

    @property
    def parameter_names(self) -> tuple[str, ...]:
        props = self.parameters.get("properties") or {}
        return tuple(props) if isinstance(props, Mapping) else ()

    def definition(self) -> ToolDefinition:
        return ToolDefinition(name=self.name, description=self.description or f"Call {self.name}",
                              parameters=dict(self.parameters))

    def same_declaration(self, other: HostTool) -> bool:
        return (self.name, self.description, dict(self.parameters), self.final) == (
            other.name, other.description, dict(other.parameters), other.final)


def host_tool_from_function(
    func: Callable[..., Any], *, name: str | None = None, parameters: Mapping[str, Any] | None = None
) -> HostTool:
    """A plain function (sync or async) as a HostTool: its name (or `name`),
    first docstring line, and the JSON Schema of its parameters from its
    type hints (or `parameters`), in the order of its signature."""
    from ..tools import tool_from_function

    definition = tool_from_function(func, name=name)
    return HostTool(name=definition.name, description=definition.description,
                    parameters=dict(parameters) if parameters is not None else definition.parameters, call=func)


def _signature_stub(tool: HostTool) -> Callable[..., Any]:
    """A function whose signature has the tool's parameters, for the
    constraint checks of create_sandbox_tool's DSL (a constraint on a
    parameter the tool lacks is warned about)."""
    import inspect

    def stub(**_: Any) -> None:
        return None

    params = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY)
              for n in tool.parameter_names if n.isidentifier() and not keyword.iskeyword(n)]
    stub.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    return stub


def _check(tools: Sequence[HostTool], constraints: Constraints | None, max_calls: MaxCalls, *, warn: bool) -> None:
    """Refuse constraints and budgets create_sandbox_tool refuses (the same
    DSL, docs/capabilities.md); with `warn`, warn as it does about keys that
    name no tool."""
    tool_map = {t.name: _signature_stub(t) for t in tools}
    if warn:
        check_spec(tool_map, constraints or {}, max_calls)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_spec(tool_map, constraints or {}, max_calls)


def _capabilities(tools: Sequence[HostTool], constraints: Constraints | None, max_calls: MaxCalls) -> list[ToolCallCap]:
    """One capability `mcp:<name>` per tool, with its constraints and call
    budget, as create_sandbox_tool gives its tools."""
    constraints = constraints or {}
    return [
        ToolCallCap(
            method_pattern=f"mcp:{t.name}",
            constraints=parse_constraints(constraints.get(t.name, {})),
            max_calls=limit_for(t.name, max_calls),
        )
        for t in tools
    ]


_BIND = '''
import json as _amla_json


def _amla_bind(name, names, args, kwargs):
    """The arguments of a call to tool `name` as one dict: positional ones
    bound to its parameters in order; one dict of its parameters alone is
    taken as the keyword arguments."""
    if len(args) == 1 and not kwargs and isinstance(args[0], dict) and all(k in names for k in args[0]):
        return dict(args[0])
    if len(args) > len(names):
        raise TypeError(f"{name}() takes at most {len(names)} positional arguments ({len(args)} given)")
    bound = dict(zip(names, args))
    for key, value in kwargs.items():
        if key in bound:
            raise TypeError(f"{name}() got multiple values for argument {key!r}")
        bound[key] = value
    return bound


def _amla_plain(value):
    try:
        _amla_json.dumps(value, allow_nan=False)
        return value
    except (TypeError, ValueError):
        return str(value)


class _AmlaFinalAnswer(SystemExit):
    """Ends the snippet after final_answer(): the host holds the answer."""
'''


def _wrapper(tool: HostTool) -> str:
    """The Python function of the tool's name that agent code calls."""
    name, names = tool.name, tool.parameter_names
    call = f"call_tool({name!r}, _amla_bind({name!r}, {names!r}, args, kwargs))"
    if not tool.final:
        return f"\ndef {name}(*args, **kwargs):\n    return {call}\n"
    return (
        f"\ndef {name}(*args, **kwargs):\n"
        f"    bound = _amla_bind({name!r}, {names!r}, args, kwargs)\n"
        f"    pending = call_tool({name!r}, {{k: _amla_plain(v) for k, v in bound.items()}})\n"
        "    if pending is not None and hasattr(pending, 'result'):\n"
        "        pending.result()  # a pending call (an event loop is running): wait for the host\n"
        "    raise _AmlaFinalAnswer(0)\n"
    )


def _has_wrapper(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name) and name not in _GUEST_NAMES


def prelude(tools: Sequence[HostTool]) -> str:
    """Python run once per session before agent code: the tools' wrappers.
    A tool whose name is not a Python name gets none (call_tool reaches it).
    They are compiled as `<tools>`, the name a traceback gives their frames."""
    source = _BIND + "".join(_wrapper(t) for t in tools if _has_wrapper(t.name))
    return f"exec(compile({source!r}, '<tools>', 'exec'), globals())"


def printed_value_removed(stdout: str, value: Any) -> str:
    """`stdout` without the final expression's value the guest printed after
    everything else (docs/python.md: a str as it is, else compact JSON), so
    that logs hold what the code printed and the value is returned apart."""
    if value is None:
        return stdout
    try:
        text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):
        return stdout
    tail = text + "\n"
    return stdout[: -len(tail)] if stdout.endswith(tail) else stdout


class CodeSession:
    """A `keep_state=True` sandbox for one agent: Python variables, imports
    and definitions stay from one snippet to the next; the tools are host
    callables, each call checked against its capability (constraints, call
    budget) before it runs. The sandbox is made when first needed, so the
    tools a framework hands in later (`set_tools`) are known by then."""

    def __init__(
        self,
        tools: Sequence[HostTool] = (),
        *,
        constraints: Constraints | None = None,
        max_calls: MaxCalls = None,
        timeout: float = DEFAULT_TIMEOUT,
        memory_limit: int = DEFAULT_MEMORY_LIMIT,
        sandbox_options: Mapping[str, Any] | None = None,
    ) -> None:
        options = dict(sandbox_options or {})
        clash = sorted(_OWN_ARGUMENTS & set(options))
        if clash:
            raise TypeError(f"the adapter sets {clash} itself; pass constraints/max_calls/timeout/memory_limit instead")
        _check(list(tools), constraints, max_calls, warn=False)
        self._constraints = constraints
        self._max_calls = max_calls
        self._timeout = timeout
        self._memory_limit = memory_limit
        self._options = options
        self._tools: dict[str, HostTool] = {}
        self._sandbox: Sandbox | None = None
        self._closed = False
        self._prelude_due = True
        if tools:
            self.set_tools(tools)

    # -- tools ----------------------------------------------------------------

    def set_tools(self, tools: Sequence[HostTool]) -> None:
        """Make `tools` the session's tools (the next snippet sees them). A
        tool already there keeps its spent budget; the session keeps its
        variables (a function the adapter defined for a removed tool stays,
        and its calls fail naming the tool)."""
        new: dict[str, HostTool] = {}
        for t in tools:
            if not isinstance(t.name, str) or not t.name:
                raise ValueError(f"a tool needs a non-empty name, got {t.name!r}")
            if t.name in new:
                raise ValueError(f"two tools are named {t.name!r}")
            new[t.name] = t
        old = self._tools
        changed = set(old) != set(new) or any(not old[n].same_declaration(new[n]) for n in new)
        if not changed:
            self._tools = new  # the same declarations; the callables may be new objects
            return
        _check(list(new.values()), self._constraints, self._max_calls, warn=True)
        sb = self._sandbox
        if sb is not None:
            gone = [n for n in old if n not in new or not old[n].same_declaration(new[n])]
            if gone:
                sb.remove_tools(gone)
            added = [new[n].definition() for n in new if n not in old or n in gone]
            if added:
                sb.add_tools(added)
            # Exactly these tools' capabilities from now on (budgets already
            # spent under a kept key stay spent).
            sb.remove_tools([], capabilities=_capabilities(list(new.values()), self._constraints, self._max_calls))
        self._tools = new
        self._prelude_due = True

    @property
    def tools(self) -> list[HostTool]:
        return list(self._tools.values())

    def _handle(self, method: str, params: dict[str, Any]) -> Any:
        tool = self._tools.get(method.removeprefix("mcp:"))
        if tool is None:
            raise ValueError(f"Unknown tool: {method.removeprefix('mcp:')!r}")
        return tool.call(**params)

    # -- the sandbox ------------------------------------------------------------

    @property
    def sandbox(self) -> Sandbox:
        """The session's sandbox (made on first use)."""
        if self._sandbox is None:
            if self._closed:
                raise RuntimeError("this session is closed")
            tools = list(self._tools.values())
            caps = _capabilities(tools, self._constraints, self._max_calls)
            if not caps:
                # No tools: a capability no call has, rather than the
                # development default that allows every method.
                caps = [ToolCallCap(method_pattern="mcp:_amla_no_tools", max_calls=0)]
            self._sandbox = Sandbox(
                tools=[t.definition() for t in tools],
                capabilities=caps,
                tool_handler=self._handle,
                keep_state=True,
                timeout=self._timeout,
                memory_limit=self._memory_limit,
                **self._options,
            )
            self._prelude_due = True
        return self._sandbox

    def reset(self) -> None:
        """Drop the session's Python state (variables, imports,
        definitions); files, budgets and tools stay."""
        if self._sandbox is not None:
            self._sandbox.reset()
        self._prelude_due = True

    def close(self) -> None:
        self._closed = True
        sb, self._sandbox = self._sandbox, None
        if sb is not None:
            sb.close()

    # -- runs -----------------------------------------------------------------

    def _after(self, sb: Sandbox) -> RunResult:
        last = sb.last_result
        if last is None or last.state_reset:
            self._prelude_due = True
        assert last is not None
        return last

    def _prelude_failed(self, sb: Sandbox) -> RuntimeError:
        last = sb.last_result
        return RuntimeError(f"the adapter's tool functions could not be defined: {last.stderr if last else ''}")

    def run(self, code: str) -> RunResult:
        """Run Python in the session; the finished run (a failing snippet is
        a result with a non-zero exit code; a timeout, the memory limit or a
        cancel raise, and leave the session fresh)."""
        sb = self.sandbox
        if self._prelude_due:
            sb.python(prelude(self.tools))
            if self._after(sb).exit_code != 0:
                raise self._prelude_failed(sb)
            self._prelude_due = False
        try:
            sb.python(code)
        except BaseException:
            self._prelude_due = True
            raise
        return self._after(sb)

    async def run_async(self, code: str) -> RunResult:
        """`run()` awaiting async tools (calls a snippet makes together run
        concurrently)."""
        sb = self.sandbox
        if self._prelude_due:
            await sb.python_async(prelude(self.tools))
            if self._after(sb).exit_code != 0:
                raise self._prelude_failed(sb)
            self._prelude_due = False
        try:
            await sb.python_async(code)
        except BaseException:
            self._prelude_due = True
            raise
        return self._after(sb)


class SessionFacade:
    """What every code-agent adapter shows of its CodeSession (`_session`):
    the sandbox, `reset()`, `close()` and use as a context manager."""

    _session: CodeSession

    @property
    def sandbox(self) -> Sandbox:
        """The `amla_sandbox.Sandbox` the code runs in (files: `sandbox.files`)."""
        return self._session.sandbox

    def reset(self) -> None:
        """Drop the code's variables, imports and definitions; files and
        budgets stay."""
        self._session.reset()

    def close(self) -> None:
        """Release the sandbox."""
        self._session.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
