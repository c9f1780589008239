"""`create_tool_handler`: the `(method, params)` function that answers the
sandbox's tool calls."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .conversion import _tool_name

__all__ = ["create_tool_handler"]


def create_tool_handler(tools: Sequence[Callable[..., Any]]) -> Callable[[str, dict[str, Any]], Any]:
    """A `(method, params)` handler calling the function named by `method`
    (with or without the `mcp:` prefix) as `func(**params)`.

    An async function's coroutine is returned unawaited; the sandbox awaits it.
    """
    tool_map = {_tool_name(f): f for f in tools}

    def handler(method: str, params: dict[str, Any]) -> Any:
        func = tool_map.get(method.removeprefix("mcp:"))
        if func is None:
            raise ValueError(f"Unknown tool: {method}")
        return func(**params)

    return handler
