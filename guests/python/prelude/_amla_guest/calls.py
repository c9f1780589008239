"""Tool calls: submitting them to the host and taking their answers.

A call is submitted the moment it is made (tool_submit); the host checks
it against the capabilities then and there, so a denied call is answered
at once and never reaches Python on the other side. Answers come back, in
whatever order the host has them, through tool_wait; each settles its
ToolCall. The synchronous form of a call waits for its own answer and
settles any others that arrive first; the asynchronous form waits in the
event loop (loop.py).

Errors carry the same text as the JavaScript guest's:
"tool call 'mcp:<name>' failed: <code>: <message>".
"""

from __future__ import annotations

import json
import sys

import _amla

CO_ASYNC = 0x80 | 0x100 | 0x200  # CO_COROUTINE | CO_ITERABLE_COROUTINE | CO_ASYNC_GENERATOR

# Frames of these files are asyncio's and ours: isinstance checks made from
# them must not wait for a call's answer (see ToolCall.__class__).
# ABCMeta's isinstance runs in the frozen abc module ("<frozen abc>").
_INTERNAL_PREFIXES = ("/usr/lib/python3.13/asyncio/", "/usr/lib/python3.13/_amla_guest/",
                      "/usr/lib/python3.13/inspect.py", "/usr/lib/python3.13/typing.py",
                      "/usr/lib/python3.13/collections/", "<frozen ")


def _internal(depth: int) -> bool:
    """Whether the code depth frames up is asyncio's or the sandbox's."""
    return sys._getframe(depth).f_code.co_filename.startswith(_INTERNAL_PREFIXES)


class ToolError(Exception):
    """A tool call failed: the handler raised, the result could not cross,
    or (ToolDenied) a capability refused it. str() is the message the
    JavaScript guest gives for the same failure."""

    def __init__(self, message: str, *, tool: str = "", code: str = "internal", detail: str = "") -> None:
        super().__init__(message)
        self.tool = tool
        self.code = code
        self.detail = detail


class ToolDenied(ToolError, PermissionError):
    """The sandbox's capabilities do not allow this call."""


# Scripts see these as globals: tracebacks name them without a module.
ToolError.__module__ = ToolDenied.__module__ = "builtins"


_UNSET = object()
_pending: dict[int, "ToolCall"] = {}


def pending_count() -> int:
    return len(_pending)


class ToolCall:
    """One submitted tool call: awaitable (and a coroutine, so create_task
    and gather take it), and usable as its result, which it waits for on
    first use."""

    __slots__ = ("_id", "_method", "_value", "_error", "_waiters", "_gen")

    def __init__(self, call_id: int, method: str) -> None:
        self._id = call_id
        self._method = method
        self._value = _UNSET
        self._error: BaseException | None = None
        self._waiters: list = []
        self._gen = None

    # -- settling ---------------------------------------------------------

    def _settle(self, value, error: BaseException | None) -> None:
        self._value, self._error = value, error
        waiters, self._waiters = self._waiters, []
        for fut in waiters:
            if fut.done():
                continue
            if error is not None:
                fut.set_exception(error)
            else:
                fut.set_result(value)

    def done(self) -> bool:
        return self._value is not _UNSET

    def result(self):
        """The call's result, waiting for it if need be (raises its error)."""
        while self._value is _UNSET:
            deliver_next(-1)
        if self._error is not None:
            raise self._error
        return self._value

    # -- awaiting ---------------------------------------------------------

    def __await__(self):
        if self._value is _UNSET:
            import asyncio

            fut = asyncio.get_running_loop().create_future()
            self._waiters.append(fut)
            return (yield from fut)
        if self._error is not None:
            raise self._error
        return self._value

    def _coro(self):
        if self._gen is None:
            self._gen = self.__await__()
        return self._gen

    def send(self, value):
        return self._coro().send(value)

    def throw(self, *args):
        return self._coro().throw(*args)

    def close(self) -> None:
        if self._gen is not None:
            self._gen.close()

    # -- used as its result -----------------------------------------------

    def _class(self):
        # isinstance(call, dict) in the script answers for the result; the
        # event loop's own checks (is it a future? a coroutine?) must not
        # wait for the answer.
        if _internal(2):
            return ToolCall
        return type(self.result())

    __class__ = property(_class)  # type: ignore[assignment]

    def __repr__(self) -> str:
        if self._value is _UNSET:
            return f"<tool call {self._method!r} #{self._id} (pending: await it)>"
        return repr(self.result())

    def __str__(self) -> str:
        return str(self.result())

    def __format__(self, spec: str) -> str:
        return format(self.result(), spec)

    def __getattr__(self, name: str):
        if _internal(2):
            raise AttributeError(name)
        return getattr(self.result(), name)

    def __getitem__(self, key):
        return self.result()[key]

    def __iter__(self):
        return iter(self.result())

    def __len__(self) -> int:
        return len(self.result())

    def __contains__(self, item) -> bool:
        return item in self.result()

    def __bool__(self) -> bool:
        return bool(self.result())

    def __eq__(self, other) -> bool:
        if _internal(2):
            return self is other
        return self.result() == other

    def __ne__(self, other) -> bool:
        if _internal(2):
            return self is not other
        return self.result() != other

    def __lt__(self, other):
        return self.result() < other

    def __le__(self, other):
        return self.result() <= other

    def __gt__(self, other):
        return self.result() > other

    def __ge__(self, other):
        return self.result() >= other

    # Hashed by identity: asyncio keeps calls in dicts while they are
    # pending, and a pending call has no value to hash yet.
    __hash__ = object.__hash__

    def __int__(self) -> int:
        return int(self.result())

    def __float__(self) -> float:
        return float(self.result())

    def __index__(self) -> int:
        return self.result().__index__()

    def __add__(self, other):
        return self.result() + other

    def __radd__(self, other):
        return other + self.result()

    def __sub__(self, other):
        return self.result() - other

    def __rsub__(self, other):
        return other - self.result()

    def __mul__(self, other):
        return self.result() * other

    def __rmul__(self, other):
        return other * self.result()

    def __truediv__(self, other):
        return self.result() / other

    def __rtruediv__(self, other):
        return other / self.result()


def resolve(value):
    """value itself, or the result of a ToolCall (for printing and JSON)."""
    if type(value) is ToolCall:
        return value.result()
    return value


# -- the host side -------------------------------------------------------


def submit(method: str, params_json: str) -> ToolCall:
    """Queues one call and returns its ToolCall."""
    request = '{"method":' + json.dumps(method) + ',"params":' + params_json + "}"
    call_id = _amla.submit(request.encode("utf-8", "surrogatepass"))
    call = ToolCall(call_id, method)
    _pending[call_id] = call
    return call


def deliver_next(timeout_ms: int) -> bool:
    """Waits for the next answer (at most timeout_ms, or without limit when
    negative) and settles its call. False when the time ran out first."""
    data = _amla.wait(timeout_ms)
    if data is None:
        return False
    nl = data.find(b"\n")
    head = json.loads(data[:nl] if nl >= 0 else data)
    call = _pending.pop(head["id"], None)
    if call is None:
        raise RuntimeError(f"amla python: internal error: an answer for unknown tool call {head['id']}")
    if not head.get("ok"):
        code = head.get("code") or "internal"
        detail = head.get("error") or ""
        cls = ToolDenied if code == "permission_denied" else ToolError
        call._settle(None, cls(f"tool call '{call._method}' failed: {code}: {detail}",
                               tool=call._method.removeprefix("mcp:"), code=code, detail=detail))
        return True
    raw = data[nl + 1 :] if nl >= 0 else b""
    if not raw:
        call._settle(None, None)
        return True
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError) as e:
        call._settle(None, ToolError(
            f"tool call '{call._method}' failed: internal: the result could not be read: {type(e).__name__}: {e}",
            tool=call._method.removeprefix("mcp:")))
        return True
    call._settle(value, None)
    return True


def caller_is_async(depth: int) -> bool:
    """Whether the frame depth levels above the caller is a coroutine's (an
    async def, or a script with top-level await)."""
    return bool(sys._getframe(depth + 1).f_code.co_flags & CO_ASYNC)
