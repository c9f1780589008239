"""Hostile-input benchmark (issue 7): per attack, the limit that applies, how
the run ended, how long it took to stop and what it cost the host.

Run after `pip install .` (or with PYTHONPATH at a built checkout):
    python bench/bench_hostile.py [--deadline SECONDS] [--only NAME ...]
Prints a Markdown table for docs/security.md. Each attack runs in its own
child process with a deadline, so a hang shows as "hung" instead of stopping
the benchmark; "Host RSS after" is the child's resident set after the attack
(a fresh interpreter with one sandbox starts near 60 MiB), "peak growth" how
far above its pre-attack RSS it went while the attack ran.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass

MiB = 1024 * 1024

# Helpers every attack script gets. `measure(fn)` runs fn, times it and
# tracks peak RSS (VmHWM after a reset, cross-checked by a 10 ms sampler).
PRELUDE = r'''
import asyncio, json, os, signal, sys, threading, time
import amla_sandbox
from amla_sandbox import MethodCapability, ConstraintSet, Param, Sandbox, ToolDefinition, Runtime, RuntimeConfig
MiB = 1024 * 1024

def _status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0

def tmp_note():
    """How much the host temp directory holds (the sandbox's files live there)."""
    total = 0
    for root, _dirs, files in os.walk(os.environ["TMPDIR"]):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                pass
    return f"(host temp dir {total / MiB:.0f} MiB)"

def warm(*sandboxes):
    """One JS and one shell run first, so that instantiating the guests is not
    counted as the attack's cost (returns the first sandbox)."""
    for sb in sandboxes:
        sb.execute("1")
        sb.shell("true")
    return sandboxes[0]

def tool(name, **props):
    return ToolDefinition(name=name, description=name,
                          parameters={"type": "object", "properties": {k: {"type": v} for k, v in props.items()}})

def measure(fn, stop_clock=None, note=None):
    """Run fn; report its outcome, seconds to stop, RSS before/peak/after.
    stop_clock: a dict whose "t0" (set by the attack) starts the clock instead;
    note: a callable whose text is added to the outcome."""
    before = _status("VmRSS")
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        hwm = True
    except OSError:
        hwm = False
    peak = [before]
    done = threading.Event()
    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], _status("VmRSS"))
            done.wait(0.01)
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    t0 = time.monotonic()
    try:
        value = fn()
        outcome = "returned" if not isinstance(value, str) else f"returned {len(value.encode())} bytes"
        if isinstance(value, str) and len(value) < 200:
            outcome = "returned " + repr(value.strip())[:80]
    except BaseException as e:
        name = type(e).__name__
        mod = type(e).__module__
        name = ("amla_sandbox." + name) if mod.startswith("amla_sandbox") else name
        outcome = f"{name}: {str(e).splitlines()[0][:80] if str(e) else ''}"
    t1 = time.monotonic()
    done.set()
    sampler.join()
    if hwm:
        peak[0] = max(peak[0], _status("VmHWM"))
    start = (stop_clock or {}).get("t0", t0)
    if note is not None:
        outcome += " " + note()
    report = {"outcome": outcome, "seconds": t1 - start, "rss_before": before, "rss_peak": peak[0],
              "rss_after": _status("VmRSS")}
    print("@@BENCH " + json.dumps(report), flush=True)
'''


@dataclass
class Attack:
    name: str
    limit: str
    code: str


ATTACKS = [
    Attack("JS infinite loop `while(true){}`", "timeout=2", """
sb = Sandbox(timeout=2)
warm(sb)
measure(lambda: sb.execute("while (true) {}"))
"""),
    Attack("shell `sleep 1d`", "timeout=2", """
sb = Sandbox(timeout=2)
warm(sb)
measure(lambda: sb.shell("sleep 1d"))
"""),
    Attack("shell `timeout 5 sleep 100`", "timeout=2", """
sb = Sandbox(timeout=2)
warm(sb)
measure(lambda: sb.shell("timeout 5 sleep 100"))
"""),
    Attack("JS `setTimeout` of 1 day", "timeout=2", """
sb = Sandbox(timeout=2)
warm(sb)
measure(lambda: sb.execute("await new Promise(r => setTimeout(r, 86400000))"))
"""),
    Attack("JS `await shell('sleep 100')`", "timeout=2", """
sb = Sandbox(timeout=2)
warm(sb)
measure(lambda: sb.execute("await shell('sleep 100')"))
"""),
    Attack("shell `yes` flood", "timeout=2, max_output_size default (32 MiB)", """
sb = Sandbox(timeout=2)
warm(sb)
measure(lambda: sb.shell("yes"))
"""),
    Attack("4 concurrent `yes` floods (4 sandboxes, 4 threads)", "timeout=2, memory_limit=64 MiB each", """
sbs = [Sandbox(timeout=2, memory_limit=64 * MiB) for _ in range(4)]
warm(*sbs)
def all4():
    errors = []
    def one(sb):
        try:
            sb.shell("yes")
        except BaseException as e:
            errors.append(type(e).__name__)
    ts = [threading.Thread(target=one, args=(sb,)) for sb in sbs]
    for t in ts: t.start()
    for t in ts: t.join()
    return "ends: " + ", ".join(sorted(errors) or ["all returned"])
measure(all4)
"""),
    Attack("JS `console.log` flood (64 MiB)", "max_output_size=1 MiB", """
sb = Sandbox(timeout=30, max_output_size=1 * MiB)
warm(sb)
measure(lambda: sb.execute("const s = 'x'.repeat(1 << 16); for (let i = 0; i < 1024; i++) console.log(s)"))
"""),
    Attack("JS 5,000 calls deep, then `node -e` of the same, twice nested", "guest stacks on threads of their own", """
sb = Sandbox(timeout=30)
warm(sb)
leaf = "const f = n => n === 0 ? 0 : f(n - 1) + 1; console.log('leaf', f(5000))"
code = leaf
for _ in range(2):
    code = ("function deep(n) { return n === 0 ? shell('node -e ' + JSON.stringify(%s)) : deep(n - 1) } "
            "deep(5000).then(r => console.log(r.stdout.trim()))") % (json.dumps(code),)
measure(lambda: sb.execute(code))
"""),
    Attack("JS `JSON.stringify` of a value nested 200,000 deep", "stringify depth limit (5,000)", """
sb = Sandbox(timeout=30)
warm(sb)
measure(lambda: sb.execute("let o = 1; for (let i = 0; i < 200000; i++) o = [o]; try { JSON.stringify(o) } catch (e) { console.log(e.name) }"))
"""),
    Attack("JS allocation bomb", "memory_limit=64 MiB", """
sb = Sandbox(memory_limit=64 * MiB, timeout=30)
warm(sb)
measure(lambda: sb.execute("const a = []; while (true) a.push('x'.repeat(1 << 20) + Math.random())"))
"""),
    Attack("200 denied calls with 1 MiB params", "memory_limit=64 MiB, constraint amount<=1000", """
caps = [MethodCapability(method_pattern="mcp:transfer", constraints=ConstraintSet([Param("amount") <= 1000]))]
sb = Sandbox(tools=[tool("transfer", amount="integer")], capabilities=caps, tool_handler=lambda m, p: p,
             timeout=60, memory_limit=64 * MiB)
warm(sb)
measure(lambda: sb.execute("const b = 'x'.repeat(1 << 20); let n = 0; for (let i = 0; i < 200; i++) await transfer({amount: 5000, b}).catch(() => n++); console.log(n)"))
"""),
    Attack("JS writes 1 MiB files in a loop (up to 2 GiB)", "disk_quota=64 MiB", """
sb = Sandbox(timeout=60, disk_quota=64 * MiB)
warm(sb)
measure(lambda: sb.execute("const c = 'x'.repeat(1 << 20); try { for (let i = 0; i < 2000; i++) await fs.writeFile('/workspace/f' + i, c) } catch (e) { console.log(e.code) }"),
        note=tmp_note)
"""),
    Attack("shell `yes > /workspace/big` (endless)", "disk_quota=64 MiB, timeout=20", """
sb = Sandbox(timeout=20, disk_quota=64 * MiB)
warm(sb)
measure(lambda: sb.shell("yes > /workspace/big; echo rc=$?"), note=tmp_note)
"""),
    Attack("shell awk `print > \"f\"` of 50 MB", "disk_quota=8 MiB", r"""
sb = Sandbox(timeout=20, disk_quota=8 * MiB)
warm(sb)
measure(lambda: sb.shell("awk 'BEGIN { s = sprintf(\"%1000000s\", \"x\"); for (i = 0; i < 50; i++) print s > \"f\" }'; echo rc=$?"),
        note=tmp_note)
"""),
    Attack("awk writing while another pipeline stage `cd`s", "no process-wide chdir", r"""
sb = Sandbox(timeout=20)
warm(sb)
measure(lambda: sb.shell("mkdir -p sub; seq 1 5000 | awk '{ print > \"o1\"; print }' | (cd sub && awk '{ n++ } END { print n }'); "
                         "ls /workspace/sub/o1 2>/dev/null || echo o1-stayed"))
"""),
    Attack("3 nested JS processes of ~100 MiB each (`shell('node - < f')`)", "memory_limit=256 MiB for the tree", """
sb = Sandbox(timeout=30, memory_limit=256 * MiB)
warm(sb)
hold = "globalThis.keep = []; for (let i = 0; i < 100; i++) keep.push(new Uint8Array(1 << 20).fill(1));"
l3 = hold + "console.log('L3')"
l2 = hold + "console.log((await shell('node - < /workspace/l3.js')).stdout)"
sb.execute(f"await fs.writeFile('/workspace/l3.js', {l3!r}); await fs.writeFile('/workspace/l2.js', {l2!r})")
def peak_note():
    r = sb.last_result
    return f"(reported peak {r.peak_memory_bytes / MiB:.0f} MiB)" if r else ""
measure(lambda: sb.execute(hold + "console.log((await shell('node - < /workspace/l2.js')).stdout)"), note=peak_note)
"""),
    Attack("40 tool calls of 6 MB params at once (async handler, 0.5 s each)", "memory_limit=64 MiB counts waiting params", """
async def slow(method, params):
    await asyncio.sleep(0.5)
    return len(params.get("s", ""))
sb = Sandbox(tools=[tool("t", s="string")], tool_handler=slow, timeout=60, memory_limit=64 * MiB)
warm(sb)
code = ("const s = 'x'.repeat(6e6); const rs = await Promise.allSettled(Array.from({length: 40}, () => t({s}))); "
        "console.log(rs.filter(r => r.status == 'fulfilled').length + ' granted')")
measure(lambda: asyncio.run(sb.execute_async(code)))
"""),
    Attack("40 un-awaited tool calls of 8 MB params (async handler, 0.5 s each)", "waiting params charged as the host holds them", """
async def slow(method, params):
    await asyncio.sleep(0.5)
    return 1
sb = Sandbox(tools=[tool("t", s="string")], tool_handler=slow, timeout=60, memory_limit=64 * MiB)
warm(sb)
code = ("const s = 'x'.repeat(8e6); let n = 0; const ps = []; "
        "for (let i = 0; i < 40; i++) ps.push(t({s}).then(() => n++, () => {})); await Promise.all(ps); console.log(n + ' granted')")
measure(lambda: asyncio.run(sb.execute_async(code)))
"""),
    Attack("40 tool calls each passing 200,000 empty dicts (600 KB of JSON, 14 MB in Python)", "waiting params charged as the host holds them", """
async def slow(method, params):
    await asyncio.sleep(0.5)
    return 1
sb = Sandbox(tools=[tool("t", s="string")], tool_handler=slow, timeout=60, memory_limit=64 * MiB)
warm(sb)
code = ("const d = JSON.parse('[' + Array(200000).fill('{}').join(',') + ']'); let n = 0; const ps = []; "
        "for (let i = 0; i < 40; i++) ps.push(t({s: d}).then(() => n++, () => {})); await Promise.all(ps); console.log(n + ' granted')")
measure(lambda: asyncio.run(sb.execute_async(code)))
"""),
    Attack("Python raw `_amla.submit` of \"admin\" and of a request with no method, under a `**` capability", "the host's tool-name rule", r"""
seen = []
sb = Sandbox(tools=[tool("echo", x="string")], tool_handler=lambda m, p: seen.append(m),
             capabilities=[MethodCapability(method_pattern="**")], timeout=30)
warm(sb)
sb.execute("1", language="python")
code = "import _amla, json\nfor r in [b'{\"method\":\"admin\"}', b'{\"params\":{}}']:\n    _amla.submit(r)\n    print(json.loads(bytes(_amla.wait(5000)).split(b'\\n')[0])['code'])"
measure(lambda: sb.execute(code, language="python") + f"handler saw {len(seen)}")
"""),
    Attack("60 tool calls in one run", "max_steps=50 (Runtime)", """
from amla_sandbox.auth import EphemeralAuthority
auth = EphemeralAuthority()
rt = Runtime(RuntimeConfig(pca_bytes=auth.create_pca(capabilities=["tool_call:**"]).to_cbor(),
    trusted_authorities=[auth.public_key_hex()], capabilities=[MethodCapability(method_pattern="**")],
    tool_handler=lambda m, p: 1, tools_json=json.dumps([tool("t").to_dict()]), max_steps=50, timeout=30))
rt.execute("true")
measure(lambda: rt.execute("for i in $(seq 60); do tool t > /dev/null; done"))
"""),
    Attack("params with a lone surrogate key", "payload check at the Go boundary", r"""
sb = Sandbox(tools=[tool("get_weather", city="string")], tool_handler=lambda m, p: p, timeout=30)
warm(sb)
measure(lambda: sb.execute(r"try { await get_weather({city: 'SF', ['\ud800']: 1}) } catch (e) { console.log('caught') }"))
"""),
    Attack("params nested 3,000 deep", "payload check at the Go boundary", """
sb = Sandbox(tools=[tool("get_weather", city="string")], tool_handler=lambda m, p: p, timeout=30)
warm(sb)
measure(lambda: sb.execute("let o = 1; for (let i = 0; i < 3000; i++) o = [o]; try { await get_weather({city: 'SF', x: o}) } catch (e) { console.log('caught') }"))
"""),
    Attack("`close()` from another thread during `sleep 100`", "close within 100 ms", """
sb = Sandbox(timeout=30)
warm(sb)
clock = {}
def closer():
    time.sleep(0.5)
    clock["t0"] = time.monotonic()
    sb.close()
    clock["close_s"] = time.monotonic() - clock["t0"]
threading.Thread(target=closer, daemon=True).start()
def closed_note():
    time.sleep(0.01) if "close_s" not in clock else None
    return f"(close() returned in {clock['close_s']:.3f} s)" if "close_s" in clock else "(close() still blocked)"
measure(lambda: sb.shell("sleep 100"), clock, closed_note)
"""),
    Attack("`asyncio.wait_for(execute_async('while(true){}'), 0.5)`", "cancellation within 100 ms", """
sb = Sandbox(timeout=30)
warm(sb)
clock = {}
async def main():
    async def stamp():
        await asyncio.sleep(0.5)
        clock["t0"] = time.monotonic()
    asyncio.ensure_future(stamp())
    await asyncio.wait_for(sb.execute_async("while (true) {}"), 0.5)
measure(lambda: asyncio.run(main()), clock)
"""),
    Attack("SIGINT during `while(true){}`", "timeout=30; Ctrl-C within 1 s", """
sb = Sandbox(timeout=30)
warm(sb)
clock = {}
def interrupt():
    time.sleep(0.5)
    clock["t0"] = time.monotonic()
    os.kill(os.getpid(), signal.SIGINT)
threading.Thread(target=interrupt, daemon=True).start()
measure(lambda: sb.execute("while (true) {}"), clock)
"""),
]


def run_attack(attack: Attack, deadline: float) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as tmp:
        env = dict(os.environ, TMPDIR=tmp, PYTHONUNBUFFERED="1")
        source = PRELUDE + textwrap.dedent(attack.code)
        t0 = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-c", source], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, errors="replace", env=env, cwd=tmp, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=deadline)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.communicate()
            return {"outcome": f"**hung** (killed after {deadline:.0f} s)", "seconds": None}
        for line in out.splitlines():
            if line.startswith("@@BENCH "):
                report = json.loads(line[len("@@BENCH "):])
                if proc.returncode != 0:
                    report["outcome"] += f" (process exit {proc.returncode})"
                return report
        last = (err.strip().splitlines() or ["no output"])[-1]
        return {"outcome": f"**crashed/failed** (exit {proc.returncode}): {last[:100]}",
                "seconds": time.monotonic() - t0}


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deadline", type=float, default=60.0, help="seconds before an attack counts as hung")
    ap.add_argument("--only", nargs="*", help="substrings of attack names to run")
    args = ap.parse_args()
    attacks = [a for a in ATTACKS if not args.only or any(s.lower() in a.name.lower() for s in args.only)]
    # Compile and cache the guests once, outside every measurement.
    warmup = run_attack(Attack("warm-up", "", "sb = Sandbox()\nwarm(sb)\nmeasure(lambda: None)"), 600)
    if "rss_after" not in warmup:
        print(f"warm-up failed: {warmup['outcome']}", file=sys.stderr)
    print("| Attack | Limit | Outcome | Time to stop | Host RSS after | Peak RSS growth |")
    print("|---|---|---|---|---|---|")
    for attack in attacks:
        r = run_attack(attack, args.deadline)
        seconds = "—" if r.get("seconds") is None else f"{r['seconds']:.2f} s"
        rss_after = f"{r['rss_after'] / MiB:.0f} MiB" if "rss_after" in r else "—"
        growth = f"{(r['rss_peak'] - r['rss_before']) / MiB:.0f} MiB" if "rss_peak" in r else "—"
        print(f"| {cell(attack.name)} | {cell(attack.limit)} | {cell(r['outcome'])} | {seconds} | {rss_after} | {growth} |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
