"""Write the Python guest's module archive (run by the build's native CPython,
the same version as the guest, so the marshalled code fits its interpreter).

    python3.13 mkarchive.py OUT LIBDIR PRELUDE_DIR [EXTRA.py ...]

The archive is what stdlib.c embeds and prelude/bootstrap.py reads:

    offset  0  b"AMLAPYAR"
            8  u32 format version (1)
           12  u32 offset of the bootstrap code, 16 its length
           20  u32 offset of the index, 24 its length
           28  the marshalled code objects, one after another

(integers little-endian). The index is a marshalled dict: module name ->
(offset, length, is_package). Everything is compiled from LIBDIR (CPython's
Lib/, less the parts listed in SKIP), PRELUDE_DIR's package _amla_guest,
and each EXTRA file as a top-level module. Names are written in sorted
order, so the same inputs give the same bytes.
"""

from __future__ import annotations

import marshal
import os
import sys

MAGIC = b"AMLAPYAR"
VERSION = 1
HEADER = 28
LIB = "/usr/lib/python3.13"

# Parts of the standard library left out: tests, the GUI and the REPL, and
# what cannot work without native code loading (ctypes: the prelude refuses
# it with a message) or a terminal.
SKIP = {
    "test",
    "idlelib",
    "tkinter",
    "turtledemo",
    "turtle",
    "ensurepip",
    "venv",
    "pydoc_data",
    "__phello__",
    "ctypes",
    "curses",
    "_pyrepl",
    "lib2to3",
    "site-packages",
}


def _is_skipped(rel_parts: list[str]) -> bool:
    first = rel_parts[0]
    if first.endswith(".py"):
        first = first[:-3]
    if first in SKIP:
        return True
    return any(p in ("tests", "test", "idle_test", "__pycache__") for p in rel_parts[:-1])


def collect(root: str, prefix: str = "") -> dict[str, tuple[str, bool]]:
    """Module name -> (source path, is_package) for every .py under root."""
    found: dict[str, tuple[str, bool]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        rel = os.path.relpath(dirpath, root)
        parts = [] if rel == "." else rel.split(os.sep)
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            rel_parts = parts + [name]
            if not prefix and _is_skipped(rel_parts):
                continue
            if any(not p.isidentifier() for p in parts):
                continue
            stem = name[:-3]
            if stem == "__init__":
                if not parts:
                    continue
                found[prefix + ".".join(parts)] = (os.path.join(dirpath, name), True)
            elif stem.isidentifier():
                found[prefix + ".".join(parts + [stem])] = (os.path.join(dirpath, name), False)
    return found


def compile_module(name: str, path: str, is_pkg: bool) -> bytes:
    with open(path, "rb") as f:
        source = f.read()
    origin = LIB + "/" + name.replace(".", "/") + ("/__init__.py" if is_pkg else ".py")
    code = compile(source, origin, "exec", dont_inherit=True, optimize=0)
    return marshal.dumps(code)


def main(argv: list[str]) -> int:
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    out, libdir, prelude = argv[1], argv[2], argv[3]
    modules = collect(libdir)
    guest = collect(os.path.join(prelude, "_amla_guest"), "_amla_guest.")
    modules.update(guest)
    modules["_amla_guest"] = (os.path.join(prelude, "_amla_guest", "__init__.py"), True)
    for extra in argv[4:]:
        modules[os.path.basename(extra)[:-3]] = (extra, False)

    with open(os.path.join(prelude, "bootstrap.py"), "rb") as f:
        boot = marshal.dumps(compile(f.read(), LIB + "/_amla_bootstrap.py", "exec", dont_inherit=True))

    body = bytearray(boot)
    index: dict[str, tuple[int, int, bool]] = {}
    for name in sorted(modules):
        path, is_pkg = modules[name]
        data = compile_module(name, path, is_pkg)
        index[name] = (HEADER + len(body), len(data), is_pkg)
        body += data
    index_data = marshal.dumps(index)
    index_off = HEADER + len(body)
    header = MAGIC + b"".join(
        n.to_bytes(4, "little") for n in (VERSION, HEADER, len(boot), index_off, len(index_data))
    )
    assert len(header) == HEADER
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(header + bytes(body) + index_data)
    os.replace(tmp, out)
    print(f"mkarchive: {len(index)} modules, {len(header) + len(body) + len(index_data):,} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
