"""The compiled-module cache (amla_sandbox/runtime/cache.py over gocore/guestcache):
key, one-line note while compiling, compile once across processes, pruning."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from amla_sandbox.runtime import cache

# The smallest valid wasm module and one with a function: instant to compile.
EMPTY_WASM = b"\x00asm\x01\x00\x00\x00"
ONE_FUNC_WASM = bytes.fromhex("0061736d0100000001040160000003020100070501017200000a040102000b")


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("AMLA_CACHE_DIR", str(d))
    return d


def _guest(tmp_path: Path, data: bytes = ONE_FUNC_WASM, name: str = "g.wasm") -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


def test_key_follows_the_documented_format_and_the_library_version(cache_dir: Path, tmp_path: Path) -> None:
    wasm = _guest(tmp_path)
    path = cache.get_precompiled_path(wasm)
    assert path.parent == cache_dir and cache_dir.is_dir()
    version = cache.wasmtime_version()
    assert re.fullmatch(r"\d+(\.\d+)*", version), version
    assert re.fullmatch(rf"[0-9a-f]{{16}}-wt{re.escape(version)}-{sys.platform}-[A-Za-z0-9_]+\.cwasm", path.name), path.name
    import hashlib

    assert path.name.startswith(hashlib.sha256(ONE_FUNC_WASM).hexdigest()[:16])
    other = _guest(tmp_path, EMPTY_WASM, "other.wasm")
    assert cache.get_precompiled_path(other) != path


def test_first_use_compiles_once_with_one_line_on_stderr(cache_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wasm = _guest(tmp_path)
    first = cache.cache_path_for(wasm)
    err = capsys.readouterr().err
    assert Path(first).is_file() and Path(first).parent == cache_dir
    assert len(err.splitlines()) == 1
    assert err.startswith("amla-sandbox: compiling the g.wasm guest for this machine, once per install (usually ")
    assert str(cache_dir) in err
    assert cache.cache_path_for(wasm) == first
    assert capsys.readouterr().err == ""


def test_unusable_cache_dir_means_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("AMLA_CACHE_DIR", str(blocker / "cache"))
    assert cache.cache_path_for(_guest(tmp_path)) == ""


def test_precompile_replaces_and_reports_bad_guests(cache_dir: Path, tmp_path: Path) -> None:
    from amla_sandbox.runtime.wasm import RuntimeError as SandboxRuntimeError

    wasm = _guest(tmp_path)
    out = cache.precompile_module(wasm)
    assert out == cache.get_precompiled_path(wasm) and out.stat().st_size > 0
    bad = _guest(tmp_path, b"not wasm", "bad.wasm")
    with pytest.raises(SandboxRuntimeError, match="bad.wasm"):
        cache.precompile_module(bad)
    with pytest.raises(SandboxRuntimeError, match="WASM file not found"):
        cache.precompile_module(tmp_path / "missing.wasm")


def test_several_processes_compile_once(cache_dir: Path, tmp_path: Path) -> None:
    wasm = _guest(tmp_path)
    code = (
        "import json, sys\n"
        "from amla_sandbox import _core\n"
        "print(json.dumps(_core.cache_ensure(sys.argv[1], sys.argv[2])))\n"
    )
    env = dict(os.environ)
    procs = [
        subprocess.Popen(
                [sys.executable, "-c", code, str(cache_dir), str(wasm)], stdout=subprocess.PIPE, text=True, env=env, cwd=tmp_path
            )
        for _ in range(4)
    ]
    results = [json.loads(p.communicate(timeout=120)[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sum(r["compiled"] for r in results) == 1, results
    assert len({r["path"] for r in results}) == 1
    assert list(cache_dir.glob("*.lock")) == []


def test_prune_keeps_this_installation_and_removes_stale_artifacts(cache_dir: Path, tmp_path: Path) -> None:
    from amla_sandbox import _wasm

    cache_dir.mkdir(parents=True)
    old = time.time() - 3 * 3600
    wt = cache.wasmtime_version()
    stale = cache_dir / f"0123456789abcdef-wt{wt}-linux-x86_64.cwasm"
    recent = cache_dir / f"fedcba9876543210-wt{wt}-linux-x86_64.cwasm"
    orphan = cache_dir / ".tmp-123.cwasm"
    unrelated = cache_dir / "README"
    # Another program's artifact (the reference package uses the same names
    # with its own wasmtime): never ours to remove, however old.
    foreign = cache_dir / "00112233445566ff-wt50.0.1-linux-x86_64.cwasm"
    for p in (stale, recent, orphan, unrelated, foreign):
        p.write_bytes(b"x" * 10)
    for p in (stale, orphan, unrelated, foreign):
        os.utime(p, (old, old))
    kept = [cache_dir / cache.get_precompiled_path(g).name for g in _wasm.bundled_guests()]
    for k in kept:
        k.write_bytes(b"k")
        os.utime(k, (old, old))
    removed = cache.prune_cache(cache_dir)
    assert sorted(removed) == sorted([stale.name, orphan.name])
    assert recent.exists() and unrelated.exists() and foreign.exists()
    assert all(k.exists() for k in kept)
    # Over the size cap, unkept artifacts go even inside the grace period.
    assert cache.prune_cache(cache_dir, max_bytes=1) == [recent.name]
    assert all(k.exists() for k in kept) and foreign.exists()
