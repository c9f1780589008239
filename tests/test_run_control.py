"""The run belongs to the Go core: cancellation, limits that bound the host,
and the tool pipeline's encoding rules, through the public API."""

from __future__ import annotations

import asyncio
import datetime
import threading
import time

import pytest

import amla_sandbox
from amla_sandbox import MethodCapability, Runtime, Sandbox, ToolDefinition
from amla_sandbox.auth import EphemeralAuthority

TOOLS = [ToolDefinition(n, f"{n} tool", {"type": "object", "properties": {}}) for n in ("a", "b", "echo", "when", "bag")]


def handler(name: str, params: dict) -> object:
    if name == "when":
        return {"at": datetime.datetime(2025, 1, 2, 3, 4, 5), "day": datetime.date(2025, 1, 2)}
    if name == "bag":
        return {"items": {1, 2}}
    return {"tool": name, "params": params}


def test_cancel_from_another_thread_stops_a_computing_script_and_keeps_the_sandbox() -> None:
    sb = Sandbox(timeout=30)
    threading.Timer(0.2, sb.cancel).start()
    start = time.monotonic()
    with pytest.raises(amla_sandbox.RuntimeError, match="cancelled"):
        sb.execute("while (true) {}")
    assert time.monotonic() - start < 2
    assert sb.execute("console.log('still here')") == "still here\n"


def test_asyncio_cancellation_stops_the_guest() -> None:
    sb = Sandbox(timeout=30)

    async def main() -> str:
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(sb.execute_async("while (true) {}"), 0.3)
        return await sb.execute_async("console.log('next')")

    assert asyncio.run(main()) == "next\n"


@pytest.mark.parametrize(
    "language,code",
    [
        ("shell", "sleep 30"),
        ("javascript", "await new Promise(r => setTimeout(r, 30000))"),
        ("javascript", "await shell('sleep 30')"),
    ],
)
def test_sleeping_counts_against_the_timeout(language: str, code: str) -> None:
    sb = Sandbox(timeout=0.5)
    start = time.monotonic()
    with pytest.raises(amla_sandbox.TimeoutError):
        if language == "shell":
            sb.shell(code)
        else:
            sb.execute(code)
    assert time.monotonic() - start < 3


def test_time_in_tool_handlers_does_not_count() -> None:
    def slow(name: str, params: dict) -> str:
        time.sleep(0.8)
        return "done"

    sb = Sandbox(tools=TOOLS, tool_handler=slow, timeout=0.5)
    assert sb.execute("console.log(await a({}))") == "done\n"


def test_has_work_does_not_block_when_taken_requests_are_unanswered() -> None:
    sb = Sandbox(tools=TOOLS, tool_handler=handler)
    sb.start("const [x, y] = await Promise.all([a({n: 1}), b({n: 2})]); console.log(x.tool + y.tool)")
    first, second = sb.step(), sb.step()
    assert first is not None and second is not None
    assert {first.method, second.method} == {"mcp:a", "mcp:b"}
    assert sb.has_work() is True
    with pytest.raises(RuntimeError, match="already returned"):
        sb.step()
    sb.resume({"tool": "A"}, id=first.id)
    sb.resume({"tool": "B"}, id=second.id)
    assert sb.step() is None
    result = sb.result()
    assert result is not None and result.stdout == "AB\n"


def test_resume_of_an_unknown_id_is_a_clear_error() -> None:
    sb = Sandbox(tools=TOOLS, tool_handler=handler)
    sb.start("console.log(JSON.stringify(await a({})))")
    assert sb.step() is not None
    with pytest.raises(amla_sandbox.RuntimeError, match="no tool request with id 4242"):
        sb.resume(1, id=4242)
    sb.resume("ok")
    assert sb.result().stdout == '"ok"\n'


def test_dates_become_iso_strings_and_other_non_json_results_name_tool_and_type() -> None:
    sb = Sandbox(tools=TOOLS, tool_handler=handler)
    assert sb.execute("console.log(JSON.stringify(await when({})))") == (
        '{"at":"2025-01-02T03:04:05","day":"2025-01-02"}\n'
    )
    out = sb.execute("try { await bag({}) } catch (e) { console.log(e.message) }")
    assert "tool 'bag'" in out and "set" in out and "not JSON-serializable" in out


def test_params_python_cannot_take_are_refused_in_go_and_the_sandbox_goes_on() -> None:
    seen: list[object] = []
    sb = Sandbox(tools=TOOLS, tool_handler=lambda n, p: seen.append(p) or "x")
    out = sb.execute("try { await echo({['\\ud800']: 1}) } catch (e) { console.log(e.message) }")
    assert "invalid_request: Invalid payload JSON: a lone surrogate" in out
    out = sb.execute(
        "let o = 1; for (let i = 0; i < 3000; i++) o = [o];"
        "try { await echo({o}) } catch (e) { console.log(e.message) }"
    )
    assert "nested more than 500 levels" in out
    assert seen == []
    assert sb.execute("console.log(1)") == "1\n"


def test_a_handler_error_with_nul_and_surrogates_reaches_the_script() -> None:
    def bad(name: str, params: dict) -> None:
        raise ValueError("nul\x00 and \ud800 here")

    sb = Sandbox(tools=TOOLS, tool_handler=bad)
    out = sb.execute("try { await a({}) } catch (e) { console.log(e.message) }")
    assert "nul\\x00 and \\ud800 here" in out


def test_big_params_are_recorded_as_a_small_preview() -> None:
    sb = Sandbox(tools=TOOLS, tool_handler=lambda n, p: 1)
    sb.execute("await a({s: 'x'.repeat(1 << 20)})")
    call = sb.last_result.tool_calls[0]
    assert call.params_truncated and isinstance(call.params, str) and len(call.params) < 400


def test_output_is_capped_per_stream() -> None:
    sb = Sandbox(max_output_size=1000)
    out = sb.execute("for (let i = 0; i < 1000; i++) console.log('line ' + i)")
    assert out.startswith("line 0\n") and out.endswith("[output truncated at 1000 bytes]\n")
    assert len(out) < 1100


def test_disk_quota_gives_enospc_and_keeps_existing_files() -> None:
    sb = Sandbox(disk_quota=2 * 1024 * 1024)
    sb.shell("echo kept > /workspace/keep.txt")
    out = sb.execute(
        "try { for (let i = 0; ; i++) await fs.writeFile('/workspace/f' + i, 'x'.repeat(100000)) }"
        " catch (e) { console.log(e.message) }"
        "console.log(await fs.readFile('/workspace/keep.txt', 'utf8'))"
    )
    assert "ENOSPC" in out and out.endswith("kept\n\n")
    sb.shell("yes > /workspace/flood")
    assert "No space left on device" in sb.last_stderr
    assert sb.shell("cat /workspace/keep.txt") == "kept\n"


def test_max_steps_caps_tool_calls_per_run() -> None:
    tools = '[{"name": "t", "description": "t", "inputSchema": {"type": "object", "properties": {}}}]'
    rt = Runtime.for_testing(tool_handler=lambda m, p: 1, tools_json=tools, max_steps=5)
    with pytest.raises(amla_sandbox.RuntimeError, match=r"maximum steps \(5\)"):
        rt.execute("for i in 1 2 3 4 5 6 7; do tool t; done")


@pytest.mark.parametrize(
    "granted,allowed",
    [([], set()), (["tool_call:mcp:a"], {"a"}), (["tool_call:mcp:zzz"], set()), (["tool_call:**"], {"a", "b"})],
)
def test_pca_grants_narrow_the_capabilities(granted: list[str], allowed: set[str]) -> None:
    auth = EphemeralAuthority()
    sb = Sandbox(
        pca=auth.create_pca(capabilities=granted).to_cbor(),
        trusted_authorities=[auth.public_key_hex()],
        capabilities=[MethodCapability("mcp:a"), MethodCapability("mcp:b")],
        tools=TOOLS,
        tool_handler=handler,
    )
    got = set()
    for name in ("a", "b"):
        out = sb.execute(f"try {{ await {name}({{}}); console.log('ok') }} catch (e) {{ console.log(e.message) }}")
        if out == "ok\n":
            got.add(name)
        else:
            assert "permission_denied" in out
    assert got == allowed
    assert sb.can_call("mcp:a") == ("a" in allowed)
