"""The boundary between Python and the Go core (issue 16, items 1, 3, 5, 7).

One module (amla_sandbox/_core/__init__.py) imports the gopy extension; its
stub (_pycore.pyi) matches the Go exports; no export leaks memory per call;
a sandbox is made by one Go call; runs are addressed by id; guest files that
are not WebAssembly are refused when the sandbox is made; a forked child gets
a clear error instead of entering Go; `import amla_sandbox` loads nothing a
run needs before it needs it.
"""

from __future__ import annotations

import ast
import builtins
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import amla_sandbox
from amla_sandbox import Runtime, RuntimeConfig, Sandbox, ToolDefinition
from amla_sandbox.auth import EphemeralAuthority
from amla_sandbox.runtime.runtime import StaleRunError

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(amla_sandbox.__file__).resolve().parent
GO_PKG = ROOT / "gocore" / "pycore"


def _core():  # type: ignore[no-untyped-def]
    from amla_sandbox import _core

    return _core


def _rss() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise OSError("no VmRSS")


# -- one door, typed ------------------------------------------------------------------------------


def _go_exports() -> dict[str, int]:
    """Exported functions of gocore/pycore and how many parameters each takes."""
    exports = {}
    for path in GO_PKG.glob("*.go"):
        if path.name.endswith("_test.go"):
            continue
        for m in re.finditer(r"^func ([A-Z]\w*)\(([^)]*)\)", path.read_text(), re.M):
            params = [p for p in m.group(2).split(",") if p.strip()]
            exports[m.group(1)] = len(params)
    return exports


def _stub_functions() -> dict[str, int]:
    tree = ast.parse((PACKAGE / "_core" / "_pycore.pyi").read_text())
    return {
        node.name: len(node.args.posonlyargs) + len(node.args.args)
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
    }


@pytest.mark.skipif(not GO_PKG.is_dir(), reason="needs the Go sources (a source checkout)")
def test_the_stub_matches_the_go_exports() -> None:
    exports = _go_exports()
    stub = {name.removeprefix("pycore_"): n for name, n in _stub_functions().items() if name.startswith("pycore_")}
    assert len(exports) > 20
    assert stub == exports


def test_the_stub_matches_the_built_extension() -> None:
    from amla_sandbox._core import _pycore

    built = {name for name in dir(_pycore) if name.startswith("pycore_")}
    assert built == {name for name in _stub_functions() if name.startswith("pycore_")}


def test_exactly_one_module_imports_the_extension() -> None:
    importers = []
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text()
        if re.search(r"\b_?pycore\b", text.replace("gocore/pycore", "")):
            importers.append(path.relative_to(PACKAGE).as_posix())
    assert importers == ["_core/__init__.py"]
    assert not (PACKAGE / "_core" / "pycore.py").exists()  # gopy's wrapper is not shipped


@pytest.mark.skipif(not GO_PKG.is_dir(), reason="needs the Go sources (a source checkout)")
def test_every_error_kind_go_reports_becomes_the_documented_exception() -> None:
    kinds = re.findall(r'^\s*kind\w+\s+errorKind = "(\w+)"', (GO_PKG / "boundary.go").read_text(), re.M)
    expected = {
        "closed": builtins.RuntimeError,
        "no_run": amla_sandbox.RuntimeError,
        "stale_run": StaleRunError,
        "invalid": ValueError,
        "overflow": OverflowError,
        "runtime": amla_sandbox.RuntimeError,
        "internal": amla_sandbox.RuntimeError,
    }
    assert sorted(kinds) == sorted(expected)
    for kind, exc in expected.items():
        with pytest.raises(exc, match="^the message$") as info:
            _core()._raise(json.dumps({"kind": kind, "message": "the message"}))
        assert type(info.value) is exc
    with pytest.raises(amla_sandbox.RuntimeError, match="not json"):
        _core()._raise("not json")


def test_a_sandbox_is_made_by_one_go_call(monkeypatch: pytest.MonkeyPatch) -> None:
    from amla_sandbox._core import _pycore

    authority = EphemeralAuthority()
    pca = authority.create_pca(capabilities=["tool_call:**"]).to_cbor()
    calls: list[str] = []
    for name in dir(_pycore):
        if name.startswith("pycore_"):
            real = getattr(_pycore, name)
            monkeypatch.setattr(_pycore, name, lambda *a, _n=name, _f=real: (calls.append(_n), _f(*a))[1])
    rt = Runtime(RuntimeConfig(pca_bytes=pca, trusted_authorities=[authority.public_key_hex()]))
    try:
        assert calls == ["pycore_SandboxNew"]
    finally:
        rt.close()


# -- gopy's leak: no export returns a bare error ----------------------------------------------------


def test_a_million_calls_do_not_grow_the_process() -> None:
    # gopy v0.4.10 leaked a C string (32 bytes of heap) per call of every export
    # returning only an error: SandboxCancel grew the process by 27.5 MiB per
    # million calls. Now it returns a status string, which gopy frees.
    core = _core()
    with Sandbox() as sb:
        sb.execute("1")
        rt = sb._runtime
        assert rt is not None and rt._run is not None
        handle, run = rt._handle, rt._run.id
        for _ in range(50_000):  # the allocator's and Go's first growth
            core.sandbox_cancel(handle, run)
        before = _rss()
        for _ in range(1_000_000):
            core.sandbox_cancel(handle, run)
        grown = _rss() - before
        assert grown < 4 << 20, f"a million sandbox_cancel calls grew RSS by {grown / 2**20:.1f} MiB"

        # The error paths: a status carrying an error, and a (value, error) export failing.
        for _ in range(50_000):
            core._pycore.pycore_SandboxCancel(handle, run + 1)
        before = _rss()
        for _ in range(200_000):
            assert core._pycore.pycore_SandboxCancel(handle, run + 1) != ""
        for _ in range(200_000):
            try:
                core._pycore.pycore_SandboxLastHanded(handle, run + 1)
            except builtins.RuntimeError:
                pass
        grown = _rss() - before
        assert grown < 6 << 20, f"400,000 failing calls grew RSS by {grown / 2**20:.1f} MiB"


# -- runs have ids ----------------------------------------------------------------------------------


def test_the_core_refuses_a_run_a_later_start_replaced() -> None:
    core = _core()
    t = ToolDefinition(name="t", description="a tool", parameters={"type": "object", "properties": {}})
    with Sandbox(tools=[t]) as sb:
        rt = sb._runtime
        assert rt is not None
        sb.start("while (true) {}")
        old = rt._run
        assert old is not None
        sb.cancel()
        res = sb.result()
        assert res is not None and res.error_kind == "cancelled"
        sb.start("console.log(await t({}))")
        assert rt._run is not None and rt._run.id != old.id
        for call in (
            lambda: core.sandbox_step(rt._handle, old.id, 5000, True),
            lambda: core.sandbox_resume(rt._handle, old.id, 1, "1"),
            lambda: core.sandbox_resume_error(rt._handle, old.id, 1, "", "no"),
            lambda: core.sandbox_cancel(rt._handle, old.id),
            lambda: core.sandbox_last_handed(rt._handle, old.id),
            lambda: core.sandbox_take_output(rt._handle, old.id, "stdout"),
            lambda: core.sandbox_result(rt._handle, old.id),
        ):
            with pytest.raises(StaleRunError, match="is not this sandbox's current run"):
                call()
        # The current run was not touched by any of that.
        req = sb.step()
        assert req is not None and req.method == "mcp:t"
        sb.resume(5, id=req.id)
        assert sb.step() is None
        res = sb.result()
        assert res is not None and res.stdout == "5\n"


# -- guest files ------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", ["text file", "directory", "component", "empty file"])
def test_a_wasm_path_that_is_not_a_wasm_module_is_refused_when_the_sandbox_is_made(make: str, tmp_path: Path) -> None:
    path = tmp_path / "guest.wasm"
    if make == "directory":
        path.mkdir()
    elif make == "text file":
        path.write_text("myhost\n")
    elif make == "component":
        path.write_bytes(b"\x00asm\x0d\x00\x01\x00")
    else:
        path.write_bytes(b"")
    with pytest.raises(amla_sandbox.RuntimeError) as info:
        Sandbox(wasm_path=path)
    message = str(info.value)
    assert str(path) in message
    assert ("directory" in message) if make == "directory" else ("WebAssembly" in message)


def test_etc_hostname_is_refused_by_name() -> None:
    if not Path("/etc/hostname").is_file():
        pytest.skip("no /etc/hostname here")
    with pytest.raises(amla_sandbox.RuntimeError, match="^WASM file /etc/hostname is not a WebAssembly module"):
        Sandbox(wasm_path="/etc/hostname")


def test_a_javascript_guest_that_is_not_wasm_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = tmp_path / "js.wasm"
    bad.write_text("console.log(1)")
    monkeypatch.setenv("AMLA_JS_WASM_PATH", str(bad))
    with pytest.raises(amla_sandbox.RuntimeError, match=re.escape(str(bad))):
        Sandbox()


# -- the process around it --------------------------------------------------------------------------


def _python(code: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run code in a fresh interpreter (its own process group: anything it
    forks is killed with it if it outlives `timeout`)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE.parent), env.get("PYTHONPATH", "")])
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=PACKAGE.parent.parent,
        env=env,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"hung for {timeout} s: stdout {out[-2000:]!r} stderr {err[-2000:]!r}")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")
def test_a_forked_child_gets_a_clear_error_and_the_parent_goes_on() -> None:
    out = _python(
        """
        import json, os, sys
        from amla_sandbox import Sandbox
        sb = Sandbox()
        assert sb.execute("console.log(1)") == "1\\n"
        pid = os.fork()
        if pid == 0:
            seen = {}
            for what, f in (("run", lambda: sb.execute("console.log(2)")), ("new", Sandbox), ("close", sb.close)):
                try:
                    f()
                    seen[what] = "no error"
                except Exception as e:
                    seen[what] = f"{type(e).__module__}.{type(e).__name__}: {e}"
            print("CHILD " + json.dumps(seen), flush=True)
            sys.exit(0)  # interpreter exit runs the finalizers: they must not enter Go either
        _, status = os.waitpid(pid, 0)
        print("STATUS", os.waitstatus_to_exitcode(status), flush=True)
        print("PARENT", sb.execute("console.log(3)").strip(), flush=True)
        """
    )
    assert out.returncode == 0, out.stderr
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines() if " " in line)
    seen = json.loads(lines["CHILD"])
    for what in ("run", "new"):
        assert seen[what].startswith("amla_sandbox.runtime.runtime.RuntimeError: amla_sandbox cannot be used in this process"), seen
        assert "forked from process" in seen[what]
    assert lines["STATUS"] == "0"
    assert lines["PARENT"] == "3"


def test_importing_the_package_loads_neither_the_core_nor_asyncio_nor_langchain() -> None:
    out = _python(
        """
        import sys
        import amla_sandbox
        heavy = ("amla_sandbox._core", "asyncio", "langchain_core", "pydantic", "amla_sandbox.sandbox")
        print(sorted(m for m in heavy if m in sys.modules))
        from amla_sandbox import Sandbox, create_sandbox_tool, SandboxTool
        print(sorted(m for m in heavy if m in sys.modules))
        """
    )
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.splitlines()
    assert first == "[]"
    # The documented classes load their modules, still without the core or asyncio.
    assert second == "['amla_sandbox.sandbox']"


def test_every_documented_name_and_submodule_is_still_there() -> None:
    out = _python(
        """
        import amla_sandbox
        names = list(amla_sandbox.__all__) + ["TimeoutError", "MemoryLimitError"]
        missing = [n for n in names if getattr(amla_sandbox, n, None) is None]
        subs = [s for s in ("sandbox", "runtime", "tools", "capabilities", "langgraph", "audit", "auth") if getattr(amla_sandbox, s, None) is None]
        ns = {}
        exec("from amla_sandbox import *", ns)
        print(missing, subs, sorted(set(amla_sandbox.__all__) - set(ns)), "TimeoutError" in ns)
        """
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[] [] [] False"


def test_amla_precompile_names_a_path_that_is_not_wasm(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from amla_sandbox.cli import precompile_main

    assert precompile_main(["--wasm-path", str(tmp_path)]) == 1
    assert capsys.readouterr().err.strip() == f"Error: WASM file {tmp_path} is a directory, not a WebAssembly module"
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    assert precompile_main(["--wasm-path", str(text)]) == 1
    assert capsys.readouterr().err.startswith(f"Error: WASM file {text} is not a WebAssembly module")
