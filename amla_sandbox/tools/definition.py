"""`ToolDefinition`: a tool as the sandbox sees it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ToolDefinition"]


@dataclass
class ToolDefinition:
    """A tool as the sandbox sees it: `parameters` is the JSON Schema of the
    one object argument the tool is called with; `output_schema`, when
    known, that of its result (an MCP tool's `outputSchema`, a Python
    function's TypedDict, dataclass or pydantic return type), which types
    the result in the tool's declarations (docs/declarations.md)."""

    name: str
    description: str
    parameters: dict[str, Any] = field(default_factory=dict)
    output_schema: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {"name": self.name, "description": self.description, "inputSchema": self.parameters}
        if self.output_schema:
            d["outputSchema"] = self.output_schema
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolDefinition:
        parameters = data.get("inputSchema") or data.get("parameters") or {}
        output = data.get("outputSchema") or data.get("output_schema") or None
        return cls(name=data["name"], description=data["description"], parameters=parameters, output_schema=output)
