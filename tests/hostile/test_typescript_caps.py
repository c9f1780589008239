"""Issue 29.1: hostile TypeScript. esbuild's parser recurses once per level
of nesting: unguarded, a 100,000-deep script costs the host hundreds of MB
of stack and about a second. The caps refuse it before esbuild runs: fast,
with a SyntaxError naming the cap, and the host's memory stays put."""

from __future__ import annotations

import pytest
from _hostile import run_isolated

SCENARIOS = {
    "brackets": '"(" * 100_000 + "1" + ")" * 100_000',
    "arrays": '"[" * 100_000 + "]" * 100_000',
    "prefix operators": '"const x = " + "!" * 100_000 + "1;"',
    "arrows": '"const f = " + "a => " * 100_000 + "1;"',
    "generics": '"let x: " + "A<" * 100_000 + "B" + ">" * 100_000 + ";"',
    "template substitutions": '"`${" * 50_000 + "1" + "}`" * 50_000',
    "oversize": '"x;\\n" * 2_000_000',
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_deep_or_huge_typescript_is_refused_quickly_with_bounded_memory(name: str) -> None:
    run = run_isolated(
        f"""
        sb = Sandbox()
        sb.execute("const w: number = 1; console.log(w)", language="typescript")  # warm
        code = {SCENARIOS[name]}
        r = measure_rss(lambda: sb.execute(code, language="typescript"))
        emit(r=r, stderr=sb.last_stderr[:400])
        emit(after=attempt(lambda: sb.execute("const v: string = 'ok'; console.log(v)", language="ts")))
        """,
        60,
    )
    r = run["r"]
    assert r["ok"] and r["value"] == "", r
    assert "SyntaxError" in run["stderr"] and any(
        cap in run["stderr"] for cap in ("nested more than 1000 deep", "operators in a row", "at most")
    ), run["stderr"]
    assert r["dt"] < 1.0, r
    assert r["rss_growth"] < 64 << 20, r
    assert run["after"]["value"] == "ok\n"
