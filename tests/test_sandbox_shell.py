"""The shell through the public Python API (docs/shell.md)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

import amla_sandbox
from amla_sandbox import Sandbox, ToolDefinition, create_sandbox_tool


def tool_def(name: str, description: str = "", props: dict | None = None, required: list | None = None) -> ToolDefinition:
    schema: dict[str, Any] = {"type": "object", "properties": props or {}}
    if required:
        schema["required"] = required
    return ToolDefinition(name=name, description=description or name, parameters=schema)


@pytest.fixture(scope="module")
def sb():
    with Sandbox() as s:
        yield s


@pytest.mark.parametrize(
    "command,expected",
    [
        ("echo 'hello world'", "hello world\n"),
        ("echo 'line1\nline2\nline3' | wc -l", "3\n"),
        ("echo 'Hello from sandbox!' | tr 'a-z' 'A-Z'", "HELLO FROM SANDBOX!\n"),
        ("echo 'hello 123 world 456' | tr -d '0-9'", "hello  world \n"),
        ("echo 'hello-world_test' | tr '-_' '  '", "hello world test\n"),
        ("echo 'apple banana cherry' | tr ' ' '\\n' | sort", "apple\nbanana\ncherry\n"),
        ("echo 'apple,banana,cherry' | cut -d',' -f2", "banana\n"),
        ("echo 'Hello World' | cut -c1-5", "Hello\n"),
        ("echo -e '10\\n2\\n100\\n5' | sort -n", "2\n5\n10\n100\n"),
        ("echo -e 'banana\\napple\\ncherry' | sort -r", "cherry\nbanana\napple\n"),
        ("echo 'hello world' | wc -w", "2\n"),
        ("echo '[1,2,3]' | jq '.[1]'", "2\n"),
        ("echo '{\"a\":{\"b\":[1,2]}}' | jq '.a'", '{\n  "b": [\n    1,\n    2\n  ]\n}\n'),
        ("echo '{\"users\":[{\"name\":\"A\",\"role\":\"admin\"},{\"name\":\"B\",\"role\":\"user\"}]}' | jq -c '[.users[] | {username: .name, isAdmin: (.role == \"admin\")}]'",
         '[{"isAdmin":true,"username":"A"},{"isAdmin":false,"username":"B"}]\n'),  # gojq's sorted keys
        ("x=5; y=$((x * 2)); echo ${y} ${#y} ${z:-def}", "10 2 def\n"),
        ("f() { local a=$1; echo \"<$a>\"; }; f one; f 'two words'", "<one>\n<two words>\n"),
        ("for i in 1 2 3; do echo $i; done | tail -1", "3\n"),
        ("seq 1 5 | head -3", "1\n2\n3\n"),
        ("yes | head -2", "y\ny\n"),
        ("cat /etc/passwd; echo $?", "1\n"),
        ("cd ..; cd ..; cd ..; pwd", "/\n"),
        ("printf '%s-%d\\n' a 1 b 2", "a-1\nb-2\n"),
    ],
)
def test_command_lines(sb: Sandbox, command: str, expected: str):
    assert sb.shell(command) == expected


def test_files_shared_with_javascript(sb: Sandbox):
    sb.execute("await fs.writeFile('/workspace/data.json', JSON.stringify({count: 5}))")
    assert sb.shell("cat /workspace/data.json | jq '.count'") == "5\n"
    sb.shell("echo 'apple\nbanana\napricot' > /workspace/fruits.txt")
    assert sb.shell("grep 'ap' /workspace/fruits.txt") == "apple\napricot\n"
    assert sb.execute("return (await fs.readFile('/workspace/fruits.txt')).split('\\n').length") == "4\n"
    sb.shell("cat > /workspace/app.log << 'EOF'\n2024 INFO start\n2024 ERROR boom\n2024 INFO done\nEOF")
    assert sb.shell("cat /workspace/app.log | cut -d' ' -f2 | sort | uniq -c | sort -rn") == "      2 INFO\n      1 ERROR\n"
    assert sb.shell("echo 'Line 1' > /workspace/t.txt\necho 'Line 2' >> /workspace/t.txt\ncat /workspace/t.txt") == "Line 1\nLine 2\n"


def test_stderr_and_exit_status_do_not_raise(sb: Sandbox):
    assert sb.shell("nosuchcmd") == ""
    assert "command not found" in sb.last_stderr
    assert sb.last_result.exit_code == 127
    sb.shell("echo oops >&2; exit 3")
    assert sb.last_stderr == "oops\n" and sb.last_result.exit_code == 3


def test_parse_errors_name_line_and_column(sb: Sandbox):
    sb.shell("echo 'unterminated")
    assert "1:" in sb.last_stderr and sb.last_result.exit_code != 0
    sb.shell("sleep 1 &")
    assert "&" in sb.last_stderr or "background" in sb.last_stderr.lower()


def test_runaway_shell_loops_are_stopped():
    with Sandbox(timeout=1) as s:
        for cmd in ("while true; do :; done", "yes > /dev/null"):
            start = time.monotonic()
            with pytest.raises(amla_sandbox.TimeoutError):
                s.shell(cmd)
            assert time.monotonic() - start < 2.5
        assert s.shell("echo ok") == "ok\n"


def test_shell_stdin_runs_a_script_with_sh(sb: Sandbox):
    script = "\n".join(f"echo line{i}" for i in range(2000)) + "\n"
    out = sb.shell("sh", stdin=script)
    assert out.count("\n") == 2000 and out.endswith("line1999\n")
    assert sb.shell("cat | tr a-z A-Z", stdin="piped\n") == "PIPED\n"


def test_js_shell_and_shell_run(sb: Sandbox):
    out = sb.execute(
        "const r = await shell('echo hello'); console.log(r.stdout.trim(), r.exitCode);"
        "console.log((await shell.run('echo hello world')).trim());"
        "try { await shell.run('exit 1') } catch (e) { console.log('rejected', /exit 1|failed/.test(e.message)) }"
    )
    assert out == "hello 0\nhello world\nrejected true\n"


def test_node_from_the_shell_has_the_same_tools():
    def handler(name: str, params: Any) -> Any:
        return {"doubled": params["n"] * 2}

    with Sandbox(tools=[tool_def("double", props={"n": {"type": "integer"}})], tool_handler=handler) as s:
        assert s.shell("node -e 'const r = await double({n: 21}); console.log(r.doubled)'") == "42\n"
        assert s.shell("echo 'return 1 + 1' | node -") == "2\n"


def test_tool_applet_matches_js_calls():
    calls: list[tuple[str, Any]] = []

    def handler(name: str, params: Any) -> Any:
        calls.append((name, params))
        if name == "calculator.add":
            return {"sum": params["a"] + params["b"]}
        if name == "weather.get":
            return {"city": params["city"], "temp": 22, "conditions": "sunny"}
        if name == "data.process":
            return {"processed": len(params["items"])}
        return {"users": [{"name": "Alice", "role": "admin"}, {"name": "Bob", "role": "user"}, {"name": "Charlie", "role": "admin"}]}

    tools = [
        tool_def("calculator.add", "Add numbers", {"a": {"type": "integer"}, "b": {"type": "integer"}}, ["a", "b"]),
        tool_def("calculator.multiply", "Multiply two numbers", {"x": {"type": "number"}, "y": {"type": "number"}}),
        tool_def("weather.get", "Get weather", {"city": {"type": "string"}}),
        tool_def("data.process", "Process", {"items": {"type": "array"}, "mode": {"type": "string"}}),
        tool_def("users.list", "List users"),
        tool_def("user.create", "Create user", {"email": {"type": "string"}}, ["email"]),
    ]
    with Sandbox(tools=tools, tool_handler=handler) as s:
        out = s.shell("tool calculator.add --a 10 --b 32")
        assert json.loads(out) == {"sum": 42} and calls[-1] == ("calculator.add", {"a": 10, "b": 32})
        js = s.execute("return await weather_get({city: 'Tokyo'})")
        sh = s.shell("tool weather.get --city Tokyo")
        assert calls[-1] == calls[-2] == ("weather.get", {"city": "Tokyo"})
        assert json.loads(js) == json.loads(sh)
        out = s.shell("""tool data.process --json '{"items": [1, 2, 3], "mode": "fast"}'""")
        assert calls[-1] == ("data.process", {"items": [1, 2, 3], "mode": "fast"}) and json.loads(out) == {"processed": 3}
        listing = s.shell("tool --list")
        assert "calculator.add" in listing and "Add numbers" in listing
        filtered = s.shell("tool --list calculator")
        assert "calculator.multiply" in filtered and "weather.get" not in filtered
        help_text = s.shell("tool --help calculator.multiply")
        assert "Multiply two numbers" in help_text and "--x" in help_text and "--y" in help_text
        n = len(calls)
        s.shell("tool user.create --name Alice")
        assert "email" in s.last_stderr and len(calls) == n
        s.shell("tool nonexistent.tool --param value")
        assert "unknown" in s.last_stderr.lower() or "not found" in s.last_stderr.lower()
        out = s.shell("""tool users.list | jq -c '[.users[] | select(.role == "admin") | .name]'""")
        assert out == '["Alice","Charlie"]\n'


def test_run_language_shell_and_create_sandbox_tool():
    def get_weather(city: str) -> dict:
        return {"city": city, "temp": 22}

    t = create_sandbox_tool(tools=[get_weather])
    assert t.run("tool get_weather --city Tokyo | jq .temp", language="shell") == "22\n"
    assert t.run("echo 'hello' | tr 'a-z' 'A-Z'", language="shell") == "HELLO\n"


def test_shell_function_recursion_is_bounded(sb: Sandbox):
    # Like bash: the runaway call fails with a clear message, the script goes on.
    assert sb.shell("f() { f; }; f; echo after $?") == "after 1\n"
    assert "maximum function nesting level exceeded (1000)" in sb.last_stderr
    assert sb.shell("echo fine") == "fine\n"


def test_output_floods_are_capped():
    with Sandbox() as s:
        out = s.execute("console.log('x'.repeat(40 * 1024 * 1024))")
        assert len(out) < 33 * 1024 * 1024
        assert out.startswith("xxxx") and out.rstrip().endswith("[output truncated at 33554432 bytes]")
        assert s.shell("echo ok") == "ok\n"
