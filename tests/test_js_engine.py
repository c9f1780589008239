"""The JavaScript guest (QuickJS-NG) through the public API: the language,
the console.log rules agents parse, limits in nested processes, clean runs."""

from __future__ import annotations

import time

import pytest

import amla_sandbox
from amla_sandbox import Sandbox


@pytest.fixture(scope="module")
def sb():
    with Sandbox() as box:
        yield box


@pytest.mark.parametrize(
    "code,want",
    [
        (
            "async function* gen() { yield 1; yield 2 } const out = []; for await (const x of gen()) out.push(x); return out",
            "[1,2]",
        ),
        ("return 'héllo wörld 42'.match(/\\p{L}+/gu)", '["héllo","wörld"]'),
        ("return /[\\p{L}--[a-z]]/v.test('é')", "true"),
        (
            "return Object.groupBy([1, 2, 3, 4], n => n % 2 ? 'odd' : 'even')",
            '{"odd":[1,3],"even":[2,4]}',
        ),
        ("return [3, 1, 2].toSorted()", "[1,2,3]"),
        ("return [...new Set([1, 2, 3]).intersection(new Set([2, 3, 4]))]", "[2,3]"),
        ("return [1, 2, 3, 4].values().filter(n => n > 1).map(n => n * 10).toArray()", "[20,30,40]"),
        ("return structuredClone({a: [1, {b: 2}]})", '{"a":[1,{"b":2}]}'),
        ("return btoa('hi') + atob('aGk=') + new TextDecoder().decode(new TextEncoder().encode('é'))", "aGk=hié"),
    ],
)
def test_modern_javascript(sb: Sandbox, code: str, want: str) -> None:
    assert sb.execute(code) == want + "\n"


@pytest.mark.parametrize(
    "args,want",
    [
        ("{a: 1, b: [1, 2]}", '{"a":1,"b":[1,2]}'),
        ("'s', {x: {y: {z: {w: 1}}}}", 's {"x":{"y":{"z":{"w":1}}}}'),
        ("[1, undefined, NaN, Infinity]", "[1,null,null,null]"),
        ("{d: new Date(0)}", '{"d":"1970-01-01T00:00:00.000Z"}'),
        ("(() => { const o = {n: 1}; o.self = o; return o })()", '{"n":1,"self":"[Circular]"}'),
        ("'text', 42, true, null, undefined", "text 42 true null undefined"),
        ("10n, [10n]", '10n ["10n"]'),
    ],
)
def test_console_log_prints_what_the_reference_prints(sb: Sandbox, args: str, want: str) -> None:
    assert sb.execute(f"console.log({args})") == want + "\n"


def test_errors_print_something_an_agent_can_use(sb: Sandbox) -> None:
    out = sb.execute("console.log(new Error('boom'))")
    assert "Error: boom" in out


def test_deep_recursion_is_a_catchable_range_error_and_the_run_goes_on(sb: Sandbox) -> None:
    code = (
        "const f = n => n === 0 ? 0 : 1 + f(n - 1);"
        "try { f(10000); console.log('no error') } catch (e) { console.log(e.name) }"
        "console.log(f(100))"
    )
    assert sb.execute(code) == "RangeError\n100\n"
    assert sb.execute("console.log('next')") == "next\n"


def test_globals_do_not_survive_into_the_next_run(sb: Sandbox) -> None:
    sb.execute("globalThis.leak = 1; Array.prototype.leak = 2")
    assert sb.execute("return [typeof leak, typeof [].leak]") == '["undefined","undefined"]\n'


def test_math_random_differs_between_runs(sb: Sandbox) -> None:
    seen = {sb.execute("return Math.random()") for _ in range(5)}
    assert len(seen) == 5


@pytest.mark.parametrize(
    "how,code",
    [
        ("JS", "while (true) {}"),
        ("JS in shell()", "await shell(\"node -e 'while (true) {}'\")"),
    ],
)
def test_runaway_code_stops_at_the_timeout_even_nested(how: str, code: str) -> None:
    with Sandbox(timeout=1) as box:
        start = time.monotonic()
        with pytest.raises(amla_sandbox.TimeoutError):
            box.execute(code)
        assert time.monotonic() - start < 3, how
        assert box.execute("console.log(1)") == "1\n"


def test_runaway_shell_child_of_node_stops_at_the_timeout() -> None:
    with Sandbox(timeout=1) as box:
        with pytest.raises(amla_sandbox.TimeoutError):
            box.shell("node -e \"await shell('while true; do :; done')\"")


@pytest.mark.parametrize(
    "run",
    [
        lambda box: box.execute("const a = []; while (true) a.push('x'.repeat(1 << 20) + a.length)"),
        lambda box: box.shell("node -e \"const a = []; while (true) a.push('x'.repeat(1 << 20) + a.length)\""),
    ],
    ids=["js", "node -e in the shell"],
)
def test_allocation_bomb_ends_at_the_memory_limit(run) -> None:
    with Sandbox(memory_limit=64 * 1024 * 1024) as box:
        with pytest.raises(amla_sandbox.MemoryLimitError):
            run(box)
        assert box.execute("console.log(1)") == "1\n"


@pytest.mark.parametrize("limit_mib", [32, 256])
def test_cyclic_garbage_is_collected_within_the_memory_limit(limit_mib: int) -> None:
    # Cycles are what only QuickJS's collector frees; the run paces it by
    # its memory limit (docs/javascript.md). 1,000,000 pairs of objects
    # that point at each other are far more than either limit.
    code = (
        "let kept = 0; for (let i = 0; i < 1000000; i++) { const a = {i, pad: [i, i]}; const b = {a}; a.b = b; kept += b.a.i & 1 }"
        "console.log(kept)"
    )
    with Sandbox(memory_limit=limit_mib * 1024 * 1024, timeout=60) as box:
        assert box.execute(code) == "500000\n"


def test_nesting_of_child_processes_is_bounded() -> None:
    with Sandbox(timeout=20) as box:
        # node runs a script that runs the shell that runs node ... forever.
        box.execute(
            "await fs.writeFile('/workspace/n.js', \"const r = await shell('sh /workspace/n.sh'); console.log(r.stdout + r.stderr)\");"
            "await fs.writeFile('/workspace/n.sh', 'node /workspace/n.js')"
        )
        out = box.shell("node /workspace/n.js")
        assert "nesting limit reached" in out + box.last_stderr


def test_shell_and_javascript_share_the_files() -> None:
    with Sandbox() as box:
        box.execute("await fs.writeFile('/workspace/n.txt', '41')")
        assert box.shell("echo $(( $(cat /workspace/n.txt) + 1 ))") == "42\n"
        assert box.shell("node -e \"console.log(await fs.readFile('/workspace/n.txt', 'utf8'))\"") == "41\n"
