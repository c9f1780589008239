"""shell(): runs a shell command as a child process of the sandbox.

The host starts the shell guest on the same files, inside this run's
deadline, memory and tool-call budgets (wire.SpawnRequest), and returns
its output when it ends; the Python script waits meanwhile.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

import _amla

# json's functions as they were when the guest started: a script that replaces
# json.dumps or json.loads (in a kept session it stays replaced) does not change
# how the guest encodes tool calls, requests and results.
_json_dumps, _json_loads = json.dumps, json.loads


@dataclass(frozen=True)
class ShellResult:
    """How a shell command ended. Awaiting it gives itself, so
    `await shell(...)` works as in JavaScript."""

    stdout: str
    stderr: str
    exit_code: int

    @property
    def returncode(self) -> int:
        return self.exit_code

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    def __await__(self):
        return self
        yield  # pragma: no cover  (makes this a generator)


class ShellError(RuntimeError):
    """A command run with shell.run() or check=True exited non-zero."""

    def __init__(self, command: str, result: ShellResult) -> None:
        detail = "\n" + result.stderr.rstrip("\n") if result.stderr else ""
        super().__init__(f"Command failed (exit {result.exit_code}): {command}{detail}")
        self.command = command
        self.result = result
        self.exit_code = result.exit_code
        self.stdout = result.stdout
        self.stderr = result.stderr


ShellError.__module__ = ShellResult.__module__ = "builtins"


def _run(command: str, stdin) -> ShellResult:
    if not isinstance(command, str):
        raise TypeError(f"shell() takes the command as a str, not {type(command).__name__}")
    req: dict = {"language": "shell", "code": command}
    if stdin is not None:
        if isinstance(stdin, (bytes, bytearray)):
            stdin = bytes(stdin).decode("utf-8", "replace")
        elif not isinstance(stdin, str):
            raise TypeError(f"shell(): stdin must be str or bytes, not {type(stdin).__name__}")
        if stdin:
            req["stdin"] = stdin
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = ""
    if cwd.startswith(("/workspace", "/tmp")):
        req["dir"] = cwd
    r = _json_loads(_amla.spawn(_json_dumps(req, ensure_ascii=False).encode("utf-8", "surrogatepass")))
    stderr = r.get("stderr") or ""
    error = r.get("error") or ""
    if error and error not in stderr:
        stderr += ("\n" if stderr and not stderr.endswith("\n") else "") + error + "\n"
    code = r.get("exit_code")
    return ShellResult(r.get("stdout") or "", stderr, code if isinstance(code, int) else 1)


def shell(command: str, stdin: str | bytes | None = None, *, check: bool = False) -> ShellResult:
    """Runs command in the sandbox's shell; returns its stdout, stderr and
    exit code. With check=True a non-zero exit raises ShellError."""
    result = _run(command, stdin)
    if check and result.exit_code != 0:
        raise ShellError(command, result)
    return result


def _shell_run(command: str, stdin: str | bytes | None = None) -> str:
    """Runs command and returns its stdout; raises ShellError on a non-zero exit."""
    return shell(command, stdin, check=True).stdout


shell.run = _shell_run  # type: ignore[attr-defined]
