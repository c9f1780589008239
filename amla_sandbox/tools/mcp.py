"""MCP servers' tools as sandbox tools (docs/mcp.md).

`from_mcp({"github": {"command": "npx", "args": [...]}, "docs": {"url": ...}})`
starts (or connects to) each server of an `mcpServers` mapping, lists its
tools and returns an `MCPTools`: their `ToolDefinition`s (named
`<server>.<tool>`, called as method `mcp:<server>/<tool>`), a tool handler
that forwards calls to the servers, and the capabilities to allow them. The
sandbox checks every call in Go before the handler sees it, exactly as for
Python tools.

How the async MCP client is driven: each `MCPTools` owns one background
thread running an asyncio event loop, where the client sessions live (an
MCP session is bound to the loop it was opened on). The handler hands each
call to that loop. Called from a running event loop (`execute_async`,
`run_async`, our MCP server) it returns an awaitable, so calls a script
issues together run concurrently; called from synchronous code it waits for
the answer. Its `start_call` is what the synchronous run loop
(`execute`/`run`) uses: it starts each call the moment the script makes it
and answers it when it is done, so calls a script issues together run
concurrently there too, and no call waits for the run loop to look for
others.

The `mcp` package is imported only here, and only when a server is mounted.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import math
import os
import re
import shutil
import signal
import sys
import threading
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .definition import ToolDefinition

__all__ = ["from_mcp", "MCPTools", "MCPHandler", "MCPToolDefinition", "MCPServerSpec", "MCPError"]

logger = logging.getLogger(__name__)

DEFAULT_CALL_TIMEOUT = 30.0
DEFAULT_CONNECT_TIMEOUT = 30.0
# Room for the JSON-RPC envelope around a result of max_result_size bytes.
_ENVELOPE_ROOM = 64 * 1024
_SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# tools/list: at most this many pages (a server whose pages never end).
_MAX_PAGES = 1000
# After a call timed out: how long a ping may take for the server to count as alive.
_PING_TIMEOUT = 5.0
# close(): how long the servers get to stop before the loop is stopped anyway.
_CLOSE_TIMEOUT = 15.0
# Longer tool names are refused (the MCP spec asks for at most 128 characters).
_MAX_TOOL_NAME = 1024
_LEADING_SPACE = re.compile(rb"[ \t\r\n]*")
_STDIO_KEYS = {"command", "args", "env", "cwd", "timeout", "type", "transport"}
_HTTP_KEYS = {"url", "headers", "timeout", "type", "transport"}
# Values of "type"/"transport" that MCP clients' configs use for the two kinds.
_STDIO_TYPES = {"stdio"}
_HTTP_TYPES = {"http", "streamable-http", "streamable_http", "streamableHttp"}


from ..errors import MCPError


def _require_sdk() -> None:
    try:
        import mcp  # noqa: F401
    except ImportError as e:  # pragma: no cover - depends on the install
        raise ImportError(
            "mounting MCP servers needs the official MCP SDK: pip install 'amla-sandbox[mcp]'"
        ) from e


# ---------------------------------------------------------------------------
# Configuration: the mcpServers mapping MCP clients use
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class MCPServerSpec:
    """One entry of an `mcpServers` mapping: a stdio server (`command`,
    `args`, `env`, `cwd`) or a streamable HTTP server (`url`, `headers`).
    `timeout` (seconds per call) is our addition."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] | None = None
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] | None = None
    timeout: float | None = None

    @classmethod
    def parse(cls, name: Any, spec: Any) -> MCPServerSpec:
        where = f"mcp_servers[{name!r}]"
        if not isinstance(name, str) or not _SERVER_NAME.match(name):
            raise ValueError(
                f"MCP server name {name!r:.80} must be 1-64 letters, digits, '_' or '-' "
                "(it becomes the tools' namespace: <server>.<tool>)"
            )
        if not isinstance(spec, Mapping):
            raise TypeError(f"{where} must be a dict with 'command' or 'url', got {type(spec).__name__}")
        timeout = spec.get("timeout")
        if timeout is not None and (
            isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout < math.inf
        ):
            raise ValueError(f"{where}['timeout'] must be a positive number of seconds, got {timeout!r}")
        if "command" in spec and "url" in spec:
            raise ValueError(f"{where} has both 'command' (stdio) and 'url' (HTTP); give one")
        for key in ("type", "transport"):
            kind = spec.get(key)
            if kind is None:
                continue
            wanted = _STDIO_TYPES if "command" in spec else _HTTP_TYPES
            if kind == "sse" and "url" in spec:
                raise ValueError(
                    f"{where}[{key!r}] is 'sse': the legacy SSE transport is not supported, only streamable "
                    "HTTP (most servers serve it too, usually at /mcp)"
                )
            if kind not in wanted:
                raise ValueError(f"{where}[{key!r}] must be one of {sorted(wanted)} here, got {kind!r:.80}")
        if "command" in spec:
            unknown = set(spec) - _STDIO_KEYS
            if unknown:
                raise ValueError(f"{where}: unknown key(s) {sorted(unknown)} for a stdio server; known: {sorted(_STDIO_KEYS)}")
            command, args, env, cwd = spec["command"], spec.get("args", []), spec.get("env"), spec.get("cwd")
            if not isinstance(command, str) or not command:
                raise ValueError(f"{where}['command'] must be a non-empty string, got {command!r:.80}")
            if not isinstance(args, (list, tuple)) or not all(isinstance(a, str) for a in args):
                raise TypeError(f"{where}['args'] must be a list of strings, got {args!r:.80}")
            if env is not None and (
                not isinstance(env, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())
            ):
                raise TypeError(f"{where}['env'] must be a dict of strings, got {env!r:.80}")
            if cwd is not None and not isinstance(cwd, str):
                raise TypeError(f"{where}['cwd'] must be a string, got {cwd!r:.80}")
            return cls(name, command=command, args=tuple(args), env=dict(env) if env else None, cwd=cwd, timeout=timeout)
        if "url" in spec:
            unknown = set(spec) - _HTTP_KEYS
            if unknown:
                raise ValueError(f"{where}: unknown key(s) {sorted(unknown)} for an HTTP server; known: {sorted(_HTTP_KEYS)}")
            url, headers = spec["url"], spec.get("headers")
            if not isinstance(url, str) or not re.match(r"^https?://", url):
                raise ValueError(f"{where}['url'] must be an http:// or https:// URL, got {url!r:.80}")
            if headers is not None and (
                not isinstance(headers, Mapping)
                or not all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items())
            ):
                raise TypeError(f"{where}['headers'] must be a dict of strings, got {headers!r:.80}")
            return cls(name, url=url, headers=dict(headers) if headers else None, timeout=timeout)
        raise ValueError(f"{where} needs 'command' (a stdio server) or 'url' (a streamable HTTP server)")

    def describe(self) -> str:
        if self.url is not None:
            return self.url
        return " ".join([self.command or "", *self.args])


# ---------------------------------------------------------------------------
# Tool definitions
# ---------------------------------------------------------------------------


@dataclass
class MCPToolDefinition(ToolDefinition):
    """A tool of a mounted MCP server: `name` is `<server>.<tool>`, `method`
    the method its calls are checked as (`mcp:<server>/<tool>`)."""

    server: str = ""
    tool: str = ""
    method: str = ""

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d["method"] = self.method
        return d


def _method(server: str, tool: str) -> str:
    return f"mcp:{server}/{tool}"


# ---------------------------------------------------------------------------
# The background event loop
# ---------------------------------------------------------------------------


class _LoopThread:
    """An asyncio event loop on a daemon thread of its own.

    Every future `submit` hands out is settled: by its coroutine, or, if
    the loop stops first, with `closed_message`. So a caller blocked on a
    call never outlives the loop. The thread closes its own loop when it
    stops (after cancelling what is left), so `stop` works from any
    thread, the loop's own included (a finalizer may run there)."""

    def __init__(self, name: str, closed_message: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.closed_message = closed_message
        self._lock = threading.Lock()
        self._stopping = False
        self._futures: set[concurrent.futures.Future[Any]] = set()
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)
        self._thread.start()

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
        finally:
            with self._lock:
                self._stopping = True
            self._fail_pending()
            with contextlib.suppress(Exception):
                tasks = asyncio.all_tasks(self.loop)
                for task in tasks:
                    task.cancel()
                if tasks:
                    # Cancelled connections stop their servers (bounded waits).
                    self.loop.run_until_complete(asyncio.wait(tasks, timeout=15))
                self.loop.run_until_complete(self.loop.shutdown_asyncgens())
                self.loop.run_until_complete(self.loop.shutdown_default_executor())
            self.loop.close()

    def in_loop_thread(self) -> bool:
        return threading.current_thread() is self._thread

    def submit(self, coro: Any) -> concurrent.futures.Future[Any]:
        """Run `coro` on the loop; its future may be cancelled from any
        thread (the coroutine is cancelled too)."""
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        with self._lock:
            if self._stopping:
                coro.close()
                raise RuntimeError(self.closed_message)
            self._futures.add(future)

        def settle(task: asyncio.Task[Any]) -> None:
            with self._lock:
                self._futures.discard(future)
                if future.done():
                    return
                if task.cancelled():
                    future.set_exception(RuntimeError(self.closed_message))
                elif task.exception() is not None:
                    future.set_exception(task.exception())  # type: ignore[arg-type]
                else:
                    future.set_result(task.result())

        def start() -> None:
            if future.done():  # cancelled, or failed by stop(), before it began
                coro.close()
                return
            task = self.loop.create_task(coro)
            task.add_done_callback(settle)

            def cancel_task(f: concurrent.futures.Future[Any]) -> None:
                if f.cancelled() and not self.loop.is_closed():
                    with contextlib.suppress(RuntimeError):
                        self.loop.call_soon_threadsafe(task.cancel)

            future.add_done_callback(cancel_task)

        try:
            self.loop.call_soon_threadsafe(start)
        except RuntimeError:  # the loop closed meanwhile
            coro.close()
            self._fail(future)
        return future

    def _fail(self, future: concurrent.futures.Future[Any]) -> None:
        with self._lock:
            self._futures.discard(future)
            if not future.done():
                future.set_exception(RuntimeError(self.closed_message))

    def _fail_pending(self) -> None:
        with self._lock:
            pending, self._futures = list(self._futures), set()
        for future in pending:
            self._fail(future)

    def stop(self, join_timeout: float = 30.0) -> None:
        """Stop the loop (idempotent): refuse new work, fail what waits,
        and, unless called on the loop's own thread, wait for the thread."""
        with self._lock:
            self._stopping = True
        self._fail_pending()
        with contextlib.suppress(RuntimeError):  # closed already
            self.loop.call_soon_threadsafe(self.loop.stop)
        if not self.in_loop_thread():
            self._thread.join(join_timeout)


# ---------------------------------------------------------------------------
# Transports with bounded messages
# ---------------------------------------------------------------------------


class _Faults:
    """What went wrong with a connection, in words for the error message."""

    def __init__(self) -> None:
        self.reason: str | None = None

    def note(self, reason: str) -> None:
        if self.reason is None:
            self.reason = reason


def _preview(data: bytes | str, n: int = 120) -> str:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return text if len(text) <= n else text[: n - 3] + "..."


@contextlib.asynccontextmanager
async def _stdio_transport(spec: MCPServerSpec, max_message: int, faults: _Faults) -> AsyncIterator[Any]:
    """Start the server process and speak newline-delimited JSON-RPC with it.

    Unlike the SDK's stdio_client, a message longer than `max_message` bytes
    is never held in memory: the connection is ended with a fault. A line
    that looks like JSON but is not a valid JSON-RPC message (including one
    nested too deeply to parse) ends it too, so calls waiting on it fail at
    once; other lines (log noise a server prints on stdout) are skipped.
    """
    import anyio
    import mcp_types
    from mcp.client.stdio import get_default_environment
    from mcp.shared.message import SessionMessage

    command = shutil.which(spec.command or "") or spec.command or ""
    env = get_default_environment() | dict(spec.env or {})
    try:
        process = await anyio.open_process(
            [command, *spec.args], env=env, cwd=spec.cwd, stderr=None, start_new_session=True
        )
    except OSError as e:
        raise MCPError(f"MCP server '{spec.name}' could not be started ({spec.describe()}): {e}") from None

    read_writer, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, write_reader = anyio.create_memory_object_stream[Any](0)

    async def handle(line: bytearray) -> bool:
        # The line is parsed where it lies: stripping or slicing it would copy
        # a message that may be as large as the sandbox's result limit.
        start = _LEADING_SPACE.match(line).end()  # type: ignore[union-attr]
        if start == len(line):
            return True
        if line[start] not in b"{[":
            logger.debug("MCP server %r printed a non-JSON line: %s", spec.name, _preview(bytes(line[start : start + 120])))
            return True
        try:
            message = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except ValueError as e:
            detail = str(e).splitlines()
            why = detail[1].strip() if len(detail) > 1 else (detail[0] if detail else type(e).__name__)
            faults.note(f"sent a message that is not valid JSON-RPC ({_preview(why, 200)})")
            return False
        await read_writer.send(SessionMessage(message))
        return True

    too_long = (
        f"sent a message of more than {max_message} bytes "
        "(the sandbox's max_tool_result_size plus room for the envelope)"
    )

    async def reader() -> None:
        assert process.stdout is not None
        # One growing buffer per line (no list of pieces joined into a second
        # copy), dropped as soon as the line is handled; chunks are scanned by
        # offset, so many short lines in one chunk cost one pass over it.
        line = bytearray()
        try:
            async for chunk in process.stdout:
                view = memoryview(chunk)
                at = 0
                while at < len(chunk):
                    nl = chunk.find(b"\n", at)
                    end = len(chunk) if nl < 0 else nl
                    if len(line) + (end - at) > max_message:
                        faults.note(too_long)
                        return
                    line += view[at:end]
                    if nl < 0:
                        break
                    at = nl + 1
                    ok = await handle(line)
                    line = bytearray()
                    if not ok:
                        return
                del view
            with anyio.move_on_after(0.5):
                await process.wait()
            faults.note(f"exited (status {process.returncode})" if process.returncode is not None else "closed its output")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
            pass
        finally:
            read_writer.close()

    async def writer() -> None:
        assert process.stdin is not None
        try:
            async for message in write_reader:
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await process.stdin.send((data + "\n").encode("utf-8"))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            faults.note("stopped reading its input")
            read_writer.close()

    async with anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(writer)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                await _stop_process(process)
            tg.cancel_scope.cancel()
            for s in (read_stream, write_stream, read_writer, write_reader):
                s.close()


async def _stop_process(process: Any) -> None:
    """Close the server's input, give it a moment, then end its process
    group (SIGTERM, then SIGKILL)."""
    import anyio

    with contextlib.suppress(Exception):
        if process.stdin is not None:
            await process.stdin.aclose()
    if process.returncode is None:
        with anyio.move_on_after(1.0):
            await process.wait()
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if process.returncode is not None:
            break
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, sig)
        with anyio.move_on_after(2.0):
            await process.wait()
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)  # whatever the server itself started
    with contextlib.suppress(Exception):
        await process.aclose()


def _capped_http_client(spec: MCPServerSpec, max_message: int) -> Any:
    """An httpx2 client whose JSON responses may not exceed `max_message`
    bytes (SSE events are capped by the SDK's max_sse_event_size)."""
    import httpx2
    from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT

    class CappedStream(httpx2.AsyncByteStream):
        def __init__(self, inner: Any) -> None:
            self._inner = inner

        async def __aiter__(self) -> AsyncIterator[bytes]:
            seen = 0
            async for chunk in self._inner:
                seen += len(chunk)
                if seen > max_message:
                    raise httpx2.StreamError(
                        f"MCP server '{spec.name}' sent a response of more than {max_message} bytes "
                        "(the sandbox's max_tool_result_size plus room for the envelope)"
                    )
                yield chunk

        async def aclose(self) -> None:
            await self._inner.aclose()

    class CappedTransport(httpx2.AsyncBaseTransport):
        def __init__(self) -> None:
            self._inner = httpx2.AsyncHTTPTransport()

        async def handle_async_request(self, request: Any) -> Any:
            response = await self._inner.handle_async_request(request)
            if response.headers.get("content-type", "").startswith("text/event-stream"):
                return response
            length = response.headers.get("content-length")
            if length is not None and length.isdigit() and int(length) > max_message:
                await response.aclose()
                raise httpx2.StreamError(
                    f"MCP server '{spec.name}' announced a response of {length} bytes, more than {max_message}"
                )
            return httpx2.Response(
                status_code=response.status_code,
                headers=response.headers,
                stream=CappedStream(response.stream),
                extensions=response.extensions,
                request=request,
            )

        async def aclose(self) -> None:
            await self._inner.aclose()

    return httpx2.AsyncClient(
        headers=dict(spec.headers or {}),
        timeout=httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT),
        transport=CappedTransport(),
    )


@contextlib.asynccontextmanager
async def _http_transport(spec: MCPServerSpec, max_message: int, faults: _Faults) -> AsyncIterator[Any]:
    from mcp.client.streamable_http import streamable_http_client

    async with _capped_http_client(spec, max_message) as client:
        async with streamable_http_client(
            spec.url or "", http_client=client, max_sse_event_size=max_message
        ) as (read_stream, write_stream):
            yield read_stream, write_stream


# ---------------------------------------------------------------------------
# One server connection
# ---------------------------------------------------------------------------


class _CallFailed(Exception):
    """A call failed; the message is what the script sees."""


def _text_of(content: Any) -> str:
    texts = [getattr(b, "text", None) for b in content or []]
    return "\n".join(t for t in texts if isinstance(t, str))


def _innermost(exc: BaseException) -> BaseException:
    """An exception, or the first one in an exception group (nested)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _error_detail(exc: BaseException) -> str:
    """The message of an exception, or of the first one in an exception group."""
    exc = _innermost(exc)
    text = str(exc) or type(exc).__name__
    return _preview(text, 300)


class _Connection:
    """A client session with one server, opened on first use and opened
    again after the server crashed, hung or misbehaved. Lives on the
    background loop: every method runs there."""

    def __init__(self, spec: MCPServerSpec, max_message: int, call_timeout: float, connect_timeout: float) -> None:
        self.spec = spec
        self.max_message = max_message
        self.call_timeout = spec.timeout if spec.timeout is not None else call_timeout
        self.connect_timeout = connect_timeout
        self.tools: list[Any] = []
        self._session: Any = None
        self._stop: asyncio.Event | None = None
        self._runner: asyncio.Task[None] | None = None
        self._faults = _Faults()
        self._lock: asyncio.Lock | None = None
        self._generation = 0
        self._closed = False
        self.restarts = -1

    async def _run(self, ready: asyncio.Future[Any], stop: asyncio.Event, faults: _Faults) -> None:
        from mcp import ClientSession
        from mcp_types import Implementation

        transport = _http_transport if self.spec.url is not None else _stdio_transport
        try:
            async with transport(self.spec, self.max_message, faults) as (read, write):
                async with ClientSession(
                    read, write, client_info=Implementation(name="amla-sandbox", version="1")
                ) as session:
                    await session.initialize()
                    tools = await self._list_tools(session)
                    self._session = session
                    if not ready.done():
                        ready.set_result(tools)
                    await stop.wait()
        except BaseException as e:  # noqa: BLE001 - reported through `ready` or the next call
            if not ready.done():
                ready.set_exception(e if isinstance(e, Exception) else MCPError("cancelled"))
            if not isinstance(e, Exception):
                raise
        finally:
            self._session = None

    async def _list_tools(self, session: Any) -> list[Any]:
        """Every page of tools/list, within bounds: at most _MAX_PAGES pages,
        and tool definitions of at most max_message bytes in all (a server
        whose list never ends, or is huge, cannot exhaust memory)."""
        from mcp_types import PaginatedRequestParams

        tools: list[Any] = []
        size = 0
        cursor = None
        for _ in range(_MAX_PAGES):
            page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
            for t in page.tools:
                size += len(t.model_dump_json(by_alias=True, exclude_none=True))
            if size > self.max_message:
                raise MCPError(
                    f"MCP server '{self.spec.name}' lists tools whose definitions take more than "
                    f"{self.max_message} bytes (the sandbox's max_tool_result_size plus room for the envelope)"
                )
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                return tools
        raise MCPError(f"MCP server '{self.spec.name}' lists tools in more than {_MAX_PAGES} pages")

    async def _open(self) -> Any:
        session = self._session
        if session is not None:  # the common case: no lock to take
            return session
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._closed:
                raise MCPError(f"MCP server '{self.spec.name}': the MCP servers were closed")
            if self._session is not None:
                return self._session
            await self._close()
            self._faults = _Faults()
            stop = asyncio.Event()
            ready: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            # Read by the wait below, unless close() cancelled that first.
            ready.add_done_callback(lambda f: f.cancelled() or f.exception())
            self._stop = stop
            self._runner = asyncio.create_task(self._run(ready, stop, self._faults))
            try:
                tools = await asyncio.wait_for(asyncio.shield(ready), self.connect_timeout)
            except asyncio.TimeoutError:
                await self._close()
                raise MCPError(
                    f"MCP server '{self.spec.name}' ({self.spec.describe()}) did not finish starting "
                    f"within {self.connect_timeout:g} s"
                ) from None
            except Exception as e:
                ours = _innermost(e)  # anyio's task groups wrap what they raise
                why = self._faults.reason or _error_detail(e)
                await self._close()
                if self._closed:
                    raise MCPError(f"MCP server '{self.spec.name}': the MCP servers were closed") from None
                if isinstance(ours, MCPError):
                    raise ours from None
                raise MCPError(
                    f"MCP server '{self.spec.name}' ({self.spec.describe()}) could not be started: {why}"
                ) from None
            if self._closed or self._session is None:  # closed while it started
                await self._close()
                raise MCPError(f"MCP server '{self.spec.name}': the MCP servers were closed")
            self.tools = tools
            self._generation += 1
            self.restarts += 1
            return self._session

    async def _close(self) -> None:
        """End the connection: a running one is asked to stop (its server
        gets its input closed, then signals), one still starting is cancelled."""
        runner, stop = self._runner, self._stop
        starting = self._session is None
        self._runner = self._stop = None
        self._session = None
        if stop is not None:
            stop.set()
        if runner is not None:
            if starting:
                runner.cancel()
            try:
                await asyncio.wait_for(runner, 10)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                runner.cancel()
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise  # the caller was cancelled, not (only) the runner
            except Exception:
                pass

    async def _drop(self, generation: int) -> None:
        """End the connection of `generation` (not a newer one)."""
        if generation == self._generation and self._runner is not None:
            await self._close()

    async def list_tools(self) -> list[Any]:
        await self._open()
        return self.tools

    async def _answers_ping(self, session: Any) -> bool:
        """Whether the server still answers at all (after a call timed out)."""
        try:
            async with asyncio.timeout(min(self.call_timeout, _PING_TIMEOUT)):
                await session.send_ping()
            return True
        except Exception:
            return False

    async def call(self, tool: str, arguments: Any) -> Any:
        from mcp.shared.exceptions import MCPError as SDKError
        from mcp_types import CONNECTION_CLOSED

        who = f"MCP server '{self.spec.name}'"
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise _CallFailed(
                f"{self.spec.name}.{tool} takes one object argument (its parameters), "
                f"got {type(arguments).__name__}"
            )
        try:
            session = await self._open()
        except MCPError as e:
            raise _CallFailed(f"{e} (calling {tool})") from None
        generation = self._generation
        try:
            # The whole call, the write of its request included (a server that
            # stops reading its input blocks the write), is bounded.
            async with asyncio.timeout(self.call_timeout):
                result = await session.call_tool(tool, arguments)
        except TimeoutError:
            # The SDK has told the server the call is cancelled. A server that
            # still answers a ping keeps running (it may hold state: a browser,
            # a login); one that does not is hung, and is stopped.
            if await self._answers_ping(session):
                raise _CallFailed(
                    f"{who} did not answer {tool} within {self.call_timeout:g} s; the call was cancelled "
                    "(the server still answers, so it keeps running)"
                ) from None
            await self._drop(generation)
            raise _CallFailed(
                f"{who} did not answer {tool} within {self.call_timeout:g} s, nor a ping after it; the server "
                "was stopped and will be started again on the next call"
            ) from None
        except SDKError as e:
            if e.error.code == CONNECTION_CLOSED:
                why = self._faults.reason or "closed the connection"
                await self._drop(generation)
                if self._closed:
                    raise _CallFailed(f"{who}: the MCP servers were closed while calling {tool}") from None
                raise _CallFailed(
                    f"{who} {why} while calling {tool}; it will be started again on the next call"
                ) from None
            raise _CallFailed(f"{who} refused the call of {tool}: {_preview(e.error.message, 500)} (code {e.error.code})") from None
        except Exception as e:
            if self._faults.reason:
                await self._drop(generation)
                raise _CallFailed(
                    f"{who} {self._faults.reason} while calling {tool}; it will be started again on the next call"
                ) from None
            raise _CallFailed(f"{who}: the answer to {tool} could not be read: {_error_detail(e)}") from None
        return _convert(self.spec.name, tool, result)

    async def close(self) -> None:
        """Stop for good. Does not wait for a start in progress: that is
        cancelled, and the call waiting on it fails at once."""
        self._closed = True
        await self._close()


def _convert(server: str, tool: str, result: Any) -> Any:
    """The value a script sees: structuredContent as JSON, text content as a
    string, other content as a list of content blocks, no content as null;
    isError → failure."""
    if getattr(result, "is_error", False):
        text = _text_of(result.content) or "(no message)"
        raise _CallFailed(f"MCP tool {server}.{tool} returned an error: {_preview(text, 2000)}")
    structured = getattr(result, "structured_content", None)
    if structured is not None:
        return structured
    content = list(getattr(result, "content", None) or [])
    if not content:
        return None
    if all(getattr(b, "type", None) == "text" for b in content):
        texts = [b.text for b in content]
        return texts[0] if len(texts) == 1 else "\n".join(texts)
    return [b.model_dump(mode="json", by_alias=True, exclude_none=True) for b in content]


# ---------------------------------------------------------------------------
# MCPTools
# ---------------------------------------------------------------------------


class MCPTools:
    """Mounted MCP servers: their tools as `ToolDefinition`s and a handler
    that forwards the sandbox's calls to them. Close it (or the Sandbox
    that owns it) to stop the servers it started."""

    def __init__(
        self,
        servers: Mapping[str, Mapping[str, Any]],
        *,
        timeout: float = DEFAULT_CALL_TIMEOUT,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        max_result_size: int = 64 * 1024 * 1024,
    ) -> None:
        _require_sdk()
        if not isinstance(servers, Mapping):
            raise TypeError(f"mcp_servers must be a dict of {{name: server config}}, got {type(servers).__name__}")
        for what, value in (("timeout", timeout), ("connect_timeout", connect_timeout)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
                raise ValueError(f"MCP {what} must be a positive number of seconds, got {value!r}")
        specs = [MCPServerSpec.parse(name, spec) for name, spec in servers.items()]
        self.max_message = int(max_result_size) + _ENVELOPE_ROOM
        self._connections = {
            s.name: _Connection(s, self.max_message, float(timeout), float(connect_timeout)) for s in specs
        }
        self._loop: _LoopThread | None = _LoopThread("amla-mcp", "the MCP servers were closed")
        self.definitions: list[MCPToolDefinition] = []
        self._by_method: dict[str, tuple[_Connection, str]] = {}
        self._by_name: dict[str, MCPToolDefinition] = {}
        try:
            listed = self._wait(self._list_all(), None)
        except BaseException:
            self.close()
            raise
        for server, tools in listed:
            conn = self._connections[server]
            for t in tools:
                why = _unusable_name(t.name)
                if why is None and f"{server}.{t.name}" in self._by_name:
                    why = "another tool of the server has the same name (the first one is kept)"
                if why is not None:
                    logger.warning("MCP server %r lists a tool named %.200r, which is skipped: %s", server, t.name, why)
                    continue
                d = MCPToolDefinition(
                    name=f"{server}.{t.name}",
                    description=t.description or f"Call {t.name} on MCP server {server}",
                    parameters=dict(t.input_schema or {"type": "object", "properties": {}}),
                    server=server,
                    tool=t.name,
                    method=_method(server, t.name),
                    output_schema=dict(t.output_schema) if t.output_schema else None,
                )
                self.definitions.append(d)
                self._by_method[d.method] = (conn, t.name)
                self._by_name[d.name] = d

    async def _list_all(self) -> list[tuple[str, list[Any]]]:
        results = await asyncio.gather(
            *(c.list_tools() for c in self._connections.values()), return_exceptions=True
        )
        errors = [r for r in results if isinstance(r, BaseException)]
        if errors:
            raise errors[0] if isinstance(errors[0], MCPError) else MCPError(_error_detail(errors[0]))
        return list(zip(self._connections, results))  # type: ignore[arg-type]

    def _wait(self, coro: Any, timeout: float | None) -> Any:
        if self._loop is None:
            coro.close()
            raise MCPError("the MCP servers were closed")
        return self._loop.submit(coro).result(timeout)

    # -- names ------------------------------------------------------------

    @property
    def servers(self) -> dict[str, list[str]]:
        """Server name → its tools' names (as the server names them)."""
        out: dict[str, list[str]] = {name: [] for name in self._connections}
        for d in self.definitions:
            out[d.server].append(d.tool)
        return out

    def resolve(self, key: str) -> MCPToolDefinition | None:
        """The tool a `constraints`/`max_calls` key names: `"github.create_issue"`,
        `"github/create_issue"` or `"mcp:github/create_issue"`."""
        if not isinstance(key, str):
            return None
        d = self._by_name.get(key)
        if d is not None:
            return d
        method = key if key.startswith("mcp:") else "mcp:" + key
        hit = self._by_method.get(method)
        if hit is None:
            return None
        return self._by_name.get(f"{hit[0].spec.name}.{hit[1]}")

    def handles(self, name: str) -> bool:
        """Whether `name` (as a tool handler receives it, with or without
        `mcp:`) is a tool of these servers."""
        return self._target(name) is not None

    def _target(self, name: str) -> tuple[_Connection, str] | None:
        if not isinstance(name, str):
            return None
        return self._by_method.get(name if name.startswith("mcp:") else "mcp:" + name)

    # -- calls ------------------------------------------------------------

    def start_call(self, name: str, params: Any) -> concurrent.futures.Future[Any] | None:
        """Start a call on the background loop and return its future (which
        may be cancelled); None if `name` is not one of these tools."""
        target = self._target(name)
        if target is None:
            return None
        loop = self._loop
        if loop is None:
            raise RuntimeError("the MCP servers were closed")
        return loop.submit(_call(target[0], target[1], params))

    # -- capabilities and prompt text --------------------------------------

    def capabilities(
        self,
        constraints: Mapping[str, Mapping[str, Any]] | None = None,
        max_calls: int | Mapping[str, int] | None = None,
        *,
        default_max_calls: int | None = 100,
    ) -> list[Any]:
        """One capability per tool, `mcp:<server>/<tool>`, with the
        constraints (the create_sandbox_tool DSL) and budget its key gives;
        keys may be `"github.create_issue"` or `"github/create_issue"`."""
        from ..capabilities.dsl import parse_constraints
        from ..capabilities import ToolCallCap

        by_name: dict[str, Mapping[str, Any]] = {}
        for key, spec in (constraints or {}).items():
            d = self.resolve(key)
            if d is not None:
                by_name[d.name] = spec
        limits: dict[str, int] = {}
        if isinstance(max_calls, Mapping):
            for key, n in max_calls.items():
                d = self.resolve(key)
                if d is not None:
                    limits[d.name] = n
        caps = []
        for d in self.definitions:
            if isinstance(max_calls, Mapping) or max_calls is None:
                limit = limits.get(d.name, default_max_calls)
            else:
                limit = max_calls
            caps.append(
                ToolCallCap(
                    method_pattern=d.method,
                    constraints=parse_constraints(by_name.get(d.name, {})),
                    max_calls=limit,
                )
            )
        return caps

    def prompt_lines(self, *, schemas: bool | None = None) -> list[str]:
        """Prompt text for these tools: servers and tool names, or (with
        `schemas`, the default for at most 15 tools) each tool's parameters."""
        if schemas is None:
            schemas = len(self.definitions) <= 15
        lines = []
        if schemas:
            for d in self.definitions:
                lines.append(f"- {d.name}({_js_object(d.parameters)}) - {_first_line(d.description)}")
        else:
            for server, names in self.servers.items():
                lines.append(f"- {server}: {', '.join(names) if names else '(no tools)'}")
        return lines

    # -- lifetime -----------------------------------------------------------

    def close(self) -> None:
        """Stop the servers this object started and its background loop
        (idempotent). Calls in progress and later calls fail with a clear
        error; a server still starting is not waited for."""
        loop, self._loop = self._loop, None
        if loop is None:
            return
        _shut_down(loop, list(self._connections.values()))

    def __enter__(self) -> MCPTools:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        # A safety net for an MCPTools (or the Sandbox owning it) dropped
        # without close(). Not at interpreter exit: the loop's daemon thread
        # is frozen then, and the servers' pipes close with the process.
        with contextlib.suppress(Exception):
            if getattr(self, "_loop", None) is not None and not sys.is_finalizing():
                self.close()

    def __iter__(self) -> Iterator[Any]:
        """`handler, definitions = from_mcp(...)` unpacks too."""
        return iter((self.handler, self.definitions))

    @property
    def handler(self) -> MCPHandler:
        """The tool handler for these tools (it keeps this object alive)."""
        return MCPHandler(self)


class MCPHandler:
    """The tool handler of an `MCPTools`: `handler(name, params)`, where
    `name` is the method with or without its `mcp:` prefix. From a running
    event loop it returns an awaitable, otherwise it waits for the result.
    Its `start_call` lets a synchronous run start each call as the script
    makes it, so calls issued together run concurrently under `execute()`
    too (and `execute()` works where an event loop runs, as in Jupyter)."""

    def __init__(self, tools: MCPTools) -> None:
        self.tools = tools

    def __call__(self, name: str, params: Any) -> Any:
        future = self.start_call(name, params)
        if future is None:
            raise ValueError(f"Unknown tool: {name!r} (not a tool of the mounted MCP servers)")
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return future.result()
        return asyncio.wrap_future(future)

    def start_call(self, name: str, params: Any) -> concurrent.futures.Future[Any] | None:
        return self.tools.start_call(name, params)


async def _call(conn: _Connection, tool: str, params: Any) -> Any:
    # A module function, not a method: a call in flight must not keep its
    # MCPTools alive (nor run its finalizer on the loop's thread).
    try:
        return await conn.call(tool, params)
    except _CallFailed as e:
        raise RuntimeError(str(e)) from None


async def _close_all(connections: list[_Connection]) -> None:
    await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)


def _shut_down(loop: _LoopThread, connections: list[_Connection]) -> None:
    """Stop the connections' servers, then the loop. On the loop's own
    thread (a finalizer can run there) nothing can be waited for: the
    stop is scheduled instead."""
    if loop.in_loop_thread():
        with contextlib.suppress(RuntimeError):
            loop.submit(_close_all(connections)).add_done_callback(lambda _: loop.stop())
        return
    try:
        loop.submit(_close_all(connections)).result(_CLOSE_TIMEOUT)
    except Exception:  # a server that will not stop must not block close()
        logger.warning("MCP servers did not stop cleanly", exc_info=True)
    finally:
        loop.stop()


def _unusable_name(name: Any) -> str | None:
    """Why a tool name a server lists cannot be mounted, or None.

    Its method is `mcp:<server>/<name>`, which capabilities match by
    pattern: a part of the name between slashes that is `*` or `**` would
    make the method of the tool's own capability a pattern matching the
    server's other tools, lifting their constraints and budgets."""
    if not isinstance(name, str) or not name:
        return "the name is empty"
    if len(name) > _MAX_TOOL_NAME:
        return f"the name is longer than {_MAX_TOOL_NAME} characters"
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        return "the name has control characters"
    if any(part in ("*", "**") for part in name.split("/")):
        return "a part of the name between slashes is '*' or '**', a wildcard in method patterns"
    return None


def _first_line(text: str) -> str:
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()
    return "No description"


def _js_object(schema: Mapping[str, Any]) -> str:
    """`{title: string, body?: string}` for an object schema."""
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(props, Mapping):
        return "{}"
    required = set(schema.get("required") or [])
    parts = []
    for name, prop in props.items():
        ty = prop.get("type", "any") if isinstance(prop, Mapping) else "any"
        if isinstance(ty, list):
            ty = "|".join(str(t) for t in ty)
        parts.append(f"{name}{'' if name in required else '?'}: {ty}")
    return "{" + ", ".join(parts) + "}"


def from_mcp(
    servers: Mapping[str, Mapping[str, Any]],
    *,
    timeout: float = DEFAULT_CALL_TIMEOUT,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    max_result_size: int = 64 * 1024 * 1024,
) -> MCPTools:
    """Start (or connect to) the MCP servers of an `mcpServers` mapping and
    list their tools, for a `Sandbox` you build yourself::

        mcp = from_mcp({"github": {"command": "github-mcp", "args": []}})
        sb = Sandbox(tools=mcp.definitions, capabilities=mcp.capabilities(max_calls=10),
                     tool_handler=mcp.handler)
        ...
        sb.close(); mcp.close()

    `timeout` is the default seconds one call may take (a server's own
    `"timeout"` key overrides it); `max_result_size` bounds the bytes of one
    message a server may send. Raises `MCPError` naming the server when one
    cannot be started or listed.
    """
    return MCPTools(servers, timeout=timeout, connect_timeout=connect_timeout, max_result_size=max_result_size)


def mount(sandbox: Any) -> None:
    """Give `sandbox` the tools of its `mcp_servers` (Sandbox.__post_init__):
    the servers' definitions are added to its tools and its tool handler
    forwards their calls (anything else goes to the handler it had)."""
    given = sandbox.mcp_servers
    if isinstance(given, MCPTools):
        mcp, owned = given, False
    else:
        mcp = MCPTools(given, timeout=sandbox.timeout, max_result_size=sandbox.max_tool_result_size)
        owned = True
    sandbox.attach_mcp(mcp, owned=owned)
    # A given tool with the name, or the method, of an MCP tool would be
    # shadowed by it (a Python tool "t/add" is called as mcp:t/add too).
    taken = {t.name for t in sandbox.tools}
    taken |= {getattr(t, "method", None) or "mcp:" + t.name for t in sandbox.tools}
    clash = [d.name for d in mcp.definitions if d.name in taken or d.method in taken]
    if clash:
        if owned:
            mcp.close()
        raise ValueError(
            f"MCP tools {clash} have the names (or methods, mcp:<server>/<tool>) of tools already given to the sandbox"
        )
    sandbox.tools = [*sandbox.tools, *mcp.definitions]
    sandbox.tool_handler = _Combined(mcp, sandbox.tool_handler)


class _Combined:
    """A tool handler: MCP tools go to their servers, the rest to `other`."""

    def __init__(self, mcp: MCPTools, other: Any) -> None:
        self.mcp = mcp
        self.other = other

    def __call__(self, name: str, params: Any) -> Any:
        if self.mcp.handles(name):
            return self.mcp.handler(name, params)
        if self.other is None:
            raise ValueError(f"No handler for tool call: mcp:{name}")
        return self.other(name, params)

    def start_call(self, name: str, params: Any) -> concurrent.futures.Future[Any] | None:
        return self.mcp.start_call(name, params)
