"""FastMCP code mode running in amla-sandbox: a `SandboxProvider` for
`fastmcp.experimental.transforms.code_mode.CodeMode`.

    from fastmcp import FastMCP
    from fastmcp.experimental.transforms.code_mode import CodeMode
    from amla_sandbox import ToolCallCap
    from amla_sandbox.integrations.fastmcp import AmlaSandboxProvider

    provider = AmlaSandboxProvider(capabilities=[ToolCallCap("add", max_calls=10)])
    mcp = FastMCP("calc", transforms=[CodeMode(sandbox_provider=provider)])

CodeMode hands the provider the model's code (an async function body that
ends with `return`) and one callable, `call_tool(tool_name, params)`. The
code runs in the sandbox's Python guest, whose own `call_tool(name,
params=None, **kwargs)` has the same call shape, so the code's `await
call_tool("add", {"a": 1, "b": 2})` is the guest's: each of the server's
tools is a tool of the sandbox under its own name, every call is checked
against the provider's capabilities and budgets by the sandbox's core, and
an allowed call is answered by FastMCP's `call_tool` (which runs the tool
through the server, its middleware and its `max_tool_calls`). A refused
call, an exhausted budget or a failed tool raises `ToolError`/`ToolDenied`
in the code; uncaught, the run fails and the client gets a tool error with
the traceback.

Install: pip install "amla-sandbox[fastmcp]" (docs/integrations.md).
"""

from __future__ import annotations

import ast
import inspect
import asyncio
import json
import keyword
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ._common import missing_framework

try:
    from fastmcp.exceptions import ToolError
    from fastmcp.experimental.transforms.code_mode import CodeMode
    from fastmcp.server.context import _current_context
except ImportError as _e:  # pragma: no cover - exercised without the extra
    raise missing_framework("fastmcp", "FastMCP", "fastmcp", _e) from _e

from ..capabilities import MethodCapability, ToolCallCap
from ..sandbox import Sandbox
from ..tools import ToolDefinition

__all__ = ["AmlaSandboxProvider", "wrap_async_body"]

_MAIN = "__amla_code_mode_main"
_VALUE = "__amla_code_mode_value"

# What the wrapped code ends with: the body's value, checked, as the final
# expression. A value JSON cannot carry (a set, bytes, an object, NaN) or
# one too large for the run's output would otherwise come back as None, so
# it is an error (json's TypeError names the type) instead.
_TAIL = (
    f"{_VALUE} = await {_MAIN}()\n"
    f"if len(__import__('json').dumps({_VALUE}, allow_nan=False)) > {{limit}}:\n"
    f"    raise ValueError('the code returned more than max_output_size={{limit}} bytes of JSON')\n"
    f"{_VALUE}\n"
)


def wrap_async_body(
    code: str, inputs: Mapping[str, Any] | None = None, *, max_value_size: int = Sandbox.max_output_size
) -> str:
    """Python source that runs `code`, an async function body (top-level
    `return` and `await` allowed), and ends with the returned value as its
    final expression (the run's `return_value`).

    The body is parsed with `ast` and placed in an `async def` as nodes, so
    its text (triple-quoted strings, continuation lines) is never
    re-indented. `inputs` become local variables of that function, each
    assigned from its JSON text. A syntax error is a SyntaxError naming the
    line; an input name that is not an identifier, or a value that is not
    JSON, is a ValueError naming it."""
    if not isinstance(code, str):
        raise TypeError(f"code must be a str, got {type(code).__name__}")
    tree = ast.parse(code, filename="<code>", mode="exec")
    body: list[ast.stmt] = []
    for name, value in (inputs or {}).items():
        if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
            raise ValueError(f"inputs: {name!r} is not a Python variable name")
        try:
            text = json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise ValueError(f"inputs: the value of {name!r} is not JSON ({e})") from None
        loads = ast.Attribute(
            value=ast.Call(func=ast.Name("__import__", ast.Load()), args=[ast.Constant("json")], keywords=[]),
            attr="loads",
            ctx=ast.Load(),
        )
        body.append(
            ast.Assign(
                targets=[ast.Name(name, ast.Store())],
                value=ast.Call(func=loads, args=[ast.Constant(text)], keywords=[]),
                lineno=0,
            )
        )
    body.extend(tree.body)
    if not body:
        body.append(ast.Pass())
    main = ast.AsyncFunctionDef(
        name=_MAIN,
        args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=body,
        decorator_list=[],
        returns=None,
        type_comment=None,
        lineno=0,  # what unparse reads; the other locations it never needs
    )
    if sys.version_info >= (3, 12):
        main.type_params = []
    if not isinstance(max_value_size, int):
        raise TypeError(f"max_value_size must be an int, got {type(max_value_size).__name__}")
    return ast.unparse(ast.Module(body=[main], type_ignores=[])) + "\n" + _TAIL.format(limit=max_value_size)


def _without_wrapper_frame(stderr: str) -> str:
    """A traceback without the frame of the line that awaits the wrapped
    body (code the model never wrote): its "File" line and the indented
    source and caret lines under it."""
    lines = stderr.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("  File ") and i + 1 < len(lines) and f"await {_MAIN}()" in lines[i + 1]:
            i += 1
            while i < len(lines) and lines[i].startswith("    "):
                i += 1
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def _find_code_mode(server: Any, provider: AmlaSandboxProvider) -> CodeMode | None:
    """The CodeMode transform that runs code through `provider`, on the
    server or on one of its providers (mounted servers)."""
    seen: set[int] = set()
    stack = [server]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for t in getattr(node, "transforms", None) or ():
            if isinstance(t, CodeMode) and t.sandbox_provider is provider:
                return t
        stack.extend(getattr(node, "providers", None) or ())
    return None


class AmlaSandboxProvider:
    """A FastMCP `SandboxProvider` that runs code-mode code in one amla
    sandbox.

    `capabilities` decide which of the server's tools the code may call,
    with which parameters and how many times (`ToolCallCap("add",
    max_calls=10)`; a budget spans every run of this provider). None allows
    every tool without a budget. The other keyword arguments are
    `Sandbox`'s (`timeout`, `memory_limit`, `network`, `python_packages`,
    ...); `tools` and `tool_handler` are the provider's own.

    Each run starts from a fresh interpreter (as FastMCP's Monty provider
    does); the sandbox's files in /workspace and /tmp stay from one run to
    the next, for every client of the server. Runs of one provider take
    turns; give each server (or each tenant) its own provider to keep their
    files and budgets apart. `close()` (or `async with`/`with`) releases
    the sandbox.
    """

    def __init__(
        self,
        *,
        capabilities: Sequence[ToolCallCap | MethodCapability] | None = None,
        **sandbox_options: Any,
    ) -> None:
        for own in ("tools", "tool_handler"):
            if own in sandbox_options:
                raise TypeError(f"AmlaSandboxProvider sets {own} itself (the server's tools); do not pass {own}=")
        caps = list(capabilities) if capabilities is not None else [ToolCallCap(method_pattern="**")]
        self.sandbox = Sandbox(capabilities=caps, tool_handler=self._answer_call, **sandbox_options)
        self._locks: dict[asyncio.AbstractEventLoop, asyncio.Lock] = {}
        self._functions: dict[str, Callable[..., Any]] = {}
        self._catalog_key: tuple[Any, ...] = ()
        self._code_mode: CodeMode | None = None

    async def run(
        self,
        code: str,
        *,
        inputs: dict[str, Any] | None = None,
        external_functions: dict[str, Callable[..., Any]] | None = None,
    ) -> Any:
        """Run `code` (an async function body) and return its `return`
        value. The code's `call_tool(name, params)` reaches FastMCP's
        through the sandbox's capabilities; any other external function is
        a tool of the same name, called with keyword arguments. A syntax
        error, an uncaught exception, a timeout or a memory limit is a
        `ToolError` with the run's stderr."""
        try:
            source = wrap_async_body(code, inputs, max_value_size=self.sandbox.max_output_size)
        except SyntaxError as e:
            raise ToolError(f"SyntaxError: {e.msg} (line {e.lineno})") from None
        except ValueError as e:
            raise ToolError(str(e)) from None
        functions = dict(external_functions or {})
        async with self._lock():
            await self._sync_tools(functions)
            self._functions = functions
            try:
                await self.sandbox.python_async(source)
            except Exception as e:  # a timeout, the memory limit, a closed sandbox
                raise ToolError(f"{type(e).__name__}: {e}") from e
            finally:
                self._functions = {}
            result = self.sandbox.last_result
            assert result is not None
            if result.exit_code != 0:
                detail = _without_wrapper_frame(result.stderr).strip()
                detail = detail or result.error or f"exit code {result.exit_code}"
                raise ToolError(detail)
            return result.return_value

    def _lock(self) -> asyncio.Lock:
        # One lock per event loop (an asyncio.Lock belongs to the loop that
        # first waits on it); the sandbox itself refuses a second run while
        # one is in progress, whatever the loop.
        loop = asyncio.get_running_loop()
        lock = self._locks.get(loop)
        if lock is None:
            for old in [l for l in self._locks if l.is_closed()]:
                del self._locks[old]
            lock = self._locks[loop] = asyncio.Lock()
        return lock

    async def _answer_call(self, method: str, params: dict[str, Any]) -> Any:
        # Reached only for calls the sandbox's capabilities allowed.
        fn = self._functions.get(method)
        if fn is not None:
            out = fn(**params)
        else:
            call_tool = self._functions.get("call_tool")
            if call_tool is None:
                raise ToolError(f"Unknown tool: {method}")
            out = call_tool(method, params)
        if inspect.isawaitable(out):
            out = await out
        return out

    async def _sync_tools(self, functions: Mapping[str, Callable[..., Any]]) -> None:
        """Make the sandbox's tools the server's catalog (when the provider
        runs inside a CodeMode request) plus the external functions other
        than `call_tool`, changing them only when they changed."""
        defs: list[ToolDefinition] = []
        ctx = _current_context.get()
        if ctx is not None and "call_tool" in functions:
            if self._code_mode is None:
                self._code_mode = _find_code_mode(ctx.fastmcp, self)
            if self._code_mode is not None:
                for tool in await self._code_mode.get_tool_catalog(ctx):
                    defs.append(
                        ToolDefinition(
                            name=tool.name,
                            description=tool.description or "",
                            parameters=dict(tool.parameters or {"type": "object"}),
                        )
                    )
        names = {d.name for d in defs}
        for name in functions:
            if name == "call_tool":
                continue
            if name in names:
                raise ToolError(f"external function {name!r} has the name of a tool of the server")
            defs.append(
                ToolDefinition(name=name, description=f"external function {name}", parameters={"type": "object"})
            )
        key = tuple((d.name, d.description, json.dumps(d.parameters, sort_keys=True, default=str)) for d in defs)
        if key == self._catalog_key:
            return
        if self.sandbox.tools:
            self.sandbox.remove_tools([t.name for t in self.sandbox.tools])
        if defs:
            self.sandbox.add_tools(defs)
        self._catalog_key = key

    def close(self) -> None:
        """Release the sandbox (its files are removed)."""
        self.sandbox.close()

    def __enter__(self) -> AmlaSandboxProvider:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> AmlaSandboxProvider:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()
