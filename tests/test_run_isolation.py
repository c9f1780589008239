"""Every run starts from a clean guest, whatever the run before it did.

The host reuses a sandbox's guest instance for the next run after putting it
back into the snapshot's state (docs/architecture.md, "Resetting an
instance"), or makes a fresh one when it cannot. These tests run many
scripts on one sandbox, each trying to leave something behind, through the
public API.
"""

from __future__ import annotations

import pytest

import amla_sandbox
from amla_sandbox import Sandbox


@pytest.fixture
def sb() -> Sandbox:
    with Sandbox(timeout=5) as box:
        yield box


CLEAN_JS = (
    "return [typeof leak, typeof [].leak, typeof ({}).leak, JSON.stringify({a: [1]}),"
    " String(Object.prototype.toString.call([])), typeof Promise.all, Math.max(1, 2)]"
)
CLEAN_JS_OUT = '["undefined","undefined","undefined","{\\"a\\":[1]}","[object Array]","function",2]\n'

LEAKS_JS = [
    "globalThis.leak = 1",
    "Array.prototype.leak = 2; Object.prototype.leak = 3",
    "JSON.stringify = () => 'hijacked'",
    "Object.prototype.toString = () => 'hijacked'",
    "Promise.all = 5; Math.max = () => -1",
    "globalThis.leak = 1; throw new Error('after the damage')",
    "globalThis.leak = new Array(5e6).fill(7); Array.prototype.leak = 1",  # grows the memory
    "Object.defineProperty(globalThis, 'leak', {value: 1, configurable: false})",
    "globalThis.leak = 1; const f = n => f(n + 1); try { f(0) } catch (e) {}",
]


@pytest.mark.parametrize("leak", LEAKS_JS)
def test_javascript_changes_do_not_reach_the_next_run(sb: Sandbox, leak: str) -> None:
    assert sb.execute(CLEAN_JS) == CLEAN_JS_OUT
    try:
        sb.execute(leak)
    except amla_sandbox.SandboxError:
        pass  # the run that throws
    for _ in range(3):
        assert sb.execute(CLEAN_JS) == CLEAN_JS_OUT, leak


def test_a_timed_out_run_leaves_nothing_behind() -> None:
    with Sandbox(timeout=1) as box:
        with pytest.raises(amla_sandbox.TimeoutError):
            box.execute("globalThis.leak = 1; while (true) {}")
        assert box.execute(CLEAN_JS) == CLEAN_JS_OUT


def test_shell_state_does_not_reach_the_next_run_but_files_do(sb: Sandbox) -> None:
    sb.shell("X=1; export Y=2; f() { echo fn; }; cd /tmp; echo kept > /workspace/note")
    for _ in range(3):
        out = sb.shell('echo "[$X][$Y]"; type f >/dev/null 2>&1 && echo has-f; pwd; cat /workspace/note')
        assert out == "[][]\n/workspace\nkept\n"


def test_languages_alternate_on_one_sandbox(sb: Sandbox) -> None:
    for i in range(4):
        assert sb.execute(f"globalThis.leak = {i}; " + CLEAN_JS.replace("typeof leak", "0")).startswith("[0,")
        assert sb.execute(CLEAN_JS) == CLEAN_JS_OUT
        assert sb.shell(f'echo "[$W]"; W=left{i}; echo "[$W]"') == f"[]\n[left{i}]\n"
        assert sb.shell("node -e 'console.log(typeof leak)'") == "undefined\n"


def test_many_runs_in_a_row_stay_correct(sb: Sandbox) -> None:
    # Enough runs that a slow drift (memory, descriptors, the store) would show.
    for i in range(300):
        assert sb.execute(f"globalThis.n = (globalThis.n || 0) + {i}; console.log(n)") == f"{i}\n"
        assert sb.shell(f"N=$((${{N:-0}} + {i})); echo $N") == f"{i}\n"


def test_a_run_right_after_a_cancelled_async_run_gets_its_own_result(sb: Sandbox) -> None:
    # The cancelled run's last step is still running on a worker thread when the next run
    # starts and ends (a short run takes well under a millisecond): its late event must not
    # become the next run's result, nor take its output.
    import asyncio

    async def cancelled() -> None:
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(sb.execute_async("while (true) {}"), 0.02)

    for i in range(40):
        asyncio.run(cancelled())
        assert sb.execute(f"console.log({i})") == f"{i}\n"
        assert sb.shell(f"echo {i}") == f"{i}\n"
