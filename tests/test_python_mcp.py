"""MCP servers' tools from Python (issue 17 with docs/mcp.md): a real stdio
server (tests/mcp_servers/tools_server.py), called through its namespace,
by name, awaited and gathered, under the same constraints and budgets as
from JavaScript, and found with the tools global."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from amla_sandbox import create_sandbox_tool  # noqa: E402

SERVERS = Path(__file__).parent / "mcp_servers"
STDIO = {"command": sys.executable, "args": [str(SERVERS / "tools_server.py"), "stdio"]}


@pytest.fixture(scope="module")
def tool() -> Iterator[Any]:
    st = create_sandbox_tool(mcp_servers={"t": STDIO}, timeout=10)
    yield st
    st.close()


def test_server_tools_are_functions_of_a_namespace(tool: Any) -> None:
    out = tool.sandbox.python(
        "import json\n"
        "a = t.add(a=2, b=3)\n"
        "e = t.echo({'text': 'héllo'})\n"
        "print(json.dumps([a, e], ensure_ascii=False), isinstance(a, dict))\n"
        "async def main():\n"
        "    return await asyncio.gather(t.add(a=1, b=1), t.add(a=2, b=2))\n"
        "print(json.dumps(asyncio.run(main())))\n"
        "print(tools.call('t.add', a=4, b=4), get_tool_info('t.add')['id'], 'async def add(' in tools.describe('t.add'))\n"
        "print([h['name'] for h in tools.search('issue')])"
    )
    lines = out.splitlines()
    data, is_dict = lines[0].rsplit(" ", 1)
    assert json.loads(data) == [{"sum": 5}, {"result": "héllo"}] and is_dict == "True"
    assert json.loads(lines[1]) == [{"sum": 2}, {"sum": 4}]
    assert lines[2] == "{'sum': 8} mcp:t/add True"
    assert lines[3] == "['t.create_issue']"


def test_constraints_budgets_and_errors_read_as_in_javascript() -> None:
    tool = create_sandbox_tool(mcp_servers={"t": STDIO}, constraints={"t.add": {"a": "<=10"}}, max_calls={"t/echo": 2}, timeout=10)
    try:
        out = tool.sandbox.python(
            "import json\n"
            "for call in (lambda: t.add(a=50, b=1), lambda: t.fail(message='boom')):\n"
            "    try:\n"
            "        call()\n"
            "    except ToolError as e:\n"
            "        print(type(e).__name__, json.dumps(str(e)))\n"
            "for i in range(3):\n"
            "    try:\n"
            "        t.echo(text=str(i))\n"
            "    except ToolError as e:\n"
            "        print('budget', type(e).__name__, e.code)\n"
        )
        lines = out.splitlines()
        kind, text = lines[0].split(" ", 1)
        assert kind == "ToolDenied" and json.loads(text).startswith("tool call 'mcp:t/add' failed: permission_denied: ")
        kind, text = lines[1].split(" ", 1)
        assert kind == "ToolError" and json.loads(text).startswith("tool call 'mcp:t/fail' failed")
        assert "MCP tool t.fail returned an error" in json.loads(text)
        assert lines[2:] == ["budget ToolDenied permission_denied"]
    finally:
        tool.close()
