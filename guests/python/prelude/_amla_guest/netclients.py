"""HTTP clients over the host's requests (net.py): http.client (and so
urllib.request), urllib3 (and so requests) and httpx.

http.client writes a request to its socket and reads the response from
the socket's makefile(). Its connect() installs a HostSocket instead: it
buffers what is written, and once a whole HTTP/1.1 request is there
(headers, then the body by Content-Length or chunked) makes the host call
and keeps the response for makefile(). The call is made when the request
is sent, not when the response is read: the libraries turn errors raised
while sending into their own connection errors (urllib's URLError,
requests' ConnectionError), and errors raised while reading into others
(a timeout there is a read timeout, as on a socket).

urllib3's connection classes are http.client's with their own connect():
they are given the same HostSocket when urllib3 is imported. httpx gets
transports that make the host call themselves (httpcore, anyio and h11
are never imported).

TLS is the host's and always verifies: verify=False, unverified contexts
and certificate options change nothing.
"""

from __future__ import annotations

import collections
import io
import sys

from . import net

# Framing headers: the request handed to the host is whole, and the host
# frames it itself.
_FRAMING = frozenset({"content-length", "transfer-encoding", "connection", "keep-alive", "proxy-connection", "te",
                      "upgrade", "trailer"})
# A request whose head is not complete within this many bytes is malformed.
_MAX_HEAD = 1 << 20
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _timeout_seconds(timeout) -> float | None:
    if isinstance(timeout, (int, float)) and not isinstance(timeout, bool):
        return float(timeout)
    return None


def origin(scheme: str, host: str, port: int | None) -> str:
    """scheme://host[:port], the port left out when it is the scheme's."""
    netloc = f"[{host}]" if ":" in host and not host.startswith("[") else host
    if port is not None and port != _DEFAULT_PORTS.get(scheme):
        netloc += f":{port}"
    return f"{scheme}://{netloc}"


class HostSocket:
    """The socket http.client's connect() installs (see the module's
    docstring). sendall() buffers; a whole request makes one host call;
    makefile() serves the responses in order. The sendall() that completes
    a request waits for its answer as long as the socket's timeout allows
    (a client's connect timeout, for urllib3) and raises a refusal; an
    answer that has not come by then is waited for by the makefile() that
    reads it, under the timeout of that moment (the read timeout), and a
    timeout is raised there, as a socket's read timeout is."""

    def __init__(self, scheme: str, host: str, port: int | None, timeout) -> None:
        self.scheme = scheme  # the stand-in ssl's wrap_socket makes it "https"
        self._host = host
        self._port = port
        self._timeout = _timeout_seconds(timeout)
        self._out = bytearray()
        self._responses: collections.deque = collections.deque()
        self._closed = False

    # -- the socket's methods http.client, urllib3 and their callers use --

    def sendall(self, data) -> None:
        if self._closed:
            raise OSError(9, "Bad file descriptor")
        self._out += data
        while True:
            request = self._take_request()
            if request is None:
                return
            self._exchange(*request)

    def send(self, data) -> int:
        self.sendall(data)
        return len(data)

    def makefile(self, mode: str = "r", buffering=None, **kwargs):
        if "w" in mode:
            raise OSError("the sandbox's HTTP connections are written with sendall()")
        if not self._responses:
            if self._out:
                raise ConnectionError("the HTTP request was not sent whole: nothing was sent to the host")
            raise ConnectionError("no HTTP request was sent on this connection")
        item = self._responses.popleft()
        if isinstance(item, tuple) and isinstance(item[1], net.Pending):
            method, pending = item
            response = pending.wait(self._timeout)
            if response is None:
                pending.cancel()
                raise net.timed_out(self._timeout)
            item = _serialize(method, response)
        if isinstance(item, BaseException):
            raise item
        return _ResponseFile(*item)

    def settimeout(self, timeout) -> None:
        self._timeout = _timeout_seconds(timeout)

    def gettimeout(self) -> float | None:
        return self._timeout

    def setblocking(self, flag: bool) -> None:
        pass

    def setsockopt(self, *args) -> None:
        pass

    def shutdown(self, how: int) -> None:
        pass

    def close(self) -> None:
        self._closed = True
        self._out.clear()
        for item in self._responses:
            if isinstance(item, tuple) and isinstance(item[1], net.Pending):
                item[1].cancel()
        self._responses.clear()

    def fileno(self) -> int:
        return -1

    def __repr__(self) -> str:
        return f"<HostSocket {origin(self.scheme, self._host, self._port)} (HTTP through the sandbox's host)>"

    # -- the request ------------------------------------------------------

    def _take_request(self):
        """(method, target, headers, body) of the first whole request in
        the buffer, removed from it; None while it is incomplete."""
        out = self._out
        end = out.find(b"\r\n\r\n")
        if end < 0:
            if len(out) > _MAX_HEAD:
                raise OSError("the HTTP request's head is too long")
            return None
        lines = bytes(out[:end]).decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/"):
            raise OSError(f"malformed HTTP request line: {lines[0][:200]!r}")
        method, target = parts[0], parts[1]
        headers = []
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if not sep:
                raise OSError(f"malformed HTTP header line: {line[:200]!r}")
            headers.append((name.strip(), value.strip()))
        lower = {k.lower(): v for k, v in headers}
        pos = end + 4
        if "chunked" in lower.get("transfer-encoding", "").lower():
            body = bytearray()
            while True:
                nl = out.find(b"\r\n", pos)
                if nl < 0:
                    return None
                try:
                    size = int(bytes(out[pos:nl]).split(b";")[0].strip(), 16)
                except ValueError:
                    raise OSError("malformed chunk in the HTTP request's body") from None
                if size == 0:
                    # Trailers (none from http.client), then an empty line.
                    pos = nl + 2
                    while True:
                        nl = out.find(b"\r\n", pos)
                        if nl < 0:
                            return None
                        if nl == pos:
                            pos = nl + 2
                            break
                        pos = nl + 2
                    break
                if len(out) < nl + 2 + size + 2:
                    return None
                body += out[nl + 2 : nl + 2 + size]
                pos = nl + 2 + size + 2
            body = bytes(body)
        elif "content-length" in lower:
            try:
                n = int(lower["content-length"])
            except ValueError:
                raise OSError(f"malformed Content-Length: {lower['content-length']!r}") from None
            if len(out) < pos + n:
                return None
            body = bytes(out[pos : pos + n])
            pos += n
        else:
            body = b""
        del out[:pos]
        return method, target, [(k, v) for k, v in headers if k.lower() not in _FRAMING], body

    def _exchange(self, method: str, target: str, headers: list, body: bytes) -> None:
        # An absolute-form target (a client speaking to a proxy) is the URL;
        # the part before the query decides.
        url = target if "://" in target.partition("?")[0] else origin(self.scheme, self._host, self._port) + target
        pending = net.submit(method, url, headers, body or None)
        try:
            response = pending.wait(self._timeout)
        except TimeoutError as e:  # the host's timeout: a read timeout
            self._responses.append(e)
            return
        self._responses.append((method, pending) if response is None else _serialize(method, response))


class _ResponseFile(io.BufferedIOBase):
    """A response's bytes as http.client reads them (its makefile()): the
    head, then the body. The body may be megabytes: it is never joined to
    the head, and a read of all of it gives the body object itself, not a
    copy."""

    def __init__(self, head: bytes, body: bytes) -> None:
        self._head = head
        self._body = body
        self._pos = 0  # in head + body

    def readable(self) -> bool:
        return True

    def _take(self, n: int, advance: bool = True) -> bytes:
        head, body, pos = self._head, self._body, self._pos
        total = len(head) + len(body)
        n = total - pos if n is None or n < 0 else min(n, total - pos)
        if pos == len(head) and n == len(body):
            out = body
        elif pos + n <= len(head):
            out = head[pos : pos + n]
        elif pos >= len(head):
            out = body[pos - len(head) : pos - len(head) + n]
        else:
            out = head[pos:] + body[: pos + n - len(head)]
        if advance:
            self._pos = pos + n
        return out

    def read(self, size: int | None = -1) -> bytes:
        self._checkClosed()
        return self._take(-1 if size is None else size)

    def read1(self, size: int = -1) -> bytes:
        return self.read(size)

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def peek(self, size: int = 0) -> bytes:
        self._checkClosed()
        return self._take(max(size, 1), advance=False)

    def readline(self, size: int | None = -1) -> bytes:
        self._checkClosed()
        head, pos = self._head, self._pos
        if pos < len(head):
            nl = head.find(b"\n", pos)
            n = (nl + 1 if nl >= 0 else len(head)) - pos
        else:
            nl = self._body.find(b"\n", pos - len(head))
            n = (nl + 1 + len(head) if nl >= 0 else len(head) + len(self._body)) - pos
        if size is not None and size >= 0:
            n = min(n, size)
        return self._take(n)

    def close(self) -> None:
        self._head = self._body = b""
        super().close()


def _serialize(method: str, r: net.Response) -> tuple[bytes, bytes]:
    """(head, body) of the response as an HTTP/1.1 server would send it."""
    lines = [f"HTTP/1.1 {r.status} {r.reason or 'Unknown'}"]
    for name, value in r.headers:
        low = name.lower()
        if low == "transfer-encoding" or (low == "content-length" and method != "HEAD"):
            continue
        lines.append(f"{name}: {value}")
    if method != "HEAD":
        lines.append(f"Content-Length: {len(r.body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8", "surrogateescape"), b"" if method == "HEAD" else r.body


# -- http.client -------------------------------------------------------------


def patch_http_client(m) -> None:
    """http.client's connections make their requests through the host."""

    https = getattr(m, "HTTPSConnection", ())

    def connect(self) -> None:
        sys.audit("http.client.connect", self, self.host, self.port)
        scheme = "https" if isinstance(self, https) else "http"
        self.sock = HostSocket(scheme, self.host, self.port, self.timeout)
        if self._tunnel_host:
            self._tunnel()

    m.HTTPConnection.connect = connect
    if https:
        m.HTTPSConnection.connect = connect


# -- urllib3 -----------------------------------------------------------------


def patch_urllib3(m) -> None:
    """urllib3's connection classes (those its pools make) connect through
    the host: they keep their request and response code, which is
    http.client's underneath."""
    import urllib3.connection as uc
    import urllib3.connectionpool as pool
    from urllib3.exceptions import ProtocolError
    from urllib3.util.retry import Retry

    class HTTPConnection(uc.HTTPConnection):
        def connect(self) -> None:
            self.sock = HostSocket("http", self.host, self.port, self.timeout)
            self._has_connected_to_proxy = False

        @property
        def is_connected(self) -> bool:
            return self.sock is not None

    class HTTPSConnection(uc.HTTPSConnection):
        def connect(self) -> None:
            self.sock = HostSocket("https", self.host, self.port, self.timeout)
            self._has_connected_to_proxy = False
            # The host's TLS always verifies the certificate and the name.
            self.is_verified = True

        @property
        def is_connected(self) -> bool:
            return self.sock is not None

    for cls in (HTTPConnection, HTTPSConnection):
        cls.__module__ = uc.__name__
        cls.__qualname__ = cls.__name__
    pool.HTTPConnectionPool.ConnectionCls = HTTPConnection
    pool.HTTPSConnectionPool.ConnectionCls = HTTPSConnection
    uc.HTTPConnection = HTTPConnection
    uc.HTTPSConnection = uc.VerifiedHTTPSConnection = HTTPSConnection

    # A request the policy refused is refused again however often it is
    # retried: the error is raised at once, as urllib3 does for an error it
    # may not retry (a network failure, check "transport", is retried).
    increment = Retry.increment

    def increment_unless_refused(self, method=None, url=None, response=None, error=None, _pool=None,
                                 _stacktrace=None):
        cause = error.args[1] if isinstance(error, ProtocolError) and len(error.args) > 1 else error
        if isinstance(cause, net.HTTPRefused) and cause.check not in ("", "transport"):
            raise error.with_traceback(_stacktrace)
        return increment(self, method, url, response, error, _pool, _stacktrace)

    increment_unless_refused.__wrapped__ = increment
    Retry.increment = increment_unless_refused


# -- httpx -------------------------------------------------------------------


def _httpx_args(request) -> tuple[str, str, list, float | None]:
    timeouts = request.extensions.get("timeout") or {}
    # The response must have come within the read timeout (httpx's default
    # is 5 s); connecting and writing are the host's.
    timeout = _timeout_seconds(timeouts.get("read"))
    headers = [(k, v) for k, v in request.headers.multi_items() if k.lower() not in _FRAMING]
    return request.method, str(request.url), headers, timeout


def patch_httpx(m) -> None:
    """httpx's default transports become ones that make the host call
    (Client(), AsyncClient(), httpx.get and HTTPTransport(...) made by the
    script alike): httpcore, anyio and h11 are never needed. A refusal is
    httpx.ConnectError, a timeout httpx.ReadTimeout."""
    import httpx._client as client
    import httpx._transports as transports
    import httpx._transports.default as default

    def response(r: net.Response):
        return m.Response(status_code=r.status, headers=r.headers, stream=m.ByteStream(r.body),
                          extensions={"http_version": b"HTTP/1.1", "reason_phrase": r.reason.encode("latin-1", "replace")})

    def failure(e: OSError, request):
        if isinstance(e, TimeoutError):
            return m.ReadTimeout(str(e), request=request)
        return m.ConnectError(str(e), request=request)

    class HTTPTransport(m.BaseTransport):
        """httpx's transport through the sandbox's host. Its options
        (verify, cert, http2, limits, proxy, retries, ...) are accepted and
        change nothing: the host makes the connection."""

        def __init__(self, *args, **kwargs) -> None:
            pass

        def handle_request(self, request):
            body = request.read()
            method, url, headers, timeout = _httpx_args(request)
            try:
                r = net.request(method, url, headers, body or None, timeout)
            except OSError as e:
                raise failure(e, request) from e
            return response(r)

    class AsyncHTTPTransport(m.AsyncBaseTransport):
        """HTTPTransport for AsyncClient: requests gathered together are in
        flight together."""

        def __init__(self, *args, **kwargs) -> None:
            pass

        async def handle_async_request(self, request):
            body = await request.aread()
            method, url, headers, timeout = _httpx_args(request)
            try:
                r = await net.request_async(method, url, headers, body or None, timeout)
            except OSError as e:
                raise failure(e, request) from e
            return response(r)

    for cls in (HTTPTransport, AsyncHTTPTransport):
        cls.__module__ = "httpx"
        cls.__qualname__ = cls.__name__
    for mod in (m, client, transports, default):
        mod.HTTPTransport = HTTPTransport
        mod.AsyncHTTPTransport = AsyncHTTPTransport


# -- set-up ------------------------------------------------------------------


def warm_up() -> None:
    """Sends a few requests through urllib.request and http.client with a
    canned answer and no host call (set-up may make none), so that the
    code a request runs is specialised in the snapshot (the prelude's
    _warm_up says why). urllib's opener is left unbuilt, as CPython's is
    until the first urlopen."""
    import urllib.request

    canned = net.Response(200, "OK", [("Content-Type", "application/json"), ("Content-Length", "2")], b"{}", "")

    class Answered:
        def wait(self, timeout=None) -> net.Response:
            return canned

        def cancel(self) -> None:
            pass

    submit = net.submit
    net.submit = lambda *args, **kwargs: Answered()
    try:
        for _ in range(4):
            urllib.request.urlopen("http://warm-up.invalid/x?a=1").read()
            urllib.request.urlopen(urllib.request.Request("https://warm-up.invalid/y", data=b"{}", method="POST")).read()
    finally:
        net.submit = submit
        urllib.request._opener = None
