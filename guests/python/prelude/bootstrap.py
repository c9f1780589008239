"""The archive importer: how the guest imports the standard library.

driver.c runs this code (marshalled into the archive's header by
mkarchive.py) between CPython's two initialisation phases, when only
builtin and frozen modules can be imported. It reads the index of the
archive embedded in the module's memory (stdlib.c) and puts an importer for
it on sys.meta_path, so the main phase finds the codecs, io and everything
else there, without touching a file.

An entry's code is marshalled once at build time and unmarshalled straight
from memory on import. Modules report a location under /usr/lib/python3.13
(their __file__), where no file exists: tracebacks name familiar paths and
show no stdlib source.
"""

import sys
import marshal
import _amla

_bootstrap = sys.modules["_frozen_importlib"]

LIB = "/usr/lib/python3.13"


class ArchiveImporter:
    """Finds and loads modules from the embedded archive (a meta path finder
    and the loader of what it finds)."""

    def __init__(self, view, index):
        self._view = view
        # name -> (offset, length, is_package)
        self._index = index

    def find_spec(self, fullname, path=None, target=None):
        entry = self._index.get(fullname)
        if entry is None:
            return None
        is_pkg = entry[2]
        origin = self.get_filename(fullname)
        spec = _bootstrap.ModuleSpec(fullname, self, origin=origin, is_package=is_pkg)
        spec.has_location = True
        if is_pkg:
            spec.submodule_search_locations = [origin.rpartition("/")[0]]
        return spec

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        exec(self.get_code(module.__spec__.name), module.__dict__)

    def get_code(self, fullname):
        entry = self._index.get(fullname)
        if entry is None:
            raise ImportError(f"no module named {fullname!r} in the archive", name=fullname)
        offset, length, _ = entry
        return marshal.loads(self._view[offset : offset + length])

    def get_source(self, fullname):
        return None

    def is_package(self, fullname):
        entry = self._index.get(fullname)
        if entry is None:
            raise ImportError(f"no module named {fullname!r} in the archive", name=fullname)
        return entry[2]

    def get_filename(self, fullname):
        entry = self._index.get(fullname)
        if entry is None:
            raise ImportError(f"no module named {fullname!r} in the archive", name=fullname)
        path = LIB + "/" + fullname.replace(".", "/")
        return path + "/__init__.py" if entry[2] else path + ".py"

    def names(self):
        """Every module name in the archive."""
        return list(self._index)


def _u32(view, at):
    return int.from_bytes(view[at : at + 4], "little")


def install():
    view = _amla.archive()
    index_off, index_len = _u32(view, 20), _u32(view, 24)
    importer = ArchiveImporter(view, marshal.loads(view[index_off : index_off + index_len]))
    sys.meta_path.append(importer)
    return importer


install()
