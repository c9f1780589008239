"""Making the set-up's objects immortal before the snapshot.

Every Python object has a reference count in its header, and CPython
writes it whenever a reference is taken or dropped: calling a function,
reading a global, looking up a method. A run that merely used what set-up
built (the prelude, json, re, the types and their methods) would write to
hundreds of the snapshot's pages, and each written page is copied: on a
fresh instance by a page fault, on a reused one back from the image after
the run, and it stays resident per sandbox. CPython's immortal objects
(None, small ints, interned strings, static types) are never counted;
making every object that exists at the end of set-up immortal extends that
to everything the snapshot holds. Such objects are never freed, which is
what a snapshot's objects are anyway: each run starts from the snapshot
and is thrown away.
"""

from __future__ import annotations

import gc
import types

import _amla


def everything() -> None:
    """Makes every object reachable from the collector's objects immortal."""
    found: dict[int, object] = {}
    todo = gc.get_objects()
    skip = {id(found), id(todo)}
    while todo:
        o = todo.pop()
        i = id(o)
        if i in found or i in skip:
            continue
        found[i] = o
        todo.extend(gc.get_referents(o))
        if type(o) is types.CodeType:
            # Code objects are not traversed by the collector.
            todo.extend((o.co_consts, o.co_names, o.co_varnames, o.co_freevars, o.co_cellvars, o.co_filename,
                         o.co_name, o.co_qualname, o.co_code, o.co_linetable, o.co_exceptiontable))
    values = list(found.values())
    found.clear()
    del todo
    _amla.immortalize(values)
