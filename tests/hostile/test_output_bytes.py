"""Output bytes that are not plain text (issue 24 item 10).

More than about 64 KiB of invalid UTF-8, or valid output whose last
character the output cap cut, made python()/shell()/execute() raise a raw
UnicodeDecodeError and the output was lost (small invalid output became
U+FFFD); a character split between two writes streamed to on_output as two
U+FFFD; and a flood of NUL bytes under timeout=3 returned after 6-8 s with
1.1-1.4 GiB host peak, where the same flood of "x" stopped at 3.1 s with
under 210 MB (the output crossed to Python as JSON, which writes a NUL as
six bytes). Now output is text made by the host: every ill-formed sequence
is one U+FFFD at any size, a split character comes out whole, and every
byte costs the same.
"""

from __future__ import annotations

import pytest

from _hostile import run_isolated

FFFD = "\ufffd"

# Each language writes the same bytes: 100,000 bytes 0xFF, then "ok".
INVALID = {
    "python": ("python", "import sys\nsys.stdout.buffer.write(b'\\xff' * 100_000 + b'ok')\nsys.stdout.flush()"),
    "shell": ("shell", "printf '\\377%.0s' $(seq 100000); printf ok"),
    "js": ("javascript", "process.stdout.write(new Uint8Array(100000).fill(0xff)); process.stdout.write('ok')"),
}


def _run(language: str) -> str:
    """The call that runs `code` in `language` on `sb` (in the child)."""
    return {
        "python": "sb.python(code, on_output=cb)",
        "shell": "sb.shell(code)",
        "javascript": "sb.execute(code, on_output=cb)",
    }[language]


@pytest.mark.parametrize("name", sorted(INVALID))
def test_large_invalid_utf8_becomes_replacement_characters(name: str) -> None:
    language, code = INVALID[name]
    run = run_isolated(
        f"""
sb = Sandbox()
code, cb = {code!r}, None
out = attempt(lambda: (lambda v: [len(v), v.count({FFFD!r}), v[-2:]])({_run(language)}))
emit(out=out)
""",
        120,
    )
    out = run["out"]
    assert out["ok"], f"{name}: {out['type']}: {out['msg'][:300]}"
    assert out["value"] == [100_002, 100_000, "ok"], f"{name}: [length, U+FFFDs, tail] = {out['value']}"


@pytest.mark.parametrize("language", ["python", "javascript"])
def test_a_character_cut_by_the_output_cap(language: str) -> None:
    """120,000 bytes of 'é' under max_output_size=100,003: the cap cuts the
    last character in half."""
    code = "print('é' * 60_000)" if language == "python" else "console.log('é'.repeat(60000))"
    run = run_isolated(
        f"""
sb = Sandbox(max_output_size=100_003)
code, cb = {code!r}, None
out = attempt(lambda: (lambda v: [v[:50_001] == "é" * 50_001, v[50_001:]])({_run(language)}))
emit(out=out)
""",
        120,
    )
    out = run["out"]
    assert out["ok"], f"{out['type']}: {out['msg'][:300]}"
    kept_whole, rest = out["value"]
    assert kept_whole, "the characters before the cut changed"
    assert rest.startswith(FFFD + "\n[output truncated at 100003 bytes]"), repr(rest[:80])


# Each writes "x", then "é" and "😀" split across writes, then 30,000 "é"s
# in writes of 4,097 bytes (odd: nearly every write ends inside a character).
SPLIT = {
    "python": """import sys
w = sys.stdout.buffer
for b in (b'x\\xc3', b'\\xa9y', b'\\xf0\\x9f', b'\\x98', b'\\x80'):
    w.write(b); w.flush()
data = 'é'.encode() * 30_000
for i in range(0, len(data), 4097):
    w.write(data[i:i + 4097]); w.flush()""",
    "javascript": """for (const b of [[0x78, 0xc3], [0xa9, 0x79], [0xf0, 0x9f], [0x98], [0x80]]) process.stdout.write(new Uint8Array(b));
const data = new TextEncoder().encode('é'.repeat(30000));
for (let i = 0; i < data.length; i += 4097) process.stdout.write(data.subarray(i, i + 4097));""",
}


@pytest.mark.parametrize("language", sorted(SPLIT))
def test_a_character_split_between_writes_streams_whole(language: str) -> None:
    run = run_isolated(
        f"""
sb = Sandbox()
code, chunks = {SPLIT[language]!r}, []
cb = chunks.append
result = []
out = attempt(lambda: result.append({_run(language)}))
joined = "".join(chunks)
emit(out=dict(ok=out["ok"], msg=out["msg"], same=result == [joined], n=len(chunks),
              fffd=joined.count({FFFD!r}), head=joined[:5], len=len(joined)))
""",
        120,
    )
    out = run["out"]
    assert out["ok"], out
    assert out["n"] > 10, f"the output did not stream in many chunks: {out}"
    assert out["fffd"] == 0, f"a split character became U+FFFD: {out}"
    assert out["head"] == "xéy😀é" and out["len"] == 4 + 30_000 and out["same"], out


def test_nul_bytes_cross_whole() -> None:
    """Output with NULs, large enough to cross apart from the JSON, keeps them."""
    run = run_isolated(
        """
sb = Sandbox()
want = 'a\\0b' * 40_000
got = {
    "python": sb.python("import sys\\n_ = sys.stdout.write('a\\\\0b' * 40_000)"),
    "shell": sb.shell("for i in $(seq 40000); do printf 'a\\\\0b'; done"),
    "javascript": sb.execute("process.stdout.write('a\\\\0b'.repeat(40000))"),
}
emit(same={k: v == want for k, v in got.items()}, lens={k: len(v) for k, v in got.items()})
""",
        120,
    )
    assert all(run["same"].values()), run.merged


FLOOD = {
    "python": "import sys\nb = b'%s' * 65536\nwhile True: sys.stdout.buffer.write(b)",
    "shell": "yes '%s' | tr -d '\\n'",
    "javascript": "const s = '%s'.repeat(65536); while (true) process.stdout.write(s)",
}


@pytest.mark.parametrize("language", sorted(FLOOD))
def test_a_nul_flood_costs_what_a_letter_flood_costs(language: str) -> None:
    """An endless flood of NUL bytes under timeout=3 (filling the 32 MiB
    output cap, then more) stops at the timeout with bounded host memory,
    like the same flood of "x"."""
    nul = FLOOD[language] % ("\\0" if language != "shell" else "")
    if language == "shell":
        nul = "yes '' | tr '\\n' '\\0'"
    x = FLOOD[language] % "x"
    run = run_isolated(
        f"""
sb = Sandbox(timeout=3)
sb.shell("true"); sb.python("1"); sb.execute("1")
run = lambda code: {_run(language)}
cb = None
for name, code in (("x", {x!r}), ("nul", {nul!r})):
    out = measure_rss(lambda: run(code))
    out.pop("msg", None)
    emit(**{{name: out}})
""",
        90,
    )
    x_out, nul_out = run["x"], run["nul"]
    for out in (x_out, nul_out):
        assert out["type"] == "amla_sandbox.TimeoutError", out
    assert nul_out["dt"] < x_out["dt"] + 1.5, f"NUL flood {nul_out['dt']:.1f} s, x flood {x_out['dt']:.1f} s"
    mib = nul_out["rss_growth"] >> 20
    assert mib < 400, f"NUL flood: host RSS grew {mib} MiB (x flood: {x_out['rss_growth'] >> 20} MiB)"


def test_a_child_process_floods_its_parent_with_nuls() -> None:
    """A child's output used to reach its parent as JSON, six bytes a NUL:
    30 MB of NULs from `shell()` ran the JavaScript parent out of memory
    (InternalError) with 858 MiB of host growth, where 30 MB of "x" took
    177 MiB. Now it crosses byte for byte (wire.SpawnFrame)."""
    run = run_isolated(
        r"""
sb = Sandbox(timeout=30)
sb.execute("1"); sb.shell("true")
js = "const r = await shell(\"yes '' | tr '\\\\n' '\\\\0' | head -c 30000000\"); console.log(r.stdout.length, r.stdout.charCodeAt(0))"
emit(js=measure_rss(lambda: sb.execute(js)))
emit(sh=attempt(lambda: sb.shell("node -e \"process.stdout.write('a\\\\0b'.repeat(40000))\" | wc -c")))
""",
        120,
    )
    js = run["js"]
    assert js["ok"] and js["value"] == "30000000 0\n", js
    mib = js["rss_growth"] >> 20
    assert mib < 400, f"host RSS grew {mib} MiB"
    assert run["sh"]["ok"] and run["sh"]["value"].strip() == "120000", run["sh"]
