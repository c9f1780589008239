"""Issue 7, item 4: sleeping counts against `timeout`; time blocked in a tool
handler does not.

Every way of sleeping ends at the deadline with amla_sandbox.TimeoutError
(within 2 s for timeout=1), and the sandbox goes on.
"""

from __future__ import annotations

import pytest

from _hostile import ChildRun, check_child, spawn_many

DEADLINE_S = 20.0

# (language, code) run under Sandbox(timeout=1): each must time out quickly.
SLEEPERS = {
    "shell_sleep_8": ("shell", "sleep 8"),
    "shell_sleep_1d": ("shell", "sleep 1d"),
    "shell_timeout_5_sleep_100": ("shell", "timeout 5 sleep 100"),
    "shell_sleep_in_pipeline": ("shell", "sleep 100 | cat"),
    "shell_sleep_loop": ("shell", "while true; do sleep 0.2; done"),
    "js_set_timeout_8000": ("javascript", "await new Promise(r => setTimeout(r, 8000))"),
    "js_shell_sleep_8": ("javascript", "await shell('sleep 8')"),
    "js_set_interval_forever": ("javascript", "setInterval(() => {}, 100); await new Promise(() => {})"),
    # 0.7 s asleep + 0.7 s computing: only the sum is over the limit
    "js_sleep_then_compute": (
        "javascript",
        "await new Promise(r => setTimeout(r, 700)); const t = Date.now(); while (Date.now() - t < 700) {}",
    ),
}

SLEEP_SCENARIO = r'''
sb = Sandbox(timeout=1)
run = (lambda: sb.shell(CODE)) if LANG == "shell" else (lambda: sb.execute(CODE))
emit(first=attempt(run))
emit(after=attempt(lambda: sb.execute("console.log(1)")))
'''

OTHER = {
    # a short sleep really sleeps and the run succeeds
    "short_sleep": r'''
sb = Sandbox(timeout=5)
emit(shell=attempt(lambda: sb.shell("sleep 0.3; echo ok")))
emit(js=attempt(lambda: sb.execute("await new Promise(r => setTimeout(r, 300)); console.log('ok')")))
''',
    # time in a tool handler does not count
    "handler_sleeps_2s": r'''
def slow(method, params):
    time.sleep(2)
    return "done"
sb = Sandbox(tools=[tool("slow")], tool_handler=slow, timeout=1)
emit(js=attempt(lambda: sb.execute("console.log(await slow({}))")))
emit(shell=attempt(lambda: sb.shell("tool slow")))
async def main():
    return await attempt_async(lambda: sb.execute_async("console.log(await slow({}))"), 10)
emit(js_async=asyncio.run(main()))
''',
    "async_handler_sleeps_2s": r'''
async def slow(method, params):
    await asyncio.sleep(2)
    return "done"
sb = Sandbox(tools=[tool("slow")], tool_handler=slow, timeout=1)
async def main():
    return await attempt_async(lambda: sb.execute_async("console.log(await slow({}))"), 10)
emit(js_async=asyncio.run(main()))
''',
}


def scenarios() -> dict[str, str]:
    codes = {name: f"LANG = {lang!r}\nCODE = {code!r}\n" + SLEEP_SCENARIO for name, (lang, code) in SLEEPERS.items()}
    codes.update(OTHER)
    return codes


@pytest.fixture(scope="module")
def runs(request: pytest.FixtureRequest) -> dict[str, ChildRun]:
    all_codes = scenarios()
    wanted = {}
    for item in request.session.items:
        spec = getattr(item, "callspec", None)
        if item.module is request.module and spec and "scenario" in spec.params:
            wanted[spec.params["scenario"]] = all_codes[spec.params["scenario"]]
    return spawn_many(wanted, DEADLINE_S, workers=4)


@pytest.mark.parametrize("scenario", list(SLEEPERS))
def test_sleeping_is_stopped_at_the_deadline(scenario: str, runs: dict[str, ChildRun]) -> None:
    child = check_child(runs[scenario])
    first = child["first"]
    assert not first["ok"], f"the run finished instead of timing out: {first}"
    assert first["type"] == "amla_sandbox.TimeoutError", first
    assert first["dt"] < 2.0, f"timeout=1 stopped the run after {first['dt']:.2f}s"
    after = child["after"]
    assert after["ok"] and after["value"] == "1\n", f"sandbox unusable afterwards: {after}"


@pytest.mark.parametrize("scenario", ["short_sleep"])
def test_a_short_sleep_really_sleeps(scenario: str, runs: dict[str, ChildRun]) -> None:
    child = check_child(runs[scenario])
    for key in ("shell", "js"):
        outcome = child[key]
        assert outcome["ok"] and outcome["value"] == "ok\n", outcome
        assert 0.28 <= outcome["dt"] < 2.0, outcome


@pytest.mark.parametrize("scenario", ["handler_sleeps_2s", "async_handler_sleeps_2s"])
def test_time_blocked_in_a_tool_handler_does_not_count(scenario: str, runs: dict[str, ChildRun]) -> None:
    child = check_child(runs[scenario])
    for key in ("js", "shell", "js_async"):
        if key not in child.merged:
            continue
        outcome = child[key]
        assert outcome["ok"], f"{key}: {outcome}"
        assert outcome["value"].strip().strip('"') == "done", f"{key}: {outcome}"
