"""The Pydantic AI workspace backend (`AmlaWorkspaceBackend`) against
pydantic-ai's own conformance suite (`WorkspaceBackendSuite`), and an agent
driven by pydantic-ai's `FunctionModel` using it under capabilities and
budgets."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

pytest.importorskip("pydantic_ai", reason='Pydantic AI is not installed: pip install "amla-sandbox[pydantic-ai]"')

import anyio  # noqa: E402
from pydantic_ai import Agent, RunContext  # noqa: E402
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart  # noqa: E402
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402
from pydantic_ai.workspaces import WorkspaceBackend, WorkspaceRef, WorkspaceUnavailableError  # noqa: E402
from pydantic_ai.workspaces.conformance import WorkspaceBackendSuite  # noqa: E402

from amla_sandbox import ToolCallCap  # noqa: E402
from amla_sandbox.integrations.pydantic_ai import AmlaWorkspace, AmlaWorkspaceBackend  # noqa: E402
from amla_sandbox.tools import ToolDefinition  # noqa: E402


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class TestAmlaWorkspaceBackendConformance(WorkspaceBackendSuite):
    @pytest.fixture
    async def backend(self) -> AsyncIterator[WorkspaceBackend]:
        backend = AmlaWorkspaceBackend(timeout=60)
        try:
            yield backend
        finally:
            await backend.delete()

    @pytest.fixture
    def fresh_backend(self) -> Callable[[], WorkspaceBackend]:
        return lambda: AmlaWorkspaceBackend(timeout=60)

    @pytest.fixture
    def attach_backend(self) -> Callable[[WorkspaceRef], WorkspaceBackend]:
        return lambda ref: AmlaWorkspaceBackend(ref=ref)

    @pytest.fixture
    def destroy_environment(self) -> Callable[[WorkspaceBackend], Awaitable[None]]:
        async def destroy(backend: WorkspaceBackend) -> None:
            assert isinstance(backend, AmlaWorkspaceBackend)
            await backend.delete()

        return destroy

    # What a sandbox without processes or permission bits cannot do; the
    # rest of the suite runs as written.
    @pytest.fixture
    def filesystem_honors_shell_permissions(self) -> bool:
        return False  # the sandbox's files have no permission bits (no chmod): nothing to honour

    @pytest.mark.xfail(reason="no background jobs: the sandbox runs no other processes ('&' is refused)", strict=True)
    async def test_background_child_does_not_hold_up_completed_command(
        self, backend: WorkspaceBackend, has_real_posix_shell: bool, can_detect_exit_with_inherited_output_pipes: bool
    ) -> None:
        await WorkspaceBackendSuite.test_background_child_does_not_hold_up_completed_command(
            self, backend, has_real_posix_shell, can_detect_exit_with_inherited_output_pipes
        )

    @pytest.mark.xfail(reason="no detached processes: the sandbox has no setsid and no '&'", strict=True)
    async def test_a_backend_attached_by_ref_reaches_a_detached_process(
        self,
        backend: WorkspaceBackend,
        attach_backend: Callable[[WorkspaceRef], WorkspaceBackend] | None,
        has_real_posix_shell: bool,
    ) -> None:
        await WorkspaceBackendSuite.test_a_backend_attached_by_ref_reaches_a_detached_process(
            self, backend, attach_backend, has_real_posix_shell
        )


def test_an_agent_works_in_the_sandbox_under_capabilities_and_budgets() -> None:
    calls: list[dict[str, Any]] = []

    def handler(method: str, params: dict[str, Any]) -> Any:
        calls.append(params)
        return params["a"] + params["b"]

    add = ToolDefinition(
        name="add",
        description="Add two integers.",
        parameters={"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}},
    )
    commands = [
        "tool add --a 1 --b 2 > /workspace/sum.txt; cat /workspace/sum.txt",
        "tool add --a 3 --b 4",  # over the budget of one call
        "tool wipe",  # no capability
    ]

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        done = sum(isinstance(p, ToolReturnPart) for m in messages for p in getattr(m, "parts", []))
        if done < len(commands):
            return ModelResponse(parts=[ToolCallPart("shell", {"command": commands[done]}, tool_call_id=f"c{done}")])
        return ModelResponse(parts=[TextPart("done")])

    agent = Agent(
        FunctionModel(model),
        capabilities=[
            AmlaWorkspace(
                tools=[add, ToolDefinition(name="wipe", description="Not granted.", parameters={"type": "object"})],
                tool_handler=handler,
                capabilities=[ToolCallCap("mcp:add", max_calls=1)],
                timeout=30,
            )
        ],
    )

    @agent.tool
    async def shell(ctx: RunContext[None], command: str) -> str:
        """Run a shell command in the workspace."""
        r = await ctx.workspace.run(command, shell=True)
        return f"exit {r.exit_code}\n{r.stdout}{r.stderr}"

    result = agent.run_sync("add things")
    returns = [p.content for m in result.all_messages() for p in getattr(m, "parts", []) if isinstance(p, ToolReturnPart)]
    assert returns[0] == "exit 0\n3\n"
    assert returns[1].startswith("exit 1") and "Call limit exceeded" in returns[1]
    assert "mcp:wipe" in returns[2] and not returns[2].startswith("exit 0")
    assert calls == [{"a": 1, "b": 2}]
    assert result.output == "done"
    # The run's workspace is a live sandbox its ref names: a later run (or
    # backend) continues there, with the file the first command wrote.
    ref = result.all_messages()[-1].workspace_ref
    assert ref is not None and ref.provider == "amla-sandbox"
    backend = AmlaWorkspaceBackend(ref=ref)
    assert backend.sandbox.files.read("/workspace/sum.txt") == b"3\n"
    anyio.run(backend.delete)
    with pytest.raises(WorkspaceUnavailableError):
        anyio.run(AmlaWorkspaceBackend(ref=ref).working_dir)


def test_import_without_pydantic_ai_names_the_extra() -> None:
    code = (
        "import sys; sys.modules['pydantic_ai'] = None\n"
        "try:\n    import amla_sandbox.integrations.pydantic_ai\n"
        "except ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ), timeout=60)
    assert 'pip install "amla-sandbox[pydantic-ai]"' in out.stdout, out.stderr
