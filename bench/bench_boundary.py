"""The Python/Go boundary: memory per call of the core's exports, and import time.

Run after `pip install .` (or in a checkout with the core built):
    python bench/bench_boundary.py [--calls N] [--repeat R]

1. Host RSS growth over N calls (default a million) of three cheap exports:
   SandboxCancel succeeding (a status string), SandboxCancel refused (a status
   carrying an error), SandboxLastHanded refused (a (value, error) export
   failing). gopy v0.4.10 leaks the C string of every export that returns only
   an error: before issue 16 SandboxCancel returned one, +27.5 MiB per million.
2. Import time, median of R fresh interpreters (`-S`, so only the package's own
   imports count): wall time minus `python -S -c pass`, and `-X importtime`'s
   cumulative figure for the top-level import.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

STATEMENTS = ("import amla_sandbox", "from amla_sandbox import Sandbox", "from amla_sandbox import create_sandbox_tool")


def rss() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise OSError("no VmRSS")


def per_call_growth(calls: int) -> None:
    from amla_sandbox import Sandbox, _core

    lib = _core._pycore
    with Sandbox() as sb:
        sb.execute("1")
        rt = sb._runtime
        assert rt is not None and rt._run is not None
        h, run = rt._handle, rt._run.id

        def last_handed_refused() -> None:
            try:
                lib.pycore_SandboxLastHanded(h, run + 1)
            except RuntimeError:
                pass

        cases = {
            "SandboxCancel (status \"\")": lambda: lib.pycore_SandboxCancel(h, run),
            "SandboxCancel refused (status with error)": lambda: lib.pycore_SandboxCancel(h, run + 1),
            "SandboxLastHanded refused ((value, error))": last_handed_refused,
        }
        print(f"| export ({calls:,} calls after {calls // 10:,} to warm up) | RSS growth | per call |")
        print("|---|---|---|")
        for name, call in cases.items():
            for _ in range(calls // 10):
                call()
            before = rss()
            t = time.perf_counter()
            for _ in range(calls):
                call()
            took = time.perf_counter() - t
            print(f"| {name} | {(rss() - before) / 2**20:.2f} MiB | {took / calls * 1e9:.0f} ns |")


def import_times(repeat: int) -> None:
    import os
    from pathlib import Path

    import amla_sandbox

    # -S leaves site-packages off sys.path: name the package's directory.
    env = dict(os.environ, PYTHONPATH=str(Path(amla_sandbox.__file__).resolve().parent.parent))

    def wall(code: str) -> float:
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-S", "-c", code], check=True, env=env)
            times.append(time.perf_counter() - t)
        return statistics.median(times) * 1000

    def cumulative(code: str) -> float:
        values = []
        for _ in range(repeat):
            err = subprocess.run(
                [sys.executable, "-S", "-X", "importtime", "-c", code], capture_output=True, text=True, check=True, env=env
            ).stderr
            total = 0
            for line in err.splitlines():
                fields = line.split("|")
                # Top-level imports only: their cumulative time includes their children.
                if len(fields) == 3 and fields[2].startswith(" ") and not fields[2].startswith("  ") and fields[1].strip().isdigit():
                    total += int(fields[1])
            values.append(total / 1000)
        return statistics.median(values)

    base = wall("pass")
    print(f"\n| statement (median of {repeat}) | wall minus `python -S -c pass` ({base:.1f} ms) | -X importtime |")
    print("|---|---|---|")
    for stmt in STATEMENTS:
        print(f"| `{stmt}` | {wall(stmt) - base:.1f} ms | {cumulative(stmt):.1f} ms |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    per_call_growth(args.calls)
    import_times(args.repeat)


if __name__ == "__main__":
    main()
