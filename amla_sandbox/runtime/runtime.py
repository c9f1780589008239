"""The documented import path of the runtime layer
(`amla_sandbox.runtime.runtime`): every name it has always had.

The code lives in modules named for what they hold: `config` (RuntimeConfig,
defaults, limit checks), `result` (RunResult, ToolCallRecord,
RuntimeStatus), `driver` (Runtime and its run state machine), `pipeline`
(a tool request's way through Python), `cache` (the compiled-guest cache)
and `amla_sandbox.errors` (the exceptions).
"""

from __future__ import annotations

from ..errors import CancelledRunError, MemoryLimitError, RuntimeError, StaleRunError, TimeoutError  # noqa: A004
from .cache import default_wasm_path, get_cache_dir, get_precompiled_path, precompile_module, resolve_wasm
from .config import (
    DEFAULT_DISK_QUOTA,
    DEFAULT_MAX_OUTPUT_SIZE,
    DEFAULT_MAX_TOOL_RESULT_SIZE,
    DEFAULT_MEMORY_LIMIT,
    DEFAULT_TIMEOUT,
    MIN_MEMORY_LIMIT,
    AsyncToolHandler,
    RuntimeConfig,
    SyncToolHandler,
    ToolHandler,
)
from .driver import AnswerBatch, AnswerRequest, AsyncAnswerRequest, DurableStrategy, Runtime
from .pipeline import Answer, ToolRequest
from .result import RunResult, RuntimeStatus, ToolCallRecord

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

# Importable here as before, kept out of __all__ (TimeoutError and
# MemoryLimitError would shadow the builtins in a star-import).
_ = (
    CancelledRunError,
    MemoryLimitError,
    StaleRunError,
    TimeoutError,
    resolve_wasm,
    DEFAULT_DISK_QUOTA,
    DEFAULT_MAX_OUTPUT_SIZE,
    DEFAULT_MAX_TOOL_RESULT_SIZE,
    DEFAULT_MEMORY_LIMIT,
    DEFAULT_TIMEOUT,
    MIN_MEMORY_LIMIT,
    AnswerBatch,
    AnswerRequest,
    AsyncAnswerRequest,
    DurableStrategy,
    Answer,
    ToolRequest,
    RunResult,
    ToolCallRecord,
)
