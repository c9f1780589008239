"""The Strands sandbox (`Agent(sandbox=AmlaStrandsSandbox(...))`) driven by a
scripted model provider, the way Strands' own tests fake a model (a
`strands.models.Model` that streams prepared assistant messages), plus the
sandbox's operations on their own.

strands-agents 1.62.0 requires mcp<2.2, and the test extra pins mcp==2.3.0,
so these tests run where the `strands` extra is installed instead; the main
suite runs this file in a venv of that extra alone (test_isolated_frameworks.py)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncGenerator, Iterator
from typing import Any

import pytest

pytest.importorskip("strands", reason='Strands Agents is not installed: pip install "amla-sandbox[strands]"')

from strands import Agent  # noqa: E402
from strands.models import Model  # noqa: E402
from strands.sandbox.errors import SandboxPathNotFoundError, SandboxTimeoutError  # noqa: E402

from amla_sandbox import ToolCallCap  # noqa: E402
from amla_sandbox.integrations.strands import AmlaStrandsSandbox  # noqa: E402
from amla_sandbox.tools import ToolDefinition  # noqa: E402


class ScriptedModel(Model):
    """Answers each model call with the next prepared assistant message
    (text and toolUse blocks), as stream events."""

    def __init__(self, replies: list[dict[str, Any]]) -> None:
        self.replies = list(replies)

    def update_config(self, **config: Any) -> None:
        pass

    def get_config(self) -> Any:
        return {}

    async def structured_output(self, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
        raise NotImplementedError
        yield  # pragma: no cover

    async def stream(self, messages: Any, tool_specs: Any = None, system_prompt: Any = None, **kwargs: Any) -> AsyncGenerator[Any, None]:
        reply = self.replies.pop(0)
        yield {"messageStart": {"role": "assistant"}}
        stop = "end_turn"
        for block in reply["content"]:
            if "text" in block:
                yield {"contentBlockStart": {"start": {}}}
                yield {"contentBlockDelta": {"delta": {"text": block["text"]}}}
            else:
                use = block["toolUse"]
                stop = "tool_use"
                yield {"contentBlockStart": {"start": {"toolUse": {"name": use["name"], "toolUseId": use["toolUseId"]}}}}
                yield {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps(use["input"])}}}}
            yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": stop}}


def use(tool: str, n: int, **inputs: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"toolUse": {"name": tool, "toolUseId": f"t{n}", "input": inputs}}]}


@pytest.fixture
def box() -> Iterator[tuple[AmlaStrandsSandbox, list[dict[str, Any]]]]:
    calls: list[dict[str, Any]] = []

    def handler(method: str, params: dict[str, Any]) -> Any:
        calls.append(params)
        return params["a"] + params["b"]

    tools = [
        ToolDefinition(
            name="add",
            description="Add two integers.",
            parameters={"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}},
        ),
        ToolDefinition(name="wipe", description="Not granted.", parameters={"type": "object"}),
    ]
    sandbox = AmlaStrandsSandbox(
        tools=tools, tool_handler=handler, capabilities=[ToolCallCap("mcp:add", max_calls=1)], timeout=30
    )
    try:
        yield sandbox, calls
    finally:
        sandbox.close()


def results(agent: Agent) -> dict[str, str]:
    out = {}
    for message in agent.messages:
        for block in message["content"]:
            if "toolResult" in block:
                r = block["toolResult"]
                out[r["toolUseId"]] = r["status"] + ": " + " ".join(c.get("text", json.dumps(c.get("json"))) for c in r["content"])
    return out


def test_an_agent_uses_the_vended_tools_under_capabilities_and_budgets(box: Any) -> None:
    sandbox, calls = box
    model = ScriptedModel(
        [
            use("shell", 1, command="tool add --a 1 --b 2 | tee /workspace/sum.txt"),
            use("shell", 2, command="tool add --a 3 --b 4"),  # over the budget
            use("python_repl", 3, code="print(open('/workspace/sum.txt').read().strip())\ncall_tool('wipe')"),
            {"role": "assistant", "content": [{"text": "done"}]},
        ]
    )
    agent = Agent(model=model, sandbox=sandbox, callback_handler=None)
    reply = agent("add things")
    assert str(reply).strip() == "done"
    r = results(agent)
    assert r["t1"].startswith("success") and '"exit_code": 0' in r["t1"] and "3" in r["t1"]
    assert '"exit_code": 1' in r["t2"] and "Call limit exceeded" in r["t2"]
    assert "3" in r["t3"] and "mcp:wipe" in r["t3"] and '"exit_code": 1' in r["t3"]
    assert calls == [{"a": 1, "b": 2}]


def test_operations(box: Any) -> None:
    sandbox, _ = box

    async def go() -> None:
        await sandbox.write_text("/workspace/d/a.txt", "hello")
        assert await sandbox.read_text("/workspace/d/a.txt") == "hello"
        assert [(f.name, f.is_dir, f.size) for f in await sandbox.list_files("/workspace/d")] == [("a.txt", False, 5)]
        r = await sandbox.execute("pwd; echo $X; echo e >&2; exit 4", cwd="/workspace/d", env={"X": "y"})
        assert (r.exit_code, r.stdout, r.stderr) == (4, "/workspace/d\ny\n", "e\n")
        r = await sandbox.execute_code("import os\nprint(os.getcwd())", "python3", cwd="/workspace/d")
        assert (r.exit_code, r.stdout) == (0, "/workspace/d\n")
        r = await sandbox.execute_code('echo "$X"', "sh", env={"X": "z"})
        assert (r.exit_code, r.stdout) == (0, "z\n")
        r = await sandbox.execute_code("console.log(6 * 7)", "node")
        assert r.stdout == "42\n"
        r = await sandbox.execute_code("1", "ruby")
        assert r.exit_code == 127
        with pytest.raises(SandboxTimeoutError):
            await sandbox.execute("while true; do :; done", timeout=1)
        assert (await sandbox.execute("echo alive")).stdout == "alive\n"
        await sandbox.remove_file("/workspace/d/a.txt")
        with pytest.raises(FileNotFoundError):
            await sandbox.read_file("/workspace/d/a.txt")
        with pytest.raises(SandboxPathNotFoundError):
            await sandbox.list_files("/workspace/missing")
        with pytest.raises(PermissionError):
            await sandbox.write_file("/etc/passwd", b"x")

    asyncio.run(go())


def test_import_without_strands_names_the_extra() -> None:
    code = (
        "import sys; sys.modules['strands'] = None\n"
        "try:\n    import amla_sandbox.integrations.strands\n"
        "except ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ), timeout=60)
    assert 'pip install "amla-sandbox[strands]"' in out.stdout, out.stderr
