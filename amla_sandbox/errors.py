"""Every exception class amla_sandbox raises, in one leaf module.

This module imports nothing of amla_sandbox, so any layer (the binding to
the Go core, the run driver, the sandbox, the integrations) can raise these
without importing the layers above it. The documented import paths keep
working: `amla_sandbox.RuntimeError`, `amla_sandbox.runtime.runtime.RuntimeError`,
`amla_sandbox.durable.ApprovalRequired`, `amla_sandbox.capabilities.CapabilityError`
and the others re-export these same class objects, so an `except` clause
written against either path catches the same exceptions.

Each class keeps the `__module__` of the module that documented it, so
tracebacks, reprs and pickles name the same path as before this module
held them (every such path re-exports the class).
"""

from __future__ import annotations

import builtins
from typing import Any

__all__ = [
    "ApprovalRequired",
    "ConstraintError",
    "MissingParamError",
    "TypeMismatchError",
    "ViolationError",
    "CallLimitExceededError",
    "CancelledRunError",
    "CapabilityError",
    "CheckerUnavailable",
    "ConfigError",
    "MCPError",
    "MemoryLimitError",
    "PoolClosedError",
    "ReplayDivergenceError",
    "RunDivergedError",
    "RunLostError",
    "RuntimeError",
    "SessionLostError",
    "StaleRunError",
    "TimeoutError",
]


# -- the sandbox engine and its runs ------------------------------------------------------------------


class RuntimeError(Exception):  # noqa: A001  (documented name, shadows the builtin)
    """A failure of the sandbox engine (not of the script or a tool)."""

    __module__ = "amla_sandbox.runtime.runtime"


class TimeoutError(RuntimeError):  # noqa: A001
    """A run used more than its `timeout` seconds of compute time."""

    __module__ = "amla_sandbox.runtime.runtime"


class MemoryLimitError(RuntimeError):
    """A run needed more memory than its `memory_limit`."""

    __module__ = "amla_sandbox.runtime.runtime"


class CancelledRunError(RuntimeError):
    """The run was stopped by `cancel()` or `close()` from another thread."""

    __module__ = "amla_sandbox.runtime.runtime"


class StaleRunError(RuntimeError):
    """An operation named a run that a later `start()` replaced: the core
    refuses it (a late step of a given-up run never touches the next run)."""

    __module__ = "amla_sandbox.runtime.runtime"


# -- durable sessions (docs/durable.md) ------------------------------------------------------------


class ReplayDivergenceError(RuntimeError):
    """A replayed run asked for something its journal did not record.

    `index` is the number of the tool call concerned (calls are numbered
    from 1 in the order the script made them; for another input, the
    number of calls made before it), `recorded` what the journal holds
    there, `asked` what the script asked for, `event` the journal input's
    index."""

    __module__ = "amla_sandbox.durable"

    def __init__(self, message: str, *, index: int, recorded: str, asked: str, event: int) -> None:
        super().__init__(message)
        self.index = index
        self.recorded = recorded
        self.asked = asked
        self.event = event


class ApprovalRequired(Exception):
    """A run stopped at a tool call that needs a human's approval.

    `method` is the tool's name, `params` the call's parameters, and `token`
    the bytes from which `Sandbox.resume_approval(token, approve=...)`
    continues the run, in any process: the start state, the journal so far
    and the pending call."""

    __module__ = "amla_sandbox.durable"

    def __init__(self, method: str, params: Any, token: bytes) -> None:
        super().__init__(
            f"Tool call '{method}' waits for a human's approval; continue the run with "
            "Sandbox.resume_approval(token, approve=True or False, ...)"
        )
        self.method = method
        self.params = params
        self.token = token


# -- capabilities ------------------------------------------------------------------------------------


# -- constraints -------------------------------------------------------------------------------------


class ConstraintError(Exception):
    """A call's parameters break a constraint."""

    __module__ = "amla_sandbox.capabilities.constraints"


class MissingParamError(ConstraintError):
    """A constrained parameter is absent (or None)."""

    __module__ = "amla_sandbox.capabilities.constraints"

    def __init__(self, param: str) -> None:
        self.param = param
        super().__init__(f"Missing parameter: {param}")


class TypeMismatchError(ConstraintError):
    """A string rule met a value that is not a string."""

    __module__ = "amla_sandbox.capabilities.constraints"

    def __init__(self, param: str, expected: str, actual: str) -> None:
        self.param = param
        self.expected = expected
        self.actual = actual
        super().__init__(f"Type mismatch for {param}: expected {expected}, got {actual}")


class ViolationError(ConstraintError):
    """A parameter is present but breaks the rule."""

    __module__ = "amla_sandbox.capabilities.constraints"

    def __init__(self, param: str, rule: str, actual: str) -> None:
        self.param = param
        self.rule = rule
        self.actual = actual
        super().__init__(f"Constraint violation: {param} {rule}, actual: {actual}")


class CapabilityError(Exception):
    """A call is not authorised."""

    __module__ = "amla_sandbox.capabilities.tool_call"


class CallLimitExceededError(CapabilityError):
    """Every capability that would authorise a call has used its budget."""

    __module__ = "amla_sandbox.capabilities.tool_call"

    def __init__(self, capability_key: str, max_calls: int) -> None:
        self.capability_key = capability_key
        self.max_calls = max_calls
        super().__init__(f"Call limit exceeded for '{capability_key}': max {max_calls} calls allowed")


# -- MCP ---------------------------------------------------------------------------------------------


class MCPError(Exception):
    """An MCP server could not be configured, started or reached (raised in
    Python at construction). Failures of single calls reach the script as
    failed tool calls, never as exceptions in Python."""

    __module__ = "amla_sandbox.tools.mcp"


class ConfigError(ValueError):
    """The MCP server's configuration names something that cannot be used;
    the message names the key (and file) at fault."""

    __module__ = "amla_sandbox.mcp.config"


# -- type-checking (docs/declarations.md) ------------------------------------------------------------


class CheckerUnavailable(builtins.RuntimeError):
    """The type checker a language needs is not installed and cannot be
    installed; the message says how to get it."""

    __module__ = "amla_sandbox.check"


# -- Ray pools (docs/scale-out.md) -------------------------------------------------------------------------


class PoolClosedError(RuntimeError):
    """The pool was closed before or while the run ran."""

    __module__ = "amla_sandbox.ray._pool"


class SessionLostError(RuntimeError):
    """A session's files and budgets could not be recovered after its actor
    died (no snapshot of it is kept, or its snapshot was lost with its node).
    Close the session to start it afresh."""

    __module__ = "amla_sandbox.ray._pool"


class RunLostError(RuntimeError):
    """A run could not be completed: the actors running it died (too often,
    or with `recover=False`, where runs are not retried)."""

    __module__ = "amla_sandbox.ray._pool"


class RunDivergedError(RuntimeError):
    """A run retried after its actor died asked for other tool calls than
    it had made, so its recorded answers could not be replayed and the run
    was stopped rather than repeat a call. `index` is the call's position in
    the run, `recorded` and `asked` are (method, params); `asked` is None
    when the retried run ended without asking for the recorded call."""

    __module__ = "amla_sandbox.ray._pool"

    def __init__(
        self, message: str, index: int, recorded: tuple[str, Any], asked: tuple[str, Any] | None
    ) -> None:
        super().__init__(message)
        self.index = index
        self.recorded = recorded
        self.asked = asked
