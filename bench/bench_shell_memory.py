#!/usr/bin/env python3
"""Peak guest memory and time of the shell's whole-input applets (sort, tac, uniq) on big inputs.

    python bench/bench_shell_memory.py                       # the guest the package imports
    python bench/bench_shell_memory.py --guest before=/tmp/old.wasm --guest after=/tmp/new.wasm

With --guest, each LABEL=PATH is run in its own child process (AMLA_WASM_PATH=PATH), the guests
taking turns round by round so that a change in the machine's load falls on all of them. Every
workload runs at memory_limit 256 MiB (the default) in a warm sandbox; a workload that fails is
reported with its error class. Prints, per guest and workload, the median and range of wall and
CPU time (this process's user+sys, every engine thread included) over --rounds runs, and the
run's peak guest memory (RunResult.peak_memory_bytes; it does not vary between runs).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare  # noqa: E402

LOG = "/workspace/app.log"
NUMS = "/workspace/nums.txt"
# (name, command). The numbers file holds 2M lines from 2000000 down to 1, so that sort -n has
# the whole file to reorder; seq writes it, streaming.
WORKLOADS = [
    ("seq 2M | sort -n", "seq 1 2000000 | sort -n | tail -1"),
    ("sort -n 2M-line file", f"sort -n {NUMS} | tail -1"),
    ("sort 2M-line file", f"sort {NUMS} | tail -1"),
    ("sort 10 MB log", f"sort {LOG} | tail -1"),
    ("sort -k4,4 -k6n 10 MB log", f"sort -k4,4 -k6n {LOG} | tail -1"),
    ("sort | uniq -c 10 MB log", f"cut -d' ' -f3-4 {LOG} | sort | uniq -c | sort -rn | head -1"),
    ("tac 10 MB log", f"tac {LOG} | tail -1"),
    ("pipeline (compare.py)", compare.PIPELINE_SH.format(f=LOG)),
]


def cpu_ms() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return (r.ru_utime + r.ru_stime) * 1000


def child(rounds_in: int) -> None:
    """Runs each workload once per line read from stdin ('round'), answering with JSON."""
    from amla_sandbox import Sandbox

    sb = Sandbox(timeout=120)
    sb.execute(compare.LOG_JS.replace("@BYTES@", str(compare.LOG_BYTES)).replace("@PATH@", LOG))
    sb.shell(f"seq 2000000 -1 1 > {NUMS}")
    for name, cmd in WORKLOADS:  # warm-up: the first run of each pays for growing the instance
        try:
            sb.shell(cmd)
        except Exception:
            pass
    print("ready", flush=True)
    for _ in range(rounds_in):
        if not sys.stdin.readline():
            return
        out = {}
        for name, cmd in WORKLOADS:
            c, w = cpu_ms(), time.perf_counter()
            try:
                sb.shell(cmd)
                err = ""
            except Exception as e:  # noqa: BLE001 - reported, not hidden
                err = f"{type(e).__name__}: {str(e).splitlines()[0][:80]}"
            wall, cpu = (time.perf_counter() - w) * 1000, cpu_ms() - c
            res = sb.last_result
            peak = res.peak_memory_bytes if res is not None else 0
            out[name] = {"wall": wall, "cpu": cpu, "peak": peak, "error": err}
        print(json.dumps(out), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--guest", action="append", default=[], metavar="LABEL=PATH")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.rounds)
        return
    guests = [g.split("=", 1) for g in args.guest] or [["package", ""]]
    procs = {}
    for label, path in guests:
        env = dict(os.environ)
        if path:
            env["AMLA_WASM_PATH"] = path
        p = subprocess.Popen([sys.executable, __file__, "--child", "--rounds", str(args.rounds)], env=env,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert p.stdout is not None
        if p.stdout.readline().strip() != "ready":
            sys.exit(f"guest {label}: the child did not start")
        procs[label] = p
    samples: dict[str, list[dict]] = {label: [] for label in procs}
    for r in range(args.rounds):
        for label, p in procs.items():
            assert p.stdin is not None and p.stdout is not None
            p.stdin.write("round\n")
            p.stdin.flush()
            samples[label].append(json.loads(p.stdout.readline()))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    for p in procs.values():
        assert p.stdin is not None
        p.stdin.close()
        p.wait()
    print("| workload | guest | wall ms, median (range) | CPU ms, median (range) | peak guest memory |")
    print("|---|---|---|---|---|")
    for name, _ in WORKLOADS:
        for label in procs:
            rows = [s[name] for s in samples[label]]
            errs = {r["error"] for r in rows if r["error"]}
            walls, cpus = [r["wall"] for r in rows], [r["cpu"] for r in rows]
            peak = max(r["peak"] for r in rows) / 2**20
            note = f" ({', '.join(sorted(errs))})" if errs else ""
            print(f"| {name} | {label} | {statistics.median(walls):.0f} ({min(walls):.0f}–{max(walls):.0f}) "
                  f"| {statistics.median(cpus):.0f} ({min(cpus):.0f}–{max(cpus):.0f}) | {peak:.0f} MiB{note} |")


if __name__ == "__main__":
    main()
