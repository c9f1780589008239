"""Durable sessions (docs/durable.md): snapshots of a sandbox's files and
budgets, journals of runs and their exact replay, and approval of tool calls
that pauses a run and resumes it anywhere.

The work is done in the Go core; this module holds the strategy the run
driver is handed for durable runs (`Durability`: how a run starts, what its
end fetches, who decides approvals), the durable key every snapshot,
journal and token is authenticated with, the ledger of redeemed approval
tokens, and the checks a journal passes before it is replayed. The two
exceptions live in amla_sandbox.errors and are re-exported here.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Union

from .errors import ApprovalRequired, ReplayDivergenceError

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


# -- the run driver's strategy for durable runs -----------------------------------------------------


@dataclass
class Durability:
    """What a sandbox's runs do for durable sessions: the DurableStrategy
    (amla_sandbox.runtime.driver) Sandbox hands its Runtime."""

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

    def start(
        self, handle: int, *, language: str, code: str, stdin: str, has_stdin: bool, stream: bool, replay: Replay | None
    ) -> tuple[int, dict[str, bool]] | None:
        """Start the sandbox's next run as a durable one when it is one, and
        return its id and what its end must fetch; None for a plain run (the
        driver starts it)."""
        given = self.options()
        if replay is None and given is None:
            return None
        opts: dict[str, Any] = dict(
            given or {"record": False, "record_start": "snapshot", "approvals": "", "packages": self.packages or []}
        )
        opts.update(language=language, code=code, stdin=stdin, has_stdin=has_stdin, stream=stream)
        journal = b""
        if replay is not None:
            opts.update(record=True, then=replay.then, approve=replay.approve)
            if replay.approve is not None or replay.then == "live":
                # Continuing live: approvals are handled as the sandbox's are,
                # and a pause needs the journal (it always has one here).
                opts["approvals"] = opts["approvals"] or ("ask" if self.approval_handler is not None else "pause")
            journal = replay.journal
        run_id = _core().sandbox_start_durable(handle, opts, journal)
        return run_id, {"record": bool(self.record) or replay is not None, "journaled": bool(opts.get("record"))}

    def finish(
        self, handle: int, run_id: int, kept: dict[str, bool], result: dict[str, Any]
    ) -> tuple[bytes | None, BaseException | None]:
        """After a durable run ended: the journal its result carries (when
        the sandbox records), and what its outcome raises: ApprovalRequired
        for a run paused at a call, ReplayDivergenceError for a replay that
        went another way."""
        outcome = _core().sandbox_durable_outcome(handle, run_id)
        paused, divergence = outcome.get("paused"), outcome.get("divergence")
        journal = None
        if kept["journaled"] and (kept["record"] or paused):
            journal = _core().sandbox_journal(handle, run_id)
        error_kind = result.get("error_kind") or None
        raised: BaseException | None = None
        if error_kind == "approval_required" and paused and journal is not None:
            raised = ApprovalRequired(_tool_name(paused["method"]), paused.get("params"), journal)
        elif error_kind == "replay_divergence":
            d = divergence or {}
            raised = ReplayDivergenceError(
                result.get("error") or "replay diverged",
                index=int(d.get("call", 0)),
                recorded=str(d.get("recorded", "")),
                asked=str(d.get("asked", "")),
                event=int(d.get("event", 0)),
            )
        return (journal if kept["record"] else None), raised

    def decide(self, method: str, params: Any) -> bool | Awaitable[bool]:
        """Ask the approval handler about a call (False without one)."""
        if self.approval_handler is None:
            return False
        if isinstance(params, str):
            params = json.loads(params)
        # Params are what the script passed: an object for every tool call.
        return self.approval_handler(_tool_name(method), params)


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


# -- journals ---------------------------------------------------------------------------------------


def journal_info(journal: bytes, key: bytes) -> dict[str, Any]:
    """What a journal records (its run, limits, packages, how it ended),
    once it is checked under `key` (ValueError for a foreign or edited one)."""
    if not isinstance(journal, (bytes, bytearray, memoryview)):
        raise TypeError(f"a journal is bytes, got {type(journal).__name__}")
    info: dict[str, Any] = _core().journal_info(bytes(journal), key)
    return info


def limits_from(info: dict[str, Any], kwargs: dict[str, Any]) -> dict[str, Any]:
    """Sandbox arguments for replaying a journal: the caller's, with the
    limits that shape what guests do taken from the journal unless given."""
    out = dict(kwargs)
    out.setdefault("memory_limit", int(info["memory_limit"]))
    out.setdefault("max_output_size", int(info["max_output"]))
    out.setdefault("disk_quota", int(info["disk_quota"]))
    return out


def check_packages(info: dict[str, Any], digests: list[dict[str, str]]) -> None:
    """A replay must see the Python packages its run saw: each package's
    contents digest is in the journal, and `digests` are the sandbox's."""
    recorded_list = [(p["name"], p["digest"]) for p in info.get("packages") or []]
    have_list = [(p["name"], p["digest"]) for p in digests]
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


def restore(sb: Any, data: bytes) -> None:
    """Replace a sandbox's files with a snapshot's: `Sandbox.restore`."""
    sb.restore(data)
