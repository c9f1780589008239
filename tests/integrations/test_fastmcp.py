"""FastMCP code mode (`CodeMode(sandbox_provider=AmlaSandboxProvider(...))`)
driven through FastMCP's in-memory `Client(server)`, as FastMCP's own tests
drive a server: no model, the client calls the `execute` tool with code."""

from __future__ import annotations

import ast
import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastmcp", reason='FastMCP is not installed: pip install "amla-sandbox[fastmcp]"')

from fastmcp import Client, FastMCP  # noqa: E402
from fastmcp.experimental.transforms.code_mode import CodeMode  # noqa: E402

from amla_sandbox import ToolCallCap  # noqa: E402
from amla_sandbox.capabilities import ConstraintSet, Param  # noqa: E402
from amla_sandbox.integrations.fastmcp import AmlaSandboxProvider, wrap_async_body  # noqa: E402

class Calc:
    """A server whose tools count their calls, so a test can tell a refused
    call (never reaching the tool) from one that ran."""

    def __init__(self, provider: AmlaSandboxProvider) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.server = FastMCP("calc", transforms=[CodeMode(sandbox_provider=provider)])
        calls = self.calls

        @self.server.tool
        def add(a: int, b: int) -> int:
            """Add two integers."""
            calls.append(("add", {"a": a, "b": b}))
            return a + b

        @self.server.tool
        def wipe_disk() -> str:
            """A tool no capability grants."""
            calls.append(("wipe_disk", {}))
            return "wiped"

        @self.server.tool
        def fail() -> str:
            """A tool that raises."""
            calls.append(("fail", {}))
            raise ValueError("the backend is down")

    def execute(self, code: str) -> Any:
        async def go() -> Any:
            async with Client(self.server) as client:
                return await client.call_tool("execute", {"code": code}, raise_on_error=False)

        return asyncio.run(go())


@pytest.fixture
def calc() -> Iterator[Calc]:
    provider = AmlaSandboxProvider(
        capabilities=[
            ToolCallCap("mcp:add", constraints=ConstraintSet([Param("a") <= 100]), max_calls=3),
            ToolCallCap("mcp:fail"),
        ],
        timeout=2,
    )
    with provider:
        yield Calc(provider)


def text(result: Any) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


def test_code_calls_a_tool_and_returns_a_value(calc: Calc) -> None:
    r = calc.execute(
        'first = await call_tool("add", {"a": 1, "b": 2})\n'
        'second = await call_tool("add", {"a": first["result"], "b": 10})\n'
        'doc = """line one\n  indented\nend"""\n'
        'return {"sum": second["result"], "doc": doc}\n'
    )
    assert not r.is_error, text(r)
    assert r.structured_content == {"sum": 13, "doc": "line one\n  indented\nend"}
    assert calc.calls == [("add", {"a": 1, "b": 2}), ("add", {"a": 3, "b": 10})]


def test_the_server_lists_code_mode_tools_only(calc: Calc) -> None:
    async def go() -> list[str]:
        async with Client(calc.server) as client:
            return sorted(t.name for t in await client.list_tools())

    assert asyncio.run(go()) == ["execute", "get_schema", "search"]


def test_a_refused_call_is_a_tool_error_and_never_reaches_the_tool(calc: Calc) -> None:
    r = calc.execute('return await call_tool("wipe_disk", {})')
    assert r.is_error
    assert "ToolDenied" in text(r) and "mcp:wipe_disk" in text(r)
    r = calc.execute('return await call_tool("add", {"a": 1000, "b": 1})')  # a > 100
    assert r.is_error and "ToolDenied" in text(r)
    assert calc.calls == []


def test_an_exhausted_budget_is_a_tool_error(calc: Calc) -> None:
    r = calc.execute('return [await call_tool("add", {"a": i, "b": 0}) for i in range(5)]')
    assert r.is_error
    assert "Call limit exceeded" in text(r)
    assert [c[0] for c in calc.calls] == ["add"] * 3
    # The budget spans the provider's runs: the next run is refused too,
    # and the code can catch the refusal like any ToolError.
    r = calc.execute(
        'try:\n    await call_tool("add", {"a": 1, "b": 1})\nexcept ToolError as e:\n    return "refused: " + str(e)\n'
    )
    assert not r.is_error, text(r)
    assert text(r).startswith("refused:") and "Call limit exceeded" in text(r)
    assert len(calc.calls) == 3


def test_a_failing_tool_raises_in_the_code(calc: Calc) -> None:
    r = calc.execute(
        'try:\n    await call_tool("fail", {})\nexcept ToolError as e:\n    return str(e)\n'
    )
    assert not r.is_error, text(r)
    assert "the backend is down" in text(r)


def test_errors_in_the_code_are_tool_errors(calc: Calc) -> None:
    r = calc.execute("x = 1\nreturn x / 0")
    assert r.is_error and "ZeroDivisionError" in text(r)
    assert "return x / 0" in text(r) and "__amla_code_mode_value" not in text(r)  # the wrapper's frame is left out
    r = calc.execute("return (")
    assert r.is_error and "SyntaxError" in text(r)
    r = calc.execute("return {1, 2}")
    assert r.is_error and "Object of type set is not JSON serializable" in text(r)
    r = calc.execute("while True:\n    pass")
    assert r.is_error and "Timeout" in text(r)


def test_concurrent_executes_take_turns(calc: Calc) -> None:
    async def go() -> list[Any]:
        async with Client(calc.server) as client:
            return await asyncio.gather(
                *(client.call_tool("execute", {"code": f'return (await call_tool("add", {{"a": {i}, "b": 1}}))["result"]'})
                  for i in range(3))
            )

    results = asyncio.run(go())
    assert sorted(int(text(r)) for r in results) == [1, 2, 3]


def test_provider_run_with_inputs_and_other_functions() -> None:
    seen: list[dict[str, Any]] = []

    async def lookup(key: str) -> str:
        seen.append({"key": key})
        return key.upper()

    async def go(provider: AmlaSandboxProvider) -> Any:
        return await provider.run(
            "return {'n': n + 1, 'v': await lookup(key=word)}",
            inputs={"n": 41, "word": "abc"},
            external_functions={"lookup": lookup},
        )

    with AmlaSandboxProvider() as provider:
        assert asyncio.run(go(provider)) == {"n": 42, "v": "ABC"}
    assert seen == [{"key": "abc"}]


def test_wrap_keeps_the_body_text() -> None:
    code = 'x = """\nkeep\n    this\n"""\nif x:\n    return x\n'
    src = wrap_async_body(code)
    ns: dict[str, Any] = {}
    asyncio.run(eval(compile(src, "<t>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT), ns))
    assert ns["__amla_code_mode_value"] == "\nkeep\n    this\n"
    with pytest.raises(ValueError, match="'not a name'"):
        wrap_async_body("return 1", {"not a name": 1})
    with pytest.raises(SyntaxError):
        wrap_async_body("return (")


def test_tracebacks_and_syntax_errors_name_the_lines_of_the_code(calc: Calc) -> None:
    r = calc.execute("x = 1\n\ny = x - 1\nreturn x / y")
    assert r.is_error and "line 4, in" in text(r) and "return x / y" in text(r), text(r)
    r = calc.execute("x = 1\nreturn (")
    assert r.is_error and "SyntaxError" in text(r) and "line 2" in text(r), text(r)


def test_the_body_keeps_its_text() -> None:
    """Lines inside strings are not re-indented, tabs keep their meaning,
    and a body of comments only returns None."""
    bodies = {
        'x = """a\n  b\n"""\nreturn x': "a\n  b\n",
        "x = 'a\\\n  b'\nreturn x": "a  b",
        "y = f'''{1 + 1}\n  z'''\nreturn y": "2\n  z",
        "def f(n):\n\tif n:\n\t\treturn n * 2\n\treturn 0\nreturn f(21)": 42,
        "x = 1\f\nreturn x + 1": 2,
        "x = 1\r\nreturn x + 2": 3,
        "# nothing": None,
    }

    async def go(provider: AmlaSandboxProvider) -> list[Any]:
        return [await provider.run(code) for code in bodies]

    with AmlaSandboxProvider() as provider:
        assert asyncio.run(go(provider)) == list(bodies.values())


def test_a_body_that_never_awaits_runs_without_an_event_loop() -> None:
    """Without `await` (or `async`) in its text, the body is a plain
    function: no event loop runs, and a tool call gives its value. With
    it, the body is a coroutine on the run's event loop."""
    probe = "m = __import__('sys').modules['asy' + 'ncio']\n"

    async def lookup(key: str) -> str:
        return key.upper()

    async def go(provider: AmlaSandboxProvider) -> list[Any]:
        fns = {"lookup": lookup}
        return [
            await provider.run(probe + "return m._get_running_loop() is None", external_functions=fns),
            await provider.run("v = lookup(key='a')\nreturn [type(v).__name__, v]", external_functions=fns),
            await provider.run(probe + "await m.sleep(0)\nreturn m._get_running_loop() is None"),
            await provider.run("return [await lookup(key='b'), type(lookup(key='c')).__name__]", external_functions=fns),
        ]

    with AmlaSandboxProvider() as provider:
        assert asyncio.run(go(provider)) == [True, ["str", "A"], False, ["B", "ToolCall"]]


def test_inputs_change_the_result_of_the_same_code() -> None:
    async def go(provider: AmlaSandboxProvider) -> list[Any]:
        return [await provider.run("return n * 2", inputs={"n": n}) for n in (1, 2, 3)]

    with AmlaSandboxProvider() as provider:
        assert asyncio.run(go(provider)) == [2, 4, 6]


def test_a_value_too_large_for_the_output_is_a_tool_error() -> None:
    async def go(provider: AmlaSandboxProvider) -> Any:
        assert await provider.run("return 'x' * 100") == "x" * 100
        assert await provider.run("return None") is None
        return await provider.run("return 'x' * 5000")

    with AmlaSandboxProvider(max_output_size=2000) as provider:
        with pytest.raises(Exception, match="more than max_output_size=2000 bytes of JSON"):
            asyncio.run(go(provider))


def test_a_tool_added_to_the_server_between_runs_is_seen() -> None:
    provider = AmlaSandboxProvider(timeout=2)
    with provider:
        server = FastMCP("grow", transforms=[CodeMode(sandbox_provider=provider)])

        @server.tool
        def add(a: int, b: int) -> int:
            """Add two integers."""
            return a + b

        async def execute(code: str) -> Any:
            async with Client(server) as client:
                return await client.call_tool("execute", {"code": code}, raise_on_error=False)

        code = 'return [await call_tool("add", {"a": 1, "b": 2}), await call_tool("mul", {"a": 2, "b": 3})]'
        r = asyncio.run(execute(code))
        assert r.is_error and "mul" in text(r), text(r)

        @server.tool
        def mul(a: int, b: int) -> int:
            """Multiply two integers."""
            return a * b

        r = asyncio.run(execute(code))
        assert not r.is_error, text(r)
        assert json.loads(text(r)) == [{"result": 3}, {"result": 6}]


def test_import_without_fastmcp_names_the_extra() -> None:
    code = (
        "import sys; sys.modules['fastmcp'] = None\n"
        "try:\n    import amla_sandbox.integrations.fastmcp\n"
        "except ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ), timeout=60
    )
    assert 'pip install "amla-sandbox[fastmcp]"' in out.stdout, out.stderr
