"""Python runs under the sandbox's limits, cancellation and isolation, and
tool calls made together run together (issue 17, docs/python.md "Limits")."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

import amla_sandbox
from amla_sandbox import Runtime, Sandbox, ToolDefinition

TOOLS = [ToolDefinition(n, f"{n} tool", {"type": "object"}) for n in ("t", "slow")]


# -- limits --------------------------------------------------------------------------


def test_a_busy_loop_and_sleeping_stop_at_the_timeout_and_the_sandbox_goes_on() -> None:
    with Sandbox(timeout=0.5) as sb:
        for code in (
            "while True: pass",
            "import time\ntime.sleep(3600)",
            "import select\nselect.select([], [], [], 3600)",
            "await asyncio.sleep(3600)",
            "shell('sleep 30')",
        ):
            start = time.monotonic()
            with pytest.raises(amla_sandbox.TimeoutError):
                sb.python(code)
            assert time.monotonic() - start < 3, code
        assert sb.python("print('still here')") == "still here\n"


def test_time_in_tool_handlers_does_not_count() -> None:
    def slow(name: str, params: dict) -> str:
        time.sleep(0.8)
        return "done"

    with Sandbox(tools=TOOLS, tool_handler=slow, timeout=0.5) as sb:
        assert sb.python("t()") == "done\n"


def test_an_allocation_bomb_is_a_memory_limit_error() -> None:
    with Sandbox(memory_limit=64 * 1024 * 1024) as sb:
        with pytest.raises(amla_sandbox.MemoryLimitError):
            sb.python("x = []\nwhile True: x.append(' ' * 10**6)")
        # One request bigger than what is left fails alone, catchably.
        assert sb.python("try:\n    b = bytearray(10**8)\nexcept MemoryError:\n    print('too big')") == "too big\n"
        assert sb.python("print('ok')") == "ok\n"
        # A MemoryError that is not the limit is an ordinary, catchable error.
        assert sb.python("try:\n    eval('(' * 100000 + ')' * 100000)\nexcept MemoryError:\n    print('parser')") == "parser\n"


@pytest.mark.parametrize(
    "code",
    [
        "import sys\nsys.setrecursionlimit(10**6)\ndef f(n): return f(n + 1)\nf(0)",
        "class A:\n    def __getattr__(self, n): return getattr(self, n)\nA().x",
        "def g(n):\n    yield from g(n + 1)\nlist(g(0))",
        "eval('[' * 5000 + ']' * 5000) if False else eval('f(' * 3000 + ')' * 3000, {'f': lambda *a: a})",
        "import json\njson.loads('[' * 100000 + ']' * 100000)",
        "l = []\nfor i in range(100000): l = [l]\nrepr(l)",
    ],
)
def test_deep_recursion_is_a_catchable_recursion_error(code: str) -> None:
    with Sandbox() as sb:
        wrapped = "try:\n    " + code.replace("\n", "\n    ") + "\nexcept (RecursionError, MemoryError, SyntaxError) as e:\n    print(type(e).__name__)"
        out = sb.python(wrapped)
        assert out in ("RecursionError\n", "MemoryError\n", "SyntaxError\n"), sb.last_stderr[-800:]
        if "setrecursionlimit" in code or "getattr" in code or "yield" in code:
            assert out == "RecursionError\n"
        assert sb.python("1") == "1\n"


def test_output_is_capped_per_stream() -> None:
    with Sandbox(max_output_size=1000) as sb:
        out = sb.python("for i in range(1000): print('line', i)")
        assert out.startswith("line 0\n") and out.endswith("[output truncated at 1000 bytes]\n")
        assert len(out) < 1100


def test_the_disk_quota_gives_enospc_and_keeps_existing_files() -> None:
    with Sandbox(disk_quota=1024 * 1024) as sb:
        sb.python("open('/workspace/keep.txt', 'w').write('kept')")
        out = sb.python(
            "import errno\n"
            "try:\n"
            "    open('/workspace/big', 'wb').write(b'x' * 2_000_000)\n"
            "except OSError as e:\n"
            "    print(e.errno == errno.ENOSPC, e.strerror)"
        )
        assert out == "True No space left on device\n"
        assert sb.python("open('/workspace/keep.txt').read()") == "kept\n"


def test_max_steps_caps_tool_calls_per_run() -> None:
    tools = '[{"name": "t", "description": "t", "inputSchema": {"type": "object", "properties": {}}}]'
    rt = Runtime.for_testing(tool_handler=lambda m, p: 1, tools_json=tools, max_steps=5)
    with pytest.raises(amla_sandbox.RuntimeError, match=r"maximum steps \(5\)"):
        rt._run_sync("for i in range(10): t()", "python", rt._pipeline.call_sync, None, None)
    rt.close()


# -- cancellation ---------------------------------------------------------------------


def test_cancel_from_another_thread_stops_a_computing_script() -> None:
    with Sandbox(timeout=30) as sb:
        threading.Timer(0.3, sb.cancel).start()
        start = time.monotonic()
        with pytest.raises(amla_sandbox.RuntimeError, match="cancelled"):
            sb.python("while True: pass")
        assert time.monotonic() - start < 3
        assert sb.python("'next'") == "next\n"


def test_asyncio_cancellation_stops_the_guest() -> None:
    with Sandbox(timeout=30) as sb:

        async def main() -> str:
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(sb.python_async("while True: pass"), 0.3)
            return await sb.python_async("print('next')")

        assert asyncio.run(main()) == "next\n"


# -- concurrency ----------------------------------------------------------------------


def test_gathered_calls_run_concurrently_under_python_async() -> None:
    async def handler(name: str, params: dict) -> int:
        await asyncio.sleep(0.3)
        return params["i"]

    with Sandbox(tools=TOOLS, tool_handler=handler) as sb:

        async def main() -> tuple[str, float]:
            start = time.monotonic()
            out = await sb.python_async("sum(await asyncio.gather(*[t(i=i) for i in range(10)]))")
            return out, time.monotonic() - start

        out, took = asyncio.run(main())
        assert out == "45\n"
        assert took < 2.0, f"ten 0.3 s calls took {took:.2f} s: not concurrent"
        assert [c.method for c in sb.last_result.tool_calls] == ["mcp:t"] * 10


def test_gathered_calls_reach_the_public_loop_together() -> None:
    with Sandbox(tools=TOOLS, tool_handler=lambda m, p: p) as sb:
        sb.start("rs = await asyncio.gather(t(i=1), t(i=2), t(i=3))\nprint([r['i'] for r in rs])", "python")
        held = [sb.step() for _ in range(3)]
        assert all(r is not None for r in held)
        for r in reversed(held):
            sb.resume(r.params, id=r.id)
        assert sb.step() is None
        assert sb.result().stdout == "[1, 2, 3]\n"


# -- isolation ------------------------------------------------------------------------

CLEAN = "import json, os, sys, random\n[globals().get('leak'), json.dumps([1]), sys.path[:1], os.sep, len([1]), os.getcwd()]"
CLEAN_OUT = '[null,"[1]",["/workspace"],"/",1,"/workspace"]\n'
LEAKS = [
    "leak = 1",
    "import json\njson.dumps = lambda *a, **k: 'hijacked'",
    "import builtins\nbuiltins.len = lambda x: -1",
    "import os\nos.sep = '!'\nos.chdir('/tmp')",
    "import sys\nsys.path.insert(0, '/tmp')\nsys.modules['json'] = None",
    "leak = 1\nraise ValueError('after the damage')",
    "leak = [7] * 5_000_000",  # grows the memory
    "import sys\nsys.setrecursionlimit(50)\nleak = 1",
]


@pytest.mark.parametrize("leak", LEAKS)
def test_changes_do_not_reach_the_next_run(leak: str) -> None:
    with Sandbox(timeout=5) as sb:
        assert sb.python(CLEAN) == CLEAN_OUT
        sb.python(leak)
        for _ in range(2):
            assert sb.python(CLEAN) == CLEAN_OUT, leak


def test_random_is_reseeded_every_run_and_hashing_is_fixed() -> None:
    with Sandbox() as sb:
        draws = {sb.python("import random\nrandom.random()") for _ in range(5)}
        assert len(draws) == 5
        hashes = {sb.python("hash('abc')") for _ in range(3)}
        assert len(hashes) == 1
        assert sb.python("import os\nos.environ['PYTHONHASHSEED']") == "0\n"
