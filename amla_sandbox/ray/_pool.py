"""SandboxPool: the sandboxes of many sessions on a pool of Ray actors.

This object lives in the caller's process and is the only keeper of what
must outlive an actor: where each session lives, its capabilities, the
ObjectRef of its snapshot after its last completed run, and the tool calls
of each run in flight with their answers. Actors (`SandboxActor`) hold the
sandboxes and run the scripts; any of them may die at any moment.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
import weakref
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

import ray
from ray.exceptions import GetTimeoutError, ObjectLostError, RayActorError, RayTaskError

from amla_sandbox._language import normalize_language
from amla_sandbox.bash_tool import create_sandbox_tool
from amla_sandbox.errors import PoolClosedError, RunDivergedError, RunLostError, SessionLostError
from amla_sandbox.observability import carrier
from amla_sandbox.ray._actor import SandboxActor
from amla_sandbox.ray._protocol import (
    ActorConfig,
    CallsIssued,
    RunCrashed,
    RunDiverged,
    RunFinished,
    RunStopped,
    SessionSpec,
    ToolCall,
)
from amla_sandbox.ray._tools import pickle_args, pickle_tools, stub_for
from amla_sandbox.runtime.pipeline import Answer, ToolPipeline, ToolRequest
from amla_sandbox.runtime.runtime import DEFAULT_MEMORY_LIMIT, DEFAULT_TIMEOUT
from amla_sandbox.errors import RuntimeError as SandboxRuntimeError
from amla_sandbox.sandbox import Sandbox
from amla_sandbox.sandbox_tool import ExecutionResult, function_list
from amla_sandbox.tools.conversion import tool_name
from amla_sandbox.tools.handlers import FunctionHandler

__all__ = [
    "PoolClosedError",
    "PoolStats",
    "RunDivergedError",
    "RunLostError",
    "SandboxPool",
    "SessionLostError",
]

log = logging.getLogger("amla_sandbox.ray")

# Whether this amla_sandbox can snapshot and restore a sandbox (durable
# sessions). Without it sessions still stick to actors and runs still
# recover, but a session that had finished a run cannot survive its actor.
_HAS_SNAPSHOTS = callable(getattr(Sandbox, "snapshot", None))

# create_sandbox_tool arguments that mean something else in a pool.
_REFUSED_ARGS = {
    "snapshot": "a snapshot belongs to one session: use pool.open_session(session_id, snapshot=data)",
    "mcp_servers": "MCP servers are not supported in a SandboxPool yet (each session would start its own)",
    # Durable sessions' approval and journals (docs/durable.md) need the
    # pool to carry a paused run's token and to expose journals: not yet.
    "require_approval": "approval of tool calls is not supported in a SandboxPool yet",
    "approval_handler": "approval of tool calls is not supported in a SandboxPool yet",
    "record": "run journals are not exposed by a SandboxPool (it records tool answers itself to retry runs)",
}


@dataclass
class PoolStats:
    """What the pool has had to do so far."""

    actors_replaced: int = 0
    runs_retried: int = 0
    sessions_restored: int = 0
    sessions_moved: int = 0


@dataclass
class _Slot:
    """One place in the pool: its current actor, and the sessions open on
    it. `generation` changes whenever the actor is replaced."""

    index: int
    actor: Any
    generation: int = 0
    sessions: set[str] = field(default_factory=set)
    answered: bool = False  # its actor has answered a call since it started
    start_failures: int = 0
    disabled: str | None = None


@dataclass
class _SessionState:
    id: str
    spec: SessionSpec
    lock: threading.Lock = field(default_factory=threading.Lock)
    slot: int | None = None  # where it is open, while that slot's generation is `generation`
    generation: int = -1
    displaced: bool = False  # its actor died; it is restored on its next use
    snapshot: Any = None  # ObjectRef: its files and budgets after its last completed run
    runs: int = 0  # completed runs
    lost: str | None = None
    closed: bool = False


@dataclass
class _Await:
    """Wait for an actor's event."""

    ref: Any


@dataclass
class _Answer:
    """Run these caller-side tool calls here."""

    requests: list[ToolRequest]


_Protocol = Generator[Union[_Await, _Answer], Any, RunFinished]

# An actor that dies before ever answering is counted as failing to start;
# after this many in a row its slot is given up (a tool that cannot load
# on that node, a bad runtime_env) instead of being replaced forever.
_MAX_START_FAILURES = 3


def _cause(e: RayTaskError) -> BaseException:
    """The exception an actor method raised, without Ray's wrapping."""
    cause = getattr(e, "cause", None)
    return cause if isinstance(cause, BaseException) else e


class SandboxPool:
    """Sandboxes for many sessions, held by `size` Ray actors.

    `pool.run(session_id, code, language)` runs code in that session's
    sandbox (created on first use) and returns what `SandboxTool.run`
    returns. A session sticks to one actor while that actor lives; when it
    dies the session continues on another actor from its snapshot after its
    last completed run, and a run in flight is retried there with the tool
    answers it had already received replayed, not repeated.

    `tools` run inside the actors (Ray pickles them); `local_tools` run in
    this process, their calls coming back over Ray. The other keyword
    arguments are create_sandbox_tool's (`constraints`, `max_calls`,
    `timeout`, `memory_limit`, `network`, ...); every session gets its own
    capabilities and budgets from them, or from `open_session(...)`. See
    docs/scale-out.md. A `network` policy (docs/network.md) travels to the
    actors with the other arguments, its secrets' values included: the
    actors' hosts make the requests.
    """

    def __init__(
        self,
        size: int = 2,
        tools: Sequence[Callable[..., Any]] | None = None,
        *,
        local_tools: Sequence[Callable[..., Any]] | None = None,
        constraints: dict[str, dict[str, Any]] | None = None,
        max_calls: int | dict[str, int] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        memory_limit: int = DEFAULT_MEMORY_LIMIT,
        recover: bool = True,
        runs_per_actor: int = 4,
        max_run_attempts: int = 3,
        health_check_interval: float | None = 5.0,
        health_check_timeout: float = 30.0,
        start_timeout: float = 120.0,
        actor_options: dict[str, Any] | None = None,
        **sandbox_args: Any,
    ) -> None:
        _check_int("size", size)
        _check_int("runs_per_actor", runs_per_actor)
        _check_int("max_run_attempts", max_run_attempts)
        if health_check_interval is not None and not _positive(health_check_interval):
            raise ValueError(f"health_check_interval must be a positive number of seconds or None, got {health_check_interval!r}")
        for name, value in (("health_check_timeout", health_check_timeout), ("start_timeout", start_timeout)):
            if not _positive(value):
                raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
        for key, why in _REFUSED_ARGS.items():
            if key in sandbox_args:
                raise TypeError(f"SandboxPool does not take {key}=: {why}")
        if actor_options is not None and not isinstance(actor_options, dict):
            raise TypeError(f"actor_options must be a dict of Ray actor options, got {type(actor_options).__name__}")
        for key in ("max_restarts", "max_task_retries"):
            if key in (actor_options or {}):
                raise ValueError(
                    f"actor_options may not set {key}: the pool replaces a dead actor itself and restores its "
                    "sessions (a restarted actor would come back empty)"
                )
        funcs = function_list(tools)
        local = function_list(local_tools)
        names = [tool_name(f) for f in funcs]
        for f in local:
            if tool_name(f) in names:
                raise ValueError(f"tool {tool_name(f)!r} is in both tools and local_tools; give it once")
        self._args = {"timeout": timeout, "memory_limit": memory_limit, **sandbox_args}
        # Every actor authenticates sessions' snapshots with this process's
        # durable key (durable_key=, $AMLA_SANDBOX_DURABLE_KEY or this
        # machine's), so a session moves between actors on any node.
        from amla_sandbox.durable import resolve_key

        self._args["durable_key"] = resolve_key(sandbox_args.get("durable_key"))
        self._funcs = funcs + local
        self._spec = SessionSpec(constraints=constraints, max_calls=max_calls)
        # Whatever create_sandbox_tool refuses is refused here, in the
        # caller, with its own message; its warnings are shown here once.
        self._probe(self._spec)
        config = ActorConfig(
            tools=pickle_tools(funcs),
            local_stubs=pickle_tools([stub_for(f) for f in local]),
            sandbox_args=pickle_args(self._args),
            recover=bool(recover),
            runs=runs_per_actor,
        )
        self._recover = bool(recover)
        self._max_attempts = max_run_attempts
        self._health_timeout = float(health_check_timeout)
        self._local_map = {tool_name(f): f for f in local}
        self._local_pipes = threading.local()
        self._pipes: list[ToolPipeline] = []  # every thread's, closed with the pool
        self._async_pipe = self._pipeline()
        self._actor_options = dict(actor_options or {})
        self._lock = threading.RLock()
        self._sessions: dict[str, _SessionState] = {}
        self._closed = False
        self._stats = PoolStats()
        self._config_ref = ray.put(config)
        self._actor_class = ray.remote(SandboxActor)
        self._slots = [_Slot(i, self._new_actor()) for i in range(size)]
        self._await_start(start_timeout)
        self._stop = threading.Event()
        self._health: threading.Thread | None = None
        if health_check_interval is not None:
            self._health = threading.Thread(
                target=_health_loop,
                args=(weakref.ref(self), self._stop, float(health_check_interval)),
                name="amla-pool-health",
                daemon=True,
            )
            self._health.start()

    # -- set-up -------------------------------------------------------------------

    def _probe(self, spec: SessionSpec) -> None:
        create_sandbox_tool(
            self._funcs, constraints=spec.constraints, max_calls=spec.max_calls, **self._args
        ).close()

    def _pipeline(self) -> ToolPipeline:
        # The same path and texts as a Sandbox's own tool calls.
        return ToolPipeline(
            FunctionHandler(self._local_map) if self._local_map else None,
            strip_prefix=True,
            no_handler="No handler for tool call: {method}",
            await_in_sync=True,
        )

    def _sync_pipeline(self) -> ToolPipeline:
        # One per thread: a pipeline keeps the event loop it drives async tools on.
        pipe: ToolPipeline | None = getattr(self._local_pipes, "pipe", None)
        if pipe is None:
            pipe = self._local_pipes.pipe = self._pipeline()
            with self._lock:
                self._pipes.append(pipe)
        return pipe

    def _new_actor(self) -> Any:
        options = {"max_restarts": 0, **self._actor_options}
        return self._actor_class.options(**options).remote(self._config_ref)

    def _await_start(self, timeout: float) -> None:
        pings = [s.actor.ping.remote() for s in self._slots]
        try:
            ray.get(pings, timeout=timeout)
        except (RayActorError, RayTaskError, GetTimeoutError) as e:
            for s in self._slots:
                ray.kill(s.actor, no_restart=True)
            self._closed = True
            if isinstance(e, GetTimeoutError):
                raise SandboxRuntimeError(
                    f"the pool's actors did not start within {timeout} s (start_timeout); "
                    "does the Ray cluster have room for them (actor_options)?"
                ) from None
            raise SandboxRuntimeError(f"the pool's actors could not start: {e}") from None
        for s in self._slots:
            s.answered = True

    # -- introspection --------------------------------------------------------------

    @property
    def size(self) -> int:
        return len(self._slots)

    @property
    def actors(self) -> list[Any]:
        """The current actor of each slot (a replaced actor is not listed)."""
        with self._lock:
            return [s.actor for s in self._slots]

    @property
    def stats(self) -> PoolStats:
        with self._lock:
            return PoolStats(**vars(self._stats))

    def where(self, session_id: str) -> int | None:
        """The slot whose actor holds the session now, or None when it is
        open nowhere (new, or its actor died: it is restored on next use)."""
        with self._lock:
            state = self._sessions.get(session_id)
            if state is None or state.slot is None:
                return None
            return state.slot if self._slots[state.slot].generation == state.generation else None

    def sessions(self) -> list[str]:
        with self._lock:
            return list(self._sessions)

    # -- placing sessions -------------------------------------------------------------

    def _state(self, session_id: str, create: bool) -> _SessionState:
        if not isinstance(session_id, str) or not session_id:
            raise TypeError(f"session_id must be a non-empty str, got {session_id!r:.80}")
        with self._lock:
            if self._closed:
                raise PoolClosedError("the pool is closed")
            state = self._sessions.get(session_id)
            if state is None:
                if not create:
                    raise KeyError(f"no session {session_id!r} in this pool")
                state = self._sessions[session_id] = _SessionState(session_id, self._spec)
            return state

    def _lock_session(self, session_id: str, create: bool = True) -> _SessionState:
        while True:
            state = self._state(session_id, create)
            state.lock.acquire()
            if not state.closed:
                return state
            state.lock.release()  # closed while we waited: it is a new session now

    async def _lock_session_async(self, session_id: str) -> _SessionState:
        delay = 0.001
        while True:
            state = self._state(session_id, True)
            # Runs of one session wait for each other, rarely: poll rather
            # than park a thread per waiting coroutine.
            while not state.lock.acquire(blocking=False):
                await asyncio.sleep(delay)
                delay = min(delay * 2, 0.05)
            if not state.closed:
                return state
            state.lock.release()

    def _usable(self) -> list[_Slot]:
        slots = [s for s in self._slots if s.disabled is None]
        if not slots:
            reasons = "; ".join(f"slot {s.index}: {s.disabled}" for s in self._slots)
            raise SandboxRuntimeError(f"no actor of the pool can start ({reasons})")
        return slots

    def _place(self, state: _SessionState, to: int | None = None) -> tuple[_Slot, Any, bool]:
        """The slot and actor for the session's next call, and whether the
        session must be opened there (from its snapshot) first."""
        with self._lock:
            if self._closed:
                raise PoolClosedError("the pool is closed")
            if state.lost is not None:
                raise SessionLostError(state.lost)
            if state.slot is not None and to in (None, state.slot):
                slot = self._slots[state.slot]
                if slot.generation == state.generation:
                    return slot, slot.actor, False
            if state.runs > 0 and state.snapshot is None:
                why = "recover=False" if not self._recover else "this amla_sandbox cannot snapshot a sandbox"
                state.lost = (
                    f"session {state.id!r} was open on an actor that died, and no snapshot of it was kept "
                    f"({why}): its files and budgets are gone; close_session() it to start afresh"
                )
                raise SessionLostError(state.lost)
            if to is not None:
                slot = self._slots[to]
                if slot.disabled is not None:
                    raise SandboxRuntimeError(f"slot {to} has no actor: {slot.disabled}")
            else:
                # The least loaded actor, preferring those that have answered
                # over replacements still starting (a restored session need
                # not wait for a new worker process).
                slot = min(self._usable(), key=lambda s: (not s.answered, len(s.sessions)))
            if state.displaced:
                self._stats.sessions_restored += 1
                state.displaced = False
            self._unplace_locked(state)
            state.slot, state.generation = slot.index, slot.generation
            slot.sessions.add(state.id)
            return slot, slot.actor, True

    def _unplace_locked(self, state: _SessionState) -> None:
        if state.slot is not None:
            self._slots[state.slot].sessions.discard(state.id)
        state.slot, state.generation = None, -1

    def _unplace(self, state: _SessionState, slot: _Slot) -> None:
        with self._lock:
            if state.slot == slot.index:
                self._unplace_locked(state)

    def _retire(self, slot: _Slot, actor: Any, why: str) -> None:
        """Take a dead or unresponsive actor out of the pool for good and
        start another in its place; its sessions are restored elsewhere on
        their next use."""
        with self._lock:
            if slot.actor is not actor:
                return  # already replaced
            try:
                ray.kill(actor, no_restart=True)
            except Exception:
                pass
            for sid in slot.sessions:
                state = self._sessions.get(sid)
                if state is not None and state.slot == slot.index:
                    state.slot, state.generation, state.displaced = None, -1, True
            slot.sessions = set()
            slot.generation += 1
            if not slot.answered:
                slot.start_failures += 1
            slot.answered = False
            if self._closed:
                return
            if slot.start_failures >= _MAX_START_FAILURES:
                slot.disabled = f"its actor failed to start {slot.start_failures} times in a row (last: {why})"
                log.error("amla_sandbox.ray: slot %d given up: %s", slot.index, slot.disabled)
                return
            self._stats.actors_replaced += 1
            log.warning("amla_sandbox.ray: replacing the actor of slot %d: %s", slot.index, why)
            slot.actor = self._new_actor()
            self._watch_start(slot, slot.actor)

    def _watch_start(self, slot: _Slot, actor: Any) -> None:
        """Mark the slot ready when its new actor first answers (sessions
        prefer ready actors; see _place)."""

        def started(future: Any) -> None:
            try:
                future.result()
            except Exception:
                return  # it died starting: the next call or health check sees it
            self._answered(slot, actor)

        actor.ping.remote().future().add_done_callback(started)

    def _answered(self, slot: _Slot, actor: Any) -> None:
        if not slot.answered and slot.actor is actor:
            with self._lock:
                if slot.actor is actor:
                    slot.answered = True
                    slot.start_failures = 0

    # -- health ---------------------------------------------------------------------------

    def check_health(self) -> list[int]:
        """Ping every actor now; replace those that are dead or do not answer
        within `health_check_timeout`. Returns the slots replaced. (The pool
        also does this every `health_check_interval` seconds.)"""
        with self._lock:
            if self._closed:
                return []
            current = [(s, s.actor) for s in self._slots if s.disabled is None]
        pings = {actor.ping.remote(): (slot, actor) for slot, actor in current}
        ready, late = ray.wait(list(pings), num_returns=len(pings), timeout=self._health_timeout)
        bad: list[tuple[_Slot, Any, str]] = []
        for ref in ready:
            slot, actor = pings[ref]
            try:
                ray.get(ref)
                self._answered(slot, actor)
            except (RayActorError, RayTaskError) as e:
                bad.append((slot, actor, f"health check: {type(e).__name__}"))
        for ref in late:
            slot, actor = pings[ref]
            bad.append((slot, actor, f"health check: no answer within {self._health_timeout} s"))
        for slot, actor, why in bad:
            self._retire(slot, actor, why)
        return [slot.index for slot, _, _ in bad]

    # -- runs -------------------------------------------------------------------------------

    def _protocol(self, state: _SessionState, code: str, language: str, stdin: str | None) -> _Protocol:
        """One run, as a conversation with actors; retried on another actor
        when one dies, with the calls answered so far replayed."""
        journal: list[ToolCall] = []  # every answered call of this run, in the order the script got them
        start = state.snapshot  # the session before this run
        failures = 0
        # The caller's trace context: the run's span in the actor joins it.
        trace = carrier()
        while True:
            slot, actor, opening = self._place(state)
            run_id = uuid.uuid4().hex
            begun = False
            try:
                ev_ref, snap_ref = actor.begin.options(num_returns=2).remote(
                    run_id,
                    state.id,
                    code,
                    language,
                    stdin,
                    journal,
                    state.spec if opening else None,
                    start if opening else None,
                    trace,
                )
                event = yield _Await(ev_ref)
                begun = True
                self._answered(slot, actor)
                while isinstance(event, CallsIssued):
                    waiting = [c for c in event.calls if c.answer is None]
                    if waiting:
                        answers = yield _Answer([ToolRequest(i, c.method, c.params) for i, c in enumerate(waiting)])
                        for call, answer in zip(waiting, answers):
                            call.answer = answer
                    journal.extend(event.calls)
                    ev_ref, snap_ref = actor.advance.options(num_returns=2).remote(
                        run_id, [c.answer for c in waiting]
                    )
                    event = yield _Await(ev_ref)
            except RayActorError as e:
                self._retire(slot, actor, f"it died during a run of session {state.id!r} ({type(e).__name__})")
                if self._closed:
                    raise PoolClosedError("the pool was closed while this run was in progress") from None
                failures += 1
                if not self._recover:
                    raise RunLostError(
                        f"the actor running session {state.id!r}'s run died; with recover=False the run "
                        "is not retried (its tool calls may have taken effect)"
                    ) from None
                if failures >= self._max_attempts:
                    raise RunLostError(
                        f"session {state.id!r}: the run was interrupted {failures} times by its actor dying "
                        f"(max_run_attempts={self._max_attempts}); last: {e}"
                    ) from None
                with self._lock:
                    self._stats.runs_retried += 1
                continue
            except BaseException:
                if not begun:
                    self._unplace(state, slot)
                actor.cancel.remote(run_id)  # no-op when the run has ended
                raise
            return self._conclude(state, event, snap_ref)

    def _conclude(self, state: _SessionState, event: Any, snap_ref: Any) -> RunFinished:
        if isinstance(event, RunFinished):
            with self._lock:
                state.runs += 1
                if self._recover and _HAS_SNAPSHOTS:
                    state.snapshot = snap_ref
            return event
        if isinstance(event, RunDiverged):
            asked = (
                f"asked {event.asked[0]} {event.asked[1]!r:.200}); it was stopped rather than repeat calls"
                if event.asked is not None
                else "the retried run ended without asking for it); its result is not the run's"
            )
            raise RunDivergedError(
                f"session {state.id!r}: the run was retried after its actor died, and tool call {event.index} "
                f"differs from the one recorded (recorded {event.recorded[0]} {event.recorded[1]!r:.200}, "
                f"{asked}. A script whose calls depend on the clock or random numbers can do this.",
                event.index,
                event.recorded,
                event.asked,
            )
        if isinstance(event, RunStopped):
            if self._closed:
                raise PoolClosedError(f"the pool was closed while this run was in progress ({event.reason})")
            raise SandboxRuntimeError(f"the run was stopped: {event.reason}")
        if isinstance(event, RunCrashed):
            raise SandboxRuntimeError(f"the pool's actor could not run the script: {event.message}")
        raise SandboxRuntimeError(f"unexpected event from the pool's actor: {event!r:.200}")

    def _drive(self, gen: _Protocol) -> RunFinished:
        """Run the protocol here, blocking: ray.get, and caller-side tools
        called in turn (as `Sandbox.execute` calls them)."""
        value: Any = None
        error: BaseException | None = None
        while True:
            try:
                op = gen.throw(error) if error is not None else gen.send(value)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]
            value, error = None, None
            try:
                if isinstance(op, _Await):
                    value = ray.get(op.ref)
                else:
                    pipe = self._sync_pipeline()
                    value = [pipe.call_sync(r) for r in op.requests]
            except RayTaskError as e:
                error = _cause(e)
            except ObjectLostError as e:
                error = SessionLostError(f"the session's snapshot is lost: {e}")
            except BaseException as e:
                error = e

    async def _drive_async(self, gen: _Protocol) -> RunFinished:
        """The protocol on the caller's event loop: ObjectRefs awaited,
        caller-side tools awaited there, concurrently when the script
        issued them together (as `Sandbox.execute_async` runs them)."""
        value: Any = None
        error: BaseException | None = None
        while True:
            try:
                op = gen.throw(error) if error is not None else gen.send(value)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]
            value, error = None, None
            try:
                if isinstance(op, _Await):
                    value = await op.ref
                else:
                    value = list(await asyncio.gather(*(self._async_pipe.call_async(r) for r in op.requests)))
            except RayTaskError as e:
                error = _cause(e)
            except ObjectLostError as e:
                error = SessionLostError(f"the session's snapshot is lost: {e}")
            except BaseException as e:
                error = e

    def _check_run(self, code: Any, language: Any, stdin: Any) -> tuple[str, str | None]:
        lang = normalize_language(language)
        if not isinstance(code, str):
            raise TypeError(f"code must be a str, got {type(code).__name__}")
        if isinstance(stdin, bytes):
            stdin = stdin.decode("utf-8", errors="replace")
        if stdin is not None and not isinstance(stdin, str):
            raise TypeError(f"stdin must be str or bytes, got {type(stdin).__name__}")
        return lang, stdin

    def execute(
        self, session_id: str, code: str, language: str = "javascript", *, stdin: str | bytes | None = None
    ) -> ExecutionResult:
        """Run `code` in the session; the run's `ExecutionResult`. Failures
        of the script or its limits are in the result; failures of the pool
        (closed, a session lost) raise."""
        lang, text = self._check_run(code, language, stdin)
        state = self._lock_session(session_id)
        try:
            fin = self._drive(self._protocol(state, code, lang, text))
        finally:
            state.lock.release()
        return ExecutionResult(stdout=fin.stdout, stderr=fin.stderr, error=fin.error, success=fin.success)

    def run(self, session_id: str, code: str, language: str = "javascript", *, stdin: str | bytes | None = None) -> str:
        """Run `code` in the session; the text `SandboxTool.run` gives
        (stdout, then `[stderr]: ...`, then `[error]: ...`)."""
        return self.execute(session_id, code, language, stdin=stdin).to_tool_message()

    async def execute_async(
        self, session_id: str, code: str, language: str = "javascript", *, stdin: str | bytes | None = None
    ) -> ExecutionResult:
        """`execute()` for callers on an event loop (caller-side async tools
        are awaited on it)."""
        lang, text = self._check_run(code, language, stdin)
        state = await self._lock_session_async(session_id)
        try:
            fin = await self._drive_async(self._protocol(state, code, lang, text))
        finally:
            state.lock.release()
        return ExecutionResult(stdout=fin.stdout, stderr=fin.stderr, error=fin.error, success=fin.success)

    async def run_async(
        self, session_id: str, code: str, language: str = "javascript", *, stdin: str | bytes | None = None
    ) -> str:
        """`run()` for callers on an event loop."""
        return (await self.execute_async(session_id, code, language, stdin=stdin)).to_tool_message()

    # -- sessions ----------------------------------------------------------------------------

    def open_session(
        self,
        session_id: str,
        *,
        constraints: dict[str, dict[str, Any]] | None = None,
        max_calls: int | dict[str, int] | None = None,
        snapshot: bytes | None = None,
    ) -> None:
        """Open a session with capabilities of its own (create_sandbox_tool's
        `constraints` and `max_calls`, replacing the pool's) and/or from a
        snapshot. Sessions are otherwise opened by their first run."""
        if snapshot is not None and not isinstance(snapshot, (bytes, bytearray, memoryview)):
            raise TypeError(f"snapshot must be bytes, got {type(snapshot).__name__}")
        if snapshot is not None and not _HAS_SNAPSHOTS:
            raise NotImplementedError("this amla_sandbox cannot restore a snapshot (Sandbox.from_snapshot is missing)")
        spec = SessionSpec(constraints=constraints, max_calls=max_calls)
        if constraints is None and max_calls is None:
            spec = self._spec
        else:
            self._probe(spec)
        with self._lock:
            if self._closed:
                raise PoolClosedError("the pool is closed")
            if session_id in self._sessions:
                raise ValueError(f"session {session_id!r} is already open in this pool")
            state = self._sessions[session_id] = _SessionState(session_id, spec)
            if snapshot is not None:
                state.snapshot = ray.put(bytes(snapshot))
        try:
            with state.lock:
                self._with_session(state, lambda actor: None)
        except BaseException:
            with self._lock:
                self._unplace_locked(state)
                self._sessions.pop(session_id, None)
                state.closed = True
            raise

    def _with_session(self, state: _SessionState, call: Callable[[Any], Any], to: int | None = None) -> Any:
        """`call(actor)` (returning an ObjectRef or None) on the actor that
        holds the session, opening it there first if need be; the result."""
        for _ in range(self._max_attempts):
            slot, actor, opening = self._place(state, to)
            try:
                if opening:
                    ray.get(actor.open_session.remote(state.id, state.spec, state.snapshot))
                self._answered(slot, actor)
                ref = call(actor)
                return ray.get(ref) if ref is not None else None
            except RayActorError as e:
                self._retire(slot, actor, f"it died during a call for session {state.id!r} ({type(e).__name__})")
                continue
            except RayTaskError as e:
                if opening:
                    self._unplace(state, slot)
                raise _cause(e) from None
            except ObjectLostError as e:
                raise SessionLostError(f"session {state.id!r}'s snapshot is lost: {e}") from None
        raise SandboxRuntimeError(f"session {state.id!r}: actors kept dying ({self._max_attempts} attempts)")

    def close_session(self, session_id: str) -> None:
        """Close the session (waiting for its run in progress, if any) and
        delete its files, budgets and snapshot. Unknown ids are ignored."""
        with self._lock:
            state = self._sessions.get(session_id)
        if state is None:
            return
        with state.lock:
            with self._lock:
                state.closed = True
                self._sessions.pop(session_id, None)
                slot = self._slots[state.slot] if state.slot is not None else None
                live = slot is not None and slot.generation == state.generation
                self._unplace_locked(state)
                state.snapshot = None
            if live and slot is not None and not self._closed:
                try:
                    ray.get(slot.actor.close_session.remote(session_id))
                except (RayActorError, RayTaskError):
                    pass  # its actor is gone, and the files with it

    def snapshot(self, session_id: str) -> bytes:
        """The session's files and budget use now, as durable-sessions
        snapshot bytes (`Sandbox.from_snapshot`, `open_session(snapshot=)`)."""
        state = self._lock_session(session_id, create=False)
        try:
            return self._with_session(  # type: ignore[no-any-return]
                state, lambda actor: actor.snapshot.options(num_returns=2).remote(state.id)[1]
            )
        finally:
            state.lock.release()

    def get_call_counts(self, session_id: str) -> dict[str, int]:
        """The session's tool calls so far, per capability key."""
        state = self._lock_session(session_id, create=False)
        try:
            return self._with_session(state, lambda actor: actor.call_counts.remote(state.id))  # type: ignore[no-any-return]
        finally:
            state.lock.release()

    def get_remaining_calls(self, session_id: str, capability_key: str) -> int | None:
        """Calls the session has left under one capability (None: unlimited)."""
        state = self._lock_session(session_id, create=False)
        try:
            return self._with_session(  # type: ignore[no-any-return]
                state, lambda actor: actor.remaining_calls.remote(state.id, capability_key)
            )
        finally:
            state.lock.release()

    def move_session(self, session_id: str, to: int | None = None) -> int:
        """Move the session to slot `to` (default: the least loaded other
        one), waiting for its run in progress; returns the slot. Its files
        and budget use travel as a snapshot through Ray's object store."""
        state = self._lock_session(session_id, create=False)
        try:
            return self._move_locked(state, to)
        finally:
            state.lock.release()

    def _move_locked(self, state: _SessionState, to: int | None) -> int:
        with self._lock:
            if to is not None and not (isinstance(to, int) and 0 <= to < len(self._slots)):
                raise ValueError(f"to must be a slot index from 0 to {len(self._slots) - 1}, got {to!r}")
            here = state.slot if state.slot is not None and self._slots[state.slot].generation == state.generation else None
            if to is None:
                others = [s for s in self._usable() if s.index != here] or self._usable()
                to = min(others, key=lambda s: len(s.sessions)).index
            if to == here:
                return to
            source = self._slots[here].actor if here is not None else None
        if source is not None:
            if not _HAS_SNAPSHOTS:
                if state.runs > 0 or state.snapshot is not None:
                    raise NotImplementedError(
                        "moving a session with files needs Sandbox.snapshot() (durable sessions), "
                        "which this amla_sandbox lacks"
                    )
            else:
                # Two returns: the size, fetched here to learn that the
                # snapshot exists, and the bytes, which stay in the object
                # store (owned by this process, so they outlive both actors).
                size_ref, data_ref = source.snapshot.options(num_returns=2).remote(state.id)
                try:
                    ray.get(size_ref)
                    state.snapshot = data_ref
                except RayActorError:
                    pass  # the source died: its last snapshot is what there is
                except RayTaskError as e:
                    raise _cause(e) from None
        with self._lock:
            self._unplace_locked(state)
        self._with_session(state, lambda actor: None, to=to)
        if source is not None:
            source.close_session.remote(state.id)
        with self._lock:
            self._stats.sessions_moved += 1
        return to

    def rebalance(self) -> int:
        """Move sessions from the busiest actors to the least busy until no
        two differ by more than one session; returns how many moved."""
        moved = 0
        while True:
            with self._lock:
                usable = self._usable()
                busiest = max(usable, key=lambda s: len(s.sessions))
                idlest = min(usable, key=lambda s: len(s.sessions))
                if len(busiest.sessions) - len(idlest.sessions) <= 1:
                    return moved
                sid = next(iter(busiest.sessions))
            self.move_session(sid, to=idlest.index)
            moved += 1

    # -- lifetime -------------------------------------------------------------------------------

    def close(self) -> None:
        """Stop every run in progress (their callers get PoolClosedError),
        close every sandbox, and end the actors. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            actors = [s.actor for s in self._slots]
        self._stop.set()
        if ray.is_initialized():  # else the actors ended with Ray
            done = [a.shutdown.remote() for a in actors]
            ray.wait(done, num_returns=len(done), timeout=15)
            for a in actors:
                try:
                    ray.kill(a, no_restart=True)
                except Exception:
                    pass
        if self._health is not None and self._health is not threading.current_thread():
            self._health.join(timeout=5)
        for pipe in [*self._pipes, self._async_pipe]:
            try:
                pipe.close()  # the event loop it drove async caller-side tools on
            except Exception:
                pass  # a loop still running a tool of a run that is ending

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _health_loop(ref: weakref.ref[SandboxPool], stop: threading.Event, interval: float) -> None:
    while not stop.wait(interval):
        pool = ref()
        if pool is None or not ray.is_initialized():
            return  # the pool is gone, or Ray was shut down under it
        try:
            pool.check_health()
        except Exception:
            log.exception("amla_sandbox.ray: health check failed")
        del pool


def _check_int(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")


def _positive(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and value > 0
