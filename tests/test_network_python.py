"""Python's HTTP clients under a network policy (docs/python.md, "Network"), through the public
API, against real HTTP and HTTPS servers on 127.0.0.1 (tests/_netserver.py): urllib.request,
http.client, and requests and httpx mounted as pure-Python packages; what is allowed and
refused and how each library reports it; redirects, error statuses, secrets, limits and
timeouts; requests gathered under asyncio in flight together."""

from __future__ import annotations

import json
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from amla_sandbox import Sandbox

sys.path.insert(0, str(Path(__file__).parent))
from _netserver import Server, serve  # noqa: E402
from _netserver import local_policy as policy  # noqa: E402

SECRET = "s3cr3t-py-token-value-77"
# The pure-Python packages requests and httpx need (httpcore, anyio and h11 are never imported:
# the guest gives httpx transports of its own). charset_normalizer ships compiled modules beside
# their Python sources: only the sources are mounted, and it runs as pure Python.
PACKAGES = ("requests", "urllib3", "certifi", "idna", "charset_normalizer", "httpx")


@pytest.fixture(scope="module")
def http() -> Any:
    with serve() as s:
        yield s


@pytest.fixture(scope="module")
def https() -> Any:
    with serve(tls=True) as s:
        yield s


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site-packages-like directory of the test environment's own copies of PACKAGES."""
    site = Path(sysconfig.get_paths()["purelib"])
    out = tmp_path_factory.mktemp("site-packages")
    for name in PACKAGES:
        src = site / name
        if not src.is_dir():
            pytest.skip(f"{name} is not installed in the test environment (pip install '.[test]')")
        shutil.copytree(src, out / name, ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    return out


def run(sb: Sandbox, code: str) -> Any:
    """Runs code whose last line prints JSON; gives the value (the run must succeed)."""
    out = sb.python(code)
    assert sb.last_result.exit_code == 0, sb.last_stderr
    return json.loads(out.strip().splitlines()[-1])


def error_of(sb: Sandbox, call: str, setup: str = "") -> dict[str, Any]:
    """The exception `call` raises in the guest: its type (module.name) and str()."""
    return run(sb, f"""
import json
{setup}
try:
    {call}
    print(json.dumps({{"raised": None}}))
except Exception as e:
    t = type(e)
    reason = getattr(e, "reason", None)
    print(json.dumps({{"raised": t.__module__ + "." + t.__qualname__, "message": str(e),
                      "reason": None if reason is None else str(reason)}}))
""")


# -- urllib.request and http.client --------------------------------------------------------


@pytest.mark.parametrize("tls", [False, True], ids=["http", "https"])
def test_urllib_get_post_json_and_head(http: Server, https: Server, tls: bool):
    srv = https if tls else http
    extra = {"extra_ca_certs": srv.ca_pem} if tls else {}
    srv.seen.clear()
    with Sandbox(network=policy(srv.url, **extra)) as sb:
        got = run(sb, f"""
import json, urllib.request
r = urllib.request.urlopen("{srv.url}/json")
first = [r.status, r.headers["Content-Type"], json.load(r), r.url]
req = urllib.request.Request("{srv.url}/echo?q=1", data=json.dumps({{"amount": 5}}).encode(),
                             headers={{"Content-Type": "application/json", "X-Trace": "abc"}}, method="POST")
echo = json.load(urllib.request.urlopen(req))
head = urllib.request.urlopen(urllib.request.Request("{srv.url}/json", method="HEAD"))
print(json.dumps([first, echo, [head.status, head.read()]], default=repr))
""")
    first, echo, head = got
    assert first == [200, "application/json", {"ok": True, "n": 1}, f"{srv.url}/json"]
    assert echo["method"] == "POST" and echo["query"] == {"q": "1"} and json.loads(echo["body"]) == {"amount": 5}
    assert echo["headers"]["x-trace"] == "abc" and echo["headers"]["content-type"] == "application/json"
    assert head == [200, "b''"]
    assert [(s.method, s.path) for s in srv.seen] == [("GET", "/json"), ("POST", "/echo?q=1"), ("HEAD", "/json")]


def test_http_client_chunked_body_and_reused_connection(https: Server):
    https.seen.clear()
    with Sandbox(network=policy(https.url, extra_ca_certs=https.ca_pem)) as sb:
        got = run(sb, f"""
import http.client, json, ssl
c = http.client.HTTPSConnection("127.0.0.1", {https.port}, context=ssl.create_default_context(), timeout=10)
c.request("PUT", "/echo", body=iter([b"ab", b"cd", b"ef"]), encode_chunked=True)
r = c.getresponse()
one = [r.status, r.reason, json.loads(r.read())["body"]]
c.request("GET", "/big?n=70000")
r = c.getresponse()
two = [r.status, r.getheader("Content-Length"), len(r.read())]
c.close()
print(json.dumps([one, two]))
""")
    assert got == [[200, "OK", "abcdef"], [200, "70000", 70000]]
    assert https.seen[0].body == b"abcdef" and https.seen[0].method == "PUT"


def test_unverified_contexts_change_nothing(https: Server, packages: Path):
    """TLS is the host's and always verifies: without the test CA in the policy, an unverified
    context or verify=False in the guest still fails on the certificate, and nothing is sent."""
    https.seen.clear()
    with Sandbox(network=policy(https.url), python_packages=[packages]) as sb:
        got = [
            error_of(sb, f'urllib.request.urlopen("{https.url}/json", context=ssl._create_unverified_context())',
                     "import ssl, urllib.request"),
            error_of(sb, f'requests.get("{https.url}/json", verify=False)', "import requests"),
            error_of(sb, f'httpx.Client(verify=False).get("{https.url}/json")', "import httpx"),
        ]
    assert [g["raised"] for g in got] == ["urllib.error.URLError", "requests.exceptions.ConnectionError", "httpx.ConnectError"]
    assert all("certificate signed by unknown authority" in g["message"] for g in got), got
    assert https.seen == []


def test_urllib_redirects_are_followed_hop_by_hop(http: Server):
    other = "http://127.0.0.1:9/json"  # a port no rule names
    http.seen.clear()
    with Sandbox(network=policy(http.url)) as sb:
        got = run(sb, f"""
import json, urllib.request
r = urllib.request.urlopen("{http.url}/redirect?to=/json&code=301")
print(json.dumps([r.status, r.url, json.load(r)]))
""")
        refused = error_of(sb, f'urllib.request.urlopen("{http.url}/redirect?to={other}")', "import urllib.request")
    assert got == [200, f"{http.url}/json", {"ok": True, "n": 1}]
    assert refused["raised"] == "urllib.error.URLError"
    assert "refused by the port check" in refused["reason"] and "(9)" in refused["reason"], refused
    # Each hop was a request of its own; the refused one never left.
    assert [s.path for s in http.seen] == ["/redirect?to=/json&code=301", "/json", f"/redirect?to={other}"]


def test_error_statuses_are_each_librarys_own(http: Server, packages: Path):
    with Sandbox(network=policy(http.url), python_packages=[packages]) as sb:
        got = run(sb, f"""
import json, urllib.request, urllib.error, requests, httpx
try:
    urllib.request.urlopen("{http.url}/status/404")
    u = None
except urllib.error.HTTPError as e:
    u = [e.code, e.read().decode()]
r = requests.get("{http.url}/nothing-here")
x = httpx.get("{http.url}/status/503")
print(json.dumps([u, r.status_code, r.ok, r.json(), x.status_code, x.is_error]))
""")
    assert got == [[404, ""], 404, False, {"error": "not found"}, 503, True]


# -- refusals, in each library's own error -------------------------------------------------

CALLS = {
    "urllib": ("import urllib.request", 'urllib.request.urlopen(urllib.request.Request("{url}", method="{verb}", data={data}))',
               "urllib.error.URLError"),
    "http.client": ("import http.client, urllib.parse", 'u = urllib.parse.urlsplit("{url}"); c = http.client.HTTPConnection(u.hostname, u.port); '
                    'c.request("{verb}", u.path, body={data})', "builtins.HTTPRefused"),
    "requests": ("import requests", 'requests.request("{verb}", "{url}", data={data})', "requests.exceptions.ConnectionError"),
    "httpx": ("import httpx", 'httpx.request("{verb}", "{url}", content={data})', "httpx.ConnectError"),
    "httpx async": ("import httpx", 'asyncio.run(httpx.AsyncClient().request("{verb}", "{url}", content={data}))',
                    "httpx.ConnectError"),
}


@pytest.mark.parametrize("library", list(CALLS))
def test_refusals_name_the_check_and_rule_in_each_librarys_error(http: Server, packages: Path, library: str):
    setup, call, raised = CALLS[library]
    rule = {"url": f"{http.url}/echo", "methods": ["POST"], "constraints": {"json/amount": "<=50"}}
    cases = [  # (verb, url, body, what the message says)
        ("GET", "http://example.com/json", "None", "refused by the allow check"),  # another host
        ("DELETE", f"{http.url}/json", "None", "refused by the allow check"),  # a verb no rule allows
        ("GET", f"{http.url}/secret/x", "None", "refused by the allow check"),  # a path no rule allows
        ("POST", f"{http.url}/echo", "b'{\"amount\": 500}'", "refused by the constraint check"),
    ]
    http.seen.clear()
    with Sandbox(network=policy(f"GET {http.url}/json", rule), python_packages=[packages]) as sb:
        for verb, url, data, says in cases:
            got = error_of(sb, call.format(verb=verb, url=url, data=data), setup)
            assert got["raised"] == raised, (verb, url, got)
            assert says in got["message"], (verb, url, got)
            if "constraint" in says:
                assert f"{http.url}/echo" in got["message"] and "amount" in got["message"], got
        ok = run(sb, f"{setup}\nimport json\n" + {
            "urllib": f'print(json.dumps(json.load(urllib.request.urlopen("{http.url}/json"))))',
            "http.client": f'c = http.client.HTTPConnection("127.0.0.1", {http.port}); c.request("GET", "/json"); '
                           'print(c.getresponse().read().decode())',
            "requests": f'print(json.dumps(requests.get("{http.url}/json").json()))',
            "httpx": f'print(json.dumps(httpx.get("{http.url}/json").json()))',
            "httpx async": f'print(json.dumps((await httpx.AsyncClient().get("{http.url}/json")).json()))',
        }[library])
    assert ok == {"ok": True, "n": 1}
    assert [(s.method, s.path) for s in http.seen] == [("GET", "/json")]  # no refused request left


def test_no_network_policy_means_no_request(http: Server):
    http.seen.clear()
    with Sandbox() as sb:
        got = error_of(sb, f'urllib.request.urlopen("{http.url}/json")', "import urllib.request")
    assert got["raised"] == "urllib.error.URLError" and "no network policy" in got["message"], got
    assert http.seen == []


def test_requests_redirect_to_a_refused_host(http: Server, packages: Path):
    with Sandbox(network=policy(http.url), python_packages=[packages]) as sb:
        got = run(sb, f"""
import json, requests, httpx
r = requests.get("{http.url}/redirect?to=/json")
out = [r.status_code, [h.status_code for h in r.history], r.json()]
for call in (lambda: requests.get("{http.url}/redirect?to=http://example.com/"),
             lambda: httpx.get("{http.url}/redirect?to=http://example.com/", follow_redirects=True)):
    try:
        call()
    except Exception as e:
        out.append([type(e).__name__, "refused by the allow check" in str(e)])
print(json.dumps(out))
""")
    assert got == [200, [302], {"ok": True, "n": 1}, ["ConnectionError", True], ["ConnectError", True]]


# -- requests and httpx ---------------------------------------------------------------------


def test_requests_sessions_json_cookies_streaming_and_gzip(https: Server, packages: Path):
    https.seen.clear()
    with Sandbox(network=policy(https.url, extra_ca_certs=https.ca_pem), python_packages=[packages]) as sb:
        got = run(sb, f"""
import json, requests
s = requests.Session()
s.headers["X-Session"] = "1"
posted = s.post("{https.url}/echo", json={{"items": [1, 2]}}, params={{"page": 2}}, verify=False).json()
s.get("{https.url}/headers?Set-Cookie=sid%3Dabc")
streamed = sum(len(c) for c in s.get("{https.url}/big?n=20000", stream=True).iter_content(4096))
z = s.get("{https.url}/gzip")
print(json.dumps([json.loads(posted["body"]), posted["query"], posted["headers"]["x-session"], s.cookies.get("sid"),
                  streamed, z.json(), z.headers.get("Content-Encoding")]))
""")
    assert got == [{"items": [1, 2]}, {"page": "2"}, "1", "abc", 20000, {"zipped": True}, None]
    assert https.seen[-2].headers.get("cookie") == "sid=abc"


def test_httpx_sync_and_async_gather_in_flight_together(http: Server, packages: Path):
    http.seen.clear()
    with Sandbox(network=policy(http.url), python_packages=[packages]) as sb:
        got = run(sb, f"""
import json, time, httpx
with httpx.Client(base_url="{http.url}") as c:
    sync = [c.get("/json").json(), c.post("/echo", json={{"a": 1}}).json()["body"]]
async def main():
    async with httpx.AsyncClient() as c:
        t = time.monotonic()
        rs = await asyncio.gather(*(c.get("{http.url}/slow?ms=700") for _ in range(4)))
        return [r.json() for r in rs], time.monotonic() - t
slow, took = asyncio.run(main())
print(json.dumps([sync, slow, took]))
""")
    sync, slow, took = got
    assert sync == [{"ok": True, "n": 1}, '{"a":1}']
    assert slow == [{"slow": 700}] * 4
    assert took < 2.0, f"4 requests of 0.7 s each took {took:.2f} s: not in flight together"


# -- secrets ------------------------------------------------------------------------------


def test_secret_placeholder_from_environ_is_substituted_and_scrubbed(https: Server, http: Server, packages: Path):
    secrets = {"API_TOKEN": {"value": SECRET, "hosts": ["127.0.0.1"]}}
    https.seen.clear()
    with Sandbox(network=policy(https.url, http.url, secrets=secrets, extra_ca_certs=https.ca_pem),
                 python_packages=[packages]) as sb:
        got = run(sb, f"""
import json, os, urllib.request, requests
tok = os.environ["API_TOKEN"]
a = json.load(urllib.request.urlopen(urllib.request.Request("{https.url}/echo", headers={{"Authorization": "Bearer " + tok}})))
b = requests.get("{https.url}/echo", headers={{"X-Key": tok}}).json()
try:
    requests.get("{http.url}/echo", headers={{"X-Key": tok}})
    plain = None
except requests.ConnectionError as e:
    plain = str(e)
print(json.dumps([tok, a["headers"]["authorization"], b["headers"]["x-key"], plain]))
""")
    tok, auth, key, plain = got
    assert tok.startswith("amla_secret_API_TOKEN_") and SECRET not in json.dumps(got)
    assert auth == "Bearer " + tok and key == tok  # the echo came back scrubbed
    assert [s.headers.get("authorization") for s in https.seen] == ["Bearer " + SECRET, None]
    assert https.seen[1].headers["x-key"] == SECRET
    assert plain is not None and "refused by the secret check" in plain, plain


# -- sockets, limits and timeouts ----------------------------------------------------------


def test_socket_stays_refused_and_points_to_http(http: Server):
    with Sandbox(network=policy(http.url)) as sb:
        got = error_of(sb, f'socket.create_connection(("127.0.0.1", {http.port}))', "import socket")
    assert got["raised"] == "builtins.OSError"
    assert "no sockets: HTTP and HTTPS requests go through the host" in got["message"], got
    assert "urllib.request, http.client, or requests/httpx" in got["message"], got


def test_big_and_slow_responses_meet_the_policys_limits(http: Server, packages: Path):
    with Sandbox(network=policy(http.url, max_response_bytes=10_000, timeout=0.5), python_packages=[packages]) as sb:
        got = run(sb, f"""
import json, urllib.request, urllib.error, requests, httpx
out = [len(urllib.request.urlopen("{http.url}/big?n=10000").read())]
for call in (lambda: urllib.request.urlopen("{http.url}/big?n=10001"),
             lambda: requests.get("{http.url}/big?n=50000"),
             lambda: urllib.request.urlopen("{http.url}/slow?ms=3000"),
             lambda: requests.get("{http.url}/slow?ms=3000"),
             lambda: httpx.get("{http.url}/slow?ms=3000")):
    try:
        call()
        out.append(None)
    except Exception as e:
        out.append([type(e).__module__ + "." + type(e).__name__, str(e)])
print(json.dumps(out))
""")
    assert got[0] == 10_000
    (t1, m1), (t2, m2), (t3, m3), (t4, m4), (t5, m5) = got[1:]
    assert t1 == "urllib.error.URLError" and "max_response_bytes" in m1, got
    assert t2 == "requests.exceptions.ConnectionError" and "max_response_bytes" in m2, got
    # A response that does not come in time is a read timeout, as on a socket.
    assert t3 == "builtins.HTTPTimeout" and "timeout" in m3, got
    assert t4 == "requests.exceptions.ReadTimeout" and "timeout" in m4, got
    assert t5 == "httpx.ReadTimeout" and "timeout" in m5, got


def test_client_timeouts_end_the_wait(http: Server, packages: Path):
    with Sandbox(network=policy(http.url), python_packages=[packages], timeout=30) as sb:
        got = run(sb, f"""
import json, time, urllib.request, requests, httpx
out = []
for call in (lambda: urllib.request.urlopen("{http.url}/slow?ms=3000", timeout=0.3),
             lambda: requests.get("{http.url}/slow?ms=3000", timeout=0.3),
             lambda: httpx.get("{http.url}/slow?ms=3000", timeout=0.3)):
    t = time.monotonic()
    try:
        call()
        out.append(None)
    except Exception as e:
        out.append([type(e).__name__, time.monotonic() - t < 2])
async def main():
    async with httpx.AsyncClient(timeout=0.3) as c:
        return await asyncio.gather(c.get("{http.url}/slow?ms=3000"), c.get("{http.url}/json"), return_exceptions=True)
slow, fast = asyncio.run(main())
out.append([type(slow).__name__, fast.status_code])
# A short connect timeout and a long enough read timeout: the response may take the read timeout.
out.append(requests.get("{http.url}/slow?ms=800", timeout=(0.2, 5)).json())
print(json.dumps(out))
""")
    assert got == [["HTTPTimeout", True], ["ReadTimeout", True], ["ReadTimeout", True], ["ReadTimeout", 200], {"slow": 800}]


def test_bypassing_the_prelude_gains_nothing(http: Server):
    """The host decides every request: raw host calls (no client, no prelude) and a Host header
    naming another host are refused as the clients' requests are."""
    http.seen.clear()
    with Sandbox(network=policy(f"GET {http.url}/json")) as sb:
        got = run(sb, f"""
import _amla, json
answers = []
for req in ({{"method": "GET", "url": "{http.url}/echo"}}, {{"method": "GET", "url": "http://example.com/"}},
            {{"method": "CONNECT", "url": "{http.url}/json"}}):
    _amla.submit(json.dumps({{"method": "http", "params": req}}).encode())
    answers.append(_amla.wait(-1).split(b"\\n")[0].decode())
print(json.dumps([[json.loads(a)["ok"] for a in answers], [json.loads(a)["error"][:60] for a in answers]]))
""")
    oks, errors = got
    assert oks == [False, False, False], got
    assert all(e.startswith("network policy: refused by the") for e in errors), got
    with Sandbox(network=policy(f"GET {http.url}/json")) as sb:
        got = error_of(sb, f'c = http.client.HTTPConnection("127.0.0.1", {http.port}); '
                           'c.request("GET", "/json", headers={"Host": "example.com"})', "import http.client")
    assert got["raised"] == "builtins.HTTPRefused" and "refused by the header check" in got["message"], got
    assert http.seen == []


def test_a_recorded_python_run_replays_with_the_server_gone(packages: Path):
    server = serve(tls=True)
    secrets = {"TOKEN": {"value": SECRET, "hosts": ["127.0.0.1"]}}
    pol = policy(f"GET {server.url}/**", secrets=secrets, extra_ca_certs=server.ca_pem)
    code = f"""
import json, os, random, urllib.request, requests, httpx
u = json.load(urllib.request.urlopen("{server.url}/echo?x=" + str(random.random())))
r = requests.get("{server.url}/echo", params={{"y": random.random()}}, headers={{"x-token": os.environ["TOKEN"]}}).json()
async def main():
    async with httpx.AsyncClient() as c:
        return await asyncio.gather(*(c.get("{server.url}/echo", params={{"z": i}}) for i in range(3)))
rs = asyncio.run(main())
print(u["query"], r["query"], r["headers"]["x-token"] == os.environ["TOKEN"], [x.json()["query"] for x in rs])
"""
    with Sandbox(network=pol, record=True, durable_key=b"k" * 32, python_packages=[packages]) as sb:
        first = sb.python(code)
        journal = sb.last_result.journal
        assert sb.last_result.exit_code == 0, sb.last_stderr
    server.close()
    assert SECRET.encode() not in journal and "True" in first
    assert [s.headers.get("x-token") for s in server.seen] == [None, SECRET, None, None, None]
    stand_in = policy(f"GET {server.url}/**", secrets={"TOKEN": {"value": "not-the-secret", "hosts": ["127.0.0.1"]}})
    replayed = Sandbox.replay(journal, network=stand_in, durable_key=b"k" * 32, python_packages=[packages])
    assert replayed.last_result.stdout == first and replayed.last_result.exit_code == 0, replayed.last_result.stderr
    replayed.close()


def test_large_bodies_are_not_copied_into_a_small_memory_limit(http: Server, packages: Path):
    """A 6 MiB body under memory_limit=64 MiB (about 30 MiB of which is the interpreter): the body
    is decoded from the host's answer once and handed to urllib's caller without further copies
    (decoding the answer as JSON, then base64, then joining it to the head ran out at 4 MiB).
    httpx, imported too, leaves less room."""
    MiB = 1 << 20
    with Sandbox(network=policy(http.url, max_response_bytes=8 * MiB), memory_limit=64 * MiB,
                 python_packages=[packages]) as sb:
        got = run(sb, f"""
import json, urllib.request
print(json.dumps(len(urllib.request.urlopen("{http.url}/big?n={6 * MiB}").read())))
""")
        assert got == 6 * MiB
        got = run(sb, f"""
import json, httpx
print(json.dumps(len(httpx.get("{http.url}/big?n={4 * MiB}").content)))
""")
        assert got == 4 * MiB


def test_urllib3_does_not_retry_what_the_policy_refused(http: Server, packages: Path):
    """urllib3's default of 3 retries would send a refused request 4 times (4 refusals in the
    journal): it is raised at once, as an error urllib3 may not retry; a network failure (a port
    nothing listens on) is retried as ever."""
    closed = serve()
    closed.close()
    with Sandbox(network=policy(f"GET {http.url}/json", f"GET {closed.url}/**"), python_packages=[packages]) as sb:
        got = run(sb, f"""
import json, urllib3
pool = urllib3.PoolManager()
out = []
for url in ("{http.url}/admin", "{closed.url}/x"):
    try:
        pool.request("GET", url)
    except Exception as e:
        out.append([type(e).__name__, "refused by the allow check" in str(e)])
print(json.dumps(out))
""")
        calls = [c.method for c in sb.last_result.tool_calls]
    assert got == [["ProtocolError", True], ["MaxRetryError", False]], got
    assert calls.count(f"http/GET/127.0.0.1:{http.port}/admin") == 1, calls
    assert calls.count(f"http/GET/127.0.0.1:{closed.port}/x") == 4, calls


def test_a_request_the_script_gave_up_on_is_stopped(http: Server, packages: Path):
    """A client's timeout, or a cancelled task, stops the request in the host (http_cancel): with
    max_concurrent=1 the next request does not wait for the abandoned one's 3 s."""
    with Sandbox(network=policy(http.url, max_concurrent=1), python_packages=[packages], timeout=30) as sb:
        got = run(sb, f"""
import json, time, urllib.request, httpx
out = []
for give_up in (lambda: urllib.request.urlopen("{http.url}/slow?ms=3000", timeout=0.3),
                lambda: httpx.get("{http.url}/slow?ms=3000", timeout=0.3),
                lambda: asyncio.run(asyncio.wait_for(httpx.AsyncClient().get("{http.url}/slow?ms=3000"), 0.3))):
    try:
        give_up()
    except Exception as e:
        out.append(type(e).__name__)
    t = time.monotonic()
    urllib.request.urlopen("{http.url}/json").read()
    out.append(time.monotonic() - t < 1.5)
print(json.dumps(out))
""")
    assert got == ["HTTPTimeout", True, "ReadTimeout", True, "TimeoutError", True], got
