"""A sandbox's settings (`RuntimeConfig`), their defaults, and the checks
that refuse bad values with a message naming the setting at fault."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    from ..capabilities import ToolCallCap

__all__ = [
    "DEFAULT_DISK_QUOTA",
    "DEFAULT_MAX_OUTPUT_SIZE",
    "DEFAULT_MAX_TOOL_RESULT_SIZE",
    "DEFAULT_MEMORY_LIMIT",
    "DEFAULT_TIMEOUT",
    "MIN_MEMORY_LIMIT",
    "AsyncToolHandler",
    "RuntimeConfig",
    "SyncToolHandler",
    "ToolHandler",
    "check_limits",
    "check_positive_int",
]

DEFAULT_TIMEOUT = 30.0
DEFAULT_MEMORY_LIMIT = 256 * 1024 * 1024
DEFAULT_MAX_TOOL_RESULT_SIZE = 64 * 1024 * 1024
DEFAULT_MAX_OUTPUT_SIZE = 32 * 1024 * 1024
DEFAULT_DISK_QUOTA = 1024 * 1024 * 1024
# The guest's Go runtime needs room of its own before any script runs.
MIN_MEMORY_LIMIT = 32 * 1024 * 1024

SyncToolHandler = Callable[[str, dict[str, Any]], Any]
AsyncToolHandler = Callable[[str, dict[str, Any]], Awaitable[Any]]
ToolHandler = Union[SyncToolHandler, AsyncToolHandler]


@dataclass
class RuntimeConfig:
    wasm_path: Path | None = None
    pca_bytes: bytes = b""
    trusted_authorities: list[str] = field(default_factory=list)
    capabilities: list[ToolCallCap] = field(default_factory=list)
    tool_handler: ToolHandler | None = None
    tools_json: str = "[]"
    max_steps: int = 10000
    output_buffer_size: int = 8192
    tool_result_chunk_size: int = 2048
    max_tool_result_size: int = DEFAULT_MAX_TOOL_RESULT_SIZE
    timeout: float = DEFAULT_TIMEOUT
    memory_limit: int = DEFAULT_MEMORY_LIMIT
    max_output_size: int = DEFAULT_MAX_OUTPUT_SIZE
    disk_quota: int = DEFAULT_DISK_QUOTA
    # A directory of pure-Python packages the Python guest mounts read-only
    # (Sandbox(python_packages=...) prepares it: _python_packages.py).
    python_packages_dir: str | None = None
    # The network policy's JSON (amla_sandbox.network.policy_json; None: no
    # network). The core checks it (gocore/netpolicy: ParsePolicy).
    network: dict[str, Any] | None = None
    # Keep each language's interpreter state between runs (docs/sessions.md).
    keep_state: bool = False
    # Run Python in the data guest, with numpy and pandas (docs/python.md).
    python_data: bool = False
    # What durable runs do (record, replay, approval): a DurableStrategy
    # (amla_sandbox.runtime.driver; Sandbox passes amla_sandbox.durable's
    # Durability). None: plain runs, which can neither record nor replay.
    durable: Any = None
    # The key the core authenticates snapshots, journals and approval
    # tokens with (None: the core's default, which refuses them).
    durable_key: bytes | None = field(default=None, repr=False)
    # The methods of mounted MCP servers' tools (traces tell them apart).
    mcp_methods: frozenset[str] = frozenset()


def check_limits(timeout: Any, memory_limit: Any, max_tool_result_size: Any) -> None:
    """Refuse a timeout, memory limit or tool-result size out of range
    (ValueError naming the setting and the value given)."""
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    if timeout > 365 * 24 * 3600:
        raise ValueError(f"timeout must be at most one year of seconds, got {timeout!r}")
    if isinstance(memory_limit, bool) or not isinstance(memory_limit, int) or memory_limit < MIN_MEMORY_LIMIT:
        raise ValueError(
            f"memory_limit must be an int of at least {MIN_MEMORY_LIMIT} bytes (32 MiB), got {memory_limit!r}"
        )
    if memory_limit > 4 * 1024**3:
        raise ValueError(f"memory_limit must be at most 4 GiB (the wasm32 address space), got {memory_limit!r}")
    if (
        isinstance(max_tool_result_size, bool)
        or not isinstance(max_tool_result_size, int)
        or max_tool_result_size <= 0
    ):
        raise ValueError(f"max_tool_result_size must be a positive int, got {max_tool_result_size!r}")


def check_positive_int(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
