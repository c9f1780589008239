"""The Python package's layering, checked from its source with `ast`.

Nothing here imports amla_sandbox: the rules are read off the files under
amla_sandbox/ beside this tests/ directory (docs/architecture.md, "Python
package layers", says what they protect).

1. No import cycle between amla_sandbox modules. Every `import` and
   `from ... import` counts wherever it is written, inside functions and
   methods too (a cycle closed at call time is still a cycle), except those
   under `if TYPE_CHECKING:`, which never run. An import of a package counts
   as an import of its `__init__.py`; `from p import name` counts as an import
   of the module `p.name` when that is a module, else of `p`. The parent
   packages that the import system initialises first are not counted: every
   package `__init__` would otherwise be in a cycle with its own children.
   Modules loaded by name through importlib (the lazy `__getattr__` of
   amla_sandbox/__init__.py) are not seen.

2. No module uses another module's underscore name. A name is private when it
   starts with "_" and is not a dunder ("__x__"). Violations are:
   - `from amla_sandbox.x import _y` (relative forms included);
   - a module path with a private part, `amla_sandbox.p._m`, imported or
     reached by a module outside the package p that contains `_m` (modules of
     p and of p's subpackages may use p's private modules);
   - `m._y`, where `m` names an amla_sandbox module (bound by an import) other
     than the one using it;
   - `obj._y` for any other expression `obj` except `self`, `cls` and
     `super()`, when `_y` is defined in another amla_sandbox module and not in
     the module using it. "Defined" means assigned or defined (def, class)
     at module level or in a class body (methods, class attributes,
     dataclass fields), or assigned as `self._y` / `cls._y` in a method.
     So `sys._getframe` and a namedtuple's `_replace` are never violations
     (no amla_sandbox module defines them), and neither is a class's use of
     its own private attributes on another instance.
   `amla_sandbox._core`, the one module that loads the Go extension, is
   exempt: its private names are the extension's interface.

3. `amla_sandbox/errors.py`, the leaf that holds every exception, imports no
   amla_sandbox module other than `_core`.

Each failure lists every violation with its file and line.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "amla_sandbox"
CORE = f"{PACKAGE}._core"


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


@dataclass
class Module:
    name: str  # dotted, e.g. amla_sandbox.tools.handlers
    path: Path
    is_package: bool
    tree: ast.Module
    # Private names bound in this module (module level, class bodies, self./cls. attributes).
    defines: set[str] = field(default_factory=set)

    @property
    def package(self) -> str:
        """The package relative imports start from."""
        return self.name if self.is_package else self.name.rpartition(".")[0]

    @property
    def rel(self) -> str:
        return str(self.path.relative_to(ROOT))


def _load() -> dict[str, Module]:
    modules: dict[str, Module] = {}
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        name = ".".join(parts)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        modules[name] = Module(name, path, is_package, tree)
    for m in modules.values():
        m.defines = _private_definitions(m.tree)
    return modules


def _private_definitions(tree: ast.Module) -> set[str]:
    names: set[str] = set()

    def targets(node: ast.AST) -> Iterator[str]:
        if isinstance(node, ast.Name):
            yield node.id
        elif isinstance(node, (ast.Tuple, ast.List)):
            for elt in node.elts:
                yield from targets(elt)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            yield node.attr

    def scope(body: list[ast.stmt], *, in_class: bool) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(stmt.name)
            if isinstance(stmt, ast.ClassDef):
                scope(stmt.body, in_class=True)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and in_class:
                for node in ast.walk(stmt):  # self._x = ... anywhere in a method
                    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                        for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                            if isinstance(t, ast.Attribute):
                                names.update(targets(t))
            elif isinstance(stmt, ast.Assign):
                for t in stmt.targets:
                    names.update(n for n in targets(t) if not isinstance(t, ast.Attribute))
            elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and isinstance(stmt.target, ast.Name):
                names.add(stmt.target.id)
            elif isinstance(stmt, (ast.If, ast.Try, ast.With)):
                inner: list[ast.stmt] = list(stmt.body)
                if isinstance(stmt, (ast.If, ast.Try)):
                    inner += stmt.orelse
                if isinstance(stmt, ast.Try):
                    inner += stmt.finalbody
                    for h in stmt.handlers:
                        inner += h.body
                scope(inner, in_class=in_class)

    scope(tree.body, in_class=False)
    return {n for n in names if _is_private(n)}


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    """ids of the nodes under `if TYPE_CHECKING:` (the body, not the else)."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            t = node.test
            name = t.id if isinstance(t, ast.Name) else t.attr if isinstance(t, ast.Attribute) else None
            if name == "TYPE_CHECKING":
                for stmt in node.body:
                    skip.update(id(n) for n in ast.walk(stmt))
    return skip


def _absolute(m: Module, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = m.package.split(".")
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


@dataclass(frozen=True)
class Import:
    target: str  # an amla_sandbox module
    line: int


def _imports(m: Module) -> Iterator[tuple[ast.AST, str, list[tuple[str, str | None]]]]:
    """Each runtime import statement as (node, module it names, [(name, asname)])."""
    skip = _type_checking_nodes(m.tree)
    for node in ast.walk(m.tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node, alias.name, []
        elif isinstance(node, ast.ImportFrom):
            yield node, _absolute(m, node), [(a.name, a.asname) for a in node.names]


def _edges(m: Module, modules: dict[str, Module]) -> list[Import]:
    edges = []
    for node, mod, names in _imports(m):
        if not (mod == PACKAGE or mod.startswith(PACKAGE + ".")):
            continue
        line = node.lineno  # type: ignore[attr-defined]
        if not names:
            edges.append(Import(mod, line))
        for name, _ in names:
            sub = f"{mod}.{name}"
            edges.append(Import(sub if sub in modules else mod, line))
    return [e for e in edges if e.target in modules and e.target != m.name]


def _cycles(modules: dict[str, Module]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    graph = {name: sorted({e.target for e in _edges(m, modules)}) for name, m in modules.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


MODULES = _load()


def test_no_import_cycles() -> None:
    lines = []
    for comp in _cycles(MODULES):
        members = set(comp)
        lines.append(f"cycle of {len(comp)} modules: {', '.join(comp)}")
        for name in comp:
            m = MODULES[name]
            for e in sorted(set(_edges(m, MODULES)), key=lambda e: (e.line, e.target)):
                if e.target in members:
                    lines.append(f"  {m.rel}:{e.line}: {name} imports {e.target}")
    if lines:
        pytest.fail("import cycles between amla_sandbox modules:\n" + "\n".join(lines), pytrace=False)


def _private_module_ok(user: str, path: str) -> bool:
    """Whether module `user` may name the module path `path`: every private
    part of it must belong to a package that contains `user`."""
    parts = path.split(".")
    for i, part in enumerate(parts):
        if _is_private(part):
            owner = ".".join(parts[:i])
            if not (user == owner or user.startswith(owner + ".")):
                return False
    return True


def _module_names(m: Module, modules: dict[str, Module]) -> dict[str, str]:
    """Local names bound to amla_sandbox modules by m's imports."""
    bound: dict[str, str] = {}
    for _node, mod, names in _imports(m):
        if not names:
            if mod == PACKAGE or mod.startswith(PACKAGE + "."):
                bound[mod.split(".")[0]] = PACKAGE
            continue
        for name, asname in names:
            sub = f"{mod}.{name}"
            if sub in modules:
                bound[asname or name] = sub
    for node in ast.walk(m.tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.name in modules:
                    bound[alias.asname] = alias.name
    return bound


def _dotted(node: ast.expr, bound: dict[str, str], modules: dict[str, Module]) -> str | None:
    """The amla_sandbox module `node` names (`durable`, `amla_sandbox.x.y`), or None."""
    if isinstance(node, ast.Name):
        return bound.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value, bound, modules)
        if base is not None and f"{base}.{node.attr}" in modules:
            return f"{base}.{node.attr}"
    return None


def _underscore_violations(m: Module, modules: dict[str, Module]) -> list[str]:
    found: list[str] = []

    def report(node: ast.AST, what: str) -> None:
        found.append(f"{m.rel}:{node.lineno}: {what}")  # type: ignore[attr-defined]

    for node, mod, names in _imports(m):
        if not (mod == PACKAGE or mod.startswith(PACKAGE + ".")):
            continue
        if not _private_module_ok(m.name, mod):
            report(node, f"imports private module {mod}")
            continue
        for name, _ in names:
            if not _is_private(name) or mod == CORE or mod.startswith(CORE + "."):
                continue
            sub = f"{mod}.{name}"
            if sub in modules:
                if not _private_module_ok(m.name, sub):
                    report(node, f"imports private module {sub}")
            elif mod != m.name:
                report(node, f"imports private name {name} from {mod}")

    others: dict[str, list[str]] = {}
    for other in sorted(modules.values(), key=lambda o: o.name):
        if other.name != m.name and other.name != CORE:
            for n in other.defines:
                others.setdefault(n, []).append(other.name)
    bound = _module_names(m, modules)
    skip = _type_checking_nodes(m.tree)
    for node in ast.walk(m.tree):
        if id(node) in skip or not isinstance(node, ast.Attribute) or not _is_private(node.attr):
            continue
        target = _dotted(node.value, bound, modules)
        if target is not None:
            if target == CORE or target == m.name:
                continue
            sub = f"{target}.{node.attr}"
            if sub in modules:
                if not _private_module_ok(m.name, sub):
                    report(node, f"uses private module {sub}")
            else:
                report(node, f"uses {target}.{node.attr}")
            continue
        obj = node.value
        if isinstance(obj, ast.Name) and obj.id in ("self", "cls"):
            continue
        if isinstance(obj, ast.Call) and isinstance(obj.func, ast.Name) and obj.func.id == "super":
            continue
        if node.attr in m.defines or node.attr not in others:
            continue
        report(node, f"uses .{node.attr}, a private name of {' and '.join(others[node.attr])}")
    return found


def test_no_cross_module_underscore_names() -> None:
    found = [v for m in MODULES.values() for v in _underscore_violations(m, MODULES)]
    if found:
        found.sort(key=lambda v: (v.split(":")[0], int(v.split(":")[1])))
        pytest.fail(f"{len(found)} uses of another module's underscore names:\n" + "\n".join(found), pytrace=False)


def test_errors_is_a_leaf() -> None:
    m = MODULES.get(f"{PACKAGE}.errors")
    if m is None:
        pytest.skip("amla_sandbox/errors.py does not exist yet")
    bad = [
        f"{m.rel}:{e.line}: imports {e.target}"
        for e in _edges(m, MODULES)
        if not (e.target == CORE or e.target.startswith(CORE + "."))
    ]
    if bad:
        pytest.fail("errors.py may import only _core:\n" + "\n".join(bad), pytrace=False)


# -- the checker's own rules, on small made-up modules ------------------------------


def _checked(tmp: dict[str, str]) -> tuple[list[list[str]], list[str]]:
    """Both checks over made-up sources {module name: source} (".__init__" ending a package's name)."""
    fake: dict[str, Module] = {}
    for name, src in tmp.items():
        is_package = name.endswith(".__init__")
        mod = name.removesuffix(".__init__")
        path = ROOT / (name.replace(".", "/") + ".py")
        fake[mod] = Module(mod, path, is_package, ast.parse(src))
    for fm in fake.values():
        fm.defines = _private_definitions(fm.tree)
    return _cycles(fake), sorted(v for fm in fake.values() for v in _underscore_violations(fm, fake))


def test_checker_sees_a_cycle_through_a_function_level_import() -> None:
    cycles, _ = _checked(
        {
            "amla_sandbox.__init__": "",
            "amla_sandbox.a": "from .b import f\n",
            "amla_sandbox.b": "def f():\n    from . import a\n",
            "amla_sandbox.c": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import f\n",
            "amla_sandbox.d": "import amla_sandbox.c\n",
        }
    )
    assert cycles == [["amla_sandbox.a", "amla_sandbox.b"]]


def test_checker_counts_a_package_init() -> None:
    cycles, _ = _checked(
        {
            "amla_sandbox.__init__": "",
            "amla_sandbox.p.__init__": "from .m import x\n",
            "amla_sandbox.p.m": "x = 1\n",
            "amla_sandbox.q": "from .p import x\n",
            "amla_sandbox.p.n": "def g():\n    from ..q import y\n",
            "amla_sandbox.r": "from amla_sandbox.p import n\n",
        }
    )
    assert cycles == []
    cycles, _ = _checked(
        {
            "amla_sandbox.__init__": "",
            "amla_sandbox.p.__init__": "from .m import x\n",
            "amla_sandbox.p.m": "def g():\n    from ..q import y\n",
            "amla_sandbox.q": "from .p import x\n",
        }
    )
    assert cycles == [["amla_sandbox.p", "amla_sandbox.p.m", "amla_sandbox.q"]]


def test_checker_underscore_rule() -> None:
    _, found = _checked(
        {
            "amla_sandbox.__init__": "",
            "amla_sandbox.a": (
                "import sys, collections\n"
                "def _helper(): pass\n"
                "class A:\n"
                "    def __init__(self):\n"
                "        self._state = 1\n"
                "    def same(self, other):\n"
                "        return other._state + self._state\n"
                "def frame():\n"
                "    return sys._getframe(0), collections.namedtuple('T', 'x')(1)._replace(x=2)\n"
            ),
            "amla_sandbox.b": (
                "from .a import _helper\n"  # 1
                "from . import a\n"
                "from ._core import _pycore\n"
                "def f(obj):\n"
                "    a._helper()\n"  # 5
                "    obj.sandbox._state = 2\n"  # 6
                "    return obj.__class__, obj._unknown\n"
            ),
            "amla_sandbox._core.__init__": "_secret = 1\n",
            "amla_sandbox.p.__init__": "from ._impl import thing\n",
            "amla_sandbox.p._impl": "thing = 1\n",
            "amla_sandbox.p.sub.__init__": "from .._impl import thing\n",
            "amla_sandbox.c": "from .p._impl import thing\nimport amla_sandbox.p\nx = amla_sandbox.p._impl\n",
        }
    )
    assert found == [
        "amla_sandbox/b.py:1: imports private name _helper from amla_sandbox.a",
        "amla_sandbox/b.py:5: uses amla_sandbox.a._helper",
        "amla_sandbox/b.py:6: uses ._state, a private name of amla_sandbox.a",
        "amla_sandbox/c.py:1: imports private module amla_sandbox.p._impl",
        "amla_sandbox/c.py:3: uses private module amla_sandbox.p._impl",
    ]
