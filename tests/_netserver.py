"""Real HTTP and HTTPS servers on 127.0.0.1 for the network tests.

`serve()` starts one threaded server (plain, or TLS with a certificate from
a test certificate authority made by trustme) and returns a `Server` whose
`url` is its base URL and `ca_pem` the authority's PEM (for
`NetworkPolicy(extra_ca_certs=...)`). Every request is appended to
`Server.seen` as the server received it, so a test can assert what really
left the sandbox (a secret's value, a header that must have been dropped).

Endpoints (any verb unless said):
  /json                 {"ok": true, "n": 1}
  /echo                 the request as JSON: method, path, query, headers
                        (lower-case names), body (text)
  /status/<code>        an empty response with that status
  /redirect?to=<url>&code=<3xx>   a redirect to <url>
  /big?n=<bytes>        n bytes of "x"
  /slow?ms=<ms>         {"slow": ms} after sleeping ms milliseconds
  /gzip                 a gzip-encoded JSON body (Content-Encoding: gzip)
  /headers?name=value   a 200 whose response headers are the query's pairs
"""

from __future__ import annotations

import gzip
import json
import ssl
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit


@dataclass
class Seen:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Server:
    url: str
    port: int
    ca_pem: str | None
    seen: list[Seen] = field(default_factory=list)
    _httpd: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    def close(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _handler(server: Server) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # One write per response, sent at once (the stdlib's defaults write
        # the head and the body apart, which delayed ACKs turn into 40 ms
        # stalls on a kept-alive connection).
        wbufsize = 1 << 16
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib's name
            pass

        def _send(self, code: int, body: bytes, ctype: str = "application/json",
                  extra: list[tuple[str, str]] | None = None) -> None:
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for k, v in extra or []:
                self.send_header(k, v)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _any(self) -> None:
            n = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(n) if n else b""
            parts = urlsplit(self.path)
            server.seen.append(Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            query = dict(parse_qsl(parts.query, keep_blank_values=True))
            route = parts.path
            if route == "/json":
                self._send(200, b'{"ok": true, "n": 1}')
            elif route == "/echo":
                doc = {"method": self.command, "path": parts.path, "query": query,
                       "headers": {k.lower(): v for k, v in self.headers.items()},
                       "body": body.decode("utf-8", "replace")}
                self._send(200, json.dumps(doc).encode())
            elif route.startswith("/status/"):
                self._send(int(route.rsplit("/", 1)[1]), b"")
            elif route == "/redirect":
                self._send(int(query.get("code", "302")), b"", extra=[("Location", query["to"])])
            elif route == "/big":
                self._send(200, b"x" * int(query.get("n", "0")), "text/plain")
            elif route == "/slow":
                ms = int(query.get("ms", "1000"))
                time.sleep(ms / 1000)
                self._send(200, json.dumps({"slow": ms}).encode())
            elif route == "/gzip":
                self._send(200, gzip.compress(b'{"zipped": true}'), extra=[("Content-Encoding", "gzip")])
            elif route == "/headers":
                self._send(200, b"{}", extra=list(query.items()))
            else:
                self._send(404, b'{"error": "not found"}')

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _any

    return Handler


class _Server(ThreadingHTTPServer):
    # Room for many connections at once (tests and benchmarks open 50).
    request_queue_size = 256


def local_policy(*allow: Any, **extra: Any) -> dict[str, Any]:
    """A network policy (dict form) allowing `allow` and reaching 127.0.0.1, where these
    servers listen; `extra` adds or replaces fields."""
    return {"allow": list(allow), "allow_private": ["127.0.0.1"], **extra}


def serve(tls: bool = False) -> Server:
    """Start a server on 127.0.0.1 on a free port (HTTPS when tls)."""
    server = Server(url="", port=0, ca_pem=None)
    httpd = _Server(("127.0.0.1", 0), _handler(server))
    httpd.daemon_threads = True
    if tls:
        import trustme

        ca = trustme.CA()
        cert = ca.issue_cert("127.0.0.1", "localhost")
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        cert.configure_cert(ctx)
        httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
        server.ca_pem = ca.cert_pem.bytes().decode()
    port = httpd.server_address[1]
    server.port = port
    server.url = f"{'https' if tls else 'http'}://127.0.0.1:{port}"
    server._httpd = httpd
    server._thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    server._thread.start()
    return server


if __name__ == "__main__":
    # A server in a process of its own (for tests that measure the memory of
    # theirs): prints its URL, serves until its stdin closes.
    import sys

    s = serve(tls="--tls" in sys.argv)
    print(s.url, flush=True)
    sys.stdin.read()
    s.close()
