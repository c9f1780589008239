#!/usr/bin/env python3
"""The Python guest against native CPython on the same machine, in the same run
(issue 17's targets; numbers go into docs/performance.md).

    python bench/bench_python.py [--repeat 5] [--json out.json]

Rows:
- first_run: a fresh process makes a Sandbox and runs print(1) (module caches
  warm: the compiled guest is in the user cache); import time apart.
- warm_print: Sandbox.python("print(1)") on a sandbox that has run, median
  of many.
- loop_1m and json_5mb: timed inside the script by time.perf_counter(), in
  the sandbox and by this interpreter running the same code with exec(), so
  both sides measure the work alone.
- tool_round_trip: one tool call from Python (a handler returning a small
  dict), per call over 1,000 calls in one run.
- rss_per_sandbox: host RSS growth per extra live Sandbox that has run
  print(1), over 20 sandboxes (VmRSS, and RssAnon: memory of its own),
  and the same for JavaScript.

The native side is the interpreter running this script (say which in
docs/performance.md: it may be another CPython version than the guest's).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from typing import Any

from amla_sandbox import Sandbox, ToolDefinition

LOOP = "s = 0\nfor i in range(1_000_000):\n    s += i\n"
JSON_SETUP = (
    "import json\n"
    "rows = [{'id': i, 'name': 'item %d' % i, 'tags': ['a', 'b', 'c'], 'price': i * 0.25, 'ok': i % 2 == 0}"
    " for i in range(60_000)]\n"
    "text = json.dumps(rows)\n"
)
JSON_WORK = "obj = json.loads(text)\nout = json.dumps(obj)\n"


def timed_script(setup: str, work: str) -> str:
    """A script that runs setup, then prints how long work took (ms)."""
    return setup + "import time as _t\n_t0 = _t.perf_counter()\n" + work + "print((_t.perf_counter() - _t0) * 1000)\n"


def native_ms(setup: str, work: str) -> float:
    ns: dict[str, Any] = {}
    exec(setup, ns)
    t = time.perf_counter()
    exec(work, ns)
    return (time.perf_counter() - t) * 1000


def sandbox_ms(sb: Sandbox, setup: str, work: str) -> float:
    return float(sb.python(timed_script(setup, work)).strip())


def rss_bytes() -> dict[str, int]:
    """VmRSS and its anonymous part (RssAnon): file-backed pages of the
    guests' mapped images are counted once per mapping in VmRSS, though
    every sandbox maps the same file (one copy in the page cache)."""
    got = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "RssAnon"):
                got[key] = int(value.split()[0]) * 1024
    return got


FIRST_RUN = """
import time, json
t0 = time.perf_counter()
from amla_sandbox import Sandbox
t1 = time.perf_counter()
sb = Sandbox()
out = sb.python("print(1)")
t2 = time.perf_counter()
assert out == "1\\n", out
print(json.dumps({"import_ms": (t1 - t0) * 1000, "first_run_ms": (t2 - t1) * 1000}))
"""


def first_run(repeat: int) -> dict[str, list[float]]:
    got: dict[str, list[float]] = {"import_ms": [], "first_run_ms": []}
    # One unmeasured process primes the module cache (compiled guest).
    subprocess.run([sys.executable, "-c", FIRST_RUN], check=True, capture_output=True)
    for _ in range(repeat):
        r = subprocess.run([sys.executable, "-c", FIRST_RUN], check=True, capture_output=True, text=True)
        for k, v in json.loads(r.stdout.strip().splitlines()[-1]).items():
            got[k].append(v)
    return got


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5, help="samples per row (medians and ranges reported)")
    ap.add_argument("--json", help="also write every sample to this file")
    args = ap.parse_args()
    rows: dict[str, dict[str, list[float]]] = {}

    print("first run in fresh processes ...", file=sys.stderr)
    rows["first_run"] = first_run(args.repeat)

    tool = ToolDefinition(name="get", description="a small dict", parameters={"type": "object"})
    with Sandbox(tools=[tool], tool_handler=lambda m, p: {"ok": True, "n": 1}) as sb:
        sb.python("print(1)")
        print("warm print(1) ...", file=sys.stderr)
        warm = []
        for _ in range(args.repeat):
            times = []
            for _ in range(200):
                t = time.perf_counter()
                sb.python("print(1)")
                times.append((time.perf_counter() - t) * 1000)
            warm.append(statistics.median(times))
        rows["warm_print"] = {"sandbox_ms": warm}

        print("loop and json ...", file=sys.stderr)
        for name, setup, work in (("loop_1m", "", LOOP), ("json_5mb", JSON_SETUP, JSON_WORK)):
            rows[name] = {
                "sandbox_ms": [sandbox_ms(sb, setup, work) for _ in range(args.repeat)],
                "native_ms": [native_ms(setup, work) for _ in range(args.repeat)],
            }

        print("tool round trips ...", file=sys.stderr)
        per_call = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            sb.python("for _ in range(1000):\n    get()\n")
            per_call.append((time.perf_counter() - t) * 1000)  # ms per 1,000 calls = µs per call
        rows["tool_round_trip"] = {"sandbox_us": per_call}

    print("RSS per sandbox ...", file=sys.stderr)
    # Python, then JavaScript for comparison: each row's sandboxes stay
    # live until it is measured.
    for name, run in (("rss_per_sandbox", lambda s: s.python("print(1)")), ("rss_per_sandbox_js", lambda s: s.execute("console.log(1)"))):
        warm = Sandbox()
        run(warm)  # the guest loaded once
        before = rss_bytes()
        live = []
        for _ in range(20):
            s = Sandbox()
            run(s)
            live.append(s)
        after = rss_bytes()
        rows[name] = {f"{k}_mib": [(after[k] - before[k]) / len(live) / 2**20] for k in after}
        for s in [warm, *live]:
            s.close()

    print(f"| row | ours (median, range) | native {sys.version.split()[0]} | ratio |")
    print("|---|---|---|---|")
    for name, cols in rows.items():
        for key, samples in cols.items():
            if key == "native_ms":
                continue
            med = statistics.median(samples)
            native = cols.get("native_ms")
            nat = statistics.median(native) if native else None
            ratio = f"{med / nat:.2f}×" if nat else ""
            natcell = f"{nat:.1f} ms ({min(native):.1f}–{max(native):.1f})" if native else ""
            print(f"| {name} {key} | {med:.2f} ({min(samples):.2f}–{max(samples):.2f}) | {natcell} | {ratio} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
