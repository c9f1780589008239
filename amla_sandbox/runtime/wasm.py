"""The documented import path of the runtime layer (`amla_sandbox.runtime.wasm`).

The code lives in `amla_sandbox.runtime.runtime`, named for the `Runtime` it
holds; this module keeps the reference project's imports working.
"""

from .runtime import (
    DEFAULT_DISK_QUOTA,
    DEFAULT_MAX_OUTPUT_SIZE,
    DEFAULT_MAX_TOOL_RESULT_SIZE,
    DEFAULT_MEMORY_LIMIT,
    DEFAULT_TIMEOUT,
    AsyncToolHandler,
    CancelledRunError,
    MemoryLimitError,
    RunResult,
    Runtime,
    RuntimeConfig,
    RuntimeError,
    RuntimeStatus,
    SyncToolHandler,
    TimeoutError,
    ToolCallRecord,
    ToolHandler,
    default_wasm_path,
    get_cache_dir,
    get_precompiled_path,
    precompile_module,
)
from .runtime import __all__ as __all__

_ = (
    DEFAULT_DISK_QUOTA,
    DEFAULT_MAX_OUTPUT_SIZE,
    DEFAULT_MAX_TOOL_RESULT_SIZE,
    DEFAULT_MEMORY_LIMIT,
    DEFAULT_TIMEOUT,
    AsyncToolHandler,
    CancelledRunError,
    MemoryLimitError,
    RunResult,
    Runtime,
    RuntimeConfig,
    RuntimeError,
    RuntimeStatus,
    SyncToolHandler,
    TimeoutError,
    ToolCallRecord,
    ToolHandler,
    default_wasm_path,
    get_cache_dir,
    get_precompiled_path,
    precompile_module,
)
