"""LlamaIndex: `AmlaCodeExecutor`, whose `execute` is a `code_execute_fn`
for `CodeActAgent`.

    from llama_index.core.agent.workflow import CodeActAgent
    from amla_sandbox.integrations.llama_index import AmlaCodeExecutor

    executor = AmlaCodeExecutor(tools=[add, lookup], max_calls={"lookup": 5})
    agent = CodeActAgent(code_execute_fn=executor.execute, tools=[add, lookup], llm=llm)

The code runs in a `keep_state` sandbox, so variables defined by one snippet
are there for the next, as the CodeAct prompt promises. The tools stay on
the host: the code calls them by the names and signatures the prompt shows
(`add(2, 3)`), each call checked against its capability first; a refused
call is a `ToolDenied` error in the code's result, which the agent reads.
Needs `pip install "amla-sandbox[llama-index]"` (docs/integrations.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._session import CodeSession, SessionFacade, Constraints, HostTool, MaxCalls, host_tool_from_function, printed_value_removed, require
from ..runtime.runtime import DEFAULT_MEMORY_LIMIT, DEFAULT_TIMEOUT

require("llama_index.core.tools", adapter="llama_index", extra="llama-index", framework="llama-index-core")
from llama_index.core.tools import BaseTool, FunctionTool  # noqa: E402

__all__ = ["AmlaCodeExecutor"]


def _host_tool(tool: BaseTool | Callable[..., Any]) -> HostTool:
    """A tool as CodeActAgent describes it to the model: a function named by
    its Python name (`def {fn.__name__}{signature}`), called with the
    arguments the code passes."""
    if isinstance(tool, FunctionTool):
        if tool.requires_context:
            raise ValueError(
                f"tool {tool.metadata.name!r} requires a context; CodeActAgent's code can call only tools "
                "that do not"
            )
        fn = tool.real_fn
        return host_tool_from_function(fn, name=getattr(fn, "__name__", None) or tool.metadata.name)
    if isinstance(tool, BaseTool):
        raise TypeError(
            f"tool {tool.metadata.name!r} is a {type(tool).__name__}; CodeActAgent's code can call only "
            "functions and FunctionTools"
        )
    if not callable(tool):
        raise TypeError(f"tools must be functions or FunctionTools, got {type(tool).__name__}")
    return host_tool_from_function(tool)


class AmlaCodeExecutor(SessionFacade):
    """Runs a CodeActAgent's code in a `keep_state` amla sandbox.

    `tools` are the functions (or FunctionTools) the code may call: give
    the agent the same list. `constraints` and `max_calls` are
    create_sandbox_tool's (the same DSL, per tool name; every tool gets a
    budget, `max_calls` or 100, over the executor's life). `timeout`
    (seconds) and `memory_limit` (bytes) bound each snippet. Other keyword
    arguments go to `Sandbox` (`network=`, `disk_quota=`, ...).
    """

    def __init__(
        self,
        tools: Sequence[BaseTool | Callable[..., Any]] = (),
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

    async def execute(self, code: str) -> dict[str, Any]:
        """Run a snippet of Python; what it printed (`stdout`, `stderr`), the
        value of its final expression (`return_value`, JSON-decoded) and its
        `exit_code`. Never raises for the code's sake: an exception, a
        refused tool call or a timeout is in `stderr` with a non-zero exit
        code, for the agent to read."""
        try:
            result = await self._session.run_async(code)
        except Exception as e:  # a timeout, the memory limit, a cancel
            return {
                "stdout": "",
                "stderr": f"{type(e).__name__}: {e}. The sandbox's variables were reset (files are kept).",
                "return_value": None,
                "exit_code": 1,
            }
        return {
            "stdout": printed_value_removed(result.stdout, result.return_value),
            "stderr": result.stderr,
            "return_value": result.return_value,
            "exit_code": result.exit_code,
        }

