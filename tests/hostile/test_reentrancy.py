"""Issue 25: the one run driver's re-entrancy guard and its public run API
(`Sandbox.run_script`, `run_script_async`) from threads and event loops.

The guard is one context variable both pumps check, so a tool handler that
starts a run on the sandbox running it is refused whichever pump it uses
and whatever it runs on (the handler itself, a task, a thread started with
asyncio.to_thread): without the guard each of these waits for the run
waiting on it. Runs from several threads on one sandbox take turns.

Every scenario runs in a child process with a deadline.
"""

from __future__ import annotations

import json

from _hostile import run_isolated

_MESSAGE = "this sandbox is already running a script in this thread"


def test_a_handler_starting_a_run_on_its_own_sandbox_is_refused_by_both_pumps() -> None:
    child = run_isolated(
        r'''
box = {}

def sync_sync(method, params):
    # A blocking run's handler starting a blocking run.
    return box["sb"].run_script("console.log('inner')").stdout

def sync_async(method, params):
    # A blocking run's handler starting a run in an event loop of its own.
    return asyncio.run(box["sb"].run_script_async("console.log('inner')")).stdout

async def async_async(method, params):
    return (await box["sb"].run_script_async("console.log('inner')")).stdout

async def async_sync(method, params):
    # An async run's handler calling the blocking pump.
    return box["sb"].run_script("console.log('inner')").stdout

async def async_thread(method, params):
    # ...and from a worker thread (asyncio.to_thread copies the context).
    return (await asyncio.to_thread(box["sb"].run_script, "console.log('inner')")).stdout

script = "try { console.log(await again({})) } catch (e) { console.log(String(e.message || e)) }"

def make(handler):
    sb = Sandbox(tools=[tool("again")], tool_handler=handler, timeout=10)
    sb.await_async_tools = True
    box["sb"] = sb
    return sb

async def main():
    for name, handler in (("sync_sync", sync_sync), ("sync_async", sync_async)):
        sb = make(handler)
        emit(**{name: await attempt_async(lambda: asyncio.to_thread(lambda: sb.run_script(script).stdout), 20)})
        emit(**{name + "_after": attempt(lambda: sb.run_script("console.log(6 * 7)").stdout)})
    for name, handler in (("async_async", async_async), ("async_sync", async_sync), ("async_thread", async_thread)):
        sb = make(handler)
        emit(**{name: await attempt_async(lambda: sb.run_script_async(script), 20)})
        emit(**{name + "_after": await attempt_async(lambda: sb.run_script_async("console.log(6 * 7)"), 20)})

asyncio.run(main())
''',
        120.0,
    )
    for name in ("sync_sync", "sync_async"):
        got = child[name]
        assert got["ok"] and _MESSAGE in got["value"], (name, got)
        assert child[name + "_after"]["value"] == "42\n", (name, child[name + "_after"])
    for name in ("async_async", "async_sync", "async_thread"):
        got = child[name]
        assert got["ok"] and _MESSAGE in got["value"], (name, got)
        assert "42" in child[name + "_after"]["value"], (name, child[name + "_after"])


def test_runs_from_several_threads_on_one_sandbox_take_turns() -> None:
    child = run_isolated(
        r'''
import threading

sb = Sandbox(tools=[tool("echo", x="integer")], tool_handler=echo_handler, timeout=20)
results = {}

def worker(i):
    got = []
    for j in range(5):
        r = sb.run_script(f"const r = await echo({{x: {i * 10 + j}}}); console.log(JSON.stringify(r))")
        got.append(r.stdout.strip())
    results[i] = got

async def from_loop():
    return [(await sb.run_script_async(f"console.log({k})", "javascript")).stdout.strip() for k in range(5)]

threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
for t in threads:
    t.start()
loop_result = asyncio.run(from_loop())
for t in threads:
    t.join(60)
emit(alive=[t.is_alive() for t in threads], results={str(k): v for k, v in results.items()}, loop=loop_result)
''',
        120.0,
    )
    assert child["alive"] == [False] * 4
    results = child["results"]
    for i in range(4):
        assert [json.loads(v)["x"] for v in results[str(i)]] == [i * 10 + j for j in range(5)]
    assert child["loop"] == ["0", "1", "2", "3", "4"]
