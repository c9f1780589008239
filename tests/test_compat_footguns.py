"""Footguns of a new user's first hour (issue 10 item 4), through the public
API and a real sandbox, and the two reference APIs through SandboxTool."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import amla_sandbox
from _apis import Api, api  # noqa: F401  (api is a fixture)
from amla_sandbox import (
    SandboxTool,
    create_amla_sandbox,
    create_sandbox_tool,
    from_langchain,
    tool_from_function,
    from_openai_tools,
)

ROOT = Path(__file__).resolve().parent.parent


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


# -- lambda tools ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "build",
    [
        lambda tools: create_sandbox_tool(tools),
        lambda tools: SandboxTool.from_functions(tools),
        lambda tools: create_amla_sandbox(tools),
    ],
    ids=["create_sandbox_tool", "from_functions", "create_amla_sandbox"],
)
def test_a_lambda_tool_is_refused_with_a_clear_error(build: Any) -> None:
    with pytest.raises(ValueError) as info:
        build([add, lambda city: {"city": city}])
    text = str(info.value)
    assert "is a lambda" in text and "def my_tool" in text and "name=" in text


def test_a_lambda_given_a_name_works() -> None:
    double = lambda n: n * 2  # noqa: E731
    double.__name__ = "double"
    with create_sandbox_tool([double]) as tool:
        assert tool.run("console.log(await double({n: 21}))", "javascript") == "42\n"


# -- LangChain BaseTool subclasses --------------------------------------------------------------


def test_a_langchain_basetool_subclass_is_registered_under_its_name() -> None:
    tools_module = pytest.importorskip("langchain_core.tools")
    pydantic = pytest.importorskip("pydantic")

    class CalcArgs(pydantic.BaseModel):
        expression: str

    class Calculator(tools_module.BaseTool):  # type: ignore[misc, name-defined]
        name: str = "calculator"
        description: str = "Evaluate an arithmetic expression."
        args_schema: type = CalcArgs

        def _run(self, expression: str, run_manager: Any = None) -> str:
            return f"calc({expression})"

    @tools_module.tool("word_count")
    def count_words(text: str) -> int:
        """Count words."""
        return len(text.split())

    funcs, defs = from_langchain([Calculator(), count_words])
    # The tools' own functions (as the reference returns them), named after their tools.
    assert funcs[1] is count_words.func and funcs[0].__func__ is Calculator._run
    assert [tool_from_function(f).name for f in funcs] == ["calculator", "word_count"]
    assert [d.name for d in defs] == ["calculator", "word_count"]
    with create_sandbox_tool(funcs) as tool:
        assert "calculator" in tool.sandbox.execute("console.log(listTools().join(','))")
        out = tool.run(
            "console.log(await calculator({expression: '1+1'}), await word_count({text: 'a b c'}))", "javascript"
        )
        assert out == "calc(1+1) 3\n"
        # run_manager is LangChain's, not a tool argument.
        assert tool_schema(tool, "calculator") == {"expression"}


def tool_schema(tool: SandboxTool, name: str) -> set[str]:
    import json

    info = json.loads(tool.sandbox.execute(f"console.log(JSON.stringify(getToolInfo('{name}').parameters))"))
    return set(info["properties"])


# -- one function, two tools --------------------------------------------------------------------


def test_one_function_registered_under_two_names_keeps_both_tools() -> None:
    seen: list[dict[str, Any]] = []

    def lookup(**params: Any) -> dict[str, Any]:
        seen.append(params)
        return {"found": params.get("id")}

    funcs, _ = from_openai_tools(
        [
            {"type": "function", "function": {"name": "find_user", "parameters": {"type": "object"}}},
            {"type": "function", "function": {"name": "find_order", "parameters": {"type": "object"}}},
        ],
        handlers={"find_user": lookup, "find_order": lookup},
    )
    with create_sandbox_tool(funcs, max_calls={"find_user": 1}) as tool:
        out = tool.run(
            "const a = await find_user({id: 1}); const b = await find_order({id: 2});"
            "console.log(a.found, b.found, listTools().sort().join(','))",
            "javascript",
        )
        assert out == "1 2 find_order,find_user\n"
        assert seen == [{"id": 1}, {"id": 2}]
        assert tool.sandbox.get_remaining_calls("cap:tool-call:mcp:find_user") == 0
        assert tool.sandbox.get_remaining_calls("cap:method:mcp:find_order") == 99


# -- language ----------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["shell", "bash", "sh", "SHELL", "Bash"])
def test_shell_spellings_run_the_shell(language: str) -> None:
    with create_sandbox_tool([]) as tool:
        assert tool.run("x=5; echo $((x * 2))", language) == "10\n"


@pytest.mark.parametrize("language", ["javascript", "js", "node", "JavaScript", "JS"])
def test_javascript_spellings_run_javascript(language: str) -> None:
    with create_sandbox_tool([add]) as tool:
        assert tool.run("console.log(await add({a: 2, b: 3}))", language) == "5\n"


def test_an_unknown_language_names_the_accepted_ones() -> None:
    with create_sandbox_tool([]) as tool:
        with pytest.raises(ValueError, match="Unsupported language 'ruby'.*'javascript', 'js', 'node', 'typescript', 'ts', 'shell', 'bash', 'sh', 'python', 'py', 'python3'"):
            tool.run("puts 1", "ruby")


def test_the_langchain_tool_defaults_to_javascript() -> None:
    pytest.importorskip("langchain_core")
    with create_sandbox_tool([add]) as tool:
        lc = tool.as_langchain_tool()
        assert lc.invoke({"code": "console.log(await add({a: 1, b: 1}))"}) == "2\n"
        assert lc.invoke({"code": "echo hi", "language": "bash"}) == "hi\n"


# -- close() and with ---------------------------------------------------------------------------


def test_sandbox_tool_close_and_with() -> None:
    tool = create_sandbox_tool([add])
    assert tool.run("console.log(1)", "js") == "1\n"
    tool.close()
    tool.close()  # idempotent
    result = tool.execute("console.log(1)")
    assert not result.success and result.error
    with create_sandbox_tool([add]) as t2:
        assert t2.run("console.log(2)", "js") == "2\n"
    assert not t2.execute("console.log(1)").success


# -- capabilities of either API passed to the library -------------------------------------------


def test_from_functions_with_either_apis_capabilities(api: Api) -> None:
    caps = [api.cls("mcp:add", max_calls=2)]
    with SandboxTool.from_functions([add], capabilities=caps) as tool:
        out = tool.run(
            "for (let i = 0; i < 3; i++) { try { console.log(await add({a: i, b: 1})) } catch (e) { console.log(e.message) } }",
            "javascript",
        )
        assert out.splitlines() == [
            "1",
            "2",
            f"tool call 'mcp:add' failed: permission_denied: Call limit exceeded for '{api.key('mcp:add')}': max 2 calls allowed",
        ]
        counts = tool.sandbox.get_call_counts()
        assert list(counts) == [api.key("mcp:add")]
        assert counts["cap:method:mcp:add"] == counts["cap:tool-call:mcp:add"] == 0
        assert tool.sandbox.get_capabilities() == [api.cls("mcp:add", max_calls=2)]
        assert "add: max 2 calls" in tool.get_system_prompt()


def test_create_amla_sandbox_with_either_apis_capabilities(api: Api) -> None:
    run = create_amla_sandbox([add], capabilities=[api.cls("mcp:add", max_calls=1)])
    out, new_locals = run("console.log(await add({a: 1, b: 2})); await add({a: 1, b: 2})", {})
    assert out.startswith("3\n") and api.key("mcp:add") in out and new_locals == {}


def test_default_capability_is_a_tool_call_cap_for_both_apis(api: Api) -> None:
    with amla_sandbox.Sandbox() as sb:
        (cap,) = sb.get_capabilities()
        assert isinstance(cap, api.cls) and cap.method_pattern == "**"


# -- type checkers -------------------------------------------------------------------------------

_TYPED_USE = textwrap.dedent(
    """
    import amla_sandbox
    from amla_sandbox import MethodCapability, ToolCallCap, TOOL_CALL_CAP_TYPE
    from amla_sandbox.capabilities.tool_call import CallLimitExceededError


    def run(code: str) -> str:
        try:
            with amla_sandbox.Sandbox(timeout=1.0) as sb:
                return sb.execute(code)
        except amla_sandbox.TimeoutError as e:
            return f"timed out: {e}"
        except amla_sandbox.MemoryLimitError:
            return "out of memory"
        except CallLimitExceededError as e:
            return e.capability_key


    base: type[amla_sandbox.RuntimeError] = amla_sandbox.TimeoutError
    caps: list[ToolCallCap] = [MethodCapability("a"), ToolCallCap("b")]
    print(run("1"), base, caps, TOOL_CALL_CAP_TYPE)
    """
)


def _checker(name: str) -> list[str] | None:
    exe = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if exe is not None:
        return [exe]
    if importlib.util.find_spec(name) is not None:
        return [sys.executable, "-m", name]
    return None


@pytest.mark.parametrize("checker,args", [("mypy", ["--strict"]), ("pyright", [])])
def test_error_classes_pass_strict_type_checkers(checker: str, args: list[str], tmp_path: Path) -> None:
    cmd = _checker(checker)
    if cmd is None:
        pytest.skip(f"{checker} is not installed (pip install {checker})")
    src = tmp_path / "typed_use.py"
    src.write_text(_TYPED_USE)
    env = {"PYTHONPATH": str(ROOT), "PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin", "HOME": str(Path.home())}
    # pyright's PyPI package fetches Node.js on first use; without it (offline) it cannot run.
    probe = subprocess.run([*cmd, "--version"], capture_output=True, text=True, env=env, timeout=300)
    if probe.returncode != 0:
        pytest.skip(f"{checker} is installed but cannot start: {(probe.stderr or probe.stdout)[-300:]}")
    if checker == "mypy":
        args = [*args, "--cache-dir", str(tmp_path / ".mypy_cache")]
    else:
        args = [*args, "--pythonpath", sys.executable]
    proc = subprocess.run([*cmd, *args, str(src)], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # The checker really looks: a name the package lacks is reported.
    src.write_text(_TYPED_USE + "print(amla_sandbox.NoSuchError)\n")
    proc = subprocess.run([*cmd, *args, str(src)], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert proc.returncode != 0 and "NoSuchError" in proc.stdout + proc.stderr
