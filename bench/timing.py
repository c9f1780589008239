"""What the benchmarks share: timing and their command line."""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Awaitable, Callable


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    """Median wall time of fn() over repeat calls, in milliseconds."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


async def median_ms_async(fn: Callable[[], Awaitable[object]], repeat: int) -> float:
    """median_ms for an async fn, awaited repeat times on the running loop."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        await fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5, help="runs per measure (the median is reported)")
    return ap.parse_args()
