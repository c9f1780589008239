"""The documented import path of `SandboxTool` and `ExecutionResult`
(`amla_sandbox.langgraph`). The code lives in `amla_sandbox.sandbox_tool`,
named for the class it holds."""

from .sandbox_tool import ExecutionResult, SandboxTool

__all__ = ["ExecutionResult", "SandboxTool"]
