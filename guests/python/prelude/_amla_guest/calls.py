"""Tool calls: submitting them to the host and taking their answers.

A call is submitted the moment it is made (tool_submit); the host checks
it against the capabilities then and there, so a denied call is answered
at once and never reaches Python on the other side. Answers come back, in
whatever order the host has them, through tool_wait; each settles its
call, whichever call the script happens to be waiting for.

What a call returns depends on one thing only: whether an event loop is
running in the thread (asyncio.get_running_loop() would succeed).

- No loop running (ordinary code, a script without top-level await): the
  call waits for its answer and returns the value itself.
- A loop running (inside asyncio.run, a script using top-level await, a
  task, a callback): the call returns a ToolCall at once, an asyncio Future
  of that loop, so await, gather, wait, as_completed, wait_for, shield,
  create_task and TaskGroup all take it. Used without await, it stands in
  for its value: reading it (w["temp"], len, iteration, comparisons,
  arithmetic, str, JSON, the value's methods) waits for the answer first.

The rule does not look at the code making the call: a generator
expression, a lambda, map(), functools.partial, a plain function or a
class body inside a coroutine all get the same ToolCall, which the older
rule (asking whether the calling frame is a coroutine's) got wrong in
every one of those places.

Errors carry the same text as the JavaScript guest's:
"tool call 'mcp:<name>' failed: <code>: <message>".
"""

from __future__ import annotations

import asyncio
import copy
import json
import operator
from typing import Callable

import _amla

# json's functions as they were when the guest started: a script that replaces
# json.dumps or json.loads (in a kept session it stays replaced) does not change
# how the guest encodes tool calls, requests and results.
_json_dumps, _json_loads = json.dumps, json.loads


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


class _Waiting:
    """A call made with no event loop running, whose caller waits for it."""

    __slots__ = ("_method", "value", "error")

    def __init__(self, method: str) -> None:
        self._method = method
        self.value = None
        self.error: BaseException | None = None

    def _settle(self, value, error: BaseException | None) -> None:
        self.value, self.error = value, error


# Submitted calls not answered yet, by the host's id.
_pending: dict[int, "ToolCall | _Waiting"] = {}


def pending_count() -> int:
    return len(_pending)


def _wait_for(call_id: int) -> None:
    """Takes answers until call_id's has come."""
    while call_id in _pending:
        if not deliver_next(-1):
            raise RuntimeError(f"amla python: internal error: no answer for tool call {call_id}")


def _binary(op):
    def method(self, other):
        return op(self.result(), other)

    method.__name__ = f"__{op.__name__.strip('_')}__"
    return method


def _reflected(op):
    def method(self, other):
        return op(other, self.result())

    method.__name__ = f"__r{op.__name__.strip('_')}__"
    return method


def _unary(fn):
    def method(self):
        return fn(self.result())

    return method


class ToolCall(asyncio.Future):
    """A tool call made while an event loop runs: a Future of that loop,
    already submitted, settled when the host's answer comes (by the loop
    while it waits, or by whatever first needs the value).

    Awaiting it gives the result or raises the call's error. Used as a
    value it waits for the answer and acts as the result for reading:
    indexing, len, iteration, `in`, comparisons, arithmetic, bool, str,
    repr, format, JSON, copy, and the result's public methods
    (w.get("k"), w.items()). type(), isinstance(), `is` and hashing see
    the ToolCall, not the result: await it (or call .result()) for the
    value itself.
    """

    __slots__ = ("_call_id", "_method")

    def __init__(self, call_id: int, method: str, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(loop=loop)
        self._call_id = call_id
        self._method = method

    def _settle(self, value, error: BaseException | None) -> None:
        if self.done():
            return  # cancelled while the host ran it: nobody waits for the answer
        try:
            if error is not None:
                self.set_exception(error)
            else:
                self.set_result(value)
        except RuntimeError:
            # The loop is closed: the Future is settled, but its callbacks
            # (there is nothing left to run them) cannot be scheduled.
            pass
        # An error nobody reads is not reported when the call is collected,
        # as an unawaited call's never was: the script decides what to read.
        self._log_traceback = False

    def result(self):
        """The call's result, waiting for the answer if it has not come
        (raises the call's error; CancelledError once cancelled)."""
        if not self.done():
            _wait_for(self._call_id)
        return super().result()

    def close(self) -> None:
        """Nothing to close: the call is already with the host. (asyncio
        closes a coroutine it will not run; a ToolCall stands in for one.)"""

    # -- standing in for its value ------------------------------------------

    def __getattr__(self, name: str):
        # Only the result's public attributes: a probe for a private or
        # special name (copy, pickle, asyncio's own) must not wait.
        if name.startswith("_"):
            raise AttributeError(f"'ToolCall' object has no attribute {name!r}")
        return getattr(self.result(), name)

    def __repr__(self) -> str:
        # The value's repr, as for print([call]); waiting is safe: the host
        # answers every call it was given.
        if not self.done():
            _wait_for(self._call_id)
        if self.cancelled():
            return f"<tool call {self._method!r} cancelled>"
        error = self.exception()
        if error is not None:
            return f"<{type(error).__name__}: {error}>"
        return repr(super().result())

    def __str__(self) -> str:
        return str(self.result())

    def __format__(self, spec: str) -> str:
        return format(self.result(), spec)

    def __copy__(self):
        return copy.copy(self.result())

    def __deepcopy__(self, memo):
        return copy.deepcopy(self.result(), memo)

    def __iter__(self):
        return iter(self.result())

    def __reversed__(self):
        return reversed(self.result())

    def __setitem__(self, key, value) -> None:
        self.result()[key] = value

    def __delitem__(self, key) -> None:
        del self.result()[key]

    def __eq__(self, other) -> bool:
        return self.result() == other

    def __ne__(self, other) -> bool:
        return self.result() != other

    # Hashed by identity, as every Future: asyncio keeps calls in sets and
    # dicts while they are pending, when there is no value to hash yet.
    __hash__ = asyncio.Future.__hash__

    def __round__(self, ndigits=None):
        return round(self.result(), ndigits)

    __getitem__ = _binary(operator.getitem)
    __contains__ = _binary(operator.contains)
    __lt__ = _binary(operator.lt)
    __le__ = _binary(operator.le)
    __gt__ = _binary(operator.gt)
    __ge__ = _binary(operator.ge)
    __len__ = _unary(len)
    __bool__ = _unary(bool)
    __int__ = _unary(int)
    __float__ = _unary(float)
    __index__ = _unary(operator.index)
    __neg__ = _unary(operator.neg)
    __pos__ = _unary(operator.pos)
    __abs__ = _unary(abs)


for _op in (operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
            operator.pow, operator.and_, operator.or_, operator.xor):
    _name = _op.__name__.strip("_")
    setattr(ToolCall, f"__{_name}__", _binary(_op))
    setattr(ToolCall, f"__r{_name}__", _reflected(_op))
del _op, _name


def resolve(value):
    """value itself, or the result of a ToolCall (for printing and JSON)."""
    if type(value) is ToolCall:
        return value.result()
    return value


_json_default = json.JSONEncoder.default


def _json_default_resolving(encoder: json.JSONEncoder, o):
    if type(o) is ToolCall:
        return o.result()
    return _json_default(encoder, o)


def install() -> None:
    """_json_dumps(call) encodes the call's result, as it would the result
    itself (an encoder given its own default= decides for itself)."""
    json.JSONEncoder.default = _json_default_resolving  # type: ignore[method-assign]


# -- the host side -------------------------------------------------------


def call(method: str, params_json: str):
    """Makes one call: its result when no event loop is running, else its
    ToolCall (see the module's docstring)."""
    loop = asyncio._get_running_loop()
    if loop is None:
        return ask(method, params_json)
    call_id = _submit(method, params_json)
    pending = _pending[call_id] = ToolCall(call_id, method, loop)
    return pending


def ask(method: str, params_json: str):
    """Makes one request and waits for its answer, whether or not an event
    loop runs: for a request the host answers at once (tools_search),
    which a script does not await."""
    call_id = _submit(method, params_json)
    waiting = _pending[call_id] = _Waiting(method)
    _wait_for(call_id)
    if waiting.error is not None:
        raise waiting.error
    return waiting.value


def _submit(method: str, params_json: str) -> int:
    request = '{"method":' + _json_dumps(method) + ',"params":' + params_json + "}"
    return _amla.submit(request.encode("utf-8", "surrogatepass"))


def deliver_next(timeout_ms: int) -> bool:
    """Waits for the next answer (at most timeout_ms, or without limit when
    negative) and settles its call. False when the time ran out first."""
    data = _amla.wait(timeout_ms)
    if data is None:
        return False
    nl = data.find(b"\n")
    head = _json_loads(data[:nl] if nl >= 0 else data)
    call = _pending.pop(head["id"], None)
    if call is None:
        raise RuntimeError(f"amla python: internal error: an answer for unknown tool call {head['id']}")
    start = nl + 1 if nl >= 0 else len(data)
    reader = answer_results.get(call._method) if head.get("ok") else None
    if reader is not None:
        try:
            call._settle(reader(data, start), None)
        except Exception as e:  # noqa: BLE001  (the reader's error is the call's)
            call._settle(None, e)
        return True
    call._settle(*_answer(data[start:], head, call._method))
    return True


# The error of a failed call of a method with errors of its own (net.py's
# "http"): fn(code, message, result bytes) -> the exception.
answer_errors: dict[str, Callable[[str, str, bytes], BaseException]] = {}
# The value of a successful call of a method whose results are read in a
# way of their own (net.py's "http", whose bodies may be megabytes of
# base64): fn(answer bytes, offset of the result in them) -> the value; an
# exception it raises is the call's error.
answer_results: dict[str, Callable[[bytes, int], object]] = {}


def _answer(raw: bytes, head: dict, method: str) -> tuple[object, BaseException | None]:
    """(value, error) of one answer: its head and the result's JSON."""
    if not head.get("ok"):
        code = head.get("code") or "internal"
        detail = head.get("error") or ""
        special = answer_errors.get(method)
        if special is not None:
            return None, special(code, detail, raw)
        cls = ToolDenied if code == "permission_denied" else ToolError
        return None, cls(f"tool call '{method}' failed: {code}: {detail}",
                         tool=method.removeprefix("mcp:"), code=code, detail=detail)
    if not raw:
        return None, None
    try:
        return _json_loads(raw), None
    except (ValueError, RecursionError) as e:
        return None, ToolError(
            f"tool call '{method}' failed: internal: the result could not be read: {type(e).__name__}: {e}",
            tool=method.removeprefix("mcp:"))
