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

`AmlaCodeInterpreterMiddleware` is code mode for any LangChain agent (like
langchain-quickjs's `CodeInterpreterMiddleware`, whose interpreter cannot be
swapped): it gives the agent an `eval` tool that runs JavaScript or Python
in a sandbox that keeps its state per conversation thread, with chosen
agent tools callable from the code under capabilities and budgets.

Install: pip install "amla-sandbox[deepagents]" (docs/integrations.md).
"""

from __future__ import annotations

import asyncio
import base64
import builtins
import json
import threading
import uuid
from collections.abc import Sequence
from typing import Any, Literal

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
    from langchain.agents.middleware import AgentMiddleware
    from langchain.tools import ToolRuntime
    from langchain_core.tools import BaseTool, StructuredTool
    from langchain_core.utils.function_calling import convert_to_openai_tool
    from pydantic import BaseModel, Field
except ImportError as _e:  # pragma: no cover - exercised without the extra
    raise missing_framework("deepagents", "deepagents", "deepagents", _e) from _e

from ..capabilities import MethodCapability, ToolCallCap
from ..sandbox import Sandbox, ShellResult
from ..tools import ToolDefinition

__all__ = ["AmlaCodeInterpreterMiddleware", "AmlaSandboxBackend"]

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
        from .. import MemoryLimitError, TimeoutError

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


class _EvalArgs(BaseModel):
    code: str = Field(description="The code to run. Its last expression (or a top-level `return`) is the result.")


class AmlaCodeInterpreterMiddleware(AgentMiddleware):
    """Code mode for LangChain agents (`create_agent`, `create_deep_agent`):
    an `eval` tool that runs the model's code in an amla sandbox.

    Each conversation thread (`thread_id` of the run's config; one shared
    sandbox without one) gets its own sandbox with `keep_state=True`, so
    variables, functions and imports stay from one `eval` to the next, and
    files stay in /workspace. `ptc` lists LangChain tools the code may call
    (programmatic tool calling): each is a function of the sandbox under
    its name (`await add({a: 1, b: 2})` in JavaScript, `add(a=1, b=2)` in
    Python) run through the tool's own `invoke`. `capabilities` decide
    those calls (method `mcp:<tool name>`, constraints, `max_calls`
    budgets per thread); None allows every `ptc` tool. A refused call or an
    exhausted budget raises in the code; uncaught, the tool's answer is the
    error, which the model reads. Other keyword arguments are `Sandbox`'s
    (`timeout`, `memory_limit`, `network`, ...). `close()` releases every
    thread's sandbox.
    """

    def __init__(
        self,
        *,
        language: Literal["javascript", "python"] = "javascript",
        ptc: Sequence[BaseTool] = (),
        capabilities: Sequence[ToolCallCap | MethodCapability] | None = None,
        tool_name: str = "eval",
        max_result_chars: int = 4000,
        **sandbox_options: Any,
    ) -> None:
        super().__init__()
        if language not in ("javascript", "python"):
            raise ValueError(f"language must be 'javascript' or 'python', got {language!r}")
        for own in ("tools", "tool_handler", "keep_state"):
            if own in sandbox_options:
                raise TypeError(f"AmlaCodeInterpreterMiddleware sets {own} itself; do not pass {own}=")
        self._language = language
        self._ptc: dict[str, BaseTool] = {}
        for t in ptc:
            if not isinstance(t, BaseTool):
                raise TypeError(f"ptc takes LangChain tools (BaseTool), got {type(t).__name__}")
            self._ptc[t.name] = t
        self._definitions = [
            ToolDefinition(
                name=t.name,
                description=t.description or "",
                parameters=convert_to_openai_tool(t)["function"].get("parameters") or {"type": "object"},
            )
            for t in self._ptc.values()
        ]
        self._capabilities = list(capabilities) if capabilities is not None else [ToolCallCap(method_pattern="**")]
        self._options = sandbox_options
        self._max_chars = max_result_chars
        self._sandboxes: dict[str, Sandbox] = {}
        self._lock = threading.Lock()
        self.tools = [self._build_tool(tool_name)]

    def _build_tool(self, name: str) -> BaseTool:
        lang = "JavaScript (top-level await)" if self._language == "javascript" else "Python (top-level await)"
        listing = "".join(f"\n- {d.name}: {d.description}" for d in self._definitions)
        description = (
            f"Run {lang} in a sandbox that keeps its variables, functions and imports between calls in this "
            "conversation; files are in /workspace. The result is what the code prints and the value of its "
            "last expression."
            + (f" Tools callable from the code, with keyword arguments:{listing}" if listing else "")
        )

        def sync_eval(code: str, runtime: ToolRuntime) -> str:
            sb = self._sandbox(runtime)
            try:
                if self._language == "python":
                    sb.python(code)
                else:
                    sb.execute(code)
            except Exception as e:
                return self._clip(f"Error: {type(e).__name__}: {e}")
            return self._answer(sb)

        async def async_eval(code: str, runtime: ToolRuntime) -> str:
            sb = self._sandbox(runtime)
            try:
                if self._language == "python":
                    await sb.python_async(code)
                else:
                    await sb.execute_async(code)
            except Exception as e:
                return self._clip(f"Error: {type(e).__name__}: {e}")
            return self._answer(sb)

        return StructuredTool.from_function(
            func=sync_eval,
            coroutine=async_eval,
            name=name,
            description=description,
            args_schema=_EvalArgs,
            infer_schema=False,
        )

    def _sandbox(self, runtime: ToolRuntime) -> Sandbox:
        config = getattr(runtime, "config", None) or {}
        thread = str((config.get("configurable") or {}).get("thread_id", ""))
        with self._lock:
            sb = self._sandboxes.get(thread)
            if sb is None:
                sb = Sandbox(
                    tools=list(self._definitions),
                    tool_handler=self._answer_call,
                    capabilities=list(self._capabilities),
                    keep_state=True,
                    **self._options,
                )
                self._sandboxes[thread] = sb
            return sb

    def _answer_call(self, method: str, params: dict[str, Any]) -> Any:
        # Reached only for calls the sandbox's capabilities allowed. A tool
        # with only a coroutine is awaited, which an async eval does (a
        # sync eval then fails the call, as LangChain's own sync invoke of
        # such a tool does).
        tool = self._ptc.get(method)
        if tool is None:
            raise ValueError(f"Unknown tool: {method}")
        if isinstance(tool, StructuredTool) and tool.func is None:
            return self._content(tool.ainvoke(params))
        out = tool.invoke(params)
        return getattr(out, "content", out)

    @staticmethod
    async def _content(pending: Any) -> Any:
        out = await pending
        return getattr(out, "content", out)

    def _answer(self, sb: Sandbox) -> str:
        result = sb.last_result
        assert result is not None
        parts = [result.stdout.rstrip("\n")] if result.stdout.strip() else []
        if result.exit_code != 0:
            parts.append(result.stderr.strip() or f"exit code {result.exit_code}")
        elif result.stderr.strip():
            parts.append("stderr:\n" + result.stderr.strip())
        return self._clip("\n".join(parts) if parts else "(no output)")

    def _clip(self, text: str) -> str:
        if len(text) <= self._max_chars:
            return text
        return text[: self._max_chars] + f"\n[... {len(text) - self._max_chars} more characters]"

    def close(self) -> None:
        """Release every thread's sandbox (their files and state)."""
        with self._lock:
            boxes, self._sandboxes = list(self._sandboxes.values()), {}
        for sb in boxes:
            sb.close()
