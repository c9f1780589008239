"""SandboxActor: one Ray actor holding the sandboxes of many sessions.

The pool makes it a Ray actor (`ray.remote(SandboxActor)`); this module
itself never imports Ray's API, so an actor is an ordinary object in a
worker process. It is an asyncio actor: its methods are coroutines on one
event loop, and each run executes on a thread of its own pool, where the
sandbox's blocking Go calls release the GIL. A health check (`ping`) is
therefore answered while every run thread is busy.

A run proceeds as a conversation with the pool (see _protocol.py): `begin`
starts it and returns its first event, `advance` hands the pool's reply to
the waiting run and returns the next event, until `RunFinished`. Tools that
live in the actor are called here; when the pool records calls (`recover`)
the run thread waits after each batch until the pool has the answers, so an
answer reaches the script only once it is kept outside this process.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import queue
import threading
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from amla_sandbox.bash_tool import create_sandbox_tool
from amla_sandbox.observability import remote_parent
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
from amla_sandbox.ray._tools import load_tool
from amla_sandbox.runtime.pipeline import Answer, ToolRequest
from amla_sandbox.sandbox_tool import SandboxTool

__all__ = ["SandboxActor"]

Event = Any  # one of the event dataclasses of _protocol
Reply = Any


class _Stop(Exception):
    """Raised in a run thread that was told to stop while it waited."""


class _Diverge(Exception):
    def __init__(self, event: RunDiverged) -> None:
        super().__init__(f"call {event.index} diverged")
        self.event = event


_STOP = object()  # put into a run's replies to wake it for stopping


class _Session:
    """One session's sandbox here; `lock` keeps its runs, snapshots and
    closing one at a time."""

    def __init__(self, tool: SandboxTool, spec: SessionSpec) -> None:
        self.tool = tool
        self.spec = spec
        self.lock = threading.Lock()


class _Run:
    """A run in progress: the thread that drives it and the two queues
    between it and the actor's coroutines."""

    def __init__(
        self,
        session: _Session,
        code: str,
        language: str,
        stdin: str | None,
        replay: list[ToolCall],
        local: frozenset[str],
        record: bool,
        trace: dict[str, str] | None = None,
    ) -> None:
        self.session = session
        self.code = code
        self.language = language
        self.stdin = stdin
        self.replay = replay
        self.local = local
        self.record = record
        # The pool's caller's trace context (W3C headers), for the run's span.
        self.trace = trace
        self.index = 0  # tool calls seen so far in this attempt
        self.loop = asyncio.get_running_loop()
        self.events: asyncio.Queue[tuple[Event, bytes | None]] = asyncio.Queue()
        self.replies: queue.Queue[Reply] = queue.Queue()
        self.stopping: str | None = None

    # -- thread side ----------------------------------------------------------

    def _post(self, event: Event, snapshot: bytes | None = None) -> None:
        self.loop.call_soon_threadsafe(self.events.put_nowait, (event, snapshot))

    def _ask(self, event: Event) -> Reply:
        self._post(event)
        reply = self.replies.get()
        if reply is _STOP:
            raise _Stop
        return reply

    def body(self) -> None:
        try:
            self._body()
        except BaseException as e:  # never leave the pool waiting for an event
            self._post(RunCrashed(f"{type(e).__name__}: {e}"))

    def _body(self) -> None:
        s = self.session
        with s.lock:
            if self.stopping is not None:
                self._post(RunStopped(self.stopping))
                return
            sb = s.tool.sandbox
            try:
                # The run API Sandbox.execute()/shell() are built on; `_batch`
                # gets the requests the script issued together.
                with remote_parent(self.trace):
                    res = sb.run_script(self.code, self.language, stdin=self.stdin, answer_batch=self._batch)
                outcome = RunFinished(stdout=res.stdout, stderr=res.stderr, error=None, success=True)
            except _Stop:
                self._post(RunStopped(self.stopping or "stopped"))
                return
            except _Diverge as d:
                self._post(d.event)
                return
            except Exception as e:
                if self.stopping is not None:
                    self._post(RunStopped(self.stopping))
                    return
                # What SandboxTool.run() reports for a run that could not complete.
                outcome = RunFinished(stdout="", stderr=sb.last_stderr, error=str(e), success=False)
            if self.stopping is not None:
                # Told to stop while it ran: however the run ended, its
                # caller learns that it was stopped.
                self._post(RunStopped(self.stopping))
                return
            if self.index < len(self.replay):
                # A retried run that ended before asking for every recorded
                # call went another way: its result is not the run's.
                rec = self.replay[self.index]
                self._post(RunDiverged(self.index, (rec.method, rec.params), None))
                return
            snapshot = _snapshot(s.tool) if self.record else None
        self._post(outcome, snapshot)

    def _batch(self, reqs: list[ToolRequest]) -> list[Answer]:
        """Answers, in order, for requests the script issued together:
        recorded ones replayed, the actor's tools called here, caller-side
        ones answered by the pool."""
        answers: list[Answer | None] = []
        fresh: list[ToolCall] = []
        for req in reqs:
            k = self.index
            self.index += 1
            if k < len(self.replay):
                rec = self.replay[k]
                if rec.method != req.method or rec.params != req.params or rec.answer is None:
                    raise _Diverge(RunDiverged(k, (rec.method, rec.params), (req.method, req.params)))
                answers.append(rec.answer)  # replayed: the tool is not called again
                continue
            if req.method.removeprefix("mcp:") in self.local:
                call = ToolCall(req.method, req.params, None)
            else:
                call = ToolCall(req.method, req.params, self.session.tool.sandbox.answer_request(req))
            answers.append(call.answer)
            fresh.append(call)
        waiting = [i for i, a in enumerate(answers) if a is None]
        if waiting or (self.record and fresh):
            replied = self._ask(CallsIssued(fresh))
            if len(replied) != len(waiting):
                raise RuntimeError(f"the pool answered {len(replied)} calls, {len(waiting)} were asked")
            for i, answer in zip(waiting, replied):
                answers[i] = answer
        return [a if a is not None else Answer(error="no answer") for a in answers]

    # -- actor side -----------------------------------------------------------

    def stop(self, reason: str) -> None:
        """Make the run end now (from the actor's loop): cancel the script
        and wake the thread if it waits for the pool."""
        if self.stopping is None:
            self.stopping = reason
        self.session.tool.sandbox.cancel()
        self.replies.put(_STOP)


def _rss_bytes() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _snapshot(tool: SandboxTool) -> bytes | None:
    snapshot = getattr(tool.sandbox, "snapshot", None)
    return snapshot() if snapshot is not None else None


class SandboxActor:
    """The sandboxes of many sessions in one worker process."""

    def __init__(self, config: ActorConfig) -> None:
        tools = [load_tool(name, blob) for name, blob in config.tools]
        stubs = [load_tool(name, blob) for name, blob in config.local_stubs]
        self._funcs = tools + stubs
        self._local = frozenset(name for name, _ in config.local_stubs)
        self._args: dict[str, Any] = pickle.loads(config.sandbox_args)
        self._recover = config.recover
        self._sessions: dict[str, _Session] = {}
        self._runs: dict[str, _Run] = {}
        self._threads = ThreadPoolExecutor(max_workers=config.runs, thread_name_prefix="amla-run")
        self._closing = False
        # The pool showed create_sandbox_tool's warnings once, in the caller.
        warnings.filterwarnings("ignore", category=UserWarning, module=r"amla_sandbox\.bash_tool")

    # -- sessions ---------------------------------------------------------------

    def _open(self, sid: str, spec: SessionSpec, snapshot: bytes | None) -> None:
        extra: dict[str, Any] = {} if snapshot is None else {"snapshot": snapshot}
        tool = create_sandbox_tool(
            self._funcs, constraints=spec.constraints, max_calls=spec.max_calls, **self._args, **extra
        )
        old = self._sessions.pop(sid, None)
        self._sessions[sid] = _Session(tool, spec)
        if old is not None:
            with old.lock:
                old.tool.close()

    def _close(self, sid: str) -> None:
        s = self._sessions.pop(sid, None)
        if s is not None:
            with s.lock:
                s.tool.close()

    def _session(self, sid: str) -> _Session:
        s = self._sessions.get(sid)
        if s is None:
            raise KeyError(f"session {sid!r} is not open on this actor")
        return s

    async def _in_thread(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(None, fn, *args)

    async def ping(self) -> dict[str, int]:
        """Alive: the sessions and runs held, and this process's resident
        memory in bytes (0 where it cannot be read)."""
        return {"sessions": len(self._sessions), "runs": len(self._runs), "rss_bytes": _rss_bytes()}

    async def open_session(self, sid: str, spec: SessionSpec, snapshot: bytes | None) -> None:
        """Open (or replace) a session, from `snapshot` if given."""
        await self._in_thread(self._open, sid, spec, snapshot)

    async def close_session(self, sid: str) -> None:
        await self._in_thread(self._close, sid)

    async def snapshot(self, sid: str) -> tuple[int, bytes]:
        """The session's snapshot, as (its size, its bytes): the pool calls
        this with two returns and fetches only the size."""
        s = self._session(sid)

        def take() -> tuple[int, bytes]:
            with s.lock:
                data = _snapshot(s.tool)
            if data is None:
                raise NotImplementedError(
                    "this amla_sandbox cannot snapshot a sandbox (Sandbox.snapshot is missing)"
                )
            return len(data), data

        return await self._in_thread(take)  # type: ignore[no-any-return]

    async def call_counts(self, sid: str) -> dict[str, int]:
        s = self._session(sid)
        return dict(await self._in_thread(s.tool.sandbox.get_call_counts))

    async def remaining_calls(self, sid: str, key: str) -> int | None:
        s = self._session(sid)
        return await self._in_thread(s.tool.sandbox.get_remaining_calls, key)  # type: ignore[no-any-return]

    # -- runs -------------------------------------------------------------------

    async def begin(
        self,
        run_id: str,
        sid: str,
        code: str,
        language: str,
        stdin: str | None,
        replay: list[ToolCall],
        open_spec: SessionSpec | None,
        snapshot: bytes | None,
        trace: dict[str, str] | None = None,
    ) -> tuple[Event, bytes | None]:
        """Start a run (opening the session first when `open_spec` is given,
        from `snapshot` if that is not None); return its first event and,
        with `RunFinished`, the session's snapshot after it. `trace` is the
        pool's caller's trace context (W3C headers), which the run's span
        joins."""
        if self._closing:
            return RunStopped("the pool is closing"), None
        if open_spec is not None:
            await self._in_thread(self._open, sid, open_spec, snapshot)
        run = _Run(self._session(sid), code, language, stdin, replay, self._local, self._recover, trace)
        self._runs[run_id] = run
        self._threads.submit(run.body)
        return await self._next(run_id, run)

    async def advance(self, run_id: str, reply: Reply) -> tuple[Event, bytes | None]:
        """Hand the pool's reply to the run; return its next event."""
        run = self._runs.get(run_id)
        if run is None:
            return RunCrashed(f"no run {run_id!r} on this actor"), None
        run.replies.put(reply)
        return await self._next(run_id, run)

    async def _next(self, run_id: str, run: _Run) -> tuple[Event, bytes | None]:
        event, snapshot = await run.events.get()
        if not isinstance(event, CallsIssued):
            self._runs.pop(run_id, None)
        return event, snapshot

    async def cancel(self, run_id: str) -> None:
        """Stop a run the pool gave up on (its caller went away)."""
        run = self._runs.pop(run_id, None)  # nobody will read its last event
        if run is not None:
            run.stop("the caller gave up on the run")

    async def shutdown(self) -> None:
        """Stop every run, then close every sandbox (removing its files)."""
        self._closing = True
        for run in list(self._runs.values()):
            run.stop("the pool is closing")
        await self._in_thread(self._close_all)

    def _close_all(self) -> None:
        for sid in list(self._sessions):
            s = self._sessions.pop(sid)
            # A stopped run ends within milliseconds; do not wait forever.
            locked = s.lock.acquire(timeout=10)
            try:
                s.tool.close()
            finally:
                if locked:
                    s.lock.release()
        self._threads.shutdown(wait=False)
