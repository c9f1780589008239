"""amla_sandbox.errors holds every exception class; each documented path
names the same class object, so `except` clauses keep working whichever
path they import from."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import amla_sandbox
from amla_sandbox import errors

# (documented module, name) -> the class in amla_sandbox.errors of that name.
_PATHS = [
    ("amla_sandbox.capabilities.constraints", "ConstraintError"),
    ("amla_sandbox.capabilities.constraints", "MissingParamError"),
    ("amla_sandbox.capabilities.constraints", "TypeMismatchError"),
    ("amla_sandbox.capabilities.constraints", "ViolationError"),
    ("amla_sandbox", "RuntimeError"),
    ("amla_sandbox", "TimeoutError"),
    ("amla_sandbox", "MemoryLimitError"),
    ("amla_sandbox", "ApprovalRequired"),
    ("amla_sandbox", "ReplayDivergenceError"),
    ("amla_sandbox", "CapabilityError"),
    ("amla_sandbox", "CallLimitExceededError"),
    ("amla_sandbox.runtime", "RuntimeError"),
    ("amla_sandbox.runtime", "TimeoutError"),
    ("amla_sandbox.runtime", "MemoryLimitError"),
    ("amla_sandbox.runtime.runtime", "RuntimeError"),
    ("amla_sandbox.runtime.runtime", "TimeoutError"),
    ("amla_sandbox.runtime.runtime", "MemoryLimitError"),
    ("amla_sandbox.runtime.runtime", "CancelledRunError"),
    ("amla_sandbox.runtime.runtime", "StaleRunError"),
    ("amla_sandbox.durable", "ApprovalRequired"),
    ("amla_sandbox.durable", "ReplayDivergenceError"),
    ("amla_sandbox.capabilities", "CapabilityError"),
    ("amla_sandbox.capabilities", "CallLimitExceededError"),
    ("amla_sandbox.capabilities.tool_call", "CapabilityError"),
    ("amla_sandbox.tools.mcp", "MCPError"),
    ("amla_sandbox.mcp.config", "ConfigError"),
    ("amla_sandbox.check", "CheckerUnavailable"),
]


@pytest.mark.parametrize(("module", "name"), _PATHS)
def test_every_documented_path_names_the_class_in_errors(module: str, name: str) -> None:
    assert getattr(importlib.import_module(module), name) is getattr(errors, name)


def test_the_ray_pool_errors_are_the_ones_in_errors() -> None:
    pytest.importorskip("ray")
    pool = importlib.import_module("amla_sandbox.ray._pool")
    ray_pkg = importlib.import_module("amla_sandbox.ray")
    for name in ("PoolClosedError", "SessionLostError", "RunLostError", "RunDivergedError"):
        assert getattr(pool, name) is getattr(errors, name)
        if hasattr(ray_pkg, name):
            assert getattr(ray_pkg, name) is getattr(errors, name)


def test_errors_is_a_leaf() -> None:
    """errors.py imports nothing of amla_sandbox, so every layer can use it."""
    tree = ast.parse(Path(errors.__file__).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0 and not (node.module or "").startswith("amla_sandbox"), ast.unparse(node)
        elif isinstance(node, ast.Import):
            assert not any(a.name.startswith("amla_sandbox") for a in node.names), ast.unparse(node)


def test_every_exception_class_of_the_package_is_in_errors() -> None:
    """No module but errors.py defines a public exception class (private
    ones, used inside one module for control flow, may stay there)."""
    root = Path(amla_sandbox.__file__).parent
    allowed: set[str] = set()
    found = []
    for path in root.rglob("*.py"):
        if path.name == "errors.py" and path.parent == root:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_") and node.name not in allowed:
                bases = {ast.unparse(b) for b in node.bases}
                if any(b.endswith(("Error", "Exception", "Unavailable")) for b in bases):
                    found.append(f"{path.relative_to(root)}: {node.name}")
    assert found == []


def test_a_caught_engine_error_is_the_documented_class() -> None:
    from amla_sandbox import Sandbox
    from amla_sandbox.runtime.runtime import TimeoutError as RuntimeTimeout

    with Sandbox(timeout=0.5) as sb:
        with pytest.raises(RuntimeTimeout) as info:
            sb.execute("while (true) {}")
    assert isinstance(info.value, errors.TimeoutError)
    assert type(info.value).__module__ == "amla_sandbox.runtime.runtime"
