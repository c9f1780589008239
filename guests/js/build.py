"""Build the JavaScript guest: QuickJS-NG + our C driver + the prelude, as
one WASI reactor module (wasm32-wasi).

    build(out_wasm, build_dir)                       # from Python (setup.py)
    python guests/js/build.py --out X --build-dir Y    # from a shell

Steps (README.md beside this file says more):

1. QuickJS-NG source: the ``upstream-quickjs/`` folder of the PyPI sdist
   ``quickjs-ng==0.17.0.2``, fetched by exact version through PyPI's JSON
   API and checked against a pinned sha256, or taken from
   ``$AMLA_QUICKJS_SRC`` (that sdist as a tarball, or an unpacked copy) for
   offline builds. It is unpacked into the build directory, never into the
   source tree.
2. A C compiler for wasm32-wasi: ``$AMLA_WASM_CC`` if set, else a ``clang``
   on PATH that can build against wasi-libc, else PyPI's
   ``ziglang==0.17.0`` (``python -m ziglang cc -target wasm32-wasi``).
3. QuickJS's four C files are compiled once and cached in the build
   directory, keyed by source, flags and compiler.
4. A native helper (compile_prelude.c, built with the host's cc or zig)
   compiles the prelude to QuickJS bytecode; the guest embeds it.
5. Our C files (with -Wall -Wextra) and the bytecode are linked into the
   reactor module, written to ``out_wasm`` atomically.

Nothing here writes into the source tree.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.parse
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The header both C guests share: the host imports (amla_host.h).
SHARED_INCLUDE = HERE.parent / "include"

QUICKJS_PROJECT = "quickjs-ng"
QUICKJS_VERSION = "0.17.0.2"
QUICKJS_ENGINE_VERSION = "0.17.0"  # QJS_VERSION_* in its quickjs.h
QUICKJS_SDIST = "quickjs_ng-0.17.0.2.tar.gz"
QUICKJS_SHA256 = "43d2e48272208721a7aaea8e3f02d4b9318f12ef20cc4f5421b59d9a470706ef"
QUICKJS_SOURCES = ("quickjs.c", "libregexp.c", "libunicode.c", "dtoa.c")
ZIGLANG_REQUIREMENT = "ziglang==0.17.0"
PYPI_URL = os.environ.get("AMLA_PYPI_URL", "https://pypi.org")

# Our C files, the prelude's parts (in the order they are assembled) and
# everything else whose change must rebuild the module.
DRIVER_SOURCES = ("driver.c", "fs.c", "text.c", "random.c", "json.c", "hash.c", "modules.c")
PRELUDE_MAIN = "prelude/prelude.js"
PRELUDE_SECTIONS = ("fs", "text", "node", "locale", "tools", "web")
SECTIONS_MARKER = "/*@@SECTIONS@@*/"

# The C stack (linear memory) QuickJS recurses on, and the part of it
# JS_SetMaxStackSize allows JavaScript (see driver.c). A plain JS call costs
# ~320 bytes of this C stack and ~600 bytes of wasmtime's own stack, so a
# 2 MiB JS limit (about 6,500 frames) throws the catchable RangeError with
# about 4 MiB of the wasm stack used. The host's wasm stack (28 MiB,
# gocore/host/engine.go) must stay well above that: a wasm stack that runs
# out first is an uncatchable trap instead of the RangeError.
C_STACK_BYTES = 4 * 1024 * 1024
JS_STACK_LIMIT = 2 * 1024 * 1024

QUICKJS_CFLAGS = ("-O2", "-w")  # third-party code: its warnings are not ours
DRIVER_CFLAGS = ("-O2", "-Wall", "-Wextra", "-Wno-unused-parameter")


class BuildError(RuntimeError):
    """The JavaScript guest could not be built; the message says why."""


def log(msg: str) -> None:
    print(f"jsguest: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# QuickJS source


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _sdist_url() -> str:
    """The download URL of the pinned sdist, from PyPI's JSON API."""
    api = f"{PYPI_URL}/pypi/{QUICKJS_PROJECT}/json"
    try:
        with urllib.request.urlopen(api, timeout=60) as r:
            meta = json.load(r)
    except OSError as e:
        raise BuildError(
            f"cannot reach {api} to fetch {QUICKJS_PROJECT}=={QUICKJS_VERSION} ({e}); "
            "for an offline build set AMLA_QUICKJS_SRC to that sdist (tarball or unpacked)"
        ) from e
    files = meta.get("releases", {}).get(QUICKJS_VERSION) or []
    for f in files:
        if f.get("filename") == QUICKJS_SDIST:
            if f.get("digests", {}).get("sha256") not in (None, QUICKJS_SHA256):
                raise BuildError(f"PyPI lists {QUICKJS_SDIST} with an unexpected sha256")
            return urllib.parse.urljoin(api, f["url"])
    raise BuildError(f"PyPI has no {QUICKJS_SDIST} for {QUICKJS_PROJECT} {QUICKJS_VERSION}")


def _unpack_sdist(data: bytes, dest: Path) -> None:
    """Unpack the upstream-quickjs/ files of the sdist into dest."""
    got = _sha256(data)
    if got != QUICKJS_SHA256:
        raise BuildError(f"{QUICKJS_SDIST}: sha256 {got}, expected {QUICKJS_SHA256}")
    tmp = Path(tempfile.mkdtemp(prefix=".qjs-", dir=dest.parent))
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            for m in tar.getmembers():
                parts = Path(m.name).parts
                if len(parts) != 3 or parts[1] != "upstream-quickjs" or not m.isfile():
                    continue
                name = parts[2]
                if name in (".", "..") or "/" in name:
                    continue
                f = tar.extractfile(m)
                assert f is not None
                (tmp / name).write_bytes(f.read())
        if not (tmp / "quickjs.c").is_file():
            raise BuildError(f"{QUICKJS_SDIST} has no upstream-quickjs/quickjs.c")
        if dest.exists():
            shutil.rmtree(dest)
        tmp.rename(dest)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)


def _check_engine_version(src: Path) -> None:
    header = (src / "quickjs.h").read_text(errors="replace")
    major, minor, patch = QUICKJS_ENGINE_VERSION.split(".")
    want = [f"#define QJS_VERSION_MAJOR {major}", f"#define QJS_VERSION_MINOR {minor}", f"#define QJS_VERSION_PATCH {patch}"]
    if not all(w in header for w in want):
        raise BuildError(f"{src}: not QuickJS-NG {QUICKJS_ENGINE_VERSION} (see its quickjs.h)")


def quickjs_source(build_dir: Path) -> Path:
    """The directory holding quickjs.c and friends, fetched if needed."""
    local = os.environ.get("AMLA_QUICKJS_SRC")
    if local:
        p = Path(local).expanduser().resolve()
        if p.is_file():
            dest = build_dir / f"quickjs-{QUICKJS_VERSION}"
            if not (dest / "quickjs.c").is_file():
                _unpack_sdist(p.read_bytes(), dest)
            src = dest
        elif (p / "upstream-quickjs" / "quickjs.c").is_file():
            src = p / "upstream-quickjs"
        elif (p / "quickjs.c").is_file():
            src = p
        else:
            raise BuildError(f"AMLA_QUICKJS_SRC={local}: neither the {QUICKJS_SDIST} tarball nor a folder with quickjs.c")
        _check_engine_version(src)
        return src
    dest = build_dir / f"quickjs-{QUICKJS_VERSION}"
    stamp = dest / ".sha256"
    if stamp.is_file() and stamp.read_text().strip() == QUICKJS_SHA256 and (dest / "quickjs.c").is_file():
        return dest
    url = _sdist_url()
    log(f"fetching {QUICKJS_SDIST}")
    try:
        with urllib.request.urlopen(url, timeout=120) as r:
            data = r.read()
    except OSError as e:
        raise BuildError(f"cannot download {url}: {e}") from e
    _unpack_sdist(data, dest)
    stamp.write_text(QUICKJS_SHA256 + "\n")
    return dest


# ---------------------------------------------------------------------------
# Compilers


def _run(cmd: list[str], what: str, cwd: Path | None = None) -> str:
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    except OSError as e:
        raise BuildError(f"{what}: cannot run {cmd[0]}: {e}") from e
    if p.returncode != 0:
        raise BuildError(f"{what} failed (exit {p.returncode}):\n$ {' '.join(cmd)}\n{p.stdout}{p.stderr}")
    return p.stdout + p.stderr


def _zig() -> list[str] | None:
    try:
        import ziglang  # noqa: F401
    except ImportError:
        return None
    return [sys.executable, "-m", "ziglang", "cc"]


def _clang_targets_wasi(clang: str, scratch: Path) -> bool:
    """Whether clang can compile and link a program against wasi-libc."""
    test = scratch / "wasi_probe.c"
    test.write_text("#include <stdio.h>\nint main(void) { puts(\"x\"); return 0; }\n")
    cmd = [clang, "--target=wasm32-wasi", "-O1", str(test), "-o", str(scratch / "wasi_probe.wasm")]
    sysroot = os.environ.get("WASI_SYSROOT")
    if sysroot:
        cmd.insert(1, f"--sysroot={sysroot}")
    try:
        return subprocess.run(cmd, capture_output=True).returncode == 0
    except OSError:
        return False


def wasm_cc(scratch: Path) -> list[str]:
    """The command (argv prefix) of a C compiler targeting wasm32-wasi."""
    env = os.environ.get("AMLA_WASM_CC")
    if env:
        return env.split()
    clang = shutil.which("clang")
    if clang and _clang_targets_wasi(clang, scratch):
        cmd = [clang, "--target=wasm32-wasi"]
        if os.environ.get("WASI_SYSROOT"):
            cmd.append(f"--sysroot={os.environ['WASI_SYSROOT']}")
        return cmd
    zig = _zig()
    if zig:
        return zig + ["-target", "wasm32-wasi"]
    raise BuildError(
        "no C compiler for wasm32-wasi: install a clang with wasi-libc (set WASI_SYSROOT if needed), "
        f"or `pip install {ZIGLANG_REQUIREMENT}`, or set AMLA_WASM_CC"
    )


def native_cc() -> list[str]:
    """A C compiler for the build machine (for compile_prelude)."""
    env = os.environ.get("CC")
    if env:
        return env.split()
    for name in ("cc", "gcc", "clang"):
        p = shutil.which(name)
        if p:
            return [p]
    zig = _zig()
    if zig:
        return zig
    raise BuildError(f"no C compiler for the build machine: install cc, or `pip install {ZIGLANG_REQUIREMENT}`")


def _compiler_id(cc: list[str]) -> str:
    try:
        out = subprocess.run(cc + ["--version"], capture_output=True, text=True).stdout
    except OSError:
        out = ""
    return " ".join(cc[1:]) + "|" + out.strip().splitlines()[0] if out.strip() else " ".join(cc)


# ---------------------------------------------------------------------------
# Build


def _key(*parts: bytes | str) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode() if isinstance(p, str) else p)
        h.update(b"\0")
    return h.hexdigest()[:16]


def _quickjs_objects(cc: list[str], src: Path, obj_dir: Path) -> list[Path]:
    """Compile QuickJS's C files for wasm32-wasi, reusing cached objects."""
    obj_dir.mkdir(parents=True, exist_ok=True)
    headers = b"".join((src / h).read_bytes() for h in sorted(os.listdir(src)) if h.endswith(".h"))
    cc_id = _compiler_id(cc)
    jobs = []
    for name in QUICKJS_SOURCES:
        key = _key(cc_id, " ".join(QUICKJS_CFLAGS), (src / name).read_bytes(), headers)
        obj = obj_dir / f"{name[:-2]}-{key}.o"
        jobs.append((name, obj))

    def compile_one(job: tuple[str, Path]) -> Path:
        name, obj = job
        if obj.is_file():
            return obj
        tmp = obj.with_suffix(".o.tmp")
        _run(cc + list(QUICKJS_CFLAGS) + ["-c", str(src / name), "-o", str(tmp)], f"compiling {name}")
        tmp.replace(obj)
        return obj

    todo = [j for j in jobs if not j[1].is_file()]
    if todo:
        log(f"compiling QuickJS-NG ({', '.join(n for n, _ in todo)}) for wasm32-wasi")
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1))) as pool:
        return list(pool.map(compile_one, jobs))


def _prelude_compiler(src: Path, native_dir: Path) -> Path:
    """Build compile_prelude for this machine (cached)."""
    cc = native_cc()
    files = [HERE / "compile_prelude.c"] + [src / n for n in QUICKJS_SOURCES]
    key = _key(_compiler_id(cc), *(f.read_bytes() for f in files), *((src / h).read_bytes() for h in sorted(os.listdir(src)) if h.endswith(".h")))
    exe = native_dir / f"compile_prelude-{key}"
    if exe.is_file():
        return exe
    native_dir.mkdir(parents=True, exist_ok=True)
    log("building the native prelude compiler")
    tmp = native_dir / f".compile_prelude-{key}.tmp"
    _run(cc + ["-O1", "-w", f"-I{src}", *map(str, files), "-o", str(tmp), "-lm", "-lpthread"], "building compile_prelude")
    tmp.replace(exe)
    return exe


def assemble_prelude() -> str:
    """prelude.js with each section_<name>.js put in as function section_<name>."""
    main = (HERE / PRELUDE_MAIN).read_text()
    if main.count(SECTIONS_MARKER) != 1:
        raise BuildError(f"{PRELUDE_MAIN} must hold the marker {SECTIONS_MARKER} once")
    parts = []
    for name in PRELUDE_SECTIONS:
        body = (HERE / "prelude" / f"section_{name}.js").read_text()
        parts.append(f"function section_{name}() {{\n{body}\n  }}\n")
    return main.replace(SECTIONS_MARKER, "\n  ".join(parts))


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


def build(out_wasm: Path, build_dir: Path) -> None:
    """Build the JavaScript guest module into out_wasm, using build_dir for
    downloads, caches and intermediate files. Raises BuildError."""
    out_wasm = Path(out_wasm).resolve()
    build_dir = Path(build_dir).resolve()
    if build_dir == HERE or HERE in build_dir.parents:
        raise BuildError(f"the build directory {build_dir} is inside the source tree ({HERE})")
    build_dir.mkdir(parents=True, exist_ok=True)

    src = quickjs_source(build_dir)
    cc = wasm_cc(build_dir)
    objects = _quickjs_objects(cc, src, build_dir / "obj")

    prelude = build_dir / "prelude.js"
    prelude.write_text(assemble_prelude())
    bytecode_c = build_dir / "prelude_bytecode.c"
    _run([str(_prelude_compiler(src, build_dir / "native")), str(prelude), str(bytecode_c)], "compiling the prelude")

    defines = [f"-DAMLA_JS_STACK={C_STACK_BYTES}", f"-DAMLA_JS_STACK_LIMIT={JS_STACK_LIMIT}"]
    tmp_out = build_dir / "amla_js.wasm.tmp"
    cmd = cc + list(DRIVER_CFLAGS) + defines + [f"-I{src}", f"-I{HERE}", f"-I{SHARED_INCLUDE}"]
    cmd += [str(HERE / f) for f in DRIVER_SOURCES] + [str(bytecode_c)] + [str(o) for o in objects]
    cmd += ["-mexec-model=reactor", f"-Wl,-z,stack-size={C_STACK_BYTES}", "-Wl,--strip-debug", "-o", str(tmp_out)]
    out = _run(cmd, "compiling and linking the guest")
    if out.strip():
        log(out.strip())
    _write_atomic(out_wasm, tmp_out.read_bytes())
    tmp_out.unlink()
    log(f"built {out_wasm} ({out_wasm.stat().st_size:,} bytes)")


def source_hash() -> str:
    """A hash of every input of the build that lives in this repository."""
    files = [HERE / "build.py", HERE / "amla.h", SHARED_INCLUDE / "amla_host.h", HERE / "compile_prelude.c", HERE / PRELUDE_MAIN]
    files += [HERE / f for f in DRIVER_SOURCES]
    files += [HERE / "prelude" / f"section_{n}.js" for n in PRELUDE_SECTIONS]
    return _key(*(f.name + "\0" + f.read_text() for f in files))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Build the QuickJS-NG JavaScript guest (wasm32-wasi reactor).")
    ap.add_argument("--out", type=Path, help="where to write the .wasm module")
    ap.add_argument("--build-dir", type=Path, help="directory for downloads, caches, intermediates")
    ap.add_argument("--print-source-hash", action="store_true", help="print the hash of the build's inputs and exit")
    args = ap.parse_args(argv)
    if args.print_source_hash:
        print(source_hash())
        return 0
    if args.out is None or args.build_dir is None:
        ap.error("--out and --build-dir are required")
    try:
        build(args.out, args.build_dir)
    except BuildError as e:
        print(f"jsguest: build failed: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
