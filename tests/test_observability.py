"""Traces and metrics of runs (docs/observability.md) with the real
OpenTelemetry SDK: its in-memory span exporter and metric reader in this
process, and a span file (tests/_otel_files.py) for the processes a test
cannot look into (an MCP server, Ray's workers)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import amla_sandbox

pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed (pip install 'amla-sandbox[otel]')")

from opentelemetry import metrics, trace  # noqa: E402
from opentelemetry.sdk.metrics import MeterProvider  # noqa: E402
from opentelemetry.sdk.metrics.export import InMemoryMetricReader  # noqa: E402
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

from amla_sandbox import (  # noqa: E402
    ApprovalRequired,
    ConstraintSet,
    Param,
    Sandbox,
    ToolCallCap,
    observability,
    tool_from_function,
)

from _netserver import serve  # noqa: E402

HERE = Path(__file__).resolve().parent
# The package under test (the checkout after an in-place build, or the installed one): a child
# process must import the same one, never the checkout's uncompiled sources.
PACKAGE_ROOT = Path(amla_sandbox.__file__).resolve().parent.parent

# One SDK for the whole process (the global providers are set once).
EXPORTER = InMemorySpanExporter()
_tp = TracerProvider()
_tp.add_span_processor(SimpleSpanProcessor(EXPORTER))
trace.set_tracer_provider(_tp)
if trace.get_tracer_provider() is not _tp:  # another module set one first
    trace.get_tracer_provider().add_span_processor(SimpleSpanProcessor(EXPORTER))  # type: ignore[attr-defined]
READER = InMemoryMetricReader()
metrics.set_meter_provider(MeterProvider(metric_readers=[READER]))
TRACER = trace.get_tracer("tests")


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def lookup(k: str) -> dict:
    """Look a key up."""
    if k == "missing":
        raise KeyError("no such key: missing")
    return {"key": k}


def pay(to: str, amount: int) -> dict:
    """Move money."""
    return {"ok": True, "to": to, "amount": amount}


TOOLS = [tool_from_function(f) for f in (add, lookup, pay)]
FUNCS = {"add": add, "lookup": lookup, "pay": pay}


def handler(name: str, params: dict[str, Any]) -> Any:
    return FUNCS[name](**params)


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    EXPORTER.clear()
    observability.configure(record_values=False)
    yield
    observability.configure(record_values=False)


def spans() -> list[ReadableSpan]:
    return list(EXPORTER.get_finished_spans())


def run_tree() -> tuple[ReadableSpan, list[ReadableSpan]]:
    """The one run span and its children, in the order the script made them."""
    got = spans()
    runs = [s for s in got if s.name == "amla.run"]
    assert len(runs) == 1, [s.name for s in got]
    run = runs[0]
    kids = [s for s in got if s.parent is not None and s.parent.span_id == run.context.span_id]
    assert len(kids) == len(got) - 1 - sum(1 for s in got if s.name.startswith("app")), [s.name for s in got]
    return run, sorted(kids, key=lambda s: (s.start_time, s.name))


def metric_points(name: str) -> list[tuple[dict[str, Any], Any]]:
    data = READER.get_metrics_data()
    out = []
    for rm in data.resource_metrics if data is not None else []:
        for sm in rm.scope_metrics:
            for m in sm.metrics:
                if m.name == name:
                    for p in m.data.data_points:
                        out.append((dict(p.attributes), getattr(p, "value", None) if hasattr(p, "value") else p.count))
    return out


def metric_value(name: str, **attrs: Any) -> Any:
    want = {k.replace("__", "."): v for k, v in attrs.items()}
    total = 0
    for got, value in metric_points(name):
        if all(got.get(k) == v for k, v in want.items()):
            total += value
    return total


def all_attribute_text(got: list[ReadableSpan]) -> str:
    return json.dumps([{k: str(v) for k, v in (s.attributes or {}).items()} for s in got])


CALLS_CODE = """
console.log(await add({a: 1, b: 2}));
try { await add({a: 20, b: 22}); } catch (e) { console.log("budget"); }
try { await pay({to: "bob-the-payee", amount: 5000}); } catch (e) { console.log("constraint"); }
try { await lookup({k: "missing"}); } catch (e) { console.log("handler"); }
"""


def calls_sandbox() -> Sandbox:
    return Sandbox(
        tools=TOOLS,
        tool_handler=handler,
        capabilities=[
            ToolCallCap(method_pattern="mcp:add", max_calls=1),
            ToolCallCap(method_pattern="mcp:lookup"),
            ToolCallCap(method_pattern="mcp:pay", constraints=ConstraintSet([Param("amount") <= 100])),
        ],
    )


def test_allowed_refused_over_budget_and_failed_calls() -> None:
    before = {
        "runs": metric_value("amla.runs", amla__language="javascript", amla__run__outcome="success"),
        "ok": metric_value("amla.tool_calls", amla__tool__kind="tool", amla__tool__outcome="ok"),
        "refused": metric_value("amla.tool_calls", amla__tool__kind="tool", amla__tool__outcome="refused"),
        "error": metric_value("amla.tool_calls", amla__tool__kind="tool", amla__tool__outcome="error"),
        "budget": metric_value("amla.refusals", amla__refusal__check="max_calls", amla__refusal__rule="cap:tool-call:mcp:add"),
        "constraint": metric_value("amla.refusals", amla__refusal__check="constraint", amla__refusal__rule="mcp:pay"),
    }
    with calls_sandbox() as sb, TRACER.start_as_current_span("app request") as app:
        out = sb.execute(CALLS_CODE)
        sid = sb._rt()._session_id
        assert out == "3\nbudget\nconstraint\nhandler\n"
        records = sb.last_result.tool_calls
        assert [(c.grant, c.check, c.rule, c.approval) for c in records] == [
            ("mcp:add", None, None, "none"),
            (None, "max_calls", "cap:tool-call:mcp:add", "none"),
            (None, "constraint", "mcp:pay", "none"),
            ("mcp:lookup", None, None, "none"),
        ]
        assert all(b.started_ms >= a.started_ms for a, b in zip(records, records[1:]))
        # The budget gauge reads the live sandbox.
        assert metric_value("amla.budget.remaining", amla__sandbox__id=sid, amla__capability="cap:tool-call:mcp:add") == 0
        assert metric_value("amla.sandboxes.alive") >= 1
    run, kids = run_tree()
    assert run.parent is not None and run.parent.span_id == app.get_span_context().span_id
    assert run.context.trace_id == app.get_span_context().trace_id
    a = dict(run.attributes)
    assert a["amla.language"] == "javascript" and a["amla.sandbox.id"] == sid
    assert a["amla.run.outcome"] == "success" and a["amla.run.exit_code"] == 0
    assert a["amla.run.stdout_bytes"] == len(out) and a["amla.run.peak_memory_bytes"] > 0
    assert a["amla.run.tool_calls"] == 4
    assert run.end_time - run.start_time == pytest.approx(a["amla.run.duration_ms"] * 1e6, abs=1000)
    assert [k.name for k in kids] == ["amla.tool_call mcp:add", "amla.tool_call mcp:add", "amla.tool_call mcp:pay", "amla.tool_call mcp:lookup"]
    ok, budget, constraint, failed = (dict(k.attributes) for k in kids)
    assert ok["amla.tool.outcome"] == "ok" and ok["amla.grant"] == "mcp:add" and ok["amla.approval"] == "none"
    assert ok["amla.tool.kind"] == "tool" and "amla.refusal.check" not in ok
    assert budget["amla.tool.outcome"] == "refused" and "amla.grant" not in budget
    assert (budget["amla.refusal.check"], budget["amla.refusal.rule"]) == ("max_calls", "cap:tool-call:mcp:add")
    assert budget["amla.tool.code"] == "permission_denied"
    assert (constraint["amla.refusal.check"], constraint["amla.refusal.rule"]) == ("constraint", "mcp:pay")
    assert failed["amla.tool.outcome"] == "error" and failed["amla.grant"] == "mcp:lookup"
    assert [k.status.is_ok for k in kids] == [True, False, False, False]
    assert run.status.is_unset  # the run succeeded
    for k in kids:  # inside the run, in the order made
        assert run.start_time <= k.start_time <= k.end_time <= run.end_time
    assert kids[0].end_time - kids[0].start_time == pytest.approx(ok["amla.tool.duration_ms"] * 1e6, abs=1000)
    # No argument values and no error messages without the opt-in.
    text = all_attribute_text(spans())
    assert "bob-the-payee" not in text and "5000" not in text and "no such key" not in text
    assert "amla.tool.params" not in text
    # The metrics.
    assert metric_value("amla.runs", amla__language="javascript", amla__run__outcome="success") == before["runs"] + 1
    assert metric_value("amla.tool_calls", amla__tool__kind="tool", amla__tool__outcome="ok") == before["ok"] + 1
    assert metric_value("amla.tool_calls", amla__tool__kind="tool", amla__tool__outcome="refused") == before["refused"] + 2
    assert metric_value("amla.tool_calls", amla__tool__kind="tool", amla__tool__outcome="error") == before["error"] + 1
    assert (
        metric_value("amla.refusals", amla__refusal__check="max_calls", amla__refusal__rule="cap:tool-call:mcp:add")
        == before["budget"] + 1
    )
    assert metric_value("amla.refusals", amla__refusal__check="constraint", amla__refusal__rule="mcp:pay") == before["constraint"] + 1
    assert metric_value("amla.run.duration", amla__language="javascript") >= 1


def test_values_only_with_the_opt_in() -> None:
    observability.configure(record_values=True)
    with calls_sandbox() as sb:
        sb.execute(CALLS_CODE)
    _, kids = run_tree()
    pay_span = dict(kids[2].attributes)
    assert json.loads(pay_span["amla.tool.params"]) == {"to": "bob-the-payee", "amount": 5000}
    assert "5000" in pay_span["amla.tool.error"]
    assert "no such key" in dict(kids[3].attributes)["amla.tool.error"]
    with pytest.raises(TypeError):
        observability.configure(record_values="yes")  # type: ignore[arg-type]


APPROVAL_CODE = """
await add({a: 1, b: 1});
try { console.log((await pay({to: "bob", amount: 5})).ok); } catch (e) { console.log("refused"); }
"""


def approval_caps() -> list[ToolCallCap]:
    return [ToolCallCap(method_pattern="mcp:pay", requires_approval=True), ToolCallCap(method_pattern="mcp:add")]


@pytest.mark.parametrize("decision", [True, False])
def test_approval_decisions(decision: bool) -> None:
    with Sandbox(tools=TOOLS, tool_handler=handler, capabilities=approval_caps(), approval_handler=lambda n, p: decision) as sb:
        assert sb.execute(APPROVAL_CODE) == ("true\n" if decision else "refused\n")
    _, kids = run_tree()
    assert [k.name for k in kids] == ["amla.tool_call mcp:add", "amla.tool_call mcp:pay"]
    assert dict(kids[0].attributes)["amla.approval"] == "none"
    p = dict(kids[1].attributes)
    if decision:
        assert (p["amla.approval"], p["amla.grant"], p["amla.tool.outcome"]) == ("approved", "mcp:pay", "ok")
    else:
        assert (p["amla.approval"], p["amla.refusal.check"], p["amla.tool.outcome"]) == ("refused", "approval", "refused")


def test_a_run_paused_for_approval() -> None:
    with Sandbox(tools=TOOLS, tool_handler=handler, capabilities=approval_caps()) as sb:
        with pytest.raises(ApprovalRequired):
            sb.execute(APPROVAL_CODE)
    run, kids = run_tree()
    assert dict(run.attributes)["amla.run.outcome"] == "approval_required" and not run.status.is_ok
    assert [k.name for k in kids] == ["amla.tool_call mcp:add", "amla.tool_call mcp:pay"]
    p = dict(kids[1].attributes)
    assert (p["amla.approval"], p["amla.grant"], p["amla.refusal.check"]) == ("pending", "mcp:pay", "approval")
    assert p["amla.tool.outcome"] == "pending" and kids[1].status.is_unset


def test_http_requests_are_spans_with_the_rule_that_allowed_or_refused_them() -> None:
    with serve() as srv:
        network = {"allow": [f"GET {srv.url}/json"], "allow_private": ["127.0.0.1"]}
        with Sandbox(network=network) as sb:
            out = sb.execute(
                f"""
                const r = await fetch("{srv.url}/json?key=secret-query");
                console.log(r.status);
                try {{ await fetch("{srv.url}/echo"); }} catch (e) {{ console.log("refused"); }}
                """
            )
            assert out == "200\nrefused\n"
    _, kids = run_tree()
    assert [k.name for k in kids] == ["amla.http GET", "amla.http GET"]
    allowed, refused = (dict(k.attributes) for k in kids)
    host = srv.url.removeprefix("http://")
    assert allowed["amla.tool.kind"] == "http" and allowed["amla.tool.outcome"] == "ok"
    assert allowed["amla.grant"] == f"allow[0] GET {srv.url}/json"
    assert (allowed["http.request.method"], allowed["server.address"]) == ("GET", host)
    assert allowed["amla.tool.method"] == f"http/GET/{host}/json"
    assert refused["amla.tool.outcome"] == "refused" and refused["amla.refusal.check"] == "allow"
    assert "secret-query" not in all_attribute_text(spans())


def test_execute_async_joins_the_callers_trace_and_overlaps_concurrent_calls() -> None:
    async def slow_handler(name: str, params: dict[str, Any]) -> Any:
        await asyncio.sleep(0.05)
        return FUNCS[name](**params)

    async def main() -> tuple[str, Any]:
        with Sandbox(tools=TOOLS, tool_handler=slow_handler) as sb:
            with TRACER.start_as_current_span("app async") as app:
                out = await sb.execute_async(
                    "const r = await Promise.all([add({a: 1, b: 1}), add({a: 2, b: 2})]); console.log(r.join(' '));"
                )
            return out, app.get_span_context()

    out, app = asyncio.run(main())
    assert out == "2 4\n"
    run, kids = run_tree()
    assert run.parent is not None and run.parent.span_id == app.span_id and run.context.trace_id == app.trace_id
    assert len(kids) == 2
    first, second = kids
    assert second.start_time < first.end_time  # concurrent: they overlap
    assert all(k.end_time - k.start_time >= 45_000_000 for k in kids)


def test_without_the_sdk_nothing_is_imported_or_recorded(tmp_path: Path) -> None:
    """In a fresh process: without OpenTelemetry imported a run imports none
    of it; with the API imported and no SDK configured it records nothing."""
    code = textwrap.dedent(
        """
        import sys
        from amla_sandbox import Sandbox, observability
        sb = Sandbox(tools=[], tool_handler=None)
        sb.execute("console.log(1)")
        print(sorted(m for m in sys.modules if m.startswith("opentelemetry")))
        import opentelemetry.trace, opentelemetry.metrics
        print(observability.run_started())
        sb.execute("console.log(1)")
        print(sb._rt()._run.trace)
        """
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PACKAGE_ROOT), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["[]", "None", "None"]


# -- the MCP server -----------------------------------------------------------------------


MCP_WRAPPER = """
import sys
sys.path.insert(0, {here!r})
import _otel_files
_otel_files.install(sys.argv[1])
if sys.argv[2] == "without-sdk-middleware":
    # The run's span must join the client's trace from `_meta` by itself.
    import mcp.server._otel as otel

    async def passthrough(self, ctx, call_next):
        return await call_next(ctx)

    otel.OpenTelemetryMiddleware.__call__ = passthrough
from amla_sandbox.mcp import main
sys.exit(main(sys.argv[3:]))
"""


@pytest.mark.parametrize("middleware", ["with-sdk-middleware", "without-sdk-middleware"])
def test_mcp_server_runs_join_the_clients_trace(tmp_path: Path, middleware: str) -> None:
    pytest.importorskip("mcp")
    from mcp import ClientSession, StdioServerParameters, stdio_client

    import _otel_files
    from test_mcp_server import CONFIG, server_env

    config = tmp_path / "config.json"
    config.write_text(json.dumps(CONFIG))
    wrapper = tmp_path / "server.py"
    wrapper.write_text(MCP_WRAPPER.format(here=str(HERE)))
    span_file = tmp_path / "spans.jsonl"
    params = StdioServerParameters(
        command=sys.executable, args=[str(wrapper), str(span_file), middleware, "--config", str(config)], env=server_env()
    )

    async def main() -> tuple[dict[str, Any], Any]:
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            with TRACER.start_as_current_span("app agent step") as app:
                result = await s.call_tool(
                    "run_javascript", {"code": "console.log(await add({a: 1, b: 2}), await t_add({a: 2, b: 3}))"}
                )
            return result.structured_content, app.get_span_context()

    result, app = asyncio.run(main())
    assert result["status"] == "success", result
    got = _otel_files.read(span_file)
    runs = [s for s in got if s["name"] == "amla.run"]
    assert len(runs) == 1, [s["name"] for s in got]
    run = runs[0]
    assert run["trace_id"] == app.trace_id  # the client's trace, through `_meta`
    by_id = {s["span_id"]: s for s in got}
    if middleware == "with-sdk-middleware":
        assert by_id[run["parent"]]["name"] == "tools/call run_javascript"
    else:
        assert run["parent"] not in by_id  # the client's span, in the other process
    kids = sorted((s for s in got if s["parent"] == run["span_id"]), key=lambda s: s["start"])
    assert [(k["attributes"]["amla.tool.kind"], k["attributes"]["amla.tool.method"]) for k in kids] == [
        ("tool", "mcp:add"),
        ("mcp", "mcp:t/add"),
    ]
    assert kids[1]["name"] == "amla.mcp_call mcp:t/add" and kids[1]["attributes"]["amla.grant"] == "mcp:t/add"


# -- a Ray pool ------------------------------------------------------------------------------


def test_ray_pool_runs_join_the_callers_trace(tmp_path_factory: pytest.TempPathFactory) -> None:
    ray = pytest.importorskip("ray")
    from amla_sandbox.ray import SandboxPool

    import _otel_files

    if ray.is_initialized():
        pytest.skip("Ray is already initialised in this process")
    span_file = tmp_path_factory.mktemp("ray-otel") / "spans.jsonl"
    import ray._private.ray_constants as ray_constants

    # As tests/test_ray.py: keep wasmtime's fault handlers (this process
    # has made sandboxes already).
    ray_constants.RAY_DISABLE_FAILURE_SIGNAL_HANDLER = True
    cwd = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("ray-cwd"))
    try:
        ray.init(
            num_cpus=1,
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
            object_store_memory=100 * 1024 * 1024,
            runtime_env={
                "env_vars": {
                    "PYTHONPATH": os.pathsep.join(p for p in (str(HERE), os.environ.get("PYTHONPATH", "")) if p),
                    "AMLA_TEST_OTEL_SPANS": str(span_file),
                },
                "worker_process_setup_hook": "_otel_files.setup_from_env",
            },
        )
    finally:
        os.chdir(cwd)
    try:
        with SandboxPool(size=1, tools=[add], health_check_interval=None) as pool:
            with TRACER.start_as_current_span("app pool caller") as app:
                out = pool.run("s1", "console.log(await add({a: 2, b: 2}))")
            ctx = app.get_span_context()
    finally:
        ray.shutdown()
    assert out.strip() == "4"
    got = _otel_files.read(span_file)
    runs = [s for s in got if s["name"] == "amla.run"]
    assert len(runs) == 1, [s["name"] for s in got]
    run = runs[0]
    assert run["pid"] != os.getpid()  # made in the actor
    assert (run["trace_id"], run["parent"]) == (ctx.trace_id, ctx.span_id)
    kids = [s for s in got if s["parent"] == run["span_id"]]
    assert [k["attributes"]["amla.grant"] for k in kids] == ["mcp:add"]
