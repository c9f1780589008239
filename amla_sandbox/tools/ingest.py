"""Tools written for other frameworks (LangChain, OpenAI, Anthropic) →
`(callables, definitions)` for a sandbox."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .conversion import parameters_schema, register_alias
from .definition import ToolDefinition

__all__ = ["from_langchain", "from_openai_tools", "from_openai", "from_anthropic_tools", "from_claude"]

# Parameters LangChain passes to BaseTool._run itself; they are not the
# tool's arguments.
_LANGCHAIN_INTERNAL = ("run_manager", "callbacks", "config")


def _args_schema_to_json(args_schema: Any) -> dict[str, Any]:
    if isinstance(args_schema, Mapping):  # recent LangChain accepts a JSON Schema dict
        schema = dict(args_schema)
    elif hasattr(args_schema, "model_json_schema"):  # pydantic v2
        schema = args_schema.model_json_schema()
    else:  # pydantic v1
        schema = args_schema.schema()
    for key in ("title", "$defs", "definitions"):
        schema.pop(key, None)
    return schema


def _named(handler: Callable[..., Any], name: str, description: str | None = None) -> Callable[..., Any]:
    """A function called `name` that calls `handler(**kwargs)`.

    The sandbox finds tools by `__name__`, so a handler must carry its
    tool's name. The handler itself is never renamed: one function can
    serve several tools, and a bound method's name cannot be set anyway.
    """
    if getattr(handler, "__name__", None) == name:
        return handler

    if inspect.iscoroutinefunction(handler):

        async def acall(**kwargs: Any) -> Any:
            return await handler(**kwargs)

        wrapper: Callable[..., Any] = functools.update_wrapper(acall, handler)
    else:

        def call(**kwargs: Any) -> Any:
            return handler(**kwargs)

        wrapper = functools.update_wrapper(call, handler)
    wrapper.__name__ = name
    wrapper.__qualname__ = name
    if description is not None and not inspect.getdoc(handler):
        wrapper.__doc__ = description
    try:
        sig = inspect.signature(handler)
    except (TypeError, ValueError):
        return wrapper
    params = [p for n, p in sig.parameters.items() if n not in _LANGCHAIN_INTERNAL]
    wrapper.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    return wrapper


def _as_tool(handler: Callable[..., Any], name: str, description: str | None) -> Callable[..., Any]:
    """`handler` itself, called by sandbox code as `name` wherever it is
    passed (create_sandbox_tool, SandboxTool.from_functions, ...); a
    `_named` wrapper only when that cannot be (the function already serves
    a tool of another name, or takes no weak reference)."""
    if getattr(handler, "__name__", None) == name:
        return handler
    try:
        params = inspect.signature(handler).parameters
    except (TypeError, ValueError):
        params = {}  # type: ignore[assignment]
    hidden = [n for n in params if n in _LANGCHAIN_INTERNAL]
    if register_alias(handler, name, description, hidden):
        return handler
    return _named(handler, name, description)


def from_langchain(tools: Sequence[Any]) -> tuple[list[Callable[..., Any]], list[ToolDefinition]]:
    """Convert LangChain tools (`@tool` functions, `StructuredTool`s, `BaseTool`
    subclasses, or plain functions) to `(callables, definitions)`.

    Each callable is the tool's own function (`tool.func`, or `tool._run`),
    and sandbox code calls it by the tool's name (`tool.name`): passing the
    callables to `create_sandbox_tool` registers them under those names."""
    callables: list[Callable[..., Any]] = []
    definitions: list[ToolDefinition] = []
    for tool in tools:
        func = getattr(tool, "func", None)
        run = getattr(tool, "_run", None)
        args_schema = getattr(tool, "args_schema", None)
        if func is not None and callable(func):
            name = getattr(tool, "name", None) or func.__name__
            description = getattr(tool, "description", None) or func.__doc__ or ""
            target = _as_tool(func, name, description)
            if args_schema is not None:
                parameters = _args_schema_to_json(args_schema)
            else:
                parameters = parameters_schema(func)
        elif run is not None and callable(run):
            name = getattr(tool, "name", None) or type(tool).__name__
            description = getattr(tool, "description", None) or ""
            target = _as_tool(run, name, description)
            if args_schema is not None:
                parameters = _args_schema_to_json(args_schema)
            else:  # as the reference: create_sandbox_tool derives it from `target` anyway
                parameters = {"type": "object", "properties": {}}
        elif callable(tool):
            target = tool
            name = getattr(tool, "__name__", None) or "unknown"
            description = tool.__doc__ or ""
            parameters = parameters_schema(tool)
        else:
            raise TypeError(
                f"Cannot convert tool of type {type(tool).__name__}. "
                "Expected @tool decorated function or BaseTool subclass."
            )
        callables.append(target)
        definitions.append(
            ToolDefinition(name=name, description=description.split("\n")[0].strip(), parameters=parameters)
        )
    return callables, definitions


def _placeholder(name: str, description: str, source: str) -> Callable[..., Any]:
    def placeholder(**_kwargs: Any) -> Any:
        raise NotImplementedError(
            f"No handler provided for tool '{name}'. "
            f"Pass handlers={{'{name}': your_function}} to {source}()."
        )

    placeholder.__name__ = name
    placeholder.__qualname__ = name
    placeholder.__doc__ = description
    return placeholder


def _ingest(
    specs: Sequence[Mapping[str, Any]],
    handlers: Mapping[str, Callable[..., Any]] | None,
    schema_key: str,
    source: str,
) -> tuple[list[Callable[..., Any]], list[ToolDefinition]]:
    callables: list[Callable[..., Any]] = []
    definitions: list[ToolDefinition] = []
    for spec in specs:
        name = spec["name"]
        description = spec.get("description") or f"Call {name}"
        parameters = spec.get(schema_key) or {"type": "object", "properties": {}}
        if handlers and name in handlers:
            target = _named(handlers[name], name, description)
        else:
            target = _placeholder(name, description, source)
        callables.append(target)
        definitions.append(ToolDefinition(name=name, description=description, parameters=parameters))
    return callables, definitions


def from_openai_tools(
    tools: Sequence[Mapping[str, Any]],
    handlers: Mapping[str, Callable[..., Any]] | None = None,
) -> tuple[list[Callable[..., Any]], list[ToolDefinition]]:
    """Convert OpenAI function-calling tool specs (`{"type": "function",
    "function": {...}}` or the flat `{"name", "description", "parameters"}`
    form) to `(callables, definitions)`. Tools without an entry in `handlers`
    get a placeholder that raises NotImplementedError when called. One
    function may serve several tools."""
    flat = []
    for spec in tools:
        inner = spec.get("function")
        flat.append(inner if isinstance(inner, Mapping) else spec)
    return _ingest(flat, handlers, "parameters", "from_openai_tools")


def from_anthropic_tools(
    tools: Sequence[Mapping[str, Any]],
    handlers: Mapping[str, Callable[..., Any]] | None = None,
) -> tuple[list[Callable[..., Any]], list[ToolDefinition]]:
    """Convert Anthropic tool specs (`{"name", "description", "input_schema"}`)
    to `(callables, definitions)`. Tools without an entry in `handlers` get a
    placeholder that raises NotImplementedError when called. One function
    may serve several tools."""
    return _ingest(tools, handlers, "input_schema", "from_anthropic_tools")


from_openai = from_openai_tools
from_claude = from_anthropic_tools
