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
# reference's names. Their module (which needs asyncio, and the `mcp` SDK
# when used) is imported on first use of either name.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from .mcp import MCPTools as MCPTools
    from .mcp import from_mcp as from_mcp
else:

    def __getattr__(name: str) -> object:
        if name in ("MCPTools", "from_mcp"):
            from . import mcp

            return getattr(mcp, name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


del TYPE_CHECKING

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
