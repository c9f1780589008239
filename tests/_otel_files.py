"""An OpenTelemetry SDK for processes a test cannot look into (an MCP
server process, Ray's workers): finished spans are appended to a JSON-lines
file, one object per span, which the test reads.

`install(path)` sets the global TracerProvider; `setup_from_env()` does it
with $AMLA_TEST_OTEL_SPANS (Ray's worker_process_setup_hook).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult


class FileExporter(SpanExporter):
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.lock = threading.Lock()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        lines = []
        for s in spans:
            ctx = s.get_span_context()
            lines.append(
                json.dumps(
                    {
                        "name": s.name,
                        "trace_id": ctx.trace_id,
                        "span_id": ctx.span_id,
                        "parent": s.parent.span_id if s.parent is not None else None,
                        "attributes": dict(s.attributes or {}),
                        "start": s.start_time,
                        "end": s.end_time,
                        "pid": os.getpid(),
                    }
                )
            )
        with self.lock, open(self.path, "a") as f:
            f.write("".join(line + "\n" for line in lines))
        return SpanExportResult.SUCCESS


def install(path: str | Path) -> None:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(FileExporter(path)))
    trace.set_tracer_provider(provider)


def setup_from_env() -> None:
    path = os.environ.get("AMLA_TEST_OTEL_SPANS")
    if path:
        install(path)


def read(path: str | Path) -> list[dict[str, Any]]:
    p = Path(path)
    if not p.exists():
        return []
    return [json.loads(line) for line in p.read_text().splitlines() if line.strip()]
