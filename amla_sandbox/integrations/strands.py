"""Strands Agents on amla-sandbox: a `strands.sandbox.Sandbox` for
`Agent(sandbox=...)`.

    from strands import Agent
    from amla_sandbox.integrations.strands import AmlaStrandsSandbox

    agent = Agent(model=..., sandbox=AmlaStrandsSandbox(timeout=30))

Strands' sandbox-aware tools (`shell`, `python_repl`, `file_editor`, which
this sandbox also vends through `get_tools()`) run their commands in the
sandbox's shell, their code in its Python or JavaScript guest, and their
file operations through its host file API (`Sandbox.files`), confined to
/workspace and /tmp. Tools that the commands and code call are the
sandbox's own (`tools=`, `tool_handler=`, `capabilities=`), under its
capabilities and budgets: a refused call or an exhausted budget is a
non-zero exit with the reason on stderr, which the agent reads.

Install: pip install "amla-sandbox[strands]" (docs/integrations.md).
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import AsyncGenerator
from typing import Any

from ._common import missing_framework

try:
    from strands.sandbox import ExecutionResult, FileInfo, StreamChunk
    from strands.sandbox import Sandbox as StrandsSandbox
    from strands.sandbox.errors import SandboxPathNotFoundError, SandboxTimeoutError
    from strands.types.tools import AgentTool
    from strands.vended_tools.python_repl.python_repl import make_python_repl
    from strands.vended_tools.shell.shell import make_shell
except ImportError as _e:  # pragma: no cover - exercised without the extra
    raise missing_framework("strands", "Strands Agents", "strands", _e) from _e

from .. import TimeoutError as RunTimeoutError
from ..sandbox import Sandbox

__all__ = ["AmlaStrandsSandbox"]

# `language` names execute_code takes, and the guest each runs in.
_LANGUAGES = {
    "python": "python",
    "python3": "python",
    "py": "python",
    "javascript": "javascript",
    "js": "javascript",
    "node": "javascript",
    "typescript": "typescript",
    "ts": "typescript",
    "sh": "shell",
    "bash": "shell",
    "shell": "shell",
}
# How the shell runs a script file of each guest (for a run with cwd or env).
_INTERPRETER = {"python": "python3", "javascript": "node", "typescript": "node", "shell": "sh"}


class AmlaStrandsSandbox(StrandsSandbox):
    """A Strands sandbox whose commands, code and files are one amla
    sandbox's.

    Pass a `Sandbox` (left open by `close()`) or `Sandbox`'s keyword
    arguments (`timeout`, `memory_limit`, `tools`, `tool_handler`,
    `capabilities`, `network`, `keep_state`, ...). Output is delivered when
    a run ends (stdout, then stderr, then the result), not as it is
    written. A `timeout` shorter than the sandbox's cancels the run and
    raises `SandboxTimeoutError`; so does the sandbox's own timeout.
    """

    def __init__(self, sandbox: Sandbox | None = None, *, vend_tools: bool = True, **sandbox_options: Any) -> None:
        if sandbox is not None and sandbox_options:
            raise TypeError(f"pass a Sandbox or Sandbox arguments, not both (got {sorted(sandbox_options)})")
        self._owned = sandbox is None
        self.sandbox = sandbox if sandbox is not None else Sandbox(**sandbox_options)
        self._vend_tools = vend_tools

    def get_tools(self) -> list[AgentTool]:
        """Strands' `shell` and `python_repl` tools, bound to this sandbox
        (unless `vend_tools=False`)."""
        if not self._vend_tools:
            return []
        return [make_shell(sandbox=self), make_python_repl(sandbox=self)]

    async def _run(self, start: Any, timeout: float | None) -> Any:
        """Await a run, cancelling it after `timeout` seconds."""
        if timeout is not None and (not isinstance(timeout, (int, float)) or timeout <= 0):
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        loop = asyncio.get_running_loop()
        fired = threading.Event()

        def stop() -> None:
            fired.set()
            self.sandbox.cancel()

        handle = loop.call_later(timeout, stop) if timeout is not None else None
        try:
            return await start
        except RunTimeoutError as e:
            raise SandboxTimeoutError(self.sandbox.timeout) from e
        except Exception as e:
            if fired.is_set():
                raise SandboxTimeoutError(timeout) from e
            raise
        finally:
            if handle is not None:
                handle.cancel()

    async def execute_streaming(
        self,
        command: str,
        *,
        timeout: float | None = None,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        **kwargs: Any,
    ) -> AsyncGenerator[StreamChunk | ExecutionResult, None]:
        r = await self._run(self.sandbox.run_shell_async(command, stdin="", cwd=cwd, env=env), timeout)
        for chunk in _chunks(r.stdout, r.stderr):
            yield chunk
        yield ExecutionResult(exit_code=r.exit_code, stdout=r.stdout, stderr=r.stderr)

    async def execute_code_streaming(
        self,
        code: str,
        language: str,
        *,
        timeout: float | None = None,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        **kwargs: Any,
    ) -> AsyncGenerator[StreamChunk | ExecutionResult, None]:
        guest = _LANGUAGES.get(language.lower() if isinstance(language, str) else "")
        if guest is None:
            msg = f"{language}: not an interpreter of this sandbox (python3, node, sh)\n"
            yield StreamChunk(msg, "stderr")
            yield ExecutionResult(exit_code=127, stdout="", stderr=msg)
            return
        if cwd is None and not env:
            # Straight into the guest: the run's final expression prints, as
            # in a REPL, and a keep_state sandbox keeps its definitions.
            if guest == "shell":
                coro = self.sandbox.run_shell_async(code, stdin="")
                r = await self._run(coro, timeout)
                out, err, status = r.stdout, r.stderr, r.exit_code
            else:
                run = self.sandbox.python_async(code) if guest == "python" else self.sandbox.execute_async(
                    code, language=guest
                )
                await self._run(run, timeout)
                result = self.sandbox.last_result
                assert result is not None
                out, err, status = result.stdout, result.stderr, result.exit_code
        else:
            # A working directory or environment: the code as a script file
            # the shell's interpreter runs there.
            ext = {"python": "py", "javascript": "js", "typescript": "ts", "shell": "sh"}[guest]
            path = f"/tmp/.amla-code-{uuid.uuid4().hex}.{ext}"
            self.sandbox.files.write(path, code)
            try:
                r = await self._run(
                    self.sandbox.run_shell_async(f"{_INTERPRETER[guest]} {path}", stdin="", cwd=cwd, env=env), timeout
                )
            finally:
                try:
                    self.sandbox.files.remove(path)
                except OSError:
                    pass
            out, err, status = r.stdout, r.stderr, r.exit_code
        for chunk in _chunks(out, err):
            yield chunk
        yield ExecutionResult(exit_code=status, stdout=out, stderr=err)

    async def read_file(self, path: str, **kwargs: Any) -> bytes:
        return self.sandbox.files.read(path)

    async def write_file(self, path: str, content: bytes, **kwargs: Any) -> None:
        self.sandbox.files.write(path, content)

    async def remove_file(self, path: str, **kwargs: Any) -> None:
        self.sandbox.files.remove(path)

    async def list_files(self, path: str, **kwargs: Any) -> list[FileInfo]:
        try:
            entries = self.sandbox.files.list(path)
        except (FileNotFoundError, NotADirectoryError) as e:
            raise SandboxPathNotFoundError(path) from e
        return [FileInfo(name=e.name, is_dir=e.is_dir, size=e.size if e.type == "file" else None) for e in entries]

    def close(self) -> None:
        """Close the sandbox if this object made it (its files are removed)."""
        if self._owned:
            self.sandbox.close()


def _chunks(stdout: str, stderr: str) -> list[StreamChunk]:
    out = []
    if stdout:
        out.append(StreamChunk(stdout, "stdout"))
    if stderr:
        out.append(StreamChunk(stderr, "stderr"))
    return out
