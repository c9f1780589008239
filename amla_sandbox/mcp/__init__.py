"""The sandbox as an MCP server (`python -m amla_sandbox.mcp`,
`amla-sandbox-mcp`); docs/mcp.md. Needs the `mcp` extra:
`pip install 'amla-sandbox[mcp]'`."""

from __future__ import annotations

from typing import Any

__all__ = ["main"]


def main(argv: Any = None) -> int:
    """The `amla-sandbox-mcp` command (the SDK is imported here, not on import)."""
    from .server import main as server_main

    return server_main(argv)
