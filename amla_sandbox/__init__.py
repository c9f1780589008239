"""amla-sandbox: run agent-written JavaScript and shell scripts in WebAssembly,
calling only the Python tools you grant, each call checked against
capabilities."""

from .audit import AuditCollector, AuditConfig, AuditEntry
from .bash_tool import create_sandbox_tool
from .capabilities import (
    METHOD_CAPABILITY_TYPE,
    CallLimitExceededError,
    CapabilityError,
    Constraint,
    ConstraintError,
    ConstraintSet,
    MethodCapability,
    MissingParamError,
    Param,
    TypeMismatchError,
    ViolationError,
    method_matches_pattern,
    pattern_is_subset,
)
from .codeact import JS_CODEACT_PROMPT, create_amla_codeact, create_amla_sandbox, format_tool_descriptions_js
from .langgraph import ExecutionResult, SandboxTool
from .runtime import Runtime, RuntimeConfig, RuntimeError, RuntimeStatus
from .runtime.wasm import (
    AsyncToolHandler,
    MemoryLimitError,
    SyncToolHandler,
    TimeoutError,
    ToolHandler,
    precompile_module,
)
from .sandbox import Sandbox
from .tools import (
    ToolDefinition,
    capability_from_function,
    create_tool_handler,
    from_anthropic_tools,
    from_claude,
    from_langchain,
    from_openai,
    from_openai_tools,
    tool_from_function,
)

# Exactly the documented names. TimeoutError and MemoryLimitError are
# attributes of the package too, but not star-exported: that would shadow
# the builtins of the same names.
__all__ = [
    "create_sandbox_tool",
    "create_amla_codeact",
    "create_amla_sandbox",
    "JS_CODEACT_PROMPT",
    "format_tool_descriptions_js",
    "SandboxTool",
    "ExecutionResult",
    "ToolDefinition",
    "tool_from_function",
    "capability_from_function",
    "create_tool_handler",
    "from_langchain",
    "from_openai_tools",
    "from_openai",
    "from_anthropic_tools",
    "from_claude",
    "Sandbox",
    "Runtime",
    "RuntimeConfig",
    "RuntimeError",
    "RuntimeStatus",
    "ToolHandler",
    "SyncToolHandler",
    "AsyncToolHandler",
    "MethodCapability",
    "METHOD_CAPABILITY_TYPE",
    "Constraint",
    "ConstraintSet",
    "Param",
    "CapabilityError",
    "CallLimitExceededError",
    "ConstraintError",
    "MissingParamError",
    "TypeMismatchError",
    "ViolationError",
    "method_matches_pattern",
    "pattern_is_subset",
    "AuditCollector",
    "AuditConfig",
    "AuditEntry",
    "precompile_module",
]
