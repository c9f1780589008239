"""amla_sandbox.integrations.openai_agents: an Agent with the sandbox's
ShellTool executor and run_python function tool, driven by the SDK's own
`agents.testing.ScriptedModel` (no network)."""

from __future__ import annotations

import asyncio
import importlib
import sys
from typing import Any

import pytest

pytest.importorskip("agents", reason="openai-agents is not installed (pip install \"amla-sandbox[openai-agents]\")")

from agents import Agent, RunConfig, RunContextWrapper, Runner, function_tool  # noqa: E402
from agents.items import ToolCallOutputItem  # noqa: E402
from agents.testing import ScriptedModel, assistant_message, function_call  # noqa: E402
from openai.types.responses import ResponseFunctionShellToolCall  # noqa: E402
from openai.types.responses.response_function_shell_tool_call import Action  # noqa: E402

from amla_sandbox.integrations.openai_agents import AmlaShell  # noqa: E402

calls: list[Any] = []


@function_tool
def lookup(city: str) -> dict[str, Any]:
    """Look up a city."""
    calls.append(("lookup", city))
    return {"city": city, "temp": 21}


async def transfer(amount: int) -> str:
    """Move money (an async tool, passed as a plain function)."""
    calls.append(("transfer", amount))
    return f"sent {amount}"


@pytest.fixture(autouse=True)
def _fresh_calls() -> None:
    calls.clear()


def shell_call(call_id: str, *commands: str, timeout_ms: int | None = None) -> ResponseFunctionShellToolCall:
    return ResponseFunctionShellToolCall(id=call_id, call_id=call_id, type="shell_call", status="completed",
                                         action=Action(commands=list(commands), timeout_ms=timeout_ms))


def code(call_id: str, source: str) -> Any:
    return function_call("run_python", {"code": source}, call_id=call_id)


def outputs(result: Any) -> list[str]:
    return [str(item.output) for item in result.new_items if isinstance(item, ToolCallOutputItem)]


def run(shell: AmlaShell, steps: list[list[Any]]) -> tuple[Any, ScriptedModel]:
    model = ScriptedModel([*steps, [assistant_message("done")]])
    agent = Agent(name="t", model=model, tools=[shell.shell_tool(), shell.code_tool()])
    result = asyncio.run(Runner.run(agent, "go", run_config=RunConfig(tracing_disabled=True)))
    model.assert_complete()
    return result, model


def test_shell_and_python_share_files_and_keep_their_state() -> None:
    with AmlaShell(tools=[lookup, transfer]) as shell:
        result, model = run(shell, [
            [code("c1", "w = lookup('Paris')\nopen('w.txt', 'w').write(str(w['temp']))\nprint(w['city'])")],
            [shell_call("s1", "mkdir -p out && cd out && export UNIT=C", "cat ../w.txt; echo \" $UNIT in $(pwd)\"",
                        "ls /nope")],
            [code("c2", "w['temp'] * 2")],
        ])
        assert result.final_output == "done"
        py1, sh, py2 = outputs(result)
        assert py1 == "Paris\n"
        # the shell session kept the cd and the export from the first command
        assert "$ cat ../w.txt; echo \" $UNIT in $(pwd)\"\n21 C in /workspace/out\n" in sh
        assert sh.endswith("No such file or directory\nexit code: 2")
        assert py2 == "[value]: 42"
        assert calls == [("lookup", "Paris")]
        # what the model was told about the code tool
        tool = next(t for t in model.first_call.tools if t.name == "run_python")
        assert "lookup(city): Look up a city." in tool.description


def test_a_refused_call_and_an_exhausted_budget_reach_the_model_as_tool_output() -> None:
    with AmlaShell(tools=[transfer], constraints={"transfer": {"amount": "<=1000"}},
                   max_calls={"transfer": 1}) as shell:
        result, model = run(shell, [
            [code("c1", "transfer(5000)")],
            [code("c2", "transfer(amount=10)")],
            [shell_call("s1", "tool transfer --amount 20")],
        ])
        assert result.final_output == "done"
    refused, ok, exhausted = outputs(result)
    assert "ToolDenied" in refused and "permission_denied" in refused and "[exit code]: 1" in refused
    assert ok == "[value]: 'sent 10'"
    assert "Call limit exceeded" in exhausted
    assert calls == [("transfer", 10)]


def test_a_shell_call_past_its_timeout_is_reported_as_a_timeout() -> None:
    with AmlaShell() as shell:
        result, _ = run(shell, [[shell_call("s1", "while true; do :; done", timeout_ms=300)],
                                [shell_call("s2", "echo still here")]])
        spun, after = outputs(result)
    assert "timeout" in spun
    assert "still here" in after


def test_tools_sandbox_code_cannot_call_are_refused() -> None:
    @function_tool
    def with_context(ctx: RunContextWrapper[Any], x: int) -> int:
        """Needs the context."""
        return x

    with pytest.raises(TypeError, match="takes the run context"):
        AmlaShell(tools=[with_context])
    with pytest.raises(TypeError, match="functions or FunctionTools"):
        AmlaShell(tools=[42])  # type: ignore[list-item]


def test_importing_without_openai_agents_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "agents", None)
    monkeypatch.delitem(sys.modules, "amla_sandbox.integrations.openai_agents")
    with pytest.raises(ImportError, match=r'pip install "amla-sandbox\[openai-agents\]"'):
        importlib.import_module("amla_sandbox.integrations.openai_agents")
