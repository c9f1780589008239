"""Python tools for the MCP server tests ("pytools:add" in a config)."""


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b
