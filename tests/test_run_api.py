"""The public run API (docs/architecture.md, "The run driver"):
`Sandbox.run_script` and `run_script_async` return the run's RunResult,
`answer_batch` hands over the requests a script issued together,
`answer_request` answers one as the tool handler would, and `SyncAwaiter`
is the one helper that awaits from synchronous code."""

from __future__ import annotations

import asyncio
import builtins
import json
import threading
import time
from typing import Any

import pytest

from amla_sandbox import RuntimeError as SandboxRuntimeError
from amla_sandbox import Sandbox, TimeoutError, ToolDefinition
from amla_sandbox.runtime.awaiting import SyncAwaiter
from amla_sandbox.runtime.pipeline import Answer, ToolRequest
from amla_sandbox.runtime.result import RunResult


def _tool(name: str) -> ToolDefinition:
    return ToolDefinition(name=name, description=name, parameters={"type": "object", "properties": {}})


def test_run_script_returns_the_run_result() -> None:
    with Sandbox(tools=[_tool("echo")], tool_handler=lambda m, p: {"m": m, "p": p}) as sb:
        result = sb.run_script("const r = await echo({a: 1}); console.log(r.m); return r.p.a + 1")
        assert isinstance(result, RunResult)
        # The returned value is printed after the script's output, and kept as data.
        assert result.stdout == "echo\n2\n" and result.exit_code == 0 and result.return_value == 2
        assert [(c.method, c.params, c.ok) for c in result.tool_calls] == [("mcp:echo", {"a": 1}, True)]
        assert sb.last_result is result
        shell = sb.run_script("echo out; echo err >&2; exit 3", "shell")
        assert (shell.stdout, shell.stderr, shell.exit_code) == ("out\n", "err\n", 3)


def test_run_script_raises_what_the_run_failed_with() -> None:
    with Sandbox(timeout=0.5) as sb:
        with pytest.raises(TimeoutError):
            sb.run_script("while (true) {}")
        assert sb.last_result is not None and sb.last_result.error_kind == "timeout"
    with pytest.raises(builtins.RuntimeError, match="Sandbox not initialized"):
        sb.run_script("console.log(1)")


def test_run_script_from_another_thread() -> None:
    seen: list[str] = []

    def handler(method: str, params: Any) -> Any:
        seen.append(threading.current_thread().name)
        return 7

    with Sandbox(tools=[_tool("seven")], tool_handler=handler) as sb:
        out: dict[str, RunResult] = {}
        t = threading.Thread(target=lambda: out.update(r=sb.run_script("console.log(await seven({}))")), name="runner")
        t.start()
        t.join(30)
        assert not t.is_alive()
        assert out["r"].stdout == "7\n"
        assert seen == ["runner"]  # the handler ran on the thread that ran the script


def test_run_script_async_runs_calls_issued_together_concurrently() -> None:
    async def slow(method: str, params: Any) -> Any:
        await asyncio.sleep(0.4)
        return params

    async def main() -> tuple[RunResult, float, list[str]]:
        chunks: list[str] = []
        loop_thread = threading.get_ident()
        threads: list[bool] = []

        def on_output(text: str) -> None:
            threads.append(threading.get_ident() == loop_thread)
            chunks.append(text)

        with Sandbox(tools=[_tool("slow")], tool_handler=slow) as sb:
            t = time.monotonic()
            result = await sb.run_script_async(
                "const r = await Promise.all([1, 2, 3].map(i => slow({i}))); console.log(JSON.stringify(r))",
                on_output=on_output,
            )
            assert all(threads)  # on_output runs on the event loop's thread
            return result, time.monotonic() - t, chunks

    result, elapsed, chunks = asyncio.run(main())
    assert json.loads(result.stdout) == [{"i": 1}, {"i": 2}, {"i": 3}]
    assert "".join(chunks) == result.stdout
    assert elapsed < 1.1, elapsed  # three 0.4 s calls at once, not one after another


def test_answer_batch_gets_the_requests_issued_together_in_order() -> None:
    batches: list[list[tuple[str, Any]]] = []

    def answer_batch(reqs: list[ToolRequest]) -> list[Answer]:
        batches.append([(r.method.removeprefix("mcp:"), r.params) for r in reqs])
        return [Answer(text=json.dumps(r.params["i"] * 10)) for r in reqs]

    with Sandbox(tools=[_tool("t")], tool_handler=lambda m, p: "unused") as sb:
        result = sb.run_script(
            "const a = await Promise.all([t({i: 1}), t({i: 2}), t({i: 3})]); const b = await t({i: 4});"
            "console.log(JSON.stringify([...a, b]))",
            answer_batch=answer_batch,
        )
    assert json.loads(result.stdout) == [10, 20, 30, 40]
    assert batches == [[("t", {"i": 1}), ("t", {"i": 2}), ("t", {"i": 3})], [("t", {"i": 4})]]


def test_answer_request_answers_as_the_tool_handler_does() -> None:
    def handler(method: str, params: Any) -> Any:
        if params.get("fail"):
            raise ValueError("no such thing")
        return {"method": method, "got": params}

    with Sandbox(tools=[_tool("look")], tool_handler=handler) as sb:
        ok = sb.answer_request(ToolRequest(id=1, method="mcp:look", params={"q": "x"}))
        assert ok.error is None and json.loads(ok.text or "") == {"method": "look", "got": {"q": "x"}}
        failed = sb.answer_request(ToolRequest(id=2, method="look", params={"fail": True}))
        assert failed.text is None and "no such thing" in (failed.error or "")


def test_await_async_tools() -> None:
    async def double(method: str, params: Any) -> Any:
        await asyncio.sleep(0)
        return params["n"] * 2

    with Sandbox(tools=[_tool("double")], tool_handler=double) as sb:
        assert sb.await_async_tools is False
        assert "execute_async" in sb.run_script("try { await double({n: 1}) } catch (e) { console.log(e.message) }").stdout
        sb.await_async_tools = True
        assert sb.run_script("console.log(await double({n: 21}))").stdout == "42\n"
        assert sb.fork().await_async_tools is True


def test_a_run_from_inside_a_run_of_another_sandbox_is_allowed() -> None:
    with Sandbox() as inner:

        def handler(method: str, params: Any) -> Any:
            return inner.run_script("console.log(6 * 7)").stdout.strip()

        with Sandbox(tools=[_tool("ask")], tool_handler=handler) as outer:
            assert outer.run_script("console.log(await ask({}))").stdout == "42\n"


def test_sync_awaiter_is_thread_safe_and_refuses_inside_a_loop() -> None:
    awaiter = SyncAwaiter()
    gate = threading.Event()

    async def wait_for_gate(value: int) -> int:
        while not gate.is_set():
            await asyncio.sleep(0.005)
        return value

    got: dict[int, int] = {}
    threads = [threading.Thread(target=lambda i=i: got.update({i: awaiter.run(wait_for_gate(i), ValueError())})) for i in range(4)]
    for t in threads:
        t.start()
    time.sleep(0.1)
    gate.set()
    for t in threads:
        t.join(10)
    assert got == {0: 0, 1: 1, 2: 2, 3: 3}

    async def inside() -> None:
        coro = wait_for_gate(5)
        with pytest.raises(SandboxRuntimeError, match="in a loop"):
            awaiter.run(coro, SandboxRuntimeError("in a loop"))
        assert coro.cr_frame is None  # closed, so no "never awaited" warning

    asyncio.run(inside())
    awaiter.close()
    assert awaiter.run(wait_for_gate(6), ValueError()) == 6  # a closed awaiter makes a new loop
    awaiter.close()


def test_the_runtime_asks_its_durable_strategy_about_approvals_in_every_pump() -> None:
    """Durable behaviour is the DurableStrategy handed in by RuntimeConfig:
    the driver asks its decide() for each call that needs approval (sync
    or async answer, in both pumps and the step API) and answers the core."""
    import os

    from amla_sandbox import Runtime, RuntimeConfig, ToolCallCap
    from amla_sandbox.auth import EphemeralAuthority
    from amla_sandbox.durable import Durability

    asked: list[tuple[str, Any]] = []

    class Recording(Durability):
        def decide(self, method: str, params: Any) -> Any:
            asked.append((method, params))
            if params.get("async"):

                async def later() -> bool:
                    await asyncio.sleep(0)
                    return bool(params.get("ok"))

                return later()
            return bool(params.get("ok"))

    auth = EphemeralAuthority()
    rt = Runtime(
        RuntimeConfig(
            pca_bytes=auth.create_pca(capabilities=["tool_call:**"]).to_cbor(),
            trusted_authorities=[auth.public_key_hex()],
            capabilities=[ToolCallCap(method_pattern="**", requires_approval=True)],
            tool_handler=lambda method, params: "ran",
            tools_json=json.dumps([_tool("act").to_dict()]),
            durable=Recording(approvals=True, approval_handler=lambda m, p: False),
            durable_key=os.urandom(32),
        )
    )
    script = (
        "for (const p of [{ok: true}, {ok: false}, {ok: true, async: true}]) {"
        " try { console.log(await act(p)) } catch (e) { console.log('refused') } }"
    )
    try:
        assert rt.run(script, "javascript").stdout == "ran\nrefused\nran\n"
        assert asyncio.run(rt.run_async(script, "javascript")).stdout == "ran\nrefused\nran\n"
        rt.start(script, "javascript")
        while rt.has_work():
            req = rt.step()
            assert req is not None
            rt.resume("stepped", id=req.id)
        result = rt.result()
        assert result is not None and result.stdout == "stepped\nrefused\nstepped\n"
    finally:
        rt.close()
    assert [p for _, p in asked] == [{"ok": True}, {"ok": False}, {"ok": True, "async": True}] * 3
    assert {m for m, _ in asked} == {"mcp:act"}  # the core's name; Durability strips "mcp:" for its handler
