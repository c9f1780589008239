"""JSON Schema for Python type hints, as used to describe tools to the sandbox.

The mapping is deliberately small and matches the reference SDK (0.2.8)
quirk for quirk, because tool schemas are visible to users and to the models
they prompt: `Optional[T]` and PEP 604 `T | None` give T's schema marked
`"nullable": True`; any other union (`int | str`) gives "string".
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from typing import Any, Union

__all__ = ["python_type_to_json_schema", "dataclass_to_schema", "extract_param_description"]

_SIMPLE: dict[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    list: "array",
    dict: "object",
}


def _as_dict(schema: str | dict[str, Any]) -> dict[str, Any]:
    return {"type": schema} if isinstance(schema, str) else schema


def is_pydantic_model(t: Any) -> bool:
    """Whether `t` is a pydantic model class."""
    # A pydantic model class can only exist if pydantic is already imported,
    # so this never imports pydantic itself.
    pydantic = sys.modules.get("pydantic")
    if pydantic is None or not isinstance(t, type):
        return False
    base = getattr(pydantic, "BaseModel", None)
    return base is not None and issubclass(t, base)


def python_type_to_json_schema(t: Any) -> str | dict[str, Any]:
    """JSON Schema for a type hint: a bare type name ("string") or a schema dict."""
    if t is type(None):
        return {"type": "null"}
    simple = _SIMPLE.get(t) if isinstance(t, type) else None
    if simple is not None:
        return simple

    origin = typing.get_origin(t)
    if origin is Union or origin is types.UnionType:  # Optional[T], Union[...], T | None
        args = typing.get_args(t)
        if len(args) == 2 and type(None) in args:
            inner = args[0] if args[1] is type(None) else args[1]
            return {**_as_dict(python_type_to_json_schema(inner)), "nullable": True}
        return "string"
    if origin is list:
        args = typing.get_args(t)
        if not args:
            return "array"
        return {"type": "array", "items": _as_dict(python_type_to_json_schema(args[0]))}
    if origin is dict:
        return "object"

    if is_pydantic_model(t):
        schema: dict[str, Any] = t.model_json_schema()
        return schema
    if isinstance(t, type) and dataclasses.is_dataclass(t):
        return dataclass_to_schema(t)
    return "string"


def dataclass_to_schema(cls: type) -> dict[str, Any]:
    """Object schema for a dataclass: one property per field.

    A field annotated with a string (e.g. under `from __future__ import
    annotations`) is typed as "string", as in the reference.
    """
    properties: dict[str, Any] = {}
    required: list[str] = []
    for f in dataclasses.fields(cls):
        if isinstance(f.type, str):
            properties[f.name] = {"type": "string"}
        else:
            properties[f.name] = _as_dict(python_type_to_json_schema(f.type))
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required.append(f.name)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def extract_param_description(docstring: str | None, param_name: str) -> str | None:
    """The text after `<param_name>:` in a Google-style `Args:` section.

    Only the `name: text` form is recognised (not `name (type): text`), and only
    the first line of the description is returned.
    """
    if not docstring:
        return None
    in_args = False
    marker = f"{param_name}:"
    for line in docstring.splitlines():
        stripped = line.strip()
        if not in_args:
            if stripped.lower().startswith("args:"):
                in_args = True
            continue
        if stripped.startswith(marker):
            return stripped[len(marker) :].strip()
        if stripped.endswith(":") and ":" not in stripped[:-1]:
            return None  # the next section (Returns:, Raises:, ...) begins
    return None
