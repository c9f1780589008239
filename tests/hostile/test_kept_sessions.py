"""Issue 27, point 1: kept sessions (Sandbox(keep_state=True), docs/sessions.md)
under attack.

A script that keeps state may try to use it against later runs or against
the host: hold memory so that later runs cannot work, leave something
running (an interval, a pending promise, an open file) behind, race a
reset, or reach another sandbox's session. The safe outcomes: memory held
counts against memory_limit and a run that exceeds it resets the session;
nothing left behind keeps a later run from finishing; a reset during a run
keeps nothing of that run; sessions of different sandboxes never meet.
Each scenario runs in a child process with a deadline.
"""

from __future__ import annotations

import pytest

from _hostile import ChildRun, check_child, spawn_many

DEADLINE_S = 40.0

SCENARIOS = {
    # 40 MiB held in a global (the heap grows to about 100 MiB), then 40 MiB more under memory_limit=128 MiB:
    # the second run hits the limit and the session starts fresh.
    "held_memory": r'''
sb = Sandbox(timeout=10, memory_limit=128 << 20, keep_state=True)
emit(hold=attempt(lambda: sb.python("hog = bytearray(40 << 20)\nlen(hog)")))
emit(more=attempt(lambda: sb.python("more = bytearray(40 << 20)\nlen(more)")))
emit(reset=bool(sb.last_result and sb.last_result.state_reset))
emit(after=attempt(lambda: sb.python("print('hog' in globals())")))
FILL = "for (let i = 0; i < 40; i++) {0}.push(new Array(1e5).fill(i + 0.5)); {0}.length"  # about 64 MB
emit(js_hold=attempt(lambda: sb.execute("var big = []; " + FILL.format("big"))))
emit(js_more=attempt(lambda: sb.execute("var big2 = []; " + FILL.format("big2"))))
emit(js_after=attempt(lambda: sb.execute("console.log(typeof big)")))
''',
    # An interval left running does not keep its run, or a later one,
    # from ending (as without keep_state, it keeps no run alive): it ticks
    # only while a later run of the session waits.
    "left_interval": r'''
sb = Sandbox(timeout=1, keep_state=True)
emit(first=attempt(lambda: sb.execute("var n = 0; setInterval(() => { n++ }, 5); 'set'")))
emit(ticks=attempt(lambda: sb.execute("await new Promise(r => setTimeout(r, 50)); n > 0")))
emit(after=attempt(lambda: sb.execute("console.log('quick')")))
emit(reset=bool(sb.last_result and sb.last_result.state_reset))
''',
    # A promise nothing resolves, an unref'd timer, a tool call never
    # awaited, an open file: none keeps the next run from ending at once.
    "left_pending": r'''
def echo(method, params):
    return params
sb = Sandbox(timeout=5, keep_state=True, tools=[tool("echo")], tool_handler=echo)
emit(a=attempt(lambda: sb.execute("globalThis.p = new Promise(() => {}); globalThis.c = echo({x: 1}); 'set'")))
emit(b=attempt(lambda: sb.execute("const fd = 3; require('fs').writeFileSync('/tmp/f', 'x'); 'written'")))
emit(c=attempt(lambda: sb.python("f = open('/tmp/g', 'w')\nimport threading\n'ok'")))
emit(d=attempt(lambda: sb.execute("console.log(typeof p, typeof fd)")))
emit(e=attempt(lambda: sb.python("f.write('x')\nf.close()\nprint(open('/tmp/g').read())")))
''',
    # reset() while a run is going on: that run's state is not kept.
    "reset_races_a_run": r'''
import threading
sb = Sandbox(timeout=10, keep_state=True)
sb.python("before = 1")
def later():
    time.sleep(0.3)
    sb.reset()
threading.Thread(target=later).start()
emit(run=attempt(lambda: sb.python("during = 1\nimport time\ntime.sleep(1)\n'slept'")))
emit(after=attempt(lambda: sb.python("print('before' in globals(), 'during' in globals())")))
''',
    # Two kept sessions run at the same time in two threads, each patching
    # the same built-ins: neither sees the other's.
    "concurrent_sessions": r'''
import threading
boxes = [Sandbox(timeout=20, keep_state=True) for _ in range(2)]
out = {}
def work(i):
    sb = boxes[i]
    sb.execute(f"Math.max = () => {i}; var mine = {i}")
    sb.python(f"import json\njson.dumps = lambda *a, **k: '{i}'\nmine = {i}")
    seen = []
    for _ in range(30):
        seen.append(sb.execute("console.log(Math.max(), mine)").strip())
        seen.append(sb.python("import json\nprint(json.dumps(1), mine)").strip())
    out[i] = sorted(set(seen))
threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
for t in threads: t.start()
for t in threads: t.join()
emit(zero=out[0], one=out[1])
''',
}


@pytest.fixture(scope="module")
def runs() -> dict[str, ChildRun]:
    return spawn_many(SCENARIOS, DEADLINE_S, workers=2)


def test_memory_held_in_a_session_counts_against_the_limit(runs: dict[str, ChildRun]) -> None:
    child = check_child(runs["held_memory"])
    assert child["hold"]["ok"] and child["hold"]["value"] == str(40 << 20) + "\n", child["hold"]
    assert not child["more"]["ok"] and child["more"]["type"] == "amla_sandbox.MemoryLimitError", child["more"]
    assert child["reset"] is True
    assert child["after"]["ok"] and child["after"]["value"] == "False\n", child["after"]
    assert child["js_hold"]["ok"] and child["js_hold"]["value"] == "40\n", child["js_hold"]
    assert not child["js_more"]["ok"] and child["js_more"]["type"] == "amla_sandbox.MemoryLimitError", child["js_more"]
    assert child["js_after"]["ok"] and child["js_after"]["value"] == "undefined\n", child["js_after"]


def test_a_left_interval_holds_no_later_run(runs: dict[str, ChildRun]) -> None:
    child = check_child(runs["left_interval"])
    assert child["first"]["ok"] and child["first"]["value"] == "set\n", child["first"]
    assert child["ticks"]["ok"] and child["ticks"]["value"] == "true\n", child["ticks"]
    assert child["after"]["ok"] and child["after"]["value"] == "quick\n", child["after"]
    assert child["after"]["dt"] < 0.9
    assert child["reset"] is False


def test_what_a_run_leaves_pending_does_not_hold_the_next(runs: dict[str, ChildRun]) -> None:
    child = check_child(runs["left_pending"])
    for key in ("a", "b", "c", "d", "e"):
        assert child[key]["ok"], f"{key}: {child[key]}"
        assert child[key]["dt"] < 3.0, f"{key}: {child[key]}"
    assert child["d"]["value"] == "object number\n"
    assert child["e"]["value"] == "x\n"


def test_a_reset_during_a_run_keeps_nothing_of_it(runs: dict[str, ChildRun]) -> None:
    child = check_child(runs["reset_races_a_run"])
    assert child["run"]["ok"] and child["run"]["value"] == "slept\n", child["run"]
    assert child["after"]["ok"] and child["after"]["value"] == "False False\n", child["after"]


def test_concurrent_sessions_never_meet(runs: dict[str, ChildRun]) -> None:
    child = check_child(runs["concurrent_sessions"])
    assert child["zero"] == ["0 0"], child["zero"]
    assert child["one"] == ["1 1"], child["one"]
