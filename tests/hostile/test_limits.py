"""Issue 7, item 6: every limit also bounds the host.

Output floods, denied calls with huge params, disk writes and tool-call
loops are each stopped by their limit, and the host process (RSS, temp
directory) grows only by a bounded amount. Figures are measured in child
processes; bounds are generous (a regression shows as gigabytes, not MiB).
"""

from __future__ import annotations

import json
import re

import pytest

from _hostile import ChildRun, check_child, spawn_isolated

MiB = 1024 * 1024
DEADLINE_S = 30.0

SCENARIOS = {
    # four concurrent `yes` floods, one sandbox each, timeout=2, memory_limit=64 MiB
    "yes_floods": r'''
sandboxes = [Sandbox(timeout=2, memory_limit=64 * MiB) for _ in range(4)]
for sb in sandboxes:  # instantiate the guests before measuring
    sb.shell("true")
outcomes = [None] * 4
def flood(i):
    outcomes[i] = attempt(lambda: len(sandboxes[i].shell("yes")))
def all_floods():
    threads = [threading.Thread(target=flood, args=(i,)) for i in range(4)]
    for t in threads: t.start()
    for t in threads: t.join()
emit(group=measure_rss(all_floods), floods=outcomes, max_output=getattr(sandboxes[0], "max_output_size", None))
emit(after=[attempt(lambda: sb.execute("console.log(1)")) for sb in sandboxes])
''',
    # stdout is capped at max_output_size with a truncation marker
    "stdout_cap_js": r'''
sb = Sandbox(timeout=10, max_output_size=1 * MiB)
out = attempt(lambda: ends(sb.execute("const s = 'x'.repeat(1 << 16); for (let i = 0; i < 64; i++) console.log(s)")))
res = sb.last_result
emit(first=out, stdout_len=out["value"]["len"] if out["ok"] else None,
     stdout_tail=out["value"]["tail"] if out["ok"] else None,
     stderr_tail=(res.stderr[-300:] if res else None))
emit(after=attempt(lambda: sb.execute("console.log(1)")))
''',
    "stderr_cap_js": r'''
sb = Sandbox(timeout=10, max_output_size=1 * MiB)
out = attempt(lambda: sb.execute("const s = 'x'.repeat(1 << 16); for (let i = 0; i < 64; i++) console.error(s)"))
res = sb.last_result
emit(first={k: v for k, v in out.items() if k != "value"}, stderr_len=len(res.stderr) if res else None,
     stderr_tail=(res.stderr[-300:] if res else None))
emit(after=attempt(lambda: sb.execute("console.log(1)")))
''',
    "stdout_cap_shell_flood": r'''
sb = Sandbox(timeout=5, max_output_size=1 * MiB, memory_limit=64 * MiB)
sb.shell("true")  # instantiate the guest before measuring
out = measure_rss(lambda: ends(sb.shell("yes")))
res = sb.last_result
emit(first=out, stdout_len=out["value"]["len"] if out["ok"] else None,
     stdout_tail=out["value"]["tail"] if out["ok"] else None, stderr_tail=(res.stderr[-300:] if res else None))
emit(after=attempt(lambda: sb.execute("console.log(1)")))
''',
    # denied calls with 1 MiB params under memory_limit=64 MiB (N is 20, or 200 in the slow test)
    "denied_megabyte_calls": r'''
caps = [MethodCapability(method_pattern="mcp:transfer", constraints=ConstraintSet([Param("amount") <= 1000]))]
sb = Sandbox(tools=[tool("transfer", amount="integer")], capabilities=caps, tool_handler=echo_handler,
             timeout=150, memory_limit=64 * MiB)
sb.execute("console.log(1)")
code = "const blob = 'x'.repeat(1 << 20); let n = 0; for (let i = 0; i < N; i++) await transfer({amount: 5000, blob}).catch(() => n++); console.log(n)"
out = measure_rss(lambda: sb.execute(code.replace("N", str(N))))
calls = sb.last_result.tool_calls if sb.last_result else []
emit(first=out, calls=len(calls), recorded_bytes=sum(len(json.dumps(c.params, default=repr)) for c in calls))
emit(after=attempt(lambda: sb.execute("console.log(1)")))
''',
    # writing files in a loop hits the disk quota: ENOSPC, old files intact, host temp dir bounded
    "disk_quota_js": r'''
tmp = os.environ["TMPDIR"]
sb = Sandbox(timeout=20, disk_quota=8 * MiB)
sb.execute("await fs.writeFile('/workspace/keep.txt', 'kept')")
code = """
const chunk = 'x'.repeat(1 << 20); let n = 0, err = null;
try { for (let i = 0; i < 100; i++) { await fs.writeFile('/workspace/f' + i, chunk); n++ } }
catch (e) { err = String(e.code) + ' ' + e.message }
console.log(JSON.stringify({n, err}))
"""
out = attempt(lambda: sb.execute(code))
emit(first=out, tmp_bytes=dir_bytes(tmp))
emit(keep=attempt(lambda: sb.execute("console.log(await fs.readFile('/workspace/keep.txt', 'utf8'))")))
emit(freed=attempt(lambda: sb.shell("rm -f /workspace/f*; yes | head -c 1048576 > /workspace/again && wc -c < /workspace/again")))
''',
    "disk_quota_append_js": r'''
tmp = os.environ["TMPDIR"]
sb = Sandbox(timeout=20, disk_quota=8 * MiB)
code = """
const chunk = 'y'.repeat(1 << 18); let n = 0, err = null;
try { for (let i = 0; i < 200; i++) { await fs.appendFile('/workspace/one', chunk); n++ } }
catch (e) { err = String(e.code) + ' ' + e.message }
console.log(JSON.stringify({n, err}))
"""
emit(first=attempt(lambda: sb.execute(code)), tmp_bytes=dir_bytes(tmp))
emit(after=attempt(lambda: sb.execute("console.log(1)")))
''',
    "disk_quota_shell": r'''
tmp = os.environ["TMPDIR"]
sb = Sandbox(timeout=20, disk_quota=8 * MiB)
sb.shell("echo kept > /workspace/keep.txt")
emit(first=attempt(lambda: sb.shell("yes | head -c 50000000 > /workspace/big; echo rc=$?")),
     stderr=(sb.last_result.stderr[-500:] if sb.last_result else None), tmp_bytes=dir_bytes(tmp))
emit(keep=attempt(lambda: sb.shell("cat /workspace/keep.txt")))
''',
    "default_limits": r'''
sb = Sandbox()
emit(max_output_size=getattr(sb, "max_output_size", None), disk_quota=getattr(sb, "disk_quota", None))
''',
    # tool calls per run are capped: Runtime max_steps=50, a script making 60 calls
    "max_steps_shell": r'''
from amla_sandbox.auth import EphemeralAuthority
auth = EphemeralAuthority()
calls = []
def handler(method, params):
    calls.append(method)
    return "ok"
rt = Runtime(RuntimeConfig(
    pca_bytes=auth.create_pca(capabilities=["tool_call:**"]).to_cbor(),
    trusted_authorities=[auth.public_key_hex()],
    capabilities=[MethodCapability(method_pattern="**")],
    tool_handler=handler,
    tools_json=json.dumps([tool("t").to_dict()]),
    max_steps=50,
    timeout=20,
))
emit(first=attempt(lambda: rt.execute("for i in $(seq 60); do tool t > /dev/null; done; echo finished")), handled=len(calls))
calls.clear()
emit(after=attempt(lambda: rt.execute("tool t")), handled_after=len(calls))
''',
    "max_steps_js": r'''
from amla_sandbox.auth import EphemeralAuthority
auth = EphemeralAuthority()
calls = []
def handler(method, params):
    calls.append(method)
    return "ok"
rt = Runtime(RuntimeConfig(
    pca_bytes=auth.create_pca(capabilities=["tool_call:**"]).to_cbor(),
    trusted_authorities=[auth.public_key_hex()],
    capabilities=[MethodCapability(method_pattern="**")],
    tool_handler=handler,
    tools_json=json.dumps([tool("t").to_dict()]),
    max_steps=50,
    timeout=20,
))
def run_js():
    rt.start("for (let i = 0; i < 60; i++) await t({}); console.log('finished')", language="javascript")
    while rt.has_work():
        req = rt.step()
        rt.resume(handler(req.method, req.params), id=req.id)
    res = rt.result()
    res._raise_for_error() if hasattr(res, "_raise_for_error") else None
    return res.stdout
emit(first=attempt(run_js), handled=len(calls))
''',
}


class Scenarios:
    """Each scenario run once, on first use, alone (these measure the host on two cores)."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory) -> None:
        self._tmp = tmp_path_factory
        self._done: dict[str, ChildRun] = {}

    def __getitem__(self, name: str) -> ChildRun:
        if name not in self._done:
            base, _, n = name.partition(":")
            code = SCENARIOS[base]
            prelude = "MiB = 1024 * 1024\n" + (f"N = {n}\n" if n else "")
            deadline = DEADLINE_S if not n else 180.0
            tmp = self._tmp.mktemp(base)
            self._done[name] = spawn_isolated(prelude + code, deadline, env={"TMPDIR": str(tmp)})
        return self._done[name]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Scenarios:
    return Scenarios(tmp_path_factory)


def test_concurrent_yes_floods_end_at_their_timeout_and_bound_host_rss(runs: Scenarios) -> None:
    child = check_child(runs["yes_floods"])
    max_output = child["max_output"] or 32 * MiB
    problems = []
    for i, flood in enumerate(child["floods"]):
        if flood is None:
            problems.append(f"flood {i} never ended")
            continue
        if flood["dt"] >= 4.0:
            problems.append(f"flood {i} ran {flood['dt']:.1f}s under timeout=2")
        if flood["ok"] and flood["value"] > max_output + 4096:
            problems.append(f"flood {i} returned {flood['value']} bytes of stdout")
        if not flood["ok"] and flood["type"] != "amla_sandbox.TimeoutError":
            problems.append(f"flood {i} ended with {flood['type']}: {flood['msg']:.200}")
    # Per run: memory_limit + 64 MiB + one capped output (the returned string).
    bound = 4 * (64 * MiB + 64 * MiB + max_output)
    growth = child["group"]["rss_growth"]
    if growth >= bound:
        problems.append(f"host RSS grew {growth / MiB:.0f} MiB during 4 floods (bound {bound / MiB:.0f} MiB)")
    for i, after in enumerate(child["after"]):
        if not (after["ok"] and after["value"] == "1\n"):
            problems.append(f"sandbox {i} after the flood: {after}")
    assert not problems, "; ".join(problems)


TRUNCATION = re.compile(r"truncat|output limit|max_output", re.I)


@pytest.mark.parametrize("name", ["stdout_cap_js", "stdout_cap_shell_flood"])
def test_stdout_is_capped_with_a_marker(name: str, runs: Scenarios) -> None:
    child = check_child(runs[name])
    first = child["first"]
    if name == "stdout_cap_shell_flood" and not first["ok"]:
        # An endless flood may instead end at its timeout; then the host must not have buffered it.
        assert first["type"] == "amla_sandbox.TimeoutError", first
        assert first["dt"] < 7, first
    else:
        assert first["ok"], first
        assert child["stdout_len"] <= 1 * MiB + 1024, f"stdout of {child['stdout_len']} bytes with max_output_size=1 MiB"
        marker = (child["stdout_tail"] or "") + (child["stderr_tail"] or "")
        assert TRUNCATION.search(marker), f"no truncation marker: stdout …{child['stdout_tail']!r:.200} stderr …{child['stderr_tail']!r:.200}"
    if "rss_growth" in first:
        # One run: memory_limit (64 MiB) + 64 MiB + the 1 MiB of output it returns.
        assert first["rss_growth"] < 129 * MiB, f"host RSS grew {first['rss_growth'] / MiB:.0f} MiB"
    assert child["after"]["value"] == "1\n", child["after"]


def test_stderr_is_capped_with_a_marker(runs: Scenarios) -> None:
    child = check_child(runs["stderr_cap_js"])
    assert child["first"]["ok"], child["first"]
    assert child["stderr_len"] is not None and child["stderr_len"] <= 1 * MiB + 1024, child["stderr_len"]
    assert TRUNCATION.search(child["stderr_tail"] or ""), f"no truncation marker: …{child['stderr_tail']!r:.200}"
    assert child["after"]["value"] == "1\n", child["after"]


@pytest.mark.parametrize(
    "calls", [20, pytest.param(200, marks=[pytest.mark.slow, pytest.mark.timeout(400)])], ids=["x20", "x200"]
)
def test_denied_calls_with_megabyte_params_bound_host_rss(calls: int, runs: Scenarios) -> None:
    child = check_child(runs[f"denied_megabyte_calls:{calls}"])
    first = child["first"]
    assert first["ok"] and first["value"] == f"{calls}\n", first
    growth = first["rss_growth"]
    assert growth < 128 * MiB, f"host RSS grew {growth / MiB:.0f} MiB for denied calls (memory_limit 64 MiB + 64 MiB)"
    assert child["calls"] == calls, child["calls"]
    assert child["recorded_bytes"] < calls * 64 * 1024, f"recorded params total {child['recorded_bytes'] / MiB:.1f} MiB"
    assert child["after"]["value"] == "1\n"


@pytest.mark.parametrize("name", ["disk_quota_js", "disk_quota_append_js"])
def test_disk_quota_gives_enospc_and_bounds_the_host_temp_dir(name: str, runs: Scenarios) -> None:
    child = check_child(runs[name])
    first = child["first"]
    assert first["ok"], first
    assert first["dt"] < 10, first
    report = json.loads(first["value"].strip().splitlines()[-1])
    assert report["err"] and "ENOSPC" in report["err"], f"no ENOSPC: {report}"
    written = report["n"] * (1 if name == "disk_quota_js" else 0.25)
    assert written <= 8, f"{written} MiB written under an 8 MiB quota"
    assert child["tmp_bytes"] < 8 * MiB + 8 * MiB, f"host temp dir holds {child['tmp_bytes'] / MiB:.1f} MiB (quota 8 MiB)"
    if name == "disk_quota_js":
        assert child["keep"]["value"] == "kept\n", f"an existing file changed: {child['keep']}"
        # Quota accounting is live: deleting frees room again.
        assert child["freed"]["ok"] and child["freed"]["value"].strip() == "1048576", child["freed"]
    else:
        assert child["after"]["value"] == "1\n"


def test_disk_quota_from_the_shell(runs: Scenarios) -> None:
    child = check_child(runs["disk_quota_shell"])
    first = child["first"]
    assert first["ok"], first
    assert "rc=0" not in first["value"], f"writing 50 MB under an 8 MiB quota succeeded: {first}"
    assert re.search(r"ENOSPC|no space left", child["stderr"] or "", re.I), child["stderr"]
    assert child["tmp_bytes"] < 16 * MiB, f"host temp dir holds {child['tmp_bytes'] / MiB:.1f} MiB"
    assert child["keep"]["value"] == "kept\n", child["keep"]


def test_default_output_and_disk_limits(runs: Scenarios) -> None:
    child = check_child(runs["default_limits"])
    assert child["max_output_size"] == 32 * MiB, child["max_output_size"]
    assert child["disk_quota"] == 1024 * MiB, child["disk_quota"]


@pytest.mark.parametrize("name", ["max_steps_shell", "max_steps_js"])
def test_tool_calls_per_run_are_capped_by_max_steps(name: str, runs: Scenarios) -> None:
    child = check_child(runs[name])
    first = child["first"]
    assert not first["ok"], f"60 tool calls ran under max_steps=50: {first}"
    assert first["type"] == "amla_sandbox.RuntimeError", first
    assert "maximum steps" in first["msg"], first
    assert child["handled"] <= 50, f"the handler was called {child['handled']} times"
    if name == "max_steps_shell":
        assert child["after"]["ok"] and child["handled_after"] == 1, (child["after"], child["handled_after"])
