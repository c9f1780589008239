"""Issue 17: resource bombs from Python. Memory bombs end in
MemoryLimitError with the host's RSS bounded; recursion, through Python
frames or through C (nested eval, repr, json, pickle), is a catchable
RecursionError or at worst a run error, never a host crash; output, files,
processes and time are bounded; the sandbox keeps working afterwards."""

from __future__ import annotations

import pytest

from _hostile import run_isolated

MIB = 1024 * 1024

MEMORY = {
    "list_of_strings": "x = []\nwhile True: x.append(' ' * 10**6)",
    "string_doubling": "s = 'x'\nwhile True: s = s + s",
    "dict_growth": "d = {}\ni = 0\nwhile True:\n    d[i] = str(i) * 10\n    i += 1",
    # Memory used up by small objects, each a pymalloc block: CPython's
    # exception unwinding then needs an int it cannot get (guests/python/oom.c).
    "list_of_ints": "d = []\ni = 0\nwhile True:\n    d.append(i)\n    i += 1",
    "ints_caught_and_raised": "d = []\ni = 0\ntry:\n    while True:\n        d.append(i)\n        i += 1\nexcept MemoryError:\n    raise",
    "ints_in_a_with_block": "import contextlib\nd = []\nwith contextlib.nullcontext():\n    i = 0\n    while True:\n        d.append(i)\n        i += 1",
    "bytes_join": "parts = []\nwhile True: parts.append(b'y' * 65536)\nb''.join(parts)",
    "frames_on_the_heap": "import sys\nsys.setrecursionlimit(10**9)\ndef f(n, pad=list(range(1000))): return f(n + 1, list(pad))\nf(0)",
}


@pytest.mark.parametrize("name", list(MEMORY))
def test_memory_bombs_are_memory_limit_errors(name: str) -> None:
    child = run_isolated(
        f"""
sb = Sandbox(memory_limit=64 * 1024 * 1024, timeout=30)
sb.python("1")  # instantiate the guest before measuring
emit(first=measure_rss(lambda: sb.python({MEMORY[name]!r})))
emit(stderr=sb.last_stderr[-1500:])
emit(after=attempt(lambda: sb.python("print('alive')")))
""",
        90,
    )
    first = child["first"]
    if name == "frames_on_the_heap":
        # The prelude caps the recursion limit by the memory limit: the
        # frames end in RecursionError (a failed run) before the memory does.
        assert first["type"] in ("amla_sandbox.MemoryLimitError", None), first
        if first["ok"]:
            assert "RecursionError" in child["stderr"], child["stderr"]
    else:
        assert first["type"] == "amla_sandbox.MemoryLimitError", (first, child["stderr"])
    assert first["rss_growth"] < 128 * MIB, f"host RSS grew {first['rss_growth'] >> 20} MiB"
    assert child["after"]["value"] == "alive\n"


C_RECURSION = {
    "nested_eval_brackets": "eval('[' * 100000 + ']' * 100000)",
    "nested_eval_calls": "eval('f(' * 50000 + ')' * 50000, {'f': lambda *a: a})",
    "nested_unary": "eval('-' * 200000 + '1')",
    "deep_list_repr": "l = []\nfor i in range(300000): l = [l]\nrepr(l)",
    "deep_dict_json": "import json\nd = {}\nfor i in range(300000): d = {'a': d}\njson.dumps(d)",
    "deep_pickle": "import pickle\nl = []\nfor i in range(300000): l = [l]\npickle.dumps(l)",
    "deep_compare": "a = b = []\nfor i in range(300000): a, b = [a], [b]\na == b",
    "getattr_loop": "class A:\n    def __getattr__(self, n): return getattr(self, n)\nA().x",
    "str_of_self": "class A:\n    def __str__(self): return str(self)\nstr(A())",
    "deepcopy": "import copy\nl = []\nfor i in range(30000): l = [l]\ncopy.deepcopy(l)",
    "compile_deep_ast": "import ast\ne = ast.Constant(1)\nfor _ in range(200000): e = ast.UnaryOp(ast.USub(), e)\ncompile(ast.fix_missing_locations(ast.Expression(e)), 's', 'eval')",
}


@pytest.mark.parametrize("name", list(C_RECURSION))
def test_c_level_recursion_is_catchable(name: str) -> None:
    code = "try:\n    " + C_RECURSION[name].replace("\n", "\n    ") + (
        "\n    print('no error')\nexcept (RecursionError, MemoryError, SyntaxError) as e:\n    print('caught', type(e).__name__)"
    )
    child = run_isolated(
        f"""
sb = Sandbox(timeout=30)
emit(first=attempt(lambda: sb.python({code!r})))
emit(stderr=sb.last_stderr[-1500:])
emit(after=attempt(lambda: sb.python("print('alive')")))
""",
        90,
    )
    first = child["first"]
    assert first["ok"], f"a whole-run error instead of a catchable one: {first}; {child['stderr']}"
    assert first["value"].startswith("caught "), (first["value"], child["stderr"])
    assert child["after"]["value"] == "alive\n"


def test_unchecked_c_recursion_ends_the_run_not_the_host() -> None:
    # CPython hashes nested tuples without a recursion check (natively a
    # segfault): in the sandbox the wasm stack runs out, the run fails with
    # the host's error, and the sandbox goes on.
    child = run_isolated(
        """
sb = Sandbox(timeout=30)
emit(first=attempt(lambda: sb.python("t = ()\\nfor i in range(300000): t = (t,)\\nhash(t)")))
emit(after=attempt(lambda: sb.python("print('alive')")))
""",
        90,
    )
    first = child["first"]
    assert not first["ok"] and first["type"] == "amla_sandbox.RuntimeError", first
    assert "recursion too deep" in first["msg"], first
    assert child["after"]["value"] == "alive\n"


def test_floods_processes_and_time_are_bounded() -> None:
    child = run_isolated(
        """
sb = Sandbox(timeout=2, max_output_size=100_000, disk_quota=4 * 1024 * 1024)
emit(output=measure_rss(lambda: len(sb.python("while True: print('y' * 1000)"))))
emit(files=attempt(lambda: sb.python(
    "import errno\\nn = 0\\ntry:\\n    while True:\\n        open(f'/workspace/f{n}', 'wb').write(b'z' * 100000)\\n        n += 1\\n"
    "except OSError as e:\\n    print(e.errno == errno.ENOSPC)")))
emit(empty_files=attempt(lambda: sb.python(
    "n = 0\\ntry:\\n    while True:\\n        open(f'/workspace/e{n}', 'w').close()\\n        n += 1\\nexcept OSError as e:\\n    print(e.strerror)")))
sb.shell("rm -f /workspace/f* /workspace/e*")
emit(nesting=attempt(lambda: sb.python(
    "open('/workspace/r.py', 'w').write('r = shell(\\"python /workspace/r.py\\")\\\\nprint(r.stdout[-300:], r.stderr[-300:])')\\n"
    "print(shell('python /workspace/r.py').stdout[-600:])")))
emit(threads=attempt(lambda: sb.python(
    "import threading\\nts = []\\ntry:\\n    for i in range(1000): threading.Thread(target=print).start()\\nexcept RuntimeError as e:\\n    print('refused')")))
emit(sleep=attempt(lambda: sb.python("import time\\nwhile True: time.sleep(0.001)")))
emit(after=attempt(lambda: sb.python("print('alive')")))
""",
        120,
    )
    out = child["output"]
    # A flood stops at the timeout, its output capped where it is produced.
    assert out["type"] == "amla_sandbox.TimeoutError" or (out["ok"] and out["value"] <= 110_000), out
    assert out["rss_growth"] < 64 * MIB, out
    assert child["files"]["value"] == "True\n", child["files"]
    assert child["empty_files"]["value"] == "No space left on device\n", child["empty_files"]
    assert "nesting limit reached" in child["nesting"]["value"], child["nesting"]
    assert child["threads"]["value"] == "refused\n"
    assert child["sleep"]["type"] == "amla_sandbox.TimeoutError", child["sleep"]
    assert child["after"]["value"] == "alive\n"
