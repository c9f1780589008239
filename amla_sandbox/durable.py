"""Durable sessions (docs/durable.md): snapshots of a sandbox's files and
budgets, journals of runs and their exact replay, and approval of tool calls
that pauses a run and resumes it anywhere.

The work is done in the Go core; this module holds the two exceptions, the
options a run is started with, the few lines that move bytes and decisions
between `Sandbox` and the core, the durable key every snapshot, journal and
token is authenticated with, and the ledger of redeemed approval tokens.
"""

from __future__ import annotations

import builtins
import inspect
import json
import os
import re
import tempfile
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Union, cast

from .errors import ApprovalRequired, ReplayDivergenceError
from .errors import RuntimeError as SandboxRuntimeError

if TYPE_CHECKING:
    from .runtime.runtime import Runtime, RunResult, _Run
    from .sandbox import Sandbox

__all__ = ["ApprovalRequired", "ReplayDivergenceError", "ApprovalHandler"]

ApprovalHandler = Callable[[str, dict[str, Any]], Union[bool, Awaitable[bool]]]
# redeem(token_id) -> bool: True the first time a token is redeemed, False
# after (docs/durable.md, "Single use").
Redeem = Callable[[str], bool]

KEY_ENV = "AMLA_SANDBOX_DURABLE_KEY"
_KEY_FILE = "durable.key"
_LEDGER_DIR = "redeemed-tokens"
_MIN_KEY = 16
_machine_keys: dict[str, bytes] = {}
_machine_keys_lock = threading.Lock()


def _core() -> Any:
    """The Go core, loaded on first use (importing amla_sandbox loads no
    more than it must)."""
    from . import _core as core

    return core


def _tool_name(method: str) -> str:
    return method[4:] if method.startswith("mcp:") else method


# -- the durable key and the ledger of redeemed tokens ----------------------------------------------


def _state_dir() -> str:
    """The user cache directory of amla-sandbox (AMLA_CACHE_DIR,
    XDG_CACHE_HOME, ~/.cache; the module cache's)."""
    from .runtime.cache import get_cache_dir

    return str(get_cache_dir())


def resolve_key(given: bytes | str | None) -> bytes:
    """The durable key: `given`, else $AMLA_SANDBOX_DURABLE_KEY, else this
    machine's key (made on first use in the cache directory, mode 0600)."""
    if given is not None:
        if isinstance(given, str):
            given = given.encode()
        if not isinstance(given, (bytes, bytearray, memoryview)):
            raise TypeError(f"durable_key must be bytes or str, got {type(given).__name__}")
        key = bytes(given)
        if len(key) < _MIN_KEY:
            raise ValueError(f"durable_key is {len(key)} bytes; a key needs at least {_MIN_KEY} (32 random bytes are best)")
        return key
    env = os.environ.get(KEY_ENV)
    if env:
        key = env.encode()
        if len(key) < _MIN_KEY:
            raise ValueError(f"${KEY_ENV} is {len(key)} bytes; a key needs at least {_MIN_KEY}")
        return key
    try:
        return machine_key()
    except OSError as e:
        return _process_key(e)


_process_keys: list[bytes] = []


def _process_key(why: OSError) -> bytes:
    """A random key of this process, when this machine's key cannot be
    read or made (a read-only cache directory): the sandbox works, and its
    snapshots and tokens can be read back only in this process."""
    import warnings

    with _machine_keys_lock:
        if not _process_keys:
            _process_keys.append(os.urandom(32))
            warnings.warn(
                f"amla_sandbox: this machine's durable key cannot be read or made ({why}); snapshots, journals "
                f"and approval tokens of this process can be read back only in it. Set ${KEY_ENV} or pass "
                "durable_key=... to use them elsewhere.",
                RuntimeWarning,
                stacklevel=4,
            )
        return _process_keys[0]


def machine_key() -> bytes:
    """This machine's durable key: 32 random bytes in <cache>/durable.key,
    made (mode 0600) by the first process that needs it."""
    path = os.path.join(_state_dir(), _KEY_FILE)
    with _machine_keys_lock:
        if path in _machine_keys:
            return _machine_keys[path]
        try:
            key = _read_key(path)
        except FileNotFoundError:
            # Written whole under another name, then linked into place: a
            # process racing this one reads either no file or the whole key.
            fd, tmp = tempfile.mkstemp(prefix=".durable-key-", dir=os.path.dirname(path))
            try:
                os.chmod(tmp, 0o600)
                os.write(fd, os.urandom(32))
                os.fsync(fd)
                os.close(fd)
                fd = -1
                try:
                    os.link(tmp, path)
                except FileExistsError:
                    pass  # another process made it first: use theirs
            finally:
                if fd >= 0:
                    os.close(fd)
                os.unlink(tmp)
            key = _read_key(path)
        _machine_keys[path] = key
        return key


def _read_key(path: str) -> bytes:
    with open(path, "rb") as f:
        if os.name == "posix":
            st = os.fstat(f.fileno())
            if st.st_mode & 0o077:
                raise ValueError(
                    f"the durable key file {path} can be read or written by other users (mode {st.st_mode & 0o777:#o}); "
                    "whoever reads it can forge snapshots and approval tokens: chmod 600 it"
                )
        key = f.read(4096)
    if len(key) < _MIN_KEY:
        raise ValueError(
            f"the durable key file {path} holds {len(key)} bytes, fewer than {_MIN_KEY}; remove it to make a new key "
            "(snapshots and tokens made under the old key can then no longer be read)"
        )
    return key


_TOKEN_ID = re.compile(r"^[0-9a-f]{32}$")


def redeem_on_this_machine(token_id: str) -> bool:
    """The default ledger of redeemed approval tokens: one empty file per
    token in <cache>/redeemed-tokens, made with O_CREAT|O_EXCL, which is
    atomic between processes: True for the first caller, False after."""
    if not _TOKEN_ID.match(token_id):
        raise ValueError(f"not an approval token id: {token_id!r:.80}")
    ledger = os.path.join(_state_dir(), _LEDGER_DIR)
    os.makedirs(ledger, mode=0o700, exist_ok=True)
    try:
        fd = os.open(os.path.join(ledger, token_id), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        return False
    os.close(fd)
    return True


def redeem(token_id: str, hook: Redeem | None) -> None:
    """Redeem a token once, with the application's hook or this machine's
    ledger; a token already redeemed is a ValueError."""
    if hook is not None and not callable(hook):
        raise TypeError(f"redeem must be callable, got {type(hook).__name__}")
    first = (hook or redeem_on_this_machine)(token_id)
    if first is not True:
        raise ValueError(
            f"resume_approval: approval token {token_id} was already redeemed: a token continues its run once "
            "(a second resume would run the approved call again)"
        )


# -- a sandbox's settings ---------------------------------------------------------------------------


@dataclass
class Durability:
    """What a Runtime does for durable sessions, set by its Sandbox."""

    record: bool | str = False
    approval_handler: ApprovalHandler | None = None
    # Some capability requires approval: without a handler, runs pause.
    approvals: bool = False
    # The mounted Python packages and their content digests, recorded in
    # journals ([{"name", "digest"}]).
    packages: list[dict[str, str]] | None = None

    def options(self) -> dict[str, Any] | None:
        """The durable options of an ordinary run, or None for a plain one."""
        mode = ""
        if self.approvals:
            mode = "ask" if self.approval_handler is not None else "pause"
        if not self.record and not mode:
            return None
        record = bool(self.record) or mode == "pause"
        # A token must carry its start state: pausing always embeds it.
        start = "digest" if self.record == "digest" and mode != "pause" else "snapshot"
        return {"record": record, "record_start": start, "approvals": mode, "packages": self.packages or []}


@dataclass
class Replay:
    """A run that replays a journal (Sandbox.replay, resume_approval)."""

    journal: bytes
    then: str = "error"
    approve: bool | None = None


def check_record(record: Any) -> None:
    if record not in (False, True, "digest"):
        raise ValueError(f'record must be True, False or "digest", got {record!r}')


def check_then(then: Any) -> None:
    if then not in ("error", "live"):
        raise ValueError(f'then must be "error" or "live", got {then!r}')


# -- runs (called by Runtime) -----------------------------------------------------------------------


def start(
    rt: Runtime, language: str, code: str, stdin: str, has_stdin: bool, stream: bool, replay: Replay | None
) -> tuple[int, dict[str, bool]] | None:
    """Start the runtime's next run as a durable one when it is one, and
    return its id and what its end must fetch; None for a plain run (the
    caller starts it)."""
    d: Durability = getattr(rt, "_durability", None) or Durability()
    given = d.options()
    if replay is None and given is None:
        return None
    opts: dict[str, Any] = dict(given or {"record": False, "record_start": "snapshot", "approvals": "", "packages": d.packages or []})
    opts.update(language=language, code=code, stdin=stdin, has_stdin=has_stdin, stream=stream)
    journal = b""
    if replay is not None:
        opts.update(record=True, then=replay.then, approve=replay.approve)
        if replay.approve is not None or replay.then == "live":
            # Continuing live: approvals are handled as the sandbox's are,
            # and a pause needs the journal (it always has one here).
            opts["approvals"] = opts["approvals"] or ("ask" if d.approval_handler is not None else "pause")
        journal = replay.journal
    run_id = _core().sandbox_start_durable(rt._handle, opts, journal)
    return run_id, {"record": bool(d.record) or replay is not None, "journaled": bool(opts.get("record"))}


def finish(rt: Runtime, run: _Run, result: RunResult) -> None:
    """After a durable run ended: fetch its journal, the call it paused at,
    the way its replay diverged."""
    kept = run.durable
    outcome = _core().sandbox_durable_outcome(rt._handle, run.id)
    paused, divergence = outcome.get("paused"), outcome.get("divergence")
    journal = None
    if kept["journaled"] and (kept["record"] or paused):
        journal = _core().sandbox_journal(rt._handle, run.id)
    if kept["record"]:
        result.journal = journal
    if paused and journal is not None:
        result._paused = (_tool_name(paused["method"]), paused.get("params"), journal)
    if divergence:
        result._divergence = divergence


def raise_for(result: RunResult) -> None:
    """Raise the durable outcome of a run, if it has one."""
    if result.error_kind == "approval_required" and result._paused is not None:
        method, params, token = result._paused
        raise ApprovalRequired(method, params, token)
    if result.error_kind == "replay_divergence":
        d = result._divergence or {}
        raise ReplayDivergenceError(
            result.error or "replay diverged",
            index=int(d.get("call", 0)),
            recorded=str(d.get("recorded", "")),
            asked=str(d.get("asked", "")),
            event=int(d.get("event", 0)),
        )


def _decide(handler: ApprovalHandler | None, ev: dict[str, Any]) -> bool | Awaitable[bool]:
    if handler is None:
        return False
    params = ev.get("params")
    if isinstance(params, str):
        params = json.loads(params)
    # Params are what the script passed: an object for every tool call.
    return handler(_tool_name(ev["method"]), cast("dict[str, Any]", params))


def _answer(rt: Runtime, run: _Run, ev: dict[str, Any], ok: Any) -> None:
    _core().sandbox_approve(rt._handle, run.id, int(ev["id"]), ok is True)


def approve(rt: Runtime, run: _Run, ev: dict[str, Any]) -> None:
    """Ask the sandbox's approval handler about a call (an "approval"
    event) and answer the core. A handler that fails, or answers anything
    but True, refuses the call: approval narrows, it never widens."""
    d: Durability | None = getattr(rt, "_durability", None)
    try:
        decision = _decide(d.approval_handler if d else None, ev)
        if inspect.isawaitable(decision):
            decision = _drive(decision)
    except Exception:
        decision = False
    _answer(rt, run, ev, decision)


async def approve_async(rt: Runtime, run: _Run, ev: dict[str, Any]) -> None:
    """`approve` inside an event loop: an async handler is awaited."""
    d: Durability | None = getattr(rt, "_durability", None)
    try:
        decision = _decide(d.approval_handler if d else None, ev)
        if inspect.isawaitable(decision):
            decision = await decision
    except Exception:
        decision = False
    _answer(rt, run, ev, decision)


def refuse(rt: Runtime, run: _Run, ev: dict[str, Any]) -> None:
    """Refuse an approval nobody will answer (a run being drained)."""
    _answer(rt, run, ev, False)


def _drive(awaitable: Awaitable[Any]) -> Any:
    import asyncio

    try:
        asyncio.get_running_loop()
    except builtins.RuntimeError:
        async def wrap() -> Any:
            return await awaitable

        return asyncio.run(wrap())
    if inspect.iscoroutine(awaitable):
        awaitable.close()
    raise SandboxRuntimeError(
        "an async approval_handler cannot be awaited by execute() inside a running event loop: "
        "use execute_async()"
    )


class _hybridmethod:
    """A method that is a class method when called on the class and an
    instance method when called on an instance (Sandbox.replay)."""

    def __init__(self, func: Callable[..., Any]) -> None:
        self.func = func
        self.__doc__ = func.__doc__

    def __get__(self, obj: Any, cls: type | None = None) -> Callable[..., Any]:
        target = cls if obj is None else obj

        def bound(*args: Any, **kwargs: Any) -> Any:
            return self.func(target, *args, **kwargs)

        bound.__doc__ = self.func.__doc__
        bound.__name__ = self.func.__name__
        return bound


# -- sandboxes --------------------------------------------------------------------------------------


def init_args(sb: Sandbox) -> dict[str, Any]:
    """The arguments a Sandbox was made with, as given (before set-up adds
    to them), so a fork or a restore can make another the same way."""
    out: dict[str, Any] = {}
    for f in fields(sb):
        if f.init and not f.name.startswith("_"):
            v = getattr(sb, f.name)
            out[f.name] = list(v) if isinstance(v, list) else v
    return out


def set_key(rt: Runtime, key: bytes) -> None:
    """Give the core the key the sandbox's artifacts are authenticated with."""
    _core().sandbox_set_durable_key(rt._handle, key)


def snapshot(sb: Sandbox, compress: bool) -> bytes:
    data: bytes = _core().sandbox_snapshot(sb._rt()._handle, bool(compress))
    return data


def restore(sb: Sandbox, data: bytes) -> None:
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"a snapshot is bytes, got {type(data).__name__}")
    rt = sb._rt()
    if rt._running:
        raise builtins.RuntimeError("restore: a run is in progress on this sandbox")
    _core().sandbox_restore(rt._handle, bytes(data))


def fork(sb: Sandbox) -> Sandbox:
    from .sandbox import Sandbox

    rt = sb._rt()
    args = dict(sb._init_args)
    if args.get("mcp_servers") is not None and not sb._mcp_owned:
        pass  # an MCPTools the caller owns: the fork shares it, as the original does
    new = Sandbox(**args)
    try:
        new._await_in_sync = sb._await_in_sync
        _core().sandbox_copy_files(rt._handle, new._rt()._handle)
    except BaseException:
        new.close()
        raise
    return new


def journal_info(journal: bytes, key: bytes) -> dict[str, Any]:
    if not isinstance(journal, (bytes, bytearray, memoryview)):
        raise TypeError(f"a journal is bytes, got {type(journal).__name__}")
    info: dict[str, Any] = _core().journal_info(bytes(journal), key)
    return info


def _limits_from(info: dict[str, Any], kwargs: dict[str, Any]) -> dict[str, Any]:
    """Sandbox arguments for replaying a journal: the caller's, with the
    limits that shape what guests do taken from the journal unless given."""
    out = dict(kwargs)
    out.setdefault("memory_limit", int(info["memory_limit"]))
    out.setdefault("max_output_size", int(info["max_output"]))
    out.setdefault("disk_quota", int(info["disk_quota"]))
    return out


def new_from_journal(cls: type[Sandbox], journal: bytes, kwargs: dict[str, Any]) -> Sandbox:
    """A sandbox made with kwargs (limits from the journal) in the
    journal's start state. The journal is checked under the key kwargs
    give (or the default one) before anything in it is used."""
    info = journal_info(journal, resolve_key(kwargs.get("durable_key")))
    sb = cls(**_limits_from(info, kwargs))
    try:
        _core().sandbox_restore_journal_start(sb._rt()._handle, bytes(journal))
    except BaseException:
        sb.close()
        raise
    return sb


def _check_packages(sb: Sandbox, info: dict[str, Any]) -> None:
    """A replay must see the Python packages its run saw: each package's
    contents digest is in the journal."""
    recorded_list = [(p["name"], p["digest"]) for p in info.get("packages") or []]
    have_list = [(p["name"], p["digest"]) for p in sb._package_digests]
    if recorded_list == have_list:
        return
    recorded, have = dict(recorded_list), dict(have_list)
    for name in sorted(set(recorded) | set(have)):
        if recorded.get(name) != have.get(name):
            was = f"package {name!r} (digest {recorded[name][:16]}...)" if name in recorded else f"no package {name!r}"
            now = f"package {name!r} (digest {have[name][:16]}...)" if name in have else f"no package {name!r}"
            raise ReplayDivergenceError(
                f"Replay diverged before it started: the journal's run saw {was} among its python_packages, "
                f"and this sandbox mounts {now}",
                index=0, recorded=was, asked=now, event=0,
            )
    was, now = ", ".join(n for n, _ in recorded_list), ", ".join(n for n, _ in have_list)
    raise ReplayDivergenceError(
        f"Replay diverged before it started: the journal's run saw the python_packages {was} in this order, "
        f"and this sandbox mounts {now}",
        index=0, recorded=was, asked=now, event=0,
    )


def replay_on(sb: Sandbox, journal: bytes, then: str, approve: bool | None = None) -> RunResult:
    """Run a journal on sb (which must be in its start state) and return
    the replayed run's result. It raises for how the replay went (a
    divergence; a pause at a call that needs approval), not for the
    recorded run's own error, which the result reproduces."""
    check_then(then)
    if sb.keep_state:
        raise NotImplementedError(
            "replay cannot run on a keep_state=True sandbox yet: a journal replays a run from the guest's "
            "fresh state, which a kept session is not (docs/sessions.md)"
        )
    info = journal_info(journal, sb._durable_key)
    _check_packages(sb, info)
    rt = sb._rt()
    before = rt.last_result
    try:
        rt._run_sync(
            info["code"], info["language"], sb._pipeline.call_sync, None, None,
            replay=Replay(bytes(journal), then, approve),
        )
    except (ReplayDivergenceError, ApprovalRequired):
        raise
    except SandboxRuntimeError:
        # The replayed run's own error (its result reproduces it); an error
        # before it ran (a refused start) has no result of its own.
        if rt.last_result is None or rt.last_result is before:
            raise
    result = rt.last_result
    assert result is not None
    return result


def resume(cls: type[Sandbox], token: bytes, approve: bool, kwargs: dict[str, Any]) -> Sandbox:
    """Sandbox.resume_approval: check the token under the key, make the
    sandbox in its start state, redeem the token (once), and replay the
    run to its pending call, which `approve` decides."""
    if not isinstance(approve, bool):
        raise TypeError(f"approve must be True or False, got {approve!r}")
    info = journal_info(token, resolve_key(kwargs.get("durable_key")))
    if info["end"] != "paused":
        raise ValueError("resume_approval: this token is a journal of a run that did not stop for approval")
    sb = new_from_journal(cls, token, kwargs)
    try:
        redeem(str(info["pending"]["token_id"]), kwargs.get("redeem"))
        replay_on(sb, token, "live", approve)
    except BaseException:
        sb.close()
        raise
    return sb
