"""amla_sandbox.integrations.crewai: a Crew whose agent runs Python through
AmlaCodeTool, driven by a scripted LLM (a `BaseLLM` subclass, CrewAI's way
of plugging in a custom model) answering in CrewAI's ReAct text format."""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any

import pytest

pytest.importorskip("crewai", reason="crewai is not installed (pip install \"amla-sandbox[crewai]\")")

from crewai import Agent, Crew, Task  # noqa: E402
from crewai.llms.base_llm import BaseLLM  # noqa: E402
from crewai.tools import tool  # noqa: E402

from amla_sandbox.integrations.crewai import AmlaCodeTool, python_name  # noqa: E402

calls: list[Any] = []


@tool("Look up city")
def lookup(city: str) -> str:
    """Look up a city."""
    calls.append(("lookup", city))
    return f"{city}: 21"


def transfer(amount: int) -> str:
    """Move money (a plain function)."""
    calls.append(("transfer", amount))
    return f"sent {amount}"


@pytest.fixture(autouse=True)
def _quiet_crews(monkeypatch: pytest.MonkeyPatch) -> None:
    """No telemetry or trace export from the crews under test."""
    calls.clear()
    monkeypatch.setenv("CREWAI_DISABLE_TELEMETRY", "true")
    monkeypatch.setenv("CREWAI_TRACING_ENABLED", "false")


class ScriptedLLM(BaseLLM):
    """Answers each call with the next scripted reply; keeps the messages
    it was sent."""

    replies: list[str] = []
    seen: list[str] = []

    def call(self, messages: Any, tools: Any = None, callbacks: Any = None, available_functions: Any = None,
             from_task: Any = None, from_agent: Any = None, response_model: Any = None) -> str:
        self.seen.append(messages if isinstance(messages, str) else "\n".join(str(m.get("content")) for m in messages))
        return self.replies.pop(0)

    def supports_function_calling(self) -> bool:
        return False


def act(source: str) -> str:
    return f"Thought: run it\nAction: Run Python code\nAction Input: {json.dumps({'code': source})}"


def kickoff(code_tool: AmlaCodeTool, replies: list[str]) -> tuple[str, ScriptedLLM]:
    llm = ScriptedLLM(model="scripted", replies=[*replies, "Thought: done\nFinal Answer: finished"], seen=[])
    agent = Agent(role="Analyst", goal="Answer", backstory="Careful", tools=[code_tool], llm=llm, verbose=False)
    task = Task(description="Work it out", expected_output="text", agent=agent)
    out = Crew(agents=[agent], tasks=[task], verbose=False).kickoff()
    return out.raw, llm


def test_variables_persist_and_tools_stay_on_the_host() -> None:
    code_tool = AmlaCodeTool(tools=[lookup, transfer])
    try:
        answer, llm = kickoff(code_tool, [act("x = look_up_city('Paris')\nprint(x)"), act("x.upper()")])
    finally:
        code_tool.close()
    assert answer == "finished"
    assert calls == [("lookup", "Paris")]
    assert "Paris: 21" in llm.seen[1]
    assert "[value]: 'PARIS: 21'" in llm.seen[2]
    assert "- look_up_city(city): Look up a city." in code_tool.description
    assert "- transfer(amount): Move money (a plain function)." in code_tool.description


def test_a_refused_call_and_an_exhausted_budget_reach_the_agent_as_the_tools_answer() -> None:
    code_tool = AmlaCodeTool(tools=[transfer], constraints={"transfer": {"amount": "<=1000"}},
                             max_calls={"transfer": 1})
    try:
        answer, llm = kickoff(code_tool, [act("transfer(5000)"), act("transfer(10)"), act("transfer(amount=20)")])
    finally:
        code_tool.close()
    assert answer == "finished"
    assert calls == [("transfer", 10)]
    assert "ToolDenied" in llm.seen[1] and "permission_denied" in llm.seen[1] and "[exit code]: 1" in llm.seen[1]
    assert "[value]: 'sent 10'" in llm.seen[2]
    assert "Call limit exceeded" in llm.seen[3]


def test_the_tool_alone_a_timeout_and_names() -> None:
    code_tool = AmlaCodeTool(timeout=0.5)
    try:
        assert code_tool.run(code="kept = 2\nkept * 21") == "[value]: 42"
        assert "TimeoutError" in code_tool.run(code="while True:\n    pass")
        assert "[value]: False" in code_tool.run(code="'kept' in globals()")
    finally:
        code_tool.close()
    assert python_name("Search the web!") == "search_the_web"
    assert python_name("2nd opinion") == "tool_2nd_opinion"


def test_importing_without_crewai_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "crewai.tools", None)
    monkeypatch.delitem(sys.modules, "amla_sandbox.integrations.crewai")
    with pytest.raises(ImportError, match=r'pip install "amla-sandbox\[crewai\]"'):
        importlib.import_module("amla_sandbox.integrations.crewai")
