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
import asyncio
import copy
import inspect
import json
import keyword
import re
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

# A line of the body is indented by one tab stop, so that a body indented
# with tabs keeps its indentation consistent (Python compares indentation
# with tabs as 8 columns and as 1).
_INDENT = " " * 8

# What wrap_async_body's source ends with: the body's value, checked, as
# the final expression. A value JSON cannot carry (a set, bytes, an object,
# NaN) or one too large for the run's output would otherwise come back as
# None, so it is an error (json's TypeError names the type) instead.
_TAIL = (
    f"{_VALUE} = {{call}}\n"
    f"if len(__import__('json').dumps({_VALUE}, allow_nan=False)) > {{limit}}:\n"
    f"    raise ValueError('the code returned more than max_output_size={{limit}} bytes of JSON')\n"
    f"{_VALUE}\n"
)

# What the provider's source ends with: the value in a list as the final
# expression, after the same check for JSON, both done by the guest's
# `__amla_box__` (guests/python/prelude/_amla_guest/__init__.py; one
# statement to compile where the check written out is three, and every
# statement the guest compiles costs time in every run). The guest drops a
# return value larger than the run's output allows, and `[value]` is never
# None, so a run whose return value is missing returned too much: the
# provider says so.
_BOXED_TAIL = "__amla_box__({call})\n"


def _string_lines(tree: ast.Module) -> set[int]:
    """Line numbers (1-based) that begin inside a string literal: the
    lines after the first of every literal that spans lines. (An f-string
    counts as a whole: what is inside it is inside its lines.)"""
    inside: set[int] = set()
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))):
            end = node.end_lineno or node.lineno
            if end > node.lineno:
                inside.update(range(node.lineno + 1, end + 1))
            continue
        stack.extend(ast.iter_child_nodes(node))
    return inside


def _wrap(code: str, inputs: Mapping[str, Any] | None, tail: str, *, provider: bool) -> str:
    """`code` (an async function body) as the body of a function named
    _MAIN, followed by `tail` with {call} replaced by the expression that
    runs it.

    The body keeps its text: each line is indented by _INDENT except a line
    that begins inside a string literal (a triple-quoted string, a string
    continued with a backslash), which is left as it is, so strings keep
    their contents and every line keeps its number plus one. `inputs` are
    the function's parameters, each defaulting to its value decoded from
    its JSON text.

    For the provider (`provider=True`) the body is parsed here only when
    its text can have a line inside a string; otherwise a syntax error is
    the run's, reported by the guest. And a body that cannot await
    (neither `await` nor `async` appears in its text) is a plain function,
    called without an event loop: its coroutine would never have
    suspended."""
    if not isinstance(code, str):
        raise TypeError(f"code must be a str, got {type(code).__name__}")
    # Python reads "\r\n" and "\r" as line ends; so does the split below.
    if "\r" in code:
        code = code.replace("\r\n", "\n").replace("\r", "\n")
    # Only a triple-quoted string or a backslash at a line's end can make a
    # line begin inside a string literal; a form feed resets the column
    # Python counts indentation from, so such a body is rewritten from its
    # syntax tree (ast.unparse escapes a form feed in a string, and drops
    # comments).
    tricky = '"""' in code or "'''" in code or "\\\n" in code or "\f" in code
    tree = ast.parse(code, filename="<code>", mode="exec") if tricky or not provider else None
    params: list[str] = []
    for name, value in (inputs or {}).items():
        if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
            raise ValueError(f"inputs: {name!r} is not a Python variable name")
        try:
            text = json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise ValueError(f"inputs: the value of {name!r} is not JSON ({e})") from None
        params.append(f"{name}=__import__('json').loads({text!r})")
    if tree is not None and "\f" in code:
        code = ast.unparse(tree)
        tree = ast.parse(code, filename="<code>", mode="exec")
    inside = _string_lines(tree) if tree is not None and tricky else set()
    lines = code.split("\n")
    body = "\n".join(line if i in inside else _INDENT + line for i, line in enumerate(lines, 1)) + "\n"
    # A body of nothing but blank lines and comments is a function of one
    # `pass`. (A line inside a string follows the line its statement
    # begins on, which is neither.)
    if not any(line.strip() and not line.lstrip().startswith("#") for line in lines):
        body += _INDENT + "pass\n"
    sync = provider and "await" not in code and "async" not in code
    head = f"{'def' if sync else 'async def'} {_MAIN}({', '.join(params)}):\n"
    return head + body + tail.replace("{call}", f"{_MAIN}()" if sync else f"await {_MAIN}()")


def wrap_async_body(
    code: str, inputs: Mapping[str, Any] | None = None, *, max_value_size: int = Sandbox.max_output_size
) -> str:
    """Python source that runs `code`, an async function body (top-level
    `return` and `await` allowed), and ends with the returned value as its
    final expression (the run's `return_value`).

    The body is placed in an `async def` with its text unchanged (lines
    inside a triple-quoted string are never re-indented; a body line's
    number is its number in `code` plus one). `inputs` become parameters
    of that function, each defaulting to its value decoded from its JSON
    text. A syntax error is a SyntaxError naming the line; an input name
    that is not an identifier, or a value that is not JSON, is a
    ValueError naming it. A value that is not JSON, or larger than
    `max_value_size` bytes of JSON, is an error of the run."""
    if not isinstance(max_value_size, int):
        raise TypeError(f"max_value_size must be an int, got {type(max_value_size).__name__}")
    return _wrap(code, inputs, _TAIL.replace("{limit}", str(max_value_size)), provider=False)


def _user_traceback(stderr: str) -> str:
    """The run's traceback as the model's code: without the frames of the
    wrapper's own lines (their "File" line and the indented source and
    caret lines under it), and with the line numbers of the code's own
    file ("<string>") those of the body, one less than the wrapper's."""
    lines = stderr.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("  File ") and i + 1 < len(lines) and "__amla_code_mode_" in lines[i + 1]:
            i += 1
            while i < len(lines) and lines[i].startswith("    "):
                i += 1
            continue
        out.append(_BODY_LINE.sub(lambda m: f"{m[1]}{int(m[2]) - 1}", line))
        i += 1
    return "\n".join(out)


_BODY_LINE = re.compile(r'^(  File "<string>", line )(\d+)')


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
        self._catalog: list[tuple[str, str, Any]] = []
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
            source = _wrap(code, inputs, _BOXED_TAIL, provider=True)
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
                detail = _user_traceback(result.stderr).strip()
                detail = detail or result.error or f"exit code {result.exit_code}"
                raise ToolError(detail)
            boxed = result.return_value
            if not (isinstance(boxed, list) and len(boxed) == 1):
                raise ToolError(
                    f"the code returned more than max_output_size={self.sandbox.max_output_size} bytes of JSON"
                )
            return boxed[0]

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
        than `call_tool`, changing them only when they changed.

        The catalog is read in every run (FastMCP's middleware and
        visibility decide it per request; nothing says it is unchanged).
        What the sandbox was given is kept as (name, description,
        parameters) entries, copies, so comparing needs no encoding and a
        schema changed in place is still a change."""
        entries: list[tuple[str, str, Any]] = []
        ctx = _current_context.get()
        if ctx is not None and "call_tool" in functions:
            if self._code_mode is None:
                self._code_mode = _find_code_mode(ctx.fastmcp, self)
            if self._code_mode is not None:
                for tool in await self._code_mode.get_tool_catalog(ctx):
                    entries.append((tool.name, tool.description or "", tool.parameters or {"type": "object"}))
        names = {e[0] for e in entries}
        for name in functions:
            if name == "call_tool":
                continue
            if name in names:
                raise ToolError(f"external function {name!r} has the name of a tool of the server")
            entries.append((name, f"external function {name}", {"type": "object"}))
        if entries == self._catalog:
            return
        if self.sandbox.tools:
            self.sandbox.remove_tools([t.name for t in self.sandbox.tools])
        if entries:
            self.sandbox.add_tools(
                [ToolDefinition(name=n, description=d, parameters=dict(p)) for n, d, p in entries]
            )
        self._catalog = copy.deepcopy(entries)

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
