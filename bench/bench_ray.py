"""Ray pool benchmarks (issue 20; numbers in docs/performance.md).

Run after `pip install ".[ray]"`:

    python bench/bench_ray.py [--repeat N] [--runs N] [--threads N]

Starts its own local Ray instance (num_cpus=2, no dashboard) and prints a
Markdown table; each figure is the median of --repeat rounds, with the range.

1. Runs per second of `console.log(1)` and of a script making 10 tool calls
   one after another: in one process (a SandboxTool per thread, 1 thread and
   2 threads), and through a 2-actor SandboxPool driven by --threads caller
   threads over as many sessions, with recovery on (the default: every tool
   answer recorded by the pool, a snapshot after every run) and off.
2. Moving a session with 10 MB of files to the other actor (`move_session`).
3. Recovery after `ray.kill`: (a) a run in flight that had made its 10 tool
   calls, from the kill to the caller having the run's result (the retried run
   replays the 10 answers, then sleeps its remaining 300 ms again); (b) the
   next run of a session with 10 MB of files whose actor was killed between
   runs (restored from its snapshot); (c) a dead idle actor, from the kill
   to its replacement answering, through `check_health()`.

2 and 3(b) need snapshots (durable sessions); without them they print n/a.
"""

from __future__ import annotations

import argparse
import base64
import logging
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import ray

from amla_sandbox import Sandbox, create_sandbox_tool
from amla_sandbox.ray import SandboxPool

HAS_SNAPSHOTS = callable(getattr(Sandbox, "snapshot", None))
CONSOLE_LOG = "console.log(1)"
TEN_CALLS = "let s = 0; for (let i = 0; i < 10; i++) s += await add({a: i, b: 1}); console.log(s)"
UNLIMITED = 10**9


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def spread(values: list[float], unit: str, fmt: str = "{:.0f}") -> str:
    med = statistics.median(values)
    if len(values) == 1:
        return f"{fmt.format(med)} {unit}"
    return f"{fmt.format(med)} {unit} ({fmt.format(min(values))}–{fmt.format(max(values))})"


# -- throughput -----------------------------------------------------------------------


def in_process_rate(code: str, runs: int, threads: int) -> float:
    """Runs per second: `threads` threads, each with its own SandboxTool."""
    tools = [create_sandbox_tool([add], max_calls=UNLIMITED) for _ in range(threads)]
    try:
        for t in tools:
            for _ in range(20):  # warm
                t.run(code, "javascript")
        per = runs // threads

        def work(t: Any) -> None:
            for _ in range(per):
                t.run(code, "javascript")

        t0 = time.perf_counter()
        with ThreadPoolExecutor(threads) as ex:
            list(ex.map(work, tools))
        return per * threads / (time.perf_counter() - t0)
    finally:
        for t in tools:
            t.close()


def pool_rate(pool: SandboxPool, code: str, runs: int, threads: int, tag: str) -> float:
    sessions = [f"{tag}-{i}" for i in range(threads)]
    for sid in sessions:
        for _ in range(10):  # warm: sessions open, guests loaded in both actors
            pool.run(sid, code)
    per = runs // threads

    def work(sid: str) -> None:
        for _ in range(per):
            pool.run(sid, code)

    t0 = time.perf_counter()
    with ThreadPoolExecutor(threads) as ex:
        list(ex.map(work, sessions))
    rate = per * threads / (time.perf_counter() - t0)
    for sid in sessions:
        pool.close_session(sid)
    return rate


# -- moving and recovering -------------------------------------------------------------------


def ten_mb_session(pool: SandboxPool, sid: str) -> None:
    """A session with 10 files of 1 MB of random base64 text."""
    for i in range(10):
        data = base64.b64encode(os.urandom(786_432)).decode()
        pool.run(sid, f"cat > /workspace/f{i}.txt", "shell", stdin=data)


def move_ms(pool: SandboxPool, sid: str) -> float:
    here = pool.where(sid)
    to = 1 - here if here is not None else 0
    t0 = time.perf_counter()
    pool.move_session(sid, to=to)
    return (time.perf_counter() - t0) * 1000


class _Noticed(logging.Handler):
    """When the pool logged that an actor died during a run."""

    def __init__(self) -> None:
        super().__init__()
        self.at: float | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if self.at is None and "died during a run" in record.getMessage():
            self.at = time.perf_counter()


def in_flight_recovery_ms(pool: SandboxPool, marks: list[threading.Event], round_: int) -> tuple[float, float]:
    """Kill the actor of a run that made its 10 calls: (ms until the pool
    noticed, ms until the caller had the run's result)."""
    noticed = _Noticed()
    logging.getLogger("amla_sandbox.ray").addHandler(noticed)
    sid = f"inflight-{round_}"
    marks.append(threading.Event())
    code = TEN_CALLS.replace("console.log(s)", "await mark({}); await new Promise(r => setTimeout(r, 300)); console.log(s)")
    with ThreadPoolExecutor(1) as ex:
        future = ex.submit(pool.run, sid, code)
        if not marks[-1].wait(120):
            raise RuntimeError("the run never reached its mark")
        actor = pool.actors[pool.where(sid)]  # type: ignore[index]
        t0 = time.perf_counter()
        ray.kill(actor, no_restart=True)
        out = future.result(timeout=300)
        ms = (time.perf_counter() - t0) * 1000
    logging.getLogger("amla_sandbox.ray").removeHandler(noticed)
    assert out.strip() == "55", out
    assert noticed.at is not None
    pool.close_session(sid)
    return (noticed.at - t0) * 1000, ms


def between_runs_recovery_ms(pool: SandboxPool, sid: str) -> tuple[float, float]:
    """(ms of a normal run, ms from killing the session's actor to the same
    run's result on another actor)."""
    check = "wc -c /workspace/f9.txt"
    t0 = time.perf_counter()
    pool.run(sid, check, "shell")
    normal = (time.perf_counter() - t0) * 1000
    actor = pool.actors[pool.where(sid)]  # type: ignore[index]
    t0 = time.perf_counter()
    ray.kill(actor, no_restart=True)
    out = pool.run(sid, check, "shell")
    recovered = (time.perf_counter() - t0) * 1000
    assert "1048576" in out, out
    return normal, recovered


def replacement_ms(pool: SandboxPool) -> float:
    """Kill an idle actor; ms until its replacement answers a ping."""
    victim = pool.actors[0]
    t0 = time.perf_counter()
    ray.kill(victim, no_restart=True)
    while 0 not in pool.check_health():
        time.sleep(0.01)
    ray.get(pool.actors[0].ping.remote())
    return (time.perf_counter() - t0) * 1000


def actor_memory(pool: SandboxPool, sessions: int) -> tuple[float, float]:
    """(MB resident in an idle actor that has run scripts, MB more per
    session that has run a script and holds a small file), over `sessions`
    sessions all on actor 0."""
    actor = pool.actors[0]
    pool.open_session("mem-warm")
    pool.move_session("mem-warm", to=0)
    pool.run("mem-warm", "console.log(1)")  # both guests loaded in this actor
    pool.run("mem-warm", "echo 1", "shell")
    base = ray.get(actor.ping.remote())["rss_bytes"]
    for i in range(sessions):
        sid = f"mem-{i}"
        pool.open_session(sid)
        pool.move_session(sid, to=0)
        pool.run(sid, f"await fs.writeFile('/workspace/a.txt', '{sid}'); console.log(1)")
    after = ray.get(actor.ping.remote())["rss_bytes"]
    for i in range(sessions):
        pool.close_session(f"mem-{i}")
    pool.close_session("mem-warm")
    return base / 2**20, (after - base) / sessions / 2**20


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3, help="rounds per figure (median and range reported)")
    ap.add_argument("--runs", type=int, default=400, help="runs per throughput round")
    ap.add_argument("--threads", type=int, default=8, help="caller threads (and sessions) driving the pool")
    args = ap.parse_args()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    marks: list[threading.Event] = []

    def mark() -> bool:
        """Tell the benchmark the run got here (runs in this process)."""
        marks[-1].set()
        return True

    rows: list[tuple[str, str]] = []
    rates: dict[str, list[float]] = {}

    def measure(name: str, fn: Callable[[], float]) -> None:
        rates.setdefault(name, []).append(fn())
        log(f"{name}: {rates[name][-1]:.1f}")

    pools = {
        "recover": SandboxPool(size=2, tools=[add], local_tools=[mark], max_calls=UNLIMITED, health_check_interval=None),
        "no-recover": SandboxPool(
            size=2, tools=[add], max_calls=UNLIMITED, recover=False, health_check_interval=None
        ),
    }
    try:
        for r in range(args.repeat):
            for label, code in (("console.log(1)", CONSOLE_LOG), ("10 tool calls", TEN_CALLS)):
                measure(f"{label}: one process, 1 thread", lambda: in_process_rate(code, args.runs, 1))
                measure(f"{label}: one process, 2 threads", lambda: in_process_rate(code, args.runs, 2))
                for key, pool in pools.items():
                    measure(
                        f"{label}: 2-actor pool, {args.threads} callers, {key}",
                        lambda: pool_rate(pool, code, args.runs, args.threads, f"{key}-{r}"),
                    )
        for name, values in rates.items():
            rows.append((f"runs/s, {name}", spread(values, "runs/s")))

        idle, per = zip(*(actor_memory(pools["no-recover"], 100) for _ in range(args.repeat)))
        rows.append(("actor RSS with both guests loaded, no sessions", spread(list(idle), "MB")))
        rows.append(("actor RSS per extra session that has run (100 sessions)", spread(list(per), "MB", "{:.2f}")))

        pool = pools["recover"]
        noticed, inflight = zip(*(in_flight_recovery_ms(pool, marks, r) for r in range(args.repeat)))
        rows.append(("recovery: kill mid-run (10 calls done) → the pool notices (ActorDiedError)", spread(list(noticed), "ms")))
        rows.append(("recovery: kill mid-run → the caller has the result (incl. 300 ms the re-run sleeps again)", spread(list(inflight), "ms")))
        replaced = [replacement_ms(pool) for _ in range(args.repeat)]
        rows.append(("recovery: dead idle actor → replacement answering (check_health)", spread(replaced, "ms")))
        if HAS_SNAPSHOTS:
            moves, normals, restored = [], [], []
            for r in range(args.repeat):
                sid = f"big-{r}"
                ten_mb_session(pool, sid)
                moves.append(move_ms(pool, sid))
                n, rec = between_runs_recovery_ms(pool, sid)
                normals.append(n)
                restored.append(rec)
                pool.close_session(sid)
            rows.append(("move a session with 10 MB of files to the other actor", spread(moves, "ms")))
            rows.append(("next run (`wc -c`) of a 10 MB session, its actor alive", spread(normals, "ms")))
            rows.append(("the same run after its actor was killed (restore from snapshot)", spread(restored, "ms")))
        else:
            rows.append(("move a session with 10 MB of files", "n/a: needs Sandbox.snapshot (durable sessions)"))
            rows.append(("recovery between runs of a 10 MB session", "n/a: needs Sandbox.snapshot (durable sessions)"))
    finally:
        for p in pools.values():
            p.close()
        ray.shutdown()
    print(f"| measure (median of {args.repeat}, range) | value |")
    print("|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
