"""Issue 24, item 11: one rule, the host's, for which names a script may
call. A request that names no tool (method missing, null, not a string,
empty) or names something that is not one of the sandbox's tools ("admin",
"echo/../admin") gets a clear error in the script and never reaches the
tool handler, whichever guest sends it: Python's raw submit
(_amla.submit, the host function itself), JavaScript's callTool and the
shell's tool applet. Before, Python's raw submit crashed the run with
KeyError: 'method' for a missing method and handed "admin" to the handler
whenever a capability allowed it.
"""

from __future__ import annotations

import json
import re

import pytest

from _hostile import ChildRun, check_child, spawn_many

DEADLINE_S = 60.0

# The raw requests a Python script submits, and what the error must name.
RAW = {
    "missing": ('{"params": {}}', r'"method" is missing'),
    "null": ('{"method": null, "params": {}}', r'"method" is missing'),
    "number": ('{"method": 5, "params": {}}', r"not a number"),
    "list": ('{"method": ["mcp:echo"], "params": {}}', r"not an array"),
    "empty": ('{"method": "", "params": {}}', r"is empty"),
    "admin": ('{"method": "admin", "params": {}}', r'Unknown tool: "admin"'),
    "mcp_admin": ('{"method": "mcp:admin", "params": {}}', r'Unknown tool: "mcp:admin"'),
    "traversal": ('{"method": "echo/../admin", "params": {}}', r'Unknown tool: "echo/../admin"'),
    "mcp_traversal": ('{"method": "mcp:echo/../admin", "params": {}}', r'Unknown tool: "mcp:echo/../admin"'),
}

# Every method is allowed by the capability, so only the name rule stands
# between these requests and the handler.
SETUP = r'''
seen = []
def handler(method, params):
    seen.append(method)
    return {"handled": method}
sb = Sandbox(tools=[tool("echo", x="string")], tool_handler=handler,
             capabilities=[MethodCapability(method_pattern="**")], timeout=20)
'''

PY_RAW = r'''
import _amla, json
_amla.submit(REQUEST.encode())
frame = _amla.wait(10000)
head, _, result = bytes(frame).partition(b"\n")
print(json.dumps(json.loads(head)))
'''

SCENARIOS = {
    "python_raw": SETUP + r'''
results = {}
for key, (request, _) in RAW.items():
    code = PY_RAW.replace("REQUEST", repr(request))
    results[key] = attempt(lambda: sb.execute(code, language="python"))
# The prelude's own call of a real tool still works, from the same sandbox.
results["real"] = attempt(lambda: sb.execute("print(echo(x='hi'))", language="python"))
emit(results=results, seen=seen)
''',
    "js": SETUP + r'''
results = {}
for name in ["", "admin", "mcp:admin", "echo/../admin", "mcp:echo/../admin"]:
    js = "try { await callTool(" + json.dumps(name) + ", {}); console.log('OK') } catch (e) { console.log('ERR ' + e.message) }"
    results[name] = attempt(lambda: sb.execute(js))
emit(results=results, seen=seen)
''',
    "shell": SETUP + r'''
results = {}
for name in ["admin", "mcp:admin", "echo/../admin", "mcp:echo/../admin"]:
    results[name] = attempt(lambda: sb.shell(f"tool '{name}' --x 1 2>&1; echo rc=$?"))
emit(results=results, seen=seen)
''',
}


@pytest.fixture(scope="module")
def runs() -> dict[str, ChildRun]:
    prefix = f"RAW = {RAW!r}\nPY_RAW = {PY_RAW!r}\n"
    return spawn_many({k: prefix + v for k, v in SCENARIOS.items()}, DEADLINE_S, workers=3)


def test_python_raw_submits_get_a_clear_error(runs: dict[str, ChildRun]) -> None:
    run = check_child(runs["python_raw"])
    results = run["results"]
    for key, (_, says) in RAW.items():
        out = results[key]
        assert out["ok"], f"{key}: the run failed instead of answering the script: {out}"
        head = json.loads(out["value"].strip().splitlines()[-1])
        assert head["ok"] is False and head["code"] == "invalid_request", f"{key}: {head}"
        assert re.search(says, head["error"]), f"{key}: error {head['error']!r} does not say {says!r}"
    assert results["real"]["ok"] and "handled" in results["real"]["value"], results["real"]
    assert run["seen"] == ["echo"], f"the handler saw {run['seen']} (only the real tool may reach it)"


def test_javascript_refuses_the_same_names(runs: dict[str, ChildRun]) -> None:
    run = check_child(runs["js"])
    for name, out in run["results"].items():
        assert out["ok"] and out["value"].startswith("ERR ") and "Unknown tool" in out["value"], f"{name!r}: {out}"
    assert run["seen"] == [], f"the handler saw {run['seen']}"


def test_shell_refuses_the_same_names(runs: dict[str, ChildRun]) -> None:
    run = check_child(runs["shell"])
    for name, out in run["results"].items():
        assert out["ok"] and "unknown tool" in out["value"].lower() and "rc=127" in out["value"], f"{name!r}: {out}"
    assert run["seen"] == [], f"the handler saw {run['seen']}"
