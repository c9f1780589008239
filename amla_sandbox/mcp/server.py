"""The sandbox as an MCP server: `python -m amla_sandbox.mcp` or
`amla-sandbox-mcp` (docs/mcp.md).

It offers `run_javascript(code)`, `run_shell(script)` and, when the
installed package runs Python, `run_python(code)`. Each MCP session has a
sandbox of its own, made on its first call and closed when the session
ends (its files persist across the session's calls); with `--stateless`
every call gets a fresh sandbox. Mounted MCP servers (`mcpServers` in the
config) are started once for the whole server and shared by the sessions;
budgets (`max_calls`) are per session.

A call answers `structuredContent` `{status, stdout, stderr, exit_code,
error?}` and the same as JSON text. Limits, denials and bad input are
results with status "error", never a failed server. While a run goes, its
stdout is sent as `notifications/message` (logger "stdout") and, when the
client asked for progress, as `notifications/progress`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import inspect
import json
import logging
import sys
import warnings
from collections.abc import Sequence
from typing import Any

from .._language import normalize_language
from ..errors import RuntimeError as SandboxRuntimeError
from ..network import prompt_lines
from .config import ConfigError, ServerConfig

__all__ = ["SandboxServer", "main", "supported_languages"]

logger = logging.getLogger(__name__)

# Notifications carry at most this much of a run's stdout; the result has it all.
_STREAM_LIMIT = 1024 * 1024
# HTTP bodies up to this size reach the tools even with a small max_code_size,
# so oversized code gets an error result that says why (the SDK's default is 4 MiB).
_MIN_HTTP_BODY = 16 * 1024 * 1024

_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "status": {"type": "string", "enum": ["success", "error"]},
        "stdout": {"type": "string"},
        "stderr": {"type": "string"},
        "exit_code": {"type": "integer"},
        "error": {"type": "string"},
    },
    "required": ["status", "stdout", "stderr", "exit_code"],
}

# tool name -> (language, argument name, what the argument is)
_TOOLS: dict[str, tuple[str, str, str]] = {
    "run_javascript": ("javascript", "code", "JavaScript to run (top-level await works)"),
    "run_typescript": ("typescript", "code", "TypeScript to run (types are stripped; top-level await works)"),
    "run_shell": ("shell", "script", "A shell script (bash-like: pipes, redirection, if/for/while, functions)"),
    "run_python": ("python", "code", "Python code to run"),
}


def supported_languages() -> list[str]:
    """The guests this installation runs, as the run_* tools need them:
    JavaScript, TypeScript and the shell always, Python when the package
    accepts the language (detected, so a later install lights it up)."""
    langs: list[str] = []
    for lang in ("javascript", "typescript", "shell", "python"):
        try:
            if normalize_language(lang) == lang:
                langs.append(lang)
        except ValueError:
            pass
    return langs


class SandboxServer:
    """An MCP server whose tools run code in per-session sandboxes."""

    def __init__(self, config: ServerConfig, *, stateless: bool = False) -> None:
        from mcp.server.lowlevel import Server

        from ..capabilities.dsl import build_capabilities as _build_capabilities
        from ..capabilities.dsl import capabilities_with_mcp as _capabilities_with_mcp
        from ..capabilities.dsl import check_spec as _check_spec
        from ..tools.conversion import tool_name

        if not stateless:
            check_sdk()
        self.config = config
        self.stateless = stateless
        self.funcs = list(config.tools)
        self.tool_map = {tool_name(f): f for f in self.funcs}
        self.mcp: Any = None
        if config.mcp_servers:
            from ..tools.mcp import MCPTools

            self.mcp = MCPTools(
                config.mcp_servers, timeout=config.timeout, max_result_size=64 * 1024 * 1024
            )
        try:
            if self.mcp is not None:
                self._caps = lambda: _capabilities_with_mcp(
                    self.funcs, self.tool_map, self.mcp, config.constraints, config.max_calls
                )
            else:
                _check_spec(self.tool_map, config.constraints, config.max_calls)
                self._caps = lambda: _build_capabilities(self.funcs, config.constraints, config.max_calls)
            self._caps()  # refuse a bad spec now, not on the first call
            if config.network is not None:
                self._check_network()
        except BaseException:
            self.close()
            raise
        self.languages = supported_languages()
        self.tools = [name for name, (lang, _, _) in _TOOLS.items() if lang in self.languages]
        self._sandboxes: dict[int, Any] = {}
        self.server = Server(
            "amla-sandbox",
            version=_version(),
            instructions=self._instructions(),
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )

    # -- sandboxes ------------------------------------------------------------

    def _check_network(self) -> None:
        """Refuse a network policy the core refuses now, not on the first
        call: the core checks it when a sandbox is made with it."""
        from ..sandbox import Sandbox

        try:
            Sandbox(capabilities=self._caps(), network=self.config.network).close()
        except ValueError as e:
            raise ConfigError(f"config: 'network': {e}") from None

    def new_sandbox(self) -> Any:
        """A sandbox with the configured tools, limits and budgets."""
        from ..sandbox import Sandbox
        from ..tools.conversion import tool_from_function

        sandbox = Sandbox(
            tools=[tool_from_function(f) for f in self.funcs],
            capabilities=self._caps(),
            tool_handler=self._handle_tool if self.funcs else None,
            timeout=self.config.timeout,
            memory_limit=self.config.memory_limit,
            disk_quota=self.config.disk_quota,
            mcp_servers=self.mcp,
            network=self.config.network,
        )
        sandbox.await_async_tools = True
        return sandbox

    async def _handle_tool(self, name: str, params: Any) -> Any:
        """The sessions' handler for the configured Python tools. A plain
        function runs on a worker thread: on the server's event loop it
        would stall every session (and their output) while it runs."""
        from ..tools.handlers import FunctionHandler

        func = FunctionHandler(self.tool_map, unknown="Unknown tool: {method!r}").lookup(name)
        if not isinstance(params, dict):
            raise TypeError(f"{name} takes one object argument (its parameters), got {type(params).__name__}")
        if inspect.iscoroutinefunction(func):
            return await func(**params)
        result = await asyncio.to_thread(func, **params)
        if inspect.isawaitable(result):
            result = await result
        return result

    async def _session_sandbox(self, ctx: Any) -> tuple[Any, bool]:
        """The sandbox of the call's MCP session, and whether the caller
        must close it after the call (stateless mode)."""
        if self.stateless:
            return self.new_sandbox(), True
        connection = _connection_of(ctx)
        sandbox = connection.state.get("amla_sandbox")
        if sandbox is None:
            sandbox = self.new_sandbox()
            self._sandboxes[id(sandbox)] = sandbox

            def release(sb: Any = sandbox) -> None:
                self._sandboxes.pop(id(sb), None)
                sb.close()

            connection.state["amla_sandbox"] = sandbox

            connection.exit_stack.callback(release)
        return sandbox, False

    # -- MCP handlers -----------------------------------------------------------

    async def _list_tools(self, ctx: Any, params: Any) -> Any:
        import mcp_types as types

        tools = []
        for name in self.tools:
            lang, arg, what = _TOOLS[name]
            tools.append(
                types.Tool(
                    name=name,
                    description=self._description(lang),
                    input_schema={
                        "type": "object",
                        "properties": {arg: {"type": "string", "description": what}},
                        "required": [arg],
                    },
                    output_schema=_OUTPUT_SCHEMA,
                )
            )
        return types.ListToolsResult(tools=tools)

    async def _call_tool(self, ctx: Any, params: Any) -> Any:
        name = params.name
        args = params.arguments
        if name not in self.tools:
            return _result_of("error", error=f"unknown tool {name!r}; this server offers {self.tools}")
        lang, arg, _ = _TOOLS[name]
        code = args.get(arg) if isinstance(args, dict) else None
        if not isinstance(code, str):
            return _result_of("error", error=f"{name} needs the argument {arg!r}: a string of {lang} code")
        size = len(code.encode("utf-8", "surrogatepass"))
        if size > self.config.max_code_size:
            return _result_of(
                "error",
                error=f"{arg} is {size} bytes, more than this server accepts ({self.config.max_code_size}; "
                "max_code_size in the config)",
            )
        try:
            sandbox, temporary = await self._session_sandbox(ctx)
        except Exception as e:
            return _result_of("error", error=f"could not make a sandbox: {e}")
        from ..observability import remote_parent

        try:
            # The run's span joins the client's trace (its `_meta`
            # traceparent) when no span of the request is current already.
            with remote_parent(getattr(params, "meta", None)):
                return await self._run(ctx, sandbox, lang, code)
        finally:
            if temporary:
                sandbox.close()

    async def _run(self, ctx: Any, sandbox: Any, lang: str, code: str) -> Any:
        loop = asyncio.get_running_loop()
        chunks: asyncio.Queue[str | None] = asyncio.Queue()
        streamed = 0

        def on_output(chunk: str) -> None:  # called on a worker thread
            nonlocal streamed
            if streamed < _STREAM_LIMIT:
                streamed += len(chunk)
                loop.call_soon_threadsafe(chunks.put_nowait, chunk)

        sender = asyncio.create_task(self._stream(ctx, chunks))
        run_error: str | None = None
        try:
            result = await sandbox.run_script_async(code, lang, on_output=on_output)
        except SandboxRuntimeError as e:  # a limit: timeout, memory, the engine
            run_error = str(e)
            result = sandbox.last_result
        except Exception as e:
            run_error = f"{type(e).__name__}: {e}"
            result = sandbox.last_result
        finally:
            chunks.put_nowait(None)
            with contextlib.suppress(Exception):
                await sender
        stdout = result.stdout if result is not None else ""
        stderr = result.stderr if result is not None else ""
        exit_code = result.exit_code if result is not None else 1
        if run_error is None and exit_code != 0:
            last = [line for line in stderr.splitlines() if line.strip()]
            run_error = f"exited with status {exit_code}" + (f": {last[0][:500]}" if last else "")
        if run_error is not None:
            return _result_of("error", stdout, stderr, exit_code if exit_code else 1, run_error)
        return _result_of("success", stdout, stderr, 0)

    async def _stream(self, ctx: Any, chunks: asyncio.Queue[str | None]) -> None:
        """Send stdout as it comes: one notification per batch of chunks."""
        sent = 0
        while True:
            chunk = await chunks.get()
            if chunk is None:
                return
            parts = [chunk]
            done = False
            while not chunks.empty():
                more = chunks.get_nowait()
                if more is None:
                    done = True
                    break
                parts.append(more)
            text = "".join(parts)
            sent += len(text)
            try:
                with warnings.catch_warnings():
                    # Logging is deprecated from protocol 2026-07-28 on, where
                    # the SDK sends it only to clients that opt in; clients of
                    # the handshake versions get it as before.
                    warnings.simplefilter("ignore", UserWarning)  # MCPDeprecationWarning
                    await ctx.session.send_log_message(
                        level="info", data=text, logger="stdout", related_request_id=ctx.request_id
                    )
                await ctx.session.report_progress(sent, None, text)
            except Exception:  # a client that went away must not fail the run
                logger.debug("could not send output notification", exc_info=True)
            if done:
                return

    # -- text for the model -------------------------------------------------------

    def _tools_text(self) -> list[str]:
        from ..tools.conversion import js_params, tool_name, tool_summary

        lines = []
        if self.funcs:
            lines.append("Functions (JavaScript: `await name({...})`; shell: `tool name --param value`):")
            lines += [f"- {tool_name(f)}({js_params(f)}) - {tool_summary(f) or 'No description'}" for f in self.funcs]
        if self.mcp is not None and self.mcp.definitions:
            lines.append(
                "MCP tools (JavaScript: `await server.tool({...})`; shell: `tool server.tool --param value`); "
                "find tools with `await tools.search('words')` / `tool --search words`, parameters with "
                "`await tools.describe('server.tool')` / `tool --describe server.tool`:"
            )
            lines += self.mcp.prompt_lines()
        if not lines:
            lines.append("No tools are mounted: plain computation, files and the shell's utilities only.")
        return lines

    def _limits_text(self) -> str:
        mib = 1024 * 1024
        files = (
            "Each call starts with empty /workspace and /tmp."
            if self.stateless
            else "Files in /workspace and /tmp persist across the calls of this MCP session "
            "(JavaScript, shell and Python share them)."
        )
        network = prompt_lines(self.config.network, self._caps()) if self.config.network is not None else []
        return (
            f"Limits per run: {self.config.timeout:g} s, {self.config.memory_limit // mib} MiB of memory, "
            f"{self.config.disk_quota // mib} MiB of files, code up to {self.config.max_code_size // 1024} KiB. "
            + ("\n".join(network) + "\n" if network else "No network. ")
            + f"{files} Every tool call is checked against the sandbox's capabilities and budgets; "
            "a denied call fails in the script with a message saying why."
        )

    def _description(self, lang: str) -> str:
        head = {
            "javascript": "Run JavaScript (QuickJS, ES2023, top-level await; print with console.log) in a "
            "WebAssembly sandbox. Call many tools in one script (loops, Promise.all) instead of one tool call each. "
            "Globals: fs (await fs.readFile/writeFile/readdir), shell(cmd), tools.search/describe.",
            "typescript": "Run TypeScript in a WebAssembly sandbox: types are stripped (enums, namespaces, "
            "decorators work; nothing is type-checked), then it runs as JavaScript on QuickJS (ES2023, top-level "
            "await; print with console.log). Call many tools in one script instead of one tool call each.",
            "shell": "Run a bash-like shell script in a WebAssembly sandbox: pipes, redirection, if/for/while, "
            "functions, and applets such as grep, sed, awk, jq, sort, uniq, wc, head, tail, cut, tr, find, xargs; "
            "`tool NAME --param value` calls a tool and prints its JSON result.",
            "python": "Run Python in a WebAssembly sandbox; print with print().",
        }[lang]
        others = [lng for lng in self.languages if lng != lang]
        return "\n".join(
            [
                head,
                "",
                *self._tools_text(),
                "",
                self._limits_text(),
                f"Other languages on the same files: {', '.join(others)}." if others else "",
                "The result has status, stdout, stderr, exit_code and, when status is error, error.",
            ]
        ).strip()

    def _instructions(self) -> str:
        tools = ", ".join(name for name in self.tools)
        return (
            f"This server runs code in a secure sandbox ({tools}). Prefer one script that does many steps "
            "(and many tool calls) over many separate calls. " + self._limits_text()
        )

    # -- serving ------------------------------------------------------------------

    async def serve_stdio(self) -> None:
        from mcp.server.stdio import stdio_server

        async with stdio_server() as (read, write):
            await self.server.run(read, write, self.server.create_initialization_options())

    async def serve_http(self, host: str, port: int) -> None:
        import uvicorn

        app = self.server.streamable_http_app(
            streamable_http_path="/mcp",
            stateless_http=self.stateless,
            host=host,
            max_request_body_size=http_body_limit(self.config.max_code_size),
        )
        config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
        server = uvicorn.Server(config)
        print(f"amla-sandbox-mcp: serving http://{host}:{port}/mcp", file=sys.stderr, flush=True)
        await server.serve()

    def close(self) -> None:
        for sandbox in list(getattr(self, "_sandboxes", {}).values()):
            with contextlib.suppress(Exception):
                sandbox.close()
        if self.mcp is not None:
            self.mcp.close()
            self.mcp = None


def http_body_limit(max_code_size: int) -> int:
    """The largest HTTP request body the server reads. Code up to
    max_code_size always fits (JSON may escape each byte in 6), and larger
    code up to this size gets our error result naming max_code_size; a
    body past it is refused by the SDK with HTTP 413."""
    return max(_MIN_HTTP_BODY, 6 * max_code_size + 64 * 1024)


def _connection_of(ctx: Any) -> Any:
    """The SDK's per-session `Connection` of a call: its `state` holds the
    session's sandbox, its `exit_stack` closes it when the session ends.

    mcp 2.3.0 hands low-level handlers no public way to it: the `Context`
    that has a public `connection` is not what its runner builds for them
    (see mcp/server/context.py), and the `ServerSession` a handler gets is
    made per request and keeps the connection as `_connection`. The SDK is
    pinned, and `check_sdk()` refuses to serve with a layout other than
    this one, so a change cannot quietly make sessions stateless."""
    return ctx.session._connection


def check_sdk() -> None:
    """Refuse an `mcp` SDK that does not keep per-session state where
    `_connection_of` reads it (raises RuntimeError naming what is missing)."""
    import inspect as _inspect

    from mcp.server.connection import Connection
    from mcp.server.session import ServerSession

    if "connection" not in _inspect.signature(ServerSession.__init__).parameters or not all(
        name in Connection.__annotations__ for name in ("state", "exit_stack")
    ):
        raise RuntimeError(
            "this version of the mcp SDK keeps per-session state where amla-sandbox-mcp cannot reach it; "
            "install the pinned one: pip install 'amla-sandbox[mcp]'"
        )


def _result_of(
    status: str, stdout: str = "", stderr: str = "", exit_code: int = 1, error: str | None = None
) -> Any:
    import mcp_types as types

    structured: dict[str, Any] = {"status": status, "stdout": stdout, "stderr": stderr, "exit_code": exit_code}
    if status == "success":
        structured["exit_code"] = 0
    if error is not None:
        structured["error"] = error
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(structured, ensure_ascii=False))],
        structured_content=structured,
        is_error=status == "error",
    )


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("amla-sandbox")
    except Exception:  # pragma: no cover - an uninstalled checkout
        return "0"


def main(argv: Sequence[str] | None = None) -> int:
    """The `amla-sandbox-mcp` command."""
    parser = argparse.ArgumentParser(
        prog="amla-sandbox-mcp",
        description="Serve run_javascript / run_shell (and run_python when available) over MCP; "
        "each session gets its own sandbox.",
    )
    parser.add_argument("--config", metavar="FILE", help="JSON config: mcpServers, tools, constraints, "
                        "max_calls, timeout, memory_limit, disk_quota, max_code_size, network")
    parser.add_argument("--transport", choices=["stdio", "streamable-http"], default="stdio")
    parser.add_argument("--host", default="127.0.0.1", help="streamable-http only (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="streamable-http only (default 8000)")
    parser.add_argument("--stateless", action="store_true", help="a fresh sandbox for every call")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    try:
        config = ServerConfig.from_file(args.config) if args.config else ServerConfig()
        server = SandboxServer(config, stateless=args.stateless)
    except ImportError as e:
        print(f"amla-sandbox-mcp: {e}", file=sys.stderr)
        return 2
    except (ConfigError, ValueError, TypeError) as e:
        print(f"amla-sandbox-mcp: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # a mounted server that would not start
        print(f"amla-sandbox-mcp: {e}", file=sys.stderr)
        return 1
    try:
        if args.transport == "stdio":
            asyncio.run(server.serve_stdio())
        else:
            asyncio.run(server.serve_http(args.host, args.port))
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0
