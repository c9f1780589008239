"""Runtime layer, module cache and the amla-precompile CLI (docs/install.md, "The module cache")."""

from __future__ import annotations

import builtins
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import amla_sandbox
from amla_sandbox import Runtime, RuntimeConfig, RuntimeStatus
from amla_sandbox.auth import EphemeralAuthority
from amla_sandbox.cli import precompile_main
from amla_sandbox.runtime.wasm import default_wasm_path, get_cache_dir, get_precompiled_path, precompile_module


def test_cache_paths(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert get_cache_dir() == tmp_path / "amla-sandbox" and get_cache_dir().is_dir()
    p = get_precompiled_path(default_wasm_path())
    assert re.fullmatch(r"[0-9a-f]{16}-wt[0-9.]+-linux-[A-Za-z0-9_]+\.cwasm", p.name), p.name


# The smallest valid wasm module: compiling it is instant, so the CLI paths
# are tested without recompiling the 26 MB guest several times.
EMPTY_WASM = b"\x00asm\x01\x00\x00\x00"


def test_precompile_module_and_cli(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    wasm = tmp_path / "tiny.wasm"
    wasm.write_bytes(EMPTY_WASM)
    out = precompile_module(wasm)
    assert out.exists() and out.stat().st_size > 0 and out.parent == tmp_path / "amla-sandbox"
    assert out == get_precompiled_path(wasm)
    assert precompile_main(["--wasm-path", str(wasm)]) == 0
    assert capsys.readouterr().out.strip() == f"Already precompiled: {out}"
    assert precompile_main(["-v", "--wasm-path", str(wasm)]) == 0
    assert re.fullmatch(rf"Already precompiled: {re.escape(str(out))} \(\d+\.\dMB\)", capsys.readouterr().out.strip())
    out.unlink()
    assert precompile_main(["--verbose", "--wasm-path", str(wasm)]) == 0
    text = capsys.readouterr().out
    for line in ("WASM source:", "Cache directory:", "Precompiling WASM module...", "Precompiled in", "Output:"):
        assert line in text
    assert out.exists()
    assert precompile_main(["--wasm-path", str(tmp_path / "missing.wasm")]) == 1
    assert capsys.readouterr().err.startswith("Error: WASM file not found")
    bad = tmp_path / "bad.wasm"
    bad.write_bytes(b"not wasm at all")
    assert precompile_main(["--wasm-path", str(bad)]) == 1
    assert "Error:" in capsys.readouterr().err


def test_console_script_is_installed():
    out = subprocess.run([Path(sys.executable).parent / "amla-precompile", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "--wasm-path" in out.stdout


def test_corrupt_or_stale_cache_file_is_rebuilt(tmp_path):
    from amla_sandbox import _core

    wasm = tmp_path / "tiny.wasm"
    wasm.write_bytes(EMPTY_WASM)
    cache = tmp_path / "c.cwasm"
    cache.write_bytes(b"garbage, or an artifact of another wasmtime version")
    assert _core.load_guest(str(wasm), str(cache)) == {"from_cache": False}
    assert cache.read_bytes()[:4] != b"garb"  # replaced by a real artifact


def test_runtime_for_testing_runs_shell_and_passes_mcp_prefix():
    seen = []

    def handler(method, params):
        seen.append((method, params))
        return {"sum": params["a"] + params["b"]}

    tools = json.dumps([{"name": "calc.add", "description": "Add", "inputSchema": {
        "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}}])
    rt = Runtime.for_testing(tool_handler=handler, tools_json=tools)
    assert rt.execute("echo hi") == "hi\n"
    assert '"sum"' in rt.execute("tool calc.add --a 1 --b 2")
    assert seen == [("mcp:calc.add", {"a": 1, "b": 2})]
    assert rt.last_exit_code == 0 and rt.last_elapsed_ns > 0 and rt.last_user_time_ns is None
    rt2 = Runtime.for_testing(tools_json=tools)
    rt2.execute("tool calc.add --a 1 --b 2")
    assert "No tool handler configured" in rt2.last_stderr
    rt.close()
    rt2.close()


def test_runtime_construction_errors(tmp_path):
    auth = EphemeralAuthority()
    pca = auth.create_pca().to_cbor()
    key = auth.public_key_hex()
    with pytest.raises(amla_sandbox.RuntimeError, match="^WASM file not found"):
        Runtime(RuntimeConfig(wasm_path=tmp_path / "nope.wasm", pca_bytes=pca, trusted_authorities=[key]))
    with pytest.raises(amla_sandbox.RuntimeError, match="^No trusted authorities configured."):
        Runtime(RuntimeConfig(pca_bytes=pca))
    with pytest.raises(amla_sandbox.RuntimeError, match="^Failed to set trusted authorities. Check public key format"):
        Runtime(RuntimeConfig(pca_bytes=pca, trusted_authorities=["rsa:abc"]))
    with pytest.raises(amla_sandbox.RuntimeError, match="^No PCA provided."):
        Runtime(RuntimeConfig(trusted_authorities=[key]))
    other = EphemeralAuthority().public_key_hex()
    with pytest.raises(amla_sandbox.RuntimeError, match="^Failed to create runtime"):
        Runtime(RuntimeConfig(pca_bytes=pca, trusted_authorities=[other]))
    with pytest.raises(amla_sandbox.RuntimeError, match="^Failed to create runtime"):
        Runtime(RuntimeConfig(pca_bytes=b"\x00garbage", trusted_authorities=[key]))
    rt = Runtime(RuntimeConfig(pca_bytes=pca, trusted_authorities=[key]))
    assert rt.get_capabilities() == []
    rt.close()


def test_explicit_pca_sandbox_and_untrusted_pca():
    auth = EphemeralAuthority()
    pca = auth.create_pca().to_cbor()
    sb = amla_sandbox.Sandbox(pca=pca, trusted_authorities=[auth.public_key_hex()])
    assert sb.get_capabilities() == []  # no dev-mode defaulting
    assert not sb.can_call("mcp:anything")
    sb.close()
    with pytest.raises(amla_sandbox.RuntimeError):
        amla_sandbox.Sandbox(pca=pca, trusted_authorities=[EphemeralAuthority().public_key_hex()])


def test_runtime_status_and_error_classes():
    assert RuntimeStatus.ALL_DONE.value == "all_done"
    assert issubclass(amla_sandbox.TimeoutError, amla_sandbox.RuntimeError)
    assert issubclass(amla_sandbox.MemoryLimitError, amla_sandbox.RuntimeError)
    assert not issubclass(amla_sandbox.RuntimeError, builtins.RuntimeError)
    assert "TimeoutError" not in amla_sandbox.__all__ and len(amla_sandbox.__all__) == 43


def test_public_loop_misuse_errors():
    with amla_sandbox.Sandbox() as sb:
        with pytest.raises(builtins.RuntimeError, match="without id"):
            sb.resume(1)
        sb.start("return 1")
        with pytest.raises(builtins.RuntimeError, match="already in progress"):
            sb.start("return 2")
        assert sb.step() is None
        assert sb.result().stdout == "1\n"
    tools = [amla_sandbox.ToolDefinition("t", "t", {"type": "object"})]
    with amla_sandbox.Sandbox(tools=tools) as sb:
        sb.start("return await t({})")
        req = sb.step()
        with pytest.raises(amla_sandbox.RuntimeError, match="no tool request with id 999"):
            sb.resume(1, id=999)
        sb.resume({"fine": True}, id=req.id)
        assert sb.step() is None and sb.result().stdout == '{"fine":true}\n'
