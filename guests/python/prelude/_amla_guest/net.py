"""HTTP requests made by the host, under the sandbox's network policy.

The guest has no sockets. One HTTP request is one call to the host (method
"http", params a wire.HTTPRequest: method, absolute URL, headers as
[name, value] pairs, the body in base64), submitted and answered like a
tool call (calls.py): the host checks it against the policy, makes it
(TLS is the host's and always verifies), and answers with the whole
response (a wire.HTTPResponse: status, headers, body in base64, URL) or
refuses it with a message naming the check and the rule at fault.
Redirects come back as they are, for the client to follow.

The clients scripts use sit on this module: http.client (and so
urllib.request) through HostSocket, which the patched connect() installs;
urllib3 (and so requests) through the same socket under its own
connection classes; httpx through transports of its own (httpx_patch.py).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import math
import time

import _amla

from . import calls

# json's functions as they were when the guest started: a script that replaces
# json.dumps or json.loads (in a kept session it stays replaced) does not change
# how the guest encodes tool calls, requests and results.
_json_dumps, _json_loads = json.dumps, json.loads

METHOD = "http"
CANCEL = "http_cancel"


class HTTPRefused(ConnectionRefusedError):
    """The host refused the request (or could not make it): str() is its
    message, which names the check and the rule at fault; check and rule
    are those names ("" when the host gave none)."""

    def __init__(self, message: str, check: str = "", rule: str = "") -> None:
        super().__init__(message)
        self.check = check
        self.rule = rule

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class HTTPTimeout(TimeoutError):
    """The request took longer than the client's timeout or the policy's."""

    def __init__(self, message: str, check: str = "timeout", rule: str = "") -> None:
        super().__init__(message)
        self.check = check
        self.rule = rule

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


HTTPRefused.__module__ = HTTPTimeout.__module__ = "builtins"


class Response:
    """The host's answer: status, reason, headers ([name, value] pairs in
    the host's order), the whole body, decoded (the host asks for gzip and
    decodes it), and the URL asked for."""

    __slots__ = ("status", "reason", "headers", "body", "url")

    def __init__(self, status: int, reason: str, headers: list[tuple[str, str]], body: bytes, url: str) -> None:
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
        self.url = url


def _error(code: str, detail: str, raw: bytes) -> BaseException:
    """The exception of a request the host did not make (calls' answer hook)."""
    check = rule = ""
    if raw:
        try:
            refusal = _json_loads(raw)
        except (ValueError, RecursionError):
            refusal = None
        if isinstance(refusal, dict):
            check = str(refusal.get("check") or "")
            rule = str(refusal.get("rule") or "")
    message = detail or code
    if code != "http_refused" and not message.startswith(code):
        message = f"{code}: {message}"
    if check == "timeout":
        return HTTPTimeout(message, check, rule)
    return HTTPRefused(message, check, rule)


def _params(method: str, url: str, headers: list[tuple[str, str]], body: bytes | None) -> str:
    doc: dict = {"method": method, "url": url, "headers": [[str(k), str(v)] for k, v in headers]}
    if body:
        doc["body"] = base64.b64encode(body).decode("ascii")
    return _json_dumps(doc, ensure_ascii=False, separators=(",", ":"))


_UNREADABLE = "network: the host's answer to an HTTP request could not be read"
_BODY_KEY = b'"body":"'


def _result(data: bytes, start: int) -> Response:
    """The Response in an answer (calls' result hook). The body, base64 in
    the JSON, is decoded straight from the answer's bytes: a 10 MB body
    is not also made a 13 MB str and sliced copies of it. (In JSON text the
    sequence "body":" can only be that key: quotes inside strings are
    escaped, and base64 has no quote or escape in it.)"""
    at = data.find(_BODY_KEY, start)
    end = data.find(b'"', at + len(_BODY_KEY)) if at >= 0 else -1
    if end < 0:
        return _response(_loads(data[start:]))
    try:
        body = binascii.a2b_base64(memoryview(data)[at + len(_BODY_KEY) : end], strict_mode=True)
    except (binascii.Error, ValueError) as e:
        raise HTTPRefused(f"{_UNREADABLE}: {e}") from None
    return _response(_loads(data[start:at] + b'"body":""' + data[end + 1 :]), body)


def _loads(raw: bytes):
    try:
        return _json_loads(raw)
    except (ValueError, RecursionError) as e:
        raise HTTPRefused(f"{_UNREADABLE}: {e}") from None


def _response(result, body: bytes | None = None) -> Response:
    if isinstance(result, Response):
        return result
    if not isinstance(result, dict):
        raise HTTPRefused(_UNREADABLE)
    if body is None:
        try:
            body = base64.b64decode(result.get("body") or "", validate=True)
        except (binascii.Error, ValueError, TypeError) as e:
            raise HTTPRefused(f"{_UNREADABLE}: {e}") from None
    headers = [(str(h[0]), str(h[1])) for h in result.get("headers") or () if isinstance(h, list) and len(h) == 2]
    status = result.get("status")
    return Response(status if isinstance(status, int) else 0, str(result.get("status_text") or ""), headers, body,
                    str(result.get("url") or ""))


def timed_out(timeout: float | None) -> HTTPTimeout:
    return HTTPTimeout(f"timed out: no response within the client's timeout ({timeout or 0:g} s)", "client_timeout")


class Pending:
    """A request submitted and not yet waited for to the end (submit)."""

    __slots__ = ("call_id", "_waiting")

    def __init__(self, call_id: int, waiting: calls._Waiting) -> None:
        self.call_id = call_id
        self._waiting = waiting

    def wait(self, timeout: float | None = None) -> Response | None:
        """The response, waiting for it at most timeout seconds (None: no
        limit), even while an event loop runs (a synchronous client
        called from async code blocks, as it would on a socket). None when
        the time ran out first: the request stays in flight and may be
        waited for again. Raises HTTPRefused (or HTTPTimeout) when the
        host refused the request or could not make it."""
        call_id = self.call_id
        if timeout is None:
            calls._wait_for(call_id)
        else:
            deadline = time.monotonic() + max(0.0, timeout)
            while call_id in calls._pending:
                left = deadline - time.monotonic()
                if (left <= 0 or not calls.deliver_next(max(1, math.ceil(left * 1000)))) and call_id in calls._pending:
                    return None
        if self._waiting.error is not None:
            raise self._waiting.error
        return _response(self._waiting.value)

    def cancel(self) -> None:
        """Nobody will wait for the response: the host stops the request."""
        cancel(self.call_id)


def cancel(call_id: int) -> None:
    """Asks the host to stop request call_id if it is still in flight (its
    answer, refused or not, is dropped when it comes, as is the answer to
    this request)."""
    if call_id not in calls._pending:
        return
    cancel_id = _amla.submit(('{"method":"' + CANCEL + '","params":{"id":' + str(int(call_id)) + "}}").encode())
    calls._pending[cancel_id] = calls._Waiting(CANCEL)


def submit(method: str, url: str, headers: list[tuple[str, str]], body: bytes | None = None) -> Pending:
    """Hands one request to the host; wait() for its response. One never
    waited for is dropped when its answer comes."""
    call_id = _amla.submit(_request_json(method, url, headers, body))
    waiting = calls._pending[call_id] = calls._Waiting(METHOD)
    return Pending(call_id, waiting)


def request(method: str, url: str, headers: list[tuple[str, str]], body: bytes | None = None,
            timeout: float | None = None) -> Response:
    """Makes one request and waits for its response (Pending.wait); past
    timeout, HTTPTimeout."""
    pending = submit(method, url, headers, body)
    response = pending.wait(timeout)
    if response is None:
        pending.cancel()
        raise timed_out(timeout)
    return response


async def request_async(method: str, url: str, headers: list[tuple[str, str]], body: bytes | None = None,
                        timeout: float | None = None) -> Response:
    """request() for a coroutine of the running loop: submitted at once, so
    requests gathered together are in flight together."""
    loop = asyncio.get_running_loop()
    call_id = _amla.submit(_request_json(method, url, headers, body))
    call = calls._pending[call_id] = calls.ToolCall(call_id, METHOD, loop)
    # Cancelled (a timeout, a cancelled task): the host stops the request.
    call.add_done_callback(lambda c: cancel(call_id) if c.cancelled() else None)
    if timeout is None:
        return _response(await call)
    try:
        return _response(await asyncio.wait_for(call, max(0.0, timeout)))
    except TimeoutError:
        if call.cancelled():
            raise timed_out(timeout) from None
        raise


def _request_json(method: str, url: str, headers: list[tuple[str, str]], body: bytes | None) -> bytes:
    request = '{"method":"' + METHOD + '","params":' + _params(method, url, headers, body) + "}"
    return request.encode("utf-8", "surrogatepass")


def install() -> None:
    calls.answer_errors[METHOD] = _error
    calls.answer_results[METHOD] = _result
