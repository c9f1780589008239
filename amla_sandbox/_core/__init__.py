"""Private: the Go core, built by gopy (see setup.py). Not public API."""

import os as _os

_cwd = _os.getcwd()
try:
    from . import pycore  # noqa: F401  (gopy's wrapper changes the cwd while importing)
finally:
    _os.chdir(_cwd)
