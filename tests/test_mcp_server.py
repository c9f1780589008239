"""The sandbox as an MCP server (issue 18 item 3 and the last part of item
4), driven by the SDK's own client over stdio and streamable HTTP, stateful
and stateless. Each server is a real `python -m amla_sandbox.mcp` process."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from amla_sandbox.mcp.server import supported_languages  # noqa: E402

from test_mcp_tools import STDIO, SERVERS, free_port, wait_for_port  # noqa: E402

CONFIG = {
    "mcpServers": {"t": STDIO},
    "tools": ["pytools:add", "pytools:block", "pytools:release"],
    "constraints": {"t.add": {"a": "<=10"}},
    "max_calls": {"add": 2, "t/add": 5},
    "timeout": 3,
    "memory_limit": 64 * 1024 * 1024,
    "disk_quota": 16 * 1024 * 1024,
}


@pytest.fixture(scope="module")
def config_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("mcp") / "config.json"
    path.write_text(json.dumps(CONFIG))
    return path


def server_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(SERVERS), os.environ.get("PYTHONPATH", "")])}


def structured(result: Any) -> dict[str, Any]:
    assert result.structured_content is not None
    assert json.loads(result.content[0].text) == result.structured_content  # the same, as text
    return result.structured_content


async def run(session: ClientSession, tool: str, **args: Any) -> dict[str, Any]:
    return structured(await session.call_tool(tool, args))


# -- stdio ---------------------------------------------------------------------------------------------


def test_stdio_server_runs_scripts_with_tools_limits_and_bad_input(config_file: Path) -> None:
    async def main() -> None:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "amla_sandbox.mcp", "--config", str(config_file)], env=server_env()
        )
        logs: list[Any] = []

        async def on_log(p: Any) -> None:
            logs.append(p)

        async with stdio_client(params) as (r, w), ClientSession(r, w, logging_callback=on_log) as s:
            await s.initialize()
            listed = {t.name: t for t in (await s.list_tools()).tools}
            expected = {"run_javascript", "run_typescript", "run_shell"} | (
                {"run_python"} if "python" in supported_languages() else set()
            )
            assert set(listed) == expected
            ts = await run(s, "run_typescript", code="const n: number = 6; console.log(n * 7)")
            assert ts["stdout"] == "42\n", ts
            desc = listed["run_javascript"].description or ""
            for needle in ("add({a: integer, b: integer})", "t.add(", "tools.search", "3 s", "64 MiB", "persist"):
                assert needle in desc, needle
            assert listed["run_shell"].output_schema["required"] == ["status", "stdout", "stderr", "exit_code"]

            # Files persist across three calls of the session, across languages.
            r1 = await run(s, "run_javascript", code="await fs.writeFile('/workspace/n.txt', 'one\\n'); console.log('w')")
            r2 = await run(s, "run_shell", script="echo two >> /workspace/n.txt; wc -l < /workspace/n.txt")
            r3 = await run(s, "run_javascript", code="return await fs.readFile('/workspace/n.txt')")
            assert r1 == {"status": "success", "stdout": "w\n", "stderr": "", "exit_code": 0}
            assert r2["stdout"].strip() == "2"
            assert r3["stdout"].rstrip("\n") == "one\ntwo"
            assert any(getattr(p, "data", None) == "w\n" and p.logger == "stdout" for p in logs)

            # Python tools and MCP tools, under constraints and budgets.
            ok = await run(s, "run_javascript", code="console.log(await add({a: 1, b: 2}), (await t.add({a: 3, b: 4})).sum)")
            assert ok["stdout"] == "3 7\n"
            denied = await run(s, "run_javascript", code="await t.add({a: 11, b: 1})")
            assert denied["status"] == "error" and "permission_denied" in denied["stderr"]
            assert "mcp:t/add" in denied["stderr"]
            spent = await run(s, "run_shell", script="tool add --a 1 --b 1 && tool add --a 1 --b 1")
            assert spent["status"] == "error" and "Call limit exceeded" in spent["stderr"]

            # Limits are results, not a dead server.
            slow = await run(s, "run_javascript", code="while (true) {}")
            assert slow["status"] == "error" and "timed out" in slow["error"]

            # Garbage and oversized input get error results.
            for tool, args in [
                ("run_javascript", {"code": 5}),
                ("run_javascript", {}),
                ("run_nothing", {"code": "1"}),
                ("run_javascript", {"code": "x" * (10 << 20)}),
            ]:
                bad = await s.call_tool(tool, args)
                assert bad.is_error, (tool, args)
            big = await run(s, "run_javascript", code="//" + "x" * (10 << 20))
            assert big["status"] == "error" and "more than this server accepts" in big["error"]
            assert (await run(s, "run_javascript", code="console.log(6 * 7)"))["stdout"] == "42\n"

    asyncio.run(main())


def test_bad_config_exits_with_a_message_naming_the_key(tmp_path: Path) -> None:
    for content, needle in [
        ({"timeout": -1}, "'timeout' must be a positive number"),
        ({"tools": ["nosuchmodule_x:f"]}, "cannot import module 'nosuchmodule_x'"),
        ({"mcpServer": {}}, "unknown key(s) ['mcpServer']"),
        ({"constraints": {"add": {"a": "about 5"}}, "tools": ["pytools:add"]}, "Invalid constraint for tool 'add'"),
    ]:
        path = tmp_path / "c.json"
        path.write_text(json.dumps(content))
        proc = subprocess.run(
            [sys.executable, "-m", "amla_sandbox.mcp", "--config", str(path)],
            capture_output=True, text=True, timeout=60, env=server_env(), stdin=subprocess.DEVNULL,
        )
        assert proc.returncode == 2 and needle in proc.stderr, (content, proc.stderr)


# -- streamable HTTP -------------------------------------------------------------------------------------


def http_server(*extra: str) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "amla_sandbox.mcp", "--transport", "streamable-http", "--port", str(port), *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=server_env(),
    )
    try:
        wait_for_port(port, proc)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture(scope="module")
def stateful_url(config_file: Path) -> Iterator[str]:
    yield from http_server("--config", str(config_file))


@pytest.fixture(scope="module")
def stateless_url() -> Iterator[str]:
    yield from http_server("--stateless")


async def session_calls(url: str, name: str) -> list[dict[str, Any]]:
    async with streamable_http_client(url) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        return [
            await run(s, "run_shell", script=f"echo {name} > /workspace/who.txt; ls /workspace"),
            await run(s, "run_javascript", code="await new Promise((r) => setTimeout(r, 200)); return await fs.readFile('/workspace/who.txt')"),
            await run(s, "run_shell", script="cat /workspace/who.txt; ls /workspace | wc -l"),
        ]


def test_http_sessions_keep_their_own_files(stateful_url: str) -> None:
    async def main() -> list[list[dict[str, Any]]]:
        return await asyncio.gather(session_calls(stateful_url, "alice"), session_calls(stateful_url, "bob"))

    alice, bob = asyncio.run(main())
    assert [c["stdout"].rstrip("\n") for c in alice] == ["who.txt", "alice", "alice\n1"]
    assert [c["stdout"].rstrip("\n") for c in bob] == ["who.txt", "bob", "bob\n1"]


def test_stateless_http_starts_clean_every_call(stateless_url: str) -> None:
    async def main() -> list[dict[str, Any]]:
        async with streamable_http_client(stateless_url) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            return [
                await run(s, "run_shell", script="echo x > /workspace/f; ls /workspace"),
                await run(s, "run_shell", script="ls /workspace | wc -l"),
            ]

    first, second = asyncio.run(main())
    assert first["stdout"] == "f\n"
    assert second["stdout"].strip() == "0"


def test_http_garbage_is_refused_and_the_server_lives_on(stateful_url: str) -> None:
    for body in (b"not json at all", b'{"jsonrpc": "2.0", "id": 1, "method": 5}', b"[" * 100_000):
        req = urllib.request.Request(
            stateful_url, data=body, method="POST",
            headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
        )
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(req, timeout=10)
        assert 400 <= e.value.code < 500
    assert asyncio.run(session_calls(stateful_url, "carol"))[1]["stdout"].rstrip("\n") == "carol"


def test_http_oversized_code_and_bad_arguments_are_error_results(stateful_url: str) -> None:
    async def main() -> list[Any]:
        async with streamable_http_client(stateful_url) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            out: list[Any] = [await run(s, "run_javascript", code="//" + "x" * (10 << 20))]
            with pytest.raises(MCPError):  # past the body limit: HTTP 413 from the SDK
                await s.call_tool("run_javascript", {"code": "//" + "x" * (20 << 20)})
            out.append(await s.call_tool("run_shell", {"script": ["echo", "1"]}))
            out.append(await run(s, "run_javascript", code="console.log(6 * 7)"))
            return out

    big, bad, after = asyncio.run(main())
    assert big["status"] == "error" and "code is 10485762 bytes, more than this server accepts" in big["error"]
    assert bad.is_error and "run_shell needs the argument 'script'" in structured(bad)["error"]
    assert after["stdout"] == "42\n"


def test_a_plain_python_tool_does_not_stall_other_sessions(stateful_url: str) -> None:
    # block() waits until another session calls release(). Run on the
    # server's event loop it would stall that other session until block()
    # gave up after 5 s.
    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        async with streamable_http_client(stateful_url) as (r1, w1), ClientSession(r1, w1) as s1:
            await s1.initialize()
            async with streamable_http_client(stateful_url) as (r2, w2), ClientSession(r2, w2) as s2:
                await s2.initialize()
                blocked = asyncio.create_task(run(s1, "run_javascript", code="console.log(await block({}))"))
                await asyncio.sleep(0.5)
                released = await run(s2, "run_shell", script="tool release")
                return await blocked, released

    blocked, released = asyncio.run(main())
    assert released["stdout"] == '"ok"\n'
    assert blocked["stdout"] == "released\n"


def test_output_streams_while_the_run_goes(stateful_url: str) -> None:
    # The script prints, then blocks until another session releases it; the
    # test releases it only once the first line has arrived as a
    # notification, so the line must be sent while the run still goes.
    async def main() -> tuple[dict[str, Any], list[Any]]:
        first = asyncio.Event()
        progress: list[Any] = []

        async def on_log(p: Any) -> None:
            if p.logger == "stdout" and "first" in str(p.data):
                first.set()

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append(message)

        async with streamable_http_client(stateful_url) as (r1, w1), ClientSession(r1, w1, logging_callback=on_log) as s1:
            await s1.initialize()
            async with streamable_http_client(stateful_url) as (r2, w2), ClientSession(r2, w2) as s2:
                await s2.initialize()
                code = "console.log('first'); console.log(await block({}))"
                running = asyncio.create_task(s1.call_tool("run_javascript", {"code": code}, progress_callback=on_progress))
                await asyncio.wait_for(first.wait(), 5)
                await run(s2, "run_shell", script="tool release")
                return structured(await running), progress

    result, progress = asyncio.run(main())
    assert result["stdout"] == "first\nreleased\n"
    assert progress and progress[0] == "first\n"
