"""Hostile and damaged snapshots (issue 19): restoring one gives a clear
error and writes nothing outside the new sandbox's directory.

The snapshots are written here from the format docs/durable.md documents
(a writer in Python, independent of the Go one): a well-formed one must
restore as described, and every attack is well-formed bytes with a correct
trailer (the HMAC-SHA-256 under KEY, given to the restoring sandbox as its
durable_key), so it reaches the checks behind the trailer. Snapshots made
under another key, or with the SHA-256 trailer of format version 1 (what
someone without the key can compute), are refused by the trailer.
"""

from __future__ import annotations

import hashlib
import hmac
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from _hostile import run_isolated

MAGIC = b"AMLASNAP\x02"
# The durable key the restoring sandboxes are given (durable_key=KEY).
KEY = b"the application's durable key, 32+ bytes"


def uvarint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def varint(n: int) -> bytes:
    return uvarint((n << 1) ^ (n >> 63) if n < 0 else n << 1)


def string(s: str | bytes) -> bytes:
    b = s.encode() if isinstance(s, str) else s
    return uvarint(len(b)) + b


@dataclass
class Snap:
    """A snapshot as the docs describe it, record by record."""

    skeleton: bytearray = field(default_factory=lambda: bytearray(MAGIC))
    whole: bytearray = field(default_factory=lambda: bytearray(MAGIC))
    digest: "hashlib._Hash" = field(default_factory=hashlib.sha256)

    def put(self, b: bytes, data: bool = False) -> None:
        self.whole += b
        if not data:
            self.skeleton += b

    def dir(self, path: str | bytes, mode: int = 0o755, mtime: int = 0) -> "Snap":
        rec = b"\x01" + string(path) + uvarint(mode) + varint(mtime)
        self.digest.update(rec)
        self.put(rec)
        return self

    def file(self, path: str | bytes, data: bytes, mode: int = 0o644, mtime: int = 0, *,
             size: int | None = None, deflate: bool = False) -> "Snap":
        size = len(data) if size is None else size
        head = b"\x02" + string(path) + uvarint(mode) + varint(mtime) + uvarint(size)
        self.digest.update(head + b"\x00" + data)
        if deflate:
            z = zlib.compressobj(wbits=-15)
            packed = z.compress(data) + z.flush()
            self.put(head + b"\x01" + uvarint(len(packed)))
            self.put(packed, data=True)
        else:
            self.put(head + b"\x00")
            self.put(data, data=True)
        return self

    def raw(self, b: bytes) -> "Snap":
        self.put(b)
        return self

    def done(self, digest: bytes | None = None, key: bytes | None = KEY) -> bytes:
        """The snapshot, its trailer the MAC under key (None: the plain
        SHA-256 of format version 1)."""
        self.put(b"\x00" + (digest if digest is not None else self.digest.digest()))
        if key is None:
            return bytes(self.whole) + hashlib.sha256(bytes(self.skeleton)).digest()
        return bytes(self.whole) + hmac.new(key, bytes(self.skeleton), hashlib.sha256).digest()


def base() -> Snap:
    return Snap().dir("tmp", 0o700, 1_000_000_000_123).dir("workspace", 0o755, 2_000_000_000_456)


def bomb_snapshot() -> bytes:
    """A file that declares 4 KiB and inflates to 64 MiB of zeros."""
    zeros = b"\x00" * (64 << 20)
    z = zlib.compressobj(9, wbits=-15)
    packed = z.compress(zeros) + z.flush()
    s = base()
    head = b"\x02" + string("workspace/bomb") + uvarint(0o644) + varint(0) + uvarint(4096)
    s.digest.update(head + b"\x00" + zeros[:4096])
    s.put(head + b"\x01" + uvarint(len(packed)))
    s.put(packed, data=True)
    return s.done()


def guest_digest() -> bytes:
    """The SHA-256 of the Python guest module the sandboxes run (a session
    record names the build it came from)."""
    from amla_sandbox import _wasm

    return hashlib.sha256(_wasm.get_py_wasm_path().read_bytes()).digest()


def session(language: str, guest: bytes, mem_size: int, state: bytes, method: int = 0,
            raw_len: int | None = None, globals_: int = 0) -> bytes:
    """A session record: globals_ i32 globals of value 0, the state stored or
    (method 1) as given."""
    rec = b"\x04" + string(language) + guest + uvarint(mem_size) + uvarint(globals_) + b"\x00\x00" * globals_
    rec += uvarint(len(state) if raw_len is None else raw_len) + bytes([method])
    return rec + (uvarint(len(state)) + state if method == 1 else state)


def session_bomb() -> bytes:
    """A session whose state declares one 1-byte range and inflates to 1 MiB more."""
    one = uvarint(0) + uvarint(1) + b"x"
    z = zlib.compressobj(9, wbits=-15)
    packed = z.compress(one + b"\x00" * (1 << 20)) + z.flush()
    return session("python", guest_digest(), 64 << 20, packed, method=1, raw_len=len(one), globals_=1)


def cases(canary: Path) -> dict[str, tuple[bytes, str, dict[str, int]]]:
    """name -> (snapshot bytes, what the error must say, Sandbox kwargs)."""
    good = base().file("workspace/a.txt", b"hello").done()
    flipped_data = bytearray(good)
    flipped_data[good.index(b"hello")] ^= 1
    return {
        "path traversal": (base().file("workspace/../../../escaped", b"x").done(), '".."', {}),
        "traversal deeper": (base().dir("workspace/d").file("workspace/d/../../../../escaped", b"x").done(), '".."', {}),
        "absolute path": (base().file(str(canary), b"x").done(), "absolute path", {}),
        "outside the sandbox's directories": (Snap().dir("tmp").dir("etc").done(), "outside /tmp and /workspace", {}),
        # Record types past the format's (4 is a live session, docs/durable.md) are refused.
        "symlink record": (base().raw(b"\x09" + string("workspace/link") + string("/etc/passwd")).done(), "unknown record type 9", {}),
        # A symlink's bytes under the session record's tag do not parse as a session.
        "symlink as a session record": (base().raw(b"\x04" + string("workspace/link") + string("/etc/passwd")).done(), "memory size", {}),
        "symlink mode bits": (base().file("workspace/link", b"/etc/passwd", mode=0o120777).done(), "mode", {}),
        "device file": (base().file("workspace/sda", b"", mode=0o60644).done(), "mode", {}),
        "character device": (base().file("workspace/null", b"", mode=0o20666).done(), "mode", {}),
        "setuid": (base().file("workspace/su", b"", mode=0o4755).done(), "mode", {}),
        "NUL in a name": (base().file("workspace/a\x00b", b"").done(), "NUL", {}),
        "not UTF-8": (base().file(b"workspace/\xff\xfe", b"").done(), "UTF-8", {}),
        "decompression bomb": (bomb_snapshot(), "inflates to more bytes than it declares", {}),
        "sizes beyond the disk quota": (base().file("workspace/huge", b"", size=10 << 30, deflate=True).done(), "disk_quota", {}),
        "many files beyond the quota": (
            Snap().dir("tmp").dir("workspace").raw(b"".join(
                b"\x02" + string(f"workspace/f{i:05d}") + uvarint(0o644) + varint(0) + uvarint(0) + b"\x00" for i in range(400)
            )).done(), "disk_quota", {"disk_quota": 1 << 20}),
        "truncated": (good[:-7], "damaged", {}),
        "truncated in the middle": (good[: len(good) // 2], "damaged", {}),
        "a byte changed": (bytes(flipped_data), "do not match its files digest", {}),
        "the trailer changed": (good[:-1] + bytes([good[-1] ^ 1]), "authentication failed", {}),
        "made under another key": (base().file("workspace/a.txt", b"hello").done(key=b"another application's key, 32 bytes"), "authentication failed", {}),
        "a SHA-256 trailer, as in version 1": (base().file("workspace/a.txt", b"hello").done(key=None), "authentication failed", {}),
        "version 1": (b"AMLASNAP\x01" + base().file("workspace/a.txt", b"hello").done(key=None)[9:], "version 1 is not supported (this build reads version 2", {}),
        "a future version": (b"AMLASNAP\x07" + good[9:], "version 7 is not supported", {}),
        "not a snapshot": (b"PK\x03\x04" + b"\x00" * 60, "not an amla-sandbox snapshot", {}),
        "duplicate entries": (base().file("workspace/a", b"1").file("workspace/a", b"2").done(), "walk order", {}),
        "file before its directory": (base().file("workspace/d/a", b"1").done(), "before its directory", {}),
        # Live sessions (docs/sessions.md), refused before anything is made for them.
        "a session bigger than memory_limit": (base().raw(session("python", guest_digest(), 1 << 32, b"")).done(),
                                               "memory_limit=67108864", {"keep_state": True, "memory_limit": 64 << 20}),
        "a session of another guest build": (base().raw(session("python", b"\x00" * 32, 64 << 20, b"")).done(),
                                             "another build of the python guest", {"keep_state": True}),
        "a session setting other globals than its guest's": (base().raw(session("python", guest_digest(), 64 << 20, b"", globals_=0)).done(),
                                                              "sets 0 globals, the guest has", {"keep_state": True}),
        "a session of an unknown language": (base().raw(session("ruby", b"\x00" * 32, 64 << 20, b"")).done(),
                                             "ruby", {"keep_state": True}),
        "a session's state inflating past its length": (base().raw(session_bomb()).done(),
                                                        "more bytes than it declares", {"keep_state": True}),
    }


def test_a_snapshot_written_from_the_docs_restores_as_described() -> None:
    # Canonical order: each directory's entries sorted by name, depth first.
    snap = (base().file("workspace/big.txt", b"line\n" * 20000, deflate=True, mtime=5)
            .dir("workspace/d", 0o700, 3_000_000_000_789)
            .file("workspace/d/notes.txt", b"hello\n", 0o600, 1_700_000_000_000_000_001)
            .file("workspace/ünï 🎉.txt", "snow ☃".encode())
            .raw(b"\x03" + string("cap:tool-call:mcp:add") + uvarint(2))
            .done())
    run = run_isolated(
        f"""
        from amla_sandbox import create_sandbox_tool
        def add(a: int, b: int) -> int:
            return a + b
        tool = create_sandbox_tool(tools=[add], max_calls=50, snapshot={snap!r}, durable_key={KEY!r})
        sb = tool.sandbox
        emit(listing=sb.shell("cd /workspace && cat d/notes.txt && wc -l < big.txt && cat 'ünï 🎉.txt' && stat -c '%a %Y' d d/notes.txt"),
             remaining=sb.get_remaining_calls("cap:tool-call:mcp:add"))
        """,
        120,
    )
    # 'ünï 🎉.txt' has no final newline, so stat's first line follows it.
    assert run["listing"] == "hello\n20000\nsnow ☃700 3000\n600 1700000000\n"
    assert run["remaining"] == 2


def test_hostile_snapshots_are_refused_and_write_nothing_outside(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    canary = tmp_path / "canary-written-by-a-snapshot"
    all_cases = cases(canary)
    run = run_isolated(
        f"""
        import os
        from amla_sandbox import Sandbox, create_sandbox_tool
        cases = {{k: v for k, v in {all_cases!r}.items()}}
        for name, (data, want, kwargs) in cases.items():
            r = attempt(lambda: Sandbox.from_snapshot(data, durable_key={KEY!r}, **kwargs))
            r2 = attempt(lambda: create_sandbox_tool(tools=[], snapshot=data, durable_key={KEY!r}))
            emit(**{{name: [r["type"], r["msg"], r2["type"]]}})
        emit(left_in_tmp=sorted(os.listdir(os.environ["TMPDIR"])))
        """,
        300,
        env={"TMPDIR": str(tmp)},
    )
    for name, (_data, want, _kwargs) in all_cases.items():
        kind, message, kind2 = run[name]
        assert kind == "ValueError", f"{name}: {kind}: {message}"
        assert want in message, f"{name}: {message!r} does not say {want!r}"
        if name not in ("many files beyond the quota",):
            assert kind2 == "ValueError", f"{name} through create_sandbox_tool: {kind2}"
    # Nothing escaped, and every sandbox that was made to restore into is gone.
    assert not canary.exists()
    assert not (tmp_path / "escaped").exists() and not (tmp / "escaped").exists()
    assert run["left_in_tmp"] == []
