"""Runtime: one Go-core sandbox (private directory, budgets, limits) and the
step/resume loop that runs scripts in it.

The Go core decides every tool call (capabilities, budgets) before Python
sees it. This module only moves JSON between Python tool handlers and the
core, and turns the core's results into Python values and exceptions.
"""

from __future__ import annotations

import builtins
import contextvars
import itertools
import json
import os
import re
import threading
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from .. import _wasm
from .. import observability as _obs
from .._language import normalize_language
from .cache import default_wasm_path, get_cache_dir, get_precompiled_path, precompile_module, sandbox_cache_config
from .cache import resolve_wasm as _resolve_wasm
from .pipeline import CODE_CANCELLED, CODE_INTERNAL, CODE_INVALID, Answer, ToolPipeline, ToolRequest, encode_result, safe_text

if TYPE_CHECKING:
    import concurrent.futures

    from .. import _core
    from ..capabilities import ToolCallCap
else:
    _core = None  # the door to the Go core: loaded by the first Runtime (_load_core)

__all__ = [
    "Runtime",
    "RuntimeConfig",
    "RuntimeError",
    "RuntimeStatus",
    "SyncToolHandler",
    "AsyncToolHandler",
    "ToolHandler",
    "precompile_module",
    "get_cache_dir",
    "get_precompiled_path",
    "default_wasm_path",
]

DEFAULT_TIMEOUT = 30.0
DEFAULT_MEMORY_LIMIT = 256 * 1024 * 1024
DEFAULT_MAX_TOOL_RESULT_SIZE = 64 * 1024 * 1024
DEFAULT_MAX_OUTPUT_SIZE = 32 * 1024 * 1024
DEFAULT_DISK_QUOTA = 1024 * 1024 * 1024
# The guest's Go runtime needs room of its own before any script runs.
MIN_MEMORY_LIMIT = 32 * 1024 * 1024


class RuntimeError(Exception):  # noqa: A001  (documented name, shadows the builtin)
    """A failure of the sandbox engine (not of the script or a tool)."""


class TimeoutError(RuntimeError):  # noqa: A001
    """A run used more than its `timeout` seconds of compute time."""


class MemoryLimitError(RuntimeError):
    """A run needed more memory than its `memory_limit`."""


class CancelledRunError(RuntimeError):
    """The run was stopped by `cancel()` or `close()` from another thread."""


class StaleRunError(RuntimeError):
    """An operation named a run that a later `start()` replaced: the core
    refuses it (a late step of a given-up run never touches the next run)."""


class RuntimeStatus(Enum):
    RUNNING = "running"
    ALL_BLOCKED = "all_blocked"
    ALL_DONE = "all_done"
    ERROR = "error"
    PANIC = "panic"


SyncToolHandler = Callable[[str, dict[str, Any]], Any]
AsyncToolHandler = Callable[[str, dict[str, Any]], Awaitable[Any]]
ToolHandler = Union[SyncToolHandler, AsyncToolHandler]


def _load_core() -> None:
    """Load the Go core (amla_sandbox._core, and with it the extension) when
    the first Runtime is made: importing the package does not load it."""
    global _core
    if _core is None:
        from .. import _core as core

        _core = core


# --------------------------------------------------------------------------
# Module cache: amla_sandbox/runtime/cache.py (names re-exported here, as
# documented)
# --------------------------------------------------------------------------


def _js_wasm_path() -> Path:
    """The JavaScript guest (QuickJS-NG): `$AMLA_JS_WASM_PATH`, else the
    bundled file."""
    path = _wasm.get_js_wasm_path()
    if not path.is_file():
        raise FileNotFoundError(
            f"JavaScript guest not found at {path}. Reinstall amla-sandbox or set AMLA_JS_WASM_PATH."
        )
    return path


# --------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------


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
    _paused: Any = field(default=None, repr=False)
    _divergence: Any = field(default=None, repr=False)

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

    def _raise_for_error(self) -> None:
        if self.error_kind in ("approval_required", "replay_divergence"):
            from ..durable import raise_for

            raise_for(self)
        if self.error_kind == "timeout":
            raise TimeoutError(self.error)
        if self.error_kind == "memory":
            raise MemoryLimitError(self.error)
        if self.error_kind == "cancelled":
            raise CancelledRunError(self.error)
        if self.error_kind:
            raise RuntimeError(self.error)


# The runtimes (by serial number) whose runs the current context is inside:
# their tool handlers and output callbacks run in it, and so does what they
# start (asyncio tasks and to_thread copy it). A run started from there on
# one of these runtimes would wait for the run waiting on it, so both run
# loops refuse it.
_RUNNING_IN: contextvars.ContextVar[frozenset[int]] = contextvars.ContextVar("amla_running_in", default=frozenset())
_SERIALS = itertools.count(1)

_STEP_MS = 100  # how long one step may wait in Go before Python looks again
_STARTED_WAIT = 0.02  # seconds a run waiting on started calls waits for one before it steps again
_ABANDONED = "run abandoned: the host stopped answering tool calls"


# --------------------------------------------------------------------------
# Runtime
# --------------------------------------------------------------------------

_KEY_RE = re.compile(r"^ed25519:[0-9a-fA-F]{64}$")


@dataclass
class RuntimeConfig:
    wasm_path: Path | None = None
    pca_bytes: bytes = b""
    trusted_authorities: list[str] = field(default_factory=list)
    capabilities: list[ToolCallCap] = field(default_factory=list)
    tool_handler: ToolHandler | None = None
    tools_json: str = "[]"
    max_steps: int = 10000
    output_buffer_size: int = 8192
    tool_result_chunk_size: int = 2048
    max_tool_result_size: int = DEFAULT_MAX_TOOL_RESULT_SIZE
    timeout: float = DEFAULT_TIMEOUT
    memory_limit: int = DEFAULT_MEMORY_LIMIT
    max_output_size: int = DEFAULT_MAX_OUTPUT_SIZE
    disk_quota: int = DEFAULT_DISK_QUOTA
    # A directory of pure-Python packages the Python guest mounts read-only
    # (Sandbox(python_packages=...) prepares it: _python_packages.py).
    python_packages_dir: str | None = None
    # The network policy's JSON (amla_sandbox.network.policy_json; None: no
    # network). The core checks it (gocore/netpolicy: ParsePolicy).
    network: dict[str, Any] | None = None
    # Keep each language's interpreter state between runs (docs/sessions.md).
    keep_state: bool = False
    # Run Python in the data guest, with numpy and pandas (docs/python.md).
    python_data: bool = False


def _check_limits(timeout: Any, memory_limit: Any, max_tool_result_size: Any) -> None:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    if timeout > 365 * 24 * 3600:
        raise ValueError(f"timeout must be at most one year of seconds, got {timeout!r}")
    if isinstance(memory_limit, bool) or not isinstance(memory_limit, int) or memory_limit < MIN_MEMORY_LIMIT:
        raise ValueError(
            f"memory_limit must be an int of at least {MIN_MEMORY_LIMIT} bytes (32 MiB), got {memory_limit!r}"
        )
    if memory_limit > 4 * 1024**3:
        raise ValueError(f"memory_limit must be at most 4 GiB (the wasm32 address space), got {memory_limit!r}")
    if (
        isinstance(max_tool_result_size, bool)
        or not isinstance(max_tool_result_size, int)
        or max_tool_result_size <= 0
    ):
        raise ValueError(f"max_tool_result_size must be a positive int, got {max_tool_result_size!r}")


def _check_positive_int(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name} must be a positive int, got {value!r}")


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
    from ..capabilities._counts import policy_json

    return policy_json(caps)


@dataclass(eq=False)
class _Run:
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
    # its end fetches (amla_sandbox/durable.py).
    durable: Any = None
    language: str = ""
    # Its trace's parent context and start time when telemetry is on
    # (amla_sandbox/observability.py).
    trace: Any = None


class Runtime:
    """One sandbox in the Go core: its directory, capability budgets, limits,
    and the run loop. `execute()` runs a shell command line."""

    # Durable sessions' settings (amla_sandbox/durable.py), set by Sandbox.
    _durability: Any = None
    # The methods of mounted MCP servers' tools (traces tell them apart).
    _mcp_methods: frozenset[str] = frozenset()

    def __init__(self, config: RuntimeConfig) -> None:
        self._config = config
        self._handle = 0
        # Runs are one at a time; a plain Lock (not RLock) because execute_async
        # acquires it on a worker thread and releases it on the event loop's.
        self._lock = threading.Lock()
        self._serial = next(_SERIALS)
        self._audit_collector: Any = None
        self._run: _Run | None = None
        # Audit entries as recorded; encoded to JSONL when drained, so a run
        # nobody audits does not pay for the encoding.
        self._audit_lines: list[tuple[str, datetime, dict[str, Any]]] = []
        self._session_id = os.urandom(8).hex()
        _check_limits(config.timeout, config.memory_limit, config.max_tool_result_size)
        _check_positive_int("max_output_size", config.max_output_size)
        _check_positive_int("max_steps", config.max_steps)
        _check_positive_int("disk_quota", config.disk_quota)
        wasm = _resolve_wasm(config.wasm_path)
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
        from ..capabilities._counts import CallCounts

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

    # -- the step/resume loop ----------------------------------------------
    #
    # The run lives in Go: Python asks it one question at a time (a step
    # with a short timeout, so Ctrl-C and cancellation are noticed between
    # steps), answers requests by id, or cancels it, always naming the run
    # (its id). Python keeps only what its events do here (_Run).

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
        """Begin running `code`; drive it with has_work/step/resume."""
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
        previous = self._run
        if previous is not None and previous.result is None:
            # A run whose driver gave up on it (a cancelled task, an error in
            # a handler) may still be ending: stop it so this one can start.
            self._cancel(previous)
        from .. import durable

        trace = _obs.run_started()
        started = durable.start(
            self, language, safe_text(code), safe_text(stdin or ""), stdin is not None, on_output is not None, replay
        )
        if started is not None:
            run_id, kept = started
        else:
            run_id, kept = _core.sandbox_start(
                self._handle, language, safe_text(code), safe_text(stdin or ""), stdin is not None, on_output is not None
            ), None
        self._run = _Run(run_id, on_output, durable=kept, language=language, trace=trace)
        self._audit("command_create", {"language": language, "code_bytes": len(code)})

    def _step(self, run: _Run, take: bool, timeout_ms: int = _STEP_MS) -> dict[str, Any]:
        """One question to `run`; handles its output and its end."""
        if not self._handle:
            raise builtins.RuntimeError("Sandbox not initialized")
        ev = _core.sandbox_step(self._handle, run.id, timeout_ms, take)
        if run.abandoned:
            # A thread still stepping a run its driver gave up (a cancelled
            # execute_async): the event is that run's, and nobody wants it.
            return ev
        kind = ev["kind"]
        if kind == "output":
            if run.on_output is not None and ev.get("stream") == "stdout":
                run.on_output(ev.get("data", ""))
        elif kind == "done":
            result = ev.get("result") or {}
            if ev.get("output_apart"):
                result["stdout"] = _core.sandbox_take_output(self._handle, run.id, "stdout")
                result["stderr"] = _core.sandbox_take_output(self._handle, run.id, "stderr")
            self._finish(run, result)
        return ev

    @staticmethod
    def _request(ev: dict[str, Any]) -> ToolRequest:
        return ToolRequest(id=int(ev["id"]), method=ev["method"], params=ev.get("params"))

    def _finish(self, run: _Run, result: dict[str, Any]) -> None:
        last = run.result = RunResult._from_dict(result)
        if run.durable is not None:
            from ..durable import finish

            finish(self, run, last)
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

    def has_work(self) -> bool:
        """True while the run has tool requests to answer: a new one is
        queued, or the script waits on ones `step()` already returned.
        Blocks while the script computes; False once it has ended."""
        run = self._run
        try:
            while run is not None and run.running:
                ev = self._step(run, take=False)
                if ev["kind"] == "approval":
                    self._step(run, take=True)
                    self._approve(run, ev)
                elif ev["kind"] in ("request", "waiting"):
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
                ev = self._step(run, take=True)
                if ev["kind"] == "request":
                    return self._request(ev)
                if ev["kind"] == "approval":
                    self._approve(run, ev)
                if ev["kind"] == "waiting":
                    raise builtins.RuntimeError(
                        f"step(): the script waits for the answers to requests {ev['ids']}, which step() "
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

    def _answer(self, run: _Run | None, id: int, answer: Answer) -> None:
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

    def result(self) -> RunResult | None:
        """The finished run; drains the loop (answering nothing) if needed."""
        run = self._run
        try:
            while run is not None and run.running:
                ev = self._step(run, take=True)
                if ev["kind"] == "request":
                    self._answer(run, int(ev["id"]), Answer(code=CODE_CANCELLED, error=_ABANDONED))
                elif ev["kind"] == "approval":
                    from ..durable import refuse

                    refuse(self, run, ev)
                elif ev["kind"] == "waiting":
                    for i in ev["ids"]:
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

    def cancel(self) -> None:
        """Stop the run in progress, if any (from any thread). A computing or
        sleeping script stops within milliseconds; the sandbox stays usable."""
        run = self._run
        if run is not None:
            self._cancel(run)

    def _cancel(self, run: _Run) -> None:
        if not self._handle:
            return
        try:
            _core.sandbox_cancel(self._handle, run.id)
        except (StaleRunError, builtins.RuntimeError):
            # A later run replaced it (so it has ended), or the sandbox was
            # closed meanwhile: nothing of this run is left to stop.
            pass

    def _abandon(self, run: _Run | None) -> None:
        """Cancel the run after an error or interrupt in Python and wait
        (briefly: a cancelled guest stops at once) for it to end."""
        if run is None or not run.running:
            return
        self._cancel(run)
        try:
            while run.running and self._handle:
                self._step(run, take=True, timeout_ms=1000)
        except BaseException:
            pass
        run.running = False

    # -- whole runs ---------------------------------------------------------

    def _run_sync(
        self,
        code: str,
        language: str,
        handle: Callable[[ToolRequest], Answer],
        on_output: Callable[[str], None] | None,
        stdin: str | bytes | None,
        starter: ToolPipeline | None = None,
        replay: Any = None,
        *,
        handle_many: Callable[[list[ToolRequest]], list[Answer]] | None = None,
    ) -> RunResult:
        """Run to the end, answering requests with `handle`. With `starter`,
        a request it starts (a call its handler runs elsewhere, such as on
        an MCP server) runs while the run goes on and is answered when done,
        so calls a script issues together (Promise.all) run concurrently.
        With `handle_many` instead, the requests a script issued together
        (all it made before it next waited or computed for a whole step) are
        answered as one batch, in order (amla_sandbox.ray's actors record
        and replay calls batch by batch)."""
        if starter is not None and handle_many is not None:
            raise builtins.ValueError("_run_sync takes starter or handle_many, not both")
        self._check_not_reentrant()
        self._lock.acquire()
        inside = _RUNNING_IN.set(_RUNNING_IN.get() | {self._serial})
        try:
            self.start(code, language, stdin=stdin, on_output=on_output, replay=replay)
            run = self._run
            assert run is not None
            started: dict[concurrent.futures.Future[Any], ToolRequest] = {}
            batch: list[ToolRequest] = []
            try:
                while run.running:
                    ev = self._step(run, take=True)
                    if ev["kind"] == "approval":
                        self._approve(run, ev)
                        continue
                    if handle_many is not None:
                        if ev["kind"] == "request":
                            batch.append(self._request(ev))
                        elif batch:
                            for req, answer in zip(batch, handle_many(batch), strict=True):
                                self._answer(run, req.id, answer)
                            batch = []
                        continue
                    if ev["kind"] == "request":
                        req = self._request(ev)
                        future = starter.start(req) if starter is not None else None
                        if future is None:
                            self._answer(run, req.id, handle(req))
                        else:
                            started[future] = req
                    elif started:
                        # Answer the calls that are done; while the script waits,
                        # block for the first one for a moment (the script may also
                        # wait on a timer, and make new requests when it fires).
                        import concurrent.futures

                        wait = _STARTED_WAIT if ev["kind"] == "waiting" else 0
                        done = list(concurrent.futures.wait(started, wait, concurrent.futures.FIRST_COMPLETED)[0])
                        while done:
                            future = done.pop()
                            req = started.pop(future)
                            answer = starter.finish(req, future)  # type: ignore[union-attr]
                            del future  # it holds the result: one copy fewer while Go takes the answer
                            self._answer(run, req.id, answer)
            except BaseException:
                self._abandon(run)
                raise
            finally:
                for future in started:  # calls the script never waited for
                    future.cancel()
            return self._outcome(run)
        finally:
            _RUNNING_IN.reset(inside)
            self._lock.release()

    def _approve(self, run: _Run, ev: dict[str, Any]) -> None:
        from ..durable import approve

        approve(self, run, ev)

    def _outcome(self, run: _Run) -> RunResult:
        if run.result is None:
            # The run was taken away (close() from another thread).
            if not self._handle:
                raise builtins.RuntimeError("Sandbox not initialized")
            raise RuntimeError("Runtime error: the run ended without a result")
        run.result._raise_for_error()
        return run.result

    def _check_not_reentrant(self) -> None:
        if self._serial in _RUNNING_IN.get():
            raise builtins.RuntimeError(
                "this sandbox is already running a script in this thread (a tool handler may not run "
                "scripts on the sandbox that called it)"
            )

    async def _acquire_async(self) -> None:
        import asyncio

        # Polling keeps the wait cancellable: a cancelled waiter holds nothing.
        delay = 0.001
        while not self._lock.acquire(blocking=False):
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.02)

    async def _run_async(
        self,
        code: str,
        language: str,
        handle: Callable[[ToolRequest], Awaitable[Answer]],
        on_output: Callable[[str], None] | None,
        stdin: str | bytes | None,
    ) -> RunResult:
        import asyncio

        self._check_not_reentrant()
        await self._acquire_async()
        inside = _RUNNING_IN.set(_RUNNING_IN.get() | {self._serial})
        try:
            self.start(code, language, stdin=stdin, on_output=on_output)
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
            step: asyncio.Future[dict[str, Any]] | None = None
            held = False
            try:
                while run.running:
                    if step is None and not held:
                        step = asyncio.ensure_future(asyncio.to_thread(self._step, run, True, _STEP_MS))
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
                        ev, step = step.result(), None
                        if ev["kind"] == "output":
                            if deliver is not None and ev.get("stream") == "stdout":
                                deliver(ev.get("data", ""))
                        elif ev["kind"] == "request":
                            req = self._request(ev)
                            calls[asyncio.ensure_future(handle(req))] = req
                        elif ev["kind"] == "waiting" and calls and not answered:
                            held = True
                        elif ev["kind"] == "approval":
                            from ..durable import approve_async

                            await approve_async(self, run, ev)
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
        finally:
            _RUNNING_IN.reset(inside)
            self._lock.release()

    def execute(
        self,
        command: str,
        on_output: Callable[[str], None] | None = None,
        stdin: str | bytes | None = None,
    ) -> str:
        """Run a shell command line; return its stdout."""
        self._require_open()
        return self._run_sync(command, "shell", self._pipeline.call_sync, on_output, stdin).stdout

    async def execute_async(
        self,
        command: str,
        on_output: Callable[[str], None] | None = None,
        stdin: str | bytes | None = None,
    ) -> str:
        self._require_open()
        return (await self._run_async(command, "shell", self._pipeline.call_async, on_output, stdin)).stdout

    def close(self) -> None:
        """End any run and remove the sandbox's directory."""
        if self._handle:
            self._finalizer()
            self._handle = 0
            if self._run is not None:
                self._run.running = False


def _retrieve(future: Any) -> None:
    if not future.cancelled():
        future.exception()


def _release(handle: int) -> None:
    try:
        _core.sandbox_close(handle)
    except Exception:
        pass  # at exit, or in a forked child: nothing more can be done
