"""Issue 26: the network floor against a script that tries to reach what its policy does not
name. The server is real (tests/_netserver.py on 127.0.0.1); the policy allows any host on its
port but names no private address, so every way of spelling loopback must be refused before a
connection is made (the server sees nothing), and a redirect cannot lead there either. A script
that starts many large downloads without reading them gets refusals, not a host holding them all.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from _hostile import ChildRun, check_child, spawn_many

from amla_sandbox import Sandbox

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _netserver import Server, serve  # noqa: E402

MiB = 1024 * 1024


@pytest.fixture(scope="module")
def server() -> Any:
    with serve() as s:
        yield s


def fetch_outcome(sb: Sandbox, url: str) -> dict[str, Any]:
    out = sb.execute(f"""
        try {{ const r = await fetch({json.dumps(url)}); return {{ status: r.status }}; }}
        catch (e) {{ return {{ check: e.cause && e.cause.check, message: e.cause && e.cause.message }}; }}
    """)
    assert sb.last_result.exit_code == 0, sb.last_result.stderr
    return json.loads(out)


# Spellings of 127.0.0.1 (and other special-purpose addresses) that name resolution or URL
# parsers accept. Each is refused by the host check (an ambiguous numeric form) or the address
# check (the address it resolves to).
LOOPBACK_SPELLINGS = [
    "http://2130706433:{port}/json",
    "http://0x7f.1:{port}/json",
    "http://0x7f000001:{port}/json",
    "http://0177.0.0.1:{port}/json",
    "http://127.1:{port}/json",
    "http://127.0.0.1:{port}/json",
    "http://[::ffff:127.0.0.1]:{port}/json",
    "http://[::ffff:7f00:1]:{port}/json",
    "http://[::1]:{port}/json",
    "http://[64:ff9b::7f00:1]:{port}/json",
    "http://localhost:{port}/json",
    "http://169.254.169.254:{port}/latest/meta-data/",
    "http://0.0.0.0:{port}/json",
]


@pytest.mark.parametrize("spelling", LOOPBACK_SPELLINGS)
def test_loopback_in_any_spelling_is_refused_without_allow_private(server: Server, spelling: str):
    url = spelling.format(port=server.port)
    with Sandbox(network={"allow": [f"GET http://*:{server.port}/**"]}) as sb:
        before = len(server.seen)
        got = fetch_outcome(sb, url)
    assert got.get("check") in {"address", "host", "url"}, (url, got)
    assert len(server.seen) == before, f"{url} reached the server"


def test_a_redirect_cannot_lead_to_an_address_the_policy_does_not_name(server: Server):
    target = f"http://127.0.0.2:{server.port}/json"
    policy = {"allow": [f"GET http://*:{server.port}/**"], "allow_private": ["127.0.0.1"]}
    with Sandbox(network=policy) as sb:
        got = fetch_outcome(sb, f"{server.url}/redirect?to={target}")
    assert got == {"check": "address", "message": got["message"]} and "127.0.0.2" in got["message"], got


def test_a_secret_never_goes_to_a_host_it_does_not_name(server: Server):
    policy = {"allow": [f"GET http://*:{server.port}/**"], "allow_private": ["127.0.0.1"],
              "secrets": {"KEY": {"value": "the-real-key-value", "hosts": ["api.example.com"]}}}
    with Sandbox(network=policy) as sb:
        before = len(server.seen)
        out = sb.execute(f"""
            const tries = [
              fetch('{server.url}/echo', {{ headers: {{ 'x-key': process.env.KEY }} }}),
              fetch('{server.url}/echo?k=' + process.env.KEY),
              fetch('http://' + process.env.KEY + ':{server.port}/echo'),
            ];
            return await Promise.all(tries.map(p => p.then(r => r.status, e => e.cause.check)));
        """)
    assert json.loads(out) == ["secret", "secret", "secret"], out
    assert len(server.seen) == before


SCENARIO = r'''
import subprocess, sys
# The server runs in a process of its own, so its memory is not the host's.
proc = subprocess.Popen([sys.executable, TESTS_DIR + "/_netserver.py"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
class server:
    url = proc.stdout.readline().strip()
MiB = 1024 * 1024
sb = Sandbox(network={"allow": [f"GET {server.url}/**"], "allow_private": ["127.0.0.1"], "max_concurrent": 8,
                      "max_response_bytes": 8 * MiB},
             memory_limit=64 * MiB, timeout=60)
sb.execute("console.log(1)")
# 60 downloads of 6 MB each, none read until all have settled: 360 MB of bodies (480 MB as the
# host holds them, base64 in JSON) if the host kept every one.
code = f"""
const ps = Array.from({{length: 60}}, () => fetch('{server.url}/big?n=6000000').then(r => 'ok', e => e.cause.check));
const got = await Promise.all(ps);
console.log(JSON.stringify({{ok: got.filter(x => x === 'ok').length, refused: got.filter(x => x === 'memory_limit').length}}));
"""
emit(first=measure_rss(lambda: sb.execute(code)), stderr=sb.last_result.stderr[-500:])
emit(after=attempt(lambda: sb.execute(f"console.log((await fetch('{server.url}/json')).status)")))
'''


@pytest.fixture(scope="module")
def downloads() -> ChildRun:
    code = SCENARIO.replace("TESTS_DIR", repr(str(Path(__file__).resolve().parent.parent)))
    return spawn_many({"downloads": code}, 180.0, workers=1)["downloads"]


def test_unread_responses_stay_within_memory_limit(downloads: ChildRun):
    child = check_child(downloads)
    first = child["first"]
    assert first["ok"], (first, child.get("stderr"))
    grew = first["rss_peak"] - first["rss_before"]
    # The guest's own memory (up to memory_limit) and the host's charged answers (up to
    # memory_limit), plus the garbage collector's slack.
    assert grew <= 2 * 64 * MiB + 96 * MiB, f"host RSS grew {grew / MiB:.0f} MiB for 60 unread 6 MB downloads under memory_limit=64 MiB"
    counts = json.loads(first["value"])
    assert counts["ok"] + counts["refused"] == 60 and counts["ok"] > 0, counts
    assert child["after"]["ok"] and child["after"]["value"].strip() == "200", child["after"]
