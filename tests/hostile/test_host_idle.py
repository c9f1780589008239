"""Issue 16, item 7 (host pieces): what idle sandboxes cost the host, and
compiled guests on disk that are not ours.

- a sandbox that has run and sits idle keeps no instance for long: at most a
  bounded number of sandboxes keep a spare (docs/architecture.md);
- a tampered compiled artifact in the module cache is compiled again, never
  loaded (docs/security.md, "Compiled guests on disk").
"""

from __future__ import annotations

from pathlib import Path

from _hostile import check_child, spawn_isolated

MiB = 1024 * 1024


def test_idle_sandboxes_cost_little_host_memory() -> None:
    child = check_child(
        spawn_isolated(
            r'''
import gc
warm = [Sandbox() for _ in range(5)]
for sb in warm:
    sb.execute("console.log(1)")
gc.collect()
before = rss_bytes()
sandboxes = [Sandbox() for _ in range(300)]
for sb in sandboxes:
    sb.execute("console.log(1)")
gc.collect()
emit(per_sandbox=(rss_bytes() - before) / 300)
for _ in range(50):
    sandboxes[-1].execute("console.log(1)")
emit(warm_ok=True)
''',
            120.0,
        )
    )
    # 0.73 MB each before the spares of idle sandboxes were released
    assert child["per_sandbox"] < 0.25 * MiB, f"{child['per_sandbox'] / MiB:.2f} MiB per idle sandbox"
    assert child["warm_ok"]


def test_a_swapped_compiled_guest_is_recompiled_not_loaded(tmp_path: Path) -> None:
    """The guests' artifacts are replaced by another valid artifact (an
    empty module's, which wasmtime itself would load without complaint): the
    next runs compile the guests again and work. Every guest runs, because an
    installed package links every artifact it ships into the cache."""
    cache = tmp_path / "cache"
    script = r'''
from amla_sandbox import _wasm
sb = Sandbox()
emit(out=attempt(lambda: sb.execute("console.log(6 * 7)")), sh=attempt(lambda: sb.shell("echo $((6 * 7))")))
if _wasm.get_py_wasm_path().is_file():
    emit(py=attempt(lambda: sb.python("6 * 7")))
'''
    first = check_child(spawn_isolated(script, 180.0, env={"AMLA_CACHE_DIR": str(cache)}))
    assert first["out"]["value"] == "42\n", first["out"]
    assert first["sh"]["value"] == "42\n", first["sh"]
    artifacts = sorted(cache.glob("*.cwasm"))
    assert artifacts, f"no artifact in {cache}: {list(cache.iterdir())}"
    empty = tmp_path / "empty.wasm"
    empty.write_bytes(b"\0asm\1\0\0\0")
    other = check_child(
        spawn_isolated(
            f"from amla_sandbox.runtime.cache import precompile_module\nemit(path=str(precompile_module({str(empty)!r})))",
            180.0,
            env={"AMLA_CACHE_DIR": str(tmp_path / "other")},
        )
    )
    swapped = Path(other["path"]).read_bytes()
    for art in artifacts:
        # A new file renamed over the old one: the cache may hold a hard
        # link to the artifact the package ships, which must stay intact.
        tmp = art.with_suffix(".swap")
        tmp.write_bytes(swapped)
        tmp.replace(art)
    second = check_child(spawn_isolated(script, 180.0, env={"AMLA_CACHE_DIR": str(cache)}))
    assert second["out"]["ok"] and second["out"]["value"] == "42\n", second["out"]
    assert second["sh"]["ok"] and second["sh"]["value"] == "42\n", second["sh"]
    if first.get("py") is not None:
        assert first["py"]["value"] == "42\n", first["py"]
        assert second["py"]["ok"] and second["py"]["value"] == "42\n", second["py"]
    for art in artifacts:
        assert not art.exists() or art.read_bytes() != swapped, f"{art.name} is still the swapped file"
