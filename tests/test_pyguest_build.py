"""The Python guest's build script (guests/python/build.py): the parts that fetch and unpack the
tools of its profile-guided compilation. The whole build runs in every install and CI job; these
test its helpers' contracts and their bad inputs without a network."""

from __future__ import annotations

import hashlib
import importlib.util
import io
import sys
import tarfile
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "guests" / "python" / "build.py"

pytestmark = pytest.mark.skipif(not BUILD.is_file(), reason="no guests/python/build.py in this tree")


@pytest.fixture(scope="module")
def pg() -> ModuleType:
    spec = importlib.util.spec_from_file_location("amla_pyguest_build_test", BUILD)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


def _ar_member(name: str, data: bytes) -> bytes:
    header = f"{name + '/':<16}{0:<12}{0:<6}{0:<6}{'100644':<8}{len(data):<10}`\n".encode()
    assert len(header) == 60
    return header + data + (b"\n" if len(data) % 2 else b"")


def _deb(files: dict[str, bytes], data_name: str = "data.tar.xz") -> bytes:
    """A Debian package (an ar archive) whose data.tar holds files."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:xz") as t:
        for path, content in files.items():
            info = tarfile.TarInfo("./" + path)
            info.size = len(content)
            info.mode = 0o755 if path.endswith("tool") else 0o644
            t.addfile(info, io.BytesIO(content))
    return (b"!<arch>\n" + _ar_member("debian-binary", b"2.0\n") + _ar_member("control.tar.xz", b"x")
            + _ar_member(data_name, buf.getvalue()))


def test_deb_files_writes_only_the_wanted_files(pg: ModuleType, tmp_path: Path) -> None:
    deb = tmp_path / "p.deb"
    deb.write_bytes(_deb({"usr/bin/tool": b"#!/bin/sh\n", "usr/lib/libx.a": b"odd-sized", "usr/share/doc": b"no"}))
    pg._deb_files(deb, {"usr/bin/tool": "bin/tool", "usr/lib/libx.a": "lib/libx.a"}, tmp_path / "out")
    assert (tmp_path / "out" / "bin" / "tool").read_bytes() == b"#!/bin/sh\n"
    assert (tmp_path / "out" / "bin" / "tool").stat().st_mode & 0o111
    assert (tmp_path / "out" / "lib" / "libx.a").read_bytes() == b"odd-sized"
    assert sorted(p.name for p in (tmp_path / "out").rglob("*") if p.is_file()) == ["libx.a", "tool"]


@pytest.mark.parametrize("content, message", [
    (b"PK\x03\x04 a zip file", "not a Debian package"),
    (b"!<arch>\n" + _ar_member("debian-binary", b"2.0\n"), "no data.tar member"),
])
def test_deb_files_names_a_file_that_is_not_a_package(pg: ModuleType, tmp_path: Path, content: bytes,
                                                       message: str) -> None:
    deb = tmp_path / "bad.deb"
    deb.write_bytes(content)
    with pytest.raises(pg.BuildError, match=message) as e:
        pg._deb_files(deb, {"usr/bin/tool": "bin/tool"}, tmp_path / "out")
    assert "bad.deb" in str(e.value)


def test_fetch_uses_the_local_directory_and_checks_the_hash(pg: ModuleType, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"archive bytes"
    src = pg.Source("Thing", "thing.deb", ("http://127.0.0.1:9/thing.deb",), hashlib.sha256(data).hexdigest())
    (tmp_path / "thing.deb").write_bytes(data)
    monkeypatch.setenv(pg.SOURCES_ENV, str(tmp_path))
    assert pg.fetch(src) == tmp_path / "thing.deb"
    assert pg.fetch(src, download_if_absent=True) == tmp_path / "thing.deb"
    (tmp_path / "thing.deb").write_bytes(b"something else")
    with pytest.raises(pg.BuildError, match=r"thing\.deb: sha256 .*expected .*\(Thing\)"):
        pg.fetch(src, download_if_absent=True)


def test_fetch_downloads_what_the_local_directory_lacks_only_when_asked(pg: ModuleType, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    src = pg.Source("Thing", "thing.deb", ("http://127.0.0.1:9/thing.deb",), "0" * 64)
    monkeypatch.setenv(pg.SOURCES_ENV, str(tmp_path))
    monkeypatch.setenv(pg.CACHE_ENV, str(tmp_path / "cache" / "build"))
    with pytest.raises(pg.BuildError, match="holds no thing.deb"):
        pg.fetch(src)
    # Asked to download: the local directory is passed over, and the (unreachable) publisher
    # is named in the error.
    with pytest.raises(pg.BuildError, match=r"cannot fetch Thing \(thing\.deb\): http://127\.0\.0\.1:9/thing\.deb"):
        pg.fetch(src, download_if_absent=True)


def test_the_pgo_tools_are_the_llvm_release_of_zigs_clang(pg: ModuleType) -> None:
    assert pg.ZIGLANG_REQUIREMENT == "ziglang==0.17.0"  # whose clang is LLVM 22.1.8
    assert pg.PGO_LLVM_VERSION == "22.1.8"
    for tool in pg.PGO_TOOLS:
        assert "22.1.8" in tool.filename and len(tool.sha256) == 64
        assert all(u.startswith("https://deb.debian.org/") for u in tool.urls)
    assert set(pg.PGO_TOOL_FILES.values()) == {"lib/libclang_rt.profile-x86_64.a", "bin/llvm-profdata",
                                               "lib/libLLVM.so.22.1"}
