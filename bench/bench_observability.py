"""What traces and metrics cost a run (docs/observability.md).

Run after `pip install ".[otel]"`:  python bench/bench_observability.py [--repeat N] [--rounds R]
Prints a Markdown table of medians.

Three modes, each in processes of its own (a process's global OpenTelemetry providers are set
once), alternated over R rounds:
  none  OpenTelemetry not imported (the package without the extra, or an application without it);
  api   the API imported, no SDK configured (as in a process that imports `mcp`);
  sdk   the SDK configured: a TracerProvider whose BatchSpanProcessor hands the spans to an
        exporter that drops them, and a MeterProvider with an in-memory reader, so the figure is
        the package's cost (making spans and recording metrics), not a backend's.
The target (issue 29): a run with tracing enabled takes at most 1.1x the run without, plus 50 us
per tool call.

Sub-millisecond runs on a loaded machine vary by more than the telemetry costs, so the sdk
processes also time the telemetry itself: the hooks a run calls (observability.run_started and
the span and metrics recording at its end) on each workload's real RunResult, 200 times each.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

WORKLOADS = {
    "empty run": (0, "console.log(1)"),
    "10 tool calls": (10, "let s = 0; for (let i = 0; i < 10; i++) s += await add({a: i, b: 1}); console.log(s)"),
    "100 tool calls": (100, "let s = 0; for (let i = 0; i < 100; i++) s += await add({a: i, b: 1}); console.log(s)"),
    "100 calls, Promise.all": (
        100,
        "const r = await Promise.all(Array.from({length: 100}, (_, i) => add({a: i, b: 1}))); console.log(r.length)",
    ),
}

CHILD = r"""
import json, sys, time, statistics
mode, repeat = sys.argv[1], int(sys.argv[2])
workloads = json.loads(sys.argv[3])
if mode == "api":
    import opentelemetry.trace, opentelemetry.metrics
elif mode == "sdk":
    from opentelemetry import trace, metrics
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

    class Drop(SpanExporter):
        def export(self, spans):
            return SpanExportResult.SUCCESS

    tp = TracerProvider()
    tp.add_span_processor(BatchSpanProcessor(Drop()))
    trace.set_tracer_provider(tp)
    metrics.set_meter_provider(MeterProvider(metric_readers=[InMemoryMetricReader()]))
from amla_sandbox import Sandbox, tool_from_function

def add(a: int, b: int) -> int:
    "Add."
    return a + b

sb = Sandbox(tools=[tool_from_function(add)], tool_handler=lambda n, p: add(**p))
out = {}
hooks = {}
for name, code in workloads.items():
    for _ in range(3):
        sb.execute(code)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        sb.execute(code)
        times.append((time.perf_counter() - t) * 1000)
    out[name] = times
    if mode == "sdk":
        from amla_sandbox import observability as obs
        rt, result = sb._rt(), sb.last_result
        samples = []
        for _ in range(200):
            t = time.perf_counter()
            started = obs.run_started()
            obs._record(rt, "javascript", started, result)
            samples.append((time.perf_counter() - t) * 1e6)
        hooks[name] = samples
if mode == "sdk":
    tp.force_flush()
print(json.dumps({"runs": out, "hooks": hooks}))
"""


def run_mode(mode: str, repeat: int) -> dict[str, dict[str, list[float]]]:
    codes = {name: code for name, (_, code) in WORKLOADS.items()}
    res = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(repeat), json.dumps(codes)],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parent,
    )
    return json.loads(res.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=20, help="runs per workload per process")
    ap.add_argument("--rounds", type=int, default=3, help="processes per mode, alternated")
    opts = ap.parse_args()
    samples: dict[str, dict[str, list[float]]] = {m: {w: [] for w in WORKLOADS} for m in ("none", "api", "sdk")}
    hooks: dict[str, list[float]] = {w: [] for w in WORKLOADS}
    for r in range(opts.rounds):
        for mode in ("none", "api", "sdk"):
            print(f"round {r + 1}/{opts.rounds}: {mode}", file=sys.stderr)
            got = run_mode(mode, opts.repeat)
            for name, times in got["runs"].items():
                samples[mode][name].extend(times)
            for name, times in got["hooks"].items():
                hooks[name].extend(times)
    print("| workload | tool calls | no OpenTelemetry (ms) | API, no SDK (ms) | SDK configured (ms) | SDK / none | budget: 1.1x + 50 us/call (ms) | within |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for name, (calls, _) in WORKLOADS.items():
        none = statistics.median(samples["none"][name])
        api = statistics.median(samples["api"][name])
        sdk = statistics.median(samples["sdk"][name])
        budget = 1.1 * none + 0.05 * calls
        print(
            f"| {name} | {calls} | {none:.3f} | {api:.3f} | {sdk:.3f} | {sdk / none:.3f} | {budget:.3f} | "
            f"{'yes' if sdk <= budget else 'NO'} |"
        )
    print()
    print("| workload | tool calls | telemetry per run, SDK configured (us) | per tool call (us) | budget: 10% of the untraced run + 50 us/call (us) | within |")
    print("|---|---:|---:|---:|---:|---|")
    for name, (calls, _) in WORKLOADS.items():
        cost = statistics.median(hooks[name])
        none = statistics.median(samples["none"][name])
        budget = 100 * none + 50 * calls
        per_call = f"{cost / calls:.1f}" if calls else "-"
        print(f"| {name} | {calls} | {cost:.1f} | {per_call} | {budget:.1f} | {'yes' if cost <= budget else 'NO'} |")


if __name__ == "__main__":
    main()
