"""The on-disk cache of compiled guest modules (internal).

Compiling a guest takes seconds to tens of seconds; loading the compiled
artifact takes about a millisecond. The first sandbox after an install
compiles each guest it needs once per machine and says so on stderr; later
sandboxes, in this process or any other, load the artifact.

Python only chooses the directory and tells the user what is happening. The
Go core computes the cache key (the guest's SHA-256 and the engine record of
the linked wasmtime), compiles each artifact once even when several
processes start together, and prunes the cache: artifacts this installation
does not use go once unused for an hour, and the least recently used go
while the cache is over its size cap (1 GiB by default).

Environment: `AMLA_CACHE_DIR` overrides the directory (default
`$XDG_CACHE_HOME/amla-sandbox`, `~/.cache/amla-sandbox`, or
`%LOCALAPPDATA%\\amla-sandbox` on Windows); `AMLA_CACHE_MAX_BYTES` the cap.
"""

from __future__ import annotations

import builtins
import os
import sys
from pathlib import Path
from typing import Any

from .. import _wasm
from ..errors import RuntimeError as SandboxRuntimeError

__all__ = [
    "get_cache_dir",
    "get_precompiled_path",
    "default_wasm_path",
    "precompile_module",
    "cache_path_for",
    "sandbox_cache_config",
    "prune_cache",
    "wasmtime_version",
    "resolve_wasm",
    "shipped_dir",
]

# Seconds of compiling per MB of guest, the range docs/install.md ("The
# module cache") gives. Only used to tell the user what to expect.
_COMPILE_S_PER_MB = (0.7, 1.8)


def _go() -> Any:
    """The door to the Go core, loaded on first use."""
    from .. import _core

    return _core


def get_cache_dir() -> Path:
    """Where compiled guest modules are cached (created on access)."""
    override = os.environ.get("AMLA_CACHE_DIR")
    if override:
        path = Path(override)
    elif sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA")
        path = (Path(base) if base else Path.home() / "AppData" / "Local") / "amla-sandbox"
    else:
        base = os.environ.get("XDG_CACHE_HOME")
        path = (Path(base) if base else Path.home() / ".cache") / "amla-sandbox"
    path.mkdir(parents=True, exist_ok=True)
    return path


def default_wasm_path() -> Path:
    """The bundled guest, or `$AMLA_WASM_PATH`."""
    return _wasm.get_wasm_path()


def get_precompiled_path(wasm_path: Path | str) -> Path:
    """The cache file for a guest: `<cache dir>/guest-<sha256[:16]>-wt<wasmtime>-<os>-<arch>-<engine>.cwasm`."""
    name: str = _go().cache_file_name(str(wasm_path))
    return get_cache_dir() / name


def wasmtime_version() -> str:
    """The version of the linked wasmtime, as the library reports it."""
    return str(_go().wasmtime_library_version())


def resolve_wasm(wasm_path: Path | str | None) -> Path:
    """The guest to use: `wasm_path`, else the bundled one (or `$AMLA_WASM_PATH`)."""
    if wasm_path is not None:
        path = Path(wasm_path)
        # Only whether it exists: the core says what is wrong with a path
        # that is not a WebAssembly module (a directory, a text file).
        if not path.exists():
            raise SandboxRuntimeError(
                f"WASM file not found: {path}. Build the guest with `pip install .` "
                "(or `python setup.py build_go --inplace` in a checkout)."
            )
        return path
    path = default_wasm_path()
    if not path.is_file():
        raise FileNotFoundError(f"WASM runtime not found at {path}. Reinstall amla-sandbox or set AMLA_WASM_PATH.")
    return path


def _keep_paths(cache_dir: Path, extra: Path | None = None) -> list[str]:
    """Artifacts this installation uses: one per bundled guest (and `extra`)."""
    guests = list(_wasm.bundled_guests())
    if extra is not None:
        guests.append(extra)
    keep = []
    for guest in guests:
        try:
            keep.append(str(cache_dir / _go().cache_file_name(str(guest))))
        except SandboxRuntimeError:
            continue  # unreadable guest: nothing of it to keep
    return keep


def prune_cache(cache_dir: Path | None = None, max_bytes: int | None = None) -> list[str]:
    """Remove stale artifacts; return the names removed."""
    cache_dir = cache_dir or get_cache_dir()
    if max_bytes is None:
        max_bytes = int(os.environ.get("AMLA_CACHE_MAX_BYTES", "0") or 0)
    report = _go().cache_prune(str(cache_dir), _keep_paths(cache_dir), max_bytes, -1.0)
    return list(report["removed"])


def _announce(wasm: Path, cache_dir: Path) -> None:
    mb = wasm.stat().st_size / 1e6
    lo, hi = (max(1, int(mb * r + 0.5)) for r in _COMPILE_S_PER_MB)  # as gocore/host compileNote
    print(
        f"amla-sandbox: compiling the {wasm.name} guest for this machine, once per install "
        f"(usually {lo}-{hi} s; cached in {cache_dir})",
        file=sys.stderr,
        flush=True,
    )


def shipped_dir() -> Path:
    """Where a wheel keeps artifacts compiled at build time for the
    platform's baseline CPU (see setup.py and host.PrecompilePortable)."""
    return Path(_wasm.__file__).resolve().parent / "precompiled"


def sandbox_cache_config() -> dict[str, Any]:
    """What a new sandbox's config says about the cache (the core resolves
    each guest's artifact from it, seeding it from the shipped ones): the
    directory ("" when none can be used), the shipped artifacts, and the
    guests whose artifacts the first prune of the process keeps."""
    try:
        cache_dir = str(get_cache_dir())
    except OSError:
        cache_dir = ""
    return {
        "cache_dir": cache_dir,
        "shipped_dir": str(shipped_dir()),
        "keep_wasm": [str(g) for g in _wasm.bundled_guests()],
    }


def cache_path_for(wasm: Path, compile: bool = True) -> str:
    """The artifact for `wasm`: from the cache, else the one the wheel
    ships, else (with `compile`) compiled into the cache now with a
    one-line note on stderr. With `compile=False` the path is returned
    for the engine to fill when it first needs the guest. "" when no cache
    can be used: the sandbox then compiles in memory, and the engine
    reports any error in the guest itself."""
    try:
        cache_dir = get_cache_dir()
        found = _go().cache_resolve(
            str(cache_dir), str(shipped_dir()), str(wasm), [str(g) for g in _wasm.bundled_guests()]
        )
    except (OSError, ValueError, builtins.RuntimeError, SandboxRuntimeError):
        return ""
    if found["present"] or not compile:
        return str(found["path"])
    _announce(wasm, cache_dir)
    try:
        entry = _go().cache_ensure(str(cache_dir), str(wasm))
    except (builtins.RuntimeError, SandboxRuntimeError):
        return ""
    return str(entry["path"])


def precompile_module(wasm_path: Path | str | None = None) -> Path:
    """Compile a guest (default: the bundled one) into the cache, replacing
    any artifact there, prune stale ones, and return the artifact's path."""
    wasm = resolve_wasm(wasm_path)
    target = get_precompiled_path(wasm)
    _go().precompile(str(wasm), str(target))
    if not target.is_file():
        raise SandboxRuntimeError(f"compiled {wasm} but could not write {target}")
    try:
        prune_cache(target.parent)
    except (OSError, SandboxRuntimeError):
        pass
    return target
