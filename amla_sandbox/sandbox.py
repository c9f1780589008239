"""Sandbox: run agent-written JavaScript and shell scripts that may call only
the Python tools they were given."""

from __future__ import annotations

import asyncio
import builtins
import inspect
import json
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from .audit import AuditCollector, AuditConfig, AuditEntry
from .capabilities import MethodCapability
from .runtime.wasm import (
    DEFAULT_MAX_TOOL_RESULT_SIZE,
    DEFAULT_MEMORY_LIMIT,
    DEFAULT_TIMEOUT,
    Runtime,
    RunResult,
    RuntimeConfig,
    ToolHandler,
    ToolRequest,
    encode_result,
)
from .tools import ToolDefinition

__all__ = ["Sandbox"]

_COROUTINE_MESSAGE = (
    "Tool handler returned a coroutine for '{method}'. "
    "Use execute_async() instead of execute() for async handlers."
)


def _failure(method: str, message: str, params: Any) -> str:
    shown = str(params)
    suffix = "..." if len(shown) > 200 else ""
    return f"Tool '{method}' failed: {message}\nParameters: {shown[:200]}{suffix}"


@dataclass
class Sandbox:
    """A sandbox with its own filesystem, capabilities, budgets and limits.

    Scripts run in a WebAssembly guest; every tool call they make is checked
    against `capabilities` (in the Go core) before `tool_handler` sees it.
    """

    pca: bytes = b""
    tools: list[ToolDefinition] = field(default_factory=list)
    capabilities: list[MethodCapability] = field(default_factory=list)
    trusted_authorities: list[str] = field(default_factory=list)
    tool_handler: ToolHandler | None = None
    wasm_path: Path | None = None
    audit_config: AuditConfig | None = None
    timeout: float = DEFAULT_TIMEOUT
    memory_limit: int = DEFAULT_MEMORY_LIMIT
    max_tool_result_size: int = DEFAULT_MAX_TOOL_RESULT_SIZE
    _runtime: Runtime | None = field(default=None, repr=False)
    _prelude: str | None = field(default=None, repr=False)
    _audit_collector: AuditCollector | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        # Await async tool results inside execute()/run() (create_sandbox_tool
        # sets this; a bare Sandbox keeps the documented coroutine error).
        self._await_in_sync = False
        pca, trusted = self.pca, list(self.trusted_authorities)
        if not pca or not trusted:
            from .auth import EphemeralAuthority

            authority = EphemeralAuthority()
            pca = authority.create_pca(capabilities=["tool_call:**"]).to_cbor()
            trusted = [authority.public_key_hex()]
            if not self.capabilities:
                self.capabilities = [MethodCapability(method_pattern="**")]
        for t in self.tools:
            if not isinstance(t, ToolDefinition):
                raise TypeError(f"tools must be ToolDefinition objects, got {type(t).__name__}")
        for c in self.capabilities:
            if not isinstance(c, MethodCapability):
                raise TypeError(f"capabilities must be MethodCapability objects, got {type(c).__name__}")
        if self.tool_handler is not None and not callable(self.tool_handler):
            raise TypeError(f"tool_handler must be callable, got {type(self.tool_handler).__name__}")
        if self.audit_config is not None:
            self._audit_collector = AuditCollector(self.audit_config)
        try:
            self._runtime = self._new_runtime(pca, trusted)
        except BaseException:
            if self._audit_collector is not None:
                self._audit_collector.close()  # do not leak the open audit file
                self._audit_collector = None
            raise
        if self._audit_collector is not None:
            self._runtime.set_audit_collector(self._audit_collector)

    def _new_runtime(self, pca: bytes, trusted: list[str]) -> Runtime:
        return Runtime(
            RuntimeConfig(
                wasm_path=self.wasm_path,
                pca_bytes=pca,
                trusted_authorities=trusted,
                capabilities=list(self.capabilities),
                tool_handler=self.tool_handler,
                tools_json=json.dumps([t.to_dict() for t in self.tools]),
                max_tool_result_size=self.max_tool_result_size,
                timeout=self.timeout,
                memory_limit=self.memory_limit,
            )
        )

    # -- handlers -------------------------------------------------------------

    def _prepare(self, req: ToolRequest) -> tuple[Callable[..., Any] | None, str]:
        name = req.method[4:] if req.method.startswith("mcp:") else req.method
        return self.tool_handler, name

    def _call_sync(self, req: ToolRequest) -> tuple[str | None, str | None]:
        handler, name = self._prepare(req)
        if handler is None:
            return None, f"No handler for tool call: {req.method}"
        try:
            value = handler(name, req.params)
            if inspect.isawaitable(value):
                if self._await_in_sync:
                    value = self._drive(value)
                else:
                    if inspect.iscoroutine(value):
                        value.close()
                    raise _CoroutineError(_COROUTINE_MESSAGE.format(method=req.method))
        except Exception as e:
            return None, _failure(req.method, str(e), req.params)
        return encode_result(value)

    async def _call_async(self, req: ToolRequest) -> tuple[str | None, str | None]:
        handler, name = self._prepare(req)
        if handler is None:
            return None, f"No handler for tool call: {req.method}"
        try:
            value = handler(name, req.params)
            if inspect.isawaitable(value):
                value = await value
        except Exception as e:
            return None, _failure(req.method, str(e), req.params)
        return encode_result(value)

    def _drive(self, value: Awaitable[Any]) -> Any:
        """Await an async tool's result from synchronous run()/execute()."""
        try:
            asyncio.get_running_loop()
        except builtins.RuntimeError:
            pass
        else:
            if inspect.iscoroutine(value):
                value.close()
            raise _CoroutineError(
                "async tool called from run()/execute() inside a running event loop: "
                "use run_async() or execute_async() instead"
            )
        loop = getattr(self, "_loop", None)
        if loop is None or loop.is_closed():
            loop = self._loop = asyncio.new_event_loop()

        async def wrap() -> Any:
            return await value

        return loop.run_until_complete(wrap())

    # -- running scripts ------------------------------------------------------

    def _rt(self) -> Runtime:
        if self._runtime is None:
            raise builtins.RuntimeError("Sandbox not initialized")
        return self._runtime

    def execute(
        self,
        code: str,
        on_output: Callable[[str], None] | None = None,
        stdin: str | bytes | None = None,
    ) -> str:
        """Run JavaScript; return its stdout. With `stdin`, stdin is the script."""
        return self._rt()._run_sync(code, "javascript", self._call_sync, on_output, stdin).stdout

    async def execute_async(
        self,
        code: str,
        on_output: Callable[[str], None] | None = None,
        stdin: str | bytes | None = None,
    ) -> str:
        """Run JavaScript, awaiting async tool handlers; calls a script issues
        together (e.g. Promise.all) run concurrently."""
        rt = self._rt()
        return (await rt._run_async(code, "javascript", self._call_async, on_output, stdin)).stdout

    def shell(self, command: str, stdin: str | bytes | None = None) -> str:
        """Run a shell command line; return its stdout (a non-zero exit does not raise)."""
        return self._rt()._run_sync(command, "shell", self._call_sync, None, stdin).stdout

    async def shell_async(self, command: str, stdin: str | bytes | None = None) -> str:
        """`shell()` for async tool handlers: the `tool` applet awaits them."""
        rt = self._rt()
        return (await rt._run_async(command, "shell", self._call_async, None, stdin)).stdout

    # The public step/resume loop -------------------------------------------

    def start(
        self,
        code: str,
        language: str = "javascript",
        *,
        stdin: str | bytes | None = None,
        on_output: Callable[[str], None] | None = None,
    ) -> None:
        """Begin a run; then `while sb.has_work(): req = sb.step(); sb.resume(...)`."""
        self._rt().start(code, language, stdin=stdin, on_output=on_output)

    def has_work(self) -> bool:
        return self._runtime is not None and self._runtime.has_work()

    def step(self) -> ToolRequest | None:
        if self._runtime is None:
            return None
        return self._runtime.step()

    def resume(self, result: Any, *, id: int | None = None) -> None:
        self._rt().resume(result, id=id)

    def resume_error(self, message: str, *, id: int | None = None) -> None:
        self._rt().resume_error(message, id=id)

    def result(self) -> RunResult | None:
        """The finished run of the loop (also `last_result`)."""
        return self._rt().result()

    # -- introspection --------------------------------------------------------

    @property
    def last_stderr(self) -> str:
        return self._runtime.last_stderr if self._runtime is not None else ""

    @property
    def last_result(self) -> RunResult | None:
        return self._runtime.last_result if self._runtime is not None else None

    def can_call(self, method: str, params: dict[str, Any] | None = None) -> bool:
        return self._runtime is not None and self._runtime.can_call(method, params)

    def get_capabilities(self) -> list[MethodCapability]:
        return list(self.capabilities)

    def get_remaining_calls(self, capability_key: str) -> int | None:
        return self._runtime.get_remaining_calls(capability_key) if self._runtime is not None else None

    def get_call_counts(self) -> dict[str, int]:
        return self._runtime.get_call_counts() if self._runtime is not None else {}

    def get_audit_entries(
        self, entry_type: str | None = None, since: datetime | None = None
    ) -> Iterator[AuditEntry]:
        if self._audit_collector is None:
            return iter(())
        return self._audit_collector.get_entries(entry_type=entry_type, since=since)

    @property
    def audit_collector(self) -> AuditCollector | None:
        return self._audit_collector

    # -- lifetime -------------------------------------------------------------

    def close(self) -> None:
        """Remove the sandbox's files and release the engine (idempotent)."""
        if self._audit_collector is not None:
            self._audit_collector.close()
            self._audit_collector = None
        if self._runtime is not None:
            self._runtime.close()
            self._runtime = None
        loop = getattr(self, "_loop", None)
        if loop is not None and not loop.is_closed():
            loop.close()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _CoroutineError(Exception):
    pass
