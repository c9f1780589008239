"""OpenTelemetry traces and metrics of runs (docs/observability.md).

With an OpenTelemetry SDK configured by the application (a TracerProvider
and/or a MeterProvider set globally), every run is a span, with a child
span for each tool call, MCP call and HTTP request it made, and the runs'
metrics are recorded. The spans are made when the run ends, from the run's
own records (`RunResult.tool_calls`, made by the Go core: when each call
started and how long it took, what granted it or which check refused it,
and what the approver decided), with their real start and end times.

Nothing here imports OpenTelemetry unless the application has: an
application that configured an SDK has imported `opentelemetry.trace`
(or `.metrics`), so a run looks in `sys.modules` first, and without it
costs one dictionary lookup. With the API imported but no SDK configured
(the global provider is still the API's proxy), nothing is recorded either.

Tool arguments, results and error messages may hold secrets: spans carry
none of them unless the application opts in with
`configure(record_values=True)` (or `AMLA_OTEL_RECORD_VALUES=1`).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
import weakref
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .runtime.driver import Runtime, RunState
    from .runtime.result import RunResult, ToolCallRecord

__all__ = ["configure", "record_values", "SCOPE"]

# The instrumentation scope of the spans and metrics.
SCOPE = "amla_sandbox"

_record_values = os.environ.get("AMLA_OTEL_RECORD_VALUES", "").strip().lower() in ("1", "true", "yes", "on")
# Every live sandbox (Runtime), for the sandboxes-alive and budget gauges.
_alive: weakref.WeakSet[Runtime] = weakref.WeakSet()
_lock = threading.Lock()
# (provider, tracer) and (provider, instruments) of the providers last seen.
_tracing: tuple[Any, Any] | None = None
_metering: tuple[Any, _Instruments] | None = None


def configure(*, record_values: bool | None = None) -> None:
    """Settings of the traces. `record_values=True` puts tool calls'
    arguments (the run's preview of them) and error messages, and runs'
    error messages, into the spans: only for applications whose tools
    handle nothing secret, or whose trace backend may hold it."""
    global _record_values
    if record_values is not None:
        if not isinstance(record_values, bool):
            raise TypeError(f"record_values must be a bool, got {type(record_values).__name__}")
        _record_values = record_values


def record_values() -> bool:
    """Whether spans carry argument values and error messages (configure)."""
    return _record_values


# -- is an SDK configured? -----------------------------------------------------


def _tracer() -> Any:
    """The tracer, or None when the application configured no tracing."""
    global _tracing
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None:
        return None
    provider = trace.get_tracer_provider()
    cached = _tracing
    if cached is not None and cached[0] is provider:
        return cached[1]
    if isinstance(provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider)):
        return None
    tracer = provider.get_tracer(SCOPE, _version())
    _tracing = (provider, tracer)
    return tracer


def _instruments() -> _Instruments | None:
    """The metric instruments, or None when the application configured no
    metrics."""
    global _metering
    metrics = sys.modules.get("opentelemetry.metrics")
    if metrics is None:
        return None
    provider = metrics.get_meter_provider()
    cached = _metering
    if cached is not None and cached[0] is provider:
        return cached[1]
    if isinstance(provider, metrics.NoOpMeterProvider) or type(provider).__name__ == "_ProxyMeterProvider":
        return None
    with _lock:
        if _metering is not None and _metering[0] is provider:
            return _metering[1]
        inst = _Instruments(provider.get_meter(SCOPE, _version()))
        _metering = (provider, inst)
    return inst


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("amla-sandbox")
    except Exception:
        return "0"


class _Instruments:
    """The metrics of runs, made once per MeterProvider."""

    def __init__(self, meter: Any) -> None:
        from opentelemetry.metrics import Observation

        self.runs = meter.create_counter("amla.runs", unit="{run}", description="Runs, by language and outcome")
        self.duration = meter.create_histogram(
            "amla.run.duration", unit="s", description="Wall-clock time of runs, by language and outcome"
        )
        self.tool_calls = meter.create_counter(
            "amla.tool_calls", unit="{call}", description="Tool calls, MCP calls and HTTP requests, by kind and outcome"
        )
        self.refusals = meter.create_counter(
            "amla.refusals", unit="{call}", description="Calls the sandbox refused, by the check and rule that refused them"
        )

        def alive(_options: Any) -> Iterator[Any]:
            yield Observation(sum(1 for rt in list(_alive) if rt.is_open))

        def budgets(_options: Any) -> Iterator[Any]:
            for rt in list(_alive):
                if not rt.is_open:
                    continue
                try:
                    counts = dict(rt.get_call_counts())
                except Exception:  # closed meanwhile
                    continue
                for key, left in counts.items():
                    yield Observation(left, {"amla.sandbox.id": rt.session_id, "amla.capability": key})

        meter.create_observable_gauge(
            "amla.sandboxes.alive", callbacks=[alive], unit="{sandbox}", description="Sandboxes open in this process"
        )
        meter.create_observable_gauge(
            "amla.budget.remaining",
            callbacks=[budgets],
            unit="{call}",
            description="Calls left in each limited capability's budget (max_calls), per sandbox",
        )


# -- the runtime's hooks ----------------------------------------------------------


def sandbox_opened(rt: Runtime) -> None:
    """Count a new sandbox (the gauges read the live ones)."""
    _alive.add(rt)


def run_started() -> tuple[Any, int] | None:
    """At a run's start: its parent context and start time, when traces or
    metrics are on (None: they are off, and the run's end records nothing)."""
    if "opentelemetry.trace" not in sys.modules and "opentelemetry.metrics" not in sys.modules:
        return None
    if _tracer() is None and _instruments() is None:
        return None
    context = sys.modules.get("opentelemetry.context")
    return (context.get_current() if context is not None else None), time.time_ns()


def run_finished(rt: Runtime, run: RunState, result: RunResult) -> None:
    """At a run's end: its span and its calls' spans, and its metrics.
    Never raises: telemetry must not fail a run."""
    started = run.trace
    if started is None:
        return
    try:
        _record(rt, run.language, started, result)
    except Exception:  # pragma: no cover - a broken exporter or SDK
        import logging

        logging.getLogger(__name__).debug("could not record the run's telemetry", exc_info=True)


def _outcome(result: RunResult) -> str:
    if result.error_kind:
        return result.error_kind
    return "success" if result.exit_code == 0 else "error"


def _call_kind(method: str, mcp_methods: frozenset[str]) -> str:
    if method.startswith("http/") or method == "http":
        return "http"
    if method in mcp_methods:
        return "mcp"
    return "tool"


def _call_outcome(call: ToolCallRecord) -> str:
    if call.ok:
        return "ok"
    if call.approval == "pending":
        return "pending"
    if call.check:
        return "refused"
    return "error"


def _nbytes(s: str) -> int:
    return len(s) if s.isascii() else len(s.encode("utf-8", "surrogatepass"))


def _record(rt: Runtime, language: str, started: tuple[Any, int], result: RunResult) -> None:
    parent, t0 = started
    outcome = _outcome(result)
    inst = _instruments()
    if inst is not None:
        labels = {"amla.language": language, "amla.run.outcome": outcome}
        inst.runs.add(1, labels)
        inst.duration.record(result.duration_ms / 1000, labels)
        for call in result.tool_calls:
            kind = _call_kind(call.method, rt.mcp_methods)
            call_outcome = _call_outcome(call)
            inst.tool_calls.add(1, {"amla.tool.kind": kind, "amla.tool.outcome": call_outcome})
            if call_outcome == "refused":
                inst.refusals.add(1, {"amla.refusal.check": call.check, "amla.refusal.rule": call.rule or ""})
    tracer = _tracer()
    if tracer is None:
        return
    from opentelemetry.trace import SpanKind, Status, StatusCode, set_span_in_context

    values = _record_values
    end = t0 + int(result.duration_ms * 1_000_000)
    span = tracer.start_span(
        "amla.run",
        context=parent,
        kind=SpanKind.INTERNAL,
        start_time=t0,
        attributes={
            "amla.language": language,
            "amla.sandbox.id": rt.session_id,
            "amla.run.outcome": outcome,
            "amla.run.exit_code": result.exit_code,
            "amla.run.duration_ms": result.duration_ms,
            "amla.run.peak_memory_bytes": result.peak_memory_bytes,
            "amla.run.stdout_bytes": _nbytes(result.stdout),
            "amla.run.stderr_bytes": _nbytes(result.stderr),
            "amla.run.tool_calls": len(result.tool_calls),
        },
    )
    if outcome != "success":
        span.set_status(Status(StatusCode.ERROR, (result.error or outcome) if values else outcome))
    inside = set_span_in_context(span, parent)
    for call in result.tool_calls:
        kind = _call_kind(call.method, rt.mcp_methods)
        start = t0 + int(call.started_ms * 1_000_000)
        attrs: dict[str, Any] = {
            "amla.tool.method": call.method,
            "amla.tool.kind": kind,
            "amla.tool.outcome": _call_outcome(call),
            "amla.tool.duration_ms": call.duration_ms,
            "amla.approval": call.approval,
        }
        if call.grant:
            attrs["amla.grant"] = call.grant
        if call.code:
            attrs["amla.tool.code"] = call.code
        if call.check:
            attrs["amla.refusal.check"] = call.check
            if call.rule:
                attrs["amla.refusal.rule"] = call.rule
        if kind == "http":
            parts = call.method.split("/", 3)
            if len(parts) >= 3:
                attrs["http.request.method"] = parts[1]
                attrs["server.address"] = parts[2]
            name = f"amla.http {parts[1] if len(parts) >= 2 else 'request'}"
        else:
            name = f"amla.{'mcp_call' if kind == 'mcp' else 'tool_call'} {call.method}"
        if values:
            attrs["amla.tool.params"] = json.dumps(call.params, default=str)
            if call.params_truncated:
                attrs["amla.tool.params_truncated"] = True
            if call.error:
                attrs["amla.tool.error"] = call.error
        child = tracer.start_span(name, context=inside, kind=SpanKind.INTERNAL, start_time=start, attributes=attrs)
        if not call.ok and call.approval != "pending":  # a paused call has not failed
            why = (call.error or call.code or "") if values else (call.check or call.code or "error")
            child.set_status(Status(StatusCode.ERROR, why))
        child.end(end_time=min(max(start + int(call.duration_ms * 1_000_000), start), max(end, start)))
    span.end(end_time=end)


# -- trace context across processes --------------------------------------------------


def carrier() -> dict[str, str] | None:
    """The current trace context as W3C headers (traceparent, tracestate),
    to hand to another process (SandboxPool's actors); None when tracing
    is off or there is no current span."""
    if _tracer() is None:
        return None
    from opentelemetry import propagate, trace

    if not trace.get_current_span().get_span_context().is_valid:
        return None
    headers: dict[str, str] = {}
    propagate.inject(headers)
    return headers or None


@contextlib.contextmanager
def remote_parent(headers: Mapping[str, Any] | Any) -> Iterator[None]:
    """Make the trace context in `headers` (W3C traceparent/tracestate: an
    MCP request's `_meta`, or a `carrier()`) current while the block runs,
    unless a span is current already (the MCP SDK's own server span, made
    from the same `_meta`). Does nothing when tracing is off."""
    if headers is None or _tracer() is None:
        yield
        return
    from opentelemetry import context, propagate, trace

    if trace.get_current_span().get_span_context().is_valid:
        yield
        return
    if not isinstance(headers, Mapping):
        dump = getattr(headers, "model_dump", None)
        headers = dump(by_alias=True) if callable(dump) else {}
    carrier = {k: v for k, v in headers.items() if isinstance(k, str) and isinstance(v, str)}
    extracted = propagate.extract(carrier)
    if not trace.get_current_span(extracted).get_span_context().is_valid:
        yield
        return
    token = context.attach(extracted)
    try:
        yield
    finally:
        context.detach(token)
