"""The tool handler for Python functions: the `(method, params)` callable that
answers the sandbox's tool calls by calling the function the method names.

`FunctionHandler` is the one name → function handler of the package:
`create_tool_handler`, `create_sandbox_tool`, `SandboxTool.from_functions`
(and so CodeAct) and the Ray pool's local tools all use it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .conversion import tool_name

__all__ = ["create_tool_handler"]


class FunctionHandler:
    """`handler(method, params)` calls `functions[name](**params)`, where
    `name` is `method` without its `mcp:` prefix.

    `functions` is used as given, not copied: a function added to it later
    can be called. A method naming no function raises ValueError with the
    text `unknown`, a str.format template with the fields `method` (as
    received) and `name` (without `mcp:`). An async function's coroutine is
    returned unawaited; the sandbox awaits it.
    """

    def __init__(
        self, functions: Mapping[str, Callable[..., Any]], *, unknown: str = "Unknown tool: {name!r}"
    ) -> None:
        self.functions = functions
        self.unknown = unknown

    @classmethod
    def of(cls, tools: Iterable[Callable[..., Any]], *, unknown: str = "Unknown tool: {name!r}") -> FunctionHandler:
        """A handler for `tools`, each called by its tool name (the last of
        two functions with one name wins)."""
        return cls({tool_name(f): f for f in tools}, unknown=unknown)

    def lookup(self, method: str) -> Callable[..., Any]:
        """The function `method` names; ValueError if none."""
        name = method.removeprefix("mcp:")
        func = self.functions.get(name)
        if func is None:
            raise ValueError(self.unknown.format(method=method, name=name))
        return func

    def __call__(self, method: str, params: dict[str, Any]) -> Any:
        return self.lookup(method)(**params)


def create_tool_handler(tools: Iterable[Callable[..., Any]]) -> Callable[[str, dict[str, Any]], Any]:
    """A `(method, params)` handler calling the function named by `method`
    (with or without the `mcp:` prefix) as `func(**params)`; an unknown
    method is `ValueError("Unknown tool: <method as received>")`.

    An async function's coroutine is returned unawaited; the sandbox awaits it.
    """
    return FunctionHandler.of(tools, unknown="Unknown tool: {method}")
