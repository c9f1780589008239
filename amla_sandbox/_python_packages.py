"""Sandbox(python_packages=...): pure-Python packages for the Python guest.

The packages are laid out in one directory, which the core mounts read-only
in every Python process of the sandbox at /usr/lib/python3.13/site-packages
(on sys.path there). The directory is made once per set of inputs, under the
user cache directory, and shared by every sandbox given the same packages:

- a wheel (`.whl`) is unpacked (its `.data/purelib` and `.data/platlib`
  contents too); it must say `Root-Is-Purelib: true` and carry no compiled
  extension;
- a directory with `__init__.py` is a package, copied under its own name;
- a `.py` file is a module;
- any other directory is a folder of those (a site-packages): its entries
  are copied as they are.

A compiled extension (`.so`, `.pyd`, `.dylib`, `.dll`) anywhere is refused
with a ValueError naming the package and the file: CPython in WebAssembly
cannot load native code. The directory's name hashes the inputs' contents
(a wheel's bytes; a directory's file names and bytes), so a changed package
gets a new directory whatever its sizes and modification times; `prepare`
also returns each package's content digest, which journals record so a
replay with other package contents is a divergence (docs/durable.md).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath
from typing import Any

__all__ = ["prepare"]

# Where the guest sees the packages (gocore/pycore's PythonPackagesMount).
SITE = "/usr/lib/python3.13/site-packages"

COMPILED = (".so", ".pyd", ".dylib", ".dll")
# What is not copied out of package directories.
SKIP_DIRS = {"__pycache__", ".git", ".hg", ".svn", ".tox", ".mypy_cache", ".pytest_cache"}
SKIP_SUFFIXES = (".pyc", ".pyo")


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "amla-sandbox" / "python-packages"


def _walk(root: Path) -> Iterable[Path]:
    """Every file under root, sorted, without caches; symlinks are refused."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for d in dirnames:
            if os.path.islink(os.path.join(dirpath, d)):
                raise ValueError(f"python_packages: {Path(dirpath) / d} is a symbolic link; give the directory itself")
        for f in sorted(filenames):
            if f.endswith(SKIP_SUFFIXES):
                continue
            p = Path(dirpath) / f
            if p.is_symlink():
                raise ValueError(f"python_packages: {p} is a symbolic link; give the file itself")
            yield p


def _refuse_compiled(what: str, names: Iterable[str]) -> None:
    for name in names:
        if name.lower().endswith(COMPILED):
            raise ValueError(
                f"python_packages: {what} contains a compiled extension ({name}); the sandbox's Python "
                "runs pure-Python packages only (it cannot load native code)"
            )


def _item(raw: object) -> tuple[str, Path]:
    """(kind, path) of one python_packages entry."""
    if not isinstance(raw, (str, os.PathLike)):
        raise TypeError(f"python_packages entries must be paths (str or Path), got {type(raw).__name__}")
    p = Path(raw).expanduser()
    if not p.exists():
        raise ValueError(f"python_packages: {p} does not exist")
    if p.is_file():
        if p.suffix == ".whl":
            return "wheel", p.resolve()
        if p.suffix == ".py":
            return "module", p.resolve()
        raise ValueError(
            f"python_packages: {p} is neither a wheel (.whl) nor a module (.py); "
            "give a wheel, a package directory, a .py file or a directory of them"
        )
    if (p / "__init__.py").is_file():
        return "package", p.resolve()
    return "folder", p.resolve()


def _fingerprint(kind: str, path: Path) -> bytes:
    """The SHA-256 of an entry's kind, name and contents (every file's
    relative name, length and bytes): equal for equal packages only."""
    h = hashlib.sha256(f"{kind}\0{path.name}\0".encode())
    if kind in ("wheel", "module"):
        h.update(path.read_bytes())
    else:
        for f in _walk(path):
            data = f.read_bytes()
            h.update(f"{f.relative_to(path).as_posix()}\0{len(data)}\0".encode())
            h.update(data)
    return h.digest()


def _name(kind: str, path: Path) -> str:
    """How journals and divergence errors name an entry: a wheel by its
    distribution, anything else by its file or directory name."""
    return path.name.split("-", 1)[0] if kind == "wheel" else path.name


def _check_wheel(path: Path, z: zipfile.ZipFile) -> None:
    names = z.namelist()
    _refuse_compiled(path.name, names)
    wheel_meta = [n for n in names if PurePosixPath(n).name == "WHEEL" and n.count("/") == 1 and n.split("/")[0].endswith(".dist-info")]
    if not wheel_meta:
        raise ValueError(f"python_packages: {path.name} is not a wheel (it has no .dist-info/WHEEL)")
    text = z.read(wheel_meta[0]).decode("utf-8", "replace")
    if "Root-Is-Purelib: true" not in text.replace("\r", ""):
        raise ValueError(
            f"python_packages: {path.name} is not a pure-Python wheel (Root-Is-Purelib is not true); "
            "the sandbox's Python runs pure-Python packages only"
        )
    for n in names:
        parts = PurePosixPath(n).parts
        if n.startswith("/") or ".." in parts or "\\" in n:
            raise ValueError(f"python_packages: {path.name} holds an unsafe path {n!r}")


def _unpack_wheel(path: Path, dest: Path) -> None:
    with zipfile.ZipFile(path) as z:
        _check_wheel(path, z)
        for info in z.infolist():
            if info.is_dir():
                continue
            parts = PurePosixPath(info.filename).parts
            # <name>.data/purelib/... and .../platlib/... belong at the top;
            # scripts, headers and data files are not for import.
            if parts[0].endswith(".data"):
                if len(parts) < 3 or parts[1] not in ("purelib", "platlib"):
                    continue
                parts = parts[2:]
            target = dest.joinpath(*parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            with z.open(info) as src, open(target, "wb") as out:
                shutil.copyfileobj(src, out)


def _copy_tree(src: Path, dest: Path) -> None:
    for f in _walk(src):
        target = dest / f.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, target)


def prepare(items: object, new_sandbox: Callable[[], Any]) -> tuple[str, list[dict[str, str]]]:
    """The directory to mount for these packages (made if need be), and
    each package's name and content digest ([{"name", "digest"}]).
    `new_sandbox()` makes the plain Sandbox the bytecode is compiled in
    (passed in: this module sits below amla_sandbox.sandbox)."""
    if isinstance(items, (str, os.PathLike)) or not isinstance(items, Iterable):
        raise TypeError("python_packages must be a list of paths (wheels, package directories or .py files)")
    entries = [_item(raw) for raw in items]
    for kind, path in entries:
        if kind in ("package", "folder"):
            _refuse_compiled(str(path), (str(f) for f in _walk(path)))
    h = hashlib.sha256(b"amla python_packages 3\0")
    digests = []
    for kind, path in entries:
        fp = _fingerprint(kind, path)
        h.update(fp)
        digests.append({"name": _name(kind, path), "digest": fp.hex()})
    root = _cache_root()
    final = root / h.hexdigest()[:32]
    if final.is_dir():
        return str(final), digests
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=root))
    try:
        for kind, path in entries:
            if kind == "wheel":
                _unpack_wheel(path, tmp)
            elif kind == "module":
                shutil.copyfile(path, tmp / path.name)
            elif kind == "package":
                _copy_tree(path, tmp / path.name)
            else:
                _copy_tree(path, tmp)
        _compile_bytecode(tmp, new_sandbox)
        try:
            os.rename(tmp, final)
        except OSError:
            if not final.is_dir():  # another process made it first otherwise
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return str(final), digests


# Run in the guest by _compile_bytecode: compiles every module under
# /workspace/p as if it were at SITE (so tracebacks name that path) into
# /workspace/c, laid out as SITE's __pycache__ directories, with unchecked
# hashes (the mounted directory never changes, so nothing is compared at
# import). A module that does not compile is left to be imported from
# source, where it fails as it would anyway. Prints the .pyc paths made.
_COMPILE = """
import importlib.util, json, os, py_compile
made = []
for dirpath, dirnames, filenames in os.walk('/workspace/p'):
    dirnames.sort()
    for name in sorted(filenames):
        if not name.endswith('.py'):
            continue
        rel = os.path.relpath(os.path.join(dirpath, name), '/workspace/p')
        cached = os.path.relpath(importlib.util.cache_from_source(SITE + '/' + rel), SITE)
        try:
            py_compile.compile(os.path.join(dirpath, name), cfile='/workspace/c/' + cached, dfile=SITE + '/' + rel,
                               doraise=True, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
        except py_compile.PyCompileError:
            continue
        made.append(cached)
print(json.dumps(made))
"""


def _compile_bytecode(tree: Path, new_sandbox: Callable[[], Any]) -> None:
    """Puts each module's bytecode beside it (__pycache__), compiled once by
    the guest's own CPython: the guest never writes bytecode, so without it
    every run would compile every module it imports from source (about a
    second for requests). The directory is then mounted read-only, so no
    script can change what another sandbox's imports run. A guest that
    cannot run here (no Python guest in this install) leaves the tree as
    it is: imports then compile from source, as before."""
    sources = [f for f in _walk(tree) if f.suffix == ".py"]
    if not sources:
        return
    try:
        sb = new_sandbox()
    except Exception:  # noqa: BLE001 - no guest to compile with: nothing to add
        return
    with sb:
        for f in sources:
            sb.files.write("/workspace/p/" + f.relative_to(tree).as_posix(), f.read_bytes())
        out = sb.execute(_COMPILE.replace("SITE", repr(SITE)), language="python")
        if sb.last_result is None or sb.last_result.exit_code != 0:
            return
        for cached in json.loads(out):
            target = tree / cached
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(sb.files.read("/workspace/c/" + cached))
