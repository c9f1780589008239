#!/usr/bin/env python3
"""Build a native CPython from the Python guest's own pinned sources, for compare.py's
``py_loop_same`` row (the 1M loop against native CPython of the guest's version).

    python bench/native_cpython.py            # CPython's default flags (-O3), as the guest gets
    python bench/native_cpython.py --pgo      # --enable-optimizations --with-lto, as distributions ship it

The interpreter lands in ``build/bench-native-cpython-<variant>/python`` of this checkout and the
script prints its path. The build uses the sha256-checked archive the guest build uses
(``AMLA_PYTHON_GUEST_SOURCES`` names a local directory holding it, as for the guest) and the
machine's C compiler. A default build takes about 4 minutes on 2 cores, a PGO build about 15.

The guest build makes a native CPython of its own, but at ``-O1``: it only runs the build's
tools, and timing against it would make the guest look about 30% closer to native than it is.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "guests" / "python"))

import build as pyguest  # noqa: E402  (guests/python/build.py)

VARIANTS = {
    "default": (),
    "pgo": ("--enable-optimizations", "--with-lto"),
}


def target(variant: str) -> Path:
    """Where the interpreter of variant is (built or not)."""
    return ROOT / "build" / f"bench-native-cpython-{variant}" / "python"


def compiler(variant: str) -> str:
    """The C compiler. CPython's configure turns PGO and LTO on only for a compiler it knows
    by name (gcc or clang; plain `cc` gets neither, silently)."""
    if variant == "default":
        return pyguest.native_cc()
    for name in ("gcc", "clang"):
        if shutil.which(name):
            return name
    raise pyguest.BuildError("a PGO build needs gcc or clang on PATH")


def build(variant: str) -> Path:
    exe = target(variant)
    d = exe.parent
    if (d / ".done").is_file() and exe.is_file():
        return exe
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    src = pyguest._unpack(pyguest.fetch(pyguest.CPYTHON), ROOT / "build" / "pyguest" / "src-cpython",
                          f"Python-{pyguest.CPYTHON_VERSION}")
    env = dict(os.environ, CC=compiler(variant))
    pyguest.log(f"configuring CPython {pyguest.CPYTHON_VERSION} ({variant}) in {d}")
    pyguest._run([str(src / "configure"), "--without-ensurepip", *VARIANTS[variant]], "configuring", cwd=d, env=env,
                 log_file=d / "configure.log")
    pyguest.log("building (default: about 4 minutes on 2 cores; pgo: about 15)")
    # Plain `make`: with --enable-optimizations its default target is the PGO build (instrument,
    # run the training set, rebuild), which `make python` would skip.
    pyguest._run(["make", "-j", pyguest._jobs()], "building", cwd=d, env=env, log_file=d / "make.log")
    (d / ".done").write_text("")
    return exe


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pgo", action="store_true", help="build with profile-guided optimisation and LTO")
    args = ap.parse_args()
    try:
        exe = build("pgo" if args.pgo else "default")
    except pyguest.BuildError as e:
        print(f"native_cpython: {e}", file=sys.stderr)
        return 1
    version = subprocess.run([str(exe), "-c", "import platform; print(platform.python_version())"],
                             capture_output=True, text=True, check=True).stdout.strip()
    print(f"{exe} (CPython {version})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
