"""Issue 29 item 2: typed tool declarations in every language.

One renderer (gocore/decl) turns each tool's JSON Schema, and its output
schema when known, into TypeScript declarations (JavaScript and TypeScript
scripts), Python stubs (Python scripts) and the `tool` command's usage (the
shell). They reach agents through SandboxTool.get_tool_declarations(), the
system prompt and the LangChain tool's description, and scripts through
tools.describe(name) and `tool --describe NAME`. Everything here goes
through the public API: the tool sets are gocore/decl/testdata's (a
GitHub-like server of 100+ tools and a payments API) and the real MCP
server of tests/mcp_servers.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, TypedDict

import pytest

from amla_sandbox import Sandbox, SandboxTool, ToolDefinition, create_sandbox_tool

ROOT = Path(__file__).resolve().parents[1]
TESTDATA = ROOT / "gocore" / "decl" / "testdata"
SERVERS = Path(__file__).parent / "mcp_servers"
STDIO = {"command": sys.executable, "args": [str(SERVERS / "tools_server.py"), "stdio"]}

needs_sources = pytest.mark.skipif(not TESTDATA.is_dir(), reason="needs gocore/decl/testdata (a source checkout)")


def definitions(name: str) -> list[ToolDefinition]:
    data = json.loads((TESTDATA / f"{name}.json").read_text())
    return [ToolDefinition.from_dict({"description": "", **t}) for t in data]


def echo_handler(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"method": method, "params": params}


@pytest.fixture(scope="module")
def payments() -> Iterator[SandboxTool]:
    if not TESTDATA.is_dir():
        pytest.skip("needs gocore/decl/testdata (a source checkout)")
    sb = Sandbox(tools=definitions("payments"), tool_handler=echo_handler, timeout=60)
    with SandboxTool(sandbox=sb) as tool:
        yield tool


# -- get_tool_declarations -----------------------------------------------------------------------


@needs_sources
@pytest.mark.parametrize("name", ["github", "payments"])
@pytest.mark.parametrize(("language", "ext"), [("typescript", ".d.ts"), ("javascript", ".d.ts"), ("python", ".pyi"), ("shell", ".shell")])
def test_declarations_of_real_tool_sets_are_the_golden_files(name: str, language: str, ext: str) -> None:
    # The golden files are what tsc --strict and pyright --strict accept
    # (gocore/decl/golden_test.go); the output schemas are carried through.
    with Sandbox(tools=definitions(name)) as sb:
        assert SandboxTool(sandbox=sb).get_tool_declarations(language) == (TESTDATA / f"{name}{ext}").read_text()


def test_names_that_are_no_identifiers_are_declared_through_call_tool() -> None:
    defs = [
        ToolDefinition("get weather", "Spaces.", {"type": "object", "properties": {"city": {"type": "string"}}}),
        ToolDefinition("class", "A keyword.", {"type": "object", "properties": {"a b": {"type": "integer"}}}),
        ToolDefinition("srv.list-items", "Dashes.", {"type": "object"}),
    ]
    with Sandbox(tools=defs) as sb:
        tool = SandboxTool(sandbox=sb)
        ts = tool.get_tool_declarations("typescript")
        assert 'declare function callTool(name: "get weather", input?: GetWeatherInput): Promise<unknown>;' in ts
        assert "declare namespace srv {" in ts and "function list_items(" in ts
        py = tool.get_tool_declarations("python")
        assert "def call_tool(name: Literal[\"get weather\"]" in py and "class srv:" in py
        sh = tool.get_tool_declarations("shell")
        assert "tool 'get weather' [--city STRING]" in sh and "tool class --json '{...}'" in sh


def test_declarations_of_some_tools_and_the_errors(payments: SandboxTool) -> None:
    ts = payments.get_tool_declarations("TS", names=["payments.refunds.create"])
    assert "declare namespace payments {" in ts and "function refunds_create(" in ts
    assert "payment_intents_create" not in ts
    assert payments.get_tool_declarations("py", names="payments.refunds.create").startswith("from typing import")
    with pytest.raises(ValueError, match='no tool named "nope"'):
        payments.get_tool_declarations("python", names=["payments.refunds.create", "nope"])
    with pytest.raises(ValueError, match="Unsupported language 'ruby'"):
        payments.get_tool_declarations("ruby")
    with pytest.raises(TypeError, match="names must be tool names"):
        payments.get_tool_declarations("shell", names=[3])  # type: ignore[list-item]


class Forecast(TypedDict):
    temp: float
    conditions: Literal["sunny", "rain"]


def get_weather(city: str, days: int = 1) -> Forecast:
    """The forecast for a city.

    Args:
        city: The city's name.
    """
    return {"temp": 21.5, "conditions": "sunny"}


def untyped(x):  # type: ignore[no-untyped-def]
    """No annotations at all."""
    return x


def test_python_functions_declare_their_return_type() -> None:
    with create_sandbox_tool(tools=[get_weather, untyped]) as tool:
        ts = tool.get_tool_declarations("typescript")
        assert 'type GetWeatherOutput = {\n  temp: number;\n  conditions: "sunny" | "rain";\n};' in ts
        assert "declare function get_weather(input: GetWeatherInput): Promise<GetWeatherOutput>;" in ts
        assert "declare function untyped(input: UntypedInput): Promise<unknown>;" in ts
        py = tool.get_tool_declarations("python")
        assert "async def get_weather(*, city: str, days: int = ...) -> GetWeatherOutput:" in py
        assert 'conditions: Literal["sunny", "rain"]' in py
        assert "async def untyped(*, x: str) -> Any:" in py
        sh = tool.get_tool_declarations("shell")
        assert sh.startswith("tool get_weather --city STRING [--days INTEGER]\n    The forecast for a city.\n")
        assert '    Prints JSON: {temp: number, conditions: "sunny" | "rain"}\n' in sh
        # The sandbox's scripts see the same.
        assert tool.run("process.stdout.write(await tools.describe('get_weather'))", "javascript") == tool.get_tool_declarations(
            "typescript", names=["get_weather"]
        )


# -- the prompt --------------------------------------------------------------------------------


def test_the_prompt_shows_each_language_its_declarations() -> None:
    with create_sandbox_tool(tools=[get_weather]) as tool:
        every = tool.get_system_prompt()
        ts, py, sh = (tool.get_tool_declarations(lang).rstrip("\n") for lang in ("typescript", "python", "shell"))
        for fence, text in (("typescript", ts), ("python", py), ("bash", sh)):
            assert f"```{fence}\n{text}\n```" in every
        only_py = tool.get_system_prompt(language="python")
        assert f"```python\n{py}\n```" in only_py and "declare function" not in only_py
        assert "JavaScript mode" not in only_py and "Shell mode" not in only_py
        only_ts = tool.get_system_prompt(language="ts")
        assert f"```typescript\n{ts}\n```" in only_ts and "async def" not in only_ts
        assert 'TypeScript mode (language="typescript")' in only_ts
        only_sh = tool.get_system_prompt(language="bash")
        assert f"```bash\n{sh}\n```" in only_sh and "Python mode" not in only_sh
        with pytest.raises(ValueError, match="Unsupported language"):
            tool.get_system_prompt(language="cobol")
        desc = tool._langchain_description()
        assert ts in desc and py in desc and sh in desc


def test_a_large_tool_set_is_named_in_the_prompt_and_declared_on_demand() -> None:
    defs = definitions("github")
    assert len(defs) > 100
    with Sandbox(tools=defs, tool_handler=echo_handler, timeout=60) as sb:
        tool = SandboxTool(sandbox=sb)
        prompt = tool.get_system_prompt(language="javascript")
        # One line per tool, how to get the rest; no declaration in it.
        assert "- github.create_issue(input): Create a new issue in a repository.\n" in prompt
        assert f"{len(defs)} tools; a tool's declaration: `await tools.describe('name')`" in prompt
        assert "declare " not in prompt and "type " not in prompt
        py = tool.get_system_prompt(language="python")
        assert "- github.create_issue(...): Create a new issue in a repository.\n" in py and "`tools.describe('name')`" in py
        sh = tool.get_system_prompt(language="shell")
        assert "- tool github.create_issue: Create a new issue in a repository.\n" in sh and "`tool --describe NAME`" in sh
        assert len(prompt) < len(tool.get_tool_declarations("typescript")) / 5


# -- tools.describe in every guest -------------------------------------------------------------


def test_tools_describe_in_every_guest_is_the_declaration(payments: SandboxTool) -> None:
    sb = payments.sandbox
    for name in ("payments.payment_intents.create", "payments.refunds.create"):
        ts = payments.get_tool_declarations("typescript", names=[name])
        py = payments.get_tool_declarations("python", names=[name])
        sh = payments.get_tool_declarations("shell", names=[name])
        assert sb.execute(f"process.stdout.write(await tools.describe({json.dumps(name)}))") == ts
        assert sb.execute(f"process.stdout.write(await tools.describe({json.dumps(name)}))", language="typescript") == ts
        assert sb.execute(f"print(tools.describe({name!r}), end='')", language="python") == py
        assert sb.shell(f"tool --describe {name}") == sh
        # The structured information is still there.
        info = json.loads(sb.shell(f"tool --describe --json {name}"))
        assert info["name"] == name and info["inputSchema"]["type"] == "object"
    out = sb.execute("const i = getToolInfo('payments.refunds.create'); console.log(i.id, i.outputSchema.type)")
    assert out == "mcp:payments.refunds.create object\n"


# -- MCP tools' output schemas -----------------------------------------------------------------


def test_mcp_output_schemas_type_the_results() -> None:
    pytest.importorskip("mcp")
    with create_sandbox_tool(mcp_servers={"t": STDIO}, timeout=30) as tool:
        defs = {d.name: d for d in tool.sandbox.tools}
        issue = defs["t.create_issue"].output_schema
        assert issue is not None and set(issue["properties"]) == {"number", "title", "labels"}
        ts = tool.get_tool_declarations("typescript", names=["t.create_issue", "t.add"])
        assert "  type CreateIssueOutput = {\n    /** Number */\n    number: number;\n" in ts
        assert "    labels: string[];\n  };\n" in ts and "  type AddOutput = Record<string, number>;\n" in ts
        assert "  function create_issue(input: CreateIssueInput): Promise<CreateIssueOutput>;" in ts
        py = tool.get_tool_declarations("python", names=["t.create_issue"])
        assert "class TCreateIssueOutput(TypedDict):\n    number: int\n" in py
        assert '        labels: list[str] | None = None,\n    ) -> TCreateIssueOutput:' in py
        # What a script sees is what the agent was shown.
        described = tool.sandbox.execute("process.stdout.write(await tools.describe('t.create_issue'))")
        assert described == tool.get_tool_declarations("typescript", names=["t.create_issue"])
        assert "Prints JSON: {number: number, title: string, labels: string[]}" in tool.sandbox.shell("tool --describe t.create_issue")
        # The result has the declared shape.
        got = json.loads(tool.sandbox.execute("console.log(JSON.stringify(await t.create_issue({title: 'abc'})))"))
        assert set(got) == set(issue["properties"])


# -- the checkers accept what Python tools declare ------------------------------------------------


@dataclasses.dataclass
class Shipment:
    id: int
    route: tuple[str, str]
    weights: dict[str, list[float]] | None = None


def ship(order: int, express: bool = False) -> Shipment:
    """Ship an order."""
    return Shipment(order, ("a", "b"))


def _checker(env: str, name: str) -> str:
    path = os.environ.get(env) or shutil.which(name)
    if not path:
        pytest.skip(f"{name} not found (set {env})")
    return path


def test_typescript_of_python_tools_passes_tsc_strict(tmp_path: Path) -> None:
    tsc = _checker("AMLA_TSC", "tsc")
    with create_sandbox_tool(tools=[get_weather, untyped, ship]) as tool:
        (tmp_path / "tools.d.ts").write_text("export {};\n" + tool.get_tool_declarations("typescript"))
    proc = subprocess.run([tsc, "--strict", "--noEmit", "--target", "es2022", str(tmp_path / "tools.d.ts")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_python_stubs_of_python_tools_pass_pyright_strict(tmp_path: Path) -> None:
    pyright = _checker("AMLA_PYRIGHT", "pyright")
    with create_sandbox_tool(tools=[get_weather, untyped, ship]) as tool:
        (tmp_path / "tools.pyi").write_text(tool.get_tool_declarations("python"))
    (tmp_path / "pyrightconfig.json").write_text('{"typeCheckingMode": "strict", "pythonVersion": "3.13"}')
    proc = subprocess.run([pyright, "--project", str(tmp_path), str(tmp_path / "tools.pyi")],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0 and "0 errors" in proc.stdout, proc.stdout + proc.stderr
