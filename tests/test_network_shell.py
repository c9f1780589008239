"""The shell's curl and wget under a network policy (docs/shell.md, docs/network.md), through
the public API, against real HTTP and HTTPS servers on 127.0.0.1 (tests/_netserver.py): what
is sent, what is refused and why (curl's exit statuses), redirects followed by the guest with
every hop checked again, output files under the disk quota, and secrets that the shell only
ever sees as placeholders."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from amla_sandbox import HttpRule, NetworkPolicy, Sandbox, create_sandbox_tool

sys.path.insert(0, str(Path(__file__).parent))
from _netserver import Server, serve  # noqa: E402
from _netserver import local_policy as policy  # noqa: E402

SECRET = "s3cr3t-shell-token-77"


@pytest.fixture(scope="module")
def http() -> Any:
    with serve() as s:
        yield s


@pytest.fixture(scope="module")
def https() -> Any:
    with serve(tls=True) as s:
        yield s


def sh(sb: Sandbox, script: str) -> tuple[int, str, str]:
    """Runs a shell script; gives its exit status, stdout and stderr."""
    out = sb.execute(script, language="shell")
    return sb.last_result.exit_code, out, sb.last_result.stderr


def test_get_post_json_and_headers(http: Server):
    with Sandbox(network=policy(f"{http.url}")) as sb:
        status, out, err = sh(sb, f"""
            curl -s {http.url}/json; echo
            curl -s -d 'a=1' -d 'b=two' {http.url}/echo; echo
            curl -s --json '{{"n": 2}}' -H 'X-Trace: t-1' {http.url}/echo; echo
            curl -s -X PUT --data-binary 'raw' {http.url}/echo | jq -r .method
            curl -s -G --data-urlencode 'q=a b' {http.url}/echo | jq -c .query
        """)
    assert status == 0, err
    lines = out.splitlines()
    assert json.loads(lines[0]) == {"ok": True, "n": 1}
    form = json.loads(lines[1])
    assert form["method"] == "POST" and form["body"] == "a=1&b=two"
    assert form["headers"]["content-type"] == "application/x-www-form-urlencoded"
    assert form["headers"]["user-agent"].startswith("curl/")
    sent = json.loads(lines[2])
    assert json.loads(sent["body"]) == {"n": 2} and sent["headers"]["x-trace"] == "t-1"
    assert sent["headers"]["content-type"] == "application/json" and sent["headers"]["accept"] == "application/json"
    assert lines[3:] == ["PUT", '{"q":"a b"}']


def test_https_with_the_test_ca_and_wget(https: Server):
    with Sandbox(network=policy(f"GET {https.url}/**", extra_ca_certs=https.ca_pem)) as sb:
        status, out, err = sh(sb, f"""
            curl -sS {https.url}/json | jq -c .
            wget -q -O - {https.url}/json | jq .n
            wget -q {https.url}/json && cat json
        """)
    assert status == 0, err
    assert out.splitlines() == ['{"n":1,"ok":true}', "1", '{"ok": true, "n": 1}']


def test_fail_write_out_include_and_head(http: Server):
    with Sandbox(network=policy(f"{http.url}")) as sb:
        status, out, err = sh(sb, f"""
            curl -s -o /dev/null -w '%{{http_code}} %{{content_type}} %{{size_download}}\\n' {http.url}/json
            curl -sS -f {http.url}/status/404; echo "f=$?"
            curl -s {http.url}/status/500 -w '%{{http_code}}\\n'; echo "plain=$?"
            curl -sI {http.url}/json | head -1
            curl -si {http.url}/json | tail -1
        """)
    assert status == 0, err
    assert out.split("\n") == ["200 application/json 20", "f=22", "500", "plain=0", "HTTP/1.1 200 OK\r",
                                '{"ok": true, "n": 1}']
    assert err == "curl: (22) The requested URL returned error: 404\n"


def test_redirects_are_followed_by_the_guest_and_every_hop_is_checked(http: Server):
    before = len(http.seen)
    with Sandbox(network=policy(f"GET {http.url}/**")) as sb:
        status, out, err = sh(sb, f"""
            curl -s -o /dev/null -w '%{{http_code}} %{{redirect_url}}\\n' '{http.url}/redirect?to=/json'
            curl -sL -w '\\n%{{http_code}} %{{num_redirects}} %{{url_effective}}\\n' '{http.url}/redirect?to=/json'
            curl -sSL '{http.url}/redirect?to=http://example.com/x'; echo "away=$?"
            curl -sSL --max-redirs 2 '{http.url}/redirect?to=/redirect%3Fto%3D/redirect%253Fto%253D/json'; echo "max=$?"
        """)
    lines = out.splitlines()
    assert status == 0, err
    assert lines[0] == f"302 {http.url}/json"
    assert lines[1:3] == ['{"ok": true, "n": 1}', f"200 1 {http.url}/json"]
    assert lines[3] == "away=7" and lines[4] == "max=47"
    assert "curl: (7) network policy: refused by the allow check" in err and "example.com" in err
    assert "curl: (47) Maximum (2) redirects followed" in err
    # Each hop was a request of its own; the refused one never left.
    paths = [s.path for s in http.seen[before:]]
    assert paths[:3] == ["/redirect?to=/json", "/redirect?to=/json", "/json"]
    assert not any("example.com" in s.headers.get("host", "") for s in http.seen)


def test_a_refused_verb_names_the_rule(http: Server):
    rule = f"GET {http.url}/**"
    with Sandbox(network=policy(rule)) as sb:
        status, out, err = sh(sb, f"curl -X DELETE {http.url}/json")
        wstatus, _, werr = sh(sb, f"wget --post-data x=1 -O - {http.url}/json")
    assert status == 7 and out == ""
    assert err.startswith("curl: (7) network policy: refused by the allow check") and rule in err, err
    assert wstatus == 4 and "refused by the allow check" in werr


def test_the_langchain_tool_with_a_network_policy(http: Server):
    rule = HttpRule(f"{http.url}/json")
    tool = create_sandbox_tool(network=NetworkPolicy(allow=[rule], allow_private=["127.0.0.1"]))
    out = tool.run(f"curl -s {http.url}/json | jq .n; curl -sS -X POST {http.url}/json; echo status=$?", language="shell")
    assert out.startswith("1\nstatus=7\n"), out
    assert f"curl: (7) network policy: refused by the allow check: no rule allows this request; rules: GET {http.url}/json" in out


def test_no_network_policy_refuses_every_request(http: Server):
    with Sandbox() as sb:
        status, _, err = sh(sb, f"curl {http.url}/json")
    assert status == 7 and err.startswith("curl: (7) ") and "network" in err


def test_output_files_go_through_the_disk_quota(http: Server):
    with Sandbox(network=policy(f"GET {http.url}/**"), disk_quota=256 * 1024) as sb:
        status, out, err = sh(sb, f"""
            curl -s -o small.json {http.url}/json && cat small.json; echo
            curl -s -O {http.url}/json && wc -c < json
            curl -sS -o big.bin '{http.url}/big?n=400000'; echo "big=$?"
            wget -q -O big2.bin '{http.url}/big?n=400000'; echo "wget=$?"
        """)
    lines = out.splitlines()
    assert status == 0, err
    assert lines[:2] == ['{"ok": true, "n": 1}', "20"]
    assert lines[2:] == ["big=23", "wget=3"]
    assert "curl: (23) Failure writing output to destination: big.bin: No space left on device" in err


def test_timeouts_and_response_size(http: Server):
    with Sandbox(network=policy(f"GET {http.url}/**", timeout=0.5, max_response_bytes=1000)) as sb:
        status, out, err = sh(sb, f"""
            curl -sS --max-time 0.2 '{http.url}/slow?ms=3000'; echo "max-time=$?"
            curl -sS '{http.url}/slow?ms=3000'; echo "host-timeout=$?"
            curl -sS '{http.url}/big?n=5000'; echo "size=$?"
        """)
    assert status == 0, err
    assert out.splitlines() == ["max-time=28", "host-timeout=28", "size=63"]
    first, second, third = err.splitlines()
    # --max-time is the guest's own bound (it stops waiting for the host's answer), the
    # policy's timeout the host's: both are curl's status 28.
    assert first.startswith("curl: (28) Operation timed out after ") and first.endswith(" milliseconds with 0 bytes received")
    assert second.startswith("curl: (28) network policy: refused by the timeout check")
    assert third.startswith("curl: (63) network policy: refused by the max_response_bytes check")


def test_a_secret_placeholder_from_the_environment_is_substituted_and_scrubbed(http: Server, https: Server):
    secrets = {"TOKEN": {"value": SECRET, "hosts": ["127.0.0.1"]}}
    pol = policy(f"{https.url}", f"{http.url}", secrets=secrets, extra_ca_certs=https.ca_pem)
    with Sandbox(network=pol) as sb:
        status, out, err = sh(sb, f"""
            echo "env=$TOKEN"
            curl -sS -H "Authorization: Bearer $TOKEN" {https.url}/echo | jq -r .headers.authorization
            curl -sS -u "me:$TOKEN" {https.url}/echo | jq -r .headers.authorization
            curl -sS -H "Authorization: Bearer $TOKEN" {http.url}/echo; echo "plain=$?"
        """)
    assert status == 0, err
    assert SECRET not in out and SECRET not in err
    lines = out.splitlines()
    placeholder = lines[0].removeprefix("env=")
    assert placeholder.startswith("amla_secret_TOKEN_")
    # The server saw the value; the shell saw only the placeholder, also in the echo.
    assert lines[1] == "Bearer " + placeholder
    # Basic credentials carry the value base64-encoded; the echo comes back scrubbed.
    assert lines[2].startswith("Basic ") and placeholder in lines[2]
    assert lines[3] == "plain=7"
    assert "refused by the secret check" in err  # never over plain http
    seen = [s.headers.get("authorization") for s in https.seen]
    assert "Bearer " + SECRET in seen and "Basic " + base64.b64encode(f"me:{SECRET}".encode()).decode() in seen
    assert all(SECRET not in (s.headers.get("authorization") or "") for s in http.seen)


def test_a_recorded_curl_run_replays_with_the_server_gone():
    server = serve()
    pol = policy(f"{server.url}")
    code = f"""
        curl -s {server.url}/json; echo
        curl -s -F 'a=1' {server.url}/echo | jq -r .method
        curl -sL '{server.url}/redirect?to=/status/204' -w '%{{http_code}} %{{num_redirects}}\\n'
    """
    with Sandbox(network=pol, record=True, durable_key=b"k" * 32) as sb:
        first = sb.execute(code, language="shell")
        journal = sb.last_result.journal
    server.close()
    assert first == '{"ok": true, "n": 1}\nPOST\n204 1\n'
    replayed = Sandbox.replay(journal, network=pol, durable_key=b"k" * 32)
    assert replayed.last_result.stdout == first and replayed.last_result.exit_code == 0
