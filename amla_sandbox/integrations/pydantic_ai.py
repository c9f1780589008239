"""Pydantic AI workspaces on amla-sandbox: a `WorkspaceBackend` with
commands and native file access.

    from pydantic_ai import Agent
    from amla_sandbox.integrations.pydantic_ai import AmlaWorkspaceBackend

    backend = AmlaWorkspaceBackend(timeout=30)
    # wherever pydantic-ai asks for a workspace backend (a capability's
    # get_workspace, Workspace(backend)), hand it this one

Commands run in the sandbox's shell (an argv is quoted into a command line;
`sh -c`, `python3`, the applets), files go through the sandbox's host file
API (`Sandbox.files`), confined to /workspace and /tmp. Tools the commands
call (`tool NAME ...` in the shell, `call_tool` in `python3`) are the
sandbox's own, under its capabilities and budgets: a refused call or an
exhausted budget is a command that exits non-zero with the reason on
stderr, a result the agent reads, not an exception.

Install: pip install "amla-sandbox[pydantic-ai]" (docs/integrations.md).
"""

from __future__ import annotations

import asyncio
import posixpath
import shlex
import threading
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._common import missing_framework

try:
    from pydantic_ai import RunContext
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.workspaces import (
        CommandResult,
        FileEntry,
        WorkspaceCommand,
        WorkspaceRef,
        WorkspaceTimeoutError,
        WorkspaceUnavailableError,
    )
except ImportError as _e:  # pragma: no cover - exercised without the extra
    raise missing_framework("pydantic_ai", "Pydantic AI", "pydantic-ai", _e) from _e

from .. import TimeoutError as SandboxTimeoutError
from ..sandbox import Sandbox

__all__ = ["AmlaWorkspace", "AmlaWorkspaceBackend", "PROVIDER"]

PROVIDER = "amla-sandbox"
WORKING_DIR = "/workspace"

# Sandboxes by ref id, so that a backend built from a ref (as durable
# execution rebuilds one for every call) reaches the same environment in
# this process. Removed by `delete()`.
_LIVE: dict[str, Sandbox] = {}
_LIVE_LOCK = threading.Lock()


class AmlaWorkspaceBackend:
    """A Pydantic AI workspace backend whose environment is an amla sandbox.

    Built without a `ref`, the first operation makes a sandbox with
    `sandbox_options` (`Sandbox`'s arguments: `timeout`, `memory_limit`,
    `disk_quota`, `tools`, `tool_handler`, `capabilities`, `network`, ...)
    and the ref names it from then on. Built with the `ref` of a live one
    (in this process), it attaches to it; a ref whose sandbox was deleted
    raises `WorkspaceUnavailableError`. The backend never closes the sandbox
    when a run ends: `delete()` does (whoever holds the ref decides).
    """

    def __init__(self, *, ref: WorkspaceRef | None = None, **sandbox_options: Any) -> None:
        if ref is not None:
            if ref.provider != PROVIDER:
                raise ValueError(f"ref is for provider {ref.provider!r}, not {PROVIDER!r}")
            if sandbox_options:
                raise TypeError("a backend attached by ref takes no Sandbox arguments: the sandbox exists")
        self._ref = ref
        self._options = sandbox_options
        self._sandbox: Sandbox | None = None
        self._create_lock = threading.Lock()

    # -- the environment ---------------------------------------------------

    @property
    def ref(self) -> WorkspaceRef | None:
        return self._ref

    def _alive(self) -> bool:
        with _LIVE_LOCK:
            return self._ref is not None and self._ref.id in _LIVE

    def _sb(self) -> Sandbox:
        """The sandbox: attached by ref, or made on first use (once, even
        when first operations run concurrently)."""
        with self._create_lock:
            if self._ref is not None:
                with _LIVE_LOCK:
                    sb = _LIVE.get(self._ref.id)
                if sb is None:
                    raise WorkspaceUnavailableError(f"no live sandbox for {self._ref!r} in this process")
                self._sandbox = sb
                return sb
            sb = Sandbox(**self._options)
            ref = WorkspaceRef(provider=PROVIDER, id=uuid.uuid4().hex)
            with _LIVE_LOCK:
                _LIVE[ref.id] = sb
            self._sandbox, self._ref = sb, ref
            return sb

    @property
    def sandbox(self) -> Sandbox:
        """The sandbox (made now if it was not yet)."""
        return self._sb()

    async def working_dir(self) -> str:
        self._sb()
        return WORKING_DIR

    async def delete(self) -> None:
        """Destroy the environment: close the sandbox (its files go) and
        forget its ref. Backends attached to it then raise
        `WorkspaceUnavailableError`."""
        sb = self._sandbox
        if sb is None and self._ref is not None:
            with _LIVE_LOCK:
                sb = _LIVE.get(self._ref.id)
        if self._ref is not None:
            with _LIVE_LOCK:
                _LIVE.pop(self._ref.id, None)
        if sb is not None:
            sb.close()

    # -- commands ----------------------------------------------------------

    async def run(
        self,
        command: WorkspaceCommand,
        *,
        shell: bool = False,
        env: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> CommandResult:
        if shell and not isinstance(command, str):
            raise TypeError("shell=True takes a command string")
        if not shell and (isinstance(command, str) or not isinstance(command, Sequence)):
            raise TypeError("a command string needs shell=True; without it pass an argv sequence")
        if timeout is not None and (
            not isinstance(timeout, (int, float)) or timeout != timeout or timeout <= 0 or timeout == float("inf")
        ):
            raise ValueError("timeout must be a positive finite number or None")
        if isinstance(command, str):
            line = command
        else:
            argv = list(command)
            if not argv or not all(isinstance(a, str) for a in argv):
                raise ValueError("an argv command is a non-empty sequence of str")
            # The sandbox has no /bin: its programs are the shell's
            # applets, known by name (pydantic-ai's own cwd wrapper runs
            # /bin/sh).
            for prefix in ("/bin/", "/usr/bin/", "/usr/local/bin/"):
                if argv[0].startswith(prefix) and "/" not in argv[0][len(prefix):]:
                    argv[0] = argv[0][len(prefix):]
                    break
            line = " ".join(shlex.quote(a) for a in argv)
        sb = self._sb()
        loop = asyncio.get_running_loop()
        timed_out = threading.Event()

        def stop() -> None:
            timed_out.set()
            sb.cancel()

        handle = loop.call_later(timeout, stop) if timeout is not None else None
        try:
            r = await sb.run_shell_async(line, stdin="", env=dict(env) if env else None)
        except SandboxTimeoutError as e:
            raise WorkspaceTimeoutError(f"command timed out: {e}") from e
        except Exception as e:  # cancelled by the timeout, or the sandbox closed under it
            if timed_out.is_set():
                raise WorkspaceTimeoutError(f"command timed out after {timeout} seconds") from e
            if not self._alive():
                raise WorkspaceUnavailableError("the sandbox was deleted during the command") from e
            raise
        finally:
            if handle is not None:
                handle.cancel()
        return CommandResult(exit_code=r.exit_code, stdout=r.stdout, stderr=r.stderr)

    # -- files ---------------------------------------------------------------

    async def read_bytes(self, path: str) -> bytes:
        return self._sb().files.read(path)

    async def write_bytes(self, path: str, data: bytes) -> None:
        self._sb().files.write(path, data)

    async def stat(self, path: str) -> FileEntry:
        sb = self._sb()
        norm = posixpath.normpath(path)
        if norm in ("/workspace", "/tmp"):
            return FileEntry(name=posixpath.basename(norm), path=norm, is_dir=True, size=None)
        parent, name = posixpath.split(norm)
        for entry in sb.files.list(parent):
            if entry.name == name:
                return FileEntry(
                    name=name, path=norm, is_dir=entry.is_dir, size=entry.size if entry.type == "file" else None
                )
        raise FileNotFoundError(f"{path}: no such file or directory")

    async def list_dir(self, path: str) -> Sequence[FileEntry]:
        return [
            FileEntry(
                name=e.name, path=e.path, is_dir=e.is_dir, size=e.size if e.type == "file" else None
            )
            for e in self._sb().files.list(path)
        ]

    async def make_dir(self, path: str) -> None:
        # The file API has no mkdir: the shell's `mkdir -p`, with its
        # failures as the builtin errors the protocol names.
        sb = self._sb()
        try:
            entry = await self.stat(path)
        except FileNotFoundError:
            entry = None
        if entry is not None:
            if entry.is_dir:
                return
            raise FileExistsError(f"{path}: a file is in the way")
        r = await sb.run_shell_async(f"mkdir -p -- {shlex.quote(path)}", stdin="")
        if r.exit_code != 0:
            msg = r.stderr.strip() or f"mkdir {path} failed"
            if "Not a directory" in msg or "not a directory" in msg:
                raise NotADirectoryError(msg)
            if "ermission" in msg or "Read-only" in msg:
                raise PermissionError(msg)
            raise OSError(msg)

    async def remove(self, path: str) -> None:
        norm = posixpath.normpath(posixpath.join(WORKING_DIR, path))
        if norm == "/" or WORKING_DIR == norm or WORKING_DIR.startswith(norm.rstrip("/") + "/"):
            raise ValueError(f"refusing to remove {path!r}: it is the working directory or one of its ancestors")
        self._sb().files.remove(path, recursive=True)

    async def exists(self, path: str) -> bool:
        try:
            await self.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            return False
        return True


@dataclass
class AmlaWorkspace(AbstractCapability[Any]):
    """A capability that gives each run an amla sandbox as its workspace:
    a fresh one, or the live one a `WorkspaceRef` (from `workspace=` or the
    message history) names, so a conversation continues in its sandbox.

        agent = Agent(model, capabilities=[AmlaWorkspace(timeout=30, capabilities=[...])])

    The keyword arguments are `Sandbox`'s. Sandboxes are never closed when a
    run ends; `AmlaWorkspaceBackend(ref=ref).delete()` closes one.
    """

    sandbox_options: dict[str, Any] = field(default_factory=dict)
    id: str | None = "amla_workspace"

    def __init__(self, *, id: str | None = "amla_workspace", **sandbox_options: Any) -> None:
        self.sandbox_options = sandbox_options
        self.id = id

    def get_workspace(self, ctx: RunContext[Any], *, ref: WorkspaceRef | None) -> AmlaWorkspaceBackend | None:
        if ref is None:
            return AmlaWorkspaceBackend(**self.sandbox_options)
        if ref.provider != PROVIDER:
            return None  # another capability's environment
        return AmlaWorkspaceBackend(ref=ref)
