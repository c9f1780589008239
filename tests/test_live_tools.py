"""Tools added to and removed from a live sandbox (Sandbox.add_tools /
remove_tools, docs/tools.md), through the public API."""

from __future__ import annotations

from typing import Any

import pytest

from amla_sandbox import Sandbox, ToolCallCap, ToolDefinition


def tool(name: str, description: str = "") -> ToolDefinition:
    return ToolDefinition(name=name, description=description or f"the {name} tool", parameters={"type": "object"})


def handler(method: str, params: dict[str, Any]) -> Any:
    return {"tool": method, "params": params}


def test_add_then_remove_in_every_language() -> None:
    with Sandbox(tools=[tool("a")], tool_handler=handler) as sb:
        sb.add_tools([tool("b", "adds things")])
        assert [t.name for t in sb.tools] == ["a", "b"]
        assert sb.execute("return await b({x: 1})") == '{"tool":"b","params":{"x":1}}\n'
        assert sb.python("b(x=2)") == '{"tool":"b","params":{"x":2}}\n'
        assert sb.shell("tool b --x 3") == '{"tool":"b","params":{"x":"3"}}\n'
        assert "adds things" in sb.shell("tool --list")
        sb.remove_tools(["b"])
        assert [t.name for t in sb.tools] == ["a"]
        assert sb.execute("return typeof globalThis.b") == "undefined\n"
        r = sb.run_shell("tool b")
        assert r.exit_code != 0 and "b" in r.stderr
        assert sb.execute("return await a({})") == '{"tool":"a","params":{}}\n'  # the rest untouched


def test_a_sandbox_made_without_tools_gets_some() -> None:
    with Sandbox(tool_handler=handler) as sb:
        assert sb.execute("return typeof globalThis.late") == "undefined\n"
        sb.add_tools([tool("late")])
        assert sb.execute("return await late({})") == '{"tool":"late","params":{}}\n'
        assert sb.python("late()") == '{"tool":"late","params":{}}\n'
        sb.remove_tools(["late"])
        assert sb.execute("return typeof globalThis.late") == "undefined\n"
        sb.add_tools([tool("again")])  # the tool files are rewritten, not left stale
        assert "again" in sb.shell("tool --list") and "late" not in sb.shell("tool --list")


def test_capabilities_unchanged_unless_given() -> None:
    with Sandbox(tools=[tool("a")], capabilities=[ToolCallCap("mcp:a")], tool_handler=handler) as sb:
        sb.add_tools([tool("b")])
        # b is a tool now, but no capability allows it.
        out = sb.execute("try { await b({}); return 'called' } catch (e) { return 'refused: ' + e.message }")
        assert out.startswith("refused") and "b" in out
        assert not sb.can_call("mcp:b")
        cap_c = ToolCallCap("mcp:c", max_calls=1)
        sb.add_tools([tool("c")], capabilities=[cap_c])
        assert sb.execute("return await c({})") == '{"tool":"c","params":{}}\n'
        assert sb.can_call("mcp:a") and sb.get_remaining_calls(cap_c.key()) == 0
        # Its budget holds: the second call is refused.
        out = sb.execute("try { await c({}); return 'called' } catch (e) { return 'refused' }")
        assert out == "refused\n"
        assert [c.method_pattern for c in sb.get_capabilities()] == ["mcp:a", "mcp:c"]
        sb.remove_tools(["c"])
        assert [c.method_pattern for c in sb.get_capabilities()] == ["mcp:a", "mcp:c"]  # unchanged
        sb.remove_tools(["b"], capabilities=[ToolCallCap("mcp:a", max_calls=5)])
        assert [c.method_pattern for c in sb.get_capabilities()] == ["mcp:a"]


def test_bad_inputs() -> None:
    with Sandbox(tools=[tool("a")], tool_handler=handler) as sb:
        with pytest.raises(ValueError, match="'a' is already"):
            sb.add_tools([tool("a")])
        with pytest.raises(ValueError, match="'z' is already"):
            sb.add_tools([tool("z"), tool("z")])
        with pytest.raises(ValueError, match="'nope' is not a tool"):
            sb.remove_tools(["nope"])
        with pytest.raises(TypeError, match="ToolDefinition"):
            sb.add_tools(["a string"])  # type: ignore[list-item]
        with pytest.raises(TypeError, match="capabilities"):
            sb.add_tools([tool("y")], capabilities=["mcp:y"])  # type: ignore[list-item]
        assert [t.name for t in sb.tools] == ["a"]  # nothing changed by the refusals
        assert sb.execute("return typeof globalThis.z") == "undefined\n"


def test_refused_during_a_run() -> None:
    seen: dict[str, str] = {}
    box: list[Sandbox] = []

    def h(method: str, params: dict[str, Any]) -> str:
        for name, op in (("add", lambda: box[0].add_tools([tool("x")])), ("remove", lambda: box[0].remove_tools(["a"]))):
            try:
                op()
            except RuntimeError as e:
                seen[name] = str(e)
        return "ok"

    with Sandbox(tools=[tool("a")], tool_handler=h) as sb:
        box.append(sb)
        assert sb.execute("return await a({})") == "ok\n"
        assert [t.name for t in sb.tools] == ["a"]
    assert "a run is in progress" in seen["add"] and "a run is in progress" in seen["remove"]


def test_fork_keeps_added_tools() -> None:
    with Sandbox(tool_handler=handler) as sb:
        sb.add_tools([tool("f")])
        copy = sb.fork()
        try:
            assert copy.execute("return await f({})") == '{"tool":"f","params":{}}\n'
        finally:
            copy.close()


def test_closed() -> None:
    sb = Sandbox()
    sb.close()
    with pytest.raises(RuntimeError, match="Sandbox not initialized"):
        sb.add_tools([tool("a")])
