"""Issue 16, items 2, 3, 4 and 6: every limit is charged in the host.

- awk's own file writes (`print > "f"`) go through the disk quota;
- awk does not move the files of another pipeline stage (no process-wide chdir);
- nested processes (shell() from JavaScript, node from the shell) share
  memory_limit: their sum stays within it;
- the params of tool requests waiting for answers count against memory_limit.

Each scenario runs in a child process with a deadline; figures for
docs/security.md come from bench/bench_hostile.py.
"""

from __future__ import annotations

import json

import pytest

from _hostile import ChildRun, check_child, spawn_isolated

MiB = 1024 * 1024
DEADLINE_S = 60.0

SCENARIOS = {
    # awk writing 50 MB past an 8 MiB quota, with print > and printf >>
    "awk_quota": r'''
tmp = os.environ["TMPDIR"]
sb = Sandbox(timeout=20, disk_quota=8 * MiB)
sb.shell("echo kept > /workspace/keep.txt")
script = """awk 'BEGIN { s = sprintf("%1000000s", "x"); for (i = 0; i < 50; i++) print s > "f" }'; echo rc=$?
awk 'BEGIN { for (i = 0; i < 50; i++) printf "%1000000s", "y" >> "g" }'; echo rc=$?"""
out = attempt(lambda: sb.shell(script))
emit(first=out, stderr=(sb.last_result.stderr[-800:] if sb.last_result else None), tmp_bytes=dir_bytes(tmp))
emit(keep=attempt(lambda: sb.shell("cat /workspace/keep.txt")))
emit(freed=attempt(lambda: sb.shell("rm -f /workspace/f /workspace/g; awk 'BEGIN { print 12 > \"h\" }'; cat h")))
''',
    # a pipeline whose second stage changes directory while the first writes
    "awk_cwd": r'''
sb = Sandbox(timeout=20)
script = """mkdir -p /workspace/sub
seq 1 5000 | awk '{ print > "o1"; print }' | (cd /workspace/sub && awk '{ print > "o2" }')
(cd /workspace/sub && seq 1 3 | awk '{ print > "o3" }') | seq 1 2000 | awk '{ print > "o4" }'
ls /workspace; echo --; ls /workspace/sub"""
emit(listing=attempt(lambda: sb.shell(script)))
''',
    # three nested JavaScript processes, each holding HOLD MiB, under memory_limit=256 MiB
    "nested_js": r'''
sb = Sandbox(timeout=30, memory_limit=256 * MiB)
sb.execute("console.log(1)")
hold = "globalThis.keep = []; for (let i = 0; i < HOLD; i++) keep.push(new Uint8Array(1 << 20).fill(1));"
l3 = hold + "console.log('L3 held')"
l2 = hold + "console.log('L2 held'); console.log((await shell('node - < /workspace/l3.js')).stdout)"
code = f"""
await fs.writeFile('/workspace/l3.js', {l3!r});
await fs.writeFile('/workspace/l2.js', {l2!r});
{hold}
console.log('L1 held');
const r = await shell('node - < /workspace/l2.js');
console.log(r.stdout, r.exitCode);
"""
out = measure_rss(lambda: sb.execute(code))
res = sb.last_result
emit(first=out, peak=(res.peak_memory_bytes if res else None))
emit(after=attempt(lambda: sb.execute("console.log(1)")))
''',
    # the parent holds most of memory_limit (60 MiB of data: ~125 MiB of linear memory): the child is refused with a clear error
    "nested_refused": r'''
sb = Sandbox(timeout=30, memory_limit=128 * MiB)
code = """globalThis.keep = []; for (let i = 0; i < 60; i++) keep.push(new Uint8Array(1 << 20).fill(1));
const r = await shell('echo child ran');
console.log(JSON.stringify({code: r.exitCode, out: r.stdout, err: r.stderr}))"""
emit(first=attempt(lambda: sb.execute(code)))
emit(after=attempt(lambda: sb.execute("console.log((await shell('echo fine')).stdout)")))
''',
    # 40 tool calls of 6 MB params at once (async handlers that take 0.5 s), memory_limit=64 MiB
    "queued_params": r'''
async def handler(method, params):
    await asyncio.sleep(0.5)
    return len(params.get("s", ""))
sb = Sandbox(tools=[tool("t", s="string")], tool_handler=handler, memory_limit=64 * MiB, timeout=60)
sb.execute("console.log(1)")
code = """const s = 'x'.repeat(6e6);
const rs = await Promise.allSettled(Array.from({length: 40}, () => t({s})));
const bad = rs.find(r => r.status == 'rejected');
console.log(JSON.stringify({ok: rs.filter(r => r.status == 'fulfilled').length, why: bad ? bad.reason.message : null}))"""
out = measure_rss(lambda: asyncio.run(sb.execute_async(code)))
emit(first=out)
emit(after=attempt(lambda: asyncio.run(sb.execute_async("console.log(await t({s: 'small'}))"))))
''',
}


class Scenarios:
    def __init__(self, tmp_path_factory: pytest.TempPathFactory) -> None:
        self._tmp = tmp_path_factory
        self._done: dict[str, ChildRun] = {}

    def __getitem__(self, name: str) -> ChildRun:
        if name not in self._done:
            base, _, n = name.partition(":")
            prelude = "MiB = 1024 * 1024\n"
            code = SCENARIOS[base].replace("HOLD", n or "0")
            tmp = self._tmp.mktemp(base)
            self._done[name] = spawn_isolated(prelude + code, DEADLINE_S, env={"TMPDIR": str(tmp)})
        return self._done[name]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Scenarios:
    return Scenarios(tmp_path_factory)


def test_awk_redirects_are_held_to_the_disk_quota(runs: Scenarios) -> None:
    child = check_child(runs["awk_quota"])
    first = child["first"]
    assert first["ok"], first
    assert first["value"].count("rc=2") == 2, f"awk did not fail at the quota: {first['value']!r}, stderr {child['stderr']!r}"
    assert "No space left on device" in child["stderr"], child["stderr"]
    # the sandbox's files (and so the temp dir holding them) stay near the quota
    assert child["tmp_bytes"] <= 9 * MiB, f"awk wrote {child['tmp_bytes'] / MiB:.1f} MiB under an 8 MiB quota"
    assert child["keep"]["ok"] and child["keep"]["value"] == "kept\n", child["keep"]
    assert child["freed"]["ok"] and child["freed"]["value"] == "12\n", child["freed"]


def test_awk_writes_land_in_the_directory_of_its_own_stage(runs: Scenarios) -> None:
    listing = check_child(runs["awk_cwd"])["listing"]
    assert listing["ok"], listing
    top, _, sub = listing["value"].partition("--\n")
    assert set(top.split()) == {"o1", "o4", "sub"}, listing["value"]
    assert set(sub.split()) == {"o2", "o3"}, listing["value"]


def test_nested_processes_share_memory_limit(runs: Scenarios) -> None:
    child = check_child(runs["nested_js:100"])
    first = child["first"]
    # three processes of ~100 MiB each cannot all fit in 256 MiB: the run
    # ends as a memory error (a child at its share), not with 300+ MiB held
    assert not first["ok"] and first["type"] == "amla_sandbox.MemoryLimitError", first
    assert "memory_limit=268435456" in first["msg"], first["msg"]
    assert child["peak"] is None or child["peak"] <= 256 * MiB, child["peak"]
    grew = first["rss_peak"] - first["rss_before"]
    assert grew < 300 * MiB, f"host RSS grew {grew / MiB:.0f} MiB for a 256 MiB run"
    assert child["after"]["ok"] and child["after"]["value"] == "1\n", child["after"]


def test_nested_processes_that_fit_still_run(runs: Scenarios) -> None:
    child = check_child(runs["nested_js:10"])
    first = child["first"]
    assert first["ok"] and "L3 held" in first["value"], first
    assert 0 < child["peak"] <= 256 * MiB, child["peak"]


def test_a_child_that_cannot_get_its_minimum_is_refused(runs: Scenarios) -> None:
    child = check_child(runs["nested_refused"])
    first = child["first"]
    assert first["ok"], first
    assert '"code":126' in first["value"] and "memory_limit=134217728" in first["value"], first["value"]
    assert "child ran" not in first["value"], first["value"]
    assert child["after"]["ok"] and child["after"]["value"] == "fine\n\n", child["after"]


def test_queued_tool_params_count_against_memory_limit(runs: Scenarios) -> None:
    child = check_child(runs["queued_params"])
    first = child["first"]
    assert first["ok"], first
    value = json.loads(first["value"])
    assert value["ok"] < 40, value
    assert "Tool request refused" in value["why"] and "memory_limit=67108864" in value["why"], value
    grew = first["rss_peak"] - first["rss_before"]
    assert grew < 200 * MiB, f"host RSS grew {grew / MiB:.0f} MiB (before the fix: ~370 MiB)"
    assert child["after"]["ok"] and child["after"]["value"] == "5\n", child["after"]
