"""Issue 7 stress: 1,000 runs from 16 threads across 50 sandboxes, JS and
shell, some with tool calls, some cancelled (cancel(), close(), asyncio):
no hang, no crash, and no output mixed between sandboxes (each script prints
its own sandbox id and run number; the test checks every one)."""

from __future__ import annotations

import pytest

from _hostile import check_child, run_isolated

STRESS = r'''
import random, queue, builtins, re
RUNS, THREADS, SLOTS = 1000, 16, 50
rng = random.Random(7)

def echo(method, params):
    return params

slots = []            # slot -> [sandbox, sandbox id]
slot_locks = [threading.Lock() for _ in range(SLOTS)]   # guards replacing a closed sandbox only
generation = [0] * SLOTS

def new_sandbox(slot):
    sid = f"s{slot}g{generation[slot]}"
    sb = Sandbox(tools=[tool("echo", id="string")], tool_handler=echo, timeout=5)
    sb.shell(f"echo {sid} > /workspace/id")
    return [sb, sid]

for i in range(SLOTS):
    slots.append(new_sandbox(i))

KINDS = (["js"] * 25 + ["js_tool"] * 15 + ["sh"] * 25 + ["sh_tool"] * 12 + ["file_js"] * 5 + ["file_sh"] * 5
         + ["cancel"] * 6 + ["asyncio"] * 5 + ["close"] * 2)
plan = [(n, rng.randrange(SLOTS), rng.choice(KINDS)) for n in range(RUNS)]
work = queue.Queue()
for item in plan:
    work.put(item)

counts = {}
mixed, failures = [], []
lock = threading.Lock()
has_cancel = hasattr(Sandbox, "cancel")

def expected_and_run(n, sb, sid, kind):
    tag = f"{sid}:{n}"
    if kind == "js":
        return tag + "\n", lambda: sb.execute(f"console.log({tag!r})")
    if kind == "js_tool":
        return tag + "\n", lambda: sb.execute(f"const r = await echo({{id: {tag!r}}}); console.log(r.id)")
    if kind == "sh":
        return tag + "\n", lambda: sb.shell(f"echo {tag}")
    if kind == "sh_tool":
        return tag + "\n", lambda: sb.shell(f"tool echo --id {tag} | jq -r .id")
    if kind == "file_js":
        return sid + "\n", lambda: sb.execute("console.log((await fs.readFile('/workspace/id', 'utf8')).trim())")
    if kind == "file_sh":
        return sid + "\n", lambda: sb.shell("cat /workspace/id")
    raise ValueError(kind)

def closed_error(o):
    """The run met a close() or cancel() issued by another thread: both act on the
    sandbox's current run, whichever thread started it, so any run may see them."""
    if o["ok"]:
        return False
    if o["type"] == "amla_sandbox.CancelledRunError":
        return True
    return (o["type"].startswith("amla_sandbox.") or o["type"] == "RuntimeError") and (
        "not initialized" in o["msg"] or "closed" in o["msg"].lower() or "cancel" in o["msg"].lower())

def one(n, slot, kind):
    sb, sid = slots[slot]
    if kind in ("cancel", "close"):
        if kind == "cancel" and has_cancel:
            stopper = in_thread(lambda: attempt(lambda: sb.cancel()), 0.1)
        elif kind == "close":
            stopper = in_thread(lambda: attempt(sb.close), 0.1)
        else:
            stopper = None  # no cancel(): the run's own timeout (5 s) ends it
        o = attempt(lambda: sb.execute("while (true) {}"))
        if stopper:
            stopper.join(10)
        if o["ok"]:
            # `while (true) {}` prints nothing and never returns: a value is another run's.
            with lock:
                mixed.append((n, sid, "(no return)", o["value"][:200]))
        if kind == "close":
            with slot_locks[slot]:
                if slots[slot][0] is sb:
                    generation[slot] += 1
                    slots[slot] = new_sandbox(slot)
        ok = (not o["ok"]) and (o["type"].startswith("amla_sandbox.") or closed_error(o))
        return kind, ok, o
    if kind == "asyncio":
        tag = f"{sid}:{n}"
        async def main():
            first = await attempt_async(lambda: sb.execute_async("while (true) {}"), 0.2)
            second = await attempt_async(lambda: sb.execute_async(f"console.log({tag!r})"), 10)
            return first, second
        first, second = asyncio.run(main())
        # The slot's sandbox may have been closed by a "close" run meanwhile.
        ok = (first["type"] in ("TimeoutError", "asyncio.TimeoutError") or closed_error(first)) and (
            (second["ok"] and second["value"] == tag + "\n") or closed_error(second))
        if second["ok"] and second["value"] != tag + "\n":
            with lock:
                mixed.append((n, sid, tag, second["value"][:200]))
        return kind, ok, {"first": first, "second": second}
    expected, run = expected_and_run(n, sb, sid, kind)
    o = attempt(run)
    if o["ok"] and o["value"] != expected:
        with lock:
            mixed.append((n, sid, expected, o["value"][:200]))
    return kind, (o["ok"] and o["value"] == expected) or closed_error(o), o

def worker():
    while True:
        try:
            n, slot, kind = work.get_nowait()
        except queue.Empty:
            return
        kind, ok, o = one(n, slot, kind)
        with lock:
            counts[kind] = counts.get(kind, 0) + 1
            if not ok:
                failures.append((n, kind, str(o)[:400]))

t0 = time.monotonic()
threads = [threading.Thread(target=worker) for _ in range(THREADS)]
for t in threads: t.start()
for t in threads: t.join()
def describe(entry):
    """A mixed-output entry with the kind of the run it came from and of the run that showed it."""
    n, sid, expected, got = entry
    source = re.match(r"s\d+g\d+:(\d+)", got)
    src = int(source.group(1)) if source else None
    return {"run": n, "kind": plan[n][2], "sandbox": sid, "expected": expected, "got": got,
            "from_run": src, "from_kind": plan[src][2] if src is not None else None}

emit(done=sum(counts.values()), counts=counts, mixed=[describe(m) for m in mixed[:20]], n_mixed=len(mixed), failures=failures[:20],
     n_failures=len(failures), seconds=time.monotonic() - t0, has_cancel=has_cancel)
for sb, _ in slots:
    sb.close()
'''


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_thousand_runs_sixteen_threads_fifty_sandboxes() -> None:
    child = check_child(run_isolated(STRESS, 240))
    assert child["done"] == 1000, f"only {child['done']} of 1000 runs finished: {child['counts']}"
    assert child["n_mixed"] == 0, f"{child['n_mixed']} runs printed another run's output: {child['mixed']}"
    assert child["n_failures"] == 0, f"{child['n_failures']} runs ended wrongly, e.g. {child['failures']}"
