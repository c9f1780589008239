"""One tool catalogue (issue 25, point 4): a tool's names, namespaces and
the search ranking are decided once by the host (gocore/toolcat) and
shown by every guest. These tests hold the three guests to the same
answers, and tools_search (the host's search) to being no tool call."""

from __future__ import annotations

import json

import pytest

from amla_sandbox import Sandbox, ToolDefinition
from amla_sandbox import _wasm

pytestmark = pytest.mark.skipif(not _wasm.is_wasm_available(), reason="the WASM guests are not built")

TOOLS = [
    ToolDefinition(name="github.create_issue", description="Create an issue in a repository.\nMore text."),
    ToolDefinition(name="github.add_label", description="Add a label to an issue or a pull request."),
    ToolDefinition(name="jira.create_ticket", description="Open a ticket (an ISSUE) in Jira."),
    ToolDefinition(name="my-srv.list-files", description="List the files."),
    ToolDefinition(name="labels.list", description="Every label of a repository."),
    ToolDefinition(name="class", description="A tool whose name is a keyword."),
    ToolDefinition(name="dup", description="The first dup."),
    ToolDefinition(name="dup", description="The second dup."),
]
QUERIES = ["issue", "issue label", "label", "create", "ISSUE  create", "repository", "files", "dup", "nothing-like-it"]


def handler(method: str, params: dict) -> dict:
    return {"method": method}


@pytest.fixture(scope="module")
def sb():
    s = Sandbox(tools=TOOLS, tool_handler=handler)
    yield s
    s.close()


def js_search(sb: Sandbox, query: str) -> list[dict]:
    return json.loads(sb.execute(f"console.log(JSON.stringify(await tools.search({json.dumps(query)})))", language="javascript"))


def py_search(sb: Sandbox, query: str) -> list[dict]:
    return json.loads(sb.execute(f"import json; print(json.dumps(tools.search({query!r})))", language="python"))


def shell_search(sb: Sandbox, query: str) -> list[tuple[str, str]]:
    out = sb.run_shell(f"tool --search {query}")
    return [tuple(part.strip() for part in line.split("  ", 1)) for line in out.stdout.splitlines()]


@pytest.mark.parametrize("query", QUERIES)
def test_every_guest_finds_the_same_tools_in_the_same_order(sb: Sandbox, query: str) -> None:
    js, py, sh = js_search(sb, query), py_search(sb, query), shell_search(sb, query)
    assert [(h["name"], h["description"]) for h in js] == [(h["name"], h["description"]) for h in py] == sh
    if query == "issue":
        # 3 for a word in the name, 1 for one only in the description.
        assert [h["name"] for h in js] == ["github.create_issue", "github.add_label", "jira.create_ticket"]
    if query == "dup":
        assert js == [{"name": "dup", "description": "The first dup.", "call": "dup"}]


def test_each_guest_shows_its_own_call(sb: Sandbox) -> None:
    js = {h["name"]: h["call"] for h in json.loads(sb.execute("console.log(JSON.stringify(await tools.list()))"))}
    py = {h["name"]: h["call"] for h in json.loads(sb.execute("import json; print(json.dumps(tools.list()))", language="python"))}
    assert list(js) == list(py) == ["github.create_issue", "github.add_label", "jira.create_ticket", "my-srv.list-files", "labels.list", "class", "dup"]
    assert js["my-srv.list-files"] == 'my_srv["list-files"]' and py["my-srv.list-files"] == "my_srv.list_files"
    assert js["github.add_label"] == py["github.add_label"] == "github.add_label"
    assert py["class"] == "call_tool('class')"
    # Both names reach the tool, in both guests.
    assert "my-srv.list-files" in sb.execute("console.log((await my_srv.list_files()).method, (await my_srv['list-files']()).method)")
    assert sb.execute("print(my_srv.list_files()['method'], call_tool('class')['method'])", language="python").split() == [
        "my-srv.list-files", "class"]


def test_a_search_is_no_tool_call(sb: Sandbox) -> None:
    sb.execute("console.log((await tools.search('issue')).length, (await tools.list()).length)")
    assert sb.last_result.tool_calls == []
    sb.execute("print(len(tools.search('issue')), len(tools.list()))", language="python")
    assert sb.last_result.tool_calls == []


def test_python_search_inside_an_event_loop_returns_the_list(sb: Sandbox) -> None:
    code = "import asyncio\nasync def main():\n    hits = tools.search('label', limit=1)\n    print(type(hits).__name__, hits[0]['name'])\nasyncio.run(main())"
    assert sb.execute(code, language="python").split() == ["list", "github.add_label"]


@pytest.mark.parametrize("language,code", [
    ("javascript", "console.log(JSON.stringify(await tools.search('issue')), (await github.add_label({})).method)"),
    ("python", "print(tools.search('issue'), github.add_label()['method'])"),
])
def test_a_recorded_search_replays(language: str, code: str) -> None:
    sb = Sandbox(tools=TOOLS, tool_handler=handler, record=True)
    try:
        sb.execute(code, language=language)
        recorded = sb.last_result
        assert "github.create_issue" in recorded.stdout and [c.method for c in recorded.tool_calls] == ["mcp:github.add_label"]
        replayed = Sandbox.replay(recorded.journal, tools=TOOLS, tool_handler=lambda m, p: pytest.fail("a replay called the handler"))
        try:
            assert (replayed.last_result.stdout, replayed.last_result.exit_code) == (recorded.stdout, recorded.exit_code)
        finally:
            replayed.close()
    finally:
        sb.close()
