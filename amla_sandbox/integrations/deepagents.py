"""LangChain deepagents on amla-sandbox: a `BaseSandbox` backend.

    from deepagents import create_deep_agent
    from amla_sandbox.integrations.deepagents import AmlaSandboxBackend

    backend = AmlaSandboxBackend(timeout=30)
    agent = create_deep_agent(model=..., backend=backend)

deepagents' `BaseSandbox` builds its file tools (ls, read_file, write_file,
edit_file, glob, grep) from shell commands and `python3 -c` scripts run
through `execute()`; this backend runs them in the sandbox's shell (with its
`python3`), and moves files in and out through the sandbox's host file API
(`Sandbox.files`), confined to /workspace and /tmp.

Tools the agent's code may call from `execute()` (the shell's `tool` applet,
or `call_tool` in `python3`) are the sandbox's own (`Sandbox(tools=...,
tool_handler=..., capabilities=...)`), checked against its capabilities and
budgets; a refused call or an exhausted budget is a non-zero exit with the
reason on stderr, which the agent reads as the command's output.

Install: pip install "amla-sandbox[deepagents]" (docs/integrations.md).
"""

from __future__ import annotations

import asyncio
import base64
import builtins
import threading
import uuid
from typing import Any

from ._common import missing_framework

try:
    from deepagents.backends.protocol import (
        ExecuteResponse,
        FileDownloadResponse,
        FileOperationError,
        FileUploadResponse,
        GrepResult,
    )
    from deepagents.backends.sandbox import (
        _GREP_PATH_GLOB_TEMPLATE,
        BaseSandbox,
        _grep_excluded_dirs,
        _parse_grep_output,
    )
except ImportError as _e:  # pragma: no cover - exercised without the extra
    raise missing_framework("deepagents", "deepagents", "deepagents", _e) from _e

from ..sandbox import Sandbox, ShellResult

__all__ = ["AmlaSandboxBackend"]

# Exit status of a command stopped by its timeout (as coreutils' `timeout`).
TIMEOUT_EXIT = 124


def _file_error(e: BaseException) -> FileOperationError:
    """The protocol's error code for what `Sandbox.files` raised."""
    if isinstance(e, FileNotFoundError):
        return "file_not_found"
    if isinstance(e, IsADirectoryError):
        return "is_directory"
    if isinstance(e, (PermissionError, NotADirectoryError)):
        return "permission_denied"
    return "invalid_path"


class AmlaSandboxBackend(BaseSandbox):
    """A deepagents sandbox backend whose commands and files are one amla
    sandbox's.

    Pass a `Sandbox` (the backend uses it and leaves closing it to you), or
    keyword arguments for one (`timeout`, `memory_limit`, `disk_quota`,
    `tools`, `tool_handler`, `capabilities`, `network`, `keep_state`, ...),
    which the backend closes in `close()`. `execute(command, timeout=)`
    runs `command` in the sandbox's shell and returns stdout followed by
    stderr, and the exit code; a command stopped by its timeout (the
    smaller of `timeout` and the sandbox's) exits 124 with a note, and one
    stopped by the memory limit exits 137.
    """

    # The capture wrapper needs `mktemp`, `head -c`, `wc -c` and traps, which
    # the sandbox's shell has only in part: large outputs are evicted by
    # the middleware instead.
    enable_capture_offload = False

    def __init__(self, sandbox: Sandbox | None = None, *, id: str | None = None, **sandbox_options: Any) -> None:
        if sandbox is not None and sandbox_options:
            raise TypeError(f"pass a Sandbox or Sandbox arguments, not both (got {sorted(sandbox_options)})")
        self._owned = sandbox is None
        self.sandbox = sandbox if sandbox is not None else Sandbox(**sandbox_options)
        self._id = id or f"amla-{uuid.uuid4().hex[:12]}"
        # Runs of one sandbox take turns; the agent may call tools from
        # several threads (aexecute runs execute in a worker thread).
        self._run_lock = threading.Lock()

    @property
    def id(self) -> str:
        return self._id

    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        if timeout is not None and (not isinstance(timeout, (int, float)) or timeout <= 0):
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        timer: threading.Timer | None = None
        stopped = threading.Event()
        with self._run_lock:
            if timeout is not None and timeout < self.sandbox.timeout:

                def stop() -> None:
                    stopped.set()
                    self.sandbox.cancel()

                timer = threading.Timer(timeout, stop)
                timer.daemon = True
                timer.start()
            try:
                result: ShellResult = self.sandbox.run_shell(command)
            except Exception as e:
                return self._stopped(e, timeout if stopped.is_set() else None)
            finally:
                if timer is not None:
                    timer.cancel()
        output = result.stdout
        if result.stderr:
            if output and not output.endswith("\n"):
                output += "\n"
            output += result.stderr
        return ExecuteResponse(output=output, exit_code=result.exit_code, truncated=False)

    def _stopped(self, e: Exception, timeout: float | None) -> ExecuteResponse:
        """A run the sandbox stopped, as a command's outcome (the agent reads
        it and may try something else) rather than an exception."""
        from ..runtime.runtime import MemoryLimitError, TimeoutError

        if timeout is not None:
            return ExecuteResponse(output=f"Error: command timed out after {timeout} seconds", exit_code=TIMEOUT_EXIT)
        if isinstance(e, TimeoutError):
            return ExecuteResponse(output=f"Error: {e}", exit_code=TIMEOUT_EXIT)
        if isinstance(e, MemoryLimitError):
            return ExecuteResponse(output=f"Error: {e}", exit_code=137)
        if isinstance(e, (ValueError, TypeError)):
            return ExecuteResponse(output=f"Error: {e}", exit_code=2)
        if isinstance(e, builtins.RuntimeError) and "not initialized" in str(e):
            raise e
        return ExecuteResponse(output=f"Error: {type(e).__name__}: {e}", exit_code=1)

    async def aexecute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:  # noqa: ASYNC109
        return await asyncio.to_thread(self.execute, command, timeout=timeout)

    def _grep_cmd(self, pattern: str, path: str | None, glob: str | None, max_count: int | None) -> str:
        """deepagents' own in-sandbox Python grep (its route for path
        globs), for every search: the shell's grep has no `-Z` (NUL after
        the file name) nor `--exclude-dir`, which BaseSandbox's grep route
        needs. A glob without `/` matches file names at any depth, as
        `grep --include` does; hidden files are skipped, as on that route."""
        if glob is None:
            glob = "**/*"
        elif "/" not in glob:
            glob = "**/" + glob
        excluded = _grep_excluded_dirs(path, self.grep_exclude_dirs)

        def b64(text: str) -> str:
            return base64.b64encode(text.encode("utf-8")).decode("ascii")

        return _GREP_PATH_GLOB_TEMPLATE.format(
            path_b64=b64(path or "."),
            glob_b64=b64(glob),
            pattern_b64=b64(pattern),
            exclude_b64=b64("\0".join(excluded)),
            max_count=None if max_count is None else int(max_count),
        )

    def grep(
        self, pattern: str, path: str | None = None, glob: str | None = None, *, max_count: int | None = None
    ) -> GrepResult:
        result = self.execute(self._grep_cmd(pattern, path, glob, max_count))
        return _parse_grep_output(result, path, max_count)

    async def agrep(
        self, pattern: str, path: str | None = None, glob: str | None = None, *, max_count: int | None = None
    ) -> GrepResult:
        result = await self.aexecute(self._grep_cmd(pattern, path, glob, max_count))
        return _parse_grep_output(result, path, max_count)

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        out: list[FileUploadResponse] = []
        for path, content in files:
            if not isinstance(path, str) or not path.startswith("/"):
                out.append(FileUploadResponse(path=path, error="invalid_path"))
                continue
            try:
                self.sandbox.files.write(path, content)
            except (OSError, ValueError, TypeError) as e:
                out.append(FileUploadResponse(path=path, error=_file_error(e)))
            else:
                out.append(FileUploadResponse(path=path, error=None))
        return out

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        out: list[FileDownloadResponse] = []
        for path in paths:
            if not isinstance(path, str) or not path.startswith("/"):
                out.append(FileDownloadResponse(path=path, content=None, error="invalid_path"))
                continue
            try:
                data = self.sandbox.files.read(path)
            except (OSError, ValueError, TypeError) as e:
                out.append(FileDownloadResponse(path=path, content=None, error=_file_error(e)))
            else:
                out.append(FileDownloadResponse(path=path, content=data, error=None))
        return out

    def close(self) -> None:
        """Close the sandbox if the backend made it (its files are removed)."""
        if self._owned:
            self.sandbox.close()

    def __enter__(self) -> AmlaSandboxBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
