"""MCP servers' tools inside the sandbox (issue 18 items 1, 2 and 4).

Real processes and the real SDK: tests/mcp_servers/tools_server.py (the
SDK's MCPServer, FastMCP's name in mcp 2) over stdio and over streamable
HTTP on 127.0.0.1, and tests/mcp_servers/hostile_server.py, a hand-written
stdio server that misbehaves on purpose.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from amla_sandbox import Sandbox, ToolCallCap, create_sandbox_tool  # noqa: E402
from amla_sandbox.tools import from_mcp  # noqa: E402
from amla_sandbox.tools.mcp import MCPError  # noqa: E402

SERVERS = Path(__file__).parent / "mcp_servers"
STDIO = {"command": sys.executable, "args": [str(SERVERS / "tools_server.py"), "stdio"]}
HOSTILE = {"command": sys.executable, "args": [str(SERVERS / "hostile_server.py")]}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[Any], seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listened on port {port} within {seconds} s")


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(SERVERS / "tools_server.py"), "http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, proc)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture(scope="module")
def tool(http_url: str) -> Iterator[Any]:
    """One sandbox tool with the test server over stdio ("t") and over HTTP ("w")."""
    st = create_sandbox_tool(
        mcp_servers={"t": STDIO, "w": {"url": http_url}},
        constraints={"t.add": {"a": "<=10"}, "w/create_issue": {"title": "startswith:ok"}},
        max_calls={"t/add": 3, "w.echo": 2},
        timeout=10,
    )
    yield st
    st.close()


def js(st: Any, code: str) -> tuple[str, str]:
    out = st.sandbox.execute(code)
    return out, st.sandbox.last_stderr


# -- calls from JavaScript and the shell ---------------------------------------------------------------


def test_tools_are_named_server_dot_tool_and_called_as_mcp_server_slash_tool(tool: Any) -> None:
    names = {t.name for t in tool.sandbox.tools}
    assert {"t.add", "t.create_issue", "w.add", "w.create_issue", "w.echo"} <= names
    methods = {c.method_pattern for c in tool.sandbox.capabilities}
    assert {"mcp:t/add", "mcp:w/create_issue"} <= methods


def test_javascript_calls_stdio_and_http_tools_through_namespaces(tool: Any) -> None:
    out, err = js(
        tool,
        """
        const a = await t.add({a: 2, b: 3});
        const i = await w.create_issue({title: "ok title", labels: ["bug"]});
        const e = await t.echo({text: "héllo"});
        console.log(JSON.stringify([a, i, e]));
        console.log(typeof t_add, listTools().includes("w_create_issue"));
        """,
    )
    assert err == ""
    lines = out.splitlines()
    assert json.loads(lines[0]) == [
        {"sum": 5},
        {"number": 8, "title": "ok title", "labels": ["bug"]},
        {"result": "héllo"},
    ]
    assert lines[1] == "function true"


def test_errors_name_the_server_and_the_tool(tool: Any) -> None:
    out, _ = js(tool, 'try { await t.fail({message: "boom"}) } catch (e) { console.log(e.message) }')
    assert "tool call 'mcp:t/fail' failed" in out
    assert "MCP tool t.fail returned an error" in out
    out, _ = js(tool, "try { await w.add({a: 'x'}) } catch (e) { console.log(e.message) }")
    assert "mcp:w/add" in out and "w" in out  # the server refused the arguments


def test_constraints_allow_and_deny_under_either_name(tool: Any) -> None:
    out, _ = js(
        tool,
        """
        const r = [];
        for (const p of [{title: "ok fine"}, {title: "not ok"}]) {
          try { r.push((await w.create_issue(p)).title) } catch (e) { r.push(e.message) }
        }
        console.log(JSON.stringify(r));
        """,
    )
    allowed, denied = json.loads(out)
    assert allowed == "ok fine"
    assert "permission_denied" in denied and "mcp:w/create_issue" in denied


def test_budgets_are_spent_and_exhausted_from_javascript_and_the_shell() -> None:
    with create_sandbox_tool(mcp_servers={"t": STDIO}, constraints={"t.add": {"a": "<=10"}}, max_calls={"t.add": 3}) as st:
        out = st.sandbox.shell("tool t.add --a 1 --b 2; tool t.add --a 11 --b 2; echo status=$?")
        assert out.splitlines() == ['{"sum":3}', "status=1"]
        assert "permission_denied" in st.sandbox.last_stderr and "<= 10" in st.sandbox.last_stderr.replace("<=10", "<= 10")
        out, _ = js(
            st,
            """
            const r = [];
            for (let i = 0; i < 3; i++) {
              try { r.push((await t.add({a: i, b: 1})).sum) } catch (e) { r.push(e.message) }
            }
            console.log(JSON.stringify(r));
            """,
        )
        r = json.loads(out)
        assert r[:2] == [1, 2]
        assert "Call limit exceeded for 'cap:tool-call:mcp:t/add': max 3 calls allowed" in r[2]
        assert st.sandbox.get_remaining_calls("cap:tool-call:mcp:t/add") == 0


def test_method_patterns_of_explicit_capabilities_address_a_server() -> None:
    with Sandbox(capabilities=[ToolCallCap("mcp:t/*", max_calls=5)], mcp_servers={"t": STDIO, "h": HOSTILE}) as sb:
        out = sb.execute(
            """
            const r = [(await t.add({a: 1, b: 1})).sum];
            try { await h.ok({}) } catch (e) { r.push(e.message) }
            console.log(JSON.stringify(r));
            """
        )
        ok, denied = json.loads(out)
        assert ok == 2
        assert "No capability authorizes method 'mcp:h/ok'" in denied
        assert sb.can_call("mcp:t/echo", {"text": "x"}) and not sb.can_call("mcp:h/ok")


def test_promise_all_runs_calls_concurrently_in_run_and_run_async(tool: Any) -> None:
    code = """
    const r = await Promise.all([1, 2, 3].map((i) => t.sleep_then({seconds: 0.4, value: "v" + i})));
    console.log(r.map((x) => x.result).join(","));
    """
    started = time.monotonic()
    assert tool.sandbox.execute(code) == "v1,v2,v3\n"
    assert time.monotonic() - started < 1.1  # one after another would take 1.2 s
    started = time.monotonic()
    assert asyncio.run(tool.sandbox.execute_async(code)) == "v1,v2,v3\n"
    assert time.monotonic() - started < 1.1


# -- finding tools -------------------------------------------------------------------------------------


def test_tools_search_and_describe_in_javascript_and_the_shell(tool: Any) -> None:
    out, err = js(
        tool,
        """
        const hits = await tools.search("issue");
        const d = await tools.describe("w.create_issue");
        let missing;
        try { await tools.describe("nope") } catch (e) { missing = e.message }
        console.log(JSON.stringify({hits: hits.map((h) => h.name), d, missing}));
        """,
    )
    assert err == ""
    r = json.loads(out)
    assert r["hits"] == ["t.create_issue", "w.create_issue"]
    assert r["d"]["method"] == "mcp:w/create_issue"
    assert r["d"]["parameters"]["required"] == ["title"]
    assert r["d"]["call"] == "w.create_issue"
    assert "Unknown tool: nope" in r["missing"]
    out = tool.sandbox.shell("tool --search add integers; tool --describe t.add | jq -r .method")
    assert out.splitlines()[-1] == "mcp:t/add"
    assert "t.add" in out and "w.add" in out


def test_the_prompt_lists_few_tools_with_parameters_and_many_by_name(tool: Any) -> None:
    prompt = tool.get_system_prompt()
    assert "### MCP Tools" in prompt and "tools.search" in prompt
    assert "- t.add({a: integer, b: integer})" in prompt
    lines = tool.sandbox._mcp.prompt_lines(schemas=False)
    assert lines[0].startswith("- t: create_issue, echo, add")


# -- from_mcp for a Sandbox built by hand --------------------------------------------------------------


def test_from_mcp_gives_definitions_handler_and_capabilities() -> None:
    with from_mcp({"t": STDIO}) as mcp:
        caps = mcp.capabilities(max_calls={"t.echo": 1}, default_max_calls=None)
        with Sandbox(tools=mcp.definitions, capabilities=caps, tool_handler=mcp.handler) as sb:
            out = sb.execute(
                """
                const r = [(await t.echo({text: "a"})).result];
                try { await t.echo({text: "b"}) } catch (e) { r.push(e.message.includes("Call limit")) }
                console.log(JSON.stringify(r));
                """
            )
            assert json.loads(out) == ["a", True]
        handler, definitions = mcp  # unpacks like the other ingestion helpers
        assert handler("t/add", {"a": 1, "b": 2}) == {"sum": 3}
        assert mcp.resolve("t.add") is mcp.resolve("mcp:t/add") is not None


def test_close_stops_the_servers_it_started() -> None:
    sb = Sandbox(mcp_servers={"t": STDIO})
    pid = int(sb.execute("console.log((await t.pid({})).result)"))
    os.kill(pid, 0)  # alive
    sb.close()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"MCP server process {pid} still runs after close()")


def test_bad_server_configs_are_errors_naming_the_server() -> None:
    with pytest.raises(ValueError, match="both 'command'"):
        Sandbox(mcp_servers={"x": {"command": "a", "url": "http://b"}})
    with pytest.raises(ValueError, match=r"mcp_servers\['x'\] needs 'command'"):
        Sandbox(mcp_servers={"x": {}})
    with pytest.raises(ValueError, match="MCP server name 'a.b'"):
        Sandbox(mcp_servers={"a.b": STDIO})
    with pytest.raises(ValueError, match="unknown key"):
        Sandbox(mcp_servers={"x": {**STDIO, "argz": []}})
    with pytest.raises(MCPError, match="MCP server 'gone' could not be started"):
        Sandbox(mcp_servers={"gone": {"command": "/nonexistent/mcp-server"}})
    with pytest.raises(MCPError, match="MCP server 'dead'"):
        Sandbox(mcp_servers={"dead": {"command": sys.executable, "args": ["-c", "pass"]}})


def test_importing_the_package_does_not_import_the_sdk() -> None:
    code = "import sys, amla_sandbox, amla_sandbox.tools, amla_sandbox.mcp; print('mcp' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


# -- hostile and faulty servers (item 4) ---------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile() -> Iterator[Sandbox]:
    sb = Sandbox(
        mcp_servers={"h": {**HOSTILE, "timeout": 1}},
        max_tool_result_size=2 * 1024 * 1024,
        timeout=10,
    )
    yield sb
    sb.close()


def call(sb: Sandbox, name: str) -> str:
    return sb.execute(f"try {{ console.log(JSON.stringify(await h.{name}({{}}))) }} catch (e) {{ console.log(e.message) }}")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("big", "MCP server 'h' sent a message of more than 2162688 bytes"),
        ("deep", "MCP server 'h' sent a message that is not valid JSON-RPC"),
        ("invalid", "MCP server 'h' sent a message that is not valid JSON-RPC"),
        ("silent", "MCP server 'h' did not answer silent within 1 s"),
        ("exit", "MCP server 'h' exited (status 3) while calling exit"),
    ],
)
def test_a_faulty_server_fails_the_call_clearly_and_is_restarted(hostile: Sandbox, name: str, expected: str) -> None:
    out = call(hostile, name)
    assert f"tool call 'mcp:h/{name}' failed" in out
    assert expected in out
    assert call(hostile, "ok") == '"fine"\n'  # restarted, and the sandbox still works
    assert hostile.execute("console.log(1 + 1)") == "2\n"


_PEAK = """
import json, resource, sys
from amla_sandbox import Sandbox
with Sandbox(mcp_servers={"h": json.loads(sys.argv[1])}, max_tool_result_size=int(sys.argv[2])) as sb:
    sb.execute("console.log(1)")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = sb.execute("try { console.log((await h.big({})).length) } catch (e) { console.log(e.message) }")
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
print(json.dumps({"out": out, "grown_mib": grown}))
"""


def test_a_50_mb_answer_over_the_limit_is_never_held_in_memory() -> None:
    # In a fresh process, so the peak it measures is this call's.
    run = subprocess.run(
        [sys.executable, "-c", _PEAK, json.dumps(HOSTILE), str(2 * 1024 * 1024)],
        capture_output=True, text=True, timeout=120, check=True,
    )
    r = json.loads(run.stdout)
    assert "sent a message of more than 2162688 bytes" in r["out"]
    # Holding the 50 MB line (as the SDK's stdio client would) grows the peak
    # by 50 MB or more; reading it in bounded pieces by a few MiB.
    assert r["grown_mib"] < 20, r
