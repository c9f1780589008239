"""MCP servers' tools inside the sandbox (issue 18 items 1, 2 and 4).

Real processes and the real SDK: tests/mcp_servers/tools_server.py (the
SDK's MCPServer, FastMCP's name in mcp 2) over stdio and over streamable
HTTP on 127.0.0.1, and tests/mcp_servers/hostile_server.py, a hand-written
stdio server that misbehaves on purpose.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from amla_sandbox import Sandbox, ToolCallCap, ToolDefinition, create_sandbox_tool  # noqa: E402
from amla_sandbox.auth import EphemeralAuthority  # noqa: E402
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


def together(key: str) -> str:
    """A script whose three calls report "together" only when all three
    are in progress at the same time (the test server's gather_point)."""
    return f"""
    const r = await Promise.all([1, 2, 3].map(() => t.gather_point({{n: 3, key: "{key}"}})));
    console.log(r.map((x) => x.result).join(","));
    """


def test_promise_all_runs_calls_concurrently_in_run_and_run_async(tool: Any) -> None:
    assert tool.sandbox.execute(together("sync")) == "together,together,together\n"
    assert asyncio.run(tool.sandbox.execute_async(together("async"))) == "together,together,together\n"


def test_each_answer_is_delivered_when_its_call_is_done(tool: Any) -> None:
    # The echo's answer must not wait for the first gather_point, which waits
    # for the second, which the script makes only once it has the echo's.
    code = """
    const r = await Promise.all([
      t.gather_point({n: 2, key: "%s"}),
      t.echo({text: "x"}).then(() => t.gather_point({n: 2, key: "%s"})),
    ]);
    console.log(r.map((x) => x.result).join(","));
    """
    assert tool.sandbox.execute(code % ("chain-sync", "chain-sync")) == "together,together\n"
    assert asyncio.run(tool.sandbox.execute_async(code % ("chain-async", "chain-async"))) == "together,together\n"


def test_from_mcp_handler_runs_calls_concurrently_under_execute() -> None:
    # A Sandbox built by hand around mcp.handler gets the same concurrency.
    with from_mcp({"t": STDIO}) as mcp, Sandbox(tools=mcp.definitions, tool_handler=mcp.handler) as sb:
        assert sb.execute(together("by-hand")) == "together,together,together\n"


def test_execute_works_where_an_event_loop_runs() -> None:
    # As in a Jupyter notebook: synchronous execute() called while an event
    # loop runs in the thread. The MCP calls must not come back as awaitables.
    async def main(sb: Sandbox) -> str:
        return sb.execute("console.log((await t.add({a: 1, b: 2})).sum)")

    with Sandbox(mcp_servers={"t": STDIO}) as sb:
        assert asyncio.run(main(sb)) == "3\n"
        assert sb.last_stderr == ""


# -- finding tools -------------------------------------------------------------------------------------


def test_tools_search_and_describe_in_javascript_and_the_shell(tool: Any) -> None:
    out, err = js(
        tool,
        """
        const hits = await tools.search("issue");
        const d = await tools.describe("w.create_issue");
        const i = getToolInfo("w.create_issue");
        let missing;
        try { await tools.describe("nope") } catch (e) { missing = e.message }
        console.log(JSON.stringify({hits: hits.map((h) => [h.name, h.call]), d, i, missing}));
        """,
    )
    assert err == ""
    r = json.loads(out)
    assert r["hits"] == [["t.create_issue", "t.create_issue"], ["w.create_issue", "w.create_issue"]]
    # describe gives the tool's TypeScript declaration (docs/declarations.md).
    assert r["d"].startswith("declare namespace w {\n") and "  function create_issue(input: CreateIssueInput): Promise<" in r["d"]
    assert "    title: string;" in r["d"]
    assert r["i"]["id"] == "mcp:w/create_issue" and r["i"]["parameters"]["required"] == ["title"]
    assert "Unknown tool: nope" in r["missing"]
    out = tool.sandbox.shell("tool --search add integers; tool --describe --json t.add | jq -r .method")
    assert out.splitlines()[-1] == "mcp:t/add"
    assert "t.add" in out and "w.add" in out
    out = tool.sandbox.shell("tool --describe t.add")
    assert out.startswith("tool t.add --a INTEGER --b INTEGER\n    Add two integers.\n"), out


def test_the_prompt_lists_few_tools_with_parameters_and_many_by_name(tool: Any) -> None:
    mcp = tool.sandbox._mcp
    assert len(mcp.definitions) == 16  # two servers of 8 tools: past the 15 listed with parameters
    prompt = tool.get_system_prompt()
    assert "### MCP Tools" in prompt and "tools.search" in prompt and "tools.describe" in prompt
    assert prompt.count("- t: create_issue, echo, add,") == 1  # once, for every language
    assert "- t: create_issue, echo, add," in prompt and "t.add(" not in prompt and "function add(" not in prompt
    assert "- t.add({a: integer, b: integer}) - Add two integers." in mcp.prompt_lines(schemas=True)
    with create_sandbox_tool(mcp_servers={"t": STDIO}) as few:  # 8 tools: with their declarations
        text = few.get_system_prompt()
        assert "declare namespace t {" in text and "  function add(input: AddInput): Promise<" in text
        assert "class t:" in text and "tool t.add --a INTEGER --b INTEGER" in text


def test_pca_grants_apply_to_mcp_tools() -> None:
    authority = EphemeralAuthority()
    pca = authority.create_pca(capabilities=["tool_call:mcp:t/add"]).to_cbor()
    with Sandbox(
        pca=pca,
        trusted_authorities=[authority.public_key_hex()],
        capabilities=[ToolCallCap("**")],
        mcp_servers={"t": STDIO},
    ) as sb:
        out = sb.execute(
            """
            const r = [(await t.add({a: 1, b: 2})).sum];
            try { await t.echo({text: "x"}) } catch (e) { r.push(e.message) }
            console.log(JSON.stringify(r));
            """
        )
        ok, denied = json.loads(out)
        assert ok == 3
        assert "PCA does not grant method 'mcp:t/echo'" in denied
        assert sb.shell("tool t.echo --text x; echo $?") == "1\n"
        assert "PCA does not grant method 'mcp:t/echo'" in sb.last_stderr


def named_tools(*names: str) -> dict[str, Any]:
    return {**HOSTILE, "args": [*HOSTILE["args"], "--names", json.dumps(list(names))]}


def test_tool_names_that_are_method_patterns_are_not_mounted(caplog: pytest.LogCaptureFixture) -> None:
    # The tool "**" would get the capability mcp:n/**, which matches every tool
    # of the server and would lift the constraints and budget of the others.
    servers = {"n": named_tools("create", "**", "*", "x/**", "ok/fine")}
    with caplog.at_level("WARNING"), create_sandbox_tool(
        mcp_servers=servers, constraints={"n.create": {"repo": ["me/ok"]}}, max_calls={"n.create": 1}
    ) as st:
        assert [t.name for t in st.sandbox.tools] == ["n.create", "n.ok/fine"]
        assert sorted(c.method_pattern for c in st.sandbox.capabilities) == ["mcp:n/create", "mcp:n/ok/fine"]
        out = st.sandbox.execute(
            """
            const r = [];
            for (const repo of ["evil", "me/ok", "me/ok"]) {
              try { r.push(await n.create({repo})) } catch (e) { r.push(e.message.match(/failed: (\\w+)/)[1]) }
            }
            console.log(JSON.stringify(r));
            """
        )
        assert json.loads(out) == ["permission_denied", "called create", "permission_denied"]
    assert "'**', which is skipped" in caplog.text and "wildcard" in caplog.text


def test_duplicate_and_unusable_tool_names_are_skipped_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("WARNING"), Sandbox(mcp_servers={"n": named_tools("dup", "dup", "", "a\nb", "x" * 2000)}) as sb:
        assert [t.name for t in sb.tools] == ["n.dup"]
        assert sb.shell("tool --search dup | wc -l") == "1\n"
    assert "the same name" in caplog.text and "empty" in caplog.text and "control characters" in caplog.text
    assert "longer than 1024" in caplog.text


def test_a_given_tool_with_the_method_of_an_mcp_tool_is_refused() -> None:
    # A tool named "n/dup" is called as mcp:n/dup, like the MCP tool n.dup.
    given = ToolDefinition(name="n/dup", description="a Python tool", parameters={"type": "object"})
    with pytest.raises(ValueError, match=r"MCP tools \['n.dup'\] have the names \(or methods"):
        Sandbox(tools=[given], tool_handler=lambda n, p: None, mcp_servers={"n": named_tools("dup")})


def test_odd_tool_names_are_reachable_and_cannot_break_the_namespace() -> None:
    servers = {"n": named_tools("__proto__", "constructor", "toString", "a b", "x/y", "ok.dot")}
    with Sandbox(mcp_servers=servers) as sb:
        out = sb.execute(
            """
            const r = {proto: Object.getPrototypeOf(n) === Object.prototype, own: Object.keys(n)};
            r.direct = [await n.__proto__({}), await n.constructor({}), await n.toString({}), await n["x/y"]({})];
            r.byName = await tools.call("n.a b", {});
            for (const bad of [Symbol("s"), {toString() { throw new Error("no") }}]) {
              try { await tools.describe(bad) } catch (e) { (r.bad ??= []).push(e.message) }
            }
            try { await tools.search({toString() { throw new Error("no") }}) } catch (e) { r.search = e.message }
            console.log(JSON.stringify(r));
            """
        )
        r = json.loads(out)
        assert r["proto"] is True
        assert {"__proto__", "constructor", "toString", "a b", "x/y", "x_y", "ok.dot", "ok_dot"} <= set(r["own"])
        assert r["direct"] == ["called __proto__", "called constructor", "called toString", "called x/y"]
        assert r["byName"] == "called a b"
        assert r["bad"] == [
            "Unknown tool: Symbol(s) (tools.search() finds tools)",
            "Unknown tool: a object (tool names are strings) (tools.search() finds tools)",
        ]
        assert r["search"] == "tools.search takes words as a string"
        assert sb.shell("tool 'n.x/y'; tool 'n.a b'") == '"called x/y"\n"called a b"\n'
        # A namespace is built when first read; the script may also replace it first.
        assert sb.execute("n = 5; console.log(n, await tools.call('n.toString', {}))") == "5 called toString\n"


def test_a_server_named_like_a_builtin_leaves_the_builtin_alone() -> None:
    with Sandbox(mcp_servers={"JSON": named_tools("parse"), "console": named_tools("log")}) as sb:
        out = sb.execute(
            """
            console.log(JSON.parse("[1]")[0], await JSON_parse({}), await console_log({}));
            console.log(await tools.call("JSON.parse", {}), (await tools.describe("console.log")).includes('callTool(name: "console.log"'));
            """
        )
        assert out == "1 called parse called log\ncalled parse true\n"


def test_constraint_and_budget_keys_may_be_the_method() -> None:
    with create_sandbox_tool(
        mcp_servers={"t": STDIO}, constraints={"mcp:t/add": {"a": "<=1"}}, max_calls={"mcp:t/echo": 1}
    ) as st:
        out = st.sandbox.execute(
            """
            const r = [];
            for (const f of [() => t.add({a: 1, b: 1}), () => t.add({a: 2, b: 1}), () => t.echo({text: "a"}), () => t.echo({text: "b"})]) {
              try { r.push(JSON.stringify(await f())) } catch (e) { r.push(e.message.match(/failed: (\\w+)/)[1]) }
            }
            console.log(r.join(" "));
            """
        )
        assert out == '{"sum":2} permission_denied {"result":"a"} permission_denied\n'


def test_one_sandbox_used_from_several_threads() -> None:
    # Runs take turns; their MCP calls share the one background loop.
    with Sandbox(mcp_servers={"t": STDIO}) as sb:
        errors: list[str] = []

        def work(i: int) -> None:
            for j in range(5):
                code = f"const r = await Promise.all([t.add({{a: {i}, b: {j}}}), t.echo({{text: 'x'}})]); console.log(r[0].sum)"
                out = sb.execute(code)
                if out != f"{i + j}\n":
                    errors.append(out)

        workers = [threading.Thread(target=work, args=(i,)) for i in range(3)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(60)
        assert not errors and not any(w.is_alive() for w in workers)


def test_a_python_tool_named_tools_keeps_its_global() -> None:
    # `tools` (search/describe) is a convenience; a tool of that name wins.
    def tools(q: str) -> str:
        """A tool named tools."""
        return "mine " + q

    with create_sandbox_tool(tools=[tools], mcp_servers={"t": STDIO}) as st:
        out = st.run("console.log(typeof tools, await tools({q: 'x'}), (await t.add({a: 1, b: 1})).sum)", language="javascript")
        assert out == "function mine x 2\n"


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


def children() -> set[int]:
    """The live (not zombie) child processes of this process."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    state, ppid = f.read().rsplit(")", 1)[1].split()[:2]
            except OSError:
                continue
            if int(ppid) == os.getpid() and state != "Z":
                found.add(int(entry))
    return found


def settles(check: Any, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("how", ["close", "garbage collected"])
def test_the_sandbox_leaves_no_process_or_thread_behind(http_url: str, how: str) -> None:
    procs, threads = children(), {t.ident for t in threading.enumerate()}
    sb = Sandbox(mcp_servers={"t": STDIO, "u": STDIO, "w": {"url": http_url}})
    out = sb.execute("console.log((await t.pid({})).result, (await u.pid({})).result, (await w.pid({})).result)")
    pids = {int(p) for p in out.split()[:2]}
    assert pids <= children() - procs  # the two stdio servers are ours
    assert {t.ident for t in threading.enumerate()} - threads  # and the loop's thread
    if how == "close":
        sb.close()
    else:
        del sb
        gc.collect()
    assert settles(lambda: children() <= procs), children() - procs
    assert settles(lambda: {t.ident for t in threading.enumerate()} <= threads), threading.enumerate()


def test_close_does_not_wait_for_a_server_that_is_starting(tmp_path: Path) -> None:
    # The server exits mid-call; its restart then takes a minute. close() from
    # another thread must end the waiting run at once, not after the minute.
    spec = {**HOSTILE, "args": [*HOSTILE["args"], "--slow-restart", str(tmp_path / "started")]}
    sb = Sandbox(mcp_servers={"h": spec})
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(sb.execute("try { await h.exit({}) } catch (e) {} await h.ok({})"))
        except BaseException as e:  # noqa: BLE001 - the test looks at it
            outcome.append(e)

    worker = threading.Thread(target=run)
    worker.start()
    time.sleep(1)  # the run now waits for the restart
    started = time.monotonic()
    sb.close()
    worker.join(10)
    assert not worker.is_alive(), "the run still waits after close()"
    assert time.monotonic() - started < 10
    assert outcome and isinstance(outcome[0], Exception), outcome


def test_bad_server_configs_are_errors_naming_the_server() -> None:
    with pytest.raises(ValueError, match="both 'command'"):
        Sandbox(mcp_servers={"x": {"command": "a", "url": "http://b"}})
    with pytest.raises(ValueError, match=r"mcp_servers\['x'\] needs 'command'"):
        Sandbox(mcp_servers={"x": {}})
    with pytest.raises(ValueError, match="MCP server name 'a.b'"):
        Sandbox(mcp_servers={"a.b": STDIO})
    with pytest.raises(ValueError, match="unknown key"):
        Sandbox(mcp_servers={"x": {**STDIO, "argz": []}})
    with pytest.raises(ValueError, match=r"mcp_servers\['x'\]\['type'\] is 'sse': the legacy SSE transport is not supported"):
        Sandbox(mcp_servers={"x": {"url": "http://127.0.0.1:9/sse", "type": "sse"}})
    with pytest.raises(ValueError, match=r"\['transport'\] must be one of \['stdio'\] here, got 'http'"):
        Sandbox(mcp_servers={"x": {**STDIO, "transport": "http"}})
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


def server_pid(sb: Sandbox) -> int:
    return int(json.loads(call(sb, "pid")))


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("big", "MCP server 'h' sent a message of more than 2162688 bytes"),
        ("deep", "MCP server 'h' sent a message that is not valid JSON-RPC"),
        ("invalid", "MCP server 'h' sent a message that is not valid JSON-RPC"),
        ("hang", "MCP server 'h' did not answer hang within 1 s, nor a ping after it; the server was stopped"),
        ("exit", "MCP server 'h' exited (status 3) while calling exit"),
    ],
)
def test_a_faulty_server_fails_the_call_clearly_and_is_restarted(hostile: Sandbox, name: str, expected: str) -> None:
    before = server_pid(hostile)
    out = call(hostile, name)
    assert f"tool call 'mcp:h/{name}' failed" in out
    assert expected in out
    assert call(hostile, "ok") == '"fine"\n'  # restarted, and the sandbox still works
    assert server_pid(hostile) != before
    assert hostile.execute("console.log(1 + 1)") == "2\n"


def test_a_call_that_times_out_on_a_live_server_does_not_stop_it(hostile: Sandbox) -> None:
    # The server ignores this one call but still answers pings: it may hold
    # state (a browser, a login), so only the call fails.
    before = server_pid(hostile)
    out = call(hostile, "silent")
    assert "MCP server 'h' did not answer silent within 1 s; the call was cancelled" in out
    assert "keeps running" in out
    assert server_pid(hostile) == before


def test_a_result_without_content_is_null(hostile: Sandbox) -> None:
    assert call(hostile, "empty") == "null\n"


def test_lines_arrive_in_pieces_with_crlf_and_noise(hostile: Sandbox) -> None:
    assert call(hostile, "crlf") == '"fine\\r\\n"\n'


def test_a_huge_tools_list_is_refused_naming_the_server() -> None:
    spec = {**HOSTILE, "args": [*HOSTILE["args"], "--many", "2000"]}  # about 500 KB of definitions
    with pytest.raises(MCPError, match="MCP server 'h' lists tools whose definitions take more than 327680 bytes"):
        Sandbox(mcp_servers={"h": spec}, max_tool_result_size=256 * 1024)
    with Sandbox(mcp_servers={"h": spec}) as sb:  # within the default limit
        assert sum(t.name.startswith("h.many_") for t in sb.tools) == 2000


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
