"""Issue 7, item 7: a sandbox built from a PCA may call only what the token
grants, intersected with its capabilities."""

from __future__ import annotations

import pytest

from _hostile import check_child, run_isolated

# (granted patterns, capability patterns) -> which of a, b may be called
CASES = {
    "grants_nothing": ([], ["**"], {"a": False, "b": False}),
    "grants_a": (["tool_call:mcp:a"], ["**"], {"a": True, "b": False}),
    "grants_a_without_prefix": (["mcp:a"], ["**"], {"a": True, "b": False}),
    "grants_outside_capabilities": (["tool_call:mcp:b"], ["mcp:a"], {"a": False, "b": False}),
    "grants_all_capability_a": (["tool_call:**"], ["mcp:a"], {"a": True, "b": False}),
    "grants_one_segment_wildcard": (["tool_call:*"], ["**"], {"a": True, "b": True}),
    # a wildcard counts only as a whole segment: "mcp:*" is a literal and grants neither
    "grants_literal_star": (["tool_call:mcp:*"], ["**"], {"a": False, "b": False}),
}

SCENARIO = r'''
from amla_sandbox.auth import EphemeralAuthority
auth = EphemeralAuthority()
called = []
def handler(method, params):
    name = method.removeprefix("mcp:")  # Sandbox hands handlers the bare tool name
    called.append(name)
    return "ran " + name
results = {}
for name, (grants, caps, _) in CASES.items():
    sb = Sandbox(
        pca=auth.create_pca(capabilities=grants).to_cbor(),
        trusted_authorities=[auth.public_key_hex()],
        capabilities=[MethodCapability(method_pattern=c) for c in caps],
        tools=[tool("a"), tool("b")],
        tool_handler=handler,
        timeout=10,
    )
    called.clear()
    js = attempt(lambda: sb.execute(
        "for (const f of [a, b]) { try { console.log(await f({})) } catch (e) { console.log('DENIED ' + e.message) } }"))
    js_called = list(called)
    called.clear()
    sh = attempt(lambda: sb.shell("tool a; echo rc=$?; tool b; echo rc=$?"))
    results[name] = {
        "js": js, "js_called": js_called, "shell": sh, "shell_called": list(called),
        "can_call": {m: sb.can_call("mcp:" + m, {}) for m in ("a", "b")},
    }
    sb.close()
emit(results=results)
'''


@pytest.fixture(scope="module")
def results() -> dict:
    return check_child(run_isolated(f"CASES = {CASES!r}\n" + SCENARIO, 30))["results"]


@pytest.mark.parametrize("case", list(CASES))
def test_pca_grants_intersect_capabilities(case: str, results: dict) -> None:
    expected = CASES[case][2]
    r = results[case]
    assert r["js"]["ok"], r["js"]
    lines = r["js"]["value"].splitlines()
    assert len(lines) == 2, lines
    for tool_name, line in zip(("a", "b"), lines):
        if expected[tool_name]:
            assert line == f"ran {tool_name}", f"{case}: {tool_name} should be allowed: {line}"
        else:
            assert line.startswith("DENIED "), f"{case}: {tool_name} should be denied: {line}"
    allowed = [t for t in ("a", "b") if expected[t]]
    assert r["js_called"] == allowed, f"{case}: handler saw {r['js_called']}"
    assert r["shell_called"] == allowed, f"{case}: handler saw {r['shell_called']} from the shell"
    assert r["can_call"] == expected, f"{case}: can_call says {r['can_call']}"
