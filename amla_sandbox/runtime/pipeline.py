"""The one path a tool request takes through Python: call the handler, turn
its return value into JSON text (or its failure into the message the script
sees), ready to hand back to the Go core.

`Sandbox` and the bare `Runtime` differ only in the texts and in whether the
handler sees the name with its `mcp:` prefix; both use `ToolPipeline`.
"""

from __future__ import annotations

import datetime as _dt
import inspect
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .awaiting import SyncAwaiter

if TYPE_CHECKING:
    import concurrent.futures

__all__ = ["Answer", "ToolPipeline", "ToolRequest", "encode_result", "safe_text"]

# Error codes the script sees in "tool call '<m>' failed: <code>: <msg>"
# (the same values as gocore/wire's Code* constants).
CODE_INTERNAL = "internal"
CODE_INVALID = "invalid_request"
CODE_CANCELLED = "cancelled"


@dataclass
class ToolRequest:
    """A tool call the script is waiting on (`Sandbox.step()`)."""

    id: int
    method: str
    params: Any


@dataclass
class Answer:
    """A handler's outcome: JSON text, or an error code and message."""

    text: str | None = None
    code: str = CODE_INTERNAL
    error: str | None = None


def _json_default(value: Any) -> Any:
    # Dates and times have one obvious JSON form (ISO 8601); every other
    # non-JSON type is refused so the script never gets a silent guess.
    if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
        return value.isoformat()
    raise TypeError(f"a value of type {type(value).__name__} is not JSON-serializable")


def encode_result(value: Any, tool: str | None = None) -> tuple[str | None, str | None]:
    """JSON text of a tool's return value, or the error the script sees.

    datetime/date/time values become ISO 8601 strings; bytes, sets, NaN,
    infinities and other objects are errors that name the tool and the type.
    """
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, default=_json_default), None
    except ValueError as e:
        detail = str(e)
        if "Out of range float" in detail:
            detail = "NaN and Infinity are not JSON (return None or a string instead)"
        elif "Circular reference" in detail:
            detail = "the value contains itself (a circular reference)"
    except (TypeError, RecursionError) as e:
        detail = str(e) if isinstance(e, TypeError) else "the value is nested too deeply"
        if "bytes" in detail:
            detail += " (decode it, or base64-encode it, before returning)"
    who = f"tool '{tool}' returned a value that cannot be sent to the script: " if tool else ""
    return None, f"Tool result not JSON-serializable: {who}{detail}"


def safe_text(message: str) -> str:
    """`message` made safe to hand to Go: no NUL, no lone surrogates."""
    if "\x00" in message:
        message = message.replace("\x00", "\\x00")
    try:
        message.encode("utf-8")
    except UnicodeEncodeError:
        message = message.encode("utf-8", errors="backslashreplace").decode("utf-8")
    return message


class _CoroutineError(Exception):
    pass


def _describe(value: object) -> str:
    """str(value), or a stand-in when its __str__ itself fails."""
    try:
        return str(value)
    except Exception as e:
        return f"<{type(value).__name__} whose str() failed: {type(e).__name__}>"


class ToolPipeline:
    """Calls one tool handler for requests and shapes its outcome."""

    def __init__(
        self,
        handler: Callable[[str, Any], Any] | None,
        *,
        strip_prefix: bool,
        no_handler: str,
        await_in_sync: bool = False,
        show_params: bool = True,
    ) -> None:
        self.handler = handler
        self.strip_prefix = strip_prefix
        self.no_handler = no_handler
        self.await_in_sync = await_in_sync
        self.show_params = show_params
        # Drives async results in call_sync (await_in_sync).
        self.awaiter = SyncAwaiter()

    def _name(self, method: str) -> str:
        if self.strip_prefix and method.startswith("mcp:"):
            return method[4:]
        return method

    def _failure(self, req: ToolRequest, message: str) -> Answer:
        text = f"Tool '{req.method}' failed: {message}"
        if self.show_params:
            shown = _describe(req.params)
            text += f"\nParameters: {shown[:200]}{'...' if len(shown) > 200 else ''}"
        return Answer(code=CODE_INTERNAL, error=text)

    def _encoded(self, req: ToolRequest, value: Any) -> Answer:
        text, err = encode_result(value, self._name(req.method))
        if err is not None:
            return Answer(code=CODE_INTERNAL, error=err)
        return Answer(text=text or "null")

    def call_sync(self, req: ToolRequest) -> Answer:
        if self.handler is None:
            return Answer(code=CODE_INTERNAL, error=self.no_handler.format(method=req.method))
        try:
            value = self.handler(self._name(req.method), req.params)
            if inspect.isawaitable(value):
                if self.await_in_sync:
                    value = self._drive(value)
                else:
                    if inspect.iscoroutine(value):
                        value.close()
                    raise _CoroutineError(
                        f"Tool handler returned a coroutine for '{req.method}'. "
                        "Use execute_async() instead of execute() for async handlers."
                    )
        except Exception as e:  # the script sees it; Python does not raise
            return self._failure(req, _describe(e))
        return self._encoded(req, value)

    def start(self, req: ToolRequest) -> concurrent.futures.Future[Any] | None:
        """Start `req` if the handler runs calls elsewhere (it has a
        `start_call(name, params)` returning a future, as the handler of
        mounted MCP servers does): its future, to answer with `finish` once
        done. None when the handler does not start this call: answer it
        with `call_sync`."""
        start = getattr(self.handler, "start_call", None)
        if start is None:
            return None
        try:
            return start(self._name(req.method), req.params)  # type: ignore[no-any-return]
        except Exception as e:
            import concurrent.futures

            failed: concurrent.futures.Future[Any] = concurrent.futures.Future()
            failed.set_exception(e)
            return failed

    def finish(self, req: ToolRequest, future: concurrent.futures.Future[Any]) -> Answer:
        """The answer to a call `start` started, once its future is done."""
        try:
            value = future.result()
        except Exception as e:
            return self._failure(req, _describe(e))
        return self._encoded(req, value)

    async def call_async(self, req: ToolRequest) -> Answer:
        if self.handler is None:
            return Answer(code=CODE_INTERNAL, error=self.no_handler.format(method=req.method))
        try:
            value = self.handler(self._name(req.method), req.params)
            if inspect.isawaitable(value):
                value = await value
        except Exception as e:
            return self._failure(req, _describe(e))
        return self._encoded(req, value)

    def _drive(self, value: Awaitable[Any]) -> Any:
        """Await an async tool's result from synchronous run()/execute()."""
        return self.awaiter.run(
            value,
            _CoroutineError(
                "async tool called from run()/execute() inside a running event loop: "
                "use run_async() or execute_async() instead"
            ),
        )

    def close(self) -> None:
        """Close the loop async results are awaited on; safe from any thread.
        A loop running now (a run's handler on another thread) is closed by
        that thread once its call returns."""
        self.awaiter.close()
