"""What the pool (in the caller's process) and its actors hand each other.

A run over Ray is the sandbox's step/resume loop stretched across processes:
the pool asks an actor to begin a run, and the actor answers with one event
at a time until the run ends. Every value here is pickled by Ray, so each is
a plain dataclass of JSON-like values and `Answer`s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from amla_sandbox.runtime.pipeline import Answer

__all__ = [
    "ActorConfig",
    "CallsIssued",
    "RunCrashed",
    "RunDiverged",
    "RunFinished",
    "RunStopped",
    "SessionSpec",
    "ToolCall",
]


@dataclass(frozen=True)
class SessionSpec:
    """A session's capabilities, in `create_sandbox_tool`'s terms. They
    travel with the session when it moves or is restored; the budget *use*
    travels in its snapshot."""

    constraints: dict[str, dict[str, Any]] | None = None
    max_calls: int | dict[str, int] | None = None


@dataclass
class ToolCall:
    """One tool call of a run as the pool records it: what the script asked
    and the answer it got. `answer` is None while the call waits for a tool
    that runs in the caller's process."""

    method: str
    params: Any
    answer: Answer | None = None


@dataclass
class CallsIssued:
    """Tool calls the script issued together, in the order it issued them.

    Calls of tools inside the actor carry their answers: the actor has run
    them and waits for the pool to record the answers before the script
    sees any. Calls of caller-side tools have `answer` None; the pool runs
    them and replies with their answers, in order.
    """

    calls: list[ToolCall]


@dataclass
class RunFinished:
    """The run ended (the fields of `ExecutionResult`)."""

    stdout: str
    stderr: str
    error: str | None
    success: bool


@dataclass
class RunDiverged:
    """A retried run asked for another call than the one recorded at
    `index` (`asked` None: it ended without asking for it): its recorded
    answers cannot be replayed."""

    index: int
    recorded: tuple[str, Any]
    asked: tuple[str, Any] | None


@dataclass
class RunStopped:
    """The actor stopped the run (the pool is closing, or the pool gave up
    on it)."""

    reason: str


@dataclass
class RunCrashed:
    """The actor could not drive the run (an error outside the script)."""

    message: str


@dataclass
class ActorConfig:
    """How every actor of one pool builds its sessions' sandboxes.

    Tools are pickled one by one in the caller's process so that a tool
    that cannot be loaded in a worker is named in the error.
    """

    tools: list[tuple[str, bytes]] = field(default_factory=list)
    local_stubs: list[tuple[str, bytes]] = field(default_factory=list)
    sandbox_args: bytes = b""
    recover: bool = True
    runs: int = 4
