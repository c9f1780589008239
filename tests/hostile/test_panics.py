"""Issue 7, item 5: nothing reachable from a script or the public API kills
the Python process. Each scenario runs in a child that must exit 0; every
odd input ends in a clear error (or a plain result), never a crash or hang."""

from __future__ import annotations

import pytest

from _hostile import ChildRun, check_child, spawn_many

DEADLINE_S = 20.0

ODD_NAMES = ["", " ", "a b", "a/b", "../../etc/passwd", "a\x00b", "ü-ñ.名前", "x" * 5000, "mcp:", "**", "$(id)", "'\"`"]

SCENARIOS = {
    # params that are not objects, from JavaScript and from the shell
    "params_not_objects": r'''
sb = Sandbox(tools=[tool("get_weather", city="string")], tool_handler=echo_handler, timeout=10)
results = {}
for i, arg in enumerate(["5", "[1, 2]", "null", "'str'", "undefined", "", "true", "() => 1", "Symbol('s')", "10n",
                         "new Proxy({}, {get() { throw new Error('trap') }})", "(() => { const o = {}; o.o = o; return o })()"]):
    code = f"try {{ const r = await get_weather({arg}); console.log('OK ' + JSON.stringify(r)) }} catch (e) {{ console.log('ERR ' + e.message) }}"
    results["js " + arg] = attempt(lambda: sb.execute(code))
for arg in ["'[1]'", "'5'", "'null'", "'{'", "'\"s\"'", "''", "'{\"a\": 1e999}'", "'{\"a\": NaN}'"]:
    results["sh " + arg] = attempt(lambda: sb.shell(f"tool get_weather --json {arg}; echo rc=$?"))
emit(results=results)
emit(after=attempt(lambda: sb.execute("console.log(1)")))
''',
    # garbage method names reach the tool applet and callTool
    "garbage_method_names": r'''
sb = Sandbox(tools=[tool("get_weather", city="string")], tool_handler=echo_handler, timeout=10)
results = {}
for name in ODD_NAMES:
    js = "try { await callTool(" + json.dumps(name) + ", {}) ; console.log('OK') } catch (e) { console.log('ERR ' + e.message.slice(0, 200)) }"
    results["js " + repr(name[:20])] = attempt(lambda: sb.execute(js))
    if "\x00" not in name:
        quoted = "'" + name.replace("'", "'\\''") + "'"
        results["sh " + repr(name[:20])] = attempt(lambda: sb.shell(f"tool {quoted} --x 1; echo rc=$?"))
emit(results=results)
emit(after=attempt(lambda: sb.execute("console.log(1)")))
''',
    # tools whose names have odd characters, and checks of odd method names
    "odd_tool_names": r'''
results = {}
for name in ODD_NAMES:
    def build():
        sb = Sandbox(tools=[tool(name, city="string")], tool_handler=echo_handler, timeout=10)
        try:
            out = sb.execute("for (const t of listTools()) { try { console.log(JSON.stringify(await globalThis[t]({city: 'x'}))) } catch (e) { console.log('ERR ' + e.message.slice(0, 100)) } }")
            out += sb.shell("tool --list | head -3")
            return [out, sb.can_call("mcp:" + name, {}), sb.can_call(name), sb.get_remaining_calls(name)]
        finally:
            sb.close()
    results[repr(name[:20])] = attempt(build)
emit(results=results)
''',
    "can_call_garbage": r'''
sb = Sandbox(capabilities=[MethodCapability(method_pattern="mcp:a", constraints=ConstraintSet([Param("n") <= 5]))], timeout=10)
results = {}
for name in ODD_NAMES + ["mcp:a"]:
    for label, params in [("none", None), ("empty", {}), ("big int", {"n": 10 ** 5000}), ("nan", {"n": float("nan")}),
                          ("surrogate key", {"\ud800": 1}), ("nul", {"n": "\x00"}), ("nested", {"n": [[[[]]]]})]:
        results[repr(name[:10]) + " " + label] = attempt(lambda: sb.can_call(name, params))
emit(results=results)
emit(after=attempt(lambda: sb.execute("console.log(1)")))
''',
    # resume / resume_error with ids that do not exist, values that cannot be sent
    "resume_bad_ids": r'''
sb = Sandbox(tools=[tool("a")], timeout=10)
outcomes = {}
outcomes["resume_no_run"] = attempt(lambda: sb.resume(1, id=12345))
outcomes["resume_error_no_run"] = attempt(lambda: sb.resume_error("x", id=12345))
outcomes["step_no_run"] = attempt(sb.step)
outcomes["has_work_no_run"] = attempt(sb.has_work)
sb.start("console.log(await a({}))", language="javascript")
req = sb.step()
outcomes["resume_unknown_id"] = attempt(lambda: sb.resume("x", id=12345))
outcomes["resume_negative_id"] = attempt(lambda: sb.resume("x", id=-1))
outcomes["resume_huge_id"] = attempt(lambda: sb.resume("x", id=2 ** 70))
outcomes["resume_error_unknown_id"] = attempt(lambda: sb.resume_error("x", id=12345))
outcomes["resume_unencodable"] = attempt(lambda: sb.resume(object(), id=req.id) if req else None)
outcomes["resume_twice"] = attempt(lambda: sb.resume("again", id=req.id) if req else None)
outcomes["start_during_run"] = attempt(lambda: sb.start("console.log(2)", language="javascript"))
while sb.has_work():
    sb.resume_error("unexpected", id=sb.step().id)
res = sb.result()
outcomes["run_stdout"] = res.stdout if res else None
outcomes["run_stderr"] = res.stderr[:500] if res else None
outcomes["after"] = attempt(lambda: sb.execute("console.log(1)"))
emit(**outcomes)
''',
    "resume_error_odd_messages": r'''
sb = Sandbox(tools=[tool("a")], timeout=10)
results = {}
for msg in ["bad\x00thing", "\ud800", "x" * (1 << 20), ""]:
    sb.start("try { await a({}) } catch (e) { console.log('ERR ' + e.message.length) }", language="javascript")
    req = sb.step()
    results[repr(msg[:10])] = attempt(lambda: sb.resume_error(msg, id=req.id))
    while sb.has_work():
        sb.resume_error("unexpected", id=sb.step().id)
    res = sb.result()
    results[repr(msg[:10]) + " stdout"] = res.stdout if res else None
emit(results=results)
emit(after=attempt(lambda: sb.execute("console.log(1)")))
''',
    # tool handlers returning values JSON (or Python's json) cannot carry, or raising odd exceptions
    "handler_odd_results": r'''
class BadStr(Exception):
    def __str__(self):
        raise ValueError("no str for you")
ODD = {
    "huge_int": lambda: 10 ** 5000,
    "nan": lambda: float("nan"),
    "inf": lambda: float("inf"),
    "int_keys": lambda: {1: "a", None: "b"},
    "bytes": lambda: b"\xff\x00",
    "set": lambda: {1, 2},
    "generator": lambda: (i for i in range(3)),
    "self_cycle": lambda: (lambda l: (l.append(l), l)[1])([]),
    "deep_list": lambda: (lambda: [x := [], [x := [x] for _ in range(5000)]][1][-1])(),
    "surrogate_key": lambda: {"\ud800": 1},
    "nul_text": lambda: "a\x00b",
    "exception_bad_str": lambda: (_ for _ in ()).throw(BadStr()),
    "exception_nul": lambda: (_ for _ in ()).throw(ValueError("x\x00y")),
    "exception_surrogate": lambda: (_ for _ in ()).throw(ValueError("x\ud800y")),
}
def handler(method, params):
    return ODD[params["kind"]]()
sb = Sandbox(tools=[tool("odd", kind="string")], tool_handler=handler, timeout=10)
results = {}
for kind in ODD:
    code = f"try {{ const r = await odd({{kind: {kind!r}}}); console.log('OK ' + typeof r) }} catch (e) {{ console.log('ERR ' + String(e.message).length) }}"
    results[kind] = attempt(lambda: sb.execute(code))
emit(results=results)
emit(after=attempt(lambda: sb.execute("console.log(1)")))
''',
    "closed_sandbox_calls": r'''
sb = Sandbox(timeout=10)
sb.close()
results = {}
for name, fn in {
    "execute": lambda: sb.execute("console.log(1)"),
    "shell": lambda: sb.shell("echo 1"),
    "start": lambda: sb.start("console.log(1)"),
    "step": sb.step,
    "has_work": sb.has_work,
    "resume": lambda: sb.resume(1, id=1),
    "result": sb.result,
    "cancel": lambda: sb.cancel(),
    "close_again": sb.close,
}.items():
    results[name] = attempt(fn)
emit(results=results)
''',
}


@pytest.fixture(scope="module")
def runs() -> dict[str, ChildRun]:
    prelude = f"ODD_NAMES = {ODD_NAMES!r}\n"
    return spawn_many({k: prelude + v for k, v in SCENARIOS.items()}, DEADLINE_S, workers=4)


def foreign_errors(results: dict) -> list:
    """Outcomes that ended in something other than a value or one of our errors
    (ValueError/TypeError naming the input are fine too)."""
    allowed = ("amla_sandbox.", "ValueError", "TypeError", "RuntimeError")
    return [(k, v) for k, v in results.items() if isinstance(v, dict) and not v["ok"] and not v["type"].startswith(allowed)]


def test_params_that_are_not_objects(runs: dict[str, ChildRun]) -> None:
    child = check_child(runs["params_not_objects"])
    results = child["results"]
    for key, outcome in results.items():
        # The run itself finishes; the script sees a result or an error it can print.
        assert outcome["ok"], f"{key}: the run raised {outcome}"
        assert outcome["dt"] < 5, f"{key}: {outcome}"
        if key.startswith("js "):
            assert outcome["value"].startswith(("OK ", "ERR ")), f"{key}: {outcome}"
    assert child["after"]["value"] == "1\n"


def test_garbage_method_names(runs: dict[str, ChildRun]) -> None:
    child = check_child(runs["garbage_method_names"])
    for key, outcome in child["results"].items():
        assert outcome["ok"], f"{key}: the run raised {outcome}"
        if key.startswith("js "):
            assert outcome["value"].startswith("ERR "), f"{key}: an unknown name was called: {outcome}"
        else:
            assert "rc=0" not in outcome["value"], f"{key}: an unknown name was called: {outcome}"
    assert child["after"]["value"] == "1\n"


def test_odd_tool_names(runs: dict[str, ChildRun]) -> None:
    child = check_child(runs["odd_tool_names"])
    bad = foreign_errors(child["results"])
    assert not bad, f"odd tool names ended in foreign errors: {bad}"


def test_can_call_with_garbage(runs: dict[str, ChildRun]) -> None:
    child = check_child(runs["can_call_garbage"])
    for key, outcome in child["results"].items():
        assert outcome["ok"] and isinstance(outcome["value"], bool), f"{key}: {outcome}"
    assert child["after"]["value"] == "1\n"


def test_resume_with_ids_that_do_not_exist(runs: dict[str, ChildRun]) -> None:
    child = check_child(runs["resume_bad_ids"])
    for key in ("resume_no_run", "resume_error_no_run", "resume_unknown_id", "resume_error_unknown_id", "resume_negative_id"):
        outcome = child[key]
        assert not outcome["ok"], f"{key}: accepted an id that does not exist: {outcome}"
        assert outcome["type"].startswith("amla_sandbox.") or outcome["type"] in ("ValueError", "RuntimeError"), f"{key}: {outcome}"
    for key in ("resume_unknown_id", "resume_error_unknown_id"):
        assert "12345" in child[key]["msg"], f"{key}: the error does not name the id: {child[key]}"
    assert not child["resume_huge_id"]["ok"], child["resume_huge_id"]
    assert child["step_no_run"]["ok"] and child["step_no_run"]["value"] is None
    assert child["has_work_no_run"]["ok"] and child["has_work_no_run"]["value"] is False
    # An unencodable value becomes an error for the script; answering twice is refused.
    assert child["resume_unencodable"]["ok"], child["resume_unencodable"]
    assert not child["resume_twice"]["ok"], child["resume_twice"]
    assert not child["start_during_run"]["ok"], child["start_during_run"]
    assert child["after"]["ok"] and child["after"]["value"] == "1\n", child["after"]


def test_resume_error_with_odd_messages(runs: dict[str, ChildRun]) -> None:
    child = check_child(runs["resume_error_odd_messages"])
    for key, outcome in child["results"].items():
        if key.endswith(" stdout"):
            assert outcome and outcome.startswith("ERR "), f"{key}: {outcome!r}"
        else:
            # A message Python cannot send may be refused, as long as it is refused clearly.
            assert outcome["ok"] or not foreign_errors({key: outcome}), f"{key}: {outcome}"
    assert child["after"]["value"] == "1\n"


def test_tool_handlers_returning_odd_values(runs: dict[str, ChildRun]) -> None:
    child = check_child(runs["handler_odd_results"])
    problems = []
    for kind, outcome in child["results"].items():
        if not outcome["ok"]:
            problems.append(f"{kind}: the run raised {outcome['type']}: {outcome['msg']:.200}")
        elif outcome["dt"] >= 5 or not outcome["value"].startswith(("OK ", "ERR ")):
            problems.append(f"{kind}: {outcome}")
    if child["after"].get("value") != "1\n":
        problems.append(f"sandbox unusable afterwards: {child['after']}")
    assert not problems, "; ".join(problems)


def test_calls_on_a_closed_sandbox(runs: dict[str, ChildRun]) -> None:
    child = check_child(runs["closed_sandbox_calls"])
    results = child["results"]
    for key in ("execute", "shell", "start", "resume"):
        assert not results[key]["ok"], f"{key} on a closed sandbox: {results[key]}"
    assert results["close_again"]["ok"], results["close_again"]
    bad = foreign_errors(results)
    assert not bad, f"closed sandbox gave foreign errors: {bad}"
