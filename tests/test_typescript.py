"""TypeScript through the public API: language="typescript" / "ts" wherever
a language is accepted; types stripped by the host (esbuild), then run on
the JavaScript guest with the user's own line numbers (docs/typescript.md)."""

from __future__ import annotations

import re
import time

import pytest

import amla_sandbox
from amla_sandbox import Sandbox, ToolDefinition, create_sandbox_tool
from amla_sandbox._language import normalize_language

TOOLS = [
    ToolDefinition("get_weather", "weather of a city", {"type": "object", "properties": {"city": {"type": "string"}}}),
    ToolDefinition("add", "a + b", {"type": "object", "properties": {}}),
]


def handler(name: str, params: dict) -> object:
    if name == "get_weather":
        return {"city": params["city"], "temp": len(params["city"]) * 10}
    if name == "add":
        return params["a"] + params["b"]
    raise ValueError(name)


AGENT_SCRIPT = """\
import type { Readable } from 'stream';
interface Weather { city: string; temp: number }
enum Unit { C = "C", F = "F" }
namespace Fmt {
  export const sep = ", ";
}
type Row = { city: string; temp: number; unit: Unit };

class Report<T extends { temp: number }> {
  constructor(private readonly rows: T[] = []) {}
  add(row: T): this { this.rows.push(row); return this; }
  get total(): number { return this.rows.reduce((s, r) => s + r.temp, 0); }
}

async function weather(city: string): Promise<Weather> {
  return (await get_weather({ city })) as Weather;
}

const cities: string[] = ["Paris", "Rome"];
const rows: Row[] = [];
for (const w of await Promise.all(cities.map(weather))) {
  rows.push({ ...w, unit: Unit.C } satisfies Row);
}
const report = new Report<Row>();
rows.forEach((r) => report.add(r));
const sum = await add({ a: report.total, b: 1 }) as number;
console.log(rows.map((r) => `${r.city}:${r.temp}${r.unit}`).join(Fmt.sep), sum);
if (sum > 0) return sum;
console.log("not reached");
"""


def test_language_names() -> None:
    for name in ("typescript", "ts", "TypeScript", " TS "):
        assert normalize_language(name) == "typescript"


@pytest.mark.parametrize("language", ["typescript", "ts", "TS", "TypeScript"])
def test_agent_script_through_execute(language: str) -> None:
    with Sandbox(tools=TOOLS, tool_handler=handler) as sb:
        out = sb.execute(AGENT_SCRIPT, language=language)
    assert out == "Paris:50C, Rome:40C 91\n91\n"


def test_decorators_generics_and_parameter_properties() -> None:
    code = """\
const calls: string[] = [];
function logged<This, A extends unknown[], R>(fn: (this: This, ...a: A) => R, ctx: ClassMethodDecoratorContext) {
  return function (this: This, ...a: A): R { calls.push(String(ctx.name)); return fn.apply(this, a); };
}
class Box<T> {
  constructor(public value: T, protected tag?: string) {}
  @logged get2(): T { return this.value; }
}
const b = new Box<number>(7);
console.log(b.get2(), b.value, calls.join());
"""
    with Sandbox() as sb:
        assert sb.execute(code, language="typescript") == "7 7 get2\n"


def test_create_sandbox_tool_run_and_async() -> None:
    tool = create_sandbox_tool()
    assert tool.run("const n: number = 2 ** 5; console.log(n)", language="ts").strip() == "32"
    import asyncio

    out = asyncio.run(tool.run_async("let s: string = 'a'; console.log(s.repeat(3))", language="typescript"))
    assert out.strip() == "aaa"


def test_langchain_tool_takes_typescript() -> None:
    pytest.importorskip("langchain_core")
    tool = create_sandbox_tool().as_langchain_tool()
    assert tool.invoke({"code": "const x: number[] = [1, 2]; console.log(x.length)", "language": "ts"}).strip() == "2"


def test_step_loop() -> None:
    sb = Sandbox(tools=TOOLS)
    sb.start("const w = (await get_weather({ city: 'Oslo' })) as { temp: number };\nconsole.log(w.temp)", "ts")
    req = sb.step()
    assert req is not None and req.method == "mcp:get_weather"
    sb.resume({"temp": 3})
    assert sb.step() is None
    assert sb.result().stdout == "3\n"


def test_syntax_error_points_at_the_users_line_and_column() -> None:
    with Sandbox() as sb:
        assert sb.execute("const a: number = 1;\nconst b = (a +;\n", language="typescript") == ""
        assert "SyntaxError" in sb.last_stderr
        assert "script.ts:2:15" in sb.last_stderr, sb.last_stderr


def test_runtime_error_points_at_the_users_line_and_column() -> None:
    ts = """\
interface Item {
  id: number;
  name?: string;
}
enum E { A, B }

const items: Item[] = [{ id: 1 }];
function upper(i: Item): string {
  return i.name!.toUpperCase();
}
console.log(items.map(upper));
"""
    # The same program as JavaScript, on the same lines and columns.
    js = "\n" * 6 + ts.split("\n\n", 1)[1].replace(": Item[]", "").replace(": Item): string", ")").replace("!.", ".")
    with Sandbox() as sb:
        sb.execute(ts, language="typescript")
        ts_err = sb.last_stderr
        sb.execute(js, language="javascript")
        js_err = sb.last_stderr
    assert "at upper (script.js:9:10)" in ts_err, ts_err
    assert ts_err == js_err


def test_stack_line_after_enum_and_namespace() -> None:
    code = "enum A { X }\nnamespace N { export const y = 1 }\nconst z: number = N.y;\nthrow new Error('boom ' + z);\n"
    with Sandbox() as sb:
        sb.execute(code, language="ts")
        assert sb.last_result.exit_code == 1
        assert "Error: boom 1\n    at <anonymous> (script.js:4:" in sb.last_stderr, sb.last_stderr


def test_oversize_and_deep_input_are_refused() -> None:
    with Sandbox() as sb:
        assert sb.execute("x;\n" * 400_000, language="typescript") == ""
        assert "at most" in sb.last_stderr
        start = time.monotonic()
        assert sb.execute("(" * 100_000 + "1" + ")" * 100_000, language="typescript") == ""
        assert "nested more than 1000 deep" in sb.last_stderr
        assert time.monotonic() - start < 2


def test_node_runs_ts_files_from_the_shell_and_from_js() -> None:
    with Sandbox() as sb:
        sb.shell("printf 'const n: number = 41;\\nconsole.log(n + 1);\\n' > /workspace/f.ts")
        assert sb.shell("node /workspace/f.ts") == "42\n"
        assert sb.shell("cd /workspace && node f.ts") == "42\n"
        sb.shell("printf '#!/usr/bin/env ts-node\\nlet s: string = \"hi\";\\nconsole.log(s)\\n' > /workspace/run; chmod +x /workspace/run")
        assert sb.shell("/workspace/run") == "hi\n"
        out = sb.execute("const r = await shell('node /workspace/f.ts'); console.log(r.stdout.trim())")
        assert out == "42\n"
        # A .js file is still JavaScript: an annotation there is an error.
        sb.shell("printf 'const n: number = 1;\\n' > /workspace/g.js")
        sb.shell("node /workspace/g.js || true")
        assert "SyntaxError" in sb.last_stderr


def test_stdin_is_the_script() -> None:
    with Sandbox() as sb:
        assert sb.execute("", stdin="const v: string = 'in'; console.log(v)", language="ts") == "in\n"


def test_record_and_replay() -> None:
    code = "const r = (await add({ a: 2, b: 3 })) as number;\nconsole.log(r satisfies number, Math.random() < 2);\n"
    sb = Sandbox(tools=TOOLS, tool_handler=handler, record=True)
    try:
        sb.execute(code, language="typescript")
        recorded = sb.last_result
        assert recorded is not None and recorded.journal and recorded.stdout == "5 true\n"

        def refuse(name: str, params: dict) -> object:
            raise AssertionError("a replay called the tool handler")

        replayed = Sandbox.replay(recorded.journal, tools=TOOLS, tool_handler=refuse)
        try:
            got = replayed.last_result
            assert got is not None and (got.stdout, got.exit_code) == (recorded.stdout, recorded.exit_code)
        finally:
            replayed.close()
    finally:
        sb.close()


def test_mcp_server_lists_run_typescript() -> None:
    pytest.importorskip("mcp")
    from amla_sandbox.mcp.server import _TOOLS, supported_languages

    assert "typescript" in supported_languages()
    assert _TOOLS["run_typescript"][0] == "typescript"
