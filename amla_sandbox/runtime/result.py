"""What a run produced: `RunResult` (stdout, stderr, exit status, tool
calls, the journal) and `ToolCallRecord`, built from the core's result,
and the exception a failed run raises."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ..errors import CancelledRunError, MemoryLimitError, RuntimeError, TimeoutError  # noqa: A004

__all__ = ["RunResult", "RuntimeStatus", "ToolCallRecord"]


class RuntimeStatus(Enum):
    RUNNING = "running"
    ALL_BLOCKED = "all_blocked"
    ALL_DONE = "all_done"
    ERROR = "error"
    PANIC = "panic"


@dataclass
class ToolCallRecord:
    """One tool call a run made: as the script asked, and how it ended."""

    method: str
    params: Any
    ok: bool
    duration_ms: float
    error: str | None = None
    code: str | None = None
    params_truncated: bool = False
    # When the script made the call, in ms from the run's start.
    started_ms: float = 0.0
    # What allowed the call: the capability's method pattern, or the
    # network policy rule's text (None when it was refused).
    grant: str | None = None
    # What refused it, when the sandbox did (not its handler): the check
    # ("capability", "constraint", "max_calls", "pca", "approval",
    # "request", "memory_limit", or a network policy check) and its rule
    # (a capability pattern or key, a network rule's text), if any.
    check: str | None = None
    rule: str | None = None
    # The approver's decision: "none" (the grant asks for none),
    # "approved", "refused", "no_approver", or "pending" (the run paused
    # on this call: docs/durable.md).
    approval: str = "none"


@dataclass
class RunResult:
    """A finished run (`Sandbox.last_result`)."""

    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0
    duration_ms: float = 0.0
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    peak_memory_bytes: int = 0
    error: str | None = None
    error_kind: str | None = None
    # The run's journal when the sandbox records (docs/durable.md).
    journal: bytes | None = None
    # The run's value as Python data (docs/files.md): what a JavaScript
    # script returned, the value of a Python script's final expression,
    # JSON-decoded; None when there is none, it is not JSON, or the run
    # failed.
    return_value: Any = None
    # In a keep_state sandbox: this run's interpreter state was discarded
    # (it timed out, reached the memory limit, was cancelled or crashed),
    # so the next run starts fresh; stderr ends with a line saying so.
    state_reset: bool = False
    # The durable outcome raise_for_error raises (ApprovalRequired,
    # ReplayDivergenceError), when the run has one.
    _durable_error: BaseException | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_core(
        cls, d: dict[str, Any], *, journal: bytes | None = None, durable_error: BaseException | None = None
    ) -> RunResult:
        """The result of a run from the core's result object; `journal` and
        `durable_error` come from the run's DurableStrategy."""
        result = cls._from_dict(d)
        result.journal = journal
        result._durable_error = durable_error
        return result

    @classmethod
    def _from_dict(cls, d: dict[str, Any]) -> RunResult:
        calls = [
            ToolCallRecord(
                method=c["method"],
                params=c.get("params"),
                ok=bool(c.get("ok")),
                duration_ms=float(c.get("duration_ms", 0.0)),
                error=c.get("error") or None,
                code=c.get("code") or None,
                params_truncated=bool(c.get("params_truncated")),
                started_ms=float(c.get("started_ms", 0.0)),
                grant=c.get("grant") or None,
                check=c.get("check") or None,
                rule=c.get("rule") or None,
                approval=c.get("approval") or "none",
            )
            for c in d.get("tool_calls") or []
        ]
        return cls(
            stdout=d.get("stdout", ""),
            stderr=d.get("stderr", ""),
            exit_code=int(d.get("exit_code", 0)),
            duration_ms=float(d.get("duration_ms", 0.0)),
            tool_calls=calls,
            peak_memory_bytes=int(d.get("peak_memory_bytes", 0)),
            error=d.get("error") or None,
            error_kind=d.get("error_kind") or None,
            return_value=d.get("return_value"),
            state_reset=bool(d.get("state_reset")),
        )

    def raise_for_error(self) -> None:
        """Raise what the run's failure is, if it failed: the durable
        outcome (ApprovalRequired, ReplayDivergenceError), TimeoutError,
        MemoryLimitError, CancelledRunError, or RuntimeError. A script's
        own error (a non-zero exit) is not a failure of the run."""
        if self._durable_error is not None:
            raise self._durable_error.with_traceback(None)
        if self.error_kind == "timeout":
            raise TimeoutError(self.error)
        if self.error_kind == "memory":
            raise MemoryLimitError(self.error)
        if self.error_kind == "cancelled":
            raise CancelledRunError(self.error)
        if self.error_kind:
            raise RuntimeError(self.error)

    _raise_for_error = raise_for_error
