"""amla_sandbox.integrations.llama_index: CodeActAgent running its code in
the sandbox, driven by LlamaIndex's own MockFunctionCallingLLM with a
scripted response generator."""

from __future__ import annotations

import asyncio
import importlib
import sys
from typing import Any

import pytest

pytest.importorskip("llama_index.core", reason="llama-index-core is not installed (pip install \"amla-sandbox[llama-index]\")")

from llama_index.core.agent.workflow import CodeActAgent  # noqa: E402
from llama_index.core.llms import ChatMessage  # noqa: E402
from llama_index.core.llms.mock import MockFunctionCallingLLM  # noqa: E402
from llama_index.core.tools import FunctionTool  # noqa: E402

from amla_sandbox.integrations.llama_index import AmlaCodeExecutor  # noqa: E402


class Script:
    """A response generator answering each LLM call with the next scripted
    reply, recording the last message it was shown."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.seen: list[str] = []

    def __call__(self, messages: list[ChatMessage], **kwargs: Any) -> ChatMessage:
        self.seen.append(messages[-1].content or "")
        return ChatMessage(role="assistant", content=self.replies.pop(0))


calls: list[Any] = []


def add(a: int, b: int) -> int:
    """Add two numbers."""
    calls.append(("add", a, b))
    return a + b


async def lookup(city: str) -> dict[str, Any]:
    """Look up a city (an async tool)."""
    calls.append(("lookup", city))
    return {"city": city, "temp": 21}


def transfer(amount: int) -> str:
    """Move money."""
    calls.append(("transfer", amount))
    return f"sent {amount}"


@pytest.fixture(autouse=True)
def _fresh_calls() -> None:
    calls.clear()


def run_agent(executor: AmlaCodeExecutor, tools: list[Any], replies: list[str], task: str) -> tuple[str, Script]:
    script = Script(replies)
    agent = CodeActAgent(code_execute_fn=executor.execute, tools=list(tools),
                         llm=MockFunctionCallingLLM(response_generator=script))

    async def go() -> str:
        return str(await agent.run(user_msg=task))

    return asyncio.run(go()), script


def test_variables_persist_between_snippets_and_tools_stay_on_the_host() -> None:
    replies = [
        "<execute>\nx = add(2, 3)\nw = lookup('Paris')\nprint(x, w['temp'])\n</execute>",
        "<execute>\nx * 2 + w['temp']\n</execute>",
        "The answer is 31.",
    ]
    with AmlaCodeExecutor(tools=[add, FunctionTool.from_defaults(lookup)]) as executor:
        answer, script = run_agent(executor, [add, lookup], replies, "compute")
    assert answer.endswith("The answer is 31.")
    assert calls == [("add", 2, 3), ("lookup", "Paris")]
    first, second = script.seen[1], script.seen[2]
    assert first.startswith("Result of executing the code given:") and "'stdout': '5 21\\n'" in first
    assert "'return_value': 31" in second and "'exit_code': 0" in second


def test_a_refused_call_and_an_exhausted_budget_reach_the_agent_as_errors() -> None:
    replies = [
        "<execute>\ntransfer(5000)\n</execute>",
        "<execute>\ntransfer(amount=10)\n</execute>",
        "<execute>\ntransfer(20)\n</execute>",
        "Stopped.",
    ]
    executor = AmlaCodeExecutor(tools=[transfer], constraints={"transfer": {"amount": "<=1000"}},
                                max_calls={"transfer": 1})
    try:
        answer, script = run_agent(executor, [transfer], replies, "pay")
    finally:
        executor.close()
    assert answer.endswith("Stopped.")
    assert calls == [("transfer", 10)]
    refused, ok, exhausted = script.seen[1:4]
    assert "ToolDenied" in refused and "permission_denied" in refused and "'exit_code': 1" in refused
    assert "'return_value': 'sent 10'" in ok
    assert "Call limit exceeded" in exhausted


def test_execute_reports_a_timeout_and_the_session_starts_fresh() -> None:
    async def go() -> list[dict[str, Any]]:
        with AmlaCodeExecutor(timeout=0.5) as executor:
            return [await executor.execute(code) for code in ("kept = 1", "while True:\n    pass", "'kept' in globals()")]

    _, spun, after = asyncio.run(go())
    assert spun["exit_code"] == 1 and "TimeoutError" in spun["stderr"] and "reset" in spun["stderr"]
    assert after["return_value"] is False


def test_what_codeact_cannot_call_is_refused() -> None:
    with pytest.raises(TypeError, match="functions or FunctionTools"):
        AmlaCodeExecutor(tools=[object()])  # type: ignore[list-item]


def test_importing_without_llama_index_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_index.core.tools", None)
    monkeypatch.delitem(sys.modules, "amla_sandbox.integrations.llama_index")
    with pytest.raises(ImportError, match=r'pip install "amla-sandbox\[llama-index\]"'):
        importlib.import_module("amla_sandbox.integrations.llama_index")
