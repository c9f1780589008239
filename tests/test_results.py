"""Results from the host (docs/files.md): run_shell's exit code and separate
streams, shell(cwd=, env=), ExecutionResult.exit_code and return_value,
through the public API."""

from __future__ import annotations

import asyncio

import pytest

import amla_sandbox
from amla_sandbox import Sandbox, create_sandbox_tool
from amla_sandbox.sandbox import ShellResult


@pytest.fixture(scope="module")
def sb():
    with Sandbox() as s:
        yield s


# -- run_shell and shell(cwd=, env=) ------------------------------------------------------------------


def test_run_shell_gives_exit_code_and_both_streams(sb: Sandbox) -> None:
    r = sb.run_shell("echo out; echo err >&2; exit 3")
    assert r == ShellResult(stdout="out\n", stderr="err\n", exit_code=3)
    assert not r.ok
    assert sb.run_shell("true").ok
    assert sb.run_shell("false").exit_code == 1
    assert sb.run_shell("nosuchcommand").exit_code == 127


def test_shell_still_returns_a_string(sb: Sandbox) -> None:
    out = sb.shell("echo hi; exit 4")
    assert out == "hi\n" and isinstance(out, str)
    assert sb.last_result is not None and sb.last_result.exit_code == 4
    assert sb.shell("cat", "from stdin") == "from stdin"


def test_cwd(sb: Sandbox) -> None:
    sb.files.write("/workspace/proj/src/a.txt", "a")
    assert sb.shell("pwd; ls", cwd="/workspace/proj/src") == "/workspace/proj/src\na.txt\n"
    assert sb.shell("pwd", cwd="proj") == "/workspace/proj\n"  # relative to /workspace
    assert sb.shell("pwd", cwd="/tmp") == "/tmp\n"
    assert sb.shell("pwd") == "/workspace\n"  # the default, unchanged by an earlier cwd
    with pytest.raises(FileNotFoundError, match="/workspace/nope"):
        sb.run_shell("pwd", cwd="/workspace/nope")
    with pytest.raises(NotADirectoryError, match="/workspace/proj/src/a.txt"):
        sb.run_shell("pwd", cwd="/workspace/proj/src/a.txt")
    with pytest.raises(PermissionError, match=r'"\.\." is not allowed'):
        sb.run_shell("pwd", cwd="/workspace/../etc")
    r = sb.run_shell("pwd", cwd="/no/such/dir")  # outside the files: the shell's cd says so
    assert r.exit_code == 1 and "/no/such/dir" in r.stderr and r.stdout == ""


def test_env(sb: Sandbox) -> None:
    env = {"GREETING": "hello world", "QUOTE": "it's \"$HOME\" `x` $(y)", "EMPTY": ""}
    out = sb.shell('printf "%s|%s|%s|\\n" "$GREETING" "$QUOTE" "$EMPTY"', env=env)
    assert out == "hello world|it's \"$HOME\" `x` $(y)||\n"
    # Exported: commands the shell runs see them (env lists the exported ones).
    assert sb.shell("env | grep ^GREETING=", env=env) == "GREETING=hello world\n"
    assert sb.shell('echo "${GREETING:-unset}"') == "unset\n"  # not kept for the next run
    for bad in ({"1X": "v"}, {"A-B": "v"}, {"": "v"}, {"A": "a\0b"}, {"A": 1}):
        with pytest.raises(ValueError, match="env"):
            sb.run_shell("true", env=bad)  # type: ignore[arg-type]


def test_env_reaches_python_and_node_children(sb: Sandbox) -> None:
    """Exported variables are the environment of the python3 and node
    processes the shell starts, as in a POSIX shell."""
    r = sb.run_shell(
        'python3 -c "import os; print(os.environ.get(\'GREETING\'))"; '
        "export LOCAL=2; python3 -c \"import os; print(os.environ['LOCAL'])\"; "
        "ONCE=3 python3 -c \"import os; print(os.environ['ONCE'])\"; "
        "node -e 'console.log(process.env.GREETING, process.env.LOCAL)'; "
        "UNEXPORTED=4; python3 -c \"import os; print(os.environ.get('UNEXPORTED'))\"",
        env={"GREETING": "hello world"},
    )
    assert r.stdout == "hello world\n2\n3\nhello world 2\nNone\n", r


def test_cwd_and_env_keep_the_commands_line_numbers(sb: Sandbox) -> None:
    r = sb.run_shell('echo ok\necho "unclosed', cwd="/tmp", env={"A": "1"})
    assert r.exit_code == 2 and "line 2" in r.stderr, r


def test_run_shell_async(sb: Sandbox) -> None:
    r = asyncio.run(sb.run_shell_async("echo $X; exit 5", env={"X": "a"}, cwd="/tmp"))
    assert r == ShellResult(stdout="a\n", stderr="", exit_code=5)
    assert asyncio.run(sb.shell_async("pwd", cwd="/tmp")) == "/tmp\n"


def test_run_shell_timeout_still_raises() -> None:
    with Sandbox(timeout=0.5) as s:
        with pytest.raises(amla_sandbox.TimeoutError):
            s.run_shell("sleep 5")


# -- ExecutionResult.exit_code ------------------------------------------------------------------------


def test_execution_result_exit_code() -> None:
    tool = create_sandbox_tool()
    try:
        r = tool.shell("echo a; echo b >&2; exit 7")
        assert (r.stdout, r.stderr, r.exit_code, r.success) == ("a\n", "b\n", 7, True)
        r = tool.execute("console.log(1)")
        assert (r.stdout, r.exit_code) == ("1\n", 0)
        r = tool.execute("throw new Error('boom')")
        assert r.exit_code == 1 and "boom" in r.stderr
        r = tool.execute("process.exit(9)")
        assert r.exit_code == 9
    finally:
        tool.close()


def test_execution_result_exit_code_when_the_run_fails() -> None:
    tool = create_sandbox_tool(timeout=0.5)
    try:
        r = tool.execute("while (true) {}")
        assert not r.success and r.exit_code != 0 and "timed out" in (r.error or "")
    finally:
        tool.close()


# -- return_value -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "code,value",
    [
        ("return {a: 1, b: [1, 'x', null, true]}", {"a": 1, "b": [1, "x", None, True]}),
        ("return 'text'", "text"),
        ("return 3.5", 3.5),
        ("return null", None),
        ("return [new Date(0)]", ["1970-01-01T00:00:00.000Z"]),
        ("return {toJSON() { return 7 }}", 7),
        ("return 'é\\u{1F600}\\0'", "é\U0001f600\0"),
        ("const r = await Promise.resolve([1, 2]); return r", [1, 2]),
        ("console.log('no return')", None),
        ("return undefined", None),
        ("return 10n", None),  # not JSON
        ("const o = {}; o.o = o; return o", None),  # a cycle
        ("return () => 1", None),
        ("throw new Error('x')", None),
        ("process.exit(0)", None),
    ],
)
def test_javascript_return_value(sb: Sandbox, code: str, value: object) -> None:
    sb.execute(code)
    assert sb.last_result is not None
    assert sb.last_result.return_value == value
    assert type(sb.last_result.return_value) is type(value)


def test_javascript_return_value_is_still_printed(sb: Sandbox) -> None:
    assert sb.execute("return {a: 1}") == '{"a":1}\n'
    assert sb.last_result.return_value == {"a": 1}


@pytest.mark.parametrize(
    "code,value",
    [
        ("{'a': 1, 'b': [1, 2]}", {"a": 1, "b": [1, 2]}),
        ("(1, 'x')", [1, "x"]),  # a tuple is a JSON list
        ("'text'", "text"),
        ("1 + 1", 2),
        ("x = 5\nx * 2", 10),
        ("print('only a statement')", None),
        ("x = 1", None),
        ("None", None),
        ("{1, 2}", None),  # not JSON
        ("float('nan')", None),
        ("object()", None),
        ("'\\ud800'", "\ud800"),  # a lone surrogate survives as itself
        ("raise ValueError('x')", None),
    ],
)
def test_python_return_value(sb: Sandbox, code: str, value: object) -> None:
    try:
        sb.python(code)
    except amla_sandbox.RuntimeError:
        pass
    assert sb.last_result is not None
    assert sb.last_result.return_value == value


def test_python_final_expression_still_printed(sb: Sandbox) -> None:
    assert sb.python("{'a': [1, 2]}") == '{"a":[1,2]}\n'
    assert sb.last_result.return_value == {"a": [1, 2]}


def test_shell_has_no_return_value(sb: Sandbox) -> None:
    sb.shell("echo '{\"a\": 1}'")
    assert sb.last_result.return_value is None


def test_return_value_of_one_run_does_not_leak_into_the_next(sb: Sandbox) -> None:
    sb.execute("return 1")
    sb.execute("console.log(2)")
    assert sb.last_result.return_value is None


def test_execution_result_return_value() -> None:
    tool = create_sandbox_tool()
    try:
        r = tool.execute("return {ok: true}")
        assert r.return_value == {"ok": True} and r.exit_code == 0
        r = tool.python("[1, 2, 3]")
        assert r.return_value == [1, 2, 3]
        r = tool.execute("throw new Error('x')")
        assert r.return_value is None and r.exit_code == 1
    finally:
        tool.close()


def test_return_value_over_the_output_cap_is_dropped() -> None:
    with Sandbox(max_output_size=1000) as s:
        s.execute("return 'x'.repeat(500)")
        assert s.last_result.return_value == "x" * 500
        try:
            s.execute("return 'x'.repeat(5000)")
        except amla_sandbox.RuntimeError:
            pass  # its printed form may be over the cap too
        assert s.last_result.return_value is None
