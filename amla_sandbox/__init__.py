"""amla-sandbox: run agent-written JavaScript and shell scripts in WebAssembly,
calling only the Python tools you grant, each call checked against
capabilities."""

from .audit import AuditCollector, AuditConfig, AuditEntry
from .bash_tool import create_sandbox_tool
from .capabilities import (
    METHOD_CAPABILITY_TYPE,
    TOOL_CALL_CAP_TYPE,
    CallLimitExceededError,
    CapabilityError,
    Constraint,
    ConstraintError,
    ConstraintSet,
    MethodCapability,
    MissingParamError,
    Param,
    ToolCallCap,
    TypeMismatchError,
    ViolationError,
    method_matches_pattern,
    pattern_is_subset,
)
from .codeact import JS_CODEACT_PROMPT, create_amla_codeact, create_amla_sandbox, format_tool_descriptions_js
from .sandbox_tool import ExecutionResult, SandboxTool
from .runtime import Runtime, RuntimeConfig, RuntimeError, RuntimeStatus
from .runtime.runtime import (
    AsyncToolHandler,
    SyncToolHandler,
    ToolHandler,
    precompile_module,
)

# Explicit re-exports (the `X as X` form), so that type checkers accept
# `amla_sandbox.TimeoutError` under --strict / no-implicit-reexport. They
# are deliberately not in __all__: a star-import would shadow the builtins.
from .runtime.runtime import MemoryLimitError as MemoryLimitError
from .runtime.runtime import TimeoutError as TimeoutError
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

# Exactly the documented names: 0.1.7's 41 plus 0.2.8's ToolCallCap and
# TOOL_CALL_CAP_TYPE (API-0.2.md §5). TimeoutError and MemoryLimitError are
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
    "ToolCallCap",
    "TOOL_CALL_CAP_TYPE",
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
