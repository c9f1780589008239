"""Private: the one door between Python and the Go core. Not public API.

The Go package `gocore/pycore`, built by gopy into the extension
`_pycore<EXT_SUFFIX>` beside this file, is imported here and nowhere else.
Every function Python calls in Go has a typed wrapper below (the extension's
own signatures are in `_pycore.pyi`), and every error Go reports becomes the
project's exception in one place, `_raise`:

    Go reports errors as JSON text {"kind", "message"}: as the status string
    an export returns ("" = success), or as the text of the RuntimeError gopy
    raises for an export that returns (value, error). No export returns a
    bare error: gopy v0.4.10 leaks the C string of those on every call.

Importing this module loads the extension (and starts Go's runtime), so the
rest of the package imports it only when it first calls Go. A process forked
after that cannot use Go (the child has none of the parent's Go threads):
after a fork every wrapper raises `amla_sandbox.RuntimeError` saying so,
instead of entering Go, where the child would hang or crash.

When the extension is missing, as in a fresh clone, importing fails with one
ImportError that says what to run.
"""

from __future__ import annotations

import builtins
import errno
import json
import os
import sysconfig
from typing import Any, NoReturn

from ..errors import RuntimeError as SandboxError
from ..errors import StaleRunError


def _missing_core_error() -> ImportError:
    here = os.path.dirname(os.path.abspath(__file__))
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    built = sorted(
        name for name in os.listdir(here) if name.startswith("_pycore") and name.endswith((".so", ".pyd", ".dylib"))
    )
    if built and not os.path.isfile(os.path.join(here, f"_pycore{suffix}")):
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


_ext = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"_pycore{sysconfig.get_config_var('EXT_SUFFIX') or '.so'}")
if not os.path.isfile(_ext):
    raise _missing_core_error()

from . import _pycore  # noqa: E402

_loaded_in = os.getpid()


def _forked() -> None:
    """In a child forked after the extension was loaded: make every entry
    into Go raise instead (the wrappers look each one up at every call)."""
    parent, child = _loaded_in, os.getpid()

    def refuse(*_args: object) -> NoReturn:
        raise SandboxError(
            f"amla_sandbox cannot be used in this process (pid {child}): it was forked from process "
            f"{parent} after that process loaded amla_sandbox's Go core, whose threads and open files "
            "stay with the parent. Create sandboxes in a process started fresh (multiprocessing's "
            "'spawn' or 'forkserver' start method), or fork before the first sandbox is made."
        )

    for name in dir(_pycore):
        if not name.startswith("__"):
            setattr(_pycore, name, refuse)


if hasattr(os, "register_at_fork"):  # POSIX; Windows has no fork
    os.register_at_fork(after_in_child=_forked)


# -- errors -----------------------------------------------------------------------------------------


def _raise(text: str) -> NoReturn:
    """Raise the project's exception for a Go error (JSON {"kind", "message"})."""
    try:
        err = json.loads(text)
        kind, message = str(err["kind"]), str(err["message"])
    except (ValueError, TypeError, KeyError):
        kind, message = "internal", text
    if kind == "closed":
        # The documented text and type of using a closed sandbox.
        raise builtins.RuntimeError(message) from None
    if kind == "invalid":
        raise ValueError(message) from None
    if kind == "overflow":
        raise OverflowError(message) from None
    if kind in _FILE_ERRORS:
        exc, code = _FILE_ERRORS[kind]
        raise exc(code, message) from None
    if kind == "stale_run":
        raise StaleRunError(message) from None
    # "runtime", "no_run", "internal" (a Go panic) and anything newer.
    raise SandboxError(message) from None


# The file API's error kinds (gocore/host/files.go) and the OSError each is.
_FILE_ERRORS: dict[str, tuple[type[OSError], int]] = {
    "not_found": (FileNotFoundError, errno.ENOENT),
    "is_dir": (IsADirectoryError, errno.EISDIR),
    "not_dir": (NotADirectoryError, errno.ENOTDIR),
    "denied": (PermissionError, errno.EACCES),
    "no_space": (OSError, errno.ENOSPC),
    "not_empty": (OSError, errno.ENOTEMPTY),
}


def _check(status: str) -> None:
    if status:
        _raise(status)


# -- sandboxes and runs -----------------------------------------------------------------------------


def sandbox_new(config: dict[str, Any]) -> int:
    """Make a sandbox (see gocore/pycore: sandboxConfig) and return its handle."""
    try:
        return int(_pycore.pycore_SandboxNew(json.dumps(config)))
    except builtins.RuntimeError as e:
        _raise(str(e))


def sandbox_close(handle: int) -> None:
    """End any run and remove the sandbox's directory (closing twice is fine)."""
    _check(_pycore.pycore_SandboxClose(handle))


def sandbox_start(handle: int, language: str, code: str, stdin: str, has_stdin: bool, stream: bool) -> int:
    """Begin a run; return its id, which every other run call takes."""
    try:
        return int(_pycore.pycore_SandboxStart(handle, language, code, stdin, has_stdin, stream))
    except builtins.RuntimeError as e:
        _raise(str(e))


def sandbox_step(handle: int, run: int, timeout_ms: int, take: bool) -> dict[str, Any]:
    """The run's next event (gocore/wire Event), waiting at most timeout_ms
    without the GIL. Raises StaleRunError for a run a later start replaced."""
    try:
        out = _pycore.pycore_SandboxStep(handle, run, timeout_ms, take)
    except builtins.RuntimeError as e:
        _raise(str(e))
    event: dict[str, Any] = json.loads(out)
    return event


def sandbox_take_output(handle: int, run: int, stream: str) -> str:
    """The finished run's stdout or stderr, once, when its done event said
    output_apart. It crosses as bytes (it may hold NULs, which a C string
    cannot); Go made it valid UTF-8, and "replace" keeps that promise here
    too: output never raises UnicodeDecodeError."""
    try:
        slice_handle = int(_pycore.pycore_SandboxTakeOutput(handle, run, stream))
    except builtins.RuntimeError as e:
        _raise(str(e))
    # gopy's Slice_byte_to_bytes fails on an empty slice: ask its length first.
    _pycore.IncRef(slice_handle)
    try:
        data = bytes(_pycore.Slice_byte_to_bytes(slice_handle)) if _pycore.Slice_byte_len(slice_handle) else b""
    finally:
        _pycore.DecRef(slice_handle)
    return data.decode("utf-8", errors="replace")


def sandbox_last_handed(handle: int, run: int) -> int:
    """The id of the request the run's last step handed out (0: none)."""
    try:
        return int(_pycore.pycore_SandboxLastHanded(handle, run))
    except builtins.RuntimeError as e:
        _raise(str(e))


def sandbox_resume(handle: int, run: int, request: int, result_json: str) -> None:
    """Answer a request with JSON text. Text Python cannot pass to C (a lone
    surrogate, a NUL) raises UnicodeError / ValueError before Go is called."""
    _check(_pycore.pycore_SandboxResume(handle, run, request, result_json))


def sandbox_resume_error(handle: int, run: int, request: int, code: str, message: str) -> None:
    """Answer a request with an error the script sees (code: a gocore/wire Code*)."""
    _check(_pycore.pycore_SandboxResumeError(handle, run, request, code, message))


def sandbox_reset(handle: int) -> None:
    """Discard the interpreter state a keep_state sandbox kept (docs/sessions.md)."""
    _check(_pycore.pycore_SandboxReset(handle))


def sandbox_cancel(handle: int, run: int) -> None:
    """Stop the run; returns at once (the run ends within milliseconds)."""
    _check(_pycore.pycore_SandboxCancel(handle, run))


def sandbox_result(handle: int, run: int) -> dict[str, Any]:
    """Wait for the run to end and return its result (gocore/wire Result)."""
    try:
        result: dict[str, Any] = json.loads(_pycore.pycore_SandboxResult(handle, run))
    except builtins.RuntimeError as e:
        _raise(str(e))
    return result


def sandbox_check_call(handle: int, method: str, params_json: str) -> str:
    """"" when the sandbox's policy allows the call now, else why not (spends no budget)."""
    return str(_pycore.pycore_SandboxCheckCall(handle, method, params_json))


def sandbox_set_capabilities(handle: int, capabilities_json: str) -> None:
    """Replace the capability list; budgets are kept."""
    _check(_pycore.pycore_SandboxSetCapabilities(handle, capabilities_json))


def sandbox_remaining(handle: int, key: str) -> int:
    """Calls left for a budget key, or -1 (no such budget, or the sandbox is closed)."""
    return int(_pycore.pycore_SandboxRemaining(handle, key))


def sandbox_counts(handle: int) -> dict[str, int]:
    """The budget table {key: calls left}, in capability-list order."""
    counts: dict[str, int] = json.loads(_pycore.pycore_SandboxCounts(handle))
    return counts


# -- durable sessions (docs/durable.md) -------------------------------------------------------------
#
# Snapshots and journals cross as gopy byte-slice handles: registered with a
# count of 0, so each is IncRef'd once and DecRef'd once, which frees it.


def _to_go(data: bytes) -> int:
    handle = int(_pycore.Slice_byte_from_bytes(bytes(data)))
    _pycore.IncRef(handle)
    return handle


def _from_go(handle: int) -> bytes:
    _pycore.IncRef(handle)
    try:
        return bytes(_pycore.Slice_byte_to_bytes(handle))
    finally:
        _pycore.DecRef(handle)


def _with_bytes(data: bytes, call: Any) -> Any:
    handle = _to_go(data)
    try:
        return call(handle)
    finally:
        _pycore.DecRef(handle)


def sandbox_snapshot(handle: int, compress: bool) -> bytes:
    """The sandbox's files and budgets in the snapshot format."""
    try:
        return _from_go(_pycore.pycore_SandboxSnapshot(handle, compress))
    except builtins.RuntimeError as e:
        _raise(str(e))


def sandbox_set_capabilities_budgeted(handle: int, caps_json: str) -> None:
    """Replace the capability list, giving new limited patterns their budgets."""
    _check(_pycore.pycore_SandboxSetCapabilitiesBudgeted(handle, caps_json))


def sandbox_set_tools(handle: int, tools_json: str) -> None:
    """Replace the sandbox's tools (JSON list, as tools_json); capabilities stay."""
    _check(_pycore.pycore_SandboxSetTools(handle, tools_json))


# -- the file API (files.go) ------------------------------------------------------------------------


def sandbox_read_file(handle: int, path: str) -> bytes:
    """The contents of the sandbox file at path."""
    try:
        slice_handle = _pycore.pycore_SandboxReadFile(handle, path)
    except builtins.RuntimeError as e:
        _raise(str(e))
    _pycore.IncRef(slice_handle)
    try:
        # Slice_byte_to_bytes fails on an empty slice: ask its length first.
        return bytes(_pycore.Slice_byte_to_bytes(slice_handle)) if _pycore.Slice_byte_len(slice_handle) else b""
    finally:
        _pycore.DecRef(slice_handle)


def sandbox_write_file(handle: int, path: str, data: bytes) -> None:
    """Make the sandbox file at path hold data."""
    _check(_with_bytes(data, lambda h: _pycore.pycore_SandboxWriteFile(handle, path, h)))


def sandbox_upload(handle: int, local: str, path: str) -> None:
    """Copy the host file local to the sandbox file at path."""
    _check(_pycore.pycore_SandboxUpload(handle, local, path))


def sandbox_download(handle: int, path: str, local: str) -> None:
    """Copy the sandbox file at path to the host file local."""
    _check(_pycore.pycore_SandboxDownload(handle, path, local))


def sandbox_remove_file(handle: int, path: str, recursive: bool) -> None:
    """Remove the sandbox file or directory at path."""
    _check(_pycore.pycore_SandboxRemoveFile(handle, path, recursive))


def sandbox_list_dir(handle: int, path: str) -> list[dict[str, Any]]:
    """The entries of the sandbox directory at path: {name | name_hex, type, size}."""
    try:
        return list(json.loads(_pycore.pycore_SandboxListDir(handle, path)))
    except builtins.RuntimeError as e:
        _raise(str(e))


def sandbox_restore(handle: int, data: bytes) -> None:
    """Replace the sandbox's files with a snapshot's (ValueError for a bad one)."""
    _check(_with_bytes(data, lambda h: _pycore.pycore_SandboxRestore(handle, h)))


def sandbox_copy_files(src: int, dst: int) -> None:
    """Make dst's files and budgets a copy of src's (fork)."""
    _check(_pycore.pycore_SandboxCopyFiles(src, dst))


def sandbox_start_durable(handle: int, options: dict[str, Any], journal: bytes) -> int:
    """Begin a journaled, replayed or approving run; return its id."""
    try:
        return int(_with_bytes(journal, lambda h: _pycore.pycore_SandboxStartDurable(handle, json.dumps(options), h)))
    except builtins.RuntimeError as e:
        _raise(str(e))


def sandbox_approve(handle: int, run: int, request: int, approve: bool) -> None:
    """Answer an approval request of the run."""
    _check(_pycore.pycore_SandboxApprove(handle, run, request, approve))


def sandbox_journal(handle: int, run: int) -> bytes:
    """The finished run's journal (a paused run's token)."""
    try:
        return _from_go(_pycore.pycore_SandboxJournal(handle, run))
    except builtins.RuntimeError as e:
        _raise(str(e))


def sandbox_durable_outcome(handle: int, run: int) -> dict[str, Any]:
    """{"divergence": ... | None, "paused": ... | None} of the finished run."""
    try:
        outcome: dict[str, Any] = json.loads(_pycore.pycore_SandboxDurableOutcome(handle, run))
    except builtins.RuntimeError as e:
        _raise(str(e))
    return outcome


def journal_info(journal: bytes, key: bytes) -> dict[str, Any]:
    """What a journal made under `key` says of its run (ValueError for a
    bad, foreign or edited one)."""
    try:
        info: dict[str, Any] = json.loads(
            _with_bytes(journal, lambda h: _with_bytes(key, lambda k: _pycore.pycore_JournalInfo(h, k)))
        )
    except builtins.RuntimeError as e:
        _raise(str(e))
    return info


def sandbox_set_durable_key(handle: int, key: bytes) -> None:
    """Set the key the sandbox's snapshots, journals and tokens are authenticated with."""
    _check(_with_bytes(key, lambda k: _pycore.pycore_SandboxSetDurableKey(handle, k)))


def sandbox_restore_journal_start(handle: int, journal: bytes) -> None:
    """Restore the start snapshot a journal holds."""
    _check(_with_bytes(journal, lambda h: _pycore.pycore_SandboxRestoreJournalStart(handle, h)))


# -- guests and the module cache --------------------------------------------------------------------


def cache_file_name(wasm_path: str) -> str:
    """The artifact name (cache key) for a guest."""
    try:
        return str(_pycore.pycore_CacheFileName(wasm_path))
    except builtins.RuntimeError as e:
        _raise(str(e))


def cache_resolve(cache_dir: str, shipped_dir: str, wasm_path: str, keep: list[str]) -> dict[str, Any]:
    """{"path", "present"}: the guest's artifact in cache_dir, seeded from the
    shipped artifacts when missing (the first call also prunes cache_dir)."""
    try:
        found: dict[str, Any] = json.loads(_pycore.pycore_CacheResolve(cache_dir, shipped_dir, wasm_path, json.dumps(keep)))
    except builtins.RuntimeError as e:
        _raise(str(e))
    return found


def cache_ensure(cache_dir: str, wasm_path: str) -> dict[str, Any]:
    """{"path", "compiled", "waited", "compile_seconds"}: compile the guest into the cache unless it is there."""
    try:
        entry: dict[str, Any] = json.loads(_pycore.pycore_CacheEnsure(cache_dir, wasm_path))
    except builtins.RuntimeError as e:
        _raise(str(e))
    return entry


def cache_prune(cache_dir: str, keep: list[str], max_bytes: int, grace_seconds: float) -> dict[str, Any]:
    """{"removed", "bytes"}: remove stale artifacts (max_bytes <= 0, grace < 0: defaults)."""
    try:
        report: dict[str, Any] = json.loads(_pycore.pycore_CachePrune(cache_dir, json.dumps(keep), max_bytes, grace_seconds))
    except builtins.RuntimeError as e:
        _raise(str(e))
    return report


def precompile(wasm_path: str, target: str) -> float:
    """Compile a guest into target (replacing it); milliseconds taken."""
    try:
        return float(_pycore.pycore_Precompile(wasm_path, target))
    except builtins.RuntimeError as e:
        _raise(str(e))


def precompile_portable(wasm_path: str, target: str) -> float:
    """Compile a guest for the platform's baseline CPU (what a wheel ships); seconds taken."""
    try:
        return float(_pycore.pycore_PrecompilePortable(wasm_path, target))
    except builtins.RuntimeError as e:
        _raise(str(e))


def load_guest(wasm_path: str, cache_path: str) -> dict[str, Any]:
    """{"from_cache"}: load (or compile and cache) a guest module."""
    try:
        loaded: dict[str, Any] = json.loads(_pycore.pycore_LoadGuest(wasm_path, cache_path))
    except builtins.RuntimeError as e:
        _raise(str(e))
    return loaded


def wasmtime_library_version() -> str:
    """The version of the linked wasmtime, as the build records it."""
    try:
        return str(_pycore.pycore_WasmtimeLibraryVersion())
    except builtins.RuntimeError as e:
        _raise(str(e))


# -- tool declarations (gocore/pycore/decl.go) ------------------------------------------------------


def render_declarations(tools_json: str, language: str, names: list[str] | None = None) -> str:
    """The declarations of the tools of `tools_json` (a JSON list of
    ToolDefinition.to_dict()) for `language` ("javascript", "typescript",
    "python" or "shell"): of every tool, or of those `names` gives."""
    try:
        return str(_pycore.pycore_RenderDeclarations(tools_json, language, "" if names is None else json.dumps(names)))
    except builtins.RuntimeError as e:
        _raise(str(e))


def render_tool_summary(tools_json: str, language: str) -> str:
    """One line per tool: how a script in `language` calls it, and the
    first line of its description."""
    try:
        return str(_pycore.pycore_RenderToolSummary(tools_json, language))
    except builtins.RuntimeError as e:
        _raise(str(e))


# -- the capability engine and PCAs -----------------------------------------------------------------
#
# A check answers "" (passes) or a result JSON the capabilities package turns
# into the documented exception (gocore/pycore/capability.go lists them).


def pattern_match(method: str, pattern: str) -> bool:
    return bool(_pycore.pycore_PatternMatch(method, pattern))


def pattern_is_subset(child: str, parent: str) -> bool:
    return bool(_pycore.pycore_PatternIsSubset(child, parent))


def constraint_evaluate(constraint_json: str, params_json: str) -> str:
    return str(_pycore.pycore_ConstraintEvaluate(constraint_json, params_json))


def constraint_subsumes(parent_json: str, child_json: str) -> bool:
    return bool(_pycore.pycore_ConstraintSubsumes(parent_json, child_json))


def constraint_set_evaluate(list_json: str, params_json: str) -> str:
    return str(_pycore.pycore_ConstraintSetEvaluate(list_json, params_json))


def constraint_set_subsumes(parent_list_json: str, child_list_json: str) -> bool:
    return bool(_pycore.pycore_ConstraintSetSubsumes(parent_list_json, child_list_json))


def capability_validate_call(capability_json: str, method: str, params_json: str) -> str:
    return str(_pycore.pycore_CapabilityValidateCall(capability_json, method, params_json))


def capability_is_subset(child_json: str, parent_json: str) -> bool:
    return bool(_pycore.pycore_CapabilityIsSubset(child_json, parent_json))


def pca_key_from_seed(seed_hex: str) -> str:
    """The public key "ed25519:<hex>" of a 32-byte seed given as hex."""
    try:
        return str(_pycore.pycore_PCAKeyFromSeed(seed_hex))
    except builtins.RuntimeError as e:
        _raise(str(e))


def pca_create(seed_hex: str, patterns: list[str] | None, expires_in_secs: int, executor: str) -> str:
    """A signed PCA's CBOR as hex (patterns None: the default; executor "": the issuer)."""
    try:
        return str(_pycore.pycore_PCACreate(seed_hex, json.dumps(patterns), expires_in_secs, executor))
    except builtins.RuntimeError as e:
        _raise(str(e))


def pca_verify(cbor_hex: str, trusted: list[str]) -> list[str]:
    """The patterns a PCA grants, once verified against trusted keys."""
    try:
        granted: list[str] = json.loads(_pycore.pycore_PCAVerify(cbor_hex, json.dumps(trusted)))
    except builtins.RuntimeError as e:
        _raise(str(e))
    return granted
