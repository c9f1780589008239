"""JavaScript in the sandbox, through the public Python API (foundation issue)."""

from __future__ import annotations

import asyncio
import builtins
import json
import threading
import time
from typing import Any

import pytest

import amla_sandbox
from amla_sandbox import Sandbox, ToolDefinition, create_sandbox_tool


def defs(*names: str) -> list[ToolDefinition]:
    return [ToolDefinition(name=n, description=f"{n} tool", parameters={"type": "object"}) for n in names]


def recorder(results: dict[str, Any]):
    calls: list[tuple[str, Any]] = []

    def handler(method: str, params: Any) -> Any:
        calls.append((method, params))
        r = results[method]
        return r(params) if callable(r) else r

    return handler, calls


# -- the README quick start ------------------------------------------------------


def test_quick_start_outputs():
    sandbox = create_sandbox_tool()
    assert sandbox.run("console.log('hello'.toUpperCase())", language="javascript") == "HELLO\n"

    def get_weather(city: str) -> dict:
        return {"city": city, "temp": 72}

    sandbox = create_sandbox_tool(tools=[get_weather])
    out = sandbox.run("const w = await get_weather({city: 'SF'}); console.log(JSON.stringify(w));", language="javascript")
    assert json.loads(out) == {"city": "SF", "temp": 72}
    assert sandbox.run("return await get_weather({city: 'SF'});", language="javascript") == "{\"city\":\"SF\",\"temp\":72}\n"


@pytest.mark.parametrize(
    "code,stdout",
    [
        ("return {a: 1, b: 2};", '{"a":1,"b":2}\n'),
        ('return "hello";', "hello\n"),
        ("return 42;", "42\n"),
        ("return true;", "true\n"),
        ("return null;", "null\n"),
        ("return [1,2];", "[1,2]\n"),
        ("const x = 42;", ""),
        ("return undefined;", ""),
        ("console.log('a', 1, true, 22.5)", "a 1 true 22.5\n"),
        ("console.log(JSON.stringify({a: 1}))", '{"a":1}\n'),
    ],
)
def test_return_and_console_rules(code: str, stdout: str):
    with Sandbox() as sb:
        assert sb.execute(code) == stdout


def test_chained_tool_calls_and_call_shape():
    handler, calls = recorder({"math.add": lambda p: {"result": p["a"] + p["b"]}, "math.multiply": lambda p: p["a"] * p["b"]})
    with Sandbox(tools=defs("math.add", "math.multiply"), tool_handler=handler) as sb:
        out = sb.execute(
            "const r = await math_add({a: 3, b: 4}); console.log(JSON.stringify(r));"
            "console.log(await math_multiply({a: r.result, b: 5}));"
        )
    assert '"result":7' in out and "35" in out
    assert calls[0] == ("math.add", {"a": 3, "b": 4})


# -- files -----------------------------------------------------------------------------


def test_files_persist_across_runs_and_not_across_sandboxes():
    with Sandbox() as sb:
        sb.execute("await fs.writeFile('/workspace/counter.txt', '1')")
        out = sb.execute(
            "const n = Number(await fs.readFile('/workspace/counter.txt'));"
            "await fs.writeFile('/workspace/counter.txt', String(n + 1)); console.log('counter was: ' + n)"
        )
        assert out == "counter was: 1\n"
        assert sb.execute("return await fs.readFile('/workspace/counter.txt')") == "2\n"
    with Sandbox() as sb2:
        assert sb2.execute("console.log('exists in sandbox2: ' + await fs.exists('/workspace/counter.txt'))") == (
            "exists in sandbox2: false\n"
        )


def test_write_outside_workspace_and_tmp_is_eacces():
    with Sandbox() as sb:
        out = sb.execute(
            "for (const p of ['/mydir', '/etc/x']) {"
            "  try { await fs.mkdir(p); console.log('made ' + p) } catch (e) { console.log(e.message) } }"
            "try { await fs.writeFile('/hello.txt', 'x') } catch (e) { console.log(e.message) }"
            "await fs.mkdir('/tmp/cache'); console.log((await fs.stat('/tmp/cache')).isDirectory)"
        )
    lines = out.splitlines()
    assert all("EACCES" in line for line in lines[:3]), out
    assert lines[3] == "true"


def test_traversal_and_absolute_paths_cannot_reach_the_host(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("host secret")
    with Sandbox() as sb:
        out = sb.execute(
            f"""
            const tries = ['/etc/passwd', '/workspace/../../../../etc/passwd', '../../../../../etc/passwd',
                           '{secret}', '/workspace/../../../../../..{secret}'];
            for (const p of tries) {{
              try {{ const t = await fs.readFile(p); console.log('READ ' + p + ' ' + t.length) }}
              catch (e) {{ console.log('denied') }}
            }}
            try {{ await fs.writeFile('/workspace/../../escape.txt', 'x'); console.log('wrote') }}
            catch (e) {{ console.log('denied') }}
            """
        )
    assert out.splitlines() == ["denied"] * 6, out
    assert not (tmp_path / "escape.txt").exists()


# -- errors --------------------------------------------------------------------------------


def test_syntax_error_goes_to_stderr_and_run_mentions_it():
    with Sandbox() as sb:
        assert sb.execute("const = ;") == ""
        assert "SyntaxError" in sb.last_stderr
    tool = create_sandbox_tool()
    out = tool.run("console.log('unterminated)", language="javascript")
    assert "error" in out.lower() or "stderr" in out.lower()


def test_uncaught_error_is_name_message_on_stderr():
    with Sandbox() as sb:
        out = sb.execute("console.log('before'); throw new TypeError('bad thing')")
        assert out == "before\n"
        assert sb.last_stderr.startswith("TypeError: bad thing")
        assert sb.execute("try { throw new Error('Something went wrong') } catch (e) { console.log('Caught: ' + e.message) }") == (
            "Caught: Something went wrong\n"
        )


def test_tool_errors_reach_the_script_not_python():
    def handler(method: str, params: Any) -> Any:
        if method == "boom":
            raise ValueError("kaput")
        if method == "weird":
            return {1, 2, 3}
        return {"ok": True}

    with Sandbox(tools=defs("boom", "weird"), tool_handler=handler) as sb:
        out = sb.execute(
            "for (const f of [() => boom({x: 1}), () => weird({})]) {"
            "  try { await f() } catch (e) { console.log(e.message) } }"
        )
    assert "Tool 'mcp:boom' failed: kaput\nParameters: {'x': 1}" in out
    assert "Tool result not JSON-serializable" in out


def test_positional_argument_reaches_handler_and_fails_like_python():
    def get_weather(city: str) -> dict:
        return {"city": city}

    tool = create_sandbox_tool(tools=[get_weather])
    out = tool.run("try { await get_weather('SF') } catch (e) { console.log(e.message) }", language="javascript")
    assert "argument after ** must be a mapping" in out


def test_unknown_tool_is_a_reference_error():
    with Sandbox() as sb:
        sb.execute("await no_such_tool({})")
        assert "ReferenceError" in sb.last_stderr and "no_such_tool" in sb.last_stderr


def test_no_handler_rejects():
    with Sandbox(tools=defs("t")) as sb:
        out = sb.execute("try { await t({}) } catch (e) { console.log(e.message) }")
    assert "No handler for tool call: mcp:t" in out


# -- sizes and encodings --------------------------------------------------------------------


def test_one_megabyte_script():
    # A script that carries its data, as agents write them: 1 MB of literal
    # rows, a few thousand statements. (Tens of thousands of `const`s in one
    # scope are slow in QuickJS, whose declaration check is linear per
    # declaration; docs/javascript.md says so.)
    rows = ",\n".join(f'{{"id": {i}, "name": "item_{i:05d}", "tags": ["a", "b"]}}' for i in range(20000))
    stmts = "\n".join(f"const v{i} = rows[{i}].id;" for i in range(2000))
    code = f"const rows = [\n{rows}\n];\n{stmts}\nconsole.log(rows.length * 3 + (v1999 - 1999) + (v1 - 1))"
    assert len(code.encode()) > 1_000_000
    with Sandbox() as sb:
        assert sb.execute(code) == "60000\n"
        assert sb.execute("", stdin=code) == "60000\n"


def test_ten_megabyte_tool_result():
    blob = "x" * (10 * 1024 * 1024)
    with Sandbox(tools=defs("big"), tool_handler=lambda m, p: {"data": blob}) as sb:
        out = sb.execute("const r = await big({}); console.log(r.data.length, r.data === 'x'.repeat(r.data.length))")
    assert out == f"{len(blob)} true\n"


def test_tool_result_over_the_limit_is_rejected_with_its_size():
    with Sandbox(tools=defs("big"), tool_handler=lambda m, p: "y" * 2000, max_tool_result_size=1000) as sb:
        out = sb.execute("try { await big({}) } catch (e) { console.log(e.message) }")
    assert out == "tool call 'mcp:big' failed: internal: Tool result too large: 2002 bytes (max 1000)\n"


def test_unicode_and_emoji_round_trip():
    text = "héllo wörld — 日本語 🎉👩‍💻 \u0000 \ud7ff"
    with Sandbox(tools=defs("echo"), tool_handler=lambda m, p: p) as sb:
        out = sb.execute(
            "const r = await echo({text: " + json.dumps(text) + "});"
            "await fs.writeFile('/workspace/u.txt', r.text);"
            "return await fs.readFile('/workspace/u.txt')"
        )
    assert out == text + "\n"


def test_five_hundred_sequential_calls():
    handler, calls = recorder({"inc": lambda p: p["n"] + 1})
    with Sandbox(tools=defs("inc"), tool_handler=handler) as sb:
        out = sb.execute("let n = 0; for (let i = 0; i < 500; i++) n = await inc({n}); return n")
        assert out == "500\n"
        assert len(calls) == 500
        assert len(sb.last_result.tool_calls) == 500


def test_promise_all_batch_is_queued_together():
    with Sandbox(tools=defs("t")) as sb:
        sb.start("const rs = await Promise.all([...Array(10).keys()].map(i => t({i}))); await t({last: true}); return rs")
        first = [sb.step() for _ in range(10)]
        assert sorted(r.params["i"] for r in first) == list(range(10))
        for r in reversed(first):
            sb.resume(r.params["i"] * 10, id=r.id)
        last = sb.step()
        assert last.params == {"last": True}
        sb.resume(None)
        assert sb.step() is None and not sb.has_work()
        assert sb.result().stdout == "[0,10,20,30,40,50,60,70,80,90]\n"


def test_execute_async_runs_a_batch_concurrently():
    active = 0
    peak = 0

    async def handler(method: str, params: Any) -> Any:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0.05)
        active -= 1
        return params["i"]

    with Sandbox(tools=defs("slow"), tool_handler=handler) as sb:
        out = asyncio.run(sb.execute_async("return (await Promise.all([0,1,2,3,4].map(i => slow({i})))).join(',')"))
    assert out == "0,1,2,3,4\n"
    assert peak == 5


def test_async_handler_under_execute_is_an_error_naming_execute_async():
    async def handler(method: str, params: Any) -> Any:
        return 1

    with Sandbox(tools=defs("a"), tool_handler=handler) as sb:
        out = sb.execute("try { await a({}) } catch (e) { console.log(e.message) }")
        assert "coroutine" in out.lower() and "execute_async" in out
        assert asyncio.run(sb.execute_async("return await a({})")) == "1\n"


def test_async_tools_work_under_run():
    async def fetch(n: int) -> int:
        await asyncio.sleep(0)
        return n * 2

    tool = create_sandbox_tool(tools=[fetch])
    assert tool.run("return await fetch({n: 21})", language="javascript") == "42\n"


def test_on_output_streams_chunks():
    chunks: list[str] = []
    with Sandbox(tools=defs("t"), tool_handler=lambda m, p: 1) as sb:
        out = sb.execute("console.log('one'); await t({}); console.log('two')", on_output=chunks.append)
    assert out == "one\ntwo\n"
    assert "".join(chunks) == out and len(chunks) >= 2


# -- limits -------------------------------------------------------------------------------------


def test_infinite_loop_is_stopped_and_sandbox_stays_usable():
    with Sandbox(timeout=1) as sb:
        sb.execute("await fs.writeFile('/workspace/keep.txt', 'kept')")
        start = time.monotonic()
        with pytest.raises(amla_sandbox.TimeoutError) as info:
            sb.execute("while (true) {}")
        assert time.monotonic() - start < 2.0
        assert isinstance(info.value, amla_sandbox.RuntimeError)
        assert sb.execute("return await fs.readFile('/workspace/keep.txt')") == "kept\n"


def test_time_waiting_for_python_does_not_count():
    def slow(method: str, params: Any) -> Any:
        time.sleep(0.6)
        return "done"

    with Sandbox(timeout=0.5, tools=defs("slow"), tool_handler=slow) as sb:
        assert sb.execute("return await slow({})") == "done\n"


def test_allocation_bomb_is_stopped_and_sandbox_stays_usable():
    with Sandbox(memory_limit=64 * 1024 * 1024) as sb:
        sb.execute("await fs.writeFile('/workspace/keep.txt', 'kept')")
        with pytest.raises(amla_sandbox.MemoryLimitError):
            sb.execute("const a = []; while (true) a.push('x'.repeat(1 << 20) + Math.random())")
        assert "goroutine" not in sb.last_stderr
        assert sb.execute("return await fs.readFile('/workspace/keep.txt')") == "kept\n"


def test_deep_recursion_is_a_range_error_not_a_crash():
    with Sandbox() as sb:
        out = sb.execute("function f(n) { return f(n + 1) + 1 } try { f(0) } catch (e) { console.log(e.name) }")
        sb.execute("function g() { return g() } g()")
        assert "RangeError" in out + sb.last_stderr
        assert sb.execute("return 1") == "1\n"


@pytest.mark.parametrize(
    "kwargs,needle",
    [
        ({"timeout": 0}, "timeout"),
        ({"timeout": -1}, "timeout"),
        ({"timeout": "30"}, "timeout"),
        ({"memory_limit": 1024}, "memory_limit"),
        ({"max_tool_result_size": 0}, "max_tool_result_size"),
    ],
)
def test_bad_limits_are_value_errors(kwargs: dict, needle: str):
    with pytest.raises(ValueError, match=needle):
        Sandbox(**kwargs)


def test_bad_language_and_closed_sandbox():
    sb = Sandbox()
    with pytest.raises(ValueError, match="language"):
        sb.start("1", language="ruby")
    sb.close()
    with pytest.raises(builtins.RuntimeError, match="not initialized"):
        sb.execute("1")
    with pytest.raises(builtins.RuntimeError, match="not initialized"):
        sb.shell("echo hi")
    assert sb.last_stderr == "" and sb.get_call_counts() == {} and not sb.can_call("mcp:x")


# -- many sandboxes, many threads ---------------------------------------------------------------


def test_fifty_sandboxes_alive_at_once():
    boxes = [Sandbox() for _ in range(50)]
    try:
        for i, sb in enumerate(boxes):
            sb.execute(f"await fs.writeFile('/workspace/id.txt', '{i}')")
        assert [sb.execute("return await fs.readFile('/workspace/id.txt')") for sb in boxes] == [f"{i}\n" for i in range(50)]
    finally:
        for sb in boxes:
            sb.close()


def test_one_sandbox_from_eight_threads_serializes_runs():
    with Sandbox() as sb:
        sb.execute("await fs.writeFile('/workspace/n.txt', '0')")
        errors: list[BaseException] = []

        def work() -> None:
            try:
                for _ in range(5):
                    sb.execute(
                        "const n = Number(await fs.readFile('/workspace/n.txt'));"
                        "await fs.writeFile('/workspace/n.txt', String(n + 1))"
                    )
            except BaseException as e:  # pragma: no cover - reported below
                errors.append(e)

        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        assert sb.execute("return await fs.readFile('/workspace/n.txt')") == "40\n"


def test_last_result_is_structured():
    with Sandbox(tools=defs("t"), tool_handler=lambda m, p: 1) as sb:
        sb.execute("console.log('x'); console.error('y'); await t({a: 1})")
        r = sb.last_result
    assert r.stdout == "x\n" and r.stderr == "y\n" and r.exit_code == 0
    assert r.duration_ms > 0 and r.peak_memory_bytes > 0
    assert [(c.method, c.params, c.ok) for c in r.tool_calls] == [("mcp:t", {"a": 1}, True)]


def test_bad_arguments_name_what_is_wrong():
    with Sandbox() as sb:
        with pytest.raises(TypeError, match="code must be a str"):
            sb.execute(123)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="stdin must be str or bytes"):
            sb.execute("1", stdin=5)  # type: ignore[arg-type]
        assert sb.execute("return 1") == "1\n"  # still usable
    with pytest.raises(TypeError, match="tools must be ToolDefinition"):
        Sandbox(tools=["not a tool"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="capabilities must be ToolCallCap or MethodCapability"):
        Sandbox(capabilities=["**"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="tool_handler must be callable"):
        Sandbox(tool_handler=42)  # type: ignore[arg-type]


def test_invalid_utf8_stdin_bytes_are_replaced_not_fatal():
    with Sandbox() as sb:
        assert sb.execute("", stdin=b"return '\xff' + 'ok'") == "\ufffdok\n"


def test_runtime_cleared_means_not_initialized():
    sb = Sandbox()
    rt = sb._runtime
    sb._runtime = None
    for call in (lambda: sb.execute("1"), lambda: sb.shell("echo hi")):
        with pytest.raises(builtins.RuntimeError, match="not initialized"):
            call()
    assert sb.can_call("mcp:x") is False and sb.get_remaining_calls("cap:method:**") is None
    rt.close()


def test_audit_entries_from_runs(tmp_path):
    from amla_sandbox import AuditConfig

    log = tmp_path / "audit.jsonl"
    with Sandbox(tools=defs("t"), tool_handler=lambda m, p: 1, audit_config=AuditConfig(output_path=log, agent_id="agent-7")) as sb:
        sb.execute("await t({a: 1})")
        kinds = [e.type for e in sb.get_audit_entries()]
        assert kinds == ["command_create", "tool_call", "command_exit"]
        (call,) = sb.get_audit_entries("tool_call")
        assert call.data["method"] == "mcp:t" and call.data["ok"] is True and call.agent_id == "agent-7"
        assert sb.audit_collector is not None
    assert sb._audit_collector is None
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line["type"] for line in lines] == kinds and lines[0]["agent_id"] == "agent-7"


def test_failed_construction_closes_the_audit_file(tmp_path, monkeypatch):
    import amla_sandbox.sandbox as sandbox_module
    from amla_sandbox import AuditCollector, AuditConfig

    closed: list[bool] = []

    class Recording(AuditCollector):
        def close(self) -> None:
            closed.append(True)
            super().close()

    monkeypatch.setattr(sandbox_module, "AuditCollector", Recording)
    with pytest.raises(amla_sandbox.RuntimeError, match="WASM file not found"):
        Sandbox(audit_config=AuditConfig(output_path=tmp_path / "a.jsonl"), wasm_path=tmp_path / "missing.wasm")
    assert closed == [True]
