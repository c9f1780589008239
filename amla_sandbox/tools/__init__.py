"""Tools: how Python functions (and tools written for other frameworks) become
tools that sandbox code can call.

A tool is described to the sandbox by a `ToolDefinition` (name, description,
JSON Schema of its single object argument); calls from the sandbox reach
Python through a handler `(method, params) -> result`. Nothing here runs a
sandbox. The submodules are those of the reference: `definition`,
`conversion`, `handlers` and `ingest`.
"""

from .conversion import capability_from_function, format_tool_descriptions_js, tool_from_function
from .definition import ToolDefinition
from .handlers import create_tool_handler
from .ingest import from_anthropic_tools, from_claude, from_langchain, from_openai, from_openai_tools

# MCP servers as tools (docs/mcp.md). Not in __all__, which lists the
# reference's names; the module imports the `mcp` SDK only when used.
from .mcp import MCPTools as MCPTools
from .mcp import from_mcp as from_mcp

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
