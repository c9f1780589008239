"""Issue 7, items 1 and 2: payloads Python cannot handle, and denied calls
with huge or deep params, never hang a run and never brick the sandbox.

Each scenario runs in a child process with a deadline; the run itself must
end within a few seconds with an error the script can catch, and the same
sandbox must then run `console.log(1)`.
"""

from __future__ import annotations

import re

import pytest

from _hostile import ChildRun, assert_finished_quickly, check_child, run_isolated, spawn_many

RUN_LIMIT_S = 5.0
CHILD_DEADLINE_S = 15.0

# What a refusal may say: the reference's "Invalid payload JSON", or a text naming the problem.
NAMES_PROBLEM = {
    "key_surrogate": r"invalid payload|surrogate|utf-?8|unicode",
    "value_surrogate": r"invalid payload|surrogate|utf-?8|unicode",
    "nul_error": r"bad|invalid payload|nul",
    "deep_params": r"invalid payload|deep|depth|nest",
    "surrogate_result": r"invalid payload|surrogate|utf-?8|unicode",
    "big_int": r"invalid payload|digit|integer|number|too large|too long",
}

BIG_INT = "1" + "0" * 4999

# JavaScript: the call is wrapped so a rejection is printed as CAUGHT <message>.
CALLS = {
    "key_surrogate": r"get_weather({city: 'SF', ['\ud800']: 1})",
    "value_surrogate": r"get_weather({city: '\ud800'})",
    "nul_error": "fail_nul({city: 'SF'})",
    "deep_params": "(() => { let o = 1; for (let i = 0; i < 3000; i++) o = [o]; return get_weather({city: 'SF', x: o}) })()",
    "surrogate_result": "bad_text({city: 'SF'})",
}


def js_probe(call: str) -> str:
    return (
        f"try {{ const r = await {call}; console.log('RESOLVED ' + JSON.stringify(r).length) }} "
        "catch (e) { console.log('CAUGHT ' + e.message) }"
    )


SHELL_BIG_INT = f"""tool get_weather --json '{{"city": "SF", "n": {BIG_INT}}}'; echo "rc=$?" """

SCENARIO_SETUP = r'''
def get_weather(city: str = "", n: int = 0, x: object = None) -> dict:
    """Echo the params back."""
    return {"city": city, "n": n, "x": x}

def fail_nul(city: str = "") -> str:
    """Raise an exception whose message holds a NUL."""
    raise ValueError("bad\x00thing")

def bad_text(city: str = "") -> str:
    """Return a str Python cannot encode as UTF-8."""
    return "x\ud800y"

FUNCS = {"get_weather": get_weather, "fail_nul": fail_nul, "bad_text": bad_text}

def handler(method, params):
    return FUNCS[method.removeprefix("mcp:")](**params)

def new_sandbox():
    return Sandbox(tools=[tool(n, city="string") for n in FUNCS], tool_handler=handler, timeout=10)

def new_tool():
    return create_sandbox_tool(tools=list(FUNCS.values()), timeout=10)
'''

MODES = {
    # Sandbox.execute / shell, synchronously
    "sync": r'''
sb = new_sandbox()
run = (lambda: sb.shell(CODE)) if LANG == "shell" else (lambda: sb.execute(CODE))
emit(first=attempt(run))
emit(after=attempt(lambda: sb.execute("console.log(1)")))
''',
    # execute_async / shell_async under asyncio.wait_for: must not freeze the loop
    "async": r'''
sb = new_sandbox()
make = (lambda: sb.shell_async(CODE)) if LANG == "shell" else (lambda: sb.execute_async(CODE))
emit(first=loop_stays_responsive(make, 10))
emit(after=loop_stays_responsive(lambda: sb.execute_async("console.log(1)"), 10))
''',
    # SandboxTool.run: never raises, returns text
    "tool_run": r'''
t = new_tool()
emit(first=attempt(lambda: t.run(CODE, language=LANG)))
emit(after=attempt(lambda: t.run("console.log(1)", language="javascript")))
''',
    "tool_run_async": r'''
t = new_tool()
emit(first=loop_stays_responsive(lambda: t.run_async(CODE, language=LANG), 10))
emit(after=loop_stays_responsive(lambda: t.run_async("console.log(1)", language="javascript"), 10))
''',
}


def scenario(kind: str, mode: str) -> str:
    if kind == "big_int":
        lang, code = "shell", SHELL_BIG_INT
    else:
        lang, code = "javascript", js_probe(CALLS[kind])
    return SCENARIO_SETUP + f"LANG = {lang!r}\nCODE = {code!r}\n" + MODES[mode]


@pytest.fixture(scope="module")
def matrix(request: pytest.FixtureRequest) -> dict[str, ChildRun]:
    """The selected kind × mode scenarios, run four children at a time."""
    wanted = {}
    for item in request.session.items:
        spec = getattr(item, "callspec", None)
        if item.originalname == "test_unencodable_payload_is_refused_and_sandbox_goes_on" and spec:
            kind, mode = spec.params["kind"], spec.params["mode"]
            wanted[f"{kind}/{mode}"] = scenario(kind, mode)
    return spawn_many(wanted, CHILD_DEADLINE_S)


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("kind", list(NAMES_PROBLEM))
def test_unencodable_payload_is_refused_and_sandbox_goes_on(
    kind: str, mode: str, matrix: dict[str, ChildRun]
) -> None:
    child = check_child(matrix[f"{kind}/{mode}"])
    first, after = child["first"], child["after"]
    assert first["ok"], f"{kind}/{mode}: the run raised instead of reporting to the script: {first}"
    assert_finished_quickly(first, RUN_LIMIT_S, f"{kind}/{mode}")
    if mode.startswith("tool_run"):
        assert isinstance(first["value"], str)
    if mode.endswith("async"):
        # The loop kept running while the guest worked: roughly one tick per 50 ms.
        assert first["ticks"] >= int(first["dt"] / 0.05 / 4), f"event loop starved: {first}"
    text = first["value"]
    if kind == "big_int":
        rc = re.search(r"rc=(\d+)", text)
        assert rc and rc.group(1) != "0", f"{kind}/{mode}: the tool call did not fail: {text!r:.500}"
        where = text
        # Sandbox.shell returns stdout only; the applet's message is on stderr (not visible here).
        if mode in ("sync", "async"):
            where = None
    else:
        caught = re.search(r"^CAUGHT (.*)$", text, re.M | re.S)
        assert caught, f"{kind}/{mode}: the script did not catch an error; output {text!r:.500}"
        where = caught.group(1)
    if where is not None:
        assert re.search(NAMES_PROBLEM[kind], where, re.I), f"{kind}/{mode}: the error does not name the problem: {where!r:.500}"
    assert after["ok"] and after["value"].startswith("1"), f"{kind}/{mode}: sandbox unusable afterwards: {after}"


def test_big_int_refusal_reaches_stderr() -> None:
    child = run_isolated(
        SCENARIO_SETUP
        + f"""
sb = new_sandbox()
emit(first=attempt(lambda: sb.shell({SHELL_BIG_INT!r})))
emit(stderr=sb.last_stderr[:2000] if sb.last_result else None)
emit(after=attempt(lambda: sb.shell("echo 1")))
""",
        CHILD_DEADLINE_S,
    )
    assert child["first"]["ok"], child["first"]
    assert re.search(NAMES_PROBLEM["big_int"], child["stderr"] or "", re.I), child["stderr"]
    assert child["after"]["value"] == "1\n"


def test_printing_a_lone_surrogate_does_not_break_the_run() -> None:
    child = run_isolated(
        r"""
sb = Sandbox(timeout=10)
emit(first=attempt(lambda: sb.execute(r"console.log('a\ud800b'); console.error('\udfff'); return '\ud800'")))
emit(after=attempt(lambda: sb.execute("console.log(1)")))
""",
        CHILD_DEADLINE_S,
    )
    assert child["first"]["ok"], child["first"]
    assert child["first"]["dt"] < RUN_LIMIT_S
    assert child["after"]["value"] == "1\n"


# -- item 2: denied calls with huge or deep params -----------------------------------------------

TRANSFER_SETUP = r'''
received = []
def transfer(amount: int, x: object = None, blob: str = "") -> str:
    """Move money."""
    received.append(len(json.dumps([x, blob])))
    return "sent"

t = create_sandbox_tool(tools=[transfer], constraints={"transfer": {"amount": "<=1000"}}, timeout=10)

def biggest_recorded_params():
    calls = t.sandbox.last_result.tool_calls
    return [(c.method, c.ok, len(json.dumps(c.params, default=repr))) for c in calls]
'''


def test_denied_deep_call_does_not_brick_the_sandbox() -> None:
    child = run_isolated(
        TRANSFER_SETUP
        + r"""
emit(first=attempt(lambda: t.run("let o=1;for(let i=0;i<3000;i++)o=[o];await transfer({amount:5000,x:o}).catch(()=>0)", language="javascript")))
emit(after=attempt(lambda: t.run("console.log(1)", language="javascript")))
emit(again=attempt(lambda: t.run("console.log(await transfer({amount: 10}))", language="javascript")))
""",
        CHILD_DEADLINE_S,
    )
    assert child["first"]["ok"] and isinstance(child["first"]["value"], str), child["first"]
    assert child["first"]["dt"] < RUN_LIMIT_S, child["first"]
    assert "already in progress" not in child["first"]["value"]
    assert child["after"]["ok"] and child["after"]["value"].startswith("1"), child["after"]
    assert child["again"]["value"].startswith("sent"), child["again"]


def test_denied_deep_call_via_sandbox_records_a_call() -> None:
    child = run_isolated(
        r"""
caps = [MethodCapability(method_pattern="mcp:transfer", constraints=ConstraintSet([Param("amount") <= 1000]))]
sb = Sandbox(tools=[tool("transfer", amount="integer")], capabilities=caps, tool_handler=echo_handler, timeout=10)
emit(first=attempt(lambda: sb.execute("let o=1;for(let i=0;i<3000;i++)o=[o];const r = await transfer({amount:5000,x:o}).catch(e=>'denied');console.log(r)")))
calls = sb.last_result.tool_calls if sb.last_result else []
emit(calls=[(c.method, c.ok, len(json.dumps(c.params, default=repr)), (c.error or '')[:200]) for c in calls])
emit(after=attempt(lambda: sb.execute("console.log(1)")))
""",
        CHILD_DEADLINE_S,
    )
    assert child["first"]["ok"] and child["first"]["value"] == "denied\n", child["first"]
    calls = child["calls"]
    assert len(calls) == 1 and calls[0][0] == "mcp:transfer" and calls[0][1] is False, calls
    assert child["after"]["value"] == "1\n"


@pytest.mark.parametrize("allowed", [False, True], ids=["denied", "allowed"])
def test_recorded_params_are_a_small_preview(allowed: bool) -> None:
    amount = 10 if allowed else 5000
    child = run_isolated(
        TRANSFER_SETUP
        + f"""
code = "const blob = 'x'.repeat(1 << 20); const r = await transfer({{amount: {amount}, blob}}).catch(e => 'denied'); console.log(r)"
emit(first=attempt(lambda: t.run(code, language="javascript")))
emit(recorded=biggest_recorded_params(), received=received)
""",
        CHILD_DEADLINE_S,
    )
    assert child["first"]["ok"], child["first"]
    assert child["first"]["value"].startswith("sent" if allowed else "denied"), child["first"]
    recorded = child["recorded"]
    assert len(recorded) == 1 and recorded[0][1] is allowed, recorded
    assert recorded[0][2] <= 64 * 1024, f"tool_calls[0].params is {recorded[0][2]} bytes of JSON: not a preview"
    if allowed:
        # The handler itself still gets the whole value.
        assert child["received"] and child["received"][0] >= 1 << 20, child["received"]
