"""The host's file API, Sandbox.files (docs/files.md), through the public API:
what it does, and every bad input refused with a clear error naming the path."""

from __future__ import annotations

import errno
import os
import tempfile
import uuid
from pathlib import Path

import pytest

import amla_sandbox
from amla_sandbox import Sandbox
from amla_sandbox.files import FileInfo


@pytest.fixture
def sb():
    with Sandbox() as s:
        yield s


def host_dir(sb: Sandbox) -> Path:
    """The sandbox's directory on the host (its `/`), found through a marker
    file: tests plant there what no guest can make."""
    marker = f"marker-{uuid.uuid4().hex}"
    sb.files.write(f"/workspace/{marker}", b"")
    for base in {tempfile.gettempdir(), os.environ.get("TMPDIR", "/tmp"), "/tmp"}:
        for cand in Path(base).glob(f"amla-sandbox-*/root/workspace/{marker}"):
            sb.files.remove(f"/workspace/{marker}")
            return cand.parent.parent
    raise AssertionError("the sandbox's host directory was not found")


# -- what it does -----------------------------------------------------------------------------------


def test_write_then_read_and_the_guests_see_it(sb: Sandbox) -> None:
    sb.files.write("/workspace/a.txt", b"hello\x00\xff bytes")
    assert sb.files.read("/workspace/a.txt") == b"hello\x00\xff bytes"
    sb.files.write("b.txt", "text é")  # relative to /workspace; str is UTF-8
    assert sb.shell("cat /workspace/b.txt") == "text é"
    assert sb.execute("return fs.readFileSync('/workspace/b.txt', 'utf8')") == "text é\n"
    sb.shell("printf 'from the shell' > /tmp/s.txt")
    assert sb.files.read("/tmp/s.txt") == b"from the shell"
    assert sb.files.read_text("b.txt") == "text é"


def test_write_creates_parents_and_replaces_whole(sb: Sandbox) -> None:
    sb.files.write("/workspace/deep/er/c.txt", b"x" * 10000)
    sb.files.write("/workspace/deep/er/c.txt", b"short")
    assert sb.files.read("deep/er/c.txt") == b"short"
    assert sb.shell("ls /workspace/deep/er") == "c.txt\n"  # no stray temporary file


def test_empty_file(sb: Sandbox) -> None:
    sb.files.write("/tmp/empty", b"")
    assert sb.files.read("/tmp/empty") == b""


def test_list(sb: Sandbox) -> None:
    sb.files.write("/workspace/d/f1", b"123")
    sb.files.write("/workspace/d/sub/f2", b"")
    got = sb.files.list("/workspace/d")
    assert got == [
        FileInfo(name="f1", path="/workspace/d/f1", type="file", size=3),
        FileInfo(name="sub", path="/workspace/d/sub", type="directory", size=0),
    ]
    assert got[1].is_dir and not got[0].is_dir
    assert [e.name for e in sb.files.list()] == ["d"]  # default: /workspace
    assert [e.path for e in sb.files.list("d/")] == ["/workspace/d/f1", "/workspace/d/sub"]


def test_remove(sb: Sandbox) -> None:
    sb.files.write("/workspace/r/x", b"1")
    with pytest.raises(OSError) as e:
        sb.files.remove("/workspace/r")
    assert e.value.errno == errno.ENOTEMPTY and "/workspace/r" in str(e.value)
    sb.files.remove("/workspace/r/x")
    sb.files.remove("/workspace/r")
    sb.files.write("/workspace/r/y/z", b"1")
    sb.files.remove("/workspace/r", recursive=True)
    assert sb.files.list("/workspace") == []
    with pytest.raises(FileNotFoundError, match="/workspace/r"):
        sb.files.remove("/workspace/r")
    for top in ("/workspace", "/tmp", "/tmp/", "."):
        with pytest.raises(PermissionError, match="sandbox's own directories"):
            sb.files.remove(top, recursive=True)


def test_upload_download_large_streamed(sb: Sandbox, tmp_path: Path) -> None:
    src = tmp_path / "big.bin"
    block = os.urandom(1 << 20)
    with open(src, "wb") as f:
        for _ in range(24):
            f.write(block)
    sb.files.upload(src, "/workspace/big.bin")
    assert sb.shell("wc -c < /workspace/big.bin").strip() == str(24 << 20)
    dst = tmp_path / "back.bin"
    sb.files.download("/workspace/big.bin", dst)
    assert dst.read_bytes() == src.read_bytes()
    sb.files.download("big.bin", str(dst))  # replaces what is there
    assert dst.stat().st_size == 24 << 20


def test_upload_download_bad_local_paths(sb: Sandbox, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="nope.bin"):
        sb.files.upload(tmp_path / "nope.bin", "/workspace/x")
    with pytest.raises(IsADirectoryError, match=str(tmp_path)):
        sb.files.upload(tmp_path, "/workspace/x")
    sb.files.write("/workspace/x", b"1")
    with pytest.raises(FileNotFoundError, match="no/such/dir"):
        sb.files.download("/workspace/x", tmp_path / "no/such/dir/x")
    with pytest.raises(FileNotFoundError, match="/workspace/missing"):
        sb.files.download("/workspace/missing", tmp_path / "x")
    assert not (tmp_path / "x").exists()  # nothing made for a missing source


# -- bad inputs ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    ["../etc/passwd", "/workspace/../etc/passwd", "/workspace/a/../b", "/tmp/..", "..", "a/../../x"],
)
def test_traversal_refused(sb: Sandbox, path: str) -> None:
    for op in (
        lambda: sb.files.read(path),
        lambda: sb.files.write(path, b"x"),
        lambda: sb.files.list(path),
        lambda: sb.files.remove(path),
    ):
        with pytest.raises(PermissionError) as e:
            op()
        assert '".." is not allowed' in str(e.value) and repr(path).strip("'") in str(e.value)


@pytest.mark.parametrize("path", ["/etc/passwd", "/", "/root", "/workspacex/a", "/tmpfoo", "/usr/lib/python3.13"])
def test_outside_workspace_and_tmp_refused(sb: Sandbox, path: str) -> None:
    with pytest.raises(PermissionError, match="outside the sandbox's files"):
        sb.files.read(path)
    with pytest.raises(PermissionError, match=path):
        sb.files.write(path + "/x", b"x")
    with pytest.raises(PermissionError, match="only /workspace and /tmp"):
        sb.files.list(path)


def test_symlink_planted_on_the_host_is_never_followed(sb: Sandbox, tmp_path: Path) -> None:
    root = host_dir(sb)
    secret = tmp_path / "secret.txt"
    secret.write_text("host secret")
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(secret, root / "workspace" / "link.txt")
    os.symlink(outside, root / "workspace" / "dirlink")
    os.symlink(root / "workspace", root / "tmp" / "inner")  # a link that stays inside is refused too
    for op in (
        lambda: sb.files.read("/workspace/link.txt"),
        lambda: sb.files.write("/workspace/link.txt", b"overwritten"),
        lambda: sb.files.download("/workspace/link.txt", tmp_path / "got"),
        lambda: sb.files.read("/workspace/dirlink/x"),
        lambda: sb.files.write("/workspace/dirlink/new.txt", b"planted"),
        lambda: sb.files.list("/workspace/dirlink"),
        lambda: sb.files.upload(secret, "/workspace/dirlink/up.txt"),
        lambda: sb.files.read("/tmp/inner/anything"),
        lambda: sb.files.remove("/workspace/dirlink/x"),
    ):
        with pytest.raises(PermissionError, match="symbolic link"):
            op()
    assert secret.read_text() == "host secret"
    assert list(outside.iterdir()) == []
    assert not (tmp_path / "got").exists()
    kinds = {e.name: e.type for e in sb.files.list("/workspace")}
    assert kinds == {"link.txt": "symlink", "dirlink": "symlink"}
    # Removing a link removes the link, never what it points to.
    sb.files.remove("/workspace/link.txt")
    sb.files.remove("/workspace/dirlink", recursive=True)
    assert secret.read_text() == "host secret" and outside.is_dir()
    assert [e.name for e in sb.files.list("/workspace")] == []


def test_workspace_itself_replaced_by_a_link(tmp_path: Path) -> None:
    with Sandbox() as sb:
        root = host_dir(sb)
        (tmp_path / "t.txt").write_text("host")
        os.rmdir(root / "tmp")
        os.symlink(tmp_path, root / "tmp")
        with pytest.raises(PermissionError, match="/tmp is a symbolic link"):
            sb.files.read("/tmp/t.txt")
        with pytest.raises(PermissionError, match="symbolic link"):
            sb.files.write("/tmp/new", b"x")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["t.txt"]


def test_quota(tmp_path: Path) -> None:
    with Sandbox(disk_quota=256 * 1024) as sb:
        sb.files.write("/workspace/fits", b"x" * 100_000)
        with pytest.raises(OSError) as e:
            sb.files.write("/workspace/big", b"x" * 300_000)
        assert e.value.errno == errno.ENOSPC
        assert "No space left on device" in str(e.value) and "/workspace/big" in str(e.value)
        assert "disk_quota=262144" in str(e.value)
        # Nothing written, the old files intact, and a script's writes see the same quota.
        assert [f.name for f in sb.files.list()] == ["fits"]
        src = tmp_path / "big"
        src.write_bytes(b"y" * 300_000)
        with pytest.raises(OSError) as e:
            sb.files.upload(src, "/workspace/up")
        assert e.value.errno == errno.ENOSPC
        # Growing a file is charged for the growth only; replacing it with
        # one that fits succeeds.
        sb.files.write("/workspace/fits", b"z" * 200_000)
        assert len(sb.files.read("/workspace/fits")) == 200_000
        with pytest.raises(OSError) as e:
            sb.files.write("/workspace/fits", b"z" * 260_000)
        assert sb.files.read("/workspace/fits") == b"z" * 200_000  # a refused write leaves the file
        # Once files are removed, writes fit again.
        sb.files.remove("/workspace/fits")
        sb.files.write("/workspace/again", b"x" * 200_000)
        # A script's write meets the same quota, with the same error.
        assert sb.shell("seq 1 30000 > /workspace/more; echo $?") == "1\n"
        assert "No space left on device" in sb.last_stderr


def test_non_utf8_names(sb: Sandbox) -> None:
    bad = "/workspace/\udcff.txt"  # what os.fsdecode makes of byte 0xff
    for op in (
        lambda: sb.files.read(bad),
        lambda: sb.files.write(bad, b"x"),
        lambda: sb.files.remove(bad),
        lambda: sb.files.list(bad),
    ):
        with pytest.raises(ValueError, match="not valid UTF-8"):
            op()
    # One planted from outside is listed as os.listdir shows it, and can be
    # neither read nor removed by that name.
    root = host_dir(sb)
    with open(os.path.join(os.fsencode(root / "workspace"), b"\xffname"), "wb") as f:
        f.write(b"abc")
    (entry,) = sb.files.list("/workspace")
    assert entry.name == os.fsdecode(b"\xffname") and entry.type == "file" and entry.size == 3
    with pytest.raises(ValueError, match="not valid UTF-8"):
        sb.files.read(entry.path)
    assert sb.shell("ls /workspace; echo ok").endswith("ok\n")  # the guests survive it too


def test_nul_and_empty_and_types(sb: Sandbox) -> None:
    with pytest.raises(ValueError, match="NUL"):
        sb.files.read("/workspace/a\0/../../etc/passwd")
    with pytest.raises(ValueError, match="NUL"):
        sb.files.upload("/etc/hostname\0x", "/workspace/a")
    with pytest.raises(ValueError, match="empty path"):
        sb.files.read("")
    with pytest.raises(TypeError, match="must be bytes or str"):
        sb.files.write("/workspace/a", 123)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must be a str"):
        sb.files.read(b"/workspace/a")  # type: ignore[arg-type]


def test_directory_where_a_file_is_expected_and_back(sb: Sandbox) -> None:
    sb.files.write("/workspace/dir/f", b"1")
    with pytest.raises(IsADirectoryError, match="/workspace/dir"):
        sb.files.read("/workspace/dir")
    with pytest.raises(IsADirectoryError, match="/workspace/dir"):
        sb.files.write("/workspace/dir", b"x")
    with pytest.raises(IsADirectoryError):
        sb.files.write("/tmp", b"x")
    with pytest.raises(NotADirectoryError, match="/workspace/dir/f"):
        sb.files.list("/workspace/dir/f")
    with pytest.raises(NotADirectoryError, match="/workspace/dir/f is not a directory"):
        sb.files.write("/workspace/dir/f/g", b"x")
    with pytest.raises(NotADirectoryError):
        sb.files.read("/workspace/dir/f/g")


def test_missing_file(sb: Sandbox) -> None:
    with pytest.raises(FileNotFoundError) as e:
        sb.files.read("/workspace/nope.txt")
    assert "/workspace/nope.txt" in str(e.value) and e.value.errno == errno.ENOENT
    with pytest.raises(FileNotFoundError, match="/workspace/no/dir"):
        sb.files.read("/workspace/no/dir/x")
    with pytest.raises(FileNotFoundError, match="/tmp/none"):
        sb.files.list("/tmp/none")


def test_writes_refused_during_a_run_reads_allowed() -> None:
    seen: dict[str, object] = {}
    box: list[Sandbox] = []

    def handler(method: str, params: dict) -> str:
        files = box[0].files  # the sandbox whose run is calling this tool
        seen["read"] = files.read("/workspace/r.txt")
        seen["list"] = [e.name for e in files.list()]
        for name, op in (
            ("write", lambda: files.write("/workspace/r.txt", b"during")),
            ("remove", lambda: files.remove("/workspace/r.txt")),
            ("upload", lambda: files.upload(__file__, "/workspace/u")),
        ):
            try:
                op()
            except amla_sandbox.RuntimeError as e:
                seen[name] = str(e)
        return "ok"

    tool = amla_sandbox.ToolDefinition(name="t", description="t", parameters={"type": "object"})
    with Sandbox(tool_handler=handler, tools=[tool]) as sb:
        box.append(sb)
        sb.files.write("/workspace/r.txt", b"before")
        assert sb.execute("await t({}); return 'done'") == "done\n"
        assert sb.files.read("/workspace/r.txt") == b"before"
    assert seen["read"] == b"before" and seen["list"] == ["r.txt"]
    for name in ("write", "remove", "upload"):
        assert "a run is in progress" in str(seen[name]), seen
    assert "/workspace/r.txt" in str(seen["write"])


def test_closed_sandbox() -> None:
    sb = Sandbox()
    sb.close()
    with pytest.raises(RuntimeError, match="Sandbox not initialized"):
        sb.files.read("/workspace/a")
