"""Snapshot and restore of a kept session's live state (docs/sessions.md).

A Python session is given about `--mb` MB of interpreter state (a list of
dicts and strings), then `sb.snapshot()` and `Sandbox.from_snapshot()` are
timed, uncompressed and compressed, with the guest modules already loaded
(a warm process, as a server that moves sessions is). Prints a table.

    python bench/bench_live_sessions.py [--mb 50] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from amla_sandbox import Sandbox

KEY = b"bench-live-sessions-key-01234567"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    limit = (args.mb * 3 + 128) << 20
    with Sandbox(keep_state=True, durable_key=KEY, memory_limit=limit, timeout=120) as warm:
        warm.python("x = 1")
        Sandbox.from_snapshot(warm.snapshot(), keep_state=True, durable_key=KEY, memory_limit=limit).close()

    with Sandbox(keep_state=True, durable_key=KEY, memory_limit=limit, timeout=120) as sb:
        # About 190 bytes of heap per row (a small dict, its strings, a float),
        # so the stored snapshot is about --mb MB.
        rows = args.mb * 5_300
        sb.python(f"rows = [{{'id': i, 'name': 'user-' + str(i), 'score': i * 0.5}} for i in range({rows})]")
        size = int(sb.python("import sys\nprint(sum(1 for _ in rows))").strip())
        assert size == rows
        print(f"python session with {rows:,} rows; rounds={args.rounds}")
        print("| form | snapshot bytes | snapshot (ms) | restore (ms) | total (ms) |")
        print("|---|---|---|---|---|")
        for compress in (False, True):
            snaps, restores, nbytes = [], [], 0
            for _ in range(args.rounds):
                t0 = time.perf_counter()
                data = sb.snapshot(compress=compress)
                t1 = time.perf_counter()
                restored = Sandbox.from_snapshot(data, keep_state=True, durable_key=KEY, memory_limit=limit)
                t2 = time.perf_counter()
                assert restored.python("print(len(rows), rows[-1]['name'])") == f"{rows} user-{rows - 1}\n"
                restored.close()
                snaps.append((t1 - t0) * 1000)
                restores.append((t2 - t1) * 1000)
                nbytes = len(data)
            s, r = statistics.median(snaps), statistics.median(restores)
            print(f"| {'DEFLATE' if compress else 'stored'} | {nbytes / 1e6:.1f} MB | {s:.0f} | {r:.0f} | {s + r:.0f} |")


if __name__ == "__main__":
    main()
