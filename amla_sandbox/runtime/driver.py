"""The run driver: one Go-core sandbox (`Runtime`: its directory, budgets
and limits) and the one state machine that runs scripts in it.

A run lives in the Go core. Python asks it one question at a time (a step
with a short timeout, so Ctrl-C and cancellation are noticed between
steps), answers tool requests and approvals by id, or cancels it, always
naming the run. `_advance` handles each event of the core once: output
goes to the run's `on_output`, the end of the run becomes its `RunResult`,
and what needs an answer (a tool request, an approval, a script waiting on
answers) is handed to the pump driving the run. There are three pumps over
it, which differ only in how they wait and answer:

- `Runtime.run` blocks: requests are answered as they come (or in batches,
  or started elsewhere and answered when done);
- `Runtime.run_async` runs in an event loop: one step at a time on a
  worker thread, each request's handler a task of its own;
- `start` / `has_work` / `step` / `resume` / `result` hand the requests to
  the caller.

Both whole-run pumps refuse to start a run from inside a run of the same
sandbox (a tool handler, an output callback, or what they start): the
context variable `_RUNNING_IN` names the runtimes whose runs the current
context is inside. What durable runs do (record, replay, approval) is the
`DurableStrategy` the runtime was configured with; the core does the work.
"""

from __future__ import annotations

import builtins
import contextlib
import contextvars
import inspect
import itertools
import json
import os
import re
import threading
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, Union

from .. import _wasm
from .. import observability as _obs
from .._language import normalize_language
from ..errors import RuntimeError, StaleRunError  # noqa: A004
from .awaiting import SyncAwaiter
from .cache import resolve_wasm, sandbox_cache_config
from .config import RuntimeConfig, ToolHandler, check_limits, check_positive_int
from .pipeline import CODE_CANCELLED, CODE_INTERNAL, CODE_INVALID, Answer, ToolPipeline, ToolRequest, encode_result, safe_text
from .result import RunResult

if TYPE_CHECKING:
    import asyncio
    import concurrent.futures

    from .. import _core
    from ..capabilities import ToolCallCap
else:
    _core = None  # the door to the Go core: loaded by the first Runtime (_load_core)

__all__ = ["AnswerBatch", "AnswerRequest", "AsyncAnswerRequest", "DurableStrategy", "RunState", "Runtime"]

# How a pump answers one request, or the requests a script issued together.
AnswerRequest = Callable[[ToolRequest], Answer]
AsyncAnswerRequest = Callable[[ToolRequest], Awaitable[Answer]]
AnswerBatch = Callable[[list[ToolRequest]], list[Answer]]


class DurableStrategy(Protocol):
    """What durable runs do, handed to the driver (amla_sandbox.durable's
    `Durability` is the one Sandbox uses). The driver calls it at a run's
    start and end and for each approval; it never reaches into the driver."""

    def start(
        self, handle: int, *, language: str, code: str, stdin: str, has_stdin: bool, stream: bool, replay: Any
    ) -> tuple[int, Any] | None:
        """Start the sandbox's next run as a durable one when it is one (its
        id in the core, and what its end must fetch); None for a plain run."""

    def finish(self, handle: int, run_id: int, kept: Any, result: dict[str, Any]) -> tuple[bytes | None, BaseException | None]:
        """After a durable run ended: the journal its result carries, and the
        exception its outcome raises (a pause for approval, a divergence)."""

    def decide(self, method: str, params: Any) -> bool | Awaitable[bool]:
        """Whether a call that needs approval may run (True only: anything
        else, or an exception, refuses it)."""


def _load_core() -> None:
    """Load the Go core (amla_sandbox._core, and with it the extension) when
    the first Runtime is made: importing the package does not load it."""
    global _core
    if _core is None:
        from .. import _core as core

        _core = core


def _js_wasm_path() -> Path:
    """The JavaScript guest (QuickJS-NG): `$AMLA_JS_WASM_PATH`, else the
    bundled file."""
    path = _wasm.get_js_wasm_path()
    if not path.is_file():
        raise FileNotFoundError(
            f"JavaScript guest not found at {path}. Reinstall amla-sandbox or set AMLA_JS_WASM_PATH."
        )
    return path


# The runtimes (by serial number) whose runs the current context is inside:
# their tool handlers and output callbacks run in it, and so does what they
# start (asyncio tasks and to_thread copy it). A run started from there on
# one of these runtimes would wait for the run waiting on it, so both run
# pumps refuse it.
_RUNNING_IN: contextvars.ContextVar[frozenset[int]] = contextvars.ContextVar("amla_running_in", default=frozenset())
_SERIALS = itertools.count(1)

_STEP_MS = 100  # how long one step may wait in Go before Python looks again
_STARTED_WAIT = 0.02  # seconds a run waiting on started calls waits for one before it steps again
_ABANDONED = "run abandoned: the host stopped answering tool calls"
_ASYNC_APPROVAL_IN_LOOP = (
    "an async approval_handler cannot be awaited by execute() inside a running event loop: use execute_async()"
)

_KEY_RE = re.compile(r"^ed25519:[0-9a-fA-F]{64}$")


def _new_sandbox(config: dict[str, Any]) -> int:
    """The core's SandboxNew. A network policy it refuses is the caller's
    bad argument: a ValueError whose message (from the core, "network:
    ...") names the policy's field at fault."""
    try:
        return _core.sandbox_new(config)
    except ValueError:
        raise
    except Exception as e:
        if str(e).startswith("network: "):
            raise ValueError(str(e)) from None
        raise


def _caps_json(caps: list[Any]) -> str:
    from ..capabilities import policy_json

    return policy_json(caps)


@dataclass(eq=False)
class RunState:
    """One run as Python drives it: its id in the core, and what its events
    do here. Events are asked of one run by its id (the core refuses an id
    that is not the sandbox's current run), and land only on that run's
    object, so a late step of a given-up run never touches the next one."""

    id: int
    on_output: Callable[[str], None] | None
    running: bool = True
    # Its driver gave it up (a cancelled execute_async): late events are dropped.
    abandoned: bool = False
    result: RunResult | None = None
    # A durable run (journaled, replayed, or asking for approvals): what
    # its end fetches (the runtime's DurableStrategy).
    durable: Any = None
    language: str = ""
    # Its trace's parent context and start time when telemetry is on
    # (amla_sandbox/observability.py).
    trace: Any = None


# What `_advance` hands a pump: the events that need something of it.


@dataclass
class _Output:
    """Standard output for a pump that delivers it itself (run_async)."""

    data: str


@dataclass
class _Approval:
    """A call that waits for the approval handler's decision."""

    id: int
    method: str
    params: Any


@dataclass
class _Waiting:
    """The script waits on the answers to requests already handed out."""

    ids: list[int]


_Event = Union[ToolRequest, _Approval, _Waiting, _Output, None]


def _retrieve(future: Any) -> None:
    if not future.cancelled():
        future.exception()


def _release(handle: int) -> None:
    try:
        _core.sandbox_close(handle)
    except Exception:
        pass  # at exit, or in a forked child: nothing more can be done


# --------------------------------------------------------------------------
# Runtime
# --------------------------------------------------------------------------


class Runtime:
    """One sandbox in the Go core: its directory, capability budgets, limits,
    and the run driver. `execute()` runs a shell command line; `run()` and
    `run_async()` run a script in any language and return its RunResult."""

    def __init__(self, config: RuntimeConfig) -> None:
        self._config = config
        self._handle = 0
        # Runs are one at a time; a plain Lock (not RLock) because execute_async
        # acquires it on a worker thread and releases it on the event loop's.
        self._lock = threading.Lock()
        self._serial = next(_SERIALS)
        self._audit_collector: Any = None
        self._run: RunState | None = None
        # Audit entries as recorded; encoded to JSONL when drained, so a run
        # nobody audits does not pay for the encoding.
        self._audit_lines: list[tuple[str, datetime, dict[str, Any]]] = []
        self._session_id = os.urandom(8).hex()
        # What durable runs do (None: plain runs), and the methods of
        # mounted MCP servers' tools (traces tell them apart).
        self._durable: DurableStrategy | None = config.durable
        self._mcp_methods = frozenset(config.mcp_methods)
        # Drives async approval handlers in blocking runs.
        self._awaiter = SyncAwaiter()
        check_limits(config.timeout, config.memory_limit, config.max_tool_result_size)
        check_positive_int("max_output_size", config.max_output_size)
        check_positive_int("max_steps", config.max_steps)
        check_positive_int("disk_quota", config.disk_quota)
        wasm = resolve_wasm(config.wasm_path)
        js_wasm = _js_wasm_path()
        # The Python guest is optional here: a run in Python says it is
        # missing (start()), the other languages do not need it.
        py_wasm = _wasm.get_py_wasm_path()
        if config.python_data:
            py_wasm = _wasm.get_py_data_wasm_path()
            if not py_wasm.is_file():
                raise FileNotFoundError(
                    f"python_data=True: this installation has no Python data guest ({py_wasm}); {_wasm.PY_DATA_HOW}"
                )
        self._py_wasm = py_wasm if py_wasm.is_file() else None
        if not config.trusted_authorities:
            raise RuntimeError(
                "No trusted authorities configured. Use Runtime.for_testing() for development, "
                "or set trusted_authorities in RuntimeConfig."
            )
        if not all(isinstance(k, str) and _KEY_RE.match(k) for k in config.trusted_authorities):
            raise RuntimeError(
                f"Failed to set trusted authorities. Check public key format: {config.trusted_authorities}"
            )
        if not config.pca_bytes:
            raise RuntimeError("No PCA provided. Create one with EphemeralAuthority().create_pca().")
        if not isinstance(config.tools_json, str):
            raise TypeError(f"tools_json must be a str of JSON, got {type(config.tools_json).__name__}")
        self._capabilities_list = list(config.capabilities)
        _load_core()
        # One call makes the sandbox: the core checks the guests, verifies the
        # PCA, builds the capability policy (narrowed to what the PCA grants),
        # finds the compiled guests and creates the directory.
        self._handle = _new_sandbox(
            {
                "wasm_path": str(wasm),
                "js_wasm_path": str(js_wasm),
                "py_wasm_path": str(self._py_wasm) if self._py_wasm is not None else "",
                "python_packages": config.python_packages_dir or "",
                **sandbox_cache_config(),
                "pca": bytes(config.pca_bytes).hex(),
                "trusted_authorities": list(config.trusted_authorities),
                "capabilities": json.loads(_caps_json(self._capabilities_list)),
                "tools_json": config.tools_json,
                "timeout": float(config.timeout),
                "memory_limit": int(config.memory_limit),
                "max_tool_result": int(config.max_tool_result_size),
                "max_output": int(config.max_output_size),
                "max_tool_calls": int(config.max_steps),
                "disk_quota": int(config.disk_quota),
                **({"network": config.network} if config.network is not None else {}),
                "keep_state": bool(config.keep_state),
            }
        )
        self._finalizer = weakref.finalize(self, _release, self._handle)
        if config.durable_key is not None:
            try:
                _core.sandbox_set_durable_key(self._handle, bytes(config.durable_key))
            except BaseException:
                self.close()
                raise
        _obs.sandbox_opened(self)
        self._pipeline = ToolPipeline(
            config.tool_handler, strip_prefix=False, no_handler="No tool handler configured", show_params=False
        )

    @classmethod
    def for_testing(
        cls,
        capabilities: list[str] | None = None,
        tool_handler: ToolHandler | None = None,
        tools_json: str = "[]",
        wasm_path: Path | None = None,
        max_steps: int = 10000,
    ) -> Runtime:
        from ..auth import EphemeralAuthority
        from ..capabilities import ToolCallCap

        patterns = list(capabilities) if capabilities is not None else ["tool_call:**"]
        authority = EphemeralAuthority()
        pca = authority.create_pca(capabilities=patterns)
        caps = [ToolCallCap(method_pattern=p.removeprefix("tool_call:")) for p in patterns]
        return cls(
            RuntimeConfig(
                wasm_path=wasm_path,
                pca_bytes=pca.to_cbor(),
                trusted_authorities=[authority.public_key_hex()],
                capabilities=caps,
                tool_handler=tool_handler,
                tools_json=tools_json,
                max_steps=max_steps,
            )
        )

    # -- capabilities -----------------------------------------------------

    @property
    def _capabilities(self) -> list[ToolCallCap]:
        return self._capabilities_list

    @_capabilities.setter
    def _capabilities(self, caps: list[ToolCallCap]) -> None:
        caps = list(caps)
        self._require_open()
        _core.sandbox_set_capabilities(self._handle, _caps_json(caps))
        self._capabilities_list = caps

    def can_call(self, method: str, params: dict[str, Any] | None = None) -> bool:
        if not self._handle:
            return False
        text, err = encode_result({} if params is None else params)
        if err is not None or text is None:
            return False
        try:
            return _core.sandbox_check_call(self._handle, method, text) == ""
        except (UnicodeError, ValueError):
            return False  # text Go cannot take (a lone surrogate) is no call anyone allowed

    def get_capabilities(self) -> list[ToolCallCap]:
        return list(self._capabilities_list)

    def get_remaining_calls(self, capability_key: str) -> int | None:
        if not self._handle:
            return None
        n = _core.sandbox_remaining(self._handle, capability_key)
        return None if n < 0 else n

    def get_call_counts(self) -> dict[str, int]:
        from ..capabilities import CallCounts

        if not self._handle:
            return CallCounts({})
        return CallCounts(_core.sandbox_counts(self._handle))

    def register_tools(self, tools: Any) -> None:
        """Accepted and ignored (tools are fixed at construction)."""

    def set_audit_collector(self, collector: Any) -> None:
        self._audit_collector = collector

    # -- last run ---------------------------------------------------------

    @property
    def _running(self) -> bool:
        return self._run is not None and self._run.running

    @property
    def _last(self) -> RunResult | None:
        return self._run.result if self._run is not None else None

    @property
    def last_result(self) -> RunResult | None:
        return self._last

    @property
    def last_stderr(self) -> str:
        return self._last.stderr if self._last else ""

    @property
    def last_exit_code(self) -> int:
        return self._last.exit_code if self._last else 0

    @property
    def last_elapsed_ns(self) -> int | None:
        return int(self._last.duration_ms * 1_000_000) if self._last else None

    @property
    def last_user_time_ns(self) -> int | None:
        return None

    @property
    def last_sys_time_ns(self) -> int | None:
        return None

    def drain_audit_jsonl(self) -> str:
        """Audit lines (JSONL) of runs since the last drain."""
        entries, self._audit_lines = self._audit_lines, []
        return "\n".join(
            json.dumps(
                {"type": kind, "session_id": self._session_id, "timestamp": when.isoformat(), **data},
                default=str,
            )
            for kind, when, data in entries
        )

    # -- the sandbox between runs (Sandbox and durable sessions use these) ---

    @property
    def is_open(self) -> bool:
        """False once close() has released the sandbox."""
        return bool(self._handle)

    @property
    def handle(self) -> int:
        """The core's handle of this sandbox, for the modules that call
        amla_sandbox._core with it (files); 0 once closed."""
        return self._handle

    @property
    def session_id(self) -> str:
        """This sandbox's id in audit lines and telemetry."""
        return self._session_id

    @property
    def mcp_methods(self) -> frozenset[str]:
        """The methods of mounted MCP servers' tools."""
        return self._mcp_methods

    @property
    def running(self) -> bool:
        """A run is in progress (started and not yet ended)."""
        return self._running

    def _require_idle(self, what: str) -> None:
        self._require_open()
        if self._running:
            raise builtins.RuntimeError(f"{what}: a run is in progress on this sandbox")

    def set_tools(self, tools_json: str) -> None:
        """Replace the tools scripts can call (JSON of their definitions),
        from the next run on."""
        self._require_open()
        _core.sandbox_set_tools(self._handle, tools_json)

    def set_capabilities_budgeted(self, caps: list[ToolCallCap]) -> None:
        """Replace the capabilities; new limited ones get their budgets,
        budgets already spent stay spent."""
        self._require_open()
        caps = list(caps)
        _core.sandbox_set_capabilities_budgeted(self._handle, _caps_json(caps))
        self._capabilities_list = caps

    def snapshot(self, compress: bool = False) -> bytes:
        """The sandbox's files and budgets in the snapshot format (docs/durable.md)."""
        self._require_open()
        data: bytes = _core.sandbox_snapshot(self._handle, bool(compress))
        return data

    def restore(self, data: bytes) -> None:
        """Replace the files with a snapshot's and lower the budgets to its
        (ValueError for a damaged or foreign snapshot)."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"a snapshot is bytes, got {type(data).__name__}")
        if self._running:
            raise builtins.RuntimeError("restore: a run is in progress on this sandbox")
        self._require_open()
        _core.sandbox_restore(self._handle, bytes(data))

    def restore_journal_start(self, journal: bytes) -> None:
        """Put the sandbox in the start state a journal records."""
        self._require_open()
        _core.sandbox_restore_journal_start(self._handle, bytes(journal))

    def copy_files_to(self, other: Runtime) -> None:
        """Copy this sandbox's files and budgets into `other`."""
        self._require_open()
        other._require_open()
        _core.sandbox_copy_files(self._handle, other._handle)

    # -- the state machine ----------------------------------------------------

    def _require_open(self) -> None:
        if not self._handle:
            raise builtins.RuntimeError("Sandbox not initialized")

    def start(
        self,
        code: str,
        language: str = "shell",
        *,
        stdin: str | bytes | None = None,
        on_output: Callable[[str], None] | None = None,
        replay: Any = None,
    ) -> None:
        """Begin running `code`; drive it with has_work/step/resume. `replay`
        (what the DurableStrategy replays, amla_sandbox.durable.Replay)
        replays a journal instead of running live."""
        self._require_open()
        language = normalize_language(language)
        if not isinstance(code, str):
            raise TypeError(f"code must be a str, got {type(code).__name__}")
        if isinstance(stdin, bytes):
            stdin = stdin.decode("utf-8", errors="replace")
        if stdin is not None and not isinstance(stdin, str):
            raise TypeError(f"stdin must be str or bytes, got {type(stdin).__name__}")
        if self._running:
            raise builtins.RuntimeError(
                "a run is already in progress on this sandbox: finish it (result()) or cancel() it first"
            )
        if language == "python" and self._py_wasm is None:
            raise FileNotFoundError(
                f"Python guest not found at {_wasm.get_py_wasm_path()}. Reinstall amla-sandbox "
                "(its wheel carries amla_python.wasm) or set AMLA_PY_WASM_PATH."
            )
        if replay is not None and self._durable is None:
            raise ValueError("a replay needs a durable strategy (RuntimeConfig.durable)")
        previous = self._run
        if previous is not None and previous.result is None:
            # A run whose driver gave up on it (a cancelled task, an error in
            # a handler) may still be ending: stop it so this one can start.
            self._cancel(previous)
        trace = _obs.run_started()
        code, text = safe_text(code), safe_text(stdin or "")
        started = None
        if self._durable is not None:
            started = self._durable.start(
                self._handle,
                language=language,
                code=code,
                stdin=text,
                has_stdin=stdin is not None,
                stream=on_output is not None,
                replay=replay,
            )
        if started is not None:
            run_id, kept = started
        else:
            run_id, kept = _core.sandbox_start(
                self._handle, language, code, text, stdin is not None, on_output is not None
            ), None
        self._run = RunState(run_id, on_output, durable=kept, language=language, trace=trace)
        self._audit("command_create", {"language": language, "code_bytes": len(code)})

    def _advance(self, run: RunState, take: bool, timeout_ms: int = _STEP_MS) -> _Event:
        """One question to `run`: handles its event (output, its end) and
        returns what needs the pump (None when nothing does)."""
        if not self._handle:
            raise builtins.RuntimeError("Sandbox not initialized")
        ev = _core.sandbox_step(self._handle, run.id, timeout_ms, take)
        if run.abandoned:
            # A thread still stepping a run its driver gave up (a cancelled
            # execute_async): the event is that run's, and nobody wants it.
            return None
        kind = ev["kind"]
        if kind == "request":
            return ToolRequest(id=int(ev["id"]), method=ev["method"], params=ev.get("params"))
        if kind == "approval":
            return _Approval(id=int(ev["id"]), method=ev["method"], params=ev.get("params"))
        if kind == "waiting":
            return _Waiting(ev["ids"])
        if kind == "output":
            if ev.get("stream") == "stdout":
                data = ev.get("data", "")
                if run.on_output is not None:
                    run.on_output(data)
                else:
                    return _Output(data)
        elif kind == "done":
            result = ev.get("result") or {}
            if ev.get("output_apart"):
                result["stdout"] = _core.sandbox_take_output(self._handle, run.id, "stdout")
                result["stderr"] = _core.sandbox_take_output(self._handle, run.id, "stderr")
            self._finish(run, result)
        return None

    def _finish(self, run: RunState, result: dict[str, Any]) -> None:
        journal: bytes | None = None
        durable_error: BaseException | None = None
        if run.durable is not None and self._durable is not None:
            journal, durable_error = self._durable.finish(self._handle, run.id, run.durable, result)
        last = run.result = RunResult.from_core(result, journal=journal, durable_error=durable_error)
        run.running = False
        run.on_output = None
        if run.trace is not None:
            _obs.run_finished(self, run, last)
        for call in last.tool_calls:
            self._audit(
                "tool_call",
                {"method": call.method, "ok": call.ok, "duration_ms": call.duration_ms, "error": call.error},
            )
        self._audit("command_exit", {"exit_code": last.exit_code, "duration_ms": last.duration_ms})
        if self._audit_collector is not None:
            drain = getattr(self._audit_collector, "drain_from_runtime", None)
            if drain is not None:
                drain(self)

    def _audit(self, kind: str, data: dict[str, Any]) -> None:
        self._audit_lines.append((kind, datetime.now(timezone.utc), data))
        if len(self._audit_lines) > 10000:
            del self._audit_lines[:-10000]

    # Approvals: the strategy decides, the core is answered here. A
    # decision that fails, or is anything but True, refuses the call:
    # approval narrows, it never widens.

    def _decision(self, ask: _Approval) -> bool | Awaitable[bool]:
        if self._durable is None:
            return False
        try:
            return self._durable.decide(ask.method, ask.params)
        except Exception:
            return False

    def _approve(self, run: RunState, ask: _Approval, decision: Any) -> None:
        _core.sandbox_approve(self._handle, run.id, ask.id, decision is True)

    def _approve_sync(self, run: RunState, ask: _Approval) -> None:
        decision = self._decision(ask)
        if inspect.isawaitable(decision):
            try:
                decision = self._awaiter.run(decision, RuntimeError(_ASYNC_APPROVAL_IN_LOOP))
            except Exception:
                decision = False
        self._approve(run, ask, decision)

    async def _approve_async(self, run: RunState, ask: _Approval) -> None:
        decision = self._decision(ask)
        if inspect.isawaitable(decision):
            try:
                decision = await decision
            except Exception:
                decision = False
        self._approve(run, ask, decision)

    def _answer(self, run: RunState | None, id: int, answer: Answer) -> None:
        if run is None:
            raise RuntimeError(f"resume: no run has been started, so there is no request {id} to answer")
        try:
            if answer.error is None:
                try:
                    _core.sandbox_resume(self._handle, run.id, id, answer.text or "null")
                    return
                except (UnicodeError, ValueError):
                    answer = Answer(
                        code=CODE_INVALID,
                        error="Invalid payload JSON: the tool result contains text that is not valid "
                        "Unicode (a lone surrogate)",
                    )
            _core.sandbox_resume_error(self._handle, run.id, id, answer.code, safe_text(answer.error or ""))
        except builtins.RuntimeError:
            if not self._handle:
                raise builtins.RuntimeError("Sandbox not initialized") from None
            raise

    def cancel(self) -> None:
        """Stop the run in progress, if any (from any thread). A computing or
        sleeping script stops within milliseconds; the sandbox stays usable."""
        run = self._run
        if run is not None:
            self._cancel(run)

    def _cancel(self, run: RunState) -> None:
        if not self._handle:
            return
        try:
            _core.sandbox_cancel(self._handle, run.id)
        except (StaleRunError, builtins.RuntimeError):
            # A later run replaced it (so it has ended), or the sandbox was
            # closed meanwhile: nothing of this run is left to stop.
            pass

    def _abandon(self, run: RunState | None) -> None:
        """Cancel the run after an error or interrupt in Python and wait
        (briefly: a cancelled guest stops at once) for it to end."""
        if run is None or not run.running:
            return
        self._cancel(run)
        try:
            while run.running and self._handle:
                self._advance(run, take=True, timeout_ms=1000)
        except BaseException:
            pass
        run.running = False

    def _outcome(self, run: RunState) -> RunResult:
        if run.result is None:
            # The run was taken away (close() from another thread).
            if not self._handle:
                raise builtins.RuntimeError("Sandbox not initialized")
            raise RuntimeError("Runtime error: the run ended without a result")
        run.result.raise_for_error()
        return run.result

    # -- the caller's pump: start / has_work / step / resume / result --------

    def has_work(self) -> bool:
        """True while the run has tool requests to answer: a new one is
        queued, or the script waits on ones `step()` already returned.
        Blocks while the script computes; False once it has ended."""
        run = self._run
        try:
            while run is not None and run.running:
                got = self._advance(run, take=False)
                if isinstance(got, _Approval):
                    self._advance(run, take=True)
                    self._approve_sync(run, got)
                elif isinstance(got, (ToolRequest, _Waiting)):
                    return True
            return False
        except BaseException:
            self._abandon(run)
            raise

    def step(self) -> ToolRequest | None:
        """The next tool request, or None once the run has ended."""
        run = self._run
        try:
            while run is not None and run.running:
                got = self._advance(run, take=True)
                if isinstance(got, ToolRequest):
                    return got
                if isinstance(got, _Approval):
                    self._approve_sync(run, got)
                if isinstance(got, _Waiting):
                    raise builtins.RuntimeError(
                        f"step(): the script waits for the answers to requests {got.ids}, which step() "
                        "already returned; answer them with resume() or resume_error()"
                    )
            return None
        except builtins.RuntimeError:
            raise
        except BaseException:
            self._abandon(run)
            raise

    def _target(self, id: int | None) -> int:
        if id is not None:
            return int(id)
        run = self._run
        last = _core.sandbox_last_handed(self._handle, run.id) if run is not None and run.running else 0
        if last == 0:
            raise builtins.RuntimeError("resume() without id: no request has been returned by step()")
        return last

    def resume(self, result: Any, *, id: int | None = None) -> None:
        """Answer a request with a JSON-serialisable value."""
        self._require_open()
        text, err = encode_result(result)
        if err is not None:
            self.resume_error(err, id=id)
            return
        self._answer(self._run, self._target(id), Answer(text=text or "null"))

    def resume_error(self, message: str, *, id: int | None = None) -> None:
        """Answer a request with an error: the script's promise rejects with it."""
        self._require_open()
        self._answer(self._run, self._target(id), Answer(code=CODE_INTERNAL, error=str(message)))

    def result(self) -> RunResult | None:
        """The finished run; drains the loop (answering nothing) if needed."""
        run = self._run
        try:
            while run is not None and run.running:
                got = self._advance(run, take=True)
                if isinstance(got, ToolRequest):
                    self._answer(run, got.id, Answer(code=CODE_CANCELLED, error=_ABANDONED))
                elif isinstance(got, _Approval):
                    self._approve(run, got, False)
                elif isinstance(got, _Waiting):
                    for i in got.ids:
                        self._answer(run, int(i), Answer(code=CODE_CANCELLED, error=_ABANDONED))
        except BaseException:
            self._abandon(run)
            raise
        return self._last

    def reset(self) -> None:
        """Discard the interpreter state kept between runs (keep_state): the
        next run of each language starts fresh. Files and budgets stay."""
        if not self._handle:
            raise builtins.RuntimeError("Sandbox not initialized")
        _core.sandbox_reset(self._handle)

    # -- whole runs: the blocking pump and the asyncio pump -------------------

    def _check_not_reentrant(self) -> None:
        if self._serial in _RUNNING_IN.get():
            raise builtins.RuntimeError(
                "this sandbox is already running a script in this thread (a tool handler may not run "
                "scripts on the sandbox that called it)"
            )

    @contextlib.contextmanager
    def _exclusive(self) -> Iterator[None]:
        """This thread's turn to run a script: refused from inside a run of
        this sandbox, else waits for the run in progress to end."""
        self._check_not_reentrant()
        self._lock.acquire()
        inside = _RUNNING_IN.set(_RUNNING_IN.get() | {self._serial})
        try:
            yield
        finally:
            _RUNNING_IN.reset(inside)
            self._lock.release()

    @contextlib.asynccontextmanager
    async def _exclusive_async(self) -> AsyncIterator[None]:
        """`_exclusive` for a task: the wait for the lock is cancellable."""
        import asyncio

        self._check_not_reentrant()
        # Polling keeps the wait cancellable: a cancelled waiter holds nothing.
        delay = 0.001
        while not self._lock.acquire(blocking=False):
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.02)
        inside = _RUNNING_IN.set(_RUNNING_IN.get() | {self._serial})
        try:
            yield
        finally:
            _RUNNING_IN.reset(inside)
            self._lock.release()

    def run(
        self,
        code: str,
        language: str = "shell",
        *,
        stdin: str | bytes | None = None,
        on_output: Callable[[str], None] | None = None,
        answer: AnswerRequest | None = None,
        answer_batch: AnswerBatch | None = None,
        starter: ToolPipeline | None = None,
        replay: Any = None,
    ) -> RunResult:
        """Run `code` to its end, blocking; return its RunResult, or raise
        what its failure is (RunResult.raise_for_error). Safe from any
        thread (runs of one sandbox take turns); refused from inside a run
        of this sandbox (a tool handler's, an output callback's).

        Tool requests are answered with `answer` (default: the configured
        tool handler). With `starter`, a request it starts (a call its
        handler runs elsewhere, such as on an MCP server) runs while the run
        goes on and is answered when done, so calls a script issues
        together (Promise.all) run concurrently. With `answer_batch`
        instead, the requests a script issued together (all it made before
        it next waited or computed for a whole step) are answered as one
        batch, in order. `replay` replays a journal (the DurableStrategy's)."""
        if starter is not None and answer_batch is not None:
            raise builtins.ValueError("run() takes starter or answer_batch, not both")
        handle = answer if answer is not None else self._pipeline.call_sync
        with self._exclusive():
            self.start(code, language, stdin=stdin, on_output=on_output, replay=replay)
            run = self._run
            assert run is not None
            started: dict[concurrent.futures.Future[Any], ToolRequest] = {}
            batch: list[ToolRequest] = []
            try:
                while run.running:
                    got = self._advance(run, take=True)
                    if isinstance(got, _Approval):
                        self._approve_sync(run, got)
                        continue
                    if answer_batch is not None:
                        if isinstance(got, ToolRequest):
                            batch.append(got)
                        elif batch:
                            for req, reply in zip(batch, answer_batch(batch), strict=True):
                                self._answer(run, req.id, reply)
                            batch = []
                        continue
                    if isinstance(got, ToolRequest):
                        future = starter.start(got) if starter is not None else None
                        if future is None:
                            self._answer(run, got.id, handle(got))
                        else:
                            started[future] = got
                    elif started:
                        # Answer the calls that are done; while the script waits,
                        # block for the first one for a moment (the script may also
                        # wait on a timer, and make new requests when it fires).
                        import concurrent.futures

                        wait = _STARTED_WAIT if isinstance(got, _Waiting) else 0
                        done = list(concurrent.futures.wait(started, wait, concurrent.futures.FIRST_COMPLETED)[0])
                        while done:
                            future = done.pop()
                            req = started.pop(future)
                            reply = starter.finish(req, future)  # type: ignore[union-attr]
                            del future  # it holds the result: one copy fewer while Go takes the answer
                            self._answer(run, req.id, reply)
            except BaseException:
                self._abandon(run)
                raise
            finally:
                for future in started:  # calls the script never waited for
                    future.cancel()
            return self._outcome(run)

    async def run_async(
        self,
        code: str,
        language: str = "shell",
        *,
        stdin: str | bytes | None = None,
        on_output: Callable[[str], None] | None = None,
        answer: AsyncAnswerRequest | None = None,
        replay: Any = None,
    ) -> RunResult:
        """`run()` in an event loop: each tool request's answer (`answer`,
        default the configured tool handler, awaited when async) is a task
        of its own, started the moment the script makes the call, so calls
        issued together run concurrently. `on_output` is called on the
        event loop's thread. Cancelling the task stops the run."""
        import asyncio

        handle = answer if answer is not None else self._pipeline.call_async
        async with self._exclusive_async():
            self.start(code, language, stdin=stdin, on_output=on_output, replay=replay)
            run = self._run
            assert run is not None
            # Output is handed to on_output here, on the event loop's thread,
            # not on the worker thread that steps the run.
            deliver, run.on_output = run.on_output, None
            # A request's handler starts the moment the script makes the call,
            # and its answer goes back the moment it is done: calls issued
            # together (Promise.all) run concurrently, and a quick call's answer
            # never waits for a slow one. One step of the run is outstanding at
            # a time, on a worker thread; while the script waits on calls, the
            # next step waits for an answer (or a moment: the script may also
            # wait on a timer, and make new requests when it fires).
            calls: dict[asyncio.Future[Any], ToolRequest] = {}
            step: asyncio.Future[_Event] | None = None
            held = False
            try:
                while run.running:
                    if step is None and not held:
                        step = asyncio.ensure_future(asyncio.to_thread(self._advance, run, True, _STEP_MS))
                    waits: set[asyncio.Future[Any]] = set(calls)
                    if step is not None:
                        waits.add(step)
                    done, _ = await asyncio.wait(
                        waits, timeout=_STARTED_WAIT if held else None, return_when=asyncio.FIRST_COMPLETED
                    )
                    held = False
                    answered = False
                    for call in done:
                        if call is not step:
                            self._answer(run, calls.pop(call).id, call.result())
                            answered = True
                    if step is not None and step in done:
                        got, step = step.result(), None
                        if isinstance(got, _Output):
                            if deliver is not None:
                                deliver(got.data)
                        elif isinstance(got, ToolRequest):
                            calls[asyncio.ensure_future(handle(got))] = got
                        elif isinstance(got, _Waiting) and calls and not answered:
                            held = True
                        elif isinstance(got, _Approval):
                            await self._approve_async(run, got)
            except BaseException:
                # Cancelled (or failed): stop the guest without blocking the
                # event loop. The worker thread may still be in (or about to
                # enter) a step of this run: it asks by this run's id, so the
                # core refuses it once the next run has started, and its
                # event is dropped here (abandoned).
                run.abandoned = True
                run.running = False
                self._cancel(run)
                if step is not None:
                    # Its outcome (an error once the sandbox is closed) is
                    # nobody's: retrieve it so asyncio does not report it.
                    step.add_done_callback(_retrieve)
                raise
            finally:
                for call in calls:  # calls the script never waited for
                    call.cancel()
            return self._outcome(run)

    def _run_sync(
        self,
        code: str,
        language: str,
        handle: AnswerRequest,
        on_output: Callable[[str], None] | None,
        stdin: str | bytes | None,
        starter: ToolPipeline | None = None,
        replay: Any = None,
        *,
        handle_many: AnswerBatch | None = None,
    ) -> RunResult:
        """`run()` with the positional arguments of earlier releases."""
        return self.run(
            code, language, stdin=stdin, on_output=on_output, answer=handle, answer_batch=handle_many,
            starter=starter, replay=replay,
        )

    async def _run_async(
        self,
        code: str,
        language: str,
        handle: AsyncAnswerRequest,
        on_output: Callable[[str], None] | None,
        stdin: str | bytes | None,
    ) -> RunResult:
        """`run_async()` with the positional arguments of earlier releases."""
        return await self.run_async(code, language, stdin=stdin, on_output=on_output, answer=handle)

    def execute(
        self,
        command: str,
        on_output: Callable[[str], None] | None = None,
        stdin: str | bytes | None = None,
    ) -> str:
        """Run a shell command line; return its stdout."""
        self._require_open()
        return self.run(command, "shell", stdin=stdin, on_output=on_output).stdout

    async def execute_async(
        self,
        command: str,
        on_output: Callable[[str], None] | None = None,
        stdin: str | bytes | None = None,
    ) -> str:
        self._require_open()
        return (await self.run_async(command, "shell", stdin=stdin, on_output=on_output)).stdout

    def close(self) -> None:
        """End any run and remove the sandbox's directory."""
        if self._handle:
            self._finalizer()
            self._handle = 0
            if self._run is not None:
                self._run.running = False
        self._awaiter.close()
