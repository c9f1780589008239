"""Tools: how Python functions (and tools written for other frameworks) become
tools that sandbox code can call.

A tool is described to the sandbox by a `ToolDefinition` (name, description,
JSON Schema of its single object argument); calls from the sandbox reach
Python through a handler `(method, params) -> result`. Nothing here runs a
sandbox.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .capabilities import ConstraintSet, MethodCapability
from .schema import extract_param_description, python_type_to_json_schema

__all__ = [
    "ToolDefinition",
    "tool_from_function",
    "capability_from_function",
    "format_tool_descriptions_js",
    "create_tool_handler",
    "from_langchain",
    "from_openai_tools",
    "from_openai",
    "from_anthropic_tools",
    "from_claude",
]

_SKIPPED_PARAMS = ("self", "cls")


@dataclass
class ToolDefinition:
    """A tool as the sandbox sees it: `parameters` is the JSON Schema of the
    one object argument the tool is called with."""

    name: str
    description: str
    parameters: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "inputSchema": self.parameters}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolDefinition:
        parameters = data.get("inputSchema") or data.get("parameters") or {}
        return cls(name=data["name"], description=data["description"], parameters=parameters)


# --------------------------------------------------------------------------
# Functions → definitions
# --------------------------------------------------------------------------


def _type_hints(func: Callable[..., Any]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(func)
    except Exception:
        # Unresolvable forward references: use what can be used as-is and
        # treat string annotations as untyped rather than refuse the tool.
        raw = getattr(func, "__annotations__", None) or {}
        return {k: v for k, v in raw.items() if not isinstance(v, str)}


def _parameters_schema(func: Callable[..., Any]) -> dict[str, Any]:
    hints = _type_hints(func)
    doc = inspect.getdoc(func)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for pname, param in inspect.signature(func).parameters.items():
        if pname in _SKIPPED_PARAMS:
            continue
        schema = python_type_to_json_schema(hints.get(pname, Any))
        prop = {"type": schema} if isinstance(schema, str) else dict(schema)
        desc = extract_param_description(doc, pname)
        if desc:
            prop["description"] = desc
        properties[pname] = prop
        # *args / **kwargs have no default either, so they count as required
        # (the reference's behaviour).
        if param.default is inspect.Parameter.empty:
            required.append(pname)
    result: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        result["required"] = required
    return result


def _first_doc_line(func: Any) -> str | None:
    doc = inspect.getdoc(func)
    return doc.split("\n")[0] if doc else None


def tool_from_function(func: Callable[..., Any]) -> ToolDefinition:
    """Describe a function as a tool: its name, first docstring line and a
    JSON Schema built from its type hints and `Args:` docstring section."""
    name = func.__name__
    return ToolDefinition(
        name=name,
        description=_first_doc_line(func) or f"Call {name}",
        parameters=_parameters_schema(func),
    )


def capability_from_function(
    func: Callable[..., Any],
    constraints: ConstraintSet | None = None,
    max_calls: int | None = None,
) -> MethodCapability:
    """A capability allowing sandbox code to call `func` (pattern `mcp:<name>`)."""
    return MethodCapability(
        method_pattern=f"mcp:{func.__name__}",
        constraints=constraints if constraints is not None else ConstraintSet(),
        max_calls=max_calls,
    )


def create_tool_handler(tools: Sequence[Callable[..., Any]]) -> Callable[[str, dict[str, Any]], Any]:
    """A `(method, params)` handler calling the function named by `method`
    (with or without the `mcp:` prefix) as `func(**params)`.

    An async function's coroutine is returned unawaited; the sandbox awaits it.
    """
    tool_map = {f.__name__: f for f in tools}

    def handler(method: str, params: dict[str, Any]) -> Any:
        func = tool_map.get(method.removeprefix("mcp:"))
        if func is None:
            raise ValueError(f"Unknown tool: {method}")
        return func(**params)

    return handler


def _schema_type_name(hint: Any) -> str:
    schema = python_type_to_json_schema(hint)
    return schema if isinstance(schema, str) else schema.get("type", "object")


def _js_params(func: Callable[..., Any]) -> str:
    """`{a: number, b?: string}`: the object argument as sandbox code passes it."""
    hints = _type_hints(func)
    parts = []
    for pname, param in inspect.signature(func).parameters.items():
        if pname in _SKIPPED_PARAMS:
            continue
        optional = "?" if param.default is not inspect.Parameter.empty else ""
        parts.append(f"{pname}{optional}: {_schema_type_name(hints.get(pname, Any))}")
    return "{" + ", ".join(parts) + "}"


def format_tool_descriptions_js(tools: Sequence[Callable[..., Any]]) -> str:
    """Markdown describing `tools` as the JavaScript functions sandbox code calls."""
    lines = ["## Available Functions", ""]
    for func in tools:
        lines.append(f"### `{func.__name__}({_js_params(func)})`")
        lines.append(_first_doc_line(func) or "No description")
        lines.append("")
    return "\n".join(lines)


# --------------------------------------------------------------------------
# Ingestion from other frameworks
# --------------------------------------------------------------------------


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


def from_langchain(tools: Sequence[Any]) -> tuple[list[Callable[..., Any]], list[ToolDefinition]]:
    """Convert LangChain tools (`@tool` functions, `StructuredTool`s, `BaseTool`
    subclasses, or plain functions) to `(callables, definitions)`."""
    callables: list[Callable[..., Any]] = []
    definitions: list[ToolDefinition] = []
    for tool in tools:
        func = getattr(tool, "func", None)
        run = getattr(tool, "_run", None)
        args_schema = getattr(tool, "args_schema", None)
        if func is not None and callable(func):
            target = func
            name = getattr(tool, "name", None) or func.__name__
            description = getattr(tool, "description", None) or func.__doc__ or ""
            if args_schema is not None:
                parameters = _args_schema_to_json(args_schema)
            else:
                parameters = _parameters_schema(func)
        elif run is not None and callable(run):
            target = run
            name = getattr(tool, "name", None) or "unknown"
            description = getattr(tool, "description", None) or ""
            if args_schema is not None:
                parameters = _args_schema_to_json(args_schema)
            else:
                parameters = {"type": "object", "properties": {}}
        elif callable(tool):
            target = tool
            name = getattr(tool, "__name__", None) or "unknown"
            description = tool.__doc__ or ""
            parameters = _parameters_schema(tool)
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


def _bind_handler(handler: Callable[..., Any], name: str) -> Callable[..., Any]:
    """The handler itself, renamed to the tool's name (the sandbox finds
    functions by `__name__`). Objects whose name cannot be set (bound methods,
    builtins) are wrapped instead."""
    try:
        handler.__name__ = name  # type: ignore[attr-defined]
        return handler
    except (AttributeError, TypeError):
        pass

    def call(**kwargs: Any) -> Any:
        return handler(**kwargs)

    wrapper = functools.update_wrapper(call, handler)
    wrapper.__name__ = name
    return wrapper


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
            target = _bind_handler(handlers[name], name)
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
    get a placeholder that raises NotImplementedError when called."""
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
    placeholder that raises NotImplementedError when called."""
    return _ingest(tools, handlers, "input_schema", "from_anthropic_tools")


from_openai = from_openai_tools
from_claude = from_anthropic_tools
