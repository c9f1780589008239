"""The network policy's Python API (issue 26, points 1 and 6; docs/network.md):
NetworkPolicy, HttpRule and Secret, their policy JSON, the errors of bad
policies (checked by the core, naming the field), the `network=` argument of
Sandbox, create_sandbox_tool, the MCP config and SandboxPool, the prompts,
and a few requests end to end from JavaScript to the servers of
tests/_netserver.py."""

from __future__ import annotations

import json
import math
import os
import pickle
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import amla_sandbox
from amla_sandbox import (
    HttpRule,
    NetworkPolicy,
    Param,
    Sandbox,
    Secret,
    ToolCallCap,
    create_sandbox_tool,
)
from amla_sandbox.capabilities import Constraint, ConstraintSet
from amla_sandbox.network import policy_json, prompt_lines

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _netserver import Server, serve  # noqa: E402

VALUE = "s3cr3t-Value-9f8e7d"  # a secret's value: must never be shown


@pytest.fixture(scope="module")
def http() -> Iterator[Server]:
    with serve() as s:
        yield s


@pytest.fixture(scope="module")
def https() -> Iterator[Server]:
    pytest.importorskip("trustme")
    with serve(tls=True) as s:
        yield s


def js(tool: Any, code: str) -> str:
    return str(tool.run(code, language="javascript"))


def fetch_or_error(url: str, init: str = "{}") -> str:
    """JavaScript that fetches `url` and prints the status and body, or
    the refusal's message."""
    return textwrap.dedent(
        f"""
        try {{
          const r = await fetch({json.dumps(url)}, {init});
          console.log(r.status, await r.text());
        }} catch (e) {{
          console.log("REFUSED", e.message, e.cause ? e.cause.message : "");
        }}
        """
    )


# -- names and conversion (no core) -------------------------------------------------------------------


def test_the_names_are_importable_from_the_package_and_not_star_exported() -> None:
    assert amla_sandbox.NetworkPolicy is NetworkPolicy and amla_sandbox.network.HttpRule is HttpRule
    assert amla_sandbox.Secret is Secret
    for name in ("NetworkPolicy", "HttpRule", "Secret"):
        assert name not in amla_sandbox.__all__ and name in dir(amla_sandbox)


def test_a_default_policy_is_the_documented_json() -> None:
    assert NetworkPolicy().to_dict() == {
        "allow": [],
        "secrets": {},
        "inject_headers": {},
        "max_requests": 100,
        "max_request_bytes": 10 * 1024 * 1024,
        "max_response_bytes": 10 * 1024 * 1024,
        "timeout": 30.0,
        "max_concurrent": 8,
        "allow_private": [],
        "extra_ca_certs": None,
    }


def test_rules_secrets_and_fields_convert_to_the_policy_json() -> None:
    p = NetworkPolicy(
        allow=(
            "api.github.com",
            HttpRule(
                "https://api.stripe.com/v1/refunds",
                methods=("POST",),
                constraints={"form/amount": "<=5000", "form/currency": ("usd", "eur")},
                max_calls=10,
                require_approval=True,
            ),
            HttpRule("POST https://api.example.com/v1/jobs"),  # the url names its verbs: methods left out
            HttpRule("https://api.example.com/search", methods=["GET", "HEAD"], constraints=[Param("query/limit") <= 50]),
            HttpRule("https://api.example.com/a", constraints=ConstraintSet([Constraint.starts_with("path", "/a")])),
            HttpRule("https://api.example.com/b", constraints=Param("json/n") >= 1),
            {"url": "https://x.example.com", "constraints": [Param("json/x") == 1]},
        ),
        secrets={"GH": Secret(VALUE, hosts=("api.github.com",)), "RAW": {"value": VALUE, "hosts": ("x.com",)}},
        inject_headers={"api.stripe.com": {"Authorization": "Bearer {STRIPE}"}},
        max_requests=5,
        timeout=2.5,
        allow_private=("10.0.0.0/8",),
    )
    d = p.to_dict()
    assert d["allow"] == [
        "api.github.com",
        {
            "url": "https://api.stripe.com/v1/refunds",
            "methods": ["POST"],
            "constraints": {"form/amount": "<=5000", "form/currency": ["usd", "eur"]},
            "max_calls": 10,
            "require_approval": True,
        },
        {"url": "POST https://api.example.com/v1/jobs"},
        {
            "url": "https://api.example.com/search",
            "methods": ["GET", "HEAD"],
            "constraints": [{"type": "le", "param": "query/limit", "value": 50}],
        },
        {"url": "https://api.example.com/a", "methods": ["GET"],
         "constraints": [{"type": "starts_with", "param": "path", "prefix": "/a"}]},
        {"url": "https://api.example.com/b", "methods": ["GET"],
         "constraints": [{"type": "ge", "param": "json/n", "value": 1}]},
        {"url": "https://x.example.com", "constraints": [{"type": "eq", "param": "json/x", "value": 1}]},
    ]
    assert d["secrets"] == {
        "GH": {"value": VALUE, "hosts": ["api.github.com"], "where": ["header"], "expose": True},
        "RAW": {"value": VALUE, "hosts": ["x.com"]},
    }
    assert d["inject_headers"] == {"api.stripe.com": {"Authorization": "Bearer {STRIPE}"}}
    assert (d["max_requests"], d["timeout"], d["allow_private"]) == (5, 2.5, ["10.0.0.0/8"])
    json.dumps(d, allow_nan=False)  # plain JSON values only


def test_the_network_argument_takes_a_policy_a_dict_or_a_list() -> None:
    assert policy_json(None) is None
    assert policy_json(["api.github.com"]) == {"allow": ["api.github.com"]}
    assert policy_json({"allow": [HttpRule("https://a.com")], "max_requests": 3}) == {
        "allow": [{"url": "https://a.com", "methods": ["GET"]}],
        "max_requests": 3,
    }
    assert policy_json(NetworkPolicy(allow=["a.com"]))["allow"] == ["a.com"]
    with pytest.raises(TypeError, match="network must be a NetworkPolicy, a dict of its fields or a list"):
        policy_json("api.github.com")


def test_a_secret_never_shows_its_value() -> None:
    s = Secret(VALUE, hosts=["api.github.com"])
    for text in (repr(s), str(s), f"{s}", repr(NetworkPolicy(secrets={"GH": s}))):
        assert VALUE not in text and "<hidden>" in text and "api.github.com" in text
    as_dict = NetworkPolicy(secrets={"GH": {"value": VALUE, "hosts": ["a.com"]}})
    assert VALUE not in repr(as_dict) and "<hidden>" in repr(as_dict)
    assert pickle.loads(pickle.dumps(s)) == s  # a pool sends it to its actors


def test_extra_ca_certs_is_pem_text_or_a_pem_file(tmp_path: Path) -> None:
    pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
    f = tmp_path / "ca.pem"
    f.write_text(pem)
    assert NetworkPolicy(extra_ca_certs=pem).to_dict()["extra_ca_certs"] == pem
    assert NetworkPolicy(extra_ca_certs=f).to_dict()["extra_ca_certs"] == pem
    assert NetworkPolicy(extra_ca_certs=str(f)).to_dict()["extra_ca_certs"] == pem
    assert NetworkPolicy(extra_ca_certs=[str(f), pem]).to_dict()["extra_ca_certs"] == pem + "\n" + pem
    with pytest.raises(ValueError, match=r"^network: extra_ca_certs: cannot read the PEM file .*missing\.pem"):
        NetworkPolicy(extra_ca_certs=tmp_path / "missing.pem").to_dict()


@pytest.mark.parametrize(
    "policy, message",
    [
        (NetworkPolicy(timeout=math.nan), r"^network: timeout: expected a finite number"),
        (NetworkPolicy(allow=[HttpRule("https://a.com", constraints={"form/n": Param("form/n") <= 1})]),
         r"^network: allow\[0\]\.constraints\.form/n: a Constraint goes in a list"),
        (NetworkPolicy(allow=[object()]), r"^network: allow\[0\]: object cannot be written as JSON"),
        (NetworkPolicy(secrets={"GH": Secret(b"\xff\xfe\xfd\xfc", hosts=["a.com"])}),
         r"^network: secrets\.GH\.value: a secret's value must be UTF-8 text"),
    ],
)
def test_values_json_cannot_hold_are_errors_naming_the_field(policy: NetworkPolicy, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        policy.to_dict()


# -- bad policies: the core's checks, through the public API ----------------------------------------


BAD = [
    (["GET ftp://api.github.com"], r"network: allow\[0\]: scheme must be http or https"),
    (["api.github.com:99999"], r"network: allow\[0\]: bad port"),
    (["GET https://a.com/x?y=1"], r"network: allow\[0\]: a rule cannot hold a query"),
    ({"allow": "api.github.com"}, r"network: allow: expected a list"),
    ({"bogus": 1}, r"network: bogus: unknown field"),
    ([HttpRule("https://a.com", methods=["CONNECT"])], r"network: allow\[0\]\.methods\[0\]: CONNECT is never allowed"),
    ([HttpRule("POST https://a.com", methods=["GET"])], r"network: allow\[0\]\.methods: the url already names its verbs"),
    ([HttpRule("https://a.com", constraints={"form/amount": "about 5"})],
     r"network: allow\[0\]\.constraints\.form/amount: not a constraint"),
    ([HttpRule("https://a.com", max_calls=-1)], r"network: allow\[0\]\.max_calls: must be an int >= 0"),
    (NetworkPolicy(secrets={"GH": Secret(VALUE, hosts=["*"])}), r"network: secrets\.GH\.hosts\[0\]: \"\*\" is not accepted"),
    (NetworkPolicy(secrets={"GH": Secret(VALUE, hosts=["bad host!"])}), r"network: secrets\.GH\.hosts\[0\]"),
    (NetworkPolicy(secrets={"GH": Secret(VALUE, hosts=[])}), r"network: secrets\.GH\.hosts: a secret must name the hosts"),
    (NetworkPolicy(secrets={"GH": Secret(VALUE, hosts=["a.com"], where=["cookie"])}), r"network: secrets\.GH\.where\[0\]"),
    (NetworkPolicy(secrets={"bad-name": Secret(VALUE, hosts=["a.com"])}), r"network: secrets\.bad-name: a secret's name"),
    (NetworkPolicy(secrets={"GH": VALUE}), r"network: secrets\.GH: expected an object"),  # type: ignore[dict-item]
    (NetworkPolicy(secrets={"GH": Secret("abc", hosts=["a.com"])}), r"network: secrets\.GH\.value: .* at least 4 bytes"),
    (NetworkPolicy(inject_headers={"api.x.com": {"Authorization": "Bearer {NOPE}"}}),
     r"network: inject_headers\.api\.x\.com\.Authorization: \{NOPE\} names no secret"),
    (NetworkPolicy(secrets={"K": Secret(VALUE, hosts=["a.com"])}, inject_headers={"b.com": {"X-Key": "{K}"}}),
     r"network: inject_headers\.b\.com\.X-Key: secret K may not be sent to b\.com"),
    (NetworkPolicy(max_requests=-1), r"network: max_requests: must be an int >= 0"),
    (NetworkPolicy(max_concurrent=0), r"network: max_concurrent: must be an int >= 1"),
    (NetworkPolicy(timeout=0), r"network: timeout: must be a positive number"),
    (NetworkPolicy(max_request_bytes=1.5), r"network: max_request_bytes: expected an int"),  # type: ignore[arg-type]
    (NetworkPolicy(allow_private=["not an address!"]), r"network: allow_private"),
    (NetworkPolicy(extra_ca_certs="-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n"),
     r"network: extra_ca_certs"),
]


@pytest.mark.parametrize("network, message", BAD)
def test_a_bad_policy_is_a_value_error_naming_the_field(network: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message) as info:
        Sandbox(network=network)
    assert VALUE not in str(info.value)


def test_create_sandbox_tool_refuses_a_bad_policy_the_same_way(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"network: allow\[1\]: bad port"):
        create_sandbox_tool(network=["a.com", "a.com:0"])
    with pytest.raises(ValueError, match=r"network: extra_ca_certs: cannot read the PEM file"):
        create_sandbox_tool(network=NetworkPolicy(extra_ca_certs=tmp_path / "nope.pem"))


def test_the_sandbox_repr_never_shows_a_secret() -> None:
    sb = Sandbox(network={"allow": ["a.com"], "secrets": {"GH": {"value": VALUE, "hosts": ["a.com"]}}})
    try:
        assert VALUE not in repr(sb) and VALUE not in str(sb)
    finally:
        sb.close()


# -- the prompts --------------------------------------------------------------------------------------


def test_the_prompts_list_hosts_verbs_and_secret_names_never_values() -> None:
    policy = NetworkPolicy(
        allow=[
            "GET https://api.github.com/repos/**",
            "docs.example.com",
            HttpRule("https://api.stripe.com/v1/refunds", methods=["POST"], constraints={"form/amount": "<=5000"},
                     max_calls=3, require_approval=True),
        ],
        secrets={
            "GITHUB_TOKEN": Secret(VALUE, hosts=["api.github.com"]),
            "STRIPE_KEY": Secret(VALUE + "x", hosts=["api.stripe.com"], expose=False),
        },
        inject_headers={"api.stripe.com": {"Authorization": "Bearer {STRIPE_KEY}"}},
    )
    with create_sandbox_tool(network=policy) as tool:
        texts = [tool.get_system_prompt(), tool.get_system_prompt_for_separate_tools(),
                 tool._langchain_description(), tool._js_description()]
        try:
            import langchain_core  # noqa: F401
        except ImportError:
            pass
        else:
            texts += [tool.as_langchain_tool().description, tool.as_langchain_tools()[0].description]
        for text in texts:
            assert "GET https://api.github.com/repos/**" in text
            assert "any method https://docs.example.com" in text
            assert "POST https://api.stripe.com/v1/refunds (only with form/amount <=5000; at most 3 requests; " \
                   "each request waits for a human's approval)" in text
            assert "GITHUB_TOKEN (for api.github.com)" in text
            assert "STRIPE_KEY" not in text.replace("api.stripe.com: Authorization", "")  # not exposed: no variable
            assert "api.stripe.com: Authorization" in text
            assert VALUE not in text
            for how in ("fetch()", "urllib.request", "curl"):
                assert how in text
    with create_sandbox_tool() as plain:
        assert "Network" not in plain.get_system_prompt() and "NETWORK" not in plain._langchain_description()


def test_the_prompt_lists_http_capabilities_and_says_when_nothing_is_reachable() -> None:
    caps = [ToolCallCap("http/GET/api.github.com/**", max_calls=20), ToolCallCap("mcp:add")]
    lines = prompt_lines({"allow": []}, caps)
    assert "- capability http/GET/api.github.com/** (at most 20 requests)" in lines
    assert not any("mcp:add" in line for line in lines)
    assert "- none (every request is refused)" in prompt_lines({"allow": []}, [ToolCallCap("**")])
    assert prompt_lines(None, caps) == []


# -- requests end to end (JavaScript fetch to tests/_netserver.py) ------------------------------------


def test_no_network_argument_means_no_network(http: Server) -> None:
    with create_sandbox_tool() as tool:
        out = js(tool, fetch_or_error(f"{http.url}/json"))
    assert "REFUSED fetch failed" in out and "no network policy" in out


def test_an_allowed_get_and_a_refused_path_naming_the_rules(http: Server) -> None:
    policy = NetworkPolicy(allow=[f"GET {http.url}/json"], allow_private=["127.0.0.1"])
    with create_sandbox_tool(network=policy) as tool:
        assert js(tool, fetch_or_error(f"{http.url}/json")).strip() == '200 {"ok": true, "n": 1}'
        out = js(tool, fetch_or_error(f"{http.url}/echo"))
        assert "REFUSED fetch failed" in out and "refused by the allow check" in out
        assert f"rules: GET {http.url}/json" in out
        out = js(tool, fetch_or_error(f"{http.url}/json", "{method: 'POST', body: 'x'}"))
        assert "refused by the allow check" in out


def test_the_development_default_capability_never_opens_the_network_but_an_http_capability_does(http: Server) -> None:
    host = f"127.0.0.1:{http.port}"
    # The rule only names the server's port (ports other than 80 and 443
    # need a rule naming them); it does not allow /json.
    policy = NetworkPolicy(allow=[f"GET {http.url}/status/204"], allow_private=["127.0.0.1"])
    with Sandbox(network=policy) as sb:  # capabilities: the development default "**"
        assert "refused by the allow check" in sb.execute(fetch_or_error(f"{http.url}/json"))
    caps = [ToolCallCap(f"http/GET/{host}/**", max_calls=1)]
    with Sandbox(capabilities=caps, network=policy) as sb:
        assert sb.execute(fetch_or_error(f"{http.url}/json")).startswith("200 ")
        out = sb.execute(fetch_or_error(f"{http.url}/json"))
        assert "REFUSED" in out and "max 1 calls" in out


def test_an_http_rule_s_max_calls_is_its_budget(http: Server) -> None:
    policy = NetworkPolicy(allow=[HttpRule(f"{http.url}/json", max_calls=2)], allow_private=["127.0.0.1"])
    with create_sandbox_tool(network=policy) as tool:
        code = "for (let i = 0; i < 3; i++) {" + fetch_or_error(f"{http.url}/json") + "}"
        lines = js(tool, code).strip().splitlines()
    assert [line.split()[0] for line in lines] == ["200", "200", "REFUSED"]
    assert "refused by the max_calls check" in lines[2] and f"[allow[0] GET {http.url}/json]" in lines[2]


def test_a_rule_s_constraints_check_the_request(http: Server) -> None:
    rule = HttpRule(f"{http.url}/echo", methods=["POST"], constraints={"form/amount": "<=5000"})
    with create_sandbox_tool(network=NetworkPolicy(allow=[rule], allow_private=["127.0.0.1"])) as tool:
        ok = js(tool, fetch_or_error(f"{http.url}/echo", "{method: 'POST', body: new URLSearchParams({amount: '120'})}"))
        no = js(tool, fetch_or_error(f"{http.url}/echo", "{method: 'POST', body: new URLSearchParams({amount: '9000'})}"))
    assert ok.startswith("200 ") and '"body": "amount=120"' in ok
    assert "refused by the constraint check" in no and "form/amount <= 5000, actual: 9000" in no


def test_require_approval_asks_the_approval_handler(http: Server) -> None:
    asked: list[tuple[str, dict[str, Any]]] = []
    answers = [True, False]

    def approve(name: str, params: dict[str, Any]) -> bool:
        asked.append((name, params))
        return answers[len(asked) - 1]

    rule = HttpRule(f"{http.url}/echo", methods=["POST"], require_approval=True)
    policy = NetworkPolicy(allow=[rule], allow_private=["127.0.0.1"])
    with create_sandbox_tool(network=policy, approval_handler=approve) as tool:
        first = js(tool, fetch_or_error(f"{http.url}/echo?n=1", "{method: 'POST', body: new URLSearchParams({a: '1'})}"))
        second = js(tool, fetch_or_error(f"{http.url}/echo?n=2", "{method: 'POST', body: new URLSearchParams({a: '2'})}"))
    assert first.startswith("200 ")
    assert "REFUSED" in second
    assert [m for m, _ in asked] == [f"http/POST/127.0.0.1:{http.port}/echo"] * 2
    assert asked[0][1]["query"] == {"n": 1} and asked[0][1]["form"] == {"a": 1}
    assert [s.path for s in http.seen if s.method == "POST"][-1] == "/echo?n=1"  # the refused one never left


def test_a_secret_is_substituted_on_the_way_out_and_scrubbed_from_the_answer(https: Server, tmp_path: Path) -> None:
    assert https.ca_pem is not None
    ca = tmp_path / "ca.pem"
    ca.write_text(https.ca_pem)
    policy = NetworkPolicy(
        allow=[f"GET {https.url}/echo"],
        secrets={"TOKEN": Secret(VALUE, hosts=["127.0.0.1"])},
        allow_private=["127.0.0.1"],
        extra_ca_certs=ca,  # a path: read in Python
    )
    with create_sandbox_tool(network=policy) as tool:
        out = js(
            tool,
            f"""
            console.log(process.env.TOKEN);
            const r = await fetch({json.dumps(https.url + "/echo")}, {{headers: {{Authorization: `Bearer ${{process.env.TOKEN}}`}}}});
            const doc = await r.json();
            console.log(doc.headers.authorization);
            """,
        )
    placeholder, echoed = out.strip().splitlines()
    assert placeholder.startswith("amla_secret_TOKEN_") and VALUE not in out
    assert echoed == f"Bearer {placeholder}"  # the server echoed the value; the host scrubbed it
    assert https.seen[-1].headers["authorization"] == f"Bearer {VALUE}"


def test_the_other_constructors_and_fork_carry_the_policy(http: Server) -> None:
    from amla_sandbox import SandboxTool, create_amla_sandbox

    network = [f"GET {http.url}/json"]
    policy = {"allow": network, "allow_private": ["127.0.0.1"]}
    run = create_amla_sandbox([], network=policy)
    assert run(fetch_or_error(f"{http.url}/json"), {})[0].startswith("200 ")
    with SandboxTool.from_functions([], network=policy) as tool:
        assert js(tool, fetch_or_error(f"{http.url}/json")).startswith("200 ")
        fork = tool.sandbox.fork()
        try:
            assert fork.execute(fetch_or_error(f"{http.url}/json")).startswith("200 ")
        finally:
            fork.close()
        assert "- GET " + http.url + "/json" in tool.get_system_prompt()


def test_a_recorded_run_replays_without_the_server_or_the_secret_s_value(tmp_path: Path) -> None:
    pytest.importorskip("trustme")
    server = serve(tls=True)
    assert server.ca_pem is not None

    def policy(value: str) -> NetworkPolicy:
        return NetworkPolicy(
            allow=[HttpRule(f"{server.url}/echo", max_calls=1)],
            secrets={"TOKEN": Secret(value, hosts=["127.0.0.1"], where=["query"])},
            allow_private=["127.0.0.1"],
            extra_ca_certs=server.ca_pem,
        )

    code = f"const r = await fetch({json.dumps(server.url + '/echo?t=')} + process.env.TOKEN); console.log((await r.json()).query.t)"
    with Sandbox(network=policy(VALUE), record=True) as sb:
        out = sb.execute(code)
        journal = sb.last_result.journal if sb.last_result is not None else None
    server.close()
    assert out.startswith("amla_secret_TOKEN_") and server.seen[-1].path.endswith("t=" + VALUE)
    assert journal is not None and VALUE.encode() not in journal
    replayed = Sandbox.replay(journal, network=policy("not-the-value"))
    try:
        assert replayed.last_result is not None and replayed.last_result.stdout == out
    finally:
        replayed.close()


# -- the MCP server's config and SandboxPool -----------------------------------------------------------


def test_the_mcp_config_takes_network(http: Server, tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    from amla_sandbox.mcp.config import ConfigError, ServerConfig
    from amla_sandbox.mcp.server import SandboxServer

    cfg = ServerConfig.from_dict({"network": {"allow": [f"GET {http.url}/json"], "allow_private": ["127.0.0.1"]}})
    assert cfg.network == {"allow": [f"GET {http.url}/json"], "allow_private": ["127.0.0.1"]}
    assert ServerConfig.from_dict({"network": ["a.com"]}).network == {"allow": ["a.com"]}
    assert ServerConfig.from_dict({}).network is None
    with pytest.raises(ConfigError, match="'network' must be an object of network policy fields or a list"):
        ServerConfig.from_dict({"network": "a.com"})
    with pytest.raises(ConfigError, match=r"'network': network: extra_ca_certs: cannot read the PEM file"):
        ServerConfig.from_dict({"network": {"extra_ca_certs": str(tmp_path / "none.pem")}})
    with pytest.raises(ConfigError, match=r"'network': network: allow\[0\]: bad port"):
        SandboxServer(ServerConfig.from_dict({"network": ["a.com:0"]}), stateless=True)

    server = SandboxServer(cfg, stateless=True)
    try:
        assert f"- GET {http.url}/json" in server._instructions() and "No network" not in server._instructions()
        sb = server.new_sandbox()
        try:
            assert sb.execute(fetch_or_error(f"{http.url}/json")).strip() == '200 {"ok": true, "n": 1}'
        finally:
            sb.close()
    finally:
        server.close()
    plain = SandboxServer(ServerConfig(), stateless=True)
    try:
        assert "No network." in plain._instructions()
    finally:
        plain.close()


def test_a_sandbox_pool_takes_network(http: Server, tmp_path: Path) -> None:
    """One actor on a real local Ray, in a child process (Ray's driver must
    start before the process makes a sandbox: docs/scale-out.md)."""
    pytest.importorskip("ray")
    script = textwrap.dedent(
        f"""
        import ray, ray._private.ray_constants as rc
        rc.RAY_DISABLE_FAILURE_SIGNAL_HANDLER = True
        ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, configure_logging=False,
                 object_store_memory=100 * 1024 * 1024,
                 runtime_env={{"env_vars": {{"PYTHONPATH": {os.environ.get("PYTHONPATH", "")!r}}}}})
        from amla_sandbox import NetworkPolicy, HttpRule
        from amla_sandbox.ray import SandboxPool
        policy = NetworkPolicy(allow=[HttpRule({http.url + "/json"!r}, max_calls=1)], allow_private=["127.0.0.1"])
        with SandboxPool(size=1, network=policy, health_check_interval=None) as pool:
            code = {fetch_or_error(http.url + "/json")!r}
            print(pool.run("s1", code, "javascript").strip())
            print(pool.run("s1", code, "javascript").strip())
        ray.shutdown()
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    first, second = proc.stdout.strip().splitlines()[-2:]
    assert first == '200 {"ok": true, "n": 1}'
    assert "refused by the max_calls check" in second  # the session's rule budget, kept across runs
