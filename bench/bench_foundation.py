"""Foundation benchmarks: startup, warm runs, tool-call round trips, big results.

Run after `pip install .`:  python bench/bench_foundation.py [--repeat N]
Prints a Markdown table of medians (the numbers in docs/performance.md).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from timing import median_ms, parse_args

FIRST_RUN = """
import time
t0 = time.perf_counter()
from amla_sandbox import Sandbox
t1 = time.perf_counter()
sb = Sandbox()
out = sb.execute("console.log(1)")
t2 = time.perf_counter()
assert out == "1\\n", out
print(f"{(t1 - t0) * 1000:.2f} {(t2 - t0) * 1000:.2f}")
"""


def fresh_process(cache_dir: str) -> tuple[float, float]:
    env = dict(os.environ, XDG_CACHE_HOME=cache_dir)
    out = subprocess.run([sys.executable, "-c", FIRST_RUN], env=env, capture_output=True, text=True, check=True)
    imp, total = out.stdout.split()
    return float(imp), float(total)


def main() -> None:
    args = parse_args()

    from amla_sandbox import Sandbox, ToolDefinition
    from amla_sandbox._wasm import get_wasm_path
    from amla_sandbox._core import pycore

    rows: list[tuple[str, str]] = []
    wasm = get_wasm_path()
    rows.append(("guest wasm size", f"{wasm.stat().st_size / 1e6:.1f} MB"))

    with tempfile.TemporaryDirectory() as d:
        ms = [pycore.Precompile(str(wasm), str(Path(d) / f"g{i}.cwasm")) for i in range(max(1, args.repeat // 2))]
        rows.append(("guest compile (Cranelift, to cache file)", f"{statistics.median(ms):.0f} ms"))

    cold = []
    for _ in range(max(1, args.repeat // 2)):
        with tempfile.TemporaryDirectory() as d:
            cold.append(fresh_process(d))
    rows.append(("fresh process: import + first run, empty cache", f"{statistics.median(c[1] for c in cold):.0f} ms"))
    with tempfile.TemporaryDirectory() as d:
        fresh_process(d)  # fill the cache
        warm = [fresh_process(d) for _ in range(args.repeat)]
    rows.append(("fresh process: import amla_sandbox", f"{statistics.median(w[0] for w in warm):.1f} ms"))
    rows.append(("fresh process: import + first run, warm cache", f"{statistics.median(w[1] for w in warm):.1f} ms"))

    tools = [ToolDefinition("echo", "echo", {"type": "object"}), ToolDefinition("big", "big", {"type": "object"})]
    blob = "x" * (10 * 1024 * 1024)

    def handler(name, params):
        return {"data": blob} if name == "big" else params

    with Sandbox(tools=tools, tool_handler=handler) as sb:
        sb.execute("console.log(1)")
        rows.append(("warm run `console.log(1)` (JS)", f"{median_ms(lambda: sb.execute('console.log(1)'), args.repeat * 4):.2f} ms"))
        rows.append(("warm run `echo 1` (shell)", f"{median_ms(lambda: sb.shell('echo 1'), args.repeat * 4):.2f} ms"))
        n = 1000
        code = f"for (let i = 0; i < {n}; i++) await echo({{i}})"
        base = median_ms(lambda: sb.execute(f"for (let i = 0; i < {n}; i++) await Promise.resolve(i)"), args.repeat)
        with_calls = median_ms(lambda: sb.execute(code), args.repeat)
        rows.append(("tool call round trip (JS → Python → JS), sequential", f"{(with_calls - base) / n * 1000:.0f} µs"))
        rows.append(
            (
                "10 MB tool result into JS",
                f"{median_ms(lambda: sb.execute('const r = await big({}); console.log(r.data.length)'), args.repeat):.0f} ms",
            )
        )
        rows.append(("JS loop, 1M iterations", f"{median_ms(lambda: sb.execute('let s = 0; for (let i = 0; i < 1e6; i++) s += i; return s'), 3):.0f} ms"))

    print("| measure | median |")
    print("|---|---|")
    for k, v in rows:
        print(f"| {k} | {v} |")


if __name__ == "__main__":
    main()
