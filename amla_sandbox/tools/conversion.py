"""Python functions → tool definitions, capabilities and prompt text."""

from __future__ import annotations

import collections.abc
import dataclasses
import inspect
import threading
import types
import typing
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..capabilities import ConstraintSet, ToolCallCap
from ..schema import is_pydantic_model, extract_param_description, python_type_to_json_schema
from .definition import ToolDefinition

__all__ = ["tool_from_function", "capability_from_function", "format_tool_descriptions_js"]

_SKIPPED_PARAMS = ("self", "cls")


@dataclass(frozen=True)
class _Alias:
    """The tool a function was converted from (from_langchain): its name,
    description, and the parameters the framework passes itself."""

    name: str
    description: str | None
    hidden: frozenset[str]


# Functions handed out as they are (from_langchain returns the tool's own
# function) but called by their framework tool's name: every place that
# names a tool asks tool_name, which looks here first. Weak keys: an entry
# lives as long as its function.
_aliases: weakref.WeakKeyDictionary[Any, _Alias] = weakref.WeakKeyDictionary()
_aliases_lock = threading.Lock()


def register_alias(func: Any, name: str, description: str | None, hidden: Sequence[str] = ()) -> bool:
    """Have `func` called by the tool name `name` wherever it is passed.
    False when it cannot be: `func` takes no weak reference, or it is the
    tool of another name already (one function serving two tools)."""
    alias = _Alias(name, description, frozenset(hidden))
    with _aliases_lock:
        try:
            known = _aliases.get(func)
        except TypeError:
            return False  # not weak-referenceable (nor hashable)
        if known is not None:
            return known.name == name
        try:
            _aliases[func] = alias
        except TypeError:
            return False
    return True


def _alias_of(func: Any) -> _Alias | None:
    try:
        return _aliases.get(func)
    except TypeError:
        return None


def tool_name(func: Any, name: str | None = None, *, where: str = "tool") -> str:
    """The name sandbox code calls `func` by: `name` if given, else the name
    of the framework tool it came from (from_langchain), else
    `func.__name__`. A lambda has no usable name (every one is called
    `<lambda>`, which sandbox code cannot call), so it needs `name`."""
    if name is not None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"{where} name must be a non-empty str, got {name!r}")
        return name
    alias = _alias_of(func)
    if alias is not None:
        return alias.name
    fname = getattr(func, "__name__", None)
    if not isinstance(fname, str) or not fname:
        raise TypeError(f"{where} {func!r:.80} has no __name__; pass a named function")
    if fname == "<lambda>":
        raise ValueError(
            f"{where} {func!r:.80} is a lambda, and a lambda has no name sandbox code can call it by. "
            "Define it with `def my_tool(...)`, or give it a name (tool_from_function(f, name='my_tool'), "
            "or set f.__name__ = 'my_tool' before passing it)."
        )
    return fname


def type_hints(func: Callable[..., Any]) -> dict[str, Any]:
    """`func`'s resolved annotations, leaving out those that cannot be resolved."""
    try:
        return typing.get_type_hints(func)
    except Exception:
        # Unresolvable forward references: use what can be used as-is and
        # treat string annotations as untyped rather than refuse the tool.
        raw = getattr(func, "__annotations__", None) or {}
        return {k: v for k, v in raw.items() if not isinstance(v, str)}


def tool_parameters(func: Callable[..., Any]) -> list[inspect.Parameter]:
    """The parameters sandbox code passes to `func`: its signature without
    `self`/`cls` and without those its framework passes itself."""
    alias = _alias_of(func)
    skipped = set(_SKIPPED_PARAMS) | (alias.hidden if alias is not None else set())
    return [p for p in inspect.signature(func).parameters.values() if p.name not in skipped]


def tool_doc(func: Any) -> str | None:
    """The function's docstring, else the description of the framework tool
    it came from."""
    doc = inspect.getdoc(func)
    if doc:
        return doc
    alias = _alias_of(func)
    return alias.description if alias is not None and alias.description else None


def parameters_schema(func: Callable[..., Any]) -> dict[str, Any]:
    """The JSON Schema of the object argument sandbox code passes to `func`,
    from its type hints and its docstring's `Args:` section."""
    hints = type_hints(func)
    doc = inspect.getdoc(func)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for param in tool_parameters(func):
        pname = param.name
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


# How deep a return type's schema goes (a TypedDict that refers to itself
# is cut there, as an unknown value).
_MAX_OUTPUT_DEPTH = 8


def _output_schema(func: Callable[..., Any]) -> dict[str, Any] | None:
    """The JSON Schema of what `func` returns, from its return annotation: a
    TypedDict, a dataclass or a pydantic model, a JSON type (`str`,
    `float`, `list[str]`, `dict[str, int]`, `X | None`, a `Literal`) or
    those nested; None without one, or when it says nothing JSON can hold
    (the declarations then say `unknown` / `Any`)."""
    hints = type_hints(func)
    if "return" not in hints:
        return None
    try:
        schema = _value_schema(hints["return"], 0)
    except Exception:  # an annotation that cannot be resolved: no schema rather than no tool
        return None
    return schema or None


def _value_schema(t: Any, depth: int) -> dict[str, Any]:
    """JSON Schema of a value of type `t`, as a tool's result holds it ({}
    for anything it cannot say)."""
    if depth > _MAX_OUTPUT_DEPTH or t is Any:
        return {}
    if t is None or t is type(None):
        return {"type": "null"}
    if isinstance(t, type) and t in _JSON_TYPES:
        return {"type": _JSON_TYPES[t]}
    origin, args = typing.get_origin(t), typing.get_args(t)
    if origin is typing.Union or origin is types.UnionType:
        return {"anyOf": [_value_schema(a, depth + 1) for a in args]}
    if origin is typing.Literal:
        return {"enum": [a for a in args if a is None or isinstance(a, (str, int, float, bool))]}
    if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
        return {"type": "array", "prefixItems": [_value_schema(a, depth + 1) for a in args]}
    if origin in (list, tuple, set, frozenset, collections.abc.Sequence):
        return {"type": "array", "items": _value_schema(args[0], depth + 1)} if args else {"type": "array"}
    if origin in (dict, collections.abc.Mapping):
        if len(args) == 2:
            return {"type": "object", "additionalProperties": _value_schema(args[1], depth + 1)}
        return {"type": "object"}
    if is_pydantic_model(t):
        schema: dict[str, Any] = t.model_json_schema()
        return schema
    if isinstance(t, type) and (typing.is_typeddict(t) or dataclasses.is_dataclass(t)):
        hints = typing.get_type_hints(t)
        if typing.is_typeddict(t):
            keys: frozenset[str] = getattr(t, "__required_keys__", frozenset())
            required = [k for k in hints if k in keys]
            fields = list(hints)
        else:
            fields = [f.name for f in dataclasses.fields(t)]
            required = [
                f.name
                for f in dataclasses.fields(t)
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            ]
        schema = {"type": "object", "properties": {k: _value_schema(hints.get(k, Any), depth + 1) for k in fields}}
        if required:
            schema["required"] = required
        return schema
    return {}


_JSON_TYPES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object"}


def tool_summary(func: Any) -> str | None:
    """The first line of the tool's description (tool_doc), or None."""
    doc = tool_doc(func)
    return doc.split("\n")[0] if doc else None


def tool_from_function(func: Callable[..., Any], *, name: str | None = None) -> ToolDefinition:
    """Describe a function as a tool: its name (or `name`), first docstring
    line and a JSON Schema built from its type hints and `Args:` docstring
    section, and the schema of its result when its return annotation is a
    TypedDict, a dataclass or a pydantic model. A lambda needs `name`."""
    called = tool_name(func, name)
    return ToolDefinition(
        name=called,
        description=tool_summary(func) or f"Call {called}",
        parameters=parameters_schema(func),
        output_schema=_output_schema(func),
    )


def capability_from_function(
    func: Callable[..., Any],
    constraints: ConstraintSet | None = None,
    max_calls: int | None = None,
    *,
    name: str | None = None,
) -> ToolCallCap:
    """A capability allowing sandbox code to call `func` (pattern
    `mcp:<name>`). A lambda needs `name`."""
    return ToolCallCap(
        method_pattern=f"mcp:{tool_name(func, name)}",
        constraints=constraints if constraints is not None else ConstraintSet(),
        max_calls=max_calls,
    )


def _schema_type_name(hint: Any) -> str:
    schema = python_type_to_json_schema(hint)
    return schema if isinstance(schema, str) else schema.get("type", "object")


def js_params(func: Callable[..., Any]) -> str:
    """`{a: number, b?: string}`: the object argument as sandbox code passes it."""
    hints = type_hints(func)
    parts = []
    for param in tool_parameters(func):
        pname = param.name
        optional = "?" if param.default is not inspect.Parameter.empty else ""
        parts.append(f"{pname}{optional}: {_schema_type_name(hints.get(pname, Any))}")
    return "{" + ", ".join(parts) + "}"


def format_tool_descriptions_js(tools: Sequence[Callable[..., Any]]) -> str:
    """Markdown describing `tools` as the JavaScript functions sandbox code calls."""
    lines = ["## Available Functions", ""]
    for func in tools:
        lines.append(f"### `{tool_name(func)}({js_params(func)})`")
        lines.append(tool_summary(func) or "No description")
        lines.append("")
    return "\n".join(lines)

