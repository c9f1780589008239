"""The host's file API: `Sandbox.files` reads, writes, lists and removes a
sandbox's files from Python, and copies them to and from the host's own
files (docs/files.md).

Paths are sandbox paths: absolute (`/workspace/a.txt`, `/tmp/x`) or
relative to `/workspace` (`a.txt`). Only `/workspace` and `/tmp` can be
reached; a `..` component, a link anywhere on the path, a NUL or a name
that is not UTF-8 is refused. The work is done in the Go core
(gocore/host/files.go), which never follows a link.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from .sandbox import Sandbox

__all__ = ["FileInfo", "SandboxFiles"]

FileType = Literal["file", "directory", "symlink", "other"]


@dataclass(frozen=True)
class FileInfo:
    """One entry of `Sandbox.files.list()`.

    `name` is the entry's name (a name that is not UTF-8, which only
    something outside the sandbox can make, holds its bytes as
    `os.listdir` would: surrogate escapes), `path` its sandbox path, `type`
    one of "file", "directory", "symlink", "other", and `size` a file's
    size in bytes (0 for anything else)."""

    name: str
    path: str
    type: FileType
    size: int

    @property
    def is_dir(self) -> bool:
        return self.type == "directory"


def _sandbox_path(path: str | os.PathLike[str]) -> str:
    p = os.fspath(path)
    if not isinstance(p, str):
        raise TypeError(f"a sandbox path must be a str, got {type(p).__name__}")
    if "\0" in p:
        raise ValueError(f"path {p!r} contains a NUL byte")
    try:
        p.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"path {p!r} is not valid UTF-8 (no guest can name such a file)") from None
    return p


def _local_path(path: str | os.PathLike[str] | bytes) -> str:
    p = os.fsdecode(os.fspath(path))
    if "\0" in p:
        raise ValueError(f"local path {p!r} contains a NUL byte")
    try:
        p.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"local path {p!r} is not valid UTF-8 (the file API passes paths as UTF-8)") from None
    return os.path.abspath(p)


class SandboxFiles:
    """`Sandbox.files`: the sandbox's files, seen from the host.

    Errors are the builtins `open()` raises: FileNotFoundError,
    IsADirectoryError, NotADirectoryError, PermissionError (outside
    /workspace and /tmp, `..`, a link), OSError with errno ENOSPC (the
    disk quota), ValueError (a malformed path). Writing, uploading and
    removing while a run is in progress raise amla_sandbox.RuntimeError;
    reading, listing and downloading are allowed then."""

    def __init__(self, sandbox: Sandbox) -> None:
        self._sandbox = sandbox

    def _handle(self) -> int:
        # "Sandbox not initialized" (the builtin RuntimeError) once closed.
        return self._sandbox.runtime.handle

    def read(self, path: str | os.PathLike[str]) -> bytes:
        """The contents of the file at `path`."""
        from . import _core

        return _core.sandbox_read_file(self._handle(), _sandbox_path(path))

    def read_text(self, path: str | os.PathLike[str], encoding: str = "utf-8", errors: str = "strict") -> str:
        """`read(path)` decoded."""
        return self.read(path).decode(encoding, errors)

    def write(self, path: str | os.PathLike[str], data: bytes | bytearray | memoryview | str) -> None:
        """Make the file at `path` hold `data` (a str is written as UTF-8),
        creating the directories above it that are missing (`mkdir -p`).
        The file is replaced whole: a write that fails (the disk quota, a
        full disk) leaves the old file as it was."""
        from . import _core

        if isinstance(data, str):
            data = data.encode("utf-8")
        elif not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"data must be bytes or str, got {type(data).__name__}")
        _core.sandbox_write_file(self._handle(), _sandbox_path(path), bytes(data))

    def list(self, path: str | os.PathLike[str] = "/workspace") -> list[FileInfo]:
        """The entries of the directory at `path`, sorted by name. Links
        and other special files are listed as such (never followed)."""
        from . import _core

        p = _sandbox_path(path)
        entries = _core.sandbox_list_dir(self._handle(), p)
        base = p if p.startswith("/") else "/workspace/" + p
        base = "/" + "/".join(c for c in base.split("/") if c not in ("", "."))
        out = []
        for e in entries:
            if "name_hex" in e:
                name = bytes.fromhex(e["name_hex"]).decode("utf-8", "surrogateescape")
            else:
                name = e["name"]
            out.append(FileInfo(name=name, path=f"{base}/{name}", type=e["type"], size=int(e["size"])))
        return out

    def remove(self, path: str | os.PathLike[str], *, recursive: bool = False) -> None:
        """Remove the file at `path`; a directory only when empty, or with
        `recursive=True` everything in it. A link is removed itself.
        /workspace and /tmp themselves stay."""
        from . import _core

        _core.sandbox_remove_file(self._handle(), _sandbox_path(path), bool(recursive))

    def upload(self, local_path: str | os.PathLike[str] | bytes, sandbox_path: str | os.PathLike[str]) -> None:
        """Copy the host file `local_path` to `sandbox_path` (as `write`),
        streamed: the file is never held in memory whole."""
        from . import _core

        _core.sandbox_upload(self._handle(), _local_path(local_path), _sandbox_path(sandbox_path))

    def download(self, sandbox_path: str | os.PathLike[str], local_path: str | os.PathLike[str] | bytes) -> None:
        """Copy the file at `sandbox_path` to the host file `local_path`
        (created or replaced), streamed."""
        from . import _core

        _core.sandbox_download(self._handle(), _sandbox_path(sandbox_path), _local_path(local_path))
