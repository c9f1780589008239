"""Issue 24, items 7, 8, 9 and 16: runs that wait on each other, and the
sandbox closed under a run.

- runs blocked in a tool whose handler runs a script in another sandbox do
  not hold the worker slots that script needs: 40 of them at once all finish
  (before, 32 such runs never finished and no timeout fired);
- a run waiting for a worker ends at its deadline, counted from its start;
- execute_async refuses a handler that runs a script on its own sandbox,
  with the message the synchronous path gives (before, it hung);
- close() from another thread mid-run neither raises nor leaves the MCP
  server the sandbox started running (before: "Cannot close a running
  event loop", and the server kept running);
- on_output under execute_async is called on the event loop's thread, and a
  handler closing its sandbox leaves no "Task exception was never retrieved".

Every scenario runs in a child process with a deadline (docs/architecture.md,
"Guests are processes"; docs/limits.md, "What counts as time").
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from _hostile import run_isolated, spawn_isolated

SERVERS = Path(__file__).resolve().parent.parent / "mcp_servers"


def test_runs_waiting_on_scripts_in_other_sandboxes_all_finish() -> None:
    child = run_isolated(
        r'''
import threading
N = 40  # more than the 32 runs that compute at once
inner = [Sandbox(timeout=10) for _ in range(N)]
blocked = threading.Barrier(N)

def handler_for(i):
    def handler(method, params):
        blocked.wait(30)  # every run is now waiting in its tool call
        return inner[i].execute("console.log('inner', %d)" % i)
    return handler

outer = [Sandbox(tools=[tool("nested")], tool_handler=handler_for(i), timeout=10) for i in range(N)]
outcomes = [None] * N
go = threading.Barrier(N)

def drive(i):
    go.wait(30)
    outcomes[i] = attempt(lambda: outer[i].execute("console.log((await nested({})).trim())"))

started = time.monotonic()
threads = [threading.Thread(target=drive, args=(i,), daemon=True) for i in range(N)]
for t in threads:
    t.start()
end = started + 40
for t in threads:
    t.join(max(0.0, end - time.monotonic()))
emit(finished=sum(o is not None for o in outcomes), dt=time.monotonic() - started,
     outcomes=[o for o in outcomes if o is not None and (not o["ok"] or o["value"].split()[0] != "inner")][:3])
os._exit(0)  # runs that never finished would keep the interpreter from exiting
''',
        90.0,
    )
    assert child["finished"] == 40, f"{child['finished']} of 40 runs finished in {child['dt']:.1f}s"
    assert child["outcomes"] == [], child["outcomes"]
    assert child["dt"] < 30, child["dt"]


def test_a_run_waiting_for_a_worker_times_out_from_its_start() -> None:
    child = run_isolated(
        r'''
import threading
spinners = [Sandbox(timeout=20) for _ in range(32)]
for sb in spinners:
    sb.execute("1")
threads = [threading.Thread(target=lambda sb=sb: attempt(lambda: sb.execute("while (true) {}")), daemon=True)
           for sb in spinners]
for t in threads:
    t.start()
time.sleep(1.5)  # every worker slot computes now
late = Sandbox(timeout=0.5)
emit(late=attempt(lambda: late.execute("console.log('ran')")))
for sb in spinners:
    sb.cancel()
for t in threads:
    t.join(10)
emit(after=attempt(lambda: late.execute("console.log('ran')")))
''',
        90.0,
    )
    late = child["late"]
    # Before: it waited for a worker (20 s) and then ran with a fresh 0.5 s.
    assert not late["ok"] and late["type"] == "amla_sandbox.TimeoutError", late
    assert late["dt"] < 5, late
    assert child["after"]["value"] == "ran\n", child["after"]


def test_execute_async_refuses_reentrancy_like_execute() -> None:
    child = run_isolated(
        r'''
sb = None

async def handler(method, params):
    return await sb.execute_async("console.log('inner')")

def sync_handler(method, params):
    return sb2.execute("console.log('inner')")

sb = Sandbox(tools=[tool("again")], tool_handler=handler, timeout=10)
sb2 = Sandbox(tools=[tool("again")], tool_handler=sync_handler, timeout=10)
script = "try { await again({}) } catch (e) { console.log(String(e.message || e)) }"

async def main():
    emit(async_=await attempt_async(lambda: sb.execute_async(script), 15))
    emit(sync=attempt(lambda: sb2.execute(script)))
    # The sandbox is still usable, and a handler on another sandbox may run scripts there.
    emit(after=await attempt_async(lambda: sb.execute_async("console.log(6 * 7)"), 15))

asyncio.run(main())
''',
        60.0,
    )
    sync, async_ = child["sync"], child["async_"]
    message = "this sandbox is already running a script in this thread"
    assert sync["ok"] and message in sync["value"], sync
    # Before: the handler waited for its own run's lock until wait_for gave up.
    assert async_["ok"] and message in async_["value"], async_
    assert child["after"]["value"] == "42\n", child["after"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_close_from_another_thread_mid_run_stops_the_mcp_server() -> None:
    server = [sys.executable, str(SERVERS / "tools_server.py"), "stdio"]
    child = run_isolated(
        rf'''
import threading

def children():
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{{entry}}/stat") as f:
                    state, ppid = f.read().rsplit(")", 1)[1].split()[:2]
            except OSError:
                continue
            if int(ppid) == os.getpid() and state != "Z":
                found.add(int(entry))
    return found

entered = threading.Event()

async def wait_a_little() -> str:
    """Waits in an async tool (awaited by the sandbox's own event loop)."""
    entered.set()
    await asyncio.sleep(2)
    return "done"

st = create_sandbox_tool(tools=[wait_a_little], mcp_servers={{"t": {{"command": {server[0]!r}, "args": {server[1:]!r}}}}})
servers = children()
outcome = []
worker = threading.Thread(
    target=lambda: outcome.append(attempt(lambda: st.sandbox.execute("await t.pid({{}}); await wait_a_little({{}})"))))
worker.start()
entered.wait(30)
emit(servers=len(servers), closed=attempt(st.close))
deadline = time.monotonic() + 15
while children() & servers and time.monotonic() < deadline:
    time.sleep(0.05)
emit(left=sorted(children() & servers))
worker.join(15)
emit(run_ended=not worker.is_alive(), run=outcome[0] if outcome else None)
''',
        90.0,
    )
    assert child["servers"] >= 1
    # Before: RuntimeError("Cannot close a running event loop"), and the server ran on.
    assert child["closed"]["ok"], child["closed"]
    assert child["left"] == [], f"MCP server processes still running after close(): {child['left']}"
    assert child["run_ended"], child["run"]
    assert not child["run"]["ok"], child["run"]


def test_on_output_under_execute_async_runs_on_the_loop_thread() -> None:
    child = run_isolated(
        r"""
seen = []
sb = Sandbox()

async def main():
    loop_thread = threading.get_ident()
    out = await sb.execute_async(
        "for (let i = 0; i < 5; i++) { console.log(i); await new Promise(r => setTimeout(r, 20)) }",
        on_output=lambda text: seen.append((threading.get_ident(), text)),
    )
    emit(out=out, chunks=len(seen), off_loop=sum(t != loop_thread for t, _ in seen),
         streamed="".join(text for _, text in seen))

asyncio.run(main())
""",
        60.0,
    )
    assert child["out"] == "0\n1\n2\n3\n4\n"
    assert child["streamed"] == child["out"]
    # Before: every chunk came on the worker thread stepping the run.
    assert child["chunks"] >= 1 and child["off_loop"] == 0, (child["chunks"], child["off_loop"])


def test_a_handler_closing_its_sandbox_leaves_no_task_error() -> None:
    child = run_isolated(
        r"""
import gc
doomed = None

async def closing(method, params):
    doomed.close()
    return "closed"

doomed = Sandbox(tools=[tool("closing")], tool_handler=closing)

async def main():
    emit(closed=await attempt_async(lambda: doomed.execute_async("await closing({}); console.log('after')"), 10))
    await asyncio.sleep(0.5)  # the step the run left behind ends
    gc.collect()
    await asyncio.sleep(0.1)

asyncio.run(main())
gc.collect()
emit(done=True)
""",
        60.0,
    )
    assert child["done"]
    assert not child["closed"]["ok"], child["closed"]
    # Before: the step left running when the run gave up failed, and nobody took its error.
    assert "Task exception was never retrieved" not in child.stderr, child.stderr[-3000:]
