"""JavaScript's fetch under a network policy (docs/network.md), through the public API, against
real HTTP and HTTPS servers on 127.0.0.1 (tests/_netserver.py): what is allowed and refused and
why, budgets, approval, secrets, redirects, concurrency, limits, journals and replay."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from amla_sandbox import Sandbox, create_sandbox_tool

sys.path.insert(0, str(Path(__file__).parent))
from _netserver import Server, serve  # noqa: E402
from _netserver import local_policy as policy  # noqa: E402

SECRET = "s3cr3t-token-value-42"


@pytest.fixture(scope="module")
def http() -> Any:
    with serve() as s:
        yield s


@pytest.fixture(scope="module")
def https() -> Any:
    with serve(tls=True) as s:
        yield s


def run(sb: Sandbox, code: str) -> Any:
    """Runs code that returns a value and gives that value (the run must succeed)."""
    out = sb.execute(code)
    assert sb.last_result.exit_code == 0, sb.last_result.stderr
    return json.loads(out)


def refusal(sb: Sandbox, url: str, init: str = "{}") -> dict[str, Any]:
    return run(sb, f"""
        try {{ await fetch({json.dumps(url)}, {init}); return {{ resolved: true }}; }}
        catch (e) {{ return {{ name: e.name, message: e.message, cause: e.cause && e.cause.message,
                              check: e.cause && e.cause.check, rule: e.cause && e.cause.rule }}; }}
    """)


def test_get_json_text_status_and_headers(http: Server):
    with Sandbox(network=policy(f"GET {http.url}/**")) as sb:
        got = run(sb, f"""
            const r = await fetch('{http.url}/json');
            const miss = await fetch('{http.url}/status/404');
            return [r.status, r.ok, r.headers.get('content-type'), await r.json(), miss.status, miss.ok, r.url];
        """)
    assert got == [200, True, "application/json", {"ok": True, "n": 1}, 404, False, f"{http.url}/json"]


def test_post_json_over_https_with_a_test_ca(https: Server):
    rule = {"url": f"{https.url}/echo", "methods": ["POST"]}
    with Sandbox(network=policy(rule, extra_ca_certs=https.ca_pem)) as sb:
        got = run(sb, f"""
            const r = await fetch('{https.url}/echo', {{ method: 'POST', headers: {{ 'content-type': 'application/json' }},
                                                       body: JSON.stringify({{ a: 1 }}) }});
            return await r.json();
        """)
    assert got["method"] == "POST" and json.loads(got["body"]) == {"a": 1}


def test_https_without_the_ca_fails_naming_the_certificate(https: Server):
    with Sandbox(network=policy(f"GET {https.url}/**")) as sb:
        got = refusal(sb, f"{https.url}/json")
    assert got["message"] == "fetch failed" and "certificate" in got["cause"], got


@pytest.mark.parametrize(
    "rule, url, init, check",
    [
        ("GET {base}/json", "http://example.com/", "{}", "allow"),
        ("GET {base}/json", "{base}/echo", "{}", "allow"),
        ("GET {base}/json", "{base}/json", "{method: 'DELETE'}", "allow"),
        ("GET {base}/**", "http://127.0.0.1:1/json", "{}", "port"),
    ],
)
def test_refusals_name_the_check_and_the_rules(http: Server, rule: str, url: str, init: str, check: str):
    with Sandbox(network=policy(rule.format(base=http.url))) as sb:
        before = len(http.seen)
        got = refusal(sb, url.format(base=http.url), init)
    assert got["name"] == "TypeError" and got["message"] == "fetch failed"
    assert got["check"] == check and f"refused by the {check} check" in got["cause"], got
    if check == "allow":
        assert rule.format(base=http.url) in got["cause"]  # the rules are listed
    assert len(http.seen) == before  # nothing left the sandbox


def test_body_constraints_budgets_and_tool_calls(http: Server):
    rule = {"url": f"{http.url}/echo", "methods": ["POST"], "constraints": {"json/amount": "<=5000"}, "max_calls": 2}
    with Sandbox(network=policy(rule)) as sb:
        got = run(sb, f"""
            const send = (amount) => fetch('{http.url}/echo', {{ method: 'POST', headers: {{ 'content-type': 'application/json' }},
                                                               body: JSON.stringify({{ amount }}) }})
              .then(r => r.status, e => e.cause.check);
            return [await send(100), await send(9000), await send(200), await send(300)];
        """)
        calls = sb.last_result.tool_calls
    assert got == [200, "constraint", 200, "max_calls"]
    methods = [c.method for c in calls]
    assert methods == [f"http/POST/127.0.0.1:{http.port}/echo"] * 4


def test_an_http_capability_grants_and_a_wildcard_one_does_not(http: Server):
    from amla_sandbox import MethodCapability

    granted = Sandbox(network={"allow": [], "allow_private": ["127.0.0.1"]},
                      capabilities=[MethodCapability(method_pattern=f"http/GET/127.0.0.1:{http.port}/**", max_calls=1)])
    with granted:
        got = run(granted, f"""
            const a = await fetch('{http.url}/json').then(r => r.status, e => e.cause.message);
            const b = await fetch('{http.url}/json').then(r => r.status, e => e.cause.message);
            return [a, b];
        """)
    assert got[0] == 200 and "refused by the allow check" in got[1] and "max 1 calls" in got[1]
    # A rule for another path names the port, so only the grant is missing.
    everything = Sandbox(network=policy(f"GET {http.url}/nothing"), capabilities=[MethodCapability(method_pattern="**")])
    with everything:
        assert refusal(everything, f"{http.url}/json")["check"] == "allow"


def test_no_policy_means_no_network_even_with_every_capability(http: Server):
    with Sandbox() as sb:
        got = refusal(sb, f"{http.url}/json")
    assert got["check"] == "network" and "no network policy" in got["cause"]


def test_approval_handler_sees_the_request_as_a_capability_call(http: Server):
    asked: list[tuple[str, dict[str, Any]]] = []

    def approve(method: str, params: dict[str, Any]) -> bool:
        asked.append((method, params))
        return params["json"]["amount"] < 1000

    rule = {"url": f"{http.url}/echo", "methods": ["POST"], "require_approval": True}
    tool = create_sandbox_tool(network=policy(rule), approval_handler=approve)
    out = tool.run(f"""
        const send = (amount) => fetch('{http.url}/echo', {{ method: 'POST', headers: {{ 'content-type': 'application/json' }},
                                                           body: JSON.stringify({{ amount }}) }})
          .then(r => r.status, e => e.cause.check + ': ' + e.cause.message);
        console.log(JSON.stringify([await send(10), await send(5000)]));
    """, language="javascript")
    got = json.loads(out)
    assert got[0] == 200 and got[1].startswith("approval: ") and "not approved" in got[1]
    assert [m for m, _ in asked] == [f"http/POST/127.0.0.1:{http.port}/echo"] * 2
    assert asked[0][1]["json"] == {"amount": 10} and asked[0][1]["method"] == "POST"


def test_secrets_are_substituted_for_their_host_and_scrubbed_from_answers(http: Server, https: Server):
    secrets = {"TOKEN": {"value": SECRET, "hosts": ["127.0.0.1"]}}
    with Sandbox(network=policy(f"{https.url}", f"{http.url}", secrets=secrets, extra_ca_certs=https.ca_pem)) as sb:
        got = run(sb, f"""
            const env = process.env.TOKEN;
            const r = await fetch('{https.url}/echo', {{ headers: {{ authorization: 'Bearer ' + env }} }});
            const echoed = (await r.json()).headers.authorization;
            const plain = await fetch('{http.url}/echo', {{ headers: {{ authorization: 'Bearer ' + env }} }})
              .then(r => 'sent', e => e.cause.check);
            const inBody = await fetch('{https.url}/echo', {{ method: 'POST', body: env }}).then(r => 'sent', e => e.cause.check);
            return [env, echoed, plain, inBody];
        """)
    placeholder, echoed, plain, in_body = got
    assert placeholder.startswith("amla_secret_TOKEN_") and SECRET not in placeholder
    assert echoed == "Bearer " + placeholder  # the server saw the value; the script sees the placeholder
    assert https.seen[-1].headers["authorization"] == "Bearer " + SECRET
    assert plain == "secret" and in_body == "secret"  # never over http, never where `where` leaves out
    assert all(SECRET not in (s.headers.get("authorization") or "") for s in http.seen)


def test_redirects_are_followed_by_the_guest_and_every_hop_is_checked(http: Server):
    with Sandbox(network=policy(f"GET {http.url}/**")) as sb:
        got = run(sb, f"""
            const to = (u, mode) => fetch('{http.url}/redirect?to=' + encodeURIComponent(u), {{ redirect: mode }});
            const followed = await to('{http.url}/json');
            const manual = await to('{http.url}/json', 'manual');
            const away = await to('http://example.com/x').then(r => r.status, e => e.cause.check);
            const err = await to('{http.url}/json', 'error').then(r => r.status, e => e.cause.message);
            return [followed.status, followed.redirected, followed.url, manual.status, away, err];
        """)
    assert got == [200, True, f"{http.url}/json", 302, "allow", "unexpected redirect"]


def test_requests_made_together_are_in_flight_together(http: Server):
    with Sandbox(network=policy(f"GET {http.url}/**", max_concurrent=8)) as sb:
        started = time.monotonic()
        got = run(sb, f"""
            const all = await Promise.all(Array.from({{ length: 8 }}, () => fetch('{http.url}/slow?ms=400').then(r => r.json())));
            return all.length;
        """)
        took = time.monotonic() - started
    # One at a time would take 3.2 s; the bound is loose for a loaded machine.
    assert got == 8 and took < 2.5, took


def test_limits_response_size_timeout_and_request_count(http: Server):
    with Sandbox(network=policy(f"GET {http.url}/**", max_response_bytes=1000, timeout=0.3, max_requests=3)) as sb:
        got = run(sb, f"""
            const check = (u) => fetch('{http.url}' + u).then(r => r.status, e => e.cause.check);
            return [await check('/big?n=1000'), await check('/big?n=1001'), await check('/slow?ms=2000'), await check('/json')];
        """)
    assert got == [200, "max_response_bytes", "timeout", "max_requests"]


def test_a_cancelled_run_ends_its_requests(http: Server):
    with Sandbox(network=policy(f"GET {http.url}/**"), timeout=1.0) as sb:
        started = time.monotonic()
        sb.execute(f"await fetch('{http.url}/slow?ms=20000');")
        took = time.monotonic() - started
        assert sb.last_result.exit_code != 0 and took < 10, took
        # The sandbox goes on working.
        assert run(sb, f"return (await fetch('{http.url}/json')).status") == 200


def test_a_recorded_run_replays_with_the_server_gone():
    server = serve(tls=True)
    secrets = {"TOKEN": {"value": SECRET, "hosts": ["127.0.0.1"]}}
    pol = policy(f"GET {server.url}/**", secrets=secrets, extra_ca_certs=server.ca_pem)
    code = f"""
        const r = await fetch('{server.url}/echo?x=' + Math.random(), {{ headers: {{ 'x-token': process.env.TOKEN }} }});
        console.log(r.status, JSON.stringify((await r.json()).query));
    """
    with Sandbox(network=pol, record=True, durable_key=b"k" * 32) as sb:
        first = sb.execute(code)
        journal = sb.last_result.journal
    server.close()
    assert first.startswith("200 ") and server.seen[-1].headers["x-token"] == SECRET
    assert SECRET.encode() not in journal
    stand_in = policy(f"GET {server.url}/**", secrets={"TOKEN": {"value": "not-the-secret", "hosts": ["127.0.0.1"]}})
    replayed = Sandbox.replay(journal, network=stand_in, durable_key=b"k" * 32)
    assert replayed.last_result.stdout == first and replayed.last_result.exit_code == 0
    with pytest.raises(Exception, match="network policy"):
        Sandbox.replay(journal, durable_key=b"k" * 32)


def test_a_tool_named_fetch_still_replaces_the_global(http: Server):
    def fetch(url: str) -> str:
        """Fetch through the application."""
        return "from the tool: " + url

    tool = create_sandbox_tool(tools=[fetch], network=policy(f"GET {http.url}/**"))
    assert "from the tool: x" in tool.run("console.log(await fetch({url: 'x'}))", language="javascript")


def test_rule_budgets_travel_in_snapshots_and_forks(http: Server):
    pol = policy({"url": f"{http.url}/json", "max_calls": 1})
    code = f"return await fetch('{http.url}/json').then(r => r.status, e => e.cause.check)"
    with Sandbox(network=pol) as sb:
        assert sb.execute(code) == "200\n"
        snap = sb.snapshot()
        with sb.fork() as child:
            assert child.execute(code) == "max_calls\n"
    with Sandbox.from_snapshot(snap, network=pol) as restored:
        assert restored.execute(code) == "max_calls\n"


def test_injected_headers_carry_a_hidden_secret_the_script_never_sees(https: Server):
    secrets = {"STRIPE": {"value": SECRET, "hosts": ["127.0.0.1"], "expose": False}}
    inject = {"127.0.0.1": {"Authorization": "Bearer {STRIPE}"}}
    pol = policy(f"{https.url}", secrets=secrets, inject_headers=inject, extra_ca_certs=https.ca_pem)
    with Sandbox(network=pol) as sb:
        got = run(sb, f"""
            const r = await fetch('{https.url}/echo', {{ headers: {{ authorization: 'Bearer mine' }} }});
            return [Object.keys(process.env).filter(k => k.includes('STRIPE')), (await r.json()).headers.authorization];
        """)
    assert got[0] == [] and got[1].startswith("Bearer amla_secret_STRIPE_")  # scrubbed on the way back
    assert https.seen[-1].headers["authorization"] == "Bearer " + SECRET  # the host's header replaced the script's


def test_abort_signal_timeout_cancels_a_slow_fetch(http: Server):
    with Sandbox(network=policy(f"GET {http.url}/**")) as sb:
        started = time.monotonic()
        got = sb.execute(f"""
            try {{ await fetch('{http.url}/slow?ms=3000', {{ signal: AbortSignal.timeout(200) }}); return 'resolved'; }}
            catch (e) {{ return e.name; }}
        """).strip()
        took = time.monotonic() - started
    assert got == "TimeoutError" and took < 2.5, (got, took)


def test_authorization_is_dropped_on_a_cross_origin_redirect(http: Server, https: Server):
    pol = policy(f"GET {http.url}/**", f"GET {https.url}/**", extra_ca_certs=https.ca_pem)
    with Sandbox(network=pol) as sb:
        got = run(sb, f"""
            const hop = (to) => fetch('{http.url}/redirect?to=' + encodeURIComponent(to),
                                      {{ headers: {{ authorization: 'Bearer t', 'x-other': 'kept' }} }}).then(r => r.json());
            const same = await hop('{http.url}/echo');
            const cross = await hop('{https.url}/echo');
            return [same.headers.authorization ?? null, cross.headers.authorization ?? null, cross.headers['x-other']];
        """)
    assert got == ["Bearer t", None, "kept"]
