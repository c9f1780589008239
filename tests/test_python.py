"""Python in the sandbox, through the public Python API (issue 17, docs/python.md):
running it, output, tools, denials, budgets, files shared with the other languages,
shell() and python from the shell, packages."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

import amla_sandbox
from amla_sandbox import MethodCapability, Sandbox, ToolDefinition, create_sandbox_tool


def defs(*names: str) -> list[ToolDefinition]:
    return [ToolDefinition(name=n, description=f"{n} tool", parameters={"type": "object"}) for n in names]


def recorder(results: dict[str, Any]):
    calls: list[tuple[str, Any]] = []

    def handler(method: str, params: Any) -> Any:
        calls.append((method, params))
        r = results[method]
        if isinstance(r, Exception):
            raise r
        return r(params) if callable(r) else r

    return handler, calls


@pytest.fixture(scope="module")
def sb():
    handler, _ = recorder({"echo": lambda p: p, "math.add": lambda p: {"result": p["a"] + p["b"]}})
    with Sandbox(tools=defs("echo", "math.add"), tool_handler=handler) as s:
        yield s


# -- running Python ----------------------------------------------------------------------


def test_the_issue_example():
    def get_weather(city: str) -> dict:
        return {"city": city, "temp": 21}

    with create_sandbox_tool(tools=[get_weather]) as tool:
        assert tool.run('w = get_weather(city="SF")\nprint(w["temp"])', language="python") == "21\n"
        assert tool.run('get_weather(city="SF")', language="Python") == '{"city":"SF","temp":21}\n'


@pytest.mark.parametrize("language", ["python", "py", "python3", "PYTHON", " Py "])
def test_language_spellings(language: str):
    with create_sandbox_tool() as tool:
        assert tool.run("print(6 * 7)", language) == "42\n"


@pytest.mark.parametrize(
    "code,stdout",
    [
        ("print('a', 1, True, 2.5)", "a 1 True 2.5\n"),
        ("1 + 1", "2\n"),
        ("'hello'", "hello\n"),
        ("None", ""),
        ("{'a': [1, 2.5, None, True]}", '{"a":[1,2.5,null,true]}\n'),
        ("(1, 'é')", '[1,"é"]\n'),
        ("{1, 2}", "{1, 2}\n"),
        ("x = 5", ""),
        ("print('x')\n[1, 2]", "x\n[1,2]\n"),
        ("import datetime\ndatetime.date(2024, 1, 2)", "datetime.date(2024, 1, 2)\n"),
    ],
)
def test_output_and_the_final_expression(sb: Sandbox, code: str, stdout: str):
    assert sb.python(code) == stdout


# Every way a script can end, against what Python's own syntax tree says: the guest tells
# most of them from the text and the compiled code (guests/python/prelude/_amla_guest/
# script.py, _compile), the rest from the tree; the value shown must be the same either way.
ENDINGS = [
    ("x = 5\nx", "5\n"),
    ("x = 5\nx * 2  # twice\n\n", "10\n"),
    ("x = 1; x", "1\n"),
    ("x = 1\nx;", "1\n"),
    ("x = 1\nx ;  # c", "1\n"),
    ("x = 1; 'text'", "text\n"),
    ("x = 1\n'text'", "text\n"),
    ("x = 1\n(1, 2)", "[1,2]\n"),
    ("x = 1\n...", "Ellipsis\n"),
    ('"""\ndoc\n"""', "\ndoc\n\n"),
    ('s = """\nhello\n"""', ""),
    ('f = lambda s: len(s)\nf("""\nfor x in y:\n    z""")', "18\n"),
    ('print("""\nfor x in y:\n    z""")', "\nfor x in y:\n    z\n"),
    ("x = 1\nif x:\n    x + 1", ""),
    ("if True: 5", ""),
    ("for i in range(2):\n    i", ""),
    ("for i in range(2):\n    print(i)\n", "0\n1\n"),
    ("from os import path", ""),
    ("import os\nos.sep", "/\n"),
    ("x = [1,\n 2,\n 3]\n(len(x),\n 5)", "[3,5]\n"),
    ("x = [1]\nx[\n0\n]", "1\n"),
    ("y = 3\nx = y + \\\ny", ""),
    ("y = 3\ny + \\\ny", "6\n"),
    ("a = [1]\n*a, 2", "[1,2]\n"),
    ("match 1:\n    case 1:\n        print('m')", "m\n"),
    ("match = [7]\nmatch[0]", "7\n"),
    ("x = 0\nx if x else 9", "9\n"),
    ("c = True\n'yes' if c else 'no'", "yes\n"),
    ("rows = [i * 2 for i in range(3)]\n[r + 1 for r in rows]", "[1,3,5]\n"),
    ("total = sum(i for i in range(4))\ntotal", "6\n"),
    ("ü = 3\nü + 1", "4\n"),
    ("x = {'é': 1}\nx['é']  # é", "1\n"),
    ("x = 1\r\nx + 1\r\n", "2\n"),
    ("print(1)\n    # an indented comment\n", "1\n"),
    ("def f():\n    return 3\nf()", "3\n"),
    ("async def f():\n    return 3\nawait f()", "3\n"),
    ("async def f():\n    return 3\nx = await f()", ""),
    ("import asyncio\nawait asyncio.sleep(0)", ""),
    ("class A:\n    def __repr__(self):\n        return 'A!'\nA()", "A!\n"),
    ("x = 1\ndel x", ""),
    ("assert True", ""),
    ("pass", ""),
    ("", ""),
    ("# only a comment", ""),
    ("s = '\\ud800'\nlen(s)", "1\n"),
    ("s = '\\ud800'", ""),
]


@pytest.mark.parametrize("code,stdout", ENDINGS)
def test_the_value_of_every_kind_of_ending(sb: Sandbox, code: str, stdout: str):
    import ast

    tree = ast.parse(code)
    ends_in_expression = bool(tree.body) and isinstance(tree.body[-1], ast.Expr)
    assert sb.python(code) == stdout, sb.last_stderr
    assert sb.last_result.exit_code == 0
    if not ends_in_expression:
        assert sb.last_result.return_value is None


def test_an_error_in_the_last_expression_points_at_its_line(sb: Sandbox):
    assert sb.python("x = 1\nrows = [1]\nrows[x]") == ""
    assert sb.last_stderr.endswith('  File "<string>", line 3, in <module>\n    rows[x]\n    ~~~~^^^\nIndexError: list index out of range\n')
    assert sb.python("x = 1\nawait asyncio.sleep(0)\n[1][x]") == ""
    assert '  File "<string>", line 3, in <module>\n' in sb.last_stderr and "IndexError" in sb.last_stderr


def test_an_uncaught_exception_is_a_traceback_on_stderr(sb: Sandbox):
    assert sb.python("def f():\n    raise ValueError('bad')\nf()") == ""
    assert sb.last_result.exit_code == 1
    assert sb.last_stderr == (
        "Traceback (most recent call last):\n"
        '  File "<string>", line 3, in <module>\n'
        "    f()\n"
        "    ~^^\n"
        '  File "<string>", line 2, in f\n'
        "    raise ValueError('bad')\n"
        "ValueError: bad\n"
    )
    assert sb.python("import sys\nprint('out')\nsys.exit(4)") == "out\n"
    assert sb.last_result.exit_code == 4
    sb.python("def f(:\n  pass")
    assert "SyntaxError: invalid syntax" in sb.last_stderr and sb.last_result.exit_code == 1


def test_stdin_and_on_output(sb: Sandbox):
    assert sb.python("import sys\nprint(sys.stdin.read().upper())", stdin="abc") == "ABC\n"
    chunks: list[str] = []
    assert sb.python("for i in range(3): print(i)", on_output=chunks.append) == "0\n1\n2\n"
    assert chunks == ["0\n", "1\n", "2\n"]


def test_sandbox_tool_and_the_public_loop():
    handler, calls = recorder({"echo": lambda p: p})
    with Sandbox(tools=defs("echo"), tool_handler=handler) as s:
        s.start("r = echo(a=1)\nprint(r['a'] + 1)", "python")
        while s.has_work():
            req = s.step()
            if req is not None:
                s.resume(req.params)
        assert s.result().stdout == "2\n"
        assert s.execute("print('via execute')", language="python") == "via execute\n"


def test_langchain_tool_and_prompt_offer_python():
    pytest.importorskip("langchain_core")

    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    with create_sandbox_tool([add]) as tool:
        lc = tool.as_langchain_tool()
        assert lc.invoke({"code": "add(a=2, b=3)", "language": "python"}) == "5\n"
        assert "PYTHON (language='python')" in lc.description
        prompt = tool.get_system_prompt()
        assert '### Python mode (language="python")' in prompt and "```python" in prompt


# -- tools -------------------------------------------------------------------------------


def test_tool_calls_keywords_dict_namespaces_and_call_shape():
    handler, calls = recorder({"math.add": lambda p: {"result": p["a"] + p["b"]}, "get": {"v": 1}})
    with Sandbox(tools=defs("math.add", "get"), tool_handler=handler) as s:
        out = s.python(
            "r = math.add(a=3, b=4)\n"
            "print(r['result'], isinstance(r, dict), type(r).__name__)\n"
            "print(math.add({'a': 1, 'b': 2})['result'], get()['v'])\n"
            "print(list_tools(), get_tool_info('math.add')['id'])\n"
            "call_tool('get')"
        )
        assert out == "7 True dict\n3 1\n['math.add', 'get'] mcp:math.add\n" + '{"v":1}\n'
        assert calls[:2] == [("math.add", {"a": 3, "b": 4}), ("math.add", {"a": 1, "b": 2})]


def test_the_tools_global_finds_and_calls_tools_as_in_javascript():
    tools = [
        ToolDefinition(name="github.create_issue", description="Create an issue\nwith a title", parameters={"type": "object"}),
        ToolDefinition(name="github.list-repos", description="List repositories", parameters={"type": "object"}),
        ToolDefinition(name="label_issue", description="Put a label on an issue", parameters={"type": "object"}),
    ]
    handler, calls = recorder({"github.create_issue": lambda p: {"n": 1, **p}, "github.list-repos": [], "label_issue": {}})
    with Sandbox(tools=tools, tool_handler=handler) as s:
        out = s.python(
            "print([(t['name'], t['call']) for t in tools.search('issue')])\n"
            "print(tools.search('issue label'), tools.search('nothing such'))\n"
            "d, i = tools.describe('github.create_issue'), get_tool_info('github.create_issue')\n"
            "print(i['id'], i['description'].splitlines()[0], 'async def create_issue(' in d)\n"
            "print(len(tools.list()), tools.list()[1]['call'])\n"
            "print(tools.call('github.create_issue', title='x'))\n"
            "async def main():\n"
            "    return await tools.call('label_issue', {'label': 'bug'})\n"
            "print(asyncio.run(main()))\n"
            "for bad in ('nope', 3):\n"
            "    try:\n"
            "        tools.describe(bad)\n"
            "    except NameError as e:\n"
            "        print(e)\n"
        )
        assert out.splitlines() == [
            "[('github.create_issue', 'github.create_issue'), ('label_issue', 'label_issue')]",
            "[{'name': 'label_issue', 'description': 'Put a label on an issue', 'call': 'label_issue'}] []",
            "mcp:github.create_issue Create an issue True",
            "3 github.list_repos",
            "{'n': 1, 'title': 'x'}",
            "{}",
            "Unknown tool: nope (tools.search() finds tools)",
            "Unknown tool: a int (tool names are strings) (tools.search() finds tools)",
        ]
        assert [c[0] for c in calls] == ["github.create_issue", "label_issue"]
    # A tool of your own named "tools" takes the name.
    with Sandbox(tools=defs("tools"), tool_handler=lambda m, p: {"mine": True}) as s:
        assert s.python("tools()") == '{"mine":true}\n'


def test_await_gather_and_asyncio_run():
    handler, _ = recorder({"get_weather": lambda p: {"city": p["city"]}, "fail": RuntimeError("down")})
    with Sandbox(tools=defs("get_weather", "fail"), tool_handler=handler) as s:
        assert s.python('w = await get_weather(city="SF")\nw["city"]') == "SF\n"
        out = s.python(
            "rs = await asyncio.gather(*[get_weather(city=c) for c in ['a', 'b']], fail(), return_exceptions=True)\n"
            "print([r['city'] for r in rs[:2]], type(rs[2]).__name__, rs[2])"
        )
        assert out.startswith("['a', 'b'] ToolError tool call 'mcp:fail' failed: internal: ") and "down" in out
        out = s.python(
            "import asyncio\n"
            "async def main():\n"
            "    return await asyncio.gather(get_weather(city='x'), get_weather(city='y'))\n"
            "print([r['city'] for r in asyncio.run(main())])"
        )
        assert out == "['x', 'y']\n"


def test_a_top_level_await_script_ends_as_asyncio_run_does(sb: Sandbox):
    """The run's event loop, at the end: a task still pending is cancelled
    (its `finally` runs) and an async generator left open is closed; an
    error of the main coroutine is the run's."""
    out = sb.python(
        "import sys\n"
        "async def forever():\n"
        "    try:\n"
        "        await asyncio.sleep(3600)\n"
        "    finally:\n"
        "        print('task cancelled', file=sys.stderr)\n"
        "async def gen():\n"
        "    try:\n"
        "        yield 1\n"
        "        yield 2\n"
        "    finally:\n"
        "        print('generator closed', file=sys.stderr)\n"
        "t = asyncio.create_task(forever())\n"
        "g = gen()\n"
        "print(await g.__anext__())\n"
    )
    assert out == "1\n"
    assert sb.last_result is not None and sb.last_result.exit_code == 0
    assert sb.last_result.stderr == "task cancelled\ngenerator closed\n"
    sb.python("async def f():\n    raise KeyError('k')\nawait f()")
    assert sb.last_result is not None and sb.last_result.exit_code == 1
    assert "KeyError: 'k'" in sb.last_result.stderr


def test_denials_and_failures_read_as_in_javascript():
    handler, calls = recorder({"allowed": 1, "broken": ValueError("no such row")})
    caps = [MethodCapability(method_pattern="mcp:allowed"), MethodCapability(method_pattern="mcp:broken")]
    with Sandbox(tools=defs("allowed", "broken", "secret"), tool_handler=handler, capabilities=caps) as s:
        js = s.execute(
            "for (const f of [secret, broken]) { try { await f({}) } catch (e) { console.log(JSON.stringify(e.message)) } }"
        )
        py = s.python(
            "import json\n"
            "for f in (secret, broken):\n"
            "    try:\n"
            "        f()\n"
            "    except ToolError as e:\n"
            "        print(json.dumps(str(e)))\n"
            "try:\n"
            "    secret()\n"
            "except PermissionError as e:\n"
            "    print(type(e).__name__, e.code)"
        )
        assert py.splitlines()[:2] == js.splitlines()
        assert "permission_denied" in py.splitlines()[0] and "no such row" in py.splitlines()[1]
        assert py.splitlines()[2] == "ToolDenied permission_denied"
        assert [m for m, _ in calls] == ["broken", "broken"]  # the denied calls never reached Python


def test_bad_parameters_name_the_tool_and_the_parameter(sb: Sandbox):
    out = sb.python(
        "import datetime\n"
        "for args, kwargs in [((1, 2), {}), (('x',), {}), ((), {'when': datetime.date(2024, 1, 1)})]:\n"
        "    try:\n"
        "        echo(*args, **kwargs)\n"
        "    except TypeError as e:\n"
        "        print(e)"
    )
    assert out.splitlines() == [
        "echo() takes keyword arguments or one dict of them, not 2 positional arguments",
        "echo() takes keyword arguments or one dict of them, not a str",
        "echo(): parameter 'when' cannot be sent as JSON: Object of type date is not JSON serializable",
    ]


def test_budgets_and_max_steps_apply_to_python():
    with create_sandbox_tool([_one], max_calls=2) as tool:
        out = tool.run(
            "for i in range(3):\n    try:\n        print(_one())\n    except ToolError as e:\n        print('refused', e.code)",
            "python",
        )
        assert out.splitlines() == ["1", "1", "refused permission_denied"]


def _one() -> int:
    return 1


def test_tampering_gets_past_no_check():
    """Whatever a script does to the tool functions, the prelude or the
    host module, only what the capabilities allow reaches the handler."""
    handler, calls = recorder({"allowed": "ok"})
    caps = [MethodCapability(method_pattern="mcp:allowed")]
    with Sandbox(tools=defs("allowed", "secret"), tool_handler=handler, capabilities=caps) as s:
        out = s.python(
            "import _amla, json, sys, builtins\n"
            "def attempt(f):\n"
            "    try:\n        print('returned', f())\n"
            "    except Exception as e:\n        print(type(e).__name__, getattr(e, 'code', ''))\n"
            "attempt(lambda: call_tool('mcp:secret'))\n"
            "reg = sys.modules['_amla_guest.tools'].registry\n"
            "reg.by_name['allowed']['id'] = 'mcp:secret'\n"
            "attempt(lambda: allowed())\n"
            "builtins.ToolError = Exception\n"
            "n = _amla.submit(json.dumps({'method': 'mcp:secret', 'params': {}}).encode())\n"
            "print(_amla.wait(-1).split(b'\\n')[0].decode())\n"
            "n = _amla.submit(b'{\"method\": \"mcp:allowed\", \"params\": {\"via\": \"raw\"}}')\n"
            "print(_amla.wait(-1).decode())"
        )
        lines = out.splitlines()
        assert lines[0] == "ToolDenied permission_denied"
        assert lines[1] == "ToolDenied permission_denied"
        assert '"ok":false' in lines[2] and '"code":"permission_denied"' in lines[2]
        assert '"ok":true' in lines[3] and lines[4] == '"ok"'
        assert calls == [("allowed", {"via": "raw"})]


# -- files, shell() and python from the shell --------------------------------------------


def test_files_are_shared_with_the_shell_and_javascript():
    with Sandbox() as s:
        s.python("import json, csv\njson.dump({'n': 1}, open('/workspace/data.json', 'w'))")
        assert s.shell("cat /workspace/data.json") == '{"n": 1}'
        assert s.execute("return JSON.parse(await fs.readFile('/workspace/data.json')).n + 1") == "2\n"
        s.execute("await fs.writeFile('/tmp/from_js.txt', 'js')")
        s.shell("echo shell > /workspace/from_shell.txt")
        assert s.python("open('/tmp/from_js.txt').read() + open('from_shell.txt').read()") == "jsshell\n\n"
        out = s.python(
            "import sqlite3\n"
            "db = sqlite3.connect('/workspace/t.db')\n"
            "db.execute('create table t(v)'); db.executemany('insert into t values (?)', [(1,), (2,)]); db.commit()\n"
            "db.execute('select sum(v), json_object(\"a\", 1) from t').fetchone()"
        )
        assert out == '[3,"{\\"a\\":1}"]\n'
        assert "t.db" in s.shell("ls /workspace")


def test_writes_outside_workspace_and_tmp_are_permission_errors(sb: Sandbox):
    out = sb.python(
        "import os\n"
        "for f in (lambda: open('/etc/x', 'w'), lambda: open('/x', 'w'), lambda: os.mkdir('/d')):\n"
        "    try:\n        f()\n    except PermissionError as e:\n        print(e.filename, e.strerror)\n"
        "print(open('/workspace/../../etc/passwd').read() if os.path.exists('/etc/passwd') else 'no /etc/passwd')"
    )
    assert out == "/etc/x Permission denied\n/x Permission denied\n/d Permission denied\nno /etc/passwd\n"


def test_shell_from_python_and_python_from_the_shell():
    with Sandbox() as s:
        out = s.python(
            "r = shell('echo hi; echo err >&2; exit 3')\n"
            "print(repr(r.stdout), repr(r.stderr), r.exit_code)\n"
            "print(shell.run('echo a-b | tr a-z A-Z'), end='')\n"
            "try:\n    shell.run('false')\nexcept ShellError as e:\n    print('failed', e.exit_code)"
        )
        assert out == "'hi\\n' 'err\\n' 3\nA-B\nfailed 1\n"
        out = s.shell(
            "python -c 'print(6 * 7)'\n"
            "printf 'import sys\\nprint(sys.argv[1:])\\n' > s.py && python3 s.py x y\n"
            "echo 'print(\"piped script\")' | python3 -\n"
            "echo abc | python -c 'import sys; print(sys.stdin.read().strip())'"
        )
        assert out == "42\n['x', 'y']\npiped script\nabc\n"
        assert s.execute("return (await shell(`python -c 'print(1 + 1)'`)).stdout") == "2\n\n"


# -- packages ----------------------------------------------------------------------------


def _wheel(path: Path, name: str, files: dict[str, str], purelib: bool = True) -> Path:
    whl = path / f"{name}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(whl, "w") as z:
        for n, text in files.items():
            z.writestr(n, text)
        z.writestr(f"{name}-1.0.dist-info/WHEEL", f"Wheel-Version: 1.0\nRoot-Is-Purelib: {str(purelib).lower()}\nTag: py3-none-any\n")
        z.writestr(f"{name}-1.0.dist-info/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    return whl


def test_python_packages_wheels_directories_and_modules(tmp_path: Path):
    whl = _wheel(tmp_path, "greeter", {"greeter/__init__.py": "def hello(n):\n    return 'hello ' + n\n"})
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("VALUE = 42\n")
    mod = tmp_path / "single.py"
    mod.write_text("X = 'single'\n")
    with Sandbox(python_packages=[whl, pkg, mod]) as s:
        out = s.python("import greeter, mypkg, single\nprint(greeter.hello('you'), mypkg.VALUE, single.X)")
        assert out == "hello you 42 single\n"
        out = s.python(
            "import mypkg, os\n"
            "try:\n    open(os.path.join(os.path.dirname(mypkg.__file__), 'x.py'), 'w')\n"
            "except PermissionError:\n    print('read-only')"
        )
        assert out == "read-only\n"
    with create_sandbox_tool(python_packages=[pkg]) as tool:
        assert tool.run("import mypkg\nmypkg.VALUE", "python") == "42\n"


def test_python_packages_are_imported_from_bytecode_compiled_once(tmp_path: Path):
    pkg = tmp_path / "bytepkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("def where():\n    raise ValueError('from here')\n")
    (pkg / "broken.py").write_text("def (:\n")  # does not compile: left to fail on import, as it would
    with Sandbox(python_packages=[pkg]) as s:
        cached = Path(s._packages_dir) / "bytepkg" / "__pycache__"
        assert sorted(p.name for p in cached.iterdir()) == ["__init__.cpython-313.pyc"]
        out = s.python(
            "import bytepkg, sys\n"
            "print(bytepkg.__spec__.cached, type(bytepkg.__spec__.loader).__name__)\n"
            "try:\n    bytepkg.where()\n"
            "except ValueError as e:\n    print(e.__traceback__.tb_next.tb_frame.f_code.co_filename)\n"
            "try:\n    import bytepkg.broken\n"
            "except SyntaxError:\n    print('syntax error')"
        )
        # The bytecode is what runs: with the source changed behind it (the host's copy; the
        # guest cannot write there), a run still gets the compiled module.
        source = Path(s._packages_dir) / "bytepkg" / "__init__.py"
        original = source.read_text()
        source.write_text("def where():\n    return 'the source ran'\n")
        try:
            ran = s.python("import bytepkg\ntry:\n    print(bytepkg.where())\nexcept ValueError:\n    print('the bytecode ran')")
        finally:
            source.write_text(original)
    site = "/usr/lib/python3.13/site-packages/bytepkg"
    assert out.split("\n")[:3] == [f"{site}/__pycache__/__init__.cpython-313.pyc SourceFileLoader", f"{site}/__init__.py", "syntax error"]
    assert ran == "the bytecode ran\n"


def test_python_packages_refuses_what_cannot_work(tmp_path: Path):
    native = _wheel(tmp_path, "fast", {"fast/__init__.py": "", "fast/_speed.cpython-313-x86_64-linux-gnu.so": "ELF"}, purelib=False)
    with pytest.raises(ValueError, match=r"fast-1\.0-py3-none-any\.whl contains a compiled extension \(fast/_speed"):
        Sandbox(python_packages=[native])
    d = tmp_path / "withso"
    (d / "pkg").mkdir(parents=True)
    (d / "pkg" / "__init__.py").write_text("")
    (d / "pkg" / "ext.so").write_bytes(b"ELF")
    with pytest.raises(ValueError, match="compiled extension .*ext.so"):
        Sandbox(python_packages=[d])
    with pytest.raises(ValueError, match="does not exist"):
        Sandbox(python_packages=[tmp_path / "missing.whl"])
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(ValueError, match=r"neither a wheel \(\.whl\) nor a module"):
        Sandbox(python_packages=[tmp_path / "notes.txt"])
    with pytest.raises(TypeError, match="list of paths"):
        Sandbox(python_packages=str(d))  # type: ignore[arg-type]


def test_a_missing_python_guest_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setenv("AMLA_PY_WASM_PATH", str(tmp_path / "nope.wasm"))
    with Sandbox() as s:
        with pytest.raises(FileNotFoundError, match="Python guest not found at .*nope.wasm"):
            s.python("1")
        assert s.execute("return 1") == "1\n"  # the other languages do not need it


def test_the_interpreter_is_cpython_3_13_on_wasi():
    with amla_sandbox.Sandbox() as s:
        assert s.python("import sys\nsys.version_info[:3], sys.platform, sys.implementation.name") == '[[3,13,5],"wasi","cpython"]\n'
