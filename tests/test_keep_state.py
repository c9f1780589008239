"""Sessions that remember: Sandbox(keep_state=True) (docs/sessions.md).

Each language's globals, imports and definitions persist from one run of a
sandbox to the next; a run stopped by a timeout, the memory limit or a
cancellation discards them (the result says so), an ordinary error keeps
them, reset() starts fresh, and nothing reaches another sandbox.
"""

from __future__ import annotations

import threading
import time

import pytest

import amla_sandbox
from amla_sandbox import Sandbox, create_sandbox_tool


@pytest.fixture
def sb() -> Sandbox:
    with Sandbox(timeout=5, keep_state=True) as box:
        yield box


# -- Python ---------------------------------------------------------------------------------------


def test_python_variables_functions_classes_imports_persist(sb: Sandbox) -> None:
    sb.python(
        "import fractions as fr\n"
        "x = 41\n"
        "def inc(n):\n    return n + 1\n"
        "class Box:\n    def __init__(self, v):\n        self.v = v\n"
        "counter = [0]\n"
    )
    assert sb.python("print(inc(x), Box(3).v, fr.Fraction(1, 2))") == "42 3 1/2\n"
    sb.python("counter[0] += 1")
    sb.python("counter[0] += 1")
    assert sb.python("counter[0]") == "2\n"


def test_python_state_survives_an_exception(sb: Sandbox) -> None:
    sb.python("before = 1")
    sb.python("during = 2\nraise ValueError('boom')\nafter = 3")
    assert sb.last_result is not None and sb.last_result.exit_code == 1
    assert sb.python("print(before, during, 'after' in globals())") == "1 2 False\n"
    assert sb.last_result is not None and not sb.last_result.state_reset


def test_python_traceback_shows_the_defining_runs_lines(sb: Sandbox) -> None:
    sb.python("# run one\ndef bad():\n    raise KeyError('in run one')\n")
    sb.python("x = 1\nbad()")
    assert "raise KeyError('in run one')" in sb.last_stderr


def test_python_event_loop_is_the_sessions(sb: Sandbox) -> None:
    sb.python("import asyncio\nasync def f():\n    await asyncio.sleep(0.01)\n    return 41")
    assert sb.python("await f() + 1") == "42\n"
    sb.python("task = asyncio.ensure_future(f())")
    assert sb.python("await task") == "41\n"
    assert "DeprecationWarning" not in sb.last_stderr


def test_python_random_state_and_cwd_are_the_sessions(sb: Sandbox) -> None:
    sb.python("import random, os\nrandom.seed(7)\nfirst = [random.random() for _ in range(3)]\nos.makedirs('d', exist_ok=True)\nos.chdir('d')")
    assert sb.python("import os\nos.getcwd()") == "/workspace/d\n"
    assert sb.python("import random\nrandom.seed(7)\n[random.random() for _ in range(3)] == first") == "true\n"


# -- JavaScript -----------------------------------------------------------------------------------


@pytest.mark.parametrize("spoil", ["sys.stdin.close()", "sys.stdin.detach()", "sys.stdin = None", "sys.stdin.read()"])
def test_python_stdin_is_empty_again_whatever_a_run_did_to_it(sb: Sandbox, spoil: str) -> None:
    assert sb.python(f"import sys\n{spoil}\nprint('ok')") == "ok\n"
    assert sb.python("import sys\nprint(repr(sys.stdin.read()), repr(input.__name__))") == "'' 'input'\n"
    assert sb.python("import sys\nprint(sys.stdin.read())", stdin="given") == "given\n"
    assert sb.python("import sys\nprint(repr(sys.stdin.read()))") == "''\n"


def test_javascript_declarations_persist(sb: Sandbox) -> None:
    sb.execute("const a = 40; let b = 2; var c = 'v'; function add(x, y) { return x + y }\nclass P { constructor(v) { this.v = v } }")
    assert sb.execute("console.log(add(a, b), c, new P(5).v)") == "42 v 5\n"
    sb.execute("b += 1")
    assert sb.execute("console.log(b)") == "3\n"


def test_javascript_top_level_await_and_completion_value(sb: Sandbox) -> None:
    sb.execute("const v = await new Promise(r => setTimeout(() => r(7), 1))")
    assert sb.execute("v * 6") == "42\n"
    assert sb.last_result is not None and sb.last_result.return_value == 42


def test_javascript_promise_completion_value_is_awaited(sb: Sandbox) -> None:
    assert sb.execute("var later = () => new Promise(r => setTimeout(() => r({ok: 1}), 5)); later()") == '{"ok":1}\n'
    sb.execute("Promise.reject(new Error('no luck'))")
    assert sb.last_result is not None and sb.last_result.exit_code == 1
    assert sb.last_stderr.startswith("Error: no luck")
    assert "Uncaught" not in sb.last_stderr


def test_javascript_top_level_return_still_works(sb: Sandbox) -> None:
    sb.execute("globalThis.kept = 5; const q = 1")
    assert sb.execute("if (kept) return kept + q; console.log('no')") == "6\n"


def test_javascript_top_level_let_and_const_can_be_declared_again(sb: Sandbox) -> None:
    sb.execute("const data = [1]; let n = 1")
    sb.execute("const data = [2]; let n = n + 1")
    assert sb.execute("console.log(JSON.stringify(data), n)") == "[2] 2\n"
    # an initialiser that throws does not leave the name unusable
    sb.execute("const res = (() => { throw new Error('tool failed') })()")
    assert sb.last_result is not None and sb.last_result.exit_code == 1
    assert sb.execute("const res = 'retried'; res") == "retried\n"
    # declarations inside blocks, strings and templates stay as written
    assert sb.execute("const s = 'const x = 1'; { const y = 2; s + y }") == "const x = 12\n"
    # ... and inside template literals, regular expressions and comments
    sb.execute("const src = `\nconst inner = 1\nlet ${'b'} = 2\n`; const re = /let [x]\\/const/g; const q = 6 / 3 / 2 // const z\n")
    assert sb.execute("[src.includes('const inner = 1'), src.includes('let b'), re.source, q]") == '[true,true,"let [x]\\\\/const",1]\n'
    assert sb.execute("typeof inner") == "undefined\n"


def test_javascript_class_declared_again_says_what_to_do(sb: Sandbox) -> None:
    sb.execute("class Point {}")
    sb.execute("class Point {}")
    assert sb.last_result is not None and sb.last_result.exit_code == 1
    assert "redeclaration of 'Point': an earlier run of this session declared it" in sb.last_stderr
    assert "assign to it instead (Point = ...)" in sb.last_stderr
    assert sb.execute("typeof Point") == "function\n"


def test_javascript_state_survives_a_throw(sb: Sandbox) -> None:
    sb.execute("var n = 1")
    sb.execute("n = 2; throw new Error('x')")
    assert sb.last_result is not None and sb.last_result.exit_code == 1
    assert sb.execute("console.log(n)") == "2\n"


def test_javascript_process_exit_code_is_per_run(sb: Sandbox) -> None:
    sb.execute("process.exitCode = 3")
    assert sb.last_result is not None and sb.last_result.exit_code == 3
    sb.execute("console.log(1)")
    assert sb.last_result.exit_code == 0


# -- shell ----------------------------------------------------------------------------------------


def test_shell_variables_functions_aliases_cwd_persist(sb: Sandbox) -> None:
    sb.shell("shopt -s expand_aliases; X=hello; export Y=world; greet() { echo \"hi $1\"; }; alias ll='echo listed'; mkdir -p sub; cd sub")
    assert sb.shell("echo $X $Y; greet you; pwd; sh -c 'echo $Y'") == "hello world\nhi you\n/workspace/sub\nworld\n"
    assert sb.shell("ll") == "listed\n"


def test_shell_cwd_and_env_arguments_do_not_stay(sb: Sandbox) -> None:
    sb.shell("mkdir -p /tmp/w")
    assert sb.shell("pwd; echo $Z", cwd="/tmp/w", env={"Z": "z"}) == "/tmp/w\nz\n"
    assert sb.shell("pwd; echo \"[$Z]\"") == "/workspace\n[]\n"


# -- what discards the state ----------------------------------------------------------------------


def test_timeout_discards_the_state_with_a_note() -> None:
    with Sandbox(timeout=1, keep_state=True) as box:
        box.python("kept = 1")
        with pytest.raises(amla_sandbox.TimeoutError):
            box.python("kept = 2\nwhile True: pass")
        res = box.last_result
        assert res is not None and res.state_reset
        assert "[keep_state] the session's state was discarded because it timed out" in res.stderr
        assert box.python("print('kept' in globals())") == "False\n"
        assert not box.last_result.state_reset
        box.execute("var j = 1")
        with pytest.raises(amla_sandbox.TimeoutError):
            box.execute("while (true) {}")
        assert box.execute("console.log(typeof j)") == "undefined\n"


def test_memory_limit_discards_the_state() -> None:
    with Sandbox(timeout=10, memory_limit=64 << 20, keep_state=True) as box:
        box.execute("var small = 1")
        with pytest.raises(amla_sandbox.MemoryLimitError):
            box.execute("const a = []; while (true) a.push(new Array(1e5).fill(1))")
        assert box.last_result is not None and box.last_result.state_reset
        assert "reached the memory limit" in box.last_result.stderr
        assert box.execute("console.log(typeof small)") == "undefined\n"


def test_cancel_discards_the_state() -> None:
    with Sandbox(timeout=10, keep_state=True) as box:
        box.python("v = 1")
        threading.Timer(0.3, box.cancel).start()
        with pytest.raises(amla_sandbox.RuntimeError):
            box.python("import time\nwhile True: time.sleep(0.01)")
        assert box.last_result is not None and box.last_result.state_reset
        assert box.python("print('v' in globals())") == "False\n"


def test_reset_starts_fresh_and_keeps_files(sb: Sandbox) -> None:
    sb.python("a = 1\nopen('/workspace/f.txt', 'w').write('data')")
    sb.execute("var b = 2")
    sb.shell("C=3")
    sb.reset()
    assert sb.python("print('a' in globals(), open('/workspace/f.txt').read())") == "False data\n"
    assert sb.execute("console.log(typeof b)") == "undefined\n"
    assert sb.shell("echo \"[$C]\"") == "[]\n"


# -- isolation ------------------------------------------------------------------------------------


def test_monkey_patches_stay_in_their_sandbox() -> None:
    with Sandbox(keep_state=True) as one, Sandbox(keep_state=True) as two, Sandbox() as plain:
        one.python("import json\njson.dumps = lambda *a, **k: 'patched'")
        one.execute("JSON.stringify = () => 'patched'; Array.prototype.leak = 1")
        assert one.python("import json\njson.dumps([1])") == "patched\n"
        assert one.execute("console.log(JSON.stringify([1]), [].leak)") == "patched 1\n"
        for other in (two, plain):
            assert other.python("import json\njson.dumps([1])") == "[1]\n"
            assert other.execute("console.log(JSON.stringify([1]), [].leak)") == "[1] undefined\n"


def test_without_keep_state_nothing_persists() -> None:
    with Sandbox() as box:
        box.python("x = 1")
        box.execute("var y = 1")
        box.shell("Z=1")
        assert box.python("print('x' in globals())") == "False\n"
        assert box.execute("console.log(typeof y)") == "undefined\n"
        assert box.shell("echo \"[$Z]\"") == "[]\n"


def test_nested_processes_do_not_keep_state(sb: Sandbox) -> None:
    sb.execute("await shell('Q=1')")
    assert sb.execute("return (await shell('echo \"[$Q]\"')).stdout.trim()") == "[]\n"
    assert sb.shell("echo \"[$Q]\"") == "[]\n"


def test_languages_keep_their_own_state(sb: Sandbox) -> None:
    sb.python("shared = 'py'")
    sb.execute("var shared = 'js'")
    assert sb.python("shared") == "py\n"
    assert sb.execute("shared") == "js\n"


# -- API ------------------------------------------------------------------------------------------


def test_create_sandbox_tool_keep_state() -> None:
    def double(x: int) -> int:
        """Twice x."""
        return 2 * x

    tool = create_sandbox_tool([double], keep_state=True)
    try:
        tool.run("const d = await double({x: 21})", language="javascript")
        assert tool.run("console.log(d)", language="javascript").strip() == "42"
        tool.run("y = 5", language="python")
        assert tool.execute("y + 1", language="python").return_value == 6
    finally:
        tool.sandbox.close()


def test_python_tools_work_in_every_run_of_a_session() -> None:
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    tool = create_sandbox_tool([add], keep_state=True)
    try:
        assert tool.run("first = add(a=1, b=2)\nfirst", language="python") == "3\n"
        assert tool.run("add(a=first, b=10)", language="python") == "13\n"
        assert tool.run("import asyncio\nawait asyncio.gather(add(a=1, b=1), add(a=first, b=first))", language="python") == "[2,6]\n"
    finally:
        tool.sandbox.close()


def test_keep_state_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="keep_state must be True or False"):
        Sandbox(keep_state="yes")  # type: ignore[arg-type]


def test_many_runs_do_not_grow_without_bound(sb: Sandbox) -> None:
    sb.execute("var total = 0")
    sb.python("total = 0")
    start = time.monotonic()
    for _ in range(200):
        sb.execute("total += 1")
        sb.python("total += 1")
    assert sb.execute("console.log(total)") == "200\n"
    assert sb.python("total") == "200\n"
    assert time.monotonic() - start < 60


def test_approvals_decided_by_a_handler_work_in_a_kept_session() -> None:
    asked: list[str] = []

    def pay(amount: int) -> dict[str, int]:
        """Pay an amount."""
        return {"paid": amount}

    tool = create_sandbox_tool(
        [pay], require_approval=["pay"], approval_handler=lambda name, params: asked.append(name) or True, keep_state=True
    )
    try:
        tool.run("const receipt = await pay({amount: 3});", language="javascript")
        assert tool.run("console.log(receipt.paid)", language="javascript") == "3\n"
        assert asked == ["pay"]
    finally:
        tool.sandbox.close()


def test_a_journal_replays_only_in_a_sandbox_made_the_same_way() -> None:
    with Sandbox(record=True) as rec:
        rec.execute("console.log(1)")
        journal = rec.last_result.journal
    assert journal
    with Sandbox(keep_state=True) as sb, pytest.raises(Exception, match="recorded in a sandbox made with keep_state=False"):
        sb.replay(journal)


def test_codeact_evaluation_function_keeps_state() -> None:
    from amla_sandbox.codeact import create_amla_sandbox

    def one() -> int:
        """One."""
        return 1

    run = create_amla_sandbox([one], keep_state=True)
    assert run("var got = await one({});", {}) == ("(no output)", {})
    assert run("console.log(got + 1)", {}) == ("2\n", {})


def test_tool_result_says_the_state_was_reset() -> None:
    tool = create_sandbox_tool(timeout=1, keep_state=True)
    try:
        tool.execute("var kept = 1")
        res = tool.execute("while (true) {}")
        assert not res.success and res.state_reset
        assert "[keep_state] the session's state was discarded because it timed out" in res.stderr
        again = tool.execute("console.log(typeof kept)")
        assert again.stdout == "undefined\n" and not again.state_reset
    finally:
        tool.sandbox.close()


def test_a_script_replacing_json_functions_does_not_break_the_guest() -> None:
    def echo(text: str) -> dict[str, str]:
        return {"echo": text}

    tool = create_sandbox_tool(tools=[echo], keep_state=True)
    try:
        tool.run("import json\njson.dumps = lambda *a, **k: 'patched'\njson.loads = None", language="python")
        # The session keeps the script's json (its own business)...
        assert tool.run("print(json.dumps({}))", language="python") == "patched\n"
        # ...while the guest still encodes calls and results with the real one.
        assert tool.run("r = echo(text='hi')\nr", language="python") == '{"echo":"hi"}\n'
        assert tool.run("{'a': [1, 2]}", language="python") == '{"a":[1,2]}\n'
    finally:
        tool.sandbox.close()
