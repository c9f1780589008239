#!/usr/bin/env python3
"""Side by side: this package against the reference amla-sandbox (PyPI), same machine, same run.

Measures the workloads of issue 8's "Targets" for both implementations and prints a Markdown
table of medians with the ratio ours/reference (``--json`` for machine-readable output).

    PYTHONPATH=/work/main python bench/compare.py             # in-tree dev build
    python bench/compare.py                                    # after `pip install .`
    python bench/compare.py --workloads console_log,loop_1m --processes 3

How it works (details in bench/README.md):

* The reference is installed into its own venv, ``<cache dir>/ref-<version>`` (created once and
  reused; ``pip install amla-sandbox==<version>``). Ours runs on ``--ours-python`` (default: this
  interpreter, with its environment, so ``PYTHONPATH`` picks the in-tree build).
* Every measurement happens in a fresh child process (this same file, run with ``--child``), one
  per implementation and repetition; the two implementations alternate so that a change of
  machine load hits both. Warm workloads create one sandbox, warm it up, then time several
  iterations; cold workloads time import + ``create_sandbox_tool`` + first run once per process.
* The compiled-guest cache (``XDG_CACHE_HOME``) of every child points at a directory owned by
  this script (primed once, per implementation), or, for the empty-cache workload, at a new
  empty temporary directory. The user's own guest cache (~/.cache/amla-sandbox) is never used.
* Every child has a timeout; a failure or timeout is reported in the table with its text.

Only the standard library is imported at module level: the same file runs under both venvs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REF_VERSION = "0.2.8"
RESULT_MARK = "@@AMLA-BENCH-RESULT@@ "

# --------------------------------------------------------------------------------------------
# Workload data, shared by both implementations (built the same way in every child).
# --------------------------------------------------------------------------------------------

# 5 MB JSON text built inside JavaScript: JSON_ROWS rows of this shape give 5,000,086 characters.
JSON_ROWS = 43_621
JSON_JS = f"""
const rows = [];
for (let i = 0; i < {JSON_ROWS}; i++) {{
  rows.push({{id: i, name: "name-" + i, email: "user" + i + "@example.com", tags: ["alpha", "beta"],
             score: (i * 7) % 1000, active: i % 2 === 0}});
}}
const text = JSON.stringify(rows);
const parsed = JSON.parse(text);
const again = JSON.stringify(parsed);
console.log(text.length, parsed.length, again === text);
"""

# 100k rows returned by a tool, 10,132,078 bytes as json.dumps gives them (9.7 MiB): just under
# the reference's 10 MiB tool-result cap (which it measures that way), so the same data works for
# both.
TOOL_ROWS = 100_000
CITIES = ["Amsterdam", "Berlin", "Chicago", "Delhi", "Lagos", "Lima", "Osaka", "Sydney"]
TOOL_JS = f"""
const r = await fetch_rows({{limit: {TOOL_ROWS}}});
let score = 0, active = 0;
for (const row of r.rows) {{ score += row.score; if (row.active) active++; }}
console.log(r.rows.length, score, active);
"""

LOOP_JS = "let s = 0; for (let i = 0; i < 1000000; i++) { s += i; } console.log(s);"

PROMISE_JS = """
const keys = Array.from({length: 10}, (_, i) => "key" + i);
const res = await Promise.all(keys.map((key) => lookup({key})));
console.log(res.length, res.reduce((s, r) => s + r.value, 0));
"""


# Shell rows (issue 21): a 10 MB log through a pipeline, and jq over a 5 MB JSON array. The data
# is written into the sandbox through the shell's stdin before timing; the native column runs the
# same command with GNU tools and jq 1.6 (LC_ALL=C) on a host copy of the same data.
LOG_BYTES = 10 * 1024 * 1024
JSON_BYTES = 5 * 1024 * 1024
PIPELINE_SH = "grep ERROR {f} | sort | uniq -c | sort -rn | head -5"
JQ_SH = ("jq -c '[.[] | select(.status >= 400) | .endpoint] | group_by(.) | map({{e: .[0], n: length}})"
         " | sort_by(.n) | reverse | .[0:3]' {f}")


# The data is made inside the sandbox by JavaScript (the reference takes at most 8 KB of stdin per
# call), with the MINSTD generator, whose products stay exact in doubles; make_log and make_json
# are the same generator in Python, for the native column and the expected outputs.
LOG_JS = """
let x = 7, n = 0; const out = [];
const next = (m) => { x = (x * 48271) % 2147483647; return x % m; };
const levels = ["INFO", "INFO", "INFO", "INFO", "INFO", "INFO", "WARN", "WARN", "ERROR"];
while (n < @BYTES@) {
  const mm = String(next(60)).padStart(2, "0"), ss = String(next(60)).padStart(2, "0");
  const line = `2026-11-22T10:${mm}:${ss} ${levels[next(9)]} pid=${next(999)} svc${next(40)} request took ${next(5000)}ms\\n`;
  out.push(line); n += line.length;
}
await fs.writeFile("@PATH@", out.join(""));
"""
JSON_JS_DATA = """
let x = 11, n = 0; const items = [];
const next = (m) => { x = (x * 48271) % 2147483647; return x % m; };
const statuses = [200, 200, 200, 201, 404, 500];
while (n < @BYTES@) {
  items.push({endpoint: `/api/v1/r${next(30)}`, status: statuses[next(6)], duration_ms: next(900)});
  n += 60;
}
await fs.writeFile("@PATH@", JSON.stringify(items));
"""


class Minstd:
    def __init__(self, seed: int) -> None:
        self.x = seed

    def next(self, m: int) -> int:
        self.x = (self.x * 48271) % 2147483647
        return self.x % m


def make_log() -> str:
    """The pipeline row's 10 MB log (a ninth of the lines ERROR), as LOG_JS makes it."""
    g = Minstd(7)
    levels = ["INFO"] * 6 + ["WARN"] * 2 + ["ERROR"]
    lines, n = [], 0
    while n < LOG_BYTES:
        mm, ss = f"{g.next(60):02d}", f"{g.next(60):02d}"
        line = (f"2026-11-22T10:{mm}:{ss} {levels[g.next(9)]} pid={g.next(999)} svc{g.next(40)} "
                f"request took {g.next(5000)}ms\n")
        lines.append(line)
        n += len(line)
    return "".join(lines)


def make_json() -> str:
    """The jq row's 5 MB array of request records, as JSON_JS_DATA makes it."""
    g = Minstd(11)
    statuses = [200, 200, 200, 201, 404, 500]
    items, n = [], 0
    while n < JSON_BYTES:
        ep = f"/api/v1/r{g.next(30)}"
        items.append({"endpoint": ep, "status": statuses[g.next(6)], "duration_ms": g.next(900)})
        n += 60
    return json.dumps(items, separators=(",", ":"))


def pipeline_expected(log: str) -> str:
    """What `grep ERROR | sort | uniq -c | sort -rn | head -5` prints (C locale)."""
    from collections import Counter

    counts = Counter(line for line in log.splitlines() if "ERROR" in line)
    rows = sorted(((c, line.encode()) for line, c in counts.items()), reverse=True)[:5]
    return "".join(f"{c:7d} {line.decode()}\n" for c, line in rows)


def jq_expected(text: str) -> str:
    """What the jq row prints (group_by sorts the endpoints; sort_by is stable)."""
    from itertools import groupby

    eps = sorted(x["endpoint"] for x in json.loads(text) if x["status"] >= 400)
    groups = [{"e": k, "n": len(list(g))} for k, g in groupby(eps)]
    groups.sort(key=lambda g: g["n"])
    top = list(reversed(groups))[:3]
    return json.dumps(top, separators=(",", ":")) + "\n"


def shell_data_row(iterations: int, make_js: str, data: str, path: str, command: str,
                   want: str) -> tuple[list[float], dict[str, Any]]:
    from amla_sandbox import Sandbox

    sb = Sandbox()
    sb.execute(make_js)
    expect(sb.shell(f"wc -c < {path}").strip(), str(len(data.encode())))
    extra: dict[str, Any] = {"input_bytes": len(data.encode())}

    def check(out: str) -> None:
        if os.environ.get("AMLA_BENCH_IMPL") != "ref":
            expect(out, want)
        elif out != want:
            # The reference is timed even when it prints something else (0.2.8 splits lines of
            # the 10 MB log at its pipe buffers); the table's notes say so.
            extra["output_differs"] = out[:300]

    times = timed(lambda: check(sb.shell(command)), iterations, lambda: check(sb.shell(command)))
    return times, extra


def child_shell_pipeline(iterations: int) -> tuple[list[float], dict[str, Any]]:
    path = "/workspace/app.log"
    log = make_log()
    return shell_data_row(iterations, LOG_JS.replace("@BYTES@", str(LOG_BYTES)).replace("@PATH@", path), log, path, PIPELINE_SH.format(f=path),
                          pipeline_expected(log))


def child_shell_jq(iterations: int) -> tuple[list[float], dict[str, Any]]:
    path = "/workspace/data.json"
    text = make_json()
    return shell_data_row(iterations, JSON_JS_DATA.replace("@BYTES@", str(JSON_BYTES)).replace("@PATH@", path), text, path, JQ_SH.format(f=path),
                          jq_expected(text))


def json_rows_python() -> list[dict[str, Any]]:
    """The rows JSON_JS builds, for computing the expected output."""
    return [
        {"id": i, "name": f"name-{i}", "email": f"user{i}@example.com", "tags": ["alpha", "beta"],
         "score": (i * 7) % 1000, "active": i % 2 == 0}
        for i in range(JSON_ROWS)
    ]


def tool_rows() -> list[dict[str, Any]]:
    return [
        {"id": i, "name": f"user{i:06d}", "city": CITIES[i % len(CITIES)], "score": (i * 37) % 1000,
         "active": i % 3 == 0, "group": f"g{i % 97:02d}"}
        for i in range(TOOL_ROWS)
    ]


# --------------------------------------------------------------------------------------------
# Child side: runs under either implementation's interpreter, imports amla_sandbox lazily.
# --------------------------------------------------------------------------------------------


class WrongOutput(Exception):
    """The sandbox ran but printed something other than the expected output."""


def expect(out: object, want: str) -> None:
    if out != want:
        text = out if isinstance(out, str) else repr(out)
        raise WrongOutput(f"expected {want!r}, got {text[:400]!r}")


def timed(fn: Callable[[], None], iterations: int, warmup: Callable[[], None], warmup_runs: int = 1) -> list[float]:
    """Call warmup warmup_runs times, then time fn iterations times (milliseconds)."""
    for _ in range(warmup_runs):
        warmup()
    times = []
    for _ in range(iterations):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return times


def lookup(key: str) -> dict[str, Any]:
    """Look up one key (benchmark tool)."""
    return {"key": key, "value": len(key)}


def add(a: int, b: int) -> int:
    """Add two numbers (benchmark tool)."""
    return a + b


def child_console_log(iterations: int) -> tuple[list[float], dict[str, Any]]:
    from amla_sandbox import Sandbox

    sb = Sandbox()

    def once() -> None:
        expect(sb.execute("console.log(1)"), "1\n")

    return timed(once, iterations, once, warmup_runs=2), {}


def child_shell_echo(iterations: int) -> tuple[list[float], dict[str, Any]]:
    from amla_sandbox import Sandbox

    sb = Sandbox()

    def once() -> None:
        expect(sb.shell("echo 1"), "1\n")

    return timed(once, iterations, once, warmup_runs=2), {}


def child_loop_1m(iterations: int) -> tuple[list[float], dict[str, Any]]:
    from amla_sandbox import Sandbox

    sb = Sandbox()
    want = f"{sum(range(1_000_000))}\n"
    times = timed(lambda: expect(sb.execute(LOOP_JS), want), iterations,
                  lambda: expect(sb.execute("console.log(1)"), "1\n"))
    return times, {}


def child_json_5mb(iterations: int) -> tuple[list[float], dict[str, Any]]:
    from amla_sandbox import Sandbox

    text_len = len(json.dumps(json_rows_python(), separators=(",", ":")))
    want = f"{text_len} {JSON_ROWS} true\n"
    sb = Sandbox()
    times = timed(lambda: expect(sb.execute(JSON_JS), want), iterations,
                  lambda: expect(sb.execute("console.log(1)"), "1\n"))
    return times, {"json_chars": text_len}


def child_tool_10mb(iterations: int) -> tuple[list[float], dict[str, Any]]:
    from amla_sandbox import create_sandbox_tool

    rows = tool_rows()

    def fetch_rows(limit: int) -> dict[str, Any]:
        """Return up to `limit` rows (benchmark tool)."""
        return {"rows": rows[:limit], "total": len(rows)}

    payload = len(json.dumps(fetch_rows(TOOL_ROWS)))
    score = sum(r["score"] for r in rows)
    active = sum(1 for r in rows if r["active"])
    want = f"{TOOL_ROWS} {score} {active}\n"
    st = create_sandbox_tool(tools=[fetch_rows], max_calls=10**9)
    times = timed(lambda: expect(st.run(TOOL_JS, language="javascript"), want), iterations,
                  lambda: expect(st.run("console.log(1)", language="javascript"), "1\n"))
    return times, {"result_json_bytes": payload}


def child_promise_all_10(iterations: int) -> tuple[list[float], dict[str, Any]]:
    from amla_sandbox import create_sandbox_tool

    st = create_sandbox_tool(tools=[lookup], max_calls=10**9)

    def once() -> None:
        expect(st.run(PROMISE_JS, language="javascript"), "10 40\n")

    return timed(once, iterations, once), {}


def child_promise_all_10_async(iterations: int) -> tuple[list[float], dict[str, Any]]:
    import asyncio

    from amla_sandbox import Sandbox, capability_from_function, tool_from_function

    async def handler(method: str, params: dict[str, Any]) -> Any:
        await asyncio.sleep(0)
        name = method.removeprefix("mcp:")
        if name != "lookup":
            raise ValueError(f"unknown tool {method!r}")
        return lookup(**params)

    sb = Sandbox(tools=[tool_from_function(lookup)], capabilities=[capability_from_function(lookup)],
                 tool_handler=handler)
    loop = asyncio.new_event_loop()
    try:
        def once() -> None:
            expect(loop.run_until_complete(sb.execute_async(PROMISE_JS)), "10 40\n")

        return timed(once, iterations, once), {}
    finally:
        loop.close()


def child_cold(iterations: int) -> tuple[list[float], dict[str, Any]]:
    t0 = time.perf_counter()
    from amla_sandbox import create_sandbox_tool

    t1 = time.perf_counter()
    st = create_sandbox_tool(tools=[add])
    t2 = time.perf_counter()
    expect(st.run("console.log(1)", language="javascript"), "1\n")
    t3 = time.perf_counter()
    ms = [(t1 - t0) * 1000, (t2 - t1) * 1000, (t3 - t2) * 1000]
    return [(t3 - t0) * 1000], {"import_ms": ms[0], "create_ms": ms[1], "first_run_ms": ms[2]}


# --------------------------------------------------------------------------------------------
# The Python section (issue 28, point 3): ours only, each figure a ratio taken inside one child
# process, so that machine load hits both sides of a ratio alike.
# --------------------------------------------------------------------------------------------

PY_LOOP = "s = 0\nfor i in range(1_000_000):\n    s += i\nprint(s)"
PY_JSON = ("import json\nrows = [{'id': i, 'name': 'name-' + str(i), 'email': 'user' + str(i) + '@example.com', "
           "'tags': ['alpha', 'beta'], 'score': (i * 7) % 1000, 'active': i % 2 == 0} for i in range(%d)]\n"
           "text = json.dumps(rows)\nback = json.loads(text)\nprint(len(text), len(back))").replace("range(%d)", f"range({JSON_ROWS})")


def _alternate(a: Callable[[], None], b: Callable[[], None], rounds: int, block: int = 1) -> tuple[list[float], list[float]]:
    """Time a and b in alternating blocks of `block` calls, rounds blocks each (milliseconds per
    call): back-to-back calls within a block, as an agent's turn makes them."""
    ta: list[float] = []
    tb: list[float] = []
    for _ in range(rounds):
        for fn, out in ((a, ta), (b, tb)):
            for _ in range(block):
                t = time.perf_counter()
                fn()
                out.append((time.perf_counter() - t) * 1000)
    return ta, tb


def child_py_warm(iterations: int) -> tuple[list[float], dict[str, Any]]:
    """Warm Python `print(1)` against warm JavaScript `console.log(1)`, alternating."""
    from amla_sandbox import Sandbox

    py, js = Sandbox(), Sandbox()
    for _ in range(5):
        expect(py.python("print(1)"), "1\n")
        expect(js.execute("console.log(1)"), "1\n")
    tp, tj = _alternate(lambda: expect(py.python("print(1)"), "1\n"),
                        lambda: expect(js.execute("console.log(1)"), "1\n"), iterations * 4, block=25)
    mp, mj = statistics.median(tp), statistics.median(tj)
    return [mp / mj], {"python_ms": mp, "javascript_ms": mj}


def child_py_cold(iterations: int) -> tuple[list[float], dict[str, Any]]:
    """import + Sandbox() + first run, in this fresh process, for the language AMLA_BENCH_LANG names."""
    lang = os.environ.get("AMLA_BENCH_LANG", "python")
    t0 = time.perf_counter()
    from amla_sandbox import Sandbox

    sb = Sandbox()
    if lang == "python":
        expect(sb.python("print(1)"), "1\n")
    else:
        expect(sb.execute("console.log(1)"), "1\n")
    return [(time.perf_counter() - t0) * 1000], {}


def _rss_kb() -> tuple[int, int]:
    rss = anon = 0
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
        elif line.startswith("RssAnon:"):
            anon = int(line.split()[1])
    return rss, anon


def child_py_rss(iterations: int) -> tuple[list[float], dict[str, Any]]:
    """Resident memory per extra live Python sandbox that has run print(1) (MB): once the
    sandboxes have waited 2 s for their next run (past the 1-1.5 s after which an unused spare
    sheds the pages it maps from the guest's image; gocore/workerpool/spares.go), and also
    0.3 s after their runs (spares reset, not yet shed)."""
    from amla_sandbox import Sandbox

    keep = [Sandbox()]
    expect(keep[0].python("print(1)"), "1\n")
    time.sleep(2.0)
    rss0, anon0 = _rss_kb()
    n = 20
    for _ in range(n):
        sb = Sandbox()
        expect(sb.python("print(1)"), "1\n")
        keep.append(sb)
    time.sleep(0.3)  # the spares are reset after each run's result is out
    rss_busy, _ = _rss_kb()
    time.sleep(1.7)
    rss1, anon1 = _rss_kb()
    per, per_anon = (rss1 - rss0) / n, (anon1 - anon0) / n
    return [per / 1024], {"rss_mb": per / 1024, "anon_mb": per_anon / 1024, "busy_mb": (rss_busy - rss0) / n / 1024}


def child_py_vs_native(code: str, want_prefix: str, iterations: int) -> tuple[list[float], dict[str, Any]]:
    from amla_sandbox import Sandbox

    sb = Sandbox(timeout=120)
    native_ns: dict[str, Any] = {}

    def ours() -> None:
        out = sb.python(code)
        if not out.startswith(want_prefix):
            raise WrongOutput(f"expected {want_prefix!r}..., got {out[:200]!r}")

    def native() -> None:
        import contextlib
        import io

        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(code, "<native>", "exec"), dict(native_ns))

    ours()
    native()
    to, tn = _alternate(ours, native, iterations)
    mo, mn = statistics.median(to), statistics.median(tn)
    return [mo / mn], {"ours_ms": mo, "native_ms": mn, "native": platform.python_version()}


def child_py_loop(iterations: int) -> tuple[list[float], dict[str, Any]]:
    return child_py_vs_native(PY_LOOP, str(sum(range(1_000_000))), iterations)


# A native CPython of the guest's version, built from the guest's own pinned sources by
# bench/native_cpython.py with CPython's default flags (-O3, as the guest's CPython is compiled);
# AMLA_BENCH_NATIVE_CPYTHON names another. The guest build's own native CPython is not used: it
# is built at -O1 to run the build's tools, and is about 30% slower than a default build.
def _native_cpython() -> str | None:
    named = os.environ.get("AMLA_BENCH_NATIVE_CPYTHON")
    if named:
        return named
    built = Path(__file__).resolve().parent.parent / "build" / "bench-native-cpython-default" / "python"
    return str(built) if built.is_file() else None


# Runs in the other interpreter: reads a line, times exec of the loop in a fresh namespace,
# writes the milliseconds.
_NATIVE_SERVER = """
import sys, time
code = compile(sys.argv[1], "<native>", "exec")
for _ in sys.stdin:
    t = time.perf_counter()
    exec(code, {})
    print((time.perf_counter() - t) * 1000, flush=True)
"""


def child_py_loop_same(iterations: int) -> tuple[list[float], dict[str, Any]]:
    """The 1M loop against a native build of the guest's own CPython version (timed inside
    that interpreter, exec only, as the in-process native figure is): what WebAssembly costs,
    apart from the difference between CPython 3.13 and the machine's CPython."""
    import subprocess

    native = _native_cpython()
    if native is None:
        raise FileNotFoundError("no native build of the guest's CPython: run `python bench/native_cpython.py` "
                                "(about 4 minutes) or set AMLA_BENCH_NATIVE_CPYTHON")
    from amla_sandbox import Sandbox

    sb = Sandbox(timeout=120)
    loop = PY_LOOP.replace("print(s)", "s")
    proc = subprocess.Popen([native, "-I", "-c", _NATIVE_SERVER, loop], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        def native_ms() -> float:
            proc.stdin.write("\n")
            proc.stdin.flush()
            return float(proc.stdout.readline())

        def ours_ms() -> float:
            t = time.perf_counter()
            expect(sb.python(PY_LOOP), f"{sum(range(1_000_000))}\n")
            return (time.perf_counter() - t) * 1000

        ours_ms()
        native_ms()
        to, tn = [], []
        for _ in range(iterations):
            to.append(ours_ms())
            tn.append(native_ms())
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    version = subprocess.run([native, "-c", "import platform; print(platform.python_version())"],
                             capture_output=True, text=True, check=True).stdout.strip()
    mo, mn = statistics.median(to), statistics.median(tn)
    return [mo / mn], {"ours_ms": mo, "native_ms": mn, "native": version}


def child_py_json(iterations: int) -> tuple[list[float], dict[str, Any]]:
    return child_py_vs_native(PY_JSON, "", iterations)


def child_py_data(iterations: int) -> tuple[list[float], dict[str, Any]]:
    """With the data guest: a fresh sandbox's first run (state from the snapshot), and
    `df.groupby` over 1M rows against native pandas when this interpreter has pandas."""
    from amla_sandbox import Sandbox

    warm = Sandbox(python_data=True, memory_limit=1 << 30, timeout=120)
    expect(warm.python("import pandas\nprint(1)"), "1\n")
    starts = []
    for _ in range(max(3, iterations)):
        t = time.perf_counter()
        sb = Sandbox(python_data=True, memory_limit=1 << 30)
        expect(sb.python("import numpy, pandas\nprint(1)"), "1\n")
        starts.append((time.perf_counter() - t) * 1000)
        sb.close()
    setup = ("import numpy as np, pandas as pd\nrng = np.random.default_rng(1)\n"
             "df = pd.DataFrame({'k': rng.integers(0, 1000, 1_000_000), 'v': rng.random(1_000_000)})")
    group = setup + ("\nimport time as _t\nfor _ in range(5):\n    _t0 = _t.perf_counter()\n"
                     "    r = df.groupby('k')['v'].mean()\n    print((_t.perf_counter() - _t0) * 1000)")
    ours = [float(x) for x in warm.python(group).split()]
    extra: dict[str, Any] = {"start_ms": statistics.median(starts), "groupby_ms": statistics.median(ours)}
    try:
        import numpy as np
        import pandas as pd

        rng = np.random.default_rng(1)
        df = pd.DataFrame({"k": rng.integers(0, 1000, 1_000_000), "v": rng.random(1_000_000)})
        native = []
        for _ in range(5):
            t = time.perf_counter()
            df.groupby("k")["v"].mean()
            native.append((time.perf_counter() - t) * 1000)
        extra["native_groupby_ms"] = statistics.median(native)
        extra["groupby_ratio"] = extra["groupby_ms"] / extra["native_groupby_ms"]
    except ImportError:
        extra["native_groupby_ms"] = None
    return [extra["start_ms"]], extra


PY_SECTION = [
    # (child workload, title, target, how the figure reads)
    ("py_warm", "warm Python `print(1)` / warm JavaScript `console.log(1)`", 3.0, "ratio"),
    ("py_cold", "fresh process: import + `Sandbox()` + first run, Python / JavaScript", 1.5, "ratio"),
    ("py_rss", "RSS per extra live Python sandbox that has run, waiting 2 s for its next run (MB)", 3.0, "MB"),
    ("py_loop", "1,000,000-iteration loop / native CPython", 2.5, "ratio"),
    ("py_loop_same", "the same loop / native CPython of the guest's version, built from its sources", None, "ratio"),
    ("py_json", "5 MB `json.dumps` + `json.loads` / native CPython", 2.0, "ratio"),
    ("py_data", "data guest: a fresh sandbox's first run (ms); groupby over 1M rows / native pandas", 10.0, "ms"),
]


def python_section(impl: Impl, processes: int, timeout: float, workdir: Path) -> str:
    """Run the Python section's workloads and render them as a Markdown table."""
    lines = ["| workload | figure (median of processes) | target | met |", "|---|---|---|---|"]
    for name, title, target, unit in PY_SECTION:
        log(f"{name}: {title}")
        results = []
        for _ in range(processes):
            if name == "py_cold":
                cold = {}
                for lang in ("python", "javascript"):
                    env = dict(impl.env, AMLA_BENCH_LANG=lang)
                    r = run_child(Impl(impl.key, impl.python, env), "py_cold", 1, impl.module_cache or workdir,
                                  timeout, workdir)
                    cold[lang] = r
                if cold["python"].get("ok") and cold["javascript"].get("ok"):
                    results.append({"ok": True, "times_ms": [cold["python"]["times_ms"][0] / cold["javascript"]["times_ms"][0]],
                                    "extra": {"python_ms": cold["python"]["times_ms"][0],
                                              "javascript_ms": cold["javascript"]["times_ms"][0]}})
                else:
                    results.append(cold["python"] if not cold["python"].get("ok") else cold["javascript"])
                continue
            results.append(run_child(impl, name, 3, impl.module_cache or workdir, timeout, workdir))
        ok = [r for r in results if r.get("ok")]
        if not ok:
            lines.append(f"| {title} | {results[0].get('error', 'failed')} | {_target(target)} | — |")
            continue
        fig = statistics.median(r["times_ms"][0] for r in ok)
        detail = ""
        if name == "py_rss":
            anon = statistics.median(r["extra"]["anon_mb"] for r in ok)
            busy = statistics.median(r["extra"].get("busy_mb", float("nan")) for r in ok)
            detail = f" ({anon:.2f} anonymous, target ≤ 1; {busy:.2f} MB 0.3 s after its run)"
        elif name == "py_data":
            g = [r["extra"].get("groupby_ratio") for r in ok if r["extra"].get("groupby_ratio")]
            gms = statistics.median(r["extra"]["groupby_ms"] for r in ok)
            detail = f"; groupby {gms:.1f} ms" + (f", {statistics.median(g):.2f}× native (target ≤ 1.5)" if g else
                                                  ", no native pandas here")
        elif "python_ms" in ok[0]["extra"]:
            detail = (f" ({statistics.median(r['extra']['python_ms'] for r in ok):.3f} vs "
                      f"{statistics.median(r['extra']['javascript_ms'] for r in ok):.3f} ms)")
        elif "ours_ms" in ok[0]["extra"]:
            detail = (f" ({statistics.median(r['extra']['ours_ms'] for r in ok):.1f} vs "
                      f"{statistics.median(r['extra']['native_ms'] for r in ok):.1f} ms)")
        shown = f"{fig:.2f}×" if unit == "ratio" else f"{fig:.2f} {unit}"
        met = "—" if target is None else "yes" if fig <= target else "no"
        lines.append(f"| {title} | {shown}{detail} | {_target(target)} | {met} |")
    return "\n".join(lines) + "\n"


def _target(target: float | None) -> str:
    return "— (for reading the row above)" if target is None else f"≤ {target}"


CHILD_WORKLOADS: dict[str, Callable[[int], tuple[list[float], dict[str, Any]]]] = {
    "console_log": child_console_log,
    "shell_echo": child_shell_echo,
    "loop_1m": child_loop_1m,
    "json_5mb": child_json_5mb,
    "tool_10mb": child_tool_10mb,
    "promise_all_10": child_promise_all_10,
    "promise_all_10_async": child_promise_all_10_async,
    "shell_pipeline_10mb": child_shell_pipeline,
    "shell_jq_5mb": child_shell_jq,
    "cold_warm_cache": child_cold,
    "cold_empty_cache": child_cold,
    "info": lambda iterations: ([], {}),
    "py_warm": child_py_warm,
    "py_cold": child_py_cold,
    "py_rss": child_py_rss,
    "py_loop": child_py_loop,
    "py_loop_same": child_py_loop_same,
    "py_json": child_py_json,
    "py_data": child_py_data,
}


def peak_rss_kb() -> int:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, kids)  # kilobytes on Linux


def child_main(workload: str, iterations: int) -> None:
    """Run one workload in this (fresh) process and print one result line."""
    result: dict[str, Any] = {"ok": False, "times_ms": [], "extra": {}}
    try:
        times, extra = CHILD_WORKLOADS[workload](iterations)
        result.update(ok=True, times_ms=times, extra=extra)
    except BaseException as e:  # noqa: BLE001 - every failure is data for the table
        text = f"{type(e).__name__}: {e}".strip()
        result["error"] = " ".join(text.split())[:300]
    try:
        import importlib.metadata

        import amla_sandbox

        result["module"] = str(Path(amla_sandbox.__file__).parent)
        try:
            result["version"] = importlib.metadata.version("amla-sandbox")
        except importlib.metadata.PackageNotFoundError:
            result["version"] = "unknown"
    except BaseException as e:  # noqa: BLE001
        result["ok"] = False
        result.setdefault("error", f"import failed: {type(e).__name__}: {e}")
    result["peak_rss_kb"] = peak_rss_kb()
    sys.stdout.flush()
    print(RESULT_MARK + json.dumps(result), flush=True)


# --------------------------------------------------------------------------------------------
# Parent side.
# --------------------------------------------------------------------------------------------


@dataclass
class Workload:
    name: str
    title: str
    target: float | None  # target for ours/reference (None: informational)
    iterations: int  # timed iterations per process (cold workloads: always 1)
    kind: str = "warm"  # warm | cold | cold_empty
    # A shell row's command with {f} for its data file, the data's maker, and the target for
    # ours/native (GNU tools, jq): measured on the host too and shown in a second table.
    native: tuple[str, Callable[[], str], Callable[[str], str], float] | None = None


WORKLOADS = [
    Workload("console_log", "warm `console.log(1)` on one sandbox (`Sandbox.execute`)", 0.5, 20),
    Workload("shell_echo", "warm shell `echo 1` (`Sandbox.shell`)", 1.0, 20),
    Workload("loop_1m", "1,000,000-iteration JS loop", 1.2, 2),
    Workload("json_5mb", "build a 5 MB JSON text in JS, `JSON.parse` + `JSON.stringify`", 1.2, 2),
    Workload("tool_10mb", "tool returns 100k rows (10.1 MB of JSON), script reads them", 1.0, 1),
    Workload("promise_all_10", "`Promise.all` of 10 tool calls (`run()`, sync tool)", 1.0, 10),
    Workload("promise_all_10_async", "`Promise.all` of 10 tool calls (`execute_async`, async handler)", None, 10),
    Workload("shell_pipeline_10mb", "shell `grep ERROR f \\| sort \\| uniq -c \\| sort -rn \\| head -5` over a 10 MB log",
             0.5, 3, native=(PIPELINE_SH, make_log, pipeline_expected, 15.0)),
    Workload("shell_jq_5mb", "shell `jq` select + group_by + map over a 5 MB JSON array", 1.0, 3,
             native=(JQ_SH, make_json, jq_expected, 1.5)),
    Workload("cold_warm_cache", "cold start, fresh process, warm module cache", 1.0, 1, "cold"),
    Workload("cold_empty_cache", "cold start, fresh process, EMPTY module cache", 1.0, 1, "cold_empty"),
]


@dataclass
class Impl:
    key: str  # "ours" | "ref"
    python: str
    env: dict[str, str]
    module_cache: Path | None = None  # XDG_CACHE_HOME for warm-cache children
    module: str = "?"  # package directory the children import
    origin: str = "?"  # where that package came from (differs from module when copied)
    version: str = "?"


@dataclass
class Samples:
    times_ms: list[float] = field(default_factory=list)
    rss_kb: list[int] = field(default_factory=list)
    extras: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    processes: int = 0

    def median(self) -> float | None:
        return statistics.median(self.times_ms) if self.times_ms else None

    def best(self) -> float | None:
        return min(self.times_ms) if self.times_ms else None


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "amla-bench"


def ensure_reference(cache_dir: Path, version: str) -> Path:
    """The reference's venv, created on first use and reused afterwards (keyed by version)."""
    venv = cache_dir / f"ref-{version}"
    python = venv / "bin" / "python"
    stamp = venv / ".amla-bench-installed"
    if stamp.is_file() and stamp.read_text().strip() == version and python.exists():
        return python
    log(f"creating {venv} and installing amla-sandbox=={version} from PyPI ...")
    if venv.exists():
        shutil.rmtree(venv)
    cache_dir.mkdir(parents=True, exist_ok=True)
    steps = [
        [sys.executable, "-m", "venv", str(venv)],
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", f"amla-sandbox=={version}"],
    ]
    for cmd in steps:
        try:
            subprocess.run(cmd, check=True, timeout=600)
        except (OSError, subprocess.SubprocessError) as e:
            raise SystemExit(f"compare.py: could not install the reference amla-sandbox=={version} "
                             f"into {venv} ({' '.join(cmd[:4])} ...): {e}") from e
    stamp.write_text(version + "\n")
    return python


def child_env(impl: Impl, xdg_cache: Path) -> dict[str, str]:
    env = dict(impl.env)
    env["XDG_CACHE_HOME"] = str(xdg_cache)
    env["AMLA_BENCH_IMPL"] = impl.key
    return env


def run_child(impl: Impl, workload: str, iterations: int, xdg_cache: Path, timeout: float,
              workdir: Path) -> dict[str, Any]:
    """One fresh process; returns its result dict (never raises for a failing workload)."""
    cmd = [impl.python, str(Path(__file__).resolve()), "--child", workload, "--iterations", str(iterations)]
    t = time.perf_counter()
    try:
        proc = subprocess.run(cmd, env=child_env(impl, xdg_cache), cwd=workdir, capture_output=True,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"ok": False, "timeout": True, "error": f"timeout after {timeout:.0f} s", "times_ms": []}
    wall = (time.perf_counter() - t) * 1000
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(RESULT_MARK):
            result: dict[str, Any] = json.loads(line[len(RESULT_MARK):])
            result["process_wall_ms"] = wall
            return result
    tail = " ".join((proc.stderr or proc.stdout).split())[-300:]
    return {"ok": False, "error": f"child exited {proc.returncode} without a result: {tail}", "times_ms": []}


def files_stamp(package_dir: str) -> str:
    """Identity of the compiled parts of our package (guest wasm, core library), by content:
    a rebuild that produces the same bytes keeps its primed cache (no needless recompile)."""
    h = hashlib.sha256()
    root = Path(package_dir)
    for p in sorted([*root.rglob("*.wasm"), *root.rglob("*.so")]):
        h.update(f"{p.relative_to(root)}\n".encode())
        with p.open("rb") as f:
            while chunk := f.read(1 << 20):
                h.update(chunk)
    return h.hexdigest()[:16]


def locate_package(impl: Impl, workdir: Path, timeout: float) -> str:
    """The directory impl's children import amla_sandbox from (exits with a clear error if none)."""
    info = run_child(impl, "info", 1, workdir, timeout, workdir)
    if not info.get("ok") or "module" not in info:
        hint = "; set PYTHONPATH to the source tree or --ours-python" if impl.key == "ours" else ""
        raise SystemExit(f"compare.py: {impl.python} cannot import amla_sandbox for {impl.key!r}: "
                         f"{info.get('error', 'no module path reported')}{hint}")
    impl.version = info.get("version", "?")
    return str(info["module"])


def prepare_package(impl: Impl, workdir: Path, copy_to: Path | None, timeout: float) -> None:
    """Find the package impl imports; with copy_to, measure a private copy of it instead.

    The copy keeps one run consistent in a shared source tree, where someone may rebuild the
    guest or the core library in the middle of a five-minute measurement."""
    impl.origin = impl.module = locate_package(impl, workdir, timeout)
    if copy_to is None:
        return
    dest = copy_to / Path(impl.origin).name
    shutil.copytree(impl.origin, dest, symlinks=True)
    impl.env["PYTHONPATH"] = os.pathsep.join(p for p in (str(copy_to), impl.env.get("PYTHONPATH")) if p)
    version = impl.version
    impl.module = locate_package(impl, workdir, timeout)
    impl.version = version  # the copy has no distribution metadata beside it
    if Path(impl.module) != dest:
        raise SystemExit(f"compare.py: the copy of {impl.origin} at {dest} is not what {impl.python} "
                         f"imports ({impl.module}); try --no-copy")


def prepare_module_cache(impl: Impl, cache_dir: Path, ref_version: str, workdir: Path, timeout: float) -> None:
    """Give impl a bench-owned compiled-guest cache and fill it (one unmeasured cold start)."""
    root = cache_dir / "module-cache"
    if impl.key == "ref":
        name = f"ref-{ref_version}"
    else:
        # Keyed by the build: a rebuilt guest gets a new directory and the old one is removed,
        # so repeated runs during development do not pile up stale compiled guests.
        name = f"ours-{files_stamp(impl.module)}"
        for old in root.glob("ours-*"):
            if old.name != name:
                shutil.rmtree(old, ignore_errors=True)
    impl.module_cache = root / name
    impl.module_cache.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    res = run_child(impl, "cold_warm_cache", 1, impl.module_cache, timeout, workdir)
    status = "ok" if res.get("ok") else f"FAILED: {res.get('error')}"
    copied = f" (measured from a copy at {impl.module})" if impl.module != impl.origin else ""
    log(f"  {impl.key}: {impl.origin}{copied} ({impl.version}); module cache primed in "
        f"{time.perf_counter() - t:.1f} s, {status}")


def measure(w: Workload, impls: list[Impl], processes: int, timeout: float, workdir: Path) -> dict[str, Samples]:
    out = {impl.key: Samples() for impl in impls}
    given_up: set[str] = set()
    for p in range(processes):
        order = impls if p % 2 == 0 else list(reversed(impls))
        for impl in order:
            if impl.key in given_up:
                continue
            s = out[impl.key]
            tmp = None
            if w.kind == "cold_empty":
                tmp = Path(tempfile.mkdtemp(prefix="amla-bench-xdg-"))
                xdg = tmp
            else:
                assert impl.module_cache is not None
                xdg = impl.module_cache
            try:
                limit = timeout * (2 if w.kind == "cold_empty" else 1)
                res = run_child(impl, w.name, w.iterations, xdg, limit, workdir)
            finally:
                if tmp is not None:
                    shutil.rmtree(tmp, ignore_errors=True)
            s.processes += 1
            if res.get("ok"):
                s.times_ms.extend(res["times_ms"])
                s.extras.append(res.get("extra", {}))
            else:
                s.errors.append(res.get("error", "unknown failure"))
                if res.get("timeout"):
                    given_up.add(impl.key)  # do not spend the whole budget on repeated timeouts
            if "peak_rss_kb" in res:
                s.rss_kb.append(res["peak_rss_kb"])
        log(f"  {w.name} process {p + 1}/{processes}, medians so far: " + ", ".join(
            f"{k} {fmt_ms(v.median())}" + (f" ({len(v.errors)} failed)" if v.errors else "") for k, v in out.items()))
    return out


def measure_native(w: Workload, processes: int, timeout: float, workdir: Path) -> Samples:
    """Time a shell row's command with the host's GNU tools and jq (LC_ALL=C), as many runs as
    each implementation gets processes; an error names what is missing or what differed."""
    assert w.native is not None
    command, make, expected, _ = w.native
    s = Samples()
    data = make()
    path = workdir / f"native-{w.name}.data"
    path.write_text(data)
    cmd = ["bash", "-c", command.format(f=str(path))]
    env = {"LC_ALL": "C", "PATH": "/usr/bin:/bin"}
    try:
        want = expected(data)
        for _ in range(processes + 1):  # the first run warms the page cache
            t = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
            ms = (time.perf_counter() - t) * 1000
            s.processes += 1
            if proc.returncode != 0 or proc.stdout != want:
                s.errors.append(f"native exited {proc.returncode}, output {proc.stdout[:200]!r} "
                                f"(expected {want[:200]!r}); {proc.stderr.strip()[:200]}")
                break
            if s.processes > 1:
                s.times_ms.append(ms)
    except (OSError, subprocess.SubprocessError) as e:
        s.errors.append(f"native tools unavailable: {e}")
    finally:
        path.unlink(missing_ok=True)
    return s


def fmt_ms(ms: float | None) -> str:
    if ms is None:
        return "—"
    if ms < 10:
        return f"{ms:.2f} ms"
    if ms < 1000:
        return f"{ms:.0f} ms" if ms >= 100 else f"{ms:.1f} ms"
    return f"{ms / 1000:.2f} s"


def cell(s: Samples) -> str:
    text = fmt_ms(s.median())
    if s.errors:
        err = s.errors[0].replace("|", "\\|")
        if len(err) > 120:
            err = err[:117] + "..."
        failed = f"**failed {len(s.errors)}/{s.processes}**: {err}"
        text = failed if s.median() is None else f"{text} ({failed})"
    return text


def fmt_ratio(r: float | None) -> str:
    return "—" if r is None else f"{r:.2f}×"


def rss_cell(s: Samples) -> str:
    return f"{statistics.median(s.rss_kb) / 1024:.0f} MB" if s.rss_kb else "—"


def ratio(ours: Samples, ref: Samples) -> float | None:
    a, b = ours.median(), ref.median()
    return a / b if a is not None and b else None


def best_ratio(ours: Samples, ref: Samples) -> float | None:
    """Ratio of the fastest samples: less sensitive to other load on a shared machine."""
    a, b = ours.best(), ref.best()
    return a / b if a is not None and b else None


def target_met(w: Workload, ours: Samples, ref: Samples) -> str:
    """'yes'/'no' against issue 8's target; a failing run of ours (e.g. a memory limit) is a miss."""
    if w.target is None or ref.median() is None:
        return "—"
    if ours.errors:
        return "no"
    r = ratio(ours, ref)
    return "yes" if r is not None and r <= w.target else "no"


def git_revision(path: str) -> str:
    """Commit of the tree our package was imported from ('+dirty' with local changes), or ''."""
    try:
        rev = subprocess.run(["git", "-C", path, "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, timeout=10)
        if rev.returncode != 0:
            return ""
        dirty = subprocess.run(["git", "-C", path, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=30)
        return rev.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return ""


def loadavg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def render_markdown(meta: dict[str, Any], rows: list[tuple[Workload, dict[str, Samples]]]) -> str:
    lines = [
        f"Run {meta['date']} on {meta['machine']}; load average {meta['load_before']} before, "
        f"{meta['load_after']} after; {meta['elapsed_s']:.0f} s total.",
        f"ours: {meta['ours']['version']} at `{meta['ours']['module']}`"
        + (f" (git {meta['ours']['git']})" if meta['ours']['git'] else "")
        + (", measured from a copy taken at the start" if meta['ours']['copied'] else "")
        + f"; reference: amla-sandbox "
        f"{meta['ref']['version']} at `{meta['ref']['module']}`.",
        f"Medians over {meta['processes']} fresh processes per implementation "
        f"({meta['cold_empty_processes']} for the empty-cache start); peak RSS is the child process's.",
        "",
        "| workload | ours | reference | ours/ref | target | met | ours/ref, fastest | ours peak RSS | ref peak RSS |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for w, s in rows:
        r = ratio(s["ours"], s["ref"])
        target = f"≤ {w.target:g}×" if w.target is not None else "—"
        met = target_met(w, s["ours"], s["ref"])
        lines.append(f"| {w.title} | {cell(s['ours'])} | {cell(s['ref'])} | "
                     f"{fmt_ratio(r)} | {target} | {met} | {fmt_ratio(best_ratio(s['ours'], s['ref']))} | "
                     f"{rss_cell(s['ours'])} | {rss_cell(s['ref'])} |")
    native_rows = [(w, s) for w, s in rows if w.native is not None and "native" in s]
    if native_rows:
        lines += ["", "Shell rows against native tools (GNU grep/coreutils, jq; `LC_ALL=C`), same data:", "",
                  "| workload | ours | reference | native | ours/native | target | met |",
                  "|---|---|---|---|---|---|---|"]
        for w, s in native_rows:
            assert w.native is not None
            r = ratio(s["ours"], s["native"])
            met = "—" if r is None or s["ours"].errors else ("yes" if r <= w.native[3] else "no")
            lines.append(f"| {w.title} | {cell(s['ours'])} | {cell(s['ref'])} | {cell(s['native'])} | "
                         f"{fmt_ratio(r)} | ≤ {w.native[3]:g}× | {met} |")
        for w, s in native_rows:
            wrong = [e["output_differs"] for e in s["ref"].extras if "output_differs" in e]
            if wrong:
                lines.append(f"\nThe reference printed something else for {w.name} (timed all the same): "
                             f"`{wrong[0][:120]!r}`")
    return "\n".join(lines) + "\n"


def render_json(meta: dict[str, Any], rows: list[tuple[Workload, dict[str, Samples]]]) -> str:
    data = dict(meta)
    data["workloads"] = []
    for w, s in rows:
        item: dict[str, Any] = {"name": w.name, "title": w.title, "target": w.target,
                                "iterations_per_process": w.iterations, "ratio": ratio(s["ours"], s["ref"]),
                                "ratio_fastest": best_ratio(s["ours"], s["ref"]), "met": target_met(w, s["ours"], s["ref"])}
        for key, samples in s.items():
            item[key] = {"median_ms": samples.median(), "fastest_ms": samples.best(), "times_ms": samples.times_ms,
                         "peak_rss_kb": samples.rss_kb, "errors": samples.errors,
                         "processes": samples.processes, "extra": samples.extras}
        data["workloads"].append(item)
    return json.dumps(data, indent=2) + "\n"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    names = [w.name for w in WORKLOADS]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--workloads", default=",".join(names),
                    help=f"comma-separated subset of: {', '.join(names)}")
    ap.add_argument("--processes", type=int, default=5, help="fresh processes per implementation and workload")
    ap.add_argument("--cold-empty-processes", type=int, default=1,
                    help="processes for cold_empty_cache (each compiles the guest from scratch)")
    ap.add_argument("--timeout", type=float, default=120.0,
                    help="seconds per child process (doubled for the empty-cache start)")
    ap.add_argument("--cache-dir", type=Path, default=default_cache_dir(),
                    help="where the reference venv and the bench's module caches live")
    ap.add_argument("--ref-version", default=REF_VERSION, help="amla-sandbox version from PyPI to compare with")
    ap.add_argument("--ours-python", default=sys.executable, help="interpreter that imports our package")
    ap.add_argument("--ours-pythonpath", default=None,
                    help="prepend this to PYTHONPATH for our children (e.g. the source tree)")
    ap.add_argument("--no-copy", action="store_true",
                    help="measure our package in place instead of from a private copy made at the start")
    ap.add_argument("--json", nargs="?", const="-", default=None, metavar="FILE",
                    help="write JSON to FILE (or, without FILE, print JSON instead of Markdown)")
    ap.add_argument("--python", action="store_true",
                    help="the Python section instead (ours only; issue 28's ratios, each taken inside one process)")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--iterations", type=int, default=1, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child is None:
        unknown = [n for n in args.workloads.split(",") if n and n not in names]
        if unknown:
            ap.error(f"unknown workload(s) {', '.join(unknown)}; choose from {', '.join(names)}")
        if args.processes < 1 or args.cold_empty_processes < 1:
            ap.error("--processes and --cold-empty-processes must be at least 1")
    elif args.child not in CHILD_WORKLOADS:
        ap.error(f"unknown child workload {args.child!r}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child is not None:
        child_main(args.child, args.iterations)
        return 0

    started = time.perf_counter()
    load_before = loadavg()
    ours_env = dict(os.environ)
    if args.ours_pythonpath:
        ours_env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(Path(args.ours_pythonpath).resolve()), ours_env.get("PYTHONPATH")) if p)
    if args.python:
        with tempfile.TemporaryDirectory(prefix="amla-bench-") as tmp:
            workdir = Path(tmp) / "run"
            workdir.mkdir()
            impl = Impl("ours", args.ours_python, ours_env)
            prepare_package(impl, workdir, None, args.timeout)
            prepare_module_cache(impl, args.cache_dir.expanduser().resolve(), args.ref_version, workdir, args.timeout * 2)
            table = python_section(impl, args.processes, args.timeout * 4, workdir)
        sys.stdout.write(f"Python section, {time.strftime('%Y-%m-%d %H:%M %Z')}, load {load_before} -> {loadavg()}, "
                         f"{args.processes} processes, {impl.origin}\n\n{table}")
        return 0
    selected = [w for w in WORKLOADS if w.name in args.workloads.split(",")]
    cache_dir: Path = args.cache_dir.expanduser().resolve()
    ref_python = ensure_reference(cache_dir, args.ref_version)

    ref_env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV")}
    impls = [Impl("ours", args.ours_python, ours_env), Impl("ref", str(ref_python), ref_env)]

    rows: list[tuple[Workload, dict[str, Samples]]] = []
    with tempfile.TemporaryDirectory(prefix="amla-bench-") as tmp:
        workdir = Path(tmp) / "run"  # children run here, so none imports a package from the caller's cwd
        workdir.mkdir()
        copy_to = None if args.no_copy else Path(tmp) / "ours"
        if copy_to is not None:
            copy_to.mkdir()
        prepare_package(impls[0], workdir, copy_to, args.timeout)
        prepare_package(impls[1], workdir, None, args.timeout)
        log("preparing module caches ...")
        for impl in impls:
            prepare_module_cache(impl, cache_dir, args.ref_version, workdir, args.timeout * 2)
        for w in selected:
            log(f"{w.name}: {w.title}")
            n = args.cold_empty_processes if w.kind == "cold_empty" else args.processes
            samples = measure(w, impls, n, args.timeout, workdir)
            if w.native is not None:
                samples["native"] = measure_native(w, n, args.timeout, workdir)
                log(f"  {w.name} native: {fmt_ms(samples['native'].median())}")
            rows.append((w, samples))

    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "machine": f"{os.cpu_count()} CPUs, {platform.system()} {platform.machine()}, Python {platform.python_version()}",
        "load_before": load_before,
        "load_after": loadavg(),
        "elapsed_s": time.perf_counter() - started,
        "processes": args.processes,
        "cold_empty_processes": args.cold_empty_processes,
        "ours": {"python": impls[0].python, "module": impls[0].origin, "version": impls[0].version,
                 "copied": impls[0].module != impls[0].origin, "git": git_revision(impls[0].origin)},
        "ref": {"python": impls[1].python, "module": impls[1].origin, "version": impls[1].version},
    }
    if args.json == "-":
        sys.stdout.write(render_json(meta, rows))
    else:
        if args.json:
            Path(args.json).write_text(render_json(meta, rows))
        sys.stdout.write(render_markdown(meta, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
