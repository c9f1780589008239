"""amla-sandbox: run agent-written JavaScript and shell scripts in WebAssembly,
calling only the Python tools you grant, each call checked against
capabilities.

Every documented name is importable from here (`from amla_sandbox import
Sandbox`). A name's module is imported when the name is first used, so
`import amla_sandbox` itself loads nothing else: the Go core, asyncio and
LangChain are loaded when a run, an async run or a LangChain tool needs them.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    # What type checkers (and readers) see: the names and where they live.
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

    # Durable sessions' exceptions (docs/durable.md), also not in __all__.
    from .durable import ApprovalRequired as ApprovalRequired
    from .durable import ReplayDivergenceError as ReplayDivergenceError

    # Network policies (docs/network.md), also not in __all__: the star-export
    # set stays the reference's.
    from .network import HttpRule as HttpRule
    from .network import NetworkPolicy as NetworkPolicy
    from .network import Secret as Secret
    from .sandbox import Sandbox
    from .sandbox_tool import ExecutionResult, SandboxTool
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
# TOOL_CALL_CAP_TYPE (docs/compatibility.md D1, D2). TimeoutError and MemoryLimitError are
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

# Where each name lives (the module is imported on first use of the name).
_HOMES = {
    **dict.fromkeys(("AuditCollector", "AuditConfig", "AuditEntry"), ".audit"),
    "create_sandbox_tool": ".bash_tool",
    **dict.fromkeys(
        (
            "METHOD_CAPABILITY_TYPE",
            "TOOL_CALL_CAP_TYPE",
            "CallLimitExceededError",
            "CapabilityError",
            "Constraint",
            "ConstraintError",
            "ConstraintSet",
            "MethodCapability",
            "MissingParamError",
            "Param",
            "ToolCallCap",
            "TypeMismatchError",
            "ViolationError",
            "method_matches_pattern",
            "pattern_is_subset",
        ),
        ".capabilities",
    ),
    **dict.fromkeys(
        ("JS_CODEACT_PROMPT", "create_amla_codeact", "create_amla_sandbox", "format_tool_descriptions_js"), ".codeact"
    ),
    **dict.fromkeys(
        (
            "Runtime",
            "RuntimeConfig",
            "RuntimeError",
            "RuntimeStatus",
            "AsyncToolHandler",
            "SyncToolHandler",
            "ToolHandler",
            "precompile_module",
            "MemoryLimitError",
            "TimeoutError",
        ),
        ".runtime.runtime",
    ),
    "Sandbox": ".sandbox",
    **dict.fromkeys(("ApprovalRequired", "ReplayDivergenceError"), ".durable"),
    **dict.fromkeys(("HttpRule", "NetworkPolicy", "Secret"), ".network"),
    **dict.fromkeys(("ExecutionResult", "SandboxTool"), ".sandbox_tool"),
    **dict.fromkeys(
        (
            "ToolDefinition",
            "capability_from_function",
            "create_tool_handler",
            "from_anthropic_tools",
            "from_claude",
            "from_langchain",
            "from_openai",
            "from_openai_tools",
            "tool_from_function",
        ),
        ".tools",
    ),
}

# The package's public submodules, reachable as attributes once the package
# is imported (as they were when __init__ imported them all).
_SUBMODULES = frozenset(
    (
        "audit",
        "auth",
        "bash_tool",
        "capabilities",
        "cli",
        "codeact",
        "durable",
        "langgraph",
        "mcp",
        "network",
        "runtime",
        "sandbox",
        "sandbox_tool",
        "schema",
        "tools",
    )
)


if not TYPE_CHECKING:  # type checkers read the imports above instead

    def __getattr__(name: str) -> object:
        import importlib

        home = _HOMES.get(name)
        if home is not None:
            value = getattr(importlib.import_module(home, __name__), name)
            globals()[name] = value  # later lookups do not come here
            return value
        if name in _SUBMODULES:
            return importlib.import_module(f".{name}", __name__)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


    def __dir__() -> list[str]:
        return sorted({*globals(), *_HOMES, *_SUBMODULES})

del TYPE_CHECKING
