"""OpenAI Agents SDK: `AmlaShell`, a `ShellTool` executor, and a function
tool that runs Python, both on one sandbox.

    from agents import Agent
    from amla_sandbox.integrations.openai_agents import AmlaShell

    shell = AmlaShell(tools=[lookup], max_calls={"lookup": 5})
    agent = Agent(name="analyst", tools=[shell.shell_tool(), shell.code_tool()])

Only models that emit shell calls use `ShellTool`; `code_tool()` is a plain
function tool (`run_python(code)`) any model can call. Both run in one
`keep_state` sandbox: the shell's working directory and variables, and
Python's variables, stay from one call to the next, and the files are the
same. The tools given stay on the host: Python code calls them as functions,
shell commands with the `tool` command, each call checked against its
capability first; a refused call is an error in the tool's output, which the
model reads. Needs `pip install "amla-sandbox[openai-agents]"`
(docs/integrations.md).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Sequence
from typing import Any

from ._session import CodeSession, SessionFacade, Constraints, HostTool, MaxCalls, host_tool_from_function, printed_value_removed, require
from ..runtime.runtime import DEFAULT_MEMORY_LIMIT, DEFAULT_TIMEOUT

require("agents", adapter="openai_agents", extra="openai-agents", framework="openai-agents")
from agents import FunctionTool, ShellTool, function_tool  # noqa: E402
from agents.tool import ShellCallOutcome, ShellCommandOutput, ShellCommandRequest, ShellResult  # noqa: E402

__all__ = ["AmlaShell"]

_CONTEXT_TYPES = ("RunContextWrapper", "ToolContext")


def _host_tool(tool: FunctionTool | Callable[..., Any]) -> HostTool:
    """A function tool's own function (`FunctionTool.__wrapped__`) with its
    name and schema, or a plain function."""
    if isinstance(tool, FunctionTool):
        try:
            fn = tool.__wrapped__
        except AttributeError:
            raise TypeError(
                f"function tool {tool.name!r} was not made by @function_tool from a Python function, "
                "so sandbox code cannot call it; pass the function itself"
            ) from None
        params = list(inspect.signature(fn).parameters.values())
        if params and any(c in str(params[0].annotation) for c in _CONTEXT_TYPES):
            raise TypeError(f"function tool {tool.name!r} takes the run context, which sandbox code cannot pass")
        return HostTool(name=tool.name, description=tool.description, parameters=tool.params_json_schema, call=fn)
    if not callable(tool):
        raise TypeError(f"tools must be functions or FunctionTools, got {type(tool).__name__}")
    return host_tool_from_function(tool)


def _text(stdout: str, stderr: str, note: str | None = None) -> str:
    """What a model reads of a run: stdout, then `[stderr]: …`, then the note."""
    parts = [p for p in (stdout, f"[stderr]: {stderr}" if stderr else "", note or "") if p]
    return "\n".join(parts) if parts else "(no output)"


class AmlaShell(SessionFacade):
    """A sandbox an OpenAI agent reaches through `ShellTool(executor=self)`
    (`shell_tool()`) and a `run_python` function tool (`code_tool()`).

    `tools` are functions (or `@function_tool` tools made from functions)
    the sandboxed code may call. `constraints` and `max_calls` are
    create_sandbox_tool's (the same DSL, per tool name; every tool gets a
    budget, `max_calls` or 100, over the object's life). `timeout`
    (seconds) and `memory_limit` (bytes) bound each command and snippet.
    Other keyword arguments go to `Sandbox` (`network=`, `disk_quota=`, ...).
    """

    def __init__(
        self,
        tools: Sequence[FunctionTool | Callable[..., Any]] = (),
        *,
        constraints: Constraints | None = None,
        max_calls: MaxCalls = None,
        timeout: float = DEFAULT_TIMEOUT,
        memory_limit: int = DEFAULT_MEMORY_LIMIT,
        **sandbox_options: Any,
    ) -> None:
        self._session = CodeSession(
            [_host_tool(t) for t in tools], constraints=constraints, max_calls=max_calls, timeout=timeout,
            memory_limit=memory_limit, sandbox_options=sandbox_options,
        )

    # -- ShellTool ----------------------------------------------------------------

    async def __call__(self, request: ShellCommandRequest) -> ShellResult:
        """The ShellExecutor: each command of the call in turn, in the
        session's shell (a `cd` or an exported variable stays for the next
        command and call), with its stdout, stderr and exit code. The call's
        `timeout_ms`, when shorter than the sandbox's timeout, stops a
        command (outcome "timeout"; the shell session then starts fresh)."""
        action = request.data.action
        limit = action.timeout_ms / 1000 if action.timeout_ms else None
        outputs = [await self._command(command, limit) for command in action.commands]
        return ShellResult(output=outputs, max_output_length=action.max_output_length)

    async def _command(self, command: str, limit: float | None) -> ShellCommandOutput:
        sb = self._session.sandbox
        try:
            run = sb.run_shell_async(command)
            result = await (asyncio.wait_for(run, limit) if limit is not None else run)
        except (asyncio.TimeoutError, TimeoutError) as e:
            sb.cancel()
            return ShellCommandOutput(stderr=f"timed out: {e}".rstrip(": "), command=command,
                                      outcome=ShellCallOutcome(type="timeout"))
        except Exception as e:  # the memory limit, a cancel
            return ShellCommandOutput(stderr=f"{type(e).__name__}: {e}", command=command,
                                      outcome=ShellCallOutcome(type="exit", exit_code=1))
        return ShellCommandOutput(stdout=result.stdout, stderr=result.stderr, command=command,
                                  outcome=ShellCallOutcome(type="exit", exit_code=result.exit_code))

    def shell_tool(self, **kwargs: Any) -> ShellTool:
        """`ShellTool(executor=self, **kwargs)`."""
        return ShellTool(executor=self, **kwargs)

    # -- the Python function tool -------------------------------------------------

    async def run_python(self, code: str) -> str:
        """Run Python in the session; the text the model reads: what the code
        printed, its stderr (a traceback, a refused tool call) and the value
        of its final expression."""
        try:
            result = await self._session.run_async(code)
        except Exception as e:  # a timeout, the memory limit, a cancel
            return _text("", "", f"[error]: {type(e).__name__}: {e}. The sandbox's variables were reset "
                                 "(files are kept).")
        out = printed_value_removed(result.stdout, result.return_value)
        value = f"[value]: {result.return_value!r}" if result.return_value is not None else None
        exit_note = f"[exit code]: {result.exit_code}" if result.exit_code else None
        return _text(out, result.stderr, "\n".join(p for p in (value, exit_note) if p) or None)

    def code_tool(self, *, name: str = "run_python", description: str | None = None) -> FunctionTool:
        """A function tool `name(code)` that runs Python in the sandbox; its
        description lists the functions the code can call."""

        async def run_python(code: str) -> str:
            return await self.run_python(code)

        return function_tool(run_python, name_override=name, description_override=description or self.describe())

    def describe(self) -> str:
        """The code tool's default description: how the code runs and the
        functions it can call, with their parameters."""
        lines = [
            "Run Python 3.13 code in a sandbox and return what it prints (and the value of its last "
            "expression). Variables, imports and functions persist between calls; files live in "
            "/workspace. No network unless granted."
        ]
        tools = self._session.tools
        if tools:
            lines.append("Functions the code can call (keyword or positional arguments; they return JSON data):")
            for t in tools:
                lines.append(f"- {t.name}({', '.join(t.parameter_names)}): {t.description}")
        return "\n".join(lines)

    # -- lifetime -----------------------------------------------------------------

