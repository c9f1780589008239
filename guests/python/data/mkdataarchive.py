"""Write the data guest's module archive (run by the build's native CPython).

    python3.13 mkdataarchive.py OUT LIBDIR PRELUDE_DIR SITE_DIR DATA_DIR [EXTRA.py ...]

The archive of ../mkarchive.py (same format, same bootstrap), holding also
every Python module under SITE_DIR (numpy, pandas, dateutil, six, tzdata;
their tests left out), DATA_DIR's package _amla_data, and _amla_tzdata: the
IANA time-zone files of the tzdata package as one dict of bytes, which
_amla_data hands to zoneinfo (the archive holds code, not data files).
"""

from __future__ import annotations

import marshal
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import mkarchive  # noqa: E402  (guests/python/mkarchive.py)


def tz_module(site: str, out: str) -> str:
    """Writes _amla_tzdata.py (zone name -> TZif bytes) beside out."""
    root = os.path.join(site, "tzdata", "zoneinfo")
    zones = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith((".py", ".pyc", ".tab", ".zi")) or name in ("tzdata.zi",):
                continue
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                data = f.read()
            if data[:4] == b"TZif":
                zones[os.path.relpath(path, root).replace(os.sep, "/")] = data
    if not zones:
        raise SystemExit(f"mkdataarchive: no time-zone files under {root}")
    src = os.path.join(os.path.dirname(out), "_amla_tzdata.py")
    with open(src, "w") as f:
        f.write('"""The IANA time-zone database of the tzdata package (guests/python/data/mkdataarchive.py)."""\n\n')
        f.write("ZONES = {\n")
        for k in sorted(zones):
            f.write(f"    {k!r}: {zones[k]!r},\n")
        f.write("}\n")
    return src


def main(argv: list[str]) -> int:
    if len(argv) < 6:
        print(__doc__, file=sys.stderr)
        return 2
    out, libdir, prelude, site, data = argv[1:6]
    modules = mkarchive.collect(libdir)
    modules.update(mkarchive.collect(os.path.join(prelude, "_amla_guest"), "_amla_guest."))
    modules["_amla_guest"] = (os.path.join(prelude, "_amla_guest", "__init__.py"), True)
    for name, entry in mkarchive.collect(site).items():
        if name in modules:
            raise SystemExit(f"mkdataarchive: {name} is both in the standard library and in {site}")
        modules[name] = entry
    modules.update(mkarchive.collect(os.path.join(data, "_amla_data"), "_amla_data."))
    modules["_amla_data"] = (os.path.join(data, "_amla_data", "__init__.py"), True)
    modules["_amla_tzdata"] = (tz_module(site, out), False)
    for extra in argv[6:]:
        modules[os.path.basename(extra)[:-3]] = (extra, False)

    with open(os.path.join(prelude, "bootstrap.py"), "rb") as f:
        boot = marshal.dumps(compile(f.read(), mkarchive.LIB + "/_amla_bootstrap.py", "exec", dont_inherit=True))
    body = bytearray(boot)
    index: dict[str, tuple[int, int, bool]] = {}
    for name in sorted(modules):
        path, is_pkg = modules[name]
        code = mkarchive.compile_module(name, path, is_pkg)
        index[name] = (mkarchive.HEADER + len(body), len(code), is_pkg)
        body += code
    index_data = marshal.dumps(index)
    index_off = mkarchive.HEADER + len(body)
    header = mkarchive.MAGIC + b"".join(
        n.to_bytes(4, "little") for n in (mkarchive.VERSION, mkarchive.HEADER, len(boot), index_off, len(index_data))
    )
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(header + bytes(body) + index_data)
    os.replace(tmp, out)
    print(f"mkdataarchive: {len(index)} modules, {len(header) + len(body) + len(index_data):,} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
