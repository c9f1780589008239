"""Build the Python guest: CPython 3.13 for wasm32-wasi with zlib and SQLite
built in, our C driver, and the standard library embedded as marshalled
code, as one WASI reactor module.

    build(out_wasm, work_dir)                          # from Python (setup.py)
    python guests/python/build.py --out X --work-dir Y   # from a shell

Steps (README.md beside this file says more):

1. Sources, fetched from their publishers by exact version and checked by
   sha256, or taken from the directory $AMLA_PYTHON_GUEST_SOURCES (offline
   builds; .ci/run points it at ../shared/deps). Downloads are kept in the
   user cache directory.
2. A native build of the same CPython (only the interpreter): cross builds
   need it, and it compiles the standard library for the archive.
3. zlib and SQLite for wasm32-wasi with PyPI's ziglang (zig cc), then
   CPython's own configure and make for wasm32-wasi with a CONFIG_SITE and
   a compiler wrapper for what zig's toolchain does differently.
4. The module archive (mkarchive.py, run by the native CPython): the
   standard library and the prelude as marshalled code objects.
5. Our C files linked with libpython and the module libraries as a
   reactor, debug info stripped, written to out_wasm atomically.

The finished module is cached in the user cache directory
($AMLA_BUILD_CACHE, else $XDG_CACHE_HOME/amla-sandbox/build, else
~/.cache/amla-sandbox/build) under a hash of every input: the sources'
sha256, this directory's files, the compiler's version. A reinstall, a
second `pip install` or a fresh virtualenv then copies it instead of
building CPython again (about six minutes on two cores). Intermediate steps
are cached in work_dir, keyed the same way. Nothing is written into the
source tree. SOURCE_DATE_EPOCH is fixed, so two builds of the same inputs
give the same bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The header both C guests share: the host imports (amla_host.h).
SHARED_INCLUDE = HERE.parent / "include"

CPYTHON_VERSION = "3.13.5"
ZIGLANG_REQUIREMENT = "ziglang==0.17.0"
SOURCES_ENV = "AMLA_PYTHON_GUEST_SOURCES"
CACHE_ENV = "AMLA_BUILD_CACHE"
# A fixed build date, so builds are reproducible (CPython's build info and
# zip times use it).
SOURCE_DATE_EPOCH = "1749600000"


@dataclass(frozen=True)
class Source:
    """A third-party source archive: where its publisher serves it and the
    sha256 values accepted for it. The first hash is the publisher's file;
    others are repacks of the same sources accepted from a local directory
    only (README.md beside this file, "Building", step 1)."""

    name: str
    filename: str
    urls: tuple[str, ...]
    sha256: str
    local: tuple[tuple[str, str], ...] = ()  # (filename, sha256) accepted locally


CPYTHON = Source(
    "CPython",
    f"Python-{CPYTHON_VERSION}.tar.xz",
    (f"https://www.python.org/ftp/python/{CPYTHON_VERSION}/Python-{CPYTHON_VERSION}.tar.xz",),
    "93e583f243454e6e9e4588ca2c2662206ad961659863277afcdb96801647d640",
)
ZLIB = Source(
    "zlib",
    "zlib-1.3.1.tar.gz",
    ("https://zlib.net/fossils/zlib-1.3.1.tar.gz", "https://github.com/madler/zlib/releases/download/v1.3.1/zlib-1.3.1.tar.gz"),
    "9a93b2b7dfdac77ceba5a558a580e74667dd6fede4585b91eefb60f03b72df23",
    (("zlib-1.3.1.tar.gz", "60dd315c07f616887caa029408308a018ace66e3d142726a97db164b3b8f69fb"),),
)
SQLITE = Source(
    "SQLite",
    "sqlite-amalgamation-3460100.zip",
    ("https://www.sqlite.org/2024/sqlite-amalgamation-3460100.zip",),
    "77823cb110929c2bcb0f5d48e4833b5c59a8a6e40cdea3936b99e199dbbe5784",
    (("sqlite-amalgamation-3460100.tar.xz", "8aaef02ac30c7f369f75bef14dd70c8f0d092efb03c781a43253bc804100ba2e"),),
)
SOURCES = (CPYTHON, ZLIB, SQLITE)

ZLIB_FILES = ("adler32", "crc32", "deflate", "infback", "inffast", "inflate", "inftrees", "trees", "zutil",
              "compress", "uncompr", "gzclose", "gzlib", "gzread", "gzwrite")
ZLIB_CFLAGS = ("-O2", "-w", "-D_LARGEFILE64_SOURCE=1", "-DHAVE_UNISTD_H")
# SQLite as the feasibility build had it: no threads, extensions, WAL
# (needs shared memory), mmap or shared cache; with FTS5 and math functions.
SQLITE_CFLAGS = ("-O2", "-w", "-DSQLITE_THREADSAFE=0", "-DSQLITE_OMIT_LOAD_EXTENSION", "-DSQLITE_OMIT_WAL",
                 "-DSQLITE_MAX_MMAP_SIZE=0", "-DSQLITE_OMIT_SHARED_CACHE", "-DSQLITE_ENABLE_MATH_FUNCTIONS",
                 "-DSQLITE_ENABLE_FTS5")

# CPython's configure for wasm32-wasi. pymalloc is on (configure leaves it
# off for WASI): small objects then come from its pools instead of the
# libc's power-of-two blocks.
WASI_CONFIGURE = ("--host=wasm32-unknown-wasip1", "--disable-test-modules", "--with-pymalloc", "--without-ensurepip")
# CONFIG_SITE answers (config.site adds them to CPython's own file).
CONFIG_SITE = "config.site"
# Compiler flags for every CPython object (make's EXTRA_CFLAGS, so that
# configure's checks still see plain object files) and for the final link.
# -flto: libpython holds LLVM bitcode and the link optimises it with our
# driver as one program (calls across files inlined: the eval loop's dict,
# int and allocator helpers).
WASI_EXTRA_CFLAGS = ("-flto",)
LINK_FLAGS = ("-flto",)
# The libraries CPython's configure adds for WASI.
WASI_LIBS = ("-ldl", "-lwasi-emulated-signal", "-lwasi-emulated-getpid", "-lwasi-emulated-process-clocks", "-lpthread")

# Profile-guided optimisation (pgo_profile below). The LLVM release of
# zig's clang, whose profile runtime and llvm-profdata come from Debian's
# packages of it.
PGO_LLVM_VERSION = "22.1.8"
_PGO_POOL = "https://deb.debian.org/debian-security/pool/updates/main/l/llvm-toolchain-22/"
PGO_TOOLS = (
    Source("LLVM's profile runtime", "libclang-rt-22-dev_22.1.8-1~deb12u1_amd64.deb",
           (_PGO_POOL + "libclang-rt-22-dev_22.1.8-1%7edeb12u1_amd64.deb",),
           "e637f2395fd744311599971dd0542526a1482521861a02d8b1bf5086de9a7365"),
    Source("llvm-profdata", "llvm-22_22.1.8-1~deb12u1_amd64.deb",
           (_PGO_POOL + "llvm-22_22.1.8-1%7edeb12u1_amd64.deb",),
           "fcde579693b3f1cf1da596694c1add8a961ab1e1bd22744d4bff165d4f865add"),
    Source("libLLVM", "libllvm22_22.1.8-1~deb12u1_amd64.deb",
           (_PGO_POOL + "libllvm22_22.1.8-1%7edeb12u1_amd64.deb",),
           "729ec3e943d320515c2bbdc96acfffd7ce34861e62bd5c42726bf586d644dfe2"),
)
# The files taken from those packages, and where they go (bin/ and lib/
# of the tools directory: llvm-profdata finds libLLVM in ../lib).
PGO_TOOL_FILES = {
    "usr/lib/llvm-22/lib/clang/22/lib/linux/libclang_rt.profile-x86_64.a": "lib/libclang_rt.profile-x86_64.a",
    "usr/lib/llvm-22/bin/llvm-profdata": "bin/llvm-profdata",
    "usr/lib/x86_64-linux-gnu/libLLVM.so.22.1": "lib/libLLVM.so.22.1",
}
# The training: CPython's own (its Makefile's PROFILE_TASK).
PGO_TRAINING = ("-m", "test", "--pgo", "--timeout=1200")
# The wasm32 compile with the profile: functions the training never ran,
# and functions whose code differs between the two targets (clang then
# ignores their counts), are expected.
PGO_USE_FLAGS = ("-Wno-profile-instr-unprofiled", "-Wno-profile-instr-out-of-date", "-Wno-profile-instr-missing")

# Our C files, linked with libpython into the reactor. The libc_*.c files
# replace libc functions and come first: the linker takes a definition from
# the first object that has it, and zig puts libc.a and every archive given
# before the objects it compiles, so a libc member that an earlier object
# pulls in would clash with a later replacement.
DRIVER_SOURCES = ("libc_files.c", "libc_wait.c", "libc_netdb.c", "libc_pthread.c", "arena.c", "oom.c", "driver.c",
                  "hostmod.c", "stdlib.c")
DRIVER_CFLAGS = ("-O2", "-DNDEBUG", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Wno-missing-field-initializers")
# The C stack in linear memory, which CPython's recursion check guards
# (the size CPython's own WASI build uses).
C_STACK_BYTES = 8 * 1024 * 1024


class BuildError(RuntimeError):
    """The Python guest could not be built; the message says why."""


def log(msg: str) -> None:
    print(f"pyguest: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Inputs and caches


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _key(*parts: bytes | str) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode() if isinstance(p, str) else p)
        h.update(b"\0")
    return h.hexdigest()[:20]


def user_cache_dir() -> Path:
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "amla-sandbox" / "build"


def _repo_files() -> list[Path]:
    """Every file of this directory the build reads."""
    files = [HERE / "build.py", HERE / "mkarchive.py", HERE / "host.h", SHARED_INCLUDE / "amla_host.h", HERE / CONFIG_SITE]
    files += [HERE / f for f in DRIVER_SOURCES]
    files += sorted((HERE / "prelude").rglob("*.py"))
    return files


def source_hash() -> str:
    """A hash of every input of the build that lives in this repository."""
    h = hashlib.sha256()
    for f in _repo_files():
        name = f.relative_to(HERE.parent if f.is_relative_to(SHARED_INCLUDE) else HERE)
        h.update(str(name).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:20]


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=path.suffix, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


# ---------------------------------------------------------------------------
# Sources


def fetch(src: Source, download_if_absent: bool = False) -> Path:
    """The verified archive of src: from $AMLA_PYTHON_GUEST_SOURCES, the
    download cache, or its publisher. With $AMLA_PYTHON_GUEST_SOURCES set,
    only that directory is used, unless download_if_absent and the file is
    not there."""
    local_dir = os.environ.get(SOURCES_ENV)
    if local_dir and download_if_absent and not any(
            (Path(local_dir).expanduser() / f).is_file() for f in (src.filename, *(f for f, _ in src.local))):
        local_dir = None
    if local_dir:
        d = Path(local_dir).expanduser()
        if not d.is_dir():
            raise BuildError(f"{SOURCES_ENV}={local_dir}: not a directory")
        accepted: dict[str, list[str]] = {}
        for filename, sha in ((src.filename, src.sha256), *src.local):
            accepted.setdefault(filename, []).append(sha)
        for filename, shas in accepted.items():
            p = d / filename
            if p.is_file():
                got = _sha256_file(p)
                if got not in shas:
                    raise BuildError(f"{p}: sha256 {got}, expected {' or '.join(shas)} ({src.name})")
                return p
        names = " or ".join([src.filename] + [f for f, _ in src.local])
        raise BuildError(f"{SOURCES_ENV}={local_dir} holds no {names} ({src.name})")
    cached = user_cache_dir().parent / "sources" / src.filename
    if cached.is_file() and _sha256_file(cached) == src.sha256:
        return cached
    errors = []
    for url in src.urls:
        log(f"fetching {url}")
        try:
            with urllib.request.urlopen(url, timeout=120) as r:
                data = r.read()
        except OSError as e:
            errors.append(f"{url}: {e}")
            continue
        got = hashlib.sha256(data).hexdigest()
        if got != src.sha256:
            errors.append(f"{url}: sha256 {got}, expected {src.sha256}")
            continue
        _write_atomic(cached, data)
        return cached
    raise BuildError(
        f"cannot fetch {src.name} ({src.filename}): " + "; ".join(errors)
        + f". For an offline build set {SOURCES_ENV} to a directory holding it."
    )


def _unpack(archive: Path, dest: Path, top: str) -> Path:
    """Unpacks archive into dest (once) and returns dest/top."""
    stamp = dest / ".unpacked"
    want = f"{archive.name} {_sha256_file(archive)}"
    if stamp.is_file() and stamp.read_text() == want and (dest / top).is_dir():
        return dest / top
    if dest.exists():
        shutil.rmtree(dest)
    tmp = dest.with_name(dest.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as z:
            for m in z.infolist():
                if ".." in Path(m.filename).parts or m.filename.startswith("/"):
                    raise BuildError(f"{archive}: unsafe member {m.filename}")
            z.extractall(tmp)
    else:
        with tarfile.open(archive) as t:
            t.extractall(tmp, filter="data")
    if not (tmp / top).is_dir():
        raise BuildError(f"{archive}: no {top}/ inside")
    tmp.rename(dest)
    stamp.write_text(want)
    return dest / top


# ---------------------------------------------------------------------------
# Compilers


def _run(cmd: list[str], what: str, cwd: Path | None = None, env: dict[str, str] | None = None,
         log_file: Path | None = None) -> str:
    try:
        if log_file is not None:
            with open(log_file, "w") as f:
                p = subprocess.run(cmd, cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT)
            if p.returncode != 0:
                tail = log_file.read_text(errors="replace").splitlines()[-40:]
                raise BuildError(f"{what} failed (exit {p.returncode}), see {log_file}:\n" + "\n".join(tail))
            return ""
        p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    except OSError as e:
        raise BuildError(f"{what}: cannot run {cmd[0]}: {e}") from e
    if p.returncode != 0:
        raise BuildError(f"{what} failed (exit {p.returncode}):\n$ {' '.join(cmd)}\n{p.stdout}{p.stderr}")
    return p.stdout + p.stderr


def zig() -> Path:
    """The zig binary of PyPI's ziglang package."""
    try:
        import ziglang
    except ImportError as e:
        raise BuildError(f"the Python guest is compiled with PyPI's ziglang: `pip install {ZIGLANG_REQUIREMENT}`") from e
    exe = Path(ziglang.__file__).resolve().parent / ("zig.exe" if os.name == "nt" else "zig")
    if not exe.is_file():
        raise BuildError(f"ziglang is installed but has no zig binary at {exe}")
    return exe


def _version(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
    except OSError:
        return "?"
    return out.splitlines()[0] if out else "?"


def native_cc() -> str:
    env = os.environ.get("CC")
    if env:
        return env
    for name in ("cc", "gcc", "clang"):
        if shutil.which(name):
            return name
    return f"{zig()} cc"


def _tools(work: Path) -> dict[str, str]:
    """Wrapper scripts around zig for CPython's configure and make: cc
    (dropping -Wl,--stack-first, which zig refuses and already does, not
    failing on __DATE__, which SOURCE_DATE_EPOCH fixes, and writing the
    work directory's paths, which __FILE__ puts into the code, as /build so
    that builds in different directories give the same bytes), ar, ranlib."""
    z = zig()
    d = work / "tools"
    d.mkdir(parents=True, exist_ok=True)
    scripts = {
        "cc": (
            "#!/bin/sh\n"
            "# zig cc for wasm32-wasi, without the one flag zig refuses.\n"
            "for a do\n  shift\n  case \"$a\" in -Wl,--stack-first) continue;; esac\n  set -- \"$@\" \"$a\"\ndone\n"
            f"exec '{z}' cc -target wasm32-wasi -Wno-error=date-time -ffile-prefix-map='{work}'=/build \"$@\"\n"
        ),
        "ar": f"#!/bin/sh\nexec '{z}' ar \"$@\"\n",
        "ranlib": f"#!/bin/sh\nexec '{z}' ranlib \"$@\"\n",
    }
    out = {}
    for name, text in scripts.items():
        p = d / name
        if not p.is_file() or p.read_text() != text:
            p.write_text(text)
            p.chmod(0o755)
        out[name] = str(p)
    return out


# ---------------------------------------------------------------------------
# Steps


def _jobs() -> str:
    return str(max(1, os.cpu_count() or 1))


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["SOURCE_DATE_EPOCH"] = SOURCE_DATE_EPOCH
    for var in ("PYTHONPATH", "PYTHONHOME", "CONFIG_SITE", "MAKEFLAGS", "MFLAGS"):
        env.pop(var, None)
    env.update(extra)
    return env


def native_python(src: Path, work: Path) -> Path:
    """CPython built for this machine (the interpreter only)."""
    cc = native_cc()
    key = _key(CPYTHON.sha256, _version(cc.split() + ["--version"]), "native-1")
    d = work / f"native-{key}"
    exe = d / "python"
    if (d / ".done").is_file() and exe.is_file():
        return exe
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    log("building CPython for this machine (about two minutes)")
    started = time.monotonic()
    env = _env(CC=cc)
    _run([str(src / "configure"), "--disable-test-modules", "--without-ensurepip"], "configuring the native CPython",
         cwd=d, env=env, log_file=d / "configure.log")
    _run(["make", "-j", _jobs(), "python", "OPT=-O1 -DNDEBUG"], "building the native CPython", cwd=d, env=env,
         log_file=d / "make.log")
    (d / ".done").write_text("")
    log(f"native CPython built in {time.monotonic() - started:.0f} s")
    return exe


def wasi_deps(work: Path, tools: dict[str, str], zig_id: str) -> Path:
    """zlib and SQLite for wasm32-wasi: <dir>/include and <dir>/lib."""
    zsrc, ssrc = fetch(ZLIB), fetch(SQLITE)
    key = _key(_sha256_file(zsrc), _sha256_file(ssrc), zig_id, " ".join(ZLIB_CFLAGS), " ".join(SQLITE_CFLAGS), "deps-2")
    d = work / f"deps-{key}"
    if (d / ".done").is_file():
        return d
    if d.exists():
        shutil.rmtree(d)
    (d / "include").mkdir(parents=True)
    (d / "lib").mkdir()
    obj = d / "obj"
    obj.mkdir()
    zdir = _unpack(zsrc, work / "src-zlib", "zlib-1.3.1")
    sdir = _unpack(ssrc, work / "src-sqlite", "sqlite-amalgamation-3460100")
    log("compiling zlib and SQLite for wasm32-wasi")
    procs = []
    for f in ZLIB_FILES:
        procs.append((f"zlib {f}.c", subprocess.Popen([tools["cc"], *ZLIB_CFLAGS, "-c", str(zdir / f"{f}.c"), "-o", str(obj / f"{f}.o")],
                                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=_env())))
    sqlite_cmd = [tools["cc"], *SQLITE_CFLAGS, "-c", str(sdir / "sqlite3.c"), "-o", str(obj / "sqlite3.o")]
    procs.append(("sqlite3.c", subprocess.Popen(sqlite_cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=_env())))
    for what, p in procs:
        out, _ = p.communicate()
        if p.returncode != 0:
            raise BuildError(f"compiling {what} failed:\n{out.decode(errors='replace')}")
    _run([tools["ar"], "rcs", str(d / "lib" / "libz.a"), *(str(obj / f"{f}.o") for f in ZLIB_FILES)], "archiving zlib")
    _run([tools["ar"], "rcs", str(d / "lib" / "libsqlite3.a"), str(obj / "sqlite3.o")], "archiving SQLite")
    for h in ("zlib.h", "zconf.h"):
        shutil.copy(zdir / h, d / "include" / h)
    shutil.copy(sdir / "sqlite3.h", d / "include" / "sqlite3.h")
    shutil.rmtree(obj)
    (d / ".done").write_text("")
    return d


# ---------------------------------------------------------------------------
# Profile-guided optimisation
#
# CPython's release builds are profile-guided: an instrumented interpreter
# runs CPython's training set, and the compiler then inlines and lays out
# code by the counts. zig ships no profile runtime for wasm32, so the counts
# come from a native build of the same sources by the same compiler (zig's
# clang) for x86_64-linux-gnu. Clang's front-end instrumentation keys each
# function by name (a static one by file and name) and a hash of its
# control flow, so the counts apply to the wasm32 compile of every function
# whose code is the same on both targets; clang ignores the others (a few
# per file, code under #if for 64-bit or for Linux). The native build is
# configured as the wasm32 one is where that shapes the interpreter loop
# (no computed gotos, pymalloc). Where the tools cannot be had or run (not
# x86-64 Linux, no network and not in $AMLA_PYTHON_GUEST_SOURCES), the
# guest is built without a profile and the build says so.


def _deb_files(deb: Path, wanted: dict[str, str], dest: Path) -> None:
    """Writes the members of a Debian package named in wanted (path in the
    package -> path under dest). A .deb is an ar archive whose data.tar.*
    member holds the files."""
    with open(deb, "rb") as f:
        if f.read(8) != b"!<arch>\n":
            raise BuildError(f"{deb}: not a Debian package")
        while header := f.read(60):
            name, size = header[:16].decode().strip().rstrip("/"), int(header[48:58])
            data = f.read(size)
            f.read(size % 2)
            if not name.startswith("data.tar"):
                continue
            with tarfile.open(fileobj=io.BytesIO(data)) as t:
                for m in t.getmembers():
                    target = wanted.get(m.name.removeprefix("./"))
                    if target is None or not m.isfile():
                        continue
                    out = dest / target
                    out.parent.mkdir(parents=True, exist_ok=True)
                    with t.extractfile(m) as src_file:  # type: ignore[union-attr]
                        out.write_bytes(src_file.read())
                    out.chmod(0o755 if m.mode & 0o111 else 0o644)
            return
    raise BuildError(f"{deb}: no data.tar member")


def _pgo_tools(d: Path) -> Path:
    """The profile runtime and llvm-profdata in d (bin/, lib/), from
    PGO_TOOLS."""
    if all((d / t).is_file() for t in PGO_TOOL_FILES.values()):
        return d
    for src in PGO_TOOLS:
        _deb_files(fetch(src, download_if_absent=True), PGO_TOOL_FILES, d)
    missing = [t for t in PGO_TOOL_FILES.values() if not (d / t).is_file()]
    if missing:
        raise BuildError(f"the LLVM {PGO_LLVM_VERSION} packages lack {', '.join(missing)}")
    return d


def pgo_profile(src: Path, work: Path, zig_id: str) -> tuple[Path | None, str]:
    """The profile for compiling CPython (an llvm-profdata file), made once
    per input; or None and why there is none."""
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        return None, f"the profile is collected by running CPython on x86-64 Linux, and this is {platform.machine()} {platform.system()}"
    clang = _version([str(zig()), "cc", "--version"])
    if f"clang version {PGO_LLVM_VERSION}" not in clang:
        return None, f"zig's clang is not LLVM {PGO_LLVM_VERSION}, whose tools the build uses: {clang.splitlines()[0]}"
    key = _key(CPYTHON.sha256, zig_id, *(t.sha256 for t in PGO_TOOLS), " ".join(PGO_TRAINING), "pgo-1")
    # A sibling of the wasm32 build's directory: both name the sources by
    # the same relative path.
    d = work / f"pgo-{key}"
    out = d / "cpython.profdata"
    if (d / ".done").is_file() and out.is_file():
        return out, ""
    try:
        tools = _pgo_tools(work / "pgo-tools")
    except BuildError as e:
        return None, str(e)
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    started = time.monotonic()
    cc = d / "_cc"
    cc.write_text(f"#!/bin/sh\nexec '{zig()}' cc -target x86_64-linux-gnu -Wno-error=date-time "
                  f"-ffile-prefix-map='{work}'=/build \"$@\"\n")
    cc.chmod(0o755)
    # PKG_CONFIG: modules that need the machine's own libraries (zlib,
    # OpenSSL, ...) are left out, as zig's sysroot does not have them; the
    # wasm32 build links its own.
    env = _env(CC=str(cc), CFLAGS="-fprofile-instr-generate", PKG_CONFIG="false",
               LDFLAGS="-fprofile-instr-generate -Wl,-u,__llvm_profile_runtime",
               LIBS=str(tools / "lib" / "libclang_rt.profile-x86_64.a"))
    log("collecting the profile that guides CPython's compilation: an instrumented native build "
        "runs CPython's training set (about 5 minutes, once)")
    _run([os.path.relpath(src / "configure", d), "--without-computed-gotos", "--with-pymalloc", "--without-ensurepip"],
         "configuring the instrumented CPython", cwd=d, env=env, log_file=d / "configure.log")
    _run(["make", "-j", _jobs()], "building the instrumented CPython", cwd=d, env=env, log_file=d / "make.log")
    prof = d / "_profile"
    prof.mkdir()
    env["LLVM_PROFILE_FILE"] = str(prof / "%p-%m.profraw")
    # Some tests fail or skip here (modules left out, no network): the
    # counts of the rest are the profile.
    with open(d / "training.log", "w") as f:
        subprocess.run([str(d / "python"), *PGO_TRAINING], cwd=d, env=env, stdout=f, stderr=subprocess.STDOUT,
                       timeout=3600)
    raws = sorted(prof.glob("*.profraw"))
    if not raws:
        raise BuildError(f"the instrumented CPython wrote no profile, see {d / 'training.log'}")
    _run([str(tools / "bin" / "llvm-profdata"), "merge", "-o", str(out), *map(str, raws)], "merging the profile")
    shutil.rmtree(prof)
    (d / ".done").write_text("")
    log(f"profile collected in {time.monotonic() - started:.0f} s")
    return out, ""


def wasi_cpython(src: Path, work: Path, python: Path, deps: Path, tools: dict[str, str], zig_id: str) -> Path:
    """CPython configured and built for wasm32-wasi (libpython and its
    module libraries; the interpreter program itself is not needed)."""
    site_text = (HERE / CONFIG_SITE).read_text()
    try:
        profile, why = pgo_profile(src, work, zig_id)
    except (BuildError, OSError, subprocess.SubprocessError) as e:
        profile, why = None, str(e)
    flags = WASI_EXTRA_CFLAGS
    if profile is not None:
        flags += (f"-fprofile-instr-use={profile}", *PGO_USE_FLAGS)
    else:
        log(f"compiling CPython without a profile, so its code runs about 15% slower: {why}")
    key = _key(CPYTHON.sha256, zig_id, site_text, " ".join(WASI_CONFIGURE), " ".join(WASI_EXTRA_CFLAGS), deps.name,
               python.parent.name, _sha256_file(profile) if profile else "no profile", "wasi-3")
    d = work / f"wasi-{key}"
    if (d / ".done").is_file():
        return d
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    site = d / "config.site"
    site.write_text(f". '{src / 'Tools' / 'wasm' / 'config.site-wasm32-wasi'}'\n" + site_text)
    build_triple = _run([str(src / "config.guess")], "config.guess").strip()
    inc, lib = deps / "include", deps / "lib"
    env = _env(
        CONFIG_SITE=str(site), CC=tools["cc"], AR=tools["ar"], RANLIB=tools["ranlib"], PKG_CONFIG="false",
        ZLIB_CFLAGS=f"-I{inc}", ZLIB_LIBS=f"-L{lib} -lz",
        LIBSQLITE3_CFLAGS=f"-I{inc}", LIBSQLITE3_LIBS=f"-L{lib} -lsqlite3",
    )
    log("configuring CPython for wasm32-wasi")
    started = time.monotonic()
    # configure is named by a relative path: the build then refers to its
    # sources relatively (VPATH is compiled into getpath), and the module
    # does not depend on where the work directory is.
    _run([os.path.relpath(src / "configure", d), *WASI_CONFIGURE, f"--build={build_triple}", f"--with-build-python={python}"],
         "configuring CPython for wasm32-wasi", cwd=d, env=env, log_file=d / "configure.log")
    log("compiling CPython for wasm32-wasi")
    # SOCK_RAW: zig's headers lack it, and the socket module refers to it.
    _run(["make", "-j", _jobs(), f"libpython{CPYTHON_VERSION[:4]}.a", "pybuilddir.txt", "MODULE__SOCKET_CFLAGS=-DSOCK_RAW=3",
          f"EXTRA_CFLAGS={' '.join(flags)}"],
         "compiling CPython for wasm32-wasi", cwd=d, env=env, log_file=d / "make.log")
    (d / ".done").write_text("")
    log(f"CPython for wasm32-wasi built in {time.monotonic() - started:.0f} s")
    return d


def make_var(build: Path, name: str) -> str:
    """The value of a variable of the CPython build's Makefile."""
    mk = build / "print-var.mk"
    if not mk.is_file():
        mk.write_text("print-%:\n\t@echo '$($*)'\n")
    return _run(["make", "-s", "-f", "Makefile", "-f", str(mk), f"print-{name}"], f"reading {name}", cwd=build, env=_env()).strip()


def archive(src: Path, work: Path, python: Path, wasi: Path) -> Path:
    """The module archive stdlib.c embeds."""
    builddir = (wasi / "pybuilddir.txt").read_text().strip()
    # sysconfig's data names the build's directories: written as /build,
    # so the archive does not depend on where the build ran.
    sysconfig_texts = {f.name: f.read_text().replace(str(work), "/build")
                       for f in sorted((wasi / builddir).glob("_sysconfigdata_*.py"))}
    prelude = HERE / "prelude"
    parts = [python.parent.name, wasi.name, (HERE / "mkarchive.py").read_bytes()]
    parts += [f.read_bytes() for f in sorted(prelude.rglob("*.py"))]
    parts += [f"{n}\0{t}" for n, t in sysconfig_texts.items()]
    out = work / f"archive-{_key(*parts)}" / "amla_archive.bin"
    if out.is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    sysconfig_data = []
    for name, text in sysconfig_texts.items():
        (out.parent / name).write_text(text)
        sysconfig_data.append(out.parent / name)
    log("compiling the standard library into the module archive")
    # The native interpreter runs from its build directory, where it finds
    # the source tree's Lib by itself.
    env = _env(PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0")
    _run([str(python), "-I", "-S", str(HERE / "mkarchive.py"), str(out), str(src / "Lib"), str(prelude),
          *map(str, sysconfig_data)], "writing the module archive", env=env)
    return out


def link(out: Path, work: Path, wasi: Path, src: Path, archive_bin: Path, tools: dict[str, str]) -> None:
    """Our C files + libpython + the module libraries -> the reactor."""
    libpython = wasi / f"libpython{CPYTHON_VERSION[:4]}.a"
    modlibs = make_var(wasi, "MODLIBS").split()
    # Module libraries are named relative to the build directory.
    modlibs = [str(wasi / m) if m.endswith(".a") and not os.path.isabs(m) else m for m in modlibs]
    tmp = work / "amla_python.wasm.tmp"
    cmd = [tools["cc"], *DRIVER_CFLAGS, f"-I{wasi}", f"-I{src / 'Include'}", f"-I{HERE}", f"-I{SHARED_INCLUDE}", f'-DAMLA_ARCHIVE="{archive_bin}"']
    # stdlib.c defines the archive's symbol in module-level assembly, which
    # a bitcode object would list as a function: it is compiled to a plain
    # object first, without the link flags (-flto).
    stdlib_obj = work / "amla_stdlib.o"
    _run([*cmd, "-c", str(HERE / "stdlib.c"), "-o", str(stdlib_obj)], "compiling stdlib.c", env=_env())
    cmd += [str(stdlib_obj) if f == "stdlib.c" else str(HERE / f) for f in DRIVER_SOURCES]
    cmd += [str(libpython), *modlibs, *WASI_LIBS, "-lm"]
    cmd += [*LINK_FLAGS, "-mexec-model=reactor", f"-Wl,-z,stack-size={C_STACK_BYTES}", "-Wl,--strip-debug", "-o", str(tmp)]
    log("linking the guest")
    output = _run(cmd, "compiling and linking the guest", env=_env())
    if output.strip():
        log(output.strip())
    _write_atomic(out, tmp.read_bytes())
    tmp.unlink()


def _leading_comment(path: Path) -> str:
    text = path.read_text(errors="replace")
    if not text.lstrip().startswith("/*") or "*/" not in text:
        raise BuildError(f"{path}: no leading licence comment")
    text = text.lstrip()
    return "\n".join(line.strip().lstrip("*").rstrip() for line in text[2 : text.index("*/")].splitlines()).strip()


def licence_notice(work: Path) -> str:
    """The licences of the third-party code compiled into the module, as
    its sources state them."""
    cp = work / "src-cpython" / f"Python-{CPYTHON_VERSION}"
    parts = [
        ("CPython " + CPYTHON_VERSION + ", the Python guest", (cp / "LICENSE").read_text(errors="replace").strip()),
        ("Expat (CPython's Modules/expat)", (cp / "Modules" / "expat" / "COPYING").read_text(errors="replace").strip()),
        ("libmpdec (CPython's Modules/_decimal/libmpdec)", _leading_comment(cp / "Modules" / "_decimal" / "libmpdec" / "mpdecimal.c")),
        ("HACL* (CPython's Modules/_hacl)", _leading_comment(cp / "Modules" / "_hacl" / "Hacl_Hash_SHA2.c")),
        ("BLAKE2 (CPython's Modules/_blake2/impl)", _leading_comment(cp / "Modules" / "_blake2" / "impl" / "blake2.h")),
        ("zlib 1.3.1", (work / "src-zlib" / "zlib-1.3.1" / "LICENSE").read_text(errors="replace").strip()),
        ("SQLite 3.46.1", _leading_comment(work / "src-sqlite" / "sqlite-amalgamation-3460100" / "sqlite3.h")),
    ]
    return "\n".join(f"{'=' * 78}\n{name}\n{text}\n" for name, text in parts)


def input_key(zig_id: str) -> str:
    """The build's cache key: every input."""
    return _key(*(s.sha256 for s in SOURCES), source_hash(), zig_id, _version(native_cc().split() + ["--version"]),
                platform_tag())


def platform_tag() -> str:
    import platform

    return f"{sys.platform}-{platform.machine()}"


def build(out_wasm: Path, work_dir: Path) -> str:
    """Build the Python guest module into out_wasm, using work_dir for
    sources and intermediate files; return the licence notice of the
    third-party code in it. Raises BuildError."""
    out_wasm = Path(out_wasm).resolve()
    work = Path(work_dir).resolve()
    if work == HERE or HERE in work.parents:
        raise BuildError(f"the build directory {work} is inside the source tree ({HERE})")
    work.mkdir(parents=True, exist_ok=True)
    zig_id = _version([str(zig()), "version"])
    key = input_key(zig_id)
    cache = user_cache_dir()
    cached = cache / f"python-guest-{key}.wasm"
    cached_notice = cached.with_suffix(".licences.txt")
    if cached.is_file() and cached_notice.is_file():
        log(f"using the cached build {cached}")
        _write_atomic(out_wasm, cached.read_bytes())
        return cached_notice.read_text()
    started = time.monotonic()
    tools = _tools(work)
    src = _unpack(fetch(CPYTHON), work / "src-cpython", f"Python-{CPYTHON_VERSION}")
    python = native_python(src, work)
    deps = wasi_deps(work, tools, zig_id)
    wasi = wasi_cpython(src, work, python, deps, tools, zig_id)
    arc = archive(src, work, python, wasi)
    link(out_wasm, work, wasi, src, arc, tools)
    notice = licence_notice(work)
    log(f"built {out_wasm} ({out_wasm.stat().st_size:,} bytes) in {time.monotonic() - started:.0f} s")
    try:
        _write_atomic(cached_notice, notice.encode())
        _write_atomic(cached, out_wasm.read_bytes())
        for old in sorted(cache.glob("python-guest-*.wasm"), key=lambda p: p.stat().st_mtime)[:-3]:
            old.unlink()
            old.with_suffix(".licences.txt").unlink(missing_ok=True)
    except OSError as e:
        log(f"could not cache the build in {cache}: {e}")
    return notice


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, help="where to write the guest module")
    ap.add_argument("--work-dir", type=Path, help="directory for sources and intermediate files")
    ap.add_argument("--print-source-hash", action="store_true", help="print the hash of this directory's inputs")
    args = ap.parse_args()
    if args.print_source_hash:
        print(source_hash())
        return 0
    if not args.out or not args.work_dir:
        ap.error("--out and --work-dir are required")
    try:
        build(args.out, args.work_dir)
    except BuildError as e:
        print(f"pyguest: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
