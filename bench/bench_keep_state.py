#!/usr/bin/env python3
"""Warm runs with keep_state=True against the reset path, in the same process
(issue 27's targets: Python print(1) <= 0.15 ms, JavaScript console.log(1)
<= 0.1 ms on a quiet machine).

    python bench/bench_keep_state.py [--repeat 2000] [--rounds 5]

For each language, two sandboxes (one keeping state, one resetting its
instance to the snapshot after every run) are warmed up, then timed in
alternating rounds of `repeat` runs each, so both see the same machine
load. Each cell is the median over rounds of the median run time of a
round (wall time of the whole Sandbox call, from Python), in milliseconds;
the ratio is reset / kept.

Also reported: a run on a session holding state (a Python dict of 100,000
entries, a JavaScript array of 100,000 numbers), which the reset path never
has, to show that the size of the kept state does not slow a short run.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from timing import median_ms

from amla_sandbox import Sandbox

CASES: list[tuple[str, str, str, str]] = [
    # (row, language, script, state set up first in the kept sandbox)
    ("Python `print(1)`", "python", "print(1)", ""),
    ("JavaScript `console.log(1)`", "javascript", "console.log(1)", ""),
    ("shell `echo 1`", "shell", "echo 1", ""),
    ("Python `print(1)`, 100k-entry dict kept", "python", "print(1)", "big = {i: str(i) for i in range(100_000)}"),
    ("JavaScript `console.log(1)`, 100k array kept", "javascript", "console.log(1)", "var big = Array.from({length: 100000}, (_, i) => i)"),
]


def runner(sb: Sandbox, language: str, code: str) -> Callable[[], object]:
    if language == "python":
        return lambda: sb.python(code)
    if language == "shell":
        return lambda: sb.shell(code)
    return lambda: sb.execute(code)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=2000, help="runs per round")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds (the median is reported)")
    args = ap.parse_args()
    print("| run | reset path (ms) | keep_state (ms) | reset / kept |")
    print("|---|---|---|---|")
    for row, language, code, state in CASES:
        with Sandbox(timeout=30) as reset, Sandbox(timeout=30, keep_state=True) as kept:
            if state:
                runner(kept, language, state)()
            fns = {"reset": runner(reset, language, code), "kept": runner(kept, language, code)}
            for fn in fns.values():
                for _ in range(200):
                    fn()
            rounds: dict[str, list[float]] = {"reset": [], "kept": []}
            for _ in range(args.rounds):
                for name, fn in fns.items():
                    rounds[name].append(median_ms(fn, args.repeat))
            r, k = statistics.median(rounds["reset"]), statistics.median(rounds["kept"])
            print(f"| {row} | {r:.3f} | {k:.3f} | {r / k:.2f}× |", flush=True)


if __name__ == "__main__":
    main()
