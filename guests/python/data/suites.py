"""numpy's and pandas' own test suites for the data guest (issue 28).

The data guest leaves the packages' tests out (they would add ~20 MB to
every sandbox). `suite_tree(dest)` lays them out in a directory for
Sandbox(python_data=True, python_packages=[tree]) to mount read-only,
together with pytest and what it and the suites import, all pure Python:

- `amla_suites/numpy/...` and `amla_suites/pandas/...`: the test
  directories of the numpy and pandas sdists the data guest is built from
  (build_data.NUMPY and PANDAS, checked by sha256), with empty
  `__init__.py` files for the package directories above them, so that
  pytest names each test module by its dotted name (numpy.random.tests.
  test_direct). The guest's numpy and pandas are already imported from the
  module archive; GUEST_PRELUDE adds these directories to their packages'
  `__path__`, so `numpy.random.tests` is found in the mount.
- pytest, pluggy, iniconfig, packaging and pygments as installed beside the running
  pytest (the test environment's copies), attrs likewise (hypothesis needs
  it), and hypothesis and sortedcontainers from their pure-Python wheels,
  pinned by version and sha256 (pandas' tests import hypothesis).

tests/test_python_data_suites.py runs a subset of the suites with it;
docs/python.md ("numpy and pandas", "Their own test suites") says which.
"""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
import sys
import tarfile
import zipfile
from pathlib import Path, PurePosixPath



def _load_build_data():
    """build_data.py beside this file, under a name of its own."""
    name = "amla_pydata_build"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parent / "build_data.py")
    if spec is None or spec.loader is None:
        raise RuntimeError("cannot load build_data.py beside suites.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


bd = _load_build_data()

HYPOTHESIS = bd.Source(
    "hypothesis", "hypothesis-6.155.7-py3-none-any.whl",
    (bd.PYPI + "01/f8/c151e196d4f397ed9436a071e52666c70a2f021138dea828b0a461e245db/hypothesis-6.155.7-py3-none-any.whl",),
    "9f634bdb1f9e9b8ab6ba09431cf2deedb750c96978125a6fb3c5a0f6c6db4131",
)
SORTEDCONTAINERS = bd.Source(
    "sortedcontainers", "sortedcontainers-2.4.0-py2.py3-none-any.whl",
    (bd.PYPI + "32/46/9cb0e58b2deb7f82b84065f37f3bffeb12413f947f9388e4cac22c4621ce/sortedcontainers-2.4.0-py2.py3-none-any.whl",),
    "a163dcaede0f1c021485e957a39245190e74249897e2ae4b2aa38595db237ee0",
)
WHEELS = (HYPOTHESIS, SORTEDCONTAINERS)
# Pure-Python distributions taken from where the running interpreter has
# them installed: (the importable top-level names).
INSTALLED = ("pytest", "_pytest", "pluggy", "iniconfig", "packaging", "pygments", "attr", "attrs", "py")

# What of each sdist goes into the tree: directories (recursively) and
# files, relative to the sdist's top directory. pandas' io tests are
# mostly data files for readers the subset does not run: only io/json and
# the io package's own files.
NUMPY_PATHS = ("numpy/_core/tests", "numpy/random/tests", "numpy/linalg/tests", "numpy/fft/tests", "numpy/lib/tests")
PANDAS_PATHS = ("pandas/conftest.py", "pandas/tests")
PANDAS_SKIP = ("pandas/tests/io/",)
PANDAS_KEEP = ("pandas/tests/io/__init__.py", "pandas/tests/io/conftest.py", "pandas/tests/io/json/")

ROOT = "amla_suites"
# The guest's view of the tree (Sandbox(python_packages=...) mounts it at
# site-packages).
GUEST_ROOT = "/usr/lib/python3.13/site-packages/" + ROOT

# Run in the guest before pytest: each package directory of the tree is
# added to the imported package's __path__, so the test packages resolve
# to the mounted files.
GUEST_PRELUDE = f"""
import importlib, os
_root = {GUEST_ROOT!r}
for _dir, _subdirs, _files in os.walk(_root):
    _subdirs.sort()
    _rel = os.path.relpath(_dir, _root)
    if _rel == '.':
        _subdirs[:] = [d for d in _subdirs if d in ('numpy', 'pandas')]
        continue
    _pkg = importlib.import_module(_rel.replace('/', '.'))
    if (_pkg.__file__ or '').startswith(_root):
        _subdirs.clear()
    elif _dir not in _pkg.__path__:
        _pkg.__path__.append(_dir)
"""


def _wanted(rel: str, paths: tuple[str, ...], skip: tuple[str, ...] = (), keep: tuple[str, ...] = ()) -> bool:
    if not any(rel == p or rel.startswith(p + "/") for p in paths):
        return False
    if any(rel.startswith(s) for s in skip):
        return any(rel == k or (k.endswith("/") and rel.startswith(k)) for k in keep)
    return True


def _extract(archive: Path, top: str, paths: tuple[str, ...], dest: Path, skip: tuple[str, ...] = (),
             keep: tuple[str, ...] = ()) -> None:
    with tarfile.open(archive) as t:
        for m in t.getmembers():
            p = PurePosixPath(m.name)
            if not m.isfile() or p.parts[0] != top or ".." in p.parts:
                continue
            rel = "/".join(p.parts[1:])
            if not _wanted(rel, paths, skip, keep) or rel.endswith((".pyc", ".so")):
                continue
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            src = t.extractfile(m)
            if src is None:
                continue
            with src, open(target, "wb") as out:
                shutil.copyfileobj(src, out)
    # The package directories above the tests: empty __init__.py files, so
    # pytest names the modules by their dotted names.
    for p in paths:
        d = (dest / p).parent
        while d != dest:
            init = d / "__init__.py"
            if not init.exists():
                init.write_text("")
            d = d.parent


def _installed(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None and not spec.submodule_search_locations:
        raise bd.BuildError(f"{name} is not installed beside this Python ({sys.executable}): the suites need it")
    if spec.submodule_search_locations:
        return Path(list(spec.submodule_search_locations)[0])
    return Path(spec.origin)  # type: ignore[arg-type]


def _fingerprint() -> str:
    h = hashlib.sha256(b"amla suites 1\0")
    h.update(Path(__file__).read_bytes())
    for s in (bd.NUMPY, bd.PANDAS, *WHEELS):
        h.update(s.sha256.encode())
    for name in INSTALLED:
        try:
            p = _installed(name)
        except bd.BuildError:
            continue
        files = sorted(p.rglob("*.py")) if p.is_dir() else [p]
        for f in files:
            h.update(str(f.relative_to(p.parent)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:20]


def suite_tree(dest: Path) -> Path:
    """dest/<key>: the directory to mount (made once per set of inputs;
    dest is a cache directory). Raises build_data.BuildError."""
    final = Path(dest) / f"suites-{_fingerprint()}"
    if (final / ".done").is_file():
        return final
    if final.exists():
        shutil.rmtree(final)
    tmp = final.with_name(final.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    _extract(bd.fetch(bd.NUMPY), f"numpy-{bd.NUMPY_VERSION}", NUMPY_PATHS, tmp / ROOT)
    _extract(bd.fetch(bd.PANDAS), f"pandas-{bd.PANDAS_VERSION}", PANDAS_PATHS, tmp / ROOT, PANDAS_SKIP, PANDAS_KEEP)
    for name in INSTALLED:
        try:
            p = _installed(name)
        except bd.BuildError:
            if name == "py":  # pytest's own shim module, absent from older pytests
                continue
            raise
        if p.is_dir():
            shutil.copytree(p, tmp / p.name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copyfile(p, tmp / p.name)
    for w in WHEELS:
        with zipfile.ZipFile(bd.fetch(w)) as z:
            for m in z.infolist():
                parts = PurePosixPath(m.filename).parts
                if m.filename.startswith("/") or ".." in parts:
                    raise bd.BuildError(f"{w.filename}: unsafe member {m.filename}")
                if parts[0].endswith((".dist-info", ".data")) or m.is_dir():
                    continue
                z.extract(m, tmp)
    (tmp / ".done").write_text("")
    tmp.rename(final)
    return final
