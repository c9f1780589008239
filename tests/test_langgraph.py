"""SandboxTool, ExecutionResult and create_sandbox_tool (amla_sandbox.langgraph).

The first part drives SandboxTool with a stand-in sandbox (no engine needed);
the second runs real sandboxes.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass, field
from typing import Any

import pytest

from _apis import Api, api  # noqa: F401  (api is a fixture)

import amla_sandbox.langgraph as langgraph_module
from amla_sandbox import (
    Constraint,
    ConstraintSet,
    ToolCallCap,
    Sandbox,
    create_sandbox_tool,
)
from amla_sandbox.langgraph import ExecutionResult, SandboxTool


def add(a: float, b: float) -> float:
    """Add two numbers.

    Args:
        a: First
        b: Second
    """
    return a + b


def greet(name: str, greeting: str = "Hello") -> str:
    """Greet someone."""
    return f"{greeting}, {name}"


def transfer_money(amount: float, currency: str) -> str:
    """Transfer money."""
    return "success"


# -- ExecutionResult ------------------------------------------------------------


def test_execution_result_stdout() -> None:
    r = ExecutionResult(stdout="Hello, World!")
    assert str(r) == "Hello, World!"
    assert r.to_tool_message() == "Hello, World!"


def test_execution_result_error() -> None:
    r = ExecutionResult(stdout="", stderr="trace", error="boom", success=False)
    assert str(r) == "Error: boom\ntrace"
    assert "Error:" in str(r)
    msg = r.to_tool_message()
    assert "[error]:" in msg and "[stderr]:" in msg
    assert msg == "[stderr]: trace\n[error]: boom"


def test_execution_result_defaults() -> None:
    r = ExecutionResult()
    assert r.success is True
    assert r.error is None and r.return_value is None
    assert r.to_tool_message() == "(no output)"
    assert str(r) == ""


def test_execution_result_message_order() -> None:
    assert ExecutionResult(stdout="o", stderr="e", error="x").to_tool_message() == "o\n[stderr]: e\n[error]: x"


def test_module_exports() -> None:
    assert langgraph_module.__all__ == ["ExecutionResult", "SandboxTool"]
    assert not hasattr(langgraph_module, "create_amla_codeact")


# -- SandboxTool with a stand-in sandbox ---------------------------------------


@dataclass
class FakeSandbox:
    capabilities: list[Any] = field(default_factory=list)
    out: str = "out\n"
    err: str = ""
    fail: Exception | None = None
    calls: list[tuple[str, str, Any]] = field(default_factory=list)

    @property
    def last_stderr(self) -> str:
        return self.err

    def _do(self, kind: str, code: str, stdin: Any) -> str:
        self.calls.append((kind, code, stdin))
        if self.fail is not None:
            raise self.fail
        return self.out

    def execute(self, code: str, on_output: Any = None, stdin: Any = None) -> str:
        return self._do("execute", code, stdin)

    async def execute_async(self, code: str, on_output: Any = None, stdin: Any = None) -> str:
        await asyncio.sleep(0)
        return self._do("execute_async", code, stdin)

    def shell(self, command: str, stdin: Any = None) -> str:
        return self._do("shell", command, stdin)

    def close(self) -> None:
        self.calls.append(("close", "", None))


def fake_tool(tools: list[Any] | None = None, **kw: Any) -> tuple[SandboxTool, FakeSandbox]:
    sb = FakeSandbox(**kw)
    return SandboxTool(sandbox=sb, tools=list(tools or [])), sb  # type: ignore[arg-type]


def test_tool_map_built_from_tools() -> None:
    tool, _ = fake_tool([add, greet])
    assert set(tool._tool_map) == {"add", "greet"}
    assert tool.name == "sandbox"
    assert "javascript" in tool.description and "shell" in tool.description


def test_execute_and_shell_results() -> None:
    tool, sb = fake_tool(err="warn")
    r = tool.execute("console.log(1)")
    assert (r.stdout, r.stderr, r.success, r.error) == ("out\n", "warn", True, None)
    r = tool.shell("echo hi", stdin="x")
    assert r.success
    assert sb.calls == [("execute", "console.log(1)", None), ("shell", "echo hi", "x")]


def test_execute_never_raises() -> None:
    tool, _ = fake_tool(err="partial", fail=RuntimeError("Sandbox not initialized"))
    r = tool.execute("x")
    assert (r.success, r.error, r.stderr, r.stdout) == (False, "Sandbox not initialized", "partial", "")
    assert tool.run("x", "javascript") == "[stderr]: partial\n[error]: Sandbox not initialized"
    assert not tool.shell("x").success


@pytest.mark.parametrize(
    "language,kind",
    [
        ("shell", "shell"),
        ("Shell", "shell"),
        ("bash", "shell"),
        ("SH", "shell"),
        (" sh ", "shell"),
        ("javascript", "execute"),
        ("JavaScript", "execute"),
        ("js", "execute"),
        ("node", "execute"),
        ("NODE", "execute"),
    ],
)
def test_run_routes_on_language(language: str, kind: str) -> None:
    tool, sb = fake_tool()
    assert tool.run("code", language) == "out\n"
    assert sb.calls[0][0] == kind
    assert asyncio.run(tool.run_async("code", language)) == "out\n"
    assert sb.calls[1][0] == ("shell" if kind == "shell" else "execute_async")


@pytest.mark.parametrize("language", ["", "ruby", "zsh", "javascript2", None, 1])
def test_run_refuses_an_unknown_language(language: Any) -> None:
    tool, sb = fake_tool()
    accepted = "'javascript', 'js', 'node', 'typescript', 'ts', 'shell', 'bash', 'sh', 'python', 'py', 'python3'"
    with pytest.raises(ValueError, match="accepted values \\(any case\\): " + accepted.replace("'", "'")) as info:
        tool.run("code", language)
    assert repr(language)[:20] in str(info.value)
    with pytest.raises(ValueError):
        asyncio.run(tool.run_async("code", language))
    assert sb.calls == []


def test_normalize_language() -> None:
    from amla_sandbox._language import normalize_language

    assert [normalize_language(x) for x in ("javascript", "JS", "Node", "shell", "BASH", "sh")] == [
        "javascript", "javascript", "javascript", "shell", "shell", "shell",
    ]  # fmt: skip
    with pytest.raises(ValueError, match="^Unsupported language 'ruby'; accepted values"):
        normalize_language("ruby")


def test_close_and_context_manager() -> None:
    tool, sb = fake_tool()
    with tool as t:
        assert t is tool
        t.run("x", "js")
    assert [c[0] for c in sb.calls] == ["execute", "close"]
    tool.close()  # idempotent as far as SandboxTool goes: the sandbox decides
    assert [c[0] for c in sb.calls] == ["execute", "close", "close"]


def test_run_requires_language() -> None:
    tool, _ = fake_tool()
    with pytest.raises(TypeError):
        tool.run("code")  # type: ignore[call-arg]


def test_run_passes_stdin() -> None:
    tool, sb = fake_tool()
    tool.run("ignored", "javascript", stdin="console.log(1)")
    assert sb.calls == [("execute", "ignored", "console.log(1)")]


def test_run_async_uses_execute_async() -> None:
    tool, sb = fake_tool()
    assert asyncio.run(tool.run_async("code", "javascript")) == "out\n"
    assert sb.calls == [("execute_async", "code", None)]


def test_run_async_shell_without_shell_async() -> None:
    tool, sb = fake_tool()
    assert asyncio.run(tool.run_async("echo", "shell", stdin="in")) == "out\n"
    assert sb.calls == [("shell", "echo", "in")]


def test_run_async_never_raises() -> None:
    tool, _ = fake_tool(fail=ValueError("bad"))
    assert asyncio.run(tool.run_async("x", "javascript")) == "[error]: bad"


# -- generated text ----------------------------------------------------------


def test_get_tool_descriptions() -> None:
    tool, _ = fake_tool([add, greet])
    text = tool.get_tool_descriptions()
    assert "add" in text and "greet" in text
    assert "Add two numbers" in text and "Greet someone" in text
    assert "### add(a: float, b: float)" in text
    assert "### greet(name: str, greeting: str = 'Hello')" in text
    assert "a: First" in text  # the full docstring


def test_get_tool_descriptions_untyped_and_empty() -> None:
    def raw(x, y=None):
        pass

    tool, _ = fake_tool([raw])
    text = tool.get_tool_descriptions()
    assert "### raw(x: any, y: any = None)" in text
    assert "No description" in text
    empty, _ = fake_tool()
    assert "No custom tools" in empty.get_tool_descriptions()
    assert "\n" not in empty.get_tool_descriptions()


def limited_caps(api: Api) -> list[ToolCallCap]:
    return [
        api.cls("mcp:transfer_money", ConstraintSet([Constraint.le("amount", 1000)]), max_calls=5),
        api.cls("mcp:add", max_calls=100),
        api.cls("mcp:greet", max_calls=None),
    ]


def test_limit_lines(api: Api) -> None:
    tool, _ = fake_tool([transfer_money, add, greet], capabilities=limited_caps(api))
    assert tool._limit_lines() == [
        "- transfer_money: max 5 calls",
        "- transfer_money: has parameter constraints",
    ]


def test_system_prompt(api: Api) -> None:
    tool, _ = fake_tool([add, greet], capabilities=limited_caps(api))
    text = tool.get_system_prompt()
    assert "Sandbox Tool Usage" in text
    assert "`code`" in text and "`language`" in text
    assert 'await fs.writeFile("/workspace/data.json"' in text
    assert "grep, jq, tr, head, tail, sort, uniq, wc, cut, cat, echo" in text
    assert "Available Functions" in text
    # Each function as each mode calls it (docs/declarations.md).
    assert "/** Add two numbers. */\ndeclare function add(input: AddInput): Promise<AddOutput>;" in text
    assert "type GreetInput = {\n  name: string;\n  greeting?: string;\n};" in text
    assert "async def add(*, a: float, b: float) -> float:\n    \"\"\"Add two numbers." in text
    assert "tool greet --name STRING [--greeting STRING]\n    Greet someone." in text
    assert "### Limits" in text and "- transfer_money: max 5 calls" in text
    without = tool.get_system_prompt(include_tools=False)
    assert "Available Functions" not in without
    assert "### Limits" in without


def test_system_prompt_for_separate_tools() -> None:
    tool, _ = fake_tool([add])
    text = tool.get_system_prompt_for_separate_tools()
    assert "sandbox_js" in text and "sandbox_shell" in text
    assert "Available Functions (in sandbox_js)" in text
    assert "Limits" not in text
    assert "Available Functions" not in tool.get_system_prompt_for_separate_tools(include_tools=False)


def test_langchain_description_shapes(api: Api) -> None:
    tool, _ = fake_tool([add, greet], capabilities=limited_caps(api))
    text = tool._langchain_description()
    assert "JAVASCRIPT (language='javascript', the default)" in text
    assert "declare function add(input: AddInput): Promise<AddOutput>;" in text
    assert "async def greet(*, name: str, greeting: str = ...) -> str:" in text
    assert "tool add --a NUMBER --b NUMBER" in text
    assert "const r = await add({...}); console.log(JSON.stringify(r));" in text
    assert "SHELL (language='shell')" in text
    assert "cat /workspace/data.json | jq '.items[]' | head -5" in text
    assert "LIMITS:\n- transfer_money: max 5 calls" in text
    plain, _ = fake_tool()
    assert "console.log('hello');" in plain._langchain_description()
    assert "LIMITS" not in plain._langchain_description()


def test_as_langchain_tool() -> None:
    pytest.importorskip("langchain_core")
    tool, sb = fake_tool([add])
    tool.name = "my_sandbox"
    lc = tool.as_langchain_tool()
    assert lc.name == "my_sandbox"
    assert lc.description == tool._langchain_description()
    schema = lc.args_schema.model_json_schema()
    # A model that leaves `language` out still runs its code, as JavaScript.
    assert schema["required"] == ["code"]
    assert schema["properties"]["language"]["default"] == "javascript"
    assert schema["properties"]["code"]["type"] == "string"
    assert lc.invoke({"code": "echo hi", "language": "shell"}) == "out\n"
    assert lc.invoke({"code": "echo hi", "language": "bash"}) == "out\n"
    assert lc.invoke({"code": "1", "language": "javascript"}) == "out\n"
    assert lc.invoke({"code": "1"}) == "out\n"
    assert asyncio.run(lc.ainvoke({"code": "2", "language": "JS"})) == "out\n"
    assert asyncio.run(lc.ainvoke({"code": "2"})) == "out\n"
    assert [c[0] for c in sb.calls] == ["shell", "shell", "execute", "execute", "execute_async", "execute_async"]
    # An unknown language is reported to the model, not raised into the agent loop.
    out = lc.invoke({"code": "x", "language": "ruby"})
    assert out.startswith("[error]: Unsupported language 'ruby'; accepted values") and "'bash'" in out
    assert len(sb.calls) == 6


def test_as_langchain_tools() -> None:
    pytest.importorskip("langchain_core")
    tool, sb = fake_tool([add])
    js, sh = tool.as_langchain_tools()
    assert (js.name, sh.name) == ("sandbox_js", "sandbox_shell")
    assert set(js.args_schema.model_json_schema()["properties"]) == {"code"}
    assert set(sh.args_schema.model_json_schema()["properties"]) == {"command"}
    assert "declare function add(input: AddInput): Promise<AddOutput>;" in js.description
    assert "ls" in sh.description and "jq" in sh.description
    assert "tool add --a NUMBER --b NUMBER" in sh.description
    js.invoke({"code": "x"})
    sh.invoke({"command": "ls"})
    assert [c[0] for c in sb.calls] == ["execute", "shell"]


@pytest.mark.parametrize("method", ["as_langchain_tool", "as_langchain_tools"])
def test_langchain_missing(monkeypatch: pytest.MonkeyPatch, method: str) -> None:
    monkeypatch.setitem(sys.modules, "langchain_core.tools", None)
    tool, _ = fake_tool()
    with pytest.raises(ImportError) as info:
        getattr(tool, method)()
    assert str(info.value) == (
        f"langchain_core is required for {method}(). Install it with: pip install langchain-core"
    )


# -- real sandboxes ------------------------------------------------------------


def test_create_sandbox_tool_without_tools() -> None:
    tool = create_sandbox_tool()
    assert isinstance(tool.sandbox, Sandbox)
    assert tool.tools == []
    assert tool._tool_map == {}
    assert [c.method_pattern for c in tool.sandbox.capabilities] == ["**"]
    assert tool.sandbox.tool_handler is None


def test_create_sandbox_tool_with_tools() -> None:
    tool = create_sandbox_tool(tools=[add, greet])
    assert len(tool.tools) == 2
    assert set(tool._tool_map) == {"add", "greet"}
    caps = tool.sandbox.get_capabilities()
    assert [c.method_pattern for c in caps] == ["mcp:add", "mcp:greet"]
    assert all(c.max_calls == 100 for c in caps)
    assert [t.name for t in tool.sandbox.tools] == ["add", "greet"]


def test_create_sandbox_tool_constraints_and_limits() -> None:
    tool = create_sandbox_tool(tools=[transfer_money], constraints={"transfer_money": {"amount": "<=1000"}})
    (cap,) = tool.sandbox.capabilities
    assert not cap.constraints.is_empty()
    tool = create_sandbox_tool(tools=[add, greet], max_calls=50)
    assert all(c.max_calls == 50 for c in tool.sandbox.capabilities)
    tool = create_sandbox_tool(tools=[add, greet], max_calls={"add": 5})
    limits = {c.method_pattern.split(":")[-1]: c.max_calls for c in tool.sandbox.capabilities}
    assert limits == {"add": 5, "greet": 100}


def test_create_sandbox_tool_limits_pass_through() -> None:
    tool = create_sandbox_tool(timeout=5.0, memory_limit=64 * 1024 * 1024)
    assert tool.sandbox.timeout == 5.0
    assert tool.sandbox.memory_limit == 64 * 1024 * 1024
    tool = SandboxTool.from_functions([add], timeout=7.0, memory_limit=128 * 1024 * 1024)
    assert (tool.sandbox.timeout, tool.sandbox.memory_limit) == (7.0, 128 * 1024 * 1024)


def test_handler_unknown_tool() -> None:
    tool = create_sandbox_tool(tools=[add])
    assert tool.sandbox.tool_handler("mcp:add", {"a": 1, "b": 2}) == 3
    with pytest.raises(ValueError, match="Unknown tool: 'nope'"):
        tool.sandbox.tool_handler("mcp:nope", {})


def test_run_calls_tools() -> None:
    tool = create_sandbox_tool(tools=[add, greet])
    out = tool.run("const r = await add({a: 2, b: 3}); console.log(r);", "javascript")
    assert out.strip() == "5"
    assert tool.run("console.log(await greet({name: 'Ann'}))", language="javascript") == "Hello, Ann\n"


@pytest.mark.parametrize(
    "code,needles",
    [
        ("const o = undefined; o.x;", ("TypeError", "undefined")),
        ("notDefined();", ("ReferenceError", "not defined")),
        ("const n = 5; n();", ("TypeError", "not a function")),
        ("const s = 'unterminated;", ("error", "stderr")),
    ],
)
def test_run_reports_js_errors(code: str, needles: tuple[str, str]) -> None:
    out = create_sandbox_tool().run(code, "javascript")
    assert any(n in out for n in needles), out


def test_run_caught_error_prints_normally() -> None:
    out = create_sandbox_tool().run(
        "try { throw new Error('Something went wrong'); } catch (e) { console.log('Caught: ' + e.message); }",
        "javascript",
    )
    assert out == "Caught: Something went wrong\n"


def test_constraint_denials_through_run() -> None:
    tool = create_sandbox_tool(
        tools=[transfer_money],
        constraints={"transfer_money": {"amount": "<=1000", "currency": ["USD", "EUR"]}},
    )

    def attempt(args: str) -> str:
        return tool.run(
            f"try {{ console.log(await transfer_money({args})); }} catch (e) {{ console.log('denied: ' + e.message); }}",
            "javascript",
        )

    out = attempt("{amount: 5000, currency: 'USD'}")
    assert "denied" in out and any(s in out for s in ("amount", "5000", "1000"))
    out = attempt("{amount: 10, currency: 'GBP'}")
    assert "denied" in out and any(s in out for s in ("currency", "GBP", "USD", "EUR"))
    assert attempt("{amount: 10, currency: 'EUR'}").strip() == "success"


def test_new_constraint_forms_enforced() -> None:
    def query(sql: str, table: str, page: int) -> str:
        """Run a query."""
        return "rows"

    tool = create_sandbox_tool(
        tools=[query],
        constraints={"query": {"sql": "contains:SELECT", "table": "endswith:_public", "page": "!=0"}},
    )
    ok = "await query({sql: 'SELECT 1', table: 'users_public', page: 1})"
    assert tool.run(f"console.log({ok})", "javascript") == "rows\n"
    for bad in (
        "{sql: 'DROP x', table: 'users_public', page: 1}",
        "{sql: 'SELECT 1', table: 'users_private', page: 1}",
        "{sql: 'SELECT 1', table: 'users_public', page: 0}",
    ):
        out = tool.run(f"try {{ await query({bad}); console.log('ran'); }} catch (e) {{ console.log('denied'); }}", "javascript")
        assert out == "denied\n", bad


def test_budget_is_enforced_by_default_limit() -> None:
    calls = []

    def ping() -> str:
        """Ping."""
        calls.append(1)
        return "pong"

    tool = create_sandbox_tool(tools=[ping], max_calls=2)
    out = tool.run(
        "for (let i = 0; i < 3; i++) { try { await ping({}); console.log('ok'); } catch (e) { console.log('limit'); } }",
        "javascript",
    )
    assert out == "ok\nok\nlimit\n"
    assert len(calls) == 2


def test_fs_round_trip_via_run() -> None:
    tool = create_sandbox_tool()
    out = tool.run(
        "await fs.writeFile('/workspace/a.txt', 'hello async'); console.log(await fs.readFile('/workspace/a.txt'));",
        "javascript",
    )
    assert out.strip() == "hello async"


def test_shell_via_run() -> None:
    tool = create_sandbox_tool()
    assert tool.run("echo 'Hello from sandbox!' | tr 'a-z' 'A-Z'", "shell") == "HELLO FROM SANDBOX!\n"


def test_async_tool_under_run() -> None:
    async def fetch_value(key: str) -> dict:
        """Fetch a value."""
        await asyncio.sleep(0)
        return {"key": key, "value": 42}

    tool = create_sandbox_tool(tools=[fetch_value])
    out = tool.run("const r = await fetch_value({key: 'k'}); console.log(r.value);", "javascript")
    assert out == "42\n"
    out = tool.run("tool fetch_value --key k | jq .value", "shell")
    assert out.strip() == "42"


def test_async_tool_under_run_async() -> None:
    async def fetch_value(key: str) -> dict:
        """Fetch a value."""
        await asyncio.sleep(0)
        return {"key": key}

    tool = create_sandbox_tool(tools=[fetch_value])

    async def main() -> tuple[str, str]:
        js = await tool.run_async("console.log((await fetch_value({key: 'a'})).key)", "javascript")
        sh = await tool.run_async("tool fetch_value --key b | jq -r .key", "shell")
        return js, sh

    assert asyncio.run(main()) == ("a\n", "b\n")


def test_from_functions() -> None:
    tool = SandboxTool.from_functions([add, greet])
    assert len(tool.tools) == 2
    text = tool.get_tool_descriptions()
    assert "add" in text and "greet" in text
    assert "Add two numbers" in text and "Greet someone" in text
    assert [c.method_pattern for c in tool.sandbox.capabilities] == ["mcp:add", "mcp:greet"]
    assert all(c.max_calls is None for c in tool.sandbox.capabilities)
    assert tool.sandbox.tool_handler("add", {"a": 5, "b": 3}) == 8


def test_from_functions_explicit_capabilities(api: Api) -> None:
    caps = [api.cls("mcp:transfer_money", ConstraintSet([Constraint.le("amount", 100)]), max_calls=3)]
    tool = SandboxTool.from_functions([transfer_money], capabilities=caps)
    assert len(tool.sandbox.capabilities) == 1
    assert tool.sandbox.capabilities[0].method_pattern == "mcp:transfer_money"
    empty = SandboxTool.from_functions([add], capabilities=[])
    assert [c.method_pattern for c in empty.sandbox.capabilities] == ["**"]


def test_langchain_tool_runs_real_sandbox() -> None:
    pytest.importorskip("langchain_core")
    tool = create_sandbox_tool(tools=[add])
    lc = tool.as_langchain_tool()
    assert lc.invoke({"code": "console.log(await add({a: 1, b: 2}))", "language": "javascript"}) == "3\n"
    js, sh = tool.as_langchain_tools()
    assert sh.invoke({"command": "echo hi"}) == "hi\n"
    assert js.invoke({"code": "console.log(1 + 1)"}) == "2\n"
