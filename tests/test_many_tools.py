"""Issue 24, item 13: a run's cost does not grow with the size of the
mounted tools' descriptions. A run's input names the tools (name, method
and the path of an info file); descriptions and schemas are read from the
file only when a script asks for them (getToolInfo, tools.describe,
tools.search, get_tool_info, tool --describe, a shell call's flags).
JavaScript and Python runs get the list itself as a file, read when the
script first looks up a name nobody defined (or asks for the tools): a run
that uses no tool pays nothing for them.
Before, 10,000 tools with 5 KB descriptions made every run take 0.5-1.3 s;
bench/bench_many_tools.py measures the figure docs/performance.md gives.
"""

from __future__ import annotations

import json
import time

import pytest

from amla_sandbox import Sandbox, ToolDefinition

N_TOOLS = 10_000
DESCRIPTION = 5_000
# Twice the target (50 ms), for a loaded machine; the figure itself is in
# docs/performance.md.
MAX_ADDED_MS = 100.0


def definitions(n: int) -> list[ToolDefinition]:
    return [
        ToolDefinition(
            name=f"srv.tool_{i}",
            description=(f"Tool {i} finds thing {i}.\n" + "lorem ipsum " * (DESCRIPTION // 12))[:DESCRIPTION],
            parameters={"type": "object", "properties": {"q": {"type": "string"}, "n": {"type": "integer"}}, "required": ["q"]},
        )
        for i in range(n)
    ]


def handler(method: str, params: dict) -> dict:
    return {"method": method, "params": params}


@pytest.fixture(scope="module")
def sandboxes():
    few = Sandbox(tools=definitions(1), tool_handler=handler, timeout=60)
    many = Sandbox(tools=definitions(N_TOOLS), tool_handler=handler, timeout=60)
    yield few, many
    few.close()
    many.close()


def fastest_ms(sb: Sandbox, code: str, language: str, runs: int = 7) -> float:
    """The fastest of runs: what the run costs, least disturbed by a loaded machine."""
    sb.execute(code, language=language)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        sb.execute(code, language=language)
        times.append((time.perf_counter() - t0) * 1000)
    return min(times)


@pytest.mark.parametrize(
    ("language", "code"), [("javascript", "console.log(1)"), ("python", "print(1)"), ("shell", "echo 1")]
)
def test_many_tools_with_long_descriptions_add_little_to_a_run(sandboxes, language: str, code: str) -> None:
    few, many = sandboxes
    base = fastest_ms(few, code, language)
    big = fastest_ms(many, code, language)
    assert big - base < MAX_ADDED_MS, (
        f"{language}: {N_TOOLS:,} tools with {DESCRIPTION:,}-byte descriptions add {big - base:.0f} ms to a run "
        f"({big:.0f} ms against {base:.0f} ms with one tool)"
    )


@pytest.fixture(scope="module")
def three():
    defs = definitions(100)
    sb = Sandbox(tools=[defs[i] for i in (0, 1, 77)], tool_handler=handler, timeout=60)
    yield sb
    sb.close()


@pytest.mark.parametrize(
    ("language", "code"),
    [("javascript", "console.log(JSON.stringify(await srv.tool_77({q: 'x'})))"), ("python", "print(srv.tool_77(q='x'))")],
)
def test_many_tools_add_little_to_a_run_calling_one(sandboxes, three, language: str, code: str) -> None:
    # The run reads the index and makes only the tool it names (and its
    # namespace), not a global per tool.
    _, many = sandboxes
    assert many.execute(code, language=language) == three.execute(code, language=language)
    base = fastest_ms(three, code, language)
    big = fastest_ms(many, code, language)
    assert big - base < MAX_ADDED_MS, (
        f"{language}: {N_TOOLS:,} tools add {big - base:.0f} ms to a run calling one "
        f"({big:.0f} ms against {base:.0f} ms with three tools)"
    )


def test_a_namespace_of_many_tools_lists_them_all(sandboxes) -> None:
    # Its members are made as they are read; listing them makes them all.
    _, many = sandboxes
    js = many.execute("console.log(typeof srv.tool_9999, 'tool_10000' in srv, Object.keys(srv).length, 'tool_5' in srv)")
    assert js.strip() == "function false 10000 true"
    py = many.execute("print(callable(srv.tool_9999), hasattr(srv, 'tool_10000'), len(dir(srv)), srv.tool_5(q='x')['method'])",
                      language="python")
    assert py.strip() == "True False 10000 srv.tool_5"


def test_descriptions_are_read_on_demand(sandboxes) -> None:
    _, many = sandboxes
    want = "Tool 9876 finds thing 9876."
    js = many.execute(
        "const i = getToolInfo('srv.tool_9876'); const d = await tools.describe('srv.tool_9876');"
        "console.log(JSON.stringify([i.description.split('\\n')[0], i.parameters.required, i.description.length, d.includes('Tool 9876 finds thing 9876.'),"
        " (await tools.search('thing 9876')).map(t => t.name), await srv.tool_9876({q: 'x'})]))"
    )
    first, required, length, declared, found, answer = json.loads(js)
    assert (first, required, length, declared) == (want, ["q"], DESCRIPTION, True)
    assert "srv.tool_9876" in found
    assert answer == {"method": "srv.tool_9876", "params": {"q": "x"}}
    py = many.execute(
        "import json\ni = get_tool_info('srv.tool_9876')\n"
        "print(json.dumps([i['description'].splitlines()[0], get_tool_info('srv.tool_9876')['parameters']['required'], 'async def tool_9876(' in tools.describe('srv.tool_9876'),"
        " srv.tool_9876(q='y')]))",
        language="python",
    )
    assert json.loads(py) == [want, ["q"], True, {"method": "srv.tool_9876", "params": {"q": "y"}}]
    sh = many.shell("tool --describe srv.tool_9876 | head -4; tool srv.tool_9876 --q z --n 3; tool srv.tool_9876 2>&1; echo rc=$?")
    assert want in sh, sh
    # the flags are coerced with the schema read on demand: n is a number, q required
    assert '{"method":"srv.tool_9876","params":{"n":3,"q":"z"}}' in sh, sh
    assert "missing required parameter(s): --q" in sh and "rc=2" in sh, sh


# Tools whose names meet the sandbox's own globals, for the lazily found
# tool globals: a tool replaces a Node-habit convenience (fetch) or site's
# help, never a builtin (JSON, len), and a script's own global shadows it.
CLASHING = ["srv.tool_1", "fetch", "get_weather", "JSON", "help", "len", "ns.a-b", "ns.a_b", "ns.c", "ns.deep.x", "a.b", "a_b", "bad.1x"]


@pytest.fixture(scope="module")
def clashing():
    tools = [ToolDefinition(name=n, description=f"{n} does it", parameters={"type": "object", "properties": {}}) for n in CLASHING]
    sb = Sandbox(tools=tools, tool_handler=lambda method, params: method, timeout=60)
    yield sb
    sb.close()


@pytest.mark.parametrize(
    ("code", "want"),
    [
        ("console.log(typeof get_weather, typeof srv, typeof srv.tool_1, typeof nope, typeof JSON.parse)",
         "function object function undefined function"),
        ("console.log(await get_weather(), await srv.tool_1({}), await fetch({}), await globalThis['get_weather']())",
         "get_weather srv.tool_1 fetch get_weather"),
        ("try { get_wether } catch (e) { console.log(e.name + ': ' + e.message) }", "ReferenceError: get_wether is not defined"),
        ("globalThis.get_weather = 5; console.log(get_weather)", "5"),
        ("get_weather = 6; console.log(get_weather, typeof process, typeof require, typeof URL)", "6 object function function"),
        ("console.log(JSON.stringify(listTools()), Object.keys(__tools__).length)",
         '["srv_tool_1","fetch","get_weather","help","len","ns_a_b","ns_c","ns_deep_x","a_b","bad_1x"] 13'),
        # a namespace's members are made as they are read, each the first tool whose name or identifier it is
        ("console.log(await ns.a_b(), await ns['a-b'](), ns['a-b'] === ns.a_b, 'c' in ns, 'z' in ns, typeof ns.deep)",
         "ns.a-b ns.a-b true true false undefined"),
        ("console.log(JSON.stringify(Object.keys(ns).sort()), await a_b(), await a.b(), await bad['1x']())",
         '["a-b","a_b","c","deep.x","deep_x"] a.b a.b bad.1x'),
        ("delete ns.c; console.log('c' in ns, Object.keys(ns).includes('c')); ns.c = 1; console.log(ns.c)", "false false\n1"),
        ("console.log(await ns.c(), JSON.stringify(listTools().length), await ns.c(), typeof ns.deep_x)", "ns.c 10 ns.c function"),
        ("console.log(JSON.stringify((await tools.search('weather')).map(t => t.name)))", '["get_weather"]'),
    ],
)
def test_javascript_tool_globals_resolve_on_first_use(clashing, code: str, want: str) -> None:
    assert clashing.execute(code).strip() == want


@pytest.mark.parametrize(
    ("code", "want"),
    [
        ("print(get_weather(), srv.tool_1(), help(), len([1, 2]))", "get_weather srv.tool_1 help 2"),
        ("try:\n    get_wether\nexcept NameError as e:\n    print(e)", "name 'get_wether' is not defined"),
        ("def f():\n    return get_weather()\nprint(f())", "get_weather"),
        ("get_weather = 5\nprint(get_weather)", "5"),
        ("print(list_tools(), __builtins__.len([1]))",
         "['srv.tool_1', 'fetch', 'get_weather', 'JSON', 'help', 'ns.a_b', 'ns.c', 'ns.deep.x', 'a.b', 'a_b'] 1"),
        # a namespace's members are made as they are read: ns.a-b and ns.a_b are both ns.a_b, the first wins
        ("print(ns.a_b(), ns.c(), ns.deep.x(), a.b(), a_b(), sorted(dir(ns)))", "ns.a-b ns.c ns.deep.x a.b a_b ['a_b', 'c', 'deep']"),
        ("try:\n    ns.zz\nexcept AttributeError as e:\n    print(e)", "ns has no tool 'zz' (it holds: a_b, c, deep)"),
        ("try:\n    ns()\nexcept TypeError as e:\n    print(e)", "ns is a namespace of tools, not a tool (it holds: a_b, c, deep)"),
        ("try:\n    bad\nexcept NameError as e:\n    print(e)", "name 'bad' is not defined"),
        ("print(ns.c(), len(list_tools()), ns.c(), 'async def c(' in tools.describe('ns.c'))", "ns.c 10 ns.c True"),
        ("print([t['name'] for t in tools.search('weather')])", "['get_weather']"),
    ],
)
def test_python_tool_globals_resolve_on_first_use(clashing, code: str, want: str) -> None:
    assert clashing.execute(code, language="python").strip() == want


def test_a_tool_keeps_its_name_from_a_namespace_of_the_same_name() -> None:
    tools = [ToolDefinition(name=n, description="", parameters={"type": "object", "properties": {}}) for n in ["gh", "gh.issue"]]
    with Sandbox(tools=tools, tool_handler=lambda method, params: method, timeout=60) as sb:
        js = sb.execute("console.log(typeof gh, typeof gh.issue, await gh(), await callTool('gh.issue'))")
        assert js.strip() == "function undefined gh gh.issue"
        py = sb.execute("print(gh(), gh.issue())", language="python")
        assert py.strip() == "gh gh.issue"


def test_a_module_the_script_imports_sees_the_tools(clashing) -> None:
    # Tools are builtins, so a module of the script's own can call them
    # even when the script itself names none before importing it.
    clashing.execute("open('/workspace/helper_mod.py', 'w').write('def f():\\n    return get_weather()\\n')", language="python")
    out = clashing.execute("import helper_mod\nprint(helper_mod.f())", language="python")
    assert out.strip() == "get_weather"
