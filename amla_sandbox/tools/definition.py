"""`ToolDefinition`: a tool as the sandbox sees it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ToolDefinition"]


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
