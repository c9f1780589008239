"""amla_sandbox.integrations.smolagents: a CodeAgent running its code in the
sandbox, driven by a scripted code model (a `Model` whose `generate` returns
the next `<code>` block, as smolagents' own tests fake a model)."""

from __future__ import annotations

import importlib
import sys
from typing import Any

import pytest

pytest.importorskip("smolagents", reason="smolagents is not installed (pip install \"amla-sandbox[smolagents]\")")

from smolagents import CodeAgent, tool  # noqa: E402
from smolagents.memory import ActionStep  # noqa: E402
from smolagents.models import ChatMessage, MessageRole, Model  # noqa: E402

from amla_sandbox.integrations.smolagents import AmlaExecutor  # noqa: E402


class ScriptedCodeModel(Model):
    """Answers each step with the next scripted message; records what the
    agent showed it (the previous step's observation or error)."""

    def __init__(self, steps: list[str]) -> None:
        super().__init__(model_id="scripted")
        self.steps = list(steps)
        self.seen: list[str] = []

    def generate(self, messages: list[Any], stop_sequences: Any = None, response_format: Any = None,
                 tools_to_call_from: Any = None, **kwargs: Any) -> ChatMessage:
        last = messages[-1]
        content = last.content if isinstance(last, ChatMessage) else last["content"]
        self.seen.append(content if isinstance(content, str) else " ".join(c.get("text", "") for c in content))
        return ChatMessage(role=MessageRole.ASSISTANT, content=self.steps.pop(0))


def code(body: str) -> str:
    return f"Thought: next step.\n<code>\n{body}\n</code>"


calls: list[tuple[str, int]] = []


@tool
def lookup(city: str, limit: int = 2) -> str:
    """Look up a city.

    Args:
        city: The city's name.
        limit: How many results.
    """
    calls.append((city, limit))
    return f"{city}:{limit}"


@tool
def transfer(amount: int) -> str:
    """Move money.

    Args:
        amount: How much.
    """
    calls.append(("transfer", amount))
    return f"sent {amount}"


@pytest.fixture(autouse=True)
def _fresh_calls() -> None:
    calls.clear()


def errors(agent: CodeAgent) -> list[str]:
    return [str(s.error) for s in agent.memory.steps if isinstance(s, ActionStep) and s.error is not None]


def test_variables_persist_tools_stay_on_the_host_and_final_answer_returns() -> None:
    model = ScriptedCodeModel([
        code("x = lookup('Paris')\nprint(x)\nimport statistics\ndef half(v):\n    return v / 2"),
        code("y = lookup(city='Rome', limit=3)\nstatistics.mean([1, 3])"),
        code("final_answer({'x': x, 'y': y, 'half': half(84)})"),
    ])
    with AmlaExecutor() as executor:
        agent = CodeAgent(tools=[lookup], model=model, executor=executor, verbosity_level=0)
        answer = agent.run("collect")
        assert answer == {"x": "Paris:2", "y": "Rome:3", "half": 42.0}
        assert calls == [("Paris", 2), ("Rome", 3)]  # called on the host, positional and keyword
        steps = [s for s in agent.memory.steps if isinstance(s, ActionStep)]
        assert "Paris:2" in steps[0].observations
        # the final expression is the step's output, not repeated in its logs
        assert steps[1].action_output == 2
        assert steps[1].observations == "Execution logs:\nLast output from code snippet:\n2"
        assert steps[2].is_final_answer
        assert errors(agent) == []


def test_a_refused_call_and_an_exhausted_budget_are_step_errors_the_agent_recovers_from() -> None:
    model = ScriptedCodeModel([
        code("transfer(5000)"),                      # refused: amount <= 1000
        code("transfer(10)\nprint('one')"),
        code("transfer(20)"),                        # budget of 1 spent
        code("final_answer('stopped')"),
    ])
    executor = AmlaExecutor(constraints={"transfer": {"amount": "<=1000"}}, max_calls={"transfer": 1})
    agent = CodeAgent(tools=[transfer], model=model, executor=executor, verbosity_level=0)
    try:
        assert agent.run("pay") == "stopped"
    finally:
        agent.cleanup()
    assert calls == [("transfer", 10)]  # neither refused call reached the tool
    refused, exhausted = errors(agent)
    assert "ToolDenied" in refused and "permission_denied" in refused and "amount" in refused
    assert "Call limit exceeded" in exhausted
    # the model was shown each error in its next step
    assert any("Call limit exceeded" in seen for seen in model.seen)


def test_a_failing_tool_and_a_failing_snippet_keep_the_logs_and_the_traceback() -> None:
    @tool
    def broken(x: int) -> str:
        """Always fails.

        Args:
            x: Anything.
        """
        raise ValueError(f"broken on {x}")

    model = ScriptedCodeModel([
        code("print('before')\nbroken(7)"),
        code("print(1 / 0)"),
        code("final_answer(3)"),
    ])
    with AmlaExecutor() as executor:
        agent = CodeAgent(tools=[broken], model=model, executor=executor, verbosity_level=0)
        assert agent.run("try") == 3
    tool_error, zero = errors(agent)
    assert "Execution logs:\nbefore" in tool_error and "broken on 7" in tool_error
    assert "ZeroDivisionError" in zero


def test_additional_args_become_variables_and_non_json_ones_are_refused() -> None:
    model = ScriptedCodeModel([code("final_answer(sum(numbers) * factor)")])
    with AmlaExecutor() as executor:
        agent = CodeAgent(tools=[], model=model, executor=executor, verbosity_level=0)
        assert agent.run("add", additional_args={"numbers": [1, 2, 3], "factor": 7}) == 42
        with pytest.raises(TypeError, match="variable 'when'"):
            executor.send_variables({"when": object()})


def test_a_timeout_resets_the_session_and_the_agent_goes_on() -> None:
    model = ScriptedCodeModel([
        code("kept = 1"),
        code("while True:\n    pass"),
        code("print('kept' in globals())"),
        code("final_answer(lookup('Oslo'))"),  # the tool functions are defined again
    ])
    with AmlaExecutor(timeout=0.5) as executor:
        agent = CodeAgent(tools=[lookup], model=model, executor=executor, verbosity_level=0)
        assert agent.run("spin") == "Oslo:2"
        steps = [s for s in agent.memory.steps if isinstance(s, ActionStep)]
    assert "variables were reset" in str(steps[1].error)
    assert "False" in steps[2].observations


def test_the_executor_alone_and_its_files() -> None:
    with AmlaExecutor() as executor:
        executor.send_tools({})
        out = executor("import os\nopen('notes.txt', 'w').write('hi')\nos.listdir('.')")
        assert out.output == ["notes.txt"] and not out.is_final_answer
        assert executor.sandbox.files.read("/workspace/notes.txt") == b"hi"
        executor.reset()
        with pytest.raises(Exception, match="NameError"):
            executor("os")


def test_tools_changed_between_runs_keep_spent_budgets() -> None:
    with AmlaExecutor(max_calls={"lookup": 1}) as executor:
        executor.send_tools({"lookup": lookup})
        assert executor("lookup('Oslo')").output == "Oslo:2"
        executor.send_tools({"lookup": lookup, "transfer": transfer})
        assert executor("transfer(3)").output == "sent 3"
        with pytest.raises(Exception, match="Call limit exceeded"):
            executor("lookup('Rome')")
        with pytest.warns(UserWarning, match="max_calls names no tool 'lookup'"):
            executor.send_tools({"transfer": transfer})
        # The session keeps its variables, the adapter's lookup function
        # included; the tool behind it is gone.
        with pytest.raises(Exception, match="NameError: Unknown tool: lookup"):
            executor("lookup('Rome')")
    assert calls == [("Oslo", 2), ("transfer", 3)]


def test_importing_without_smolagents_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "smolagents", None)
    monkeypatch.delitem(sys.modules, "amla_sandbox.integrations.smolagents")
    with pytest.raises(ImportError, match=r'pip install "amla-sandbox\[smolagents\]"'):
        importlib.import_module("amla_sandbox.integrations.smolagents")
