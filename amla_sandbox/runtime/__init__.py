"""The runtime layer: the Go core that runs scripts in the WASM guest."""

from .runtime import (
    MemoryLimitError,
    Runtime,
    RuntimeConfig,
    RuntimeError,
    RuntimeStatus,
    TimeoutError,
)

__all__ = ["Runtime", "RuntimeConfig", "RuntimeError", "RuntimeStatus"]
# TimeoutError and MemoryLimitError are importable but kept out of __all__
# so a star-import does not shadow the builtins of the same names.
_ = (TimeoutError, MemoryLimitError)
