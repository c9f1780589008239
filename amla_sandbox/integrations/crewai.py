"""CrewAI: `AmlaCodeTool`, a `BaseTool` that runs Python in an amla sandbox.

    from crewai import Agent
    from amla_sandbox.integrations.crewai import AmlaCodeTool

    code = AmlaCodeTool(tools=[search], max_calls={"search": 5})
    analyst = Agent(role="Analyst", goal="...", backstory="...", tools=[code])

CrewAI's own code interpreter tool was removed; this one runs the agent's
code in a `keep_state` sandbox (variables stay from one call to the next).
The tools given (CrewAI tools or functions) stay on the host: the code calls
them as Python functions (a tool named "Search the web" is
`search_the_web(...)`), each call checked against its capability first; a
refused call is an error in the tool's answer, which the agent reads.
Needs `pip install "amla-sandbox[crewai]"` (docs/integrations.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ._session import CodeSession, Constraints, HostTool, MaxCalls, host_tool_from_function, printed_value_removed, require
from ..runtime.runtime import DEFAULT_MEMORY_LIMIT, DEFAULT_TIMEOUT

require("crewai.tools", adapter="crewai", extra="crewai", framework="crewai")
from crewai.tools import BaseTool  # noqa: E402
from pydantic import BaseModel, Field, PrivateAttr  # noqa: E402

__all__ = ["AmlaCodeTool", "python_name"]


def python_name(name: str) -> str:
    """The Python function name sandbox code calls a CrewAI tool by: its
    name in lower case, each run of other characters than letters and
    digits made one `_` ("Search the web" -> `search_the_web`)."""
    ident = re.sub(r"[^0-9a-zA-Z]+", "_", name).strip("_").lower()
    if not ident:
        raise ValueError(f"tool name {name!r} has no letters or digits to make a Python name of")
    return "tool_" + ident if ident[0].isdigit() else ident


def _host_tool(tool: BaseTool | Callable[..., Any]) -> HostTool:
    if isinstance(tool, BaseTool):
        def call(**arguments: Any) -> Any:
            result = tool.run(**arguments)
            message = getattr(result, "message", None)
            if type(result).__name__ == "ToolFailure" and isinstance(message, str):
                raise RuntimeError(message)  # a CrewAI usage limit: the code gets a ToolError
            return result

        schema = tool.args_schema.model_json_schema() if tool.args_schema is not None else {"type": "object"}
        return HostTool(name=python_name(tool.name), description=tool.description, parameters=schema, call=call)
    if not callable(tool):
        raise TypeError(f"tools must be CrewAI tools or functions, got {type(tool).__name__}")
    return host_tool_from_function(tool)


class _CodeInput(BaseModel):
    code: str = Field(description="Python code to run; print what you need to see")


_DESCRIPTION = (
    "Runs Python 3.13 code in a sandbox and answers with what it prints (and the value of its last "
    "expression). Variables, imports and functions persist between calls; files live in /workspace."
)


class AmlaCodeTool(BaseTool):
    """A CrewAI tool that runs Python in a `keep_state` amla sandbox.

    `tools` are CrewAI tools or functions the code may call. `constraints`
    and `max_calls` are create_sandbox_tool's (the same DSL, keyed by the
    Python name; every tool gets a budget, `max_calls` or 100, over the
    tool's life). `timeout` (seconds) and `memory_limit` (bytes) bound each
    snippet; `sandbox_options` go to `Sandbox` (`network=`, ...). Other
    keyword arguments are BaseTool fields (`name`, `description`, ...).
    """

    name: str = "Run Python code"
    description: str = _DESCRIPTION
    args_schema: type[BaseModel] = _CodeInput
    _session: CodeSession = PrivateAttr()

    def __init__(
        self,
        tools: Sequence[BaseTool | Callable[..., Any]] = (),
        *,
        constraints: Constraints | None = None,
        max_calls: MaxCalls = None,
        timeout: float = DEFAULT_TIMEOUT,
        memory_limit: int = DEFAULT_MEMORY_LIMIT,
        sandbox_options: Mapping[str, Any] | None = None,
        **fields: Any,
    ) -> None:
        host = [_host_tool(t) for t in tools]
        if "description" not in fields and host:
            lines = [_DESCRIPTION, "Functions the code can call (keyword or positional arguments):"]
            lines += [f"- {t.name}({', '.join(t.parameter_names)}): {t.description}" for t in host]
            fields["description"] = "\n".join(lines)
        super().__init__(**fields)
        self._session = CodeSession(host, constraints=constraints, max_calls=max_calls, timeout=timeout,
                                    memory_limit=memory_limit, sandbox_options=sandbox_options)

    def _run(self, code: str) -> str:
        """Run the code; the text the agent reads: what it printed, its
        stderr (a traceback, a refused tool call), the value of its final
        expression and its exit code when not 0. Never raises for the
        code's sake."""
        try:
            result = self._session.run(code)
        except Exception as e:  # a timeout, the memory limit, a cancel
            return f"[error]: {type(e).__name__}: {e}. The sandbox's variables were reset (files are kept)."
        parts = [printed_value_removed(result.stdout, result.return_value)]
        if result.stderr:
            parts.append(f"[stderr]: {result.stderr}")
        if result.return_value is not None:
            parts.append(f"[value]: {result.return_value!r}")
        if result.exit_code:
            parts.append(f"[exit code]: {result.exit_code}")
        return "\n".join(p for p in parts if p) or "(no output)"

    @property
    def sandbox(self) -> Any:
        """The `amla_sandbox.Sandbox` the code runs in (files: `sandbox.files`)."""
        return self._session.sandbox

    def reset(self) -> None:
        """Drop the code's variables, imports and definitions; files and
        budgets stay."""
        self._session.reset()

    def close(self) -> None:
        self._session.close()
