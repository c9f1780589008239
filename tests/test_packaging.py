"""Install paths: the sdist carries every source and builds in a fresh venv,
an editable install builds the core, a build never rewrites go.mod/go.sum,
and a source tree without the built core fails with one clear ImportError.

The tests marked `slow` build the package (Go, cgo) in fresh virtual
environments: about a minute each with a warm Go cache. They run in
.ci/run; skip them locally with `pytest -m "not slow"`.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
QUICK_START_NEEDLES = ["SF: 62°C = 143.6°F", "3 cities", "still works"]
# Files a build puts into the tree it builds in (editable/in-place builds only).
BUILD_OUTPUTS = {
    "amla_sandbox/amla_sandbox.wasm",
    "amla_sandbox/amla_js.wasm",
    "amla_sandbox/amla_python.wasm",
    "amla_sandbox/THIRD_PARTY_LICENSES.txt",
    "amla_sandbox/_core/pycore.py",
    "amla_sandbox/_core/go.py",
}


def _run(cmd: list[str], cwd: Path, timeout: float = 900, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    assert out.returncode == 0, f"{' '.join(cmd)} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out


def _snapshot(tree: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file, skipping caches."""
    files = {}
    for p in sorted(tree.rglob("*")):
        rel = p.relative_to(tree).as_posix()
        if p.is_file() and "__pycache__" not in rel and ".pytest_cache" not in rel:
            files[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return files


def _new_venv(path: Path) -> Path:
    venv.EnvBuilder(with_pip=True, clear=True).create(path)
    return path / ("Scripts" if os.name == "nt" else "bin") / "python"


def _clean_env() -> dict[str, str]:
    """The caller's environment without anything pointing at this checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "AMLA_WASM_PATH")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


@pytest.fixture(scope="module")
def sdist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sdist")
    before = {name: (ROOT / name).read_bytes() for name in ("go.mod", "go.sum")}
    _run([sys.executable, "-m", "build", "--sdist", "--outdir", str(out), str(ROOT)], cwd=out, timeout=300)
    assert {name: (ROOT / name).read_bytes() for name in before} == before
    (found,) = out.glob("amla_sandbox-*.tar.gz")
    return found


@pytest.fixture(scope="module")
def unpacked(sdist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist, unpacked: a source tree with nothing built."""
    dest = tmp_path_factory.mktemp("unpacked")
    with tarfile.open(sdist) as tar:
        tar.extractall(dest, filter="data")
    (tree,) = dest.iterdir()
    return tree


def test_sdist_carries_every_source_and_nothing_built(sdist: Path) -> None:
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for needed in (
        "LICENSE",
        "NOTICE",
        "go.mod",
        "go.sum",
        "setup.py",
        "pyproject.toml",
        "build_backend/amla_build_backend.py",
        "gocore/pycore/sandbox.go",
        "guests/shell/cmd/guest/main.go",
        "amla_sandbox/_core/__init__.py",
        "examples/quick_start.py",
    ):
        assert needed in names, f"{needed} missing from {sdist.name}"
    if (ROOT / "guests" / "js" / "build.py").is_file():
        assert "guests/js/build.py" in names
    if (ROOT / "guests" / "python" / "build.py").is_file():
        assert {"guests/python/build.py", "guests/python/driver.c", "guests/python/prelude/_amla_guest/__init__.py"} <= names
    go_files = {n for n in names if n.startswith(("gocore/", "guests/")) and n.endswith(".go")}
    tracked = {p.relative_to(ROOT).as_posix() for d in ("gocore", "guests") for p in (ROOT / d).rglob("*.go")}
    assert tracked <= go_files, f"Go files missing from the sdist: {sorted(tracked - go_files)[:5]}"
    built = [n for n in names if n.endswith((".so", ".wasm", ".cwasm", ".dylib", ".pyd")) or n in BUILD_OUTPUTS]
    assert built == [], f"built files in the sdist: {built}"


def test_version_is_0_3_0(sdist: Path) -> None:
    assert sdist.name == "amla_sandbox-0.3.0.tar.gz"


def test_source_tree_without_core_raises_one_clear_import_error(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "amla_sandbox", tmp_path / "amla_sandbox", ignore=shutil.ignore_patterns("*.so", "pycore.py", "go.py", "__pycache__"))
    code = "from amla_sandbox import create_sandbox_tool\ncreate_sandbox_tool().run('echo hi', language='shell')"
    env = dict(_clean_env(), PYTHONPATH=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode != 0
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: amla_sandbox's compiled core is missing"), out.stderr
    assert "python setup.py build_go --inplace" in last
    assert "circular import" not in out.stderr
    assert "partially initialized" not in out.stderr


def test_core_built_for_another_python_is_named(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "amla_sandbox", tmp_path / "amla_sandbox", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    core = tmp_path / "amla_sandbox" / "_core"
    for name in ("pycore.py", "go.py"):
        (core / name).touch()
    (core / "_pycore.cpython-399-x86_64-linux-gnu.so").write_bytes(b"")
    env = dict(_clean_env(), PYTHONPATH=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", "import amla_sandbox._core"], cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode != 0
    assert "was built for another Python (_pycore.cpython-399-x86_64-linux-gnu.so" in out.stderr


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_sdist_installs_in_a_fresh_venv_and_runs_the_quick_start(sdist: Path, tmp_path: Path) -> None:
    py = _new_venv(tmp_path / "venv")
    env = _clean_env()
    _run([str(py), "-m", "pip", "install", "-q", str(sdist)], cwd=tmp_path, env=env)
    env["AMLA_CACHE_DIR"] = str(tmp_path / "empty-cache")
    out = _run([str(py), str(ROOT / "examples" / "quick_start.py")], cwd=tmp_path, timeout=300, env=env)
    for needle in QUICK_START_NEEDLES:
        assert needle in out.stdout
    # The install shipped the guests compiled for the baseline CPU: the
    # first sandbox, with an empty cache, compiled nothing.
    assert "compiling" not in out.stderr, out.stderr
    site = Path(_run([str(py), "-c", "import amla_sandbox, os; print(os.path.dirname(amla_sandbox.__file__))"], cwd=tmp_path, env=env).stdout.strip())
    licences = (site / "THIRD_PARTY_LICENSES.txt").read_text()
    assert "github.com/bytecodealliance/wasmtime-go" in licences
    assert "The Go standard library" in licences
    if (ROOT / "guests" / "js" / "build.py").is_file():
        assert "QuickJS-NG" in licences
        assert (site / "amla_js.wasm").is_file()
    if (ROOT / "guests" / "python" / "build.py").is_file():
        assert "CPython 3.13.5, the Python guest" in licences and "SQLite 3.46.1" in licences
        assert (site / "amla_python.wasm").is_file()
        ran = _run([str(py), "-c", "from amla_sandbox import Sandbox\nprint(Sandbox().python('1 + 1'), end='')"], cwd=tmp_path, env=env)
        assert ran.stdout == "2\n" and "compiling" not in ran.stderr, ran.stderr
    (dist_info,) = site.parent.glob("amla_sandbox-0.3.0.dist-info")
    assert (dist_info / "licenses" / "LICENSE").read_text().startswith("MIT License")


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_editable_install_builds_the_core_and_changes_only_build_outputs(unpacked: Path, tmp_path: Path) -> None:
    tree = tmp_path / "src"
    shutil.copytree(unpacked, tree)
    before = _snapshot(tree)
    py = _new_venv(tmp_path / "venv")
    env = _clean_env()
    _run([str(py), "-m", "pip", "install", "-q", "-e", str(tree)], cwd=tmp_path, env=env)
    out = _run([str(py), str(tree / "examples" / "quick_start.py")], cwd=tmp_path, timeout=300, env=env)
    for needle in QUICK_START_NEEDLES:
        assert needle in out.stdout
    after = _snapshot(tree)
    # setuptools refreshes its own metadata (egg-info, shipped in the sdist).
    changed = {p for p in before if after.get(p) != before[p] and not p.startswith("amla_sandbox.egg-info/")}
    assert changed == set(), f"the build changed source files: {sorted(changed)}"
    added = set(after) - set(before)
    unexpected = {
        p
        for p in added
        if p not in BUILD_OUTPUTS
        and not (p.startswith("amla_sandbox/_core/_pycore") and p.endswith(".so"))
        and not p.startswith(("amla_sandbox.egg-info/", "build/"))
    }
    assert unexpected == set(), f"the build left files in the tree: {sorted(unexpected)[:10]}"


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_build_refuses_to_rewrite_go_sum(unpacked: Path, tmp_path: Path) -> None:
    tree = tmp_path / "src"
    shutil.copytree(unpacked, tree)
    go_sum = tree / "go.sum"
    lines = go_sum.read_text().splitlines(keepends=True)
    kept = [line for line in lines if not line.startswith("github.com/itchyny/gojq ")]
    assert len(kept) < len(lines)
    go_sum.write_text("".join(kept))
    go_mod = (tree / "go.mod").read_bytes()
    out = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path / "wheels"), str(tree)],
        cwd=tmp_path, capture_output=True, text=True, timeout=900, env=_clean_env(),
    )
    assert out.returncode != 0, "the build succeeded with an entry missing from go.sum"
    assert "missing go.sum entry" in out.stdout + out.stderr
    assert go_sum.read_text() == "".join(kept)
    assert (tree / "go.mod").read_bytes() == go_mod
