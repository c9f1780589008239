"""smolagents: `AmlaExecutor`, a `PythonExecutor` for `CodeAgent(executor=...)`.

    from smolagents import CodeAgent
    from amla_sandbox.integrations.smolagents import AmlaExecutor

    agent = CodeAgent(tools=[search], model=model, executor=AmlaExecutor(max_calls={"search": 5}))

The agent's code runs in a `keep_state` sandbox (variables, imports and
functions stay from one step to the next). The tools stay on the host: the
code calls them as functions (`search("cats")`, `search(query="cats")`),
each call checked against its capability (constraints, call budget) first,
and a refused call is a `ToolDenied` error in the code, which the agent
sees as its step's error. `final_answer(...)` ends the step with the answer.
Needs `pip install "amla-sandbox[smolagents]"` (docs/integrations.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ._session import CodeSession, SessionFacade, Constraints, HostTool, MaxCalls, printed_value_removed, require
from ..runtime.runtime import DEFAULT_MEMORY_LIMIT, DEFAULT_TIMEOUT, RunResult

require("smolagents", adapter="smolagents", extra="smolagents", framework="smolagents")
from smolagents.local_python_executor import CodeOutput, InterpreterError, PythonExecutor  # noqa: E402

__all__ = ["AmlaExecutor"]

# smolagents' input types as JSON Schema types ("image", "audio" and "any"
# say nothing JSON can check).
_TYPES = {"string": "string", "boolean": "boolean", "integer": "integer", "number": "number",
          "array": "array", "object": "object", "null": "null"}


def _parameters(inputs: Mapping[str, Any]) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, spec in inputs.items():
        spec = spec if isinstance(spec, Mapping) else {}
        prop: dict[str, Any] = {}
        declared = spec.get("type")
        kind = _TYPES.get(declared) if isinstance(declared, str) else None
        if kind is not None:
            prop["type"] = [kind, "null"] if spec.get("nullable") and kind != "null" else kind
        if isinstance(spec.get("description"), str):
            prop["description"] = spec["description"]
        properties[name] = prop
        if not spec.get("nullable"):
            required.append(name)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


class AmlaExecutor(SessionFacade, PythonExecutor):
    """Runs a CodeAgent's code in a `keep_state` amla sandbox.

    `constraints` and `max_calls` are create_sandbox_tool's (the same DSL,
    per tool name; every tool, final_answer included, gets a budget:
    `max_calls` or 100), and count over the executor's life. `timeout`
    (seconds) and `memory_limit` (bytes) bound each step's code. Other
    keyword arguments go to `Sandbox` (`network=`, `disk_quota=`,
    `python_packages=`, ...).
    """

    def __init__(
        self,
        *,
        constraints: Constraints | None = None,
        max_calls: MaxCalls = None,
        timeout: float = DEFAULT_TIMEOUT,
        memory_limit: int = DEFAULT_MEMORY_LIMIT,
        **sandbox_options: Any,
    ) -> None:
        self._session = CodeSession(
            constraints=constraints, max_calls=max_calls, timeout=timeout, memory_limit=memory_limit,
            sandbox_options=sandbox_options,
        )
        self._final: list[Any] = []  # what final_answer returned during the current step
        self._variables: dict[str, Any] = {}  # sent, not yet defined in the session

    # -- PythonExecutor -------------------------------------------------------

    def send_tools(self, tools: dict[str, Any]) -> None:
        """The agent's tools (and managed agents), kept on the host: the code
        calls each by its name."""
        self._session.set_tools([self._host_tool(name, tool) for name, tool in tools.items()])

    def send_variables(self, variables: dict[str, Any]) -> None:
        """Define `variables` (the agent's state, `additional_args`) in the
        session before the next step's code runs. Their values must be JSON
        (str, numbers, bools, None, lists, dicts with str keys); anything
        else is a TypeError naming the variable."""
        for name, value in variables.items():
            try:
                json.dumps(value, allow_nan=False)
            except (TypeError, ValueError) as e:
                raise TypeError(
                    f"variable {name!r} cannot be sent to the sandbox: its value must be JSON data "
                    f"(str, int, float, bool, None, list, dict), got {type(value).__name__} ({e})"
                ) from None
        self._variables.update(variables)

    def __call__(self, code_action: str) -> CodeOutput:
        self._final.clear()
        try:
            if self._variables:
                # Sent with the step, not before: the sandbox is made (and its
                # tools fixed) when the first step runs.
                payload = json.dumps(self._variables, allow_nan=False)
                self._variables.clear()
                setting = self._session.run(f"globals().update(_amla_json.loads({payload!r}))")
                if setting.exit_code != 0:
                    raise InterpreterError(f"could not set the variables: {setting.stderr}")
            result = self._session.run(code_action)
        except InterpreterError:
            raise
        except Exception as e:  # a timeout, the memory limit, a cancel: the session starts fresh
            if self._final:
                return CodeOutput(output=self._final[-1], logs="", is_final_answer=True)
            raise InterpreterError(
                f"Code execution failed: {type(e).__name__}: {e}. The sandbox's variables were reset "
                "(files are kept)."
            ) from None
        if self._final:
            return CodeOutput(output=self._final[-1], logs=result.stdout, is_final_answer=True)
        if result.exit_code != 0:
            raise InterpreterError(_failure(result))
        logs = printed_value_removed(result.stdout, result.return_value)
        if result.stderr:
            logs += result.stderr
        return CodeOutput(output=result.return_value, logs=logs, is_final_answer=False)

    # -- lifetime ---------------------------------------------------------------

    def cleanup(self) -> None:
        """Release the sandbox (`CodeAgent.cleanup()` calls this)."""
        self.close()

    # -- tools ------------------------------------------------------------------

    def _host_tool(self, name: str, tool: Any) -> HostTool:
        inputs = getattr(tool, "inputs", None)
        if not isinstance(inputs, Mapping) or not callable(tool):
            raise TypeError(f"tool {name!r} is not a smolagents Tool (no `inputs`), got {type(tool).__name__}")
        final = name == "final_answer"

        def call(**arguments: Any) -> Any:
            value = tool(**arguments)
            if final:
                self._final.append(value)
                return None  # the answer stays on the host; the code stops
            return value

        description = getattr(tool, "description", "") or ""
        return HostTool(name=name, description=str(description).strip().split("\n")[0],
                        parameters=_parameters(inputs), call=call, final=final)


def _failure(result: RunResult) -> str:
    """The text the agent sees for a step whose code failed: what it printed,
    then the traceback."""
    parts = []
    if result.stdout:
        parts.append("Execution logs:\n" + result.stdout)
    parts.append("Code execution failed:\n" + (result.stderr or result.error or f"exit status {result.exit_code}"))
    return "\n".join(parts)
