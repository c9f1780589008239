"""Build the data guest: the Python guest with numpy and pandas linked in.

    build_data(out_wasm, work_dir)                                   # setup.py
    python guests/python/data/build_data.py --out X --work-dir Y     # a shell

The data guest is the module ../build.py makes (CPython 3.13 for
wasm32-wasi, the driver, the prelude), plus:

1. numpy and pandas from their PyPI sdists, pinned by version and sha256
   and taken from $AMLA_PYTHON_GUEST_SOURCES first (as CPython's sources
   are), and python-dateutil, six and tzdata as their pure-Python wheels.
2. Their build tools (Cython, meson, ninja), pinned, installed with pip
   into a directory of the work directory: never into the environment that
   runs the build.
3. Each package configured by its own meson.build with a cross file for
   wasm32-wasi (zig cc / zig c++, the WASI CPython's sysconfig through the
   native CPython of the build) and compiled by ninja. The compiler wrapper
   records what each extension module's shared-library link would have
   used instead of linking it, and gives each module's PyInit function a
   name unique in the whole program.
4. One link: the guest's own objects, libpython, and every extension
   module's objects and static libraries, with a generated table that
   registers each module under its dotted name (PyImport_AppendInittab:
   CPython 3.13's BuiltinImporter finds built-in modules by full name).
   --fatal-warnings turns a function signature mismatch between two
   modules (a trap at run time) into a build error.
5. The module archive: the standard library, the prelude, the packages'
   Python files, the time-zone data, and _amla_data (this directory's
   package), which the prelude imports during set-up so that `import
   numpy, pandas` is in the snapshot.

The finished module is cached as python-data-guest-<key>.wasm beside the
Python guest's cache entries, the key hashing every input (see input_key).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PYGUEST = HERE.parent


def _load_pyguest():
    """guests/python/build.py, under a name of its own (the PyPI package
    `build` may be importable as `build`)."""
    name = "amla_pyguest_build"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, PYGUEST / "build.py")
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot load {PYGUEST / 'build.py'}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


pg = _load_pyguest()
Source = pg.Source
BuildError = pg.BuildError

PYPI = "https://files.pythonhosted.org/packages/"
NUMPY_VERSION = "2.5.5"
PANDAS_VERSION = "3.1.1"
NUMPY = Source(
    "numpy", f"numpy-{NUMPY_VERSION}.tar.gz",
    (PYPI + f"4e/3a/8770c288c47f0b5c2a786d3c20e79f66fd245f2d42cd232d7cd5e00e83e5/numpy-{NUMPY_VERSION}.tar.gz",),
    "5cddc243c75114ba845f01b1f87aca1572dbf7b6c2d88636ed3e1d2bccd7f1bf",
)
PANDAS = Source(
    "pandas", f"pandas-{PANDAS_VERSION}.tar.gz",
    (PYPI + f"17/ca/24c6bc92aca3d366146358e47f1d374c0e1a50763ef226fc71eff20a63fb/pandas-{PANDAS_VERSION}.tar.gz",),
    "05fed3e3b7c99b226f160e29d7d6cb7ef39638c758cbfe42b3f24ba34f04b859",
)
# Pure-Python packages pandas needs, as their wheels (zip files of the
# package directories).
DATEUTIL = Source(
    "python-dateutil", "python_dateutil-4.0.0-py3-none-any.whl",
    (PYPI + "2f/a9/52b89563d154433d79b51ed1eb4842bf7334cb2696891a7fe135618853d7/python_dateutil-4.0.0-py3-none-any.whl",),
    "a5e246f79eb80475e691bf93862cead98decd8a498cf53ba0516fcdc0f50dc1c",
)
SIX = Source(
    "six", "six-1.17.0-py2.py3-none-any.whl",
    (PYPI + "b7/ce/149a00dd41f10bc29e5921b496af8b574d8413afcd5e30dfa0ed46c2cc5e/six-1.17.0-py2.py3-none-any.whl",),
    "4721f391ed90541fddacab5acf947aa0d3dc7d27b2e1e8eda2be8970586c3274",
)
TZDATA = Source(
    "tzdata", "tzdata-2026.6-py2.py3-none-any.whl",
    (PYPI + "0a/66/9a06c2227fedfd4919f0eaaa8b94377d9730882a7e4f95823c9a331ab5e1/tzdata-2026.6-py2.py3-none-any.whl",),
    "0a10eec6e13ef16b627fabed9a5f2ba61a62b1c67f327305f4e7e412a70b4aec",
)
SOURCES = (NUMPY, PANDAS, DATEUTIL, SIX, TZDATA)
WHEELS = (DATEUTIL, SIX, TZDATA)
# Tools that run on the build machine only. pip picks the wheel for this
# machine (Cython's compiled one is several times faster than its pure
# one), so these are pinned by version; pip checks what PyPI serves.
BUILD_TOOLS = ("cython==3.3.1", "meson==1.12.1", "ninja==1.13.2")
# pandas' meson.build asks versioneer for the version (which the sdist's
# _version_meson.py then gives).
PANDAS_BUILD_TOOLS = ("versioneer==0.29",)

NUMPY_OPTIONS = ("-Dallow-noblas=true", "-Dblas=none", "-Dlapack=none", "-Ddisable-threading=true",
                 "-Dcpu-baseline=none", "-Dcpu-dispatch=none", "-Ddisable-svml=true", "-Ddisable-highway=true",
                 "-Ddisable-intel-sort=true")
# Flags for every C and C++ file of the packages. C++ keeps its exception
# syntax but throws nowhere to: numpy's C++ throws only on internal errors
# and out of memory, pandas' never; __cxa_throw aborts (cxxabi_stubs.c).
COMMON_FLAGS = ("-O2", "-DNDEBUG")
CXX_FLAGS = ("-fexceptions", "-fignore-exceptions")

# numpy's extension modules that only its own test suite imports: left out
# (they also carry second copies of numpy's internal helpers).
TEST_MODULES = frozenset({"numpy._core._multiarray_tests", "numpy._core._umath_tests", "numpy._core._simd",
                          "numpy._core._operand_flag_tests", "numpy._core._rational_tests",
                          "numpy._core._struct_ufunc_tests"})

EXT_SUFFIX = ".cpython-313-wasm32-wasi.so"
INSTALL_ROOT = "/amla"
SITE = INSTALL_ROOT + "/site"
LINK_RECORD_MAGIC = "AMLA-LINK-RECORD"

# C files of this directory linked into the data guest.
DATA_C = ("cxxabi_stubs.c",)
OUT_NAME = "amla_python_data.wasm"


def log(msg: str) -> None:
    print(f"pydata: {msg}", file=sys.stderr, flush=True)


def init_symbol(rel: str) -> str:
    """The PyInit name given to the extension module built at rel (its
    path in the meson build directory, without the suffix): unique in the
    program, where ~60 modules' plain PyInit_<name> would clash."""
    return "PyInit_amla_" + rel.replace("_", "_U").replace("/", "_S")


# ---------------------------------------------------------------------------
# Inputs


def repo_files() -> list[Path]:
    files = [HERE / "build_data.py", HERE / "mkdataarchive.py", *(HERE / f for f in DATA_C)]
    files += sorted((HERE / "_amla_data").rglob("*.py"))
    return files


def source_hash() -> str:
    h = hashlib.sha256()
    for f in repo_files():
        h.update(str(f.relative_to(HERE)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:20]


def fetch(src: Source) -> Path:
    """src from $AMLA_PYTHON_GUEST_SOURCES if it holds it, else as
    pyguest.fetch gets it (download cache, then PyPI), checked by sha256."""
    local = os.environ.get(pg.SOURCES_ENV)
    if local and (Path(local).expanduser() / src.filename).is_file():
        return pg.fetch(src)
    saved = os.environ.pop(pg.SOURCES_ENV, None)
    try:
        return pg.fetch(src)
    finally:
        if saved is not None:
            os.environ[pg.SOURCES_ENV] = saved


def input_key(zig_id: str) -> str:
    """The data guest's cache key: the Python guest's key (its sources,
    files, compilers) and every input added here."""
    return pg._key(pg.input_key(zig_id), *(s.sha256 for s in SOURCES), *BUILD_TOOLS, *PANDAS_BUILD_TOOLS, source_hash(),
                   "data-1")


# ---------------------------------------------------------------------------
# Steps


def native_modules(python: Path) -> None:
    """The native CPython's shared extension modules (math, _struct, the
    hashes, ...): the packages' build scripts run on it. Added to its build
    directory once."""
    d = python.parent
    if (d / ".sharedmods-done").is_file():
        return
    log("building the native CPython's extension modules")
    pg._run(["make", "-j", pg._jobs(), "sharedmods"], "building the native CPython's extension modules", cwd=d,
            env=pg._env(CC=pg.native_cc()), log_file=d / "sharedmods.log")
    (d / ".sharedmods-done").write_text("")


def build_tools(work: Path, tools: tuple[str, ...] = BUILD_TOOLS, name: str = "buildtools") -> Path:
    """Build tools (Cython, meson and ninja by default) installed into a
    directory of their own."""
    d = work / f"{name}-{pg._key(*tools, sys.version, 'tools-1')}"
    if (d / ".done").is_file():
        return d
    if d.exists():
        shutil.rmtree(d)
    log("installing the build tools " + " ".join(tools) + f" into {d}")
    env = pg._env(PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PIP_TARGET", None)
    pg._run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-input", "--only-binary", ":all:", "--target", str(d),
             *tools], "installing the build tools with pip (is pip available to this Python?)", env=env)
    (d / ".done").write_text("")
    return d


def _write_exec(path: Path, text: str) -> None:
    if not path.is_file() or path.read_text() != text:
        path.write_text(text)
        path.chmod(0o755)


def cross_tools(work: Path, python: Path, wasi: Path, tools_dir: Path, numpy_stand_in: Path | None) -> dict[str, Path]:
    """Wrapper scripts for meson: the compilers, the host Python (the native
    CPython reading the WASI build's sysconfig), cython, ninja."""
    z = pg.zig()
    d = work / "datatools"
    d.mkdir(parents=True, exist_ok=True)
    builddir = (wasi / "pybuilddir.txt").read_text().strip()
    # The compiler: a shared-library link is recorded, not done (the
    # modules are linked into the guest instead); an object of an
    # extension module (built in <module>.so.p/) gets its PyInit renamed.
    compiler = (
        "#!/bin/sh\n"
        "# zig @LANG@ for wasm32-wasi under meson (guests/python/data/build_data.py).\n"
        "out=; prev=; shared=0\n"
        "for a do\n"
        "  case \"$prev\" in -o) out=$a;; esac\n"
        "  case \"$a\" in -shared) shared=1;; esac\n"
        "  prev=$a\n"
        "done\n"
        "if [ $shared = 1 ]; then\n"
        f"  {{ echo '{LINK_RECORD_MAGIC}'; pwd; for a do echo \"$a\"; done; }} > \"$out\"\n"
        "  exit 0\n"
        "fi\n"
        "case \"$out\" in\n"
        f"  *{EXT_SUFFIX}.p/*)\n"
        f"    rel=${{out%%{EXT_SUFFIX}.p/*}}\n"
        "    name=${rel##*/}\n"
        "    sym=PyInit_amla_$(printf %s \"$rel\" | sed -e 's/_/_U/g' -e 's|/|_S|g')\n"
        "    set -- \"$@\" \"-DPyInit_$name=$sym\";;\n"
        "esac\n"
        f"exec '{z}' @LANG@ -target wasm32-wasi {' '.join(COMMON_FLAGS)} @EXTRA@ -Wno-error=date-time "
        f"-ffile-prefix-map='{work}'=/build \"$@\"\n"
    )
    _write_exec(d / "cc", compiler.replace("@LANG@", "cc").replace(" @EXTRA@", ""))
    _write_exec(d / "c++", compiler.replace("@LANG@", "c++").replace("@EXTRA@", " ".join(CXX_FLAGS)))
    _write_exec(d / "ar", f"#!/bin/sh\nexec '{z}' ar \"$@\"\n")
    _write_exec(d / "ranlib", f"#!/bin/sh\nexec '{z}' ranlib \"$@\"\n")
    _write_exec(d / "strip", "#!/bin/sh\nexit 0\n")
    path = [str(wasi / builddir)]
    if numpy_stand_in is not None:
        path.insert(0, str(numpy_stand_in))
    _write_exec(d / "python", (
        "#!/bin/sh\n"
        "# The native CPython answering for the wasm32-wasi one.\n"
        f"export _PYTHON_PROJECT_BASE='{wasi}'\n"
        "export _PYTHON_SYSCONFIGDATA_NAME=_sysconfigdata__wasi_wasm32-wasi\n"
        f"export PYTHONPATH='{':'.join(path)}'${{PYTHONPATH:+:$PYTHONPATH}}\n"
        f"exec '{python}' \"$@\"\n"
    ))
    cython_path = os.pathsep.join(map(str, (tools_dir, *([numpy_stand_in] if numpy_stand_in else []))))
    _write_exec(d / "cython", f"#!/bin/sh\nPYTHONPATH='{cython_path}' exec '{sys.executable}' -m cython \"$@\"\n")
    # The ninja wheel's binary: pip --target installs it as a script.
    ninja = tools_dir / "bin" / ("ninja.exe" if os.name == "nt" else "ninja")
    if not ninja.is_file():
        raise BuildError(f"the ninja package in {tools_dir} has no ninja binary")
    return {n: d / n for n in ("cc", "c++", "ar", "ranlib", "strip", "python", "cython")} | {"ninja": ninja}


def cross_file(path: Path, t: dict[str, Path]) -> Path:
    text = (
        "[binaries]\n"
        f"c = '{t['cc']}'\ncpp = '{t['c++']}'\nar = '{t['ar']}'\nranlib = '{t['ranlib']}'\nstrip = '{t['strip']}'\n"
        f"python = '{t['python']}'\npython3 = '{t['python']}'\ncython = '{t['cython']}'\n"
        "[properties]\n"
        "needs_exe_wrapper = true\nskip_sanity_check = true\nlongdouble_format = 'IEEE_QUAD_LE'\n"
        "[host_machine]\n"
        "system = 'wasi'\ncpu_family = 'wasm32'\ncpu = 'wasm32'\nendian = 'little'\n"
    )
    if not path.is_file() or path.read_text() != text:
        path.write_text(text)
    return path


def meson_build(name: str, src: Path, d: Path, meson: list[str], options: tuple[str, ...], cross: Path,
                t: dict[str, Path], tools_dir: Path, extra_path: tuple[Path, ...] = ()) -> Path:
    """Configure src with meson into d and compile it with ninja. meson
    finds Cython as `cython` on PATH whatever the cross file says: the
    wrapper's directory comes first."""
    if (d / ".done").is_file():
        return d
    # An interrupted compile of the same inputs (d's name is their key)
    # resumes: ninja rebuilds only what is missing or out of date.
    configured = (d / "b" / "build.ninja").is_file() and (d / ".configured").is_file()
    if d.exists() and not configured:
        shutil.rmtree(d)
    d.mkdir(parents=True, exist_ok=True)
    env = pg._env(PYTHONPATH=os.pathsep.join(map(str, (tools_dir, *extra_path))), PATH=os.pathsep.join((str(t["cython"].parent), str(t["ninja"].parent), os.environ.get("PATH", ""))),
                  NINJA=str(t["ninja"]))
    for var in ("CC", "CXX", "CFLAGS", "CXXFLAGS", "LDFLAGS", "CPPFLAGS"):
        env.pop(var, None)
    started = time.monotonic()
    if not configured:
        log(f"configuring {name} for wasm32-wasi")
        pg._run([*meson, "setup", "--cross-file", str(cross), f"--prefix={INSTALL_ROOT}", "-Dbuildtype=release",
                 "-Db_ndebug=true", f"-Dpython.purelibdir={SITE}", f"-Dpython.platlibdir={SITE}", *options, str(d / "b"), str(src)],
                f"configuring {name}", env=env, log_file=d / "setup.log")
        (d / ".configured").write_text("")
    log(f"compiling {name} for wasm32-wasi")
    pg._run([str(t["ninja"]), "-C", str(d / "b"), "-j", pg._jobs()], f"compiling {name}", env=env, log_file=d / "ninja.log")
    installed = pg._run([*meson, "introspect", "--installed", str(d / "b")], f"listing what {name} installs", env=env)
    (d / "installed.json").write_text(installed)
    (d / ".done").write_text("")
    log(f"{name} compiled in {time.monotonic() - started:.0f} s")
    return d


def numpy_headers(numpy_src: Path, nb: Path, dest: Path) -> Path:
    """The wasm32 numpy's include directory as numpy installs it (its
    headers and the generated ones: meson's installed list), and a
    stand-in numpy package whose get_include() names it and which holds
    numpy's Cython declarations: pandas' meson.build and Cython ask numpy
    for both, and the wasm build's headers differ from a native numpy's
    (NPY_SIZEOF_LONG is 4)."""
    inc = dest / "include"
    if inc.exists():
        shutil.rmtree(inc)
    prefix = SITE + "/numpy/_core/include/"
    for built, installed in json.loads((nb / "installed.json").read_text()).items():
        if not installed.startswith(prefix):
            continue
        target = inc / installed[len(prefix):]
        if os.path.isdir(built):
            shutil.copytree(built, target, dirs_exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(built, target)
    if not (inc / "numpy" / "_numpyconfig.h").is_file():
        raise BuildError(f"numpy's build in {nb} installs no numpy/_numpyconfig.h")
    pkg = dest / "stand-in" / "numpy"
    if pkg.exists():
        shutil.rmtree(pkg)
    pkg.mkdir(parents=True)
    # Cython's declarations of numpy (`from numpy cimport ...`), found on
    # the path of the Cython the pandas build runs.
    for f in (numpy_src / "numpy").rglob("*.pxd"):
        target = pkg / f.relative_to(numpy_src / "numpy")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, target)
    (pkg / "__init__.py").write_text(
        f"__version__ = {NUMPY_VERSION!r}\n\n\ndef get_include():\n    return {str(inc)!r}\n")
    return dest / "stand-in"


class Module:
    """One extension module: its dotted name, its PyInit symbol and what
    its link would have used."""

    def __init__(self, dotted: str, symbol: str, inputs: list[str]) -> None:
        self.dotted, self.symbol, self.inputs = dotted, symbol, inputs


def collect(d: Path, site: Path) -> list[Module]:
    """The extension modules of meson build d, and its Python files copied
    into site (as they would be installed)."""
    installed = json.loads((d / "installed.json").read_text())
    b = d / "b"
    mods = []
    for built, dest in sorted(installed.items()):
        if not dest.startswith(SITE + "/"):
            continue
        rel = dest[len(SITE) + 1:]
        if rel.endswith(EXT_SUFFIX):
            record = Path(built).read_text().splitlines()
            if not record or record[0] != LINK_RECORD_MAGIC:
                raise BuildError(f"{built}: not a link record of the compiler wrapper")
            cwd = Path(record[1])
            inputs = []
            for a in record[2:]:
                if a.startswith("@"):
                    raise BuildError(f"{built}: a response file in the link ({a}) is not supported")
                if a.endswith((".o", ".a", ".obj")) and not a.startswith("-"):
                    p = Path(a) if os.path.isabs(a) else cwd / a
                    inputs.append(str(p.resolve()))
            brel = str(Path(built).resolve().relative_to(b.resolve()))[: -len(EXT_SUFFIX)]
            dotted = rel[: -len(EXT_SUFFIX)].replace("/", ".")
            if dotted not in TEST_MODULES:
                mods.append(Module(dotted, init_symbol(brel), inputs))
        elif os.path.isdir(built):
            # install_subdir(): a whole directory of the sources.
            for f in sorted(Path(built).rglob("*.py")):
                target = site / rel / f.relative_to(built)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(f, target)
        elif rel.endswith(".py"):
            target = site / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(built, target)
    return mods


# Modules compiled again with functions renamed, as (module, source file
# whose functions are renamed, relative to its package's sdist).
# numpy.random.mtrand links its own copy of distributions.c built with
# NP_RANDOM_LEGACY, where RAND_INT_TYPE is a C long (32 bits on wasm32);
# libnpyrandom, which numpy.random._generator uses, has the same functions
# with 64-bit integers. pandas._libs.pandas_datetime carries its own copy of
# numpy's datetime helpers (is_leapyear, get_datetimestruct_days, ...),
# which numpy's _multiarray_umath also defines. Each is a separate shared
# library natively; in one program the names must differ, or a call reaches
# the other copy (Generator.multinomial traps).
RENAMED = (
    ("numpy.random.mtrand", "numpy/random/src/distributions/distributions.c"),
    ("pandas._libs.pandas_datetime", "pandas/_libs/src/vendored/numpy/datetime/np_datetime.c"),
)
C_KEYWORDS = frozenset({"if", "for", "while", "switch", "return", "sizeof", "__attribute__", "defined"})


def defined_functions(c_file: Path) -> list[str]:
    """The functions a C file defines: a name followed by its parameters,
    at the start of a line or after its return type (static ones too,
    which renaming leaves as they are)."""
    text = c_file.read_text(errors="replace")
    names = {m.group(1) for m in re.finditer(r"^(?!static\b)(?:[A-Za-z_]\w*[ \t*]+)+\**(\w+)\s*\(", text, re.M)}
    names |= {m.group(1) for m in re.finditer(r"^(\w+)\s*\(", text, re.M)}
    return sorted(names - C_KEYWORDS)


def rename_module(d: Path, src: Path, mod: Module, source: str) -> None:
    """Compiles mod's objects again (from meson's compile_commands.json)
    with every function source defines renamed, and links those instead."""
    b = d / "b"
    names = defined_functions(src / source)
    if not names:
        raise BuildError(f"{source}: no functions found to rename")
    prefix = "amla_" + mod.dotted.replace(".", "_") + "_"
    header = d / f"rename-{mod.dotted}.h"
    header.write_text("".join(f"#define {n} {prefix}{n}\n" for n in names))
    commands = {str((Path(e["directory"]) / e["output"]).resolve()): e for e in json.loads((b / "compile_commands.json").read_text())}
    inputs = []
    for p in mod.inputs:
        e = commands.get(p)
        if e is None:
            inputs.append(p)
            continue
        out = Path(e["output"])
        renamed = str(out.parent / "amla-renamed" / out.name)
        args = shlex.split(e["command"])
        args[args.index("-o") + 1] = renamed
        (b / renamed).parent.mkdir(parents=True, exist_ok=True)
        pg._run([*args, "-include", str(header)], f"compiling {out.name} of {mod.dotted} again", cwd=Path(e["directory"]))
        inputs.append(str((b / renamed).resolve()))
    mod.inputs = inputs


# C functions numpy defines with fewer parameters than the slot it casts
# them into: a getter (self, closure) with one, a setter (self, value,
# closure) with two, a METH_NOARGS method (self, unused) with one. Native
# calling conventions ignore the extra argument; a wasm indirect call checks
# the function's type and traps ("indirect call type mismatch"). Each is
# compiled again from a copy of its file with the missing parameter added,
# as (module, the compiled file's path ending, function). Found by
# numpy's own tests in the guest (tests/test_python_data_suites.py) and a
# scan of both packages' C sources for getters, setters and method table
# entries whose function takes fewer parameters than its slot passes.
SIGNATURE_FIXES = (
    # ndarray.dtype's setter: `a.dtype = t` (numpy's test_records).
    ("numpy._core._multiarray_umath", "/src/multiarray/getset.c", "array_descr_set"),
    # numpy scalars' __copy__: copy.copy(np.float64(1)).
    ("numpy._core._multiarray_umath", "/scalartypes.c", "gentype___copy__"),
    # _array_converter.scalar_input.
    ("numpy._core._multiarray_umath", "/src/multiarray/array_converter.c", "array_converter_get_scalar_input"),
    # _BoundArrayMethod._supports_unaligned.
    ("numpy._core._multiarray_umath", "/src/multiarray/array_method.c", "boundarraymethod__supports_unaligned"),
    # The scaled-float test dtype's __reduce__ (pickling it).
    ("numpy._core._multiarray_umath", "/src/umath/_scaled_float_dtype.c", "sfloat___reduce__"),
    # _get_castingimpl, a METH_VARARGS | METH_KEYWORDS function taking no
    # keywords parameter (declared so in convert_datatype.h too).
    ("numpy._core._multiarray_umath", "/src/multiarray/convert_datatype.c", "_get_castingimpl"),
)


def add_parameter(text: str, function: str, source: str, end: str = "{") -> tuple[str, int]:
    """text with one more, unused, pointer parameter in function's
    definitions (end "{") or declarations (end ";") that start a line, as
    numpy writes them; and how many were changed."""
    pattern = re.compile(r"^(" + re.escape(function) + r"\s*\()((?:[^;{}()]|\([^;{}()]*\))*)(\)\s*" + re.escape(end) + ")", re.M)
    return pattern.subn(lambda m: m.group(1) + m.group(2) + ", void *amla_unused" + m.group(3), text)


def fix_signatures(d: Path, mod: Module, fixes: list[tuple[str, str]]) -> None:
    """Compiles mod's files again with SIGNATURE_FIXES' functions given
    their missing parameter: the file defining each (named by its path's
    ending), the headers beside it declaring it, and the module's other
    files naming it (a reference with the old type would not link). The
    changed copies go into one directory, where their quoted includes find
    the changed headers first and the rest in the originals' directories."""
    b = d / "b"
    commands = {str((Path(e["directory"]) / e["output"]).resolve()): e for e in json.loads((b / "compile_commands.json").read_text())}
    compiled = {p: (commands[p], (Path(commands[p]["directory"]) / commands[p]["file"]).resolve()) for p in mod.inputs if p in commands}
    edits: dict[Path, str] = {}
    for ending, function in fixes:
        defining = [src for _, src in compiled.values() if str(src).endswith(ending)]
        if len(defining) != 1:
            raise BuildError(f"{mod.dotted}: {len(defining)} compiled files end with {ending} (SIGNATURE_FIXES, {function})")
        src = defining[0]
        text, n = add_parameter(edits.get(src) or src.read_text(), function, str(src))
        if n != 1:
            raise BuildError(f"{src}: {n} definitions of {function} (expected one to fix its signature)")
        edits[src] = text
        for h in sorted(src.parent.glob("*.h")):
            text, n = add_parameter(edits.get(h) or h.read_text(), function, str(h), ";")
            if n:
                edits[h] = text
        word = re.compile(r"\b" + re.escape(function) + r"\b")
        for _, other in compiled.values():
            if other not in edits and word.search(other.read_text(errors="replace")):
                edits[other] = other.read_text()
    # Beside the module's objects (<module>.so.p/), named relative to the
    # build directory as meson names them: the compiler wrapper renames the
    # PyInit function of an object it compiles there.
    fixed_rel = {str(Path(e["output"]).parent) for e, src in compiled.values() if src in edits}
    if len(fixed_rel) != 1:
        raise BuildError(f"{mod.dotted}: its objects are not in one directory ({sorted(fixed_rel)})")
    rel_dir = Path(fixed_rel.pop()) / "amla-fixed"
    out_dir = Path(next(iter(compiled.values()))[0]["directory"]) / rel_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    names: dict[str, Path] = {}
    for path, text in edits.items():
        if names.setdefault(path.name, path) != path:
            raise BuildError(f"{mod.dotted}: two files named {path.name} to fix ({names[path.name]}, {path})")
        target = out_dir / path.name
        if not target.is_file() or target.read_text() != text:
            target.write_text(text)
    inputs = []
    for p in mod.inputs:
        if p not in compiled or compiled[p][1] not in edits:
            inputs.append(p)
            continue
        e, src = compiled[p]
        copy = out_dir / src.name
        args = shlex.split(e["command"])
        if e["file"] not in args:
            raise BuildError(f"{mod.dotted}: the compile command of {e['file']} does not name it")
        args = [str(copy) if a == e["file"] else a for a in args]
        out = rel_dir / (src.name + ".o")
        args[args.index("-o") + 1] = str(out)
        args.insert(1, f"-I{src.parent}")
        pg._run(args, f"compiling {src.name} of {mod.dotted} with fixed signatures", cwd=Path(e["directory"]))
        inputs.append(str((Path(e["directory"]) / out).resolve()))
    mod.inputs = inputs


def inittab_c(mods: list[Module], path: Path) -> None:
    """The table registering every module by dotted name; driver.c calls
    amla_data_inittab before starting CPython."""
    lines = ["/* Generated by guests/python/data/build_data.py. */", "#include <Python.h>", ""]
    lines += [f"PyMODINIT_FUNC {m.symbol}(void);" for m in mods]
    lines += ["", "int amla_data_inittab(void)", "{"]
    lines += [f'    if (PyImport_AppendInittab("{m.dotted}", {m.symbol}) < 0)\n        return -1;' for m in mods]
    lines += ["    return 0;", "}", ""]
    path.write_text("\n".join(lines))


def unpack_wheels(site: Path) -> None:
    for w in WHEELS:
        with zipfile.ZipFile(fetch(w)) as z:
            for m in z.infolist():
                parts = Path(m.filename).parts
                if ".." in parts or m.filename.startswith("/"):
                    raise BuildError(f"{w.filename}: unsafe member {m.filename}")
                if parts[0].endswith((".dist-info", ".data")):
                    continue
                z.extract(m, site)


# numpy's licence files of code compiled into the module (its SIMD
# libraries, SVML and the x86 sorts are turned off; tempita and meson only
# run during the build).
NUMPY_LICENCES = ("LICENSE.txt", "numpy/random/LICENSE.md", "numpy/random/src/*/LICENSE.md",
                  "numpy/linalg/lapack_lite/LICENSE.txt", "numpy/_core/src/multiarray/dragon4_LICENSE.txt",
                  "numpy/_core/include/numpy/libdivide/LICENSE.txt", "numpy/ma/LICENSE", "numpy/fft/pocketfft/LICENSE.md")


def licence_notice(numpy_src: Path, pandas_src: Path | None) -> str:
    """The licences of what the data guest adds to the Python guest, as the
    packages state them: numpy's and its bundled code's, pandas' and its
    vendored code's (LICENSES/), and the three wheels'."""
    parts = []
    for pattern in NUMPY_LICENCES:
        files = sorted(numpy_src.glob(pattern))
        if not files:
            raise BuildError(f"numpy {NUMPY_VERSION}: no {pattern}")
        for f in files:
            what = "" if f.name == "LICENSE.txt" and f.parent == numpy_src else f" ({f.relative_to(numpy_src)})"
            parts.append((f"numpy {NUMPY_VERSION}{what}, the data guest", f.read_text(errors="replace").strip()))
    if pandas_src is not None:
        parts.append((f"pandas {PANDAS_VERSION}, the data guest", (pandas_src / "LICENSE").read_text(errors="replace").strip()))
        for f in sorted((pandas_src / "LICENSES").iterdir()):
            parts.append((f"pandas {PANDAS_VERSION} (LICENSES/{f.name}), the data guest", f.read_text(errors="replace").strip()))
    for w in WHEELS:
        with zipfile.ZipFile(fetch(w)) as z:
            names = sorted(n for n in z.namelist()
                           if ".dist-info/" in n and Path(n).name.upper().startswith(("LICENSE", "LICENCE", "COPYING")))
            if not names:
                raise BuildError(f"{w.filename}: no licence file")
            text = "\n\n".join(z.read(n).decode(errors="replace").strip() for n in names)
        parts.append((f"{w.name} ({w.filename}), the data guest", text))
    return "\n".join(f"{'=' * 78}\n{name}\n{text}\n" for name, text in parts)


def build_data(out_wasm: Path, work_dir: Path, with_pandas: bool = True) -> str:
    """Build the data guest into out_wasm (work_dir holds sources and steps,
    shared with ../build.py); return the licence notice of the third-party
    code in it beyond the Python guest's. Raises BuildError.

    with_pandas=False builds numpy alone (with dateutil, six and tzdata):
    a smaller module for whoever needs only numpy, and a quicker build."""
    out_wasm = Path(out_wasm).resolve()
    work = Path(work_dir).resolve()
    if work == PYGUEST or PYGUEST in work.parents:
        raise BuildError(f"the build directory {work} is inside the source tree ({PYGUEST})")
    work.mkdir(parents=True, exist_ok=True)
    zig_id = pg._version([str(pg.zig()), "version"])
    key = input_key(zig_id) if with_pandas else pg._key(input_key(zig_id), "numpy-only")
    cache = pg.user_cache_dir()
    cached = cache / f"python-data-guest-{key}.wasm"
    cached_notice = cached.with_suffix(".licences.txt")
    if cached.is_file() and cached_notice.is_file():
        log(f"using the cached build {cached}")
        pg._write_atomic(out_wasm, cached.read_bytes())
        return cached_notice.read_text()
    started = time.monotonic()
    tools = pg._tools(work)
    src = pg._unpack(pg.fetch(pg.CPYTHON), work / "src-cpython", f"Python-{pg.CPYTHON_VERSION}")
    python = pg.native_python(src, work)
    deps = pg.wasi_deps(work, tools, zig_id)
    wasi = pg.wasi_cpython(src, work, python, deps, tools, zig_id)
    native_modules(python)
    tdir = build_tools(work)
    numpy_src = pg._unpack(fetch(NUMPY), work / "src-numpy", f"numpy-{NUMPY_VERSION}")
    pandas_src = pg._unpack(fetch(PANDAS), work / "src-pandas", f"pandas-{PANDAS_VERSION}")
    t = cross_tools(work, python, wasi, tdir, None)
    # The compile steps' key: what they read (the wrapper scripts hold the
    # flags and paths).
    step = pg._key(wasi.name, python.parent.name, zig_id, *BUILD_TOOLS, *NUMPY_OPTIONS, t["cc"].read_text(),
                   t["c++"].read_text(), "step-1")
    cross = cross_file(work / "datatools" / "cross-numpy.ini", t)
    meson_numpy = [sys.executable, str(numpy_src / "vendored-meson" / "meson" / "meson.py")]
    nb = meson_build("numpy", numpy_src, work / f"numpy-{pg._key(NUMPY.sha256, step)}", meson_numpy, NUMPY_OPTIONS,
                     cross, t, tdir)
    pb = None
    if with_pandas:
        stand_in = numpy_headers(numpy_src, nb, work / f"numpy-{pg._key(NUMPY.sha256, step)}")
        t = cross_tools(work / "pandas-tools", python, wasi, tdir, stand_in)
        cross = cross_file(work / "pandas-tools" / "datatools" / "cross-pandas.ini", t)
        meson_pandas = [sys.executable, "-m", "mesonbuild.mesonmain"]
        pdir = build_tools(work, PANDAS_BUILD_TOOLS, "buildtools-pandas")
        pb = meson_build("pandas", pandas_src, work / f"pandas-{pg._key(PANDAS.sha256, NUMPY.sha256, *PANDAS_BUILD_TOOLS, step)}",
                         meson_pandas, (), cross, t, tdir, (pdir,))

    stage = work / ("data-stage" if with_pandas else "data-stage-numpy")
    if stage.exists():
        shutil.rmtree(stage)
    site = stage / "site"
    site.mkdir(parents=True)
    mods = collect(nb, site) + (collect(pb, site) if pb is not None else [])
    for name in sorted({m for m, _, _ in SIGNATURE_FIXES}):
        for m in mods:
            if m.dotted == name:
                fix_signatures(nb, m, [(end, f) for n, end, f in SIGNATURE_FIXES if n == name])
    for name, source in RENAMED:
        d, root = (nb, numpy_src) if name.startswith("numpy.") else (pb, pandas_src)
        for m in mods:
            if m.dotted == name and d is not None:
                rename_module(d, root, m, source)
    unpack_wheels(site)
    inittab_c(mods, stage / "data_inittab.c")
    arc = data_archive(src, work, python, wasi, site, stage)
    link(out_wasm, work, wasi, src, arc, tools, mods, stage)
    notice = licence_notice(numpy_src, pandas_src if with_pandas else None)
    log(f"built {out_wasm} ({out_wasm.stat().st_size:,} bytes) in {time.monotonic() - started:.0f} s")
    try:
        pg._write_atomic(cached_notice, notice.encode())
        pg._write_atomic(cached, out_wasm.read_bytes())
        for old in sorted(cache.glob("python-data-guest-*.wasm"), key=lambda p: p.stat().st_mtime)[:-2]:
            old.unlink()
            old.with_suffix(".licences.txt").unlink(missing_ok=True)
    except OSError as e:
        log(f"could not cache the build in {cache}: {e}")
    return notice


def data_archive(src: Path, work: Path, python: Path, wasi: Path, site: Path, stage: Path) -> Path:
    """The module archive: the Python guest's, plus the packages' Python
    files, the time-zone data and _amla_data."""
    builddir = (wasi / "pybuilddir.txt").read_text().strip()
    sysconfig_data = []
    for f in sorted((wasi / builddir).glob("_sysconfigdata_*.py")):
        (stage / f.name).write_text(f.read_text().replace(str(work), "/build"))
        sysconfig_data.append(str(stage / f.name))
    out = stage / "amla_archive.bin"
    log("compiling the standard library and the packages into the module archive")
    env = pg._env(PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0")
    pg._run([str(python), "-I", "-S", str(HERE / "mkdataarchive.py"), str(out), str(src / "Lib"), str(PYGUEST / "prelude"),
             str(site), str(HERE), *sysconfig_data], "writing the data guest's module archive", env=env)
    return out


def link(out: Path, work: Path, wasi: Path, src: Path, archive_bin: Path, tools: dict[str, str], mods: list[Module],
         stage: Path) -> None:
    libpython = wasi / f"libpython{pg.CPYTHON_VERSION[:4]}.a"
    modlibs = pg.make_var(wasi, "MODLIBS").split()
    modlibs = [str(wasi / m) if m.endswith(".a") and not os.path.isabs(m) else m for m in modlibs]
    objects: list[str] = []
    archives: list[str] = []
    # Two modules of one directory that compile the same source file (numpy's
    # lapack_lite and _umath_linalg both compile the f2c LAPACK) give objects
    # of the same name, <dir>/<module>.so.p/<source path>.o: linked once.
    seen: set[tuple[str, str]] = set()
    for m in mods:
        for p in m.inputs:
            if p.endswith(".a"):
                if p not in archives:
                    archives.append(p)
                continue
            q = Path(p)
            same = (str(q.parent.parent), q.name) if q.parent.name.endswith(EXT_SUFFIX + ".p") else (p, "")
            if same not in seen:
                seen.add(same)
                objects.append(p)
    # The guest's own C files are compiled first and come first on the
    # link line: the libc_*.c files replace libc functions, and a libc
    # member pulled in by an earlier object (a package's call of write())
    # would clash with its replacement.
    obj = stage / "obj"
    obj.mkdir(exist_ok=True)
    # zig caches compilations by their inputs, which do not include the file
    # stdlib.c embeds (.incbin): its hash in a definition makes a new
    # archive a new compilation.
    cflags = [*pg.DRIVER_CFLAGS, f"-I{wasi}", f"-I{src / 'Include'}", f"-I{PYGUEST}", f"-I{pg.SHARED_INCLUDE}", f'-DAMLA_ARCHIVE="{archive_bin}"',
              f"-DAMLA_ARCHIVE_SHA256={pg._sha256_file(archive_bin)}"]
    own = [PYGUEST / f for f in pg.DRIVER_SOURCES] + [stage / "data_inittab.c"] + [HERE / f for f in DATA_C]
    own_objects = []
    for c in own:
        o = obj / (c.stem + ".o")
        pg._run([tools["cc"], *cflags, "-c", str(c), "-o", str(o)], f"compiling {c.name}", env=pg._env())
        own_objects.append(str(o))
    rsp = stage / "link.rsp"
    rsp.write_text("\n".join(own_objects + objects + archives) + "\n")
    tmp = stage / "amla_python_data.wasm.tmp"
    cmd = [str(pg.zig()), "c++", "-target", "wasm32-wasi", f"@{rsp}", str(libpython), *modlibs, *pg.WASI_LIBS, "-lm"]
    cmd += ["-mexec-model=reactor", f"-Wl,-z,stack-size={pg.C_STACK_BYTES}", "-Wl,--strip-debug", "-Wl,--fatal-warnings",
            "-o", str(tmp)]
    log(f"linking the data guest ({len(mods)} extension modules)")
    output = pg._run(cmd, "linking the data guest", env=pg._env(SOURCE_DATE_EPOCH=pg.SOURCE_DATE_EPOCH))
    # wasm-ld's warnings are errors here (zig does not pass
    # --fatal-warnings on): a function signature mismatch between two
    # modules is a call that traps at run time.
    if "warning:" in output:
        raise BuildError("linking the data guest: wasm-ld warned:\n" + output.strip())
    if output.strip():
        log(output.strip())
    pg._write_atomic(out, tmp.read_bytes())
    tmp.unlink()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="where to write the data guest module")
    ap.add_argument("--work-dir", type=Path, required=True, help="directory for sources and intermediate files")
    ap.add_argument("--without-pandas", action="store_true", help="numpy alone (a smaller module, a quicker build)")
    args = ap.parse_args()
    try:
        build_data(args.out, args.work_dir, with_pandas=not args.without_pandas)
    except BuildError as e:
        print(f"pydata: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
