"""Private: the Go core, built by gopy (see setup.py). Not public API.

The build puts three generated files beside this one: `_pycore<EXT_SUFFIX>`
(the extension), `pycore.py` and `go.py` (gopy's wrappers). When they are
missing, as in a fresh clone, importing fails with one ImportError that says
what to run, instead of Python's "partially initialized module" message.
"""

from __future__ import annotations

import os as _os
import sysconfig as _sysconfig
from pathlib import Path as _Path


def _missing_core_error() -> ImportError:
    here = _Path(__file__).resolve().parent
    suffix = _sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    built = sorted(p.name for p in here.glob("_pycore*") if p.suffix in (".so", ".pyd", ".dylib"))
    if built and not (here / f"_pycore{suffix}").is_file():
        what = (
            f"amla_sandbox's compiled core in {here} was built for another Python "
            f"({', '.join(built)}; this interpreter needs _pycore{suffix})."
        )
    else:
        what = f"amla_sandbox's compiled core is missing from {here} (not built)."
    return ImportError(
        f"{what} In a source checkout, build it with `python setup.py build_go --inplace` "
        "(or `pip install -e .`). If you installed amla-sandbox with pip and see this while "
        "running from a checkout, the checkout's amla_sandbox/ is shadowing the installed "
        "package: run from another directory."
    )


_here = _Path(__file__).resolve().parent
_ext = f"_pycore{_sysconfig.get_config_var('EXT_SUFFIX') or '.so'}"
if not all((_here / name).is_file() for name in ("pycore.py", "go.py", _ext)):
    raise _missing_core_error()

_cwd = _os.getcwd()
try:
    from . import pycore  # noqa: F401,E402  (gopy's wrapper changes the cwd while importing)
finally:
    _os.chdir(_cwd)
