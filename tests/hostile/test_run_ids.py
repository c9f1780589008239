"""Issue 16, item 1: a cancelled run's leftover step never touches the next run.

`asyncio.wait_for` cancels `execute_async` while its worker thread is about to
ask the core for the run's next event. That thread enters Go late (here: an
artificial delay before the call stands in for losing the GIL at the wrong
moment), after the next run has started. It must not take the next run's tool
request (that run would wait for an answer nobody gives, forever: time blocked
on Python does not count against the timeout), nor see its events.

Each round: a computing run cancelled by wait_for, then at once a run that
awaits a tool call, which must return its own answer. Hundreds of rounds, in a
child process with a deadline.
"""

from __future__ import annotations

import pytest

from _hostile import run_isolated

ROUNDS = 300
DEADLINE_S = 120.0
WAIT_S = 2.0

SCENARIO = r'''
import random
from amla_sandbox._core import _pycore

# Every step the cancelled run's driver starts sleeps first, so the step
# enters Go after wait_for has given the run up and the next run started.
delaying = False
real_step = _pycore.pycore_SandboxStep
def late_step(*args):
    if delaying:
        time.sleep(random.uniform(0.005, 0.03))
    return real_step(*args)
_pycore.pycore_SandboxStep = late_step

sb = Sandbox(tools=[tool("echo", i="number")], tool_handler=echo_handler, timeout=30)

async def main():
    global delaying
    failures = []
    for i in range({rounds}):
        delaying = True
        try:
            await asyncio.wait_for(sb.execute_async("while (true) {{}}"), random.uniform(0.001, 0.02))
        except (asyncio.TimeoutError, TimeoutError):
            pass
        delaying = False
        code = "let s = 0; for (let k = 1; k <= 3; k++) s += (await echo({{i: k}})).i; console.log(s + " + str(i) + ")"
        got = await attempt_async(lambda: sb.execute_async(code), {wait})
        if not got["ok"] or got["value"] != f"{{i + 6}}\n":
            failures.append({{"round": i, "outcome": got}})
    return failures

failures = asyncio.run(main())
emit(rounds={rounds}, failures=len(failures), first_failures=failures[:3])
'''


@pytest.mark.timeout(DEADLINE_S + 30)
def test_a_cancelled_runs_late_step_never_takes_the_next_runs_request() -> None:
    run = run_isolated(SCENARIO.format(rounds=ROUNDS, wait=WAIT_S), DEADLINE_S)
    assert run["rounds"] == ROUNDS
    assert run["failures"] == 0, (
        f"{run['failures']} of {ROUNDS} runs after a cancelled run did not get their own answer: "
        f"{run['first_failures']}"
    )
