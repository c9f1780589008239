"""Python tool calls behave the same wherever they are written (issue 28, docs/python.md
"Synchronous or asynchronous"): with no event loop running a call returns its value; while
one runs it returns an awaitable that also stands in for its value, whether the call is
written in a generator expression, a lambda, map(), a plain function, a class body, a
comprehension or through functools.partial; gather (with and without return_exceptions),
wait, as_completed, create_task and TaskGroup take it. Each run both with a synchronous
handler (Sandbox.python) and under execute_async with an async handler. Also: what cannot
work (sockets, ssl, subprocesses, threads, ctypes) says what to use instead."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from amla_sandbox import Sandbox, ToolDefinition, create_sandbox_tool

# The handler fails for names starting with "bad". Under execute_async the later names
# answer first, so "in order" means the script's order, not the answers'.
XS = ["a", "bad1", "c", "bad2"]
DELAY = {"a": 0.08, "bad1": 0.06, "c": 0.04, "bad2": 0.02}


def _answer(params: dict) -> dict:
    x = params.get("x", "")
    if x.startswith("bad"):
        raise ValueError(f"no {x}")
    return {"x": x}


def _sync_handler(method: str, params: Any) -> Any:
    return _answer(params)


async def _async_handler(method: str, params: Any) -> Any:
    await asyncio.sleep(DELAY.get(params.get("x", ""), 0.01))
    return _answer(params)


def _tools() -> list[ToolDefinition]:
    return [ToolDefinition(name="get", description="get x", parameters={"type": "object"})]


@pytest.fixture(scope="module", params=["sync", "execute_async"])
def run(request: pytest.FixtureRequest):
    """run(code) -> stdout (stderr appended when the run failed), through Sandbox.python
    with a plain handler, or Sandbox.execute_async with an async one."""
    if request.param == "sync":
        sb = Sandbox(tools=_tools(), tool_handler=_sync_handler)

        def go(code: str) -> str:
            out = sb.python(code)
            return out if sb.last_result.exit_code == 0 else out + "EXIT: " + sb.last_stderr

    else:
        sb = Sandbox(tools=_tools(), tool_handler=_async_handler)

        def go(code: str) -> str:
            out = asyncio.run(sb.execute_async(code, language="python"))
            return out if sb.last_result.exit_code == 0 else out + "EXIT: " + sb.last_stderr

    with sb:
        yield go


# Each form makes one call per name of XS and returns what gather (or the like) gives, in
# XS's order: the body of `async def collect():`.
GATHER_FORMS = {
    "generator expression": "return await asyncio.gather(*(get(x=x) for x in XS), return_exceptions=RE)",
    "list comprehension": "return await asyncio.gather(*[get(x=x) for x in XS], return_exceptions=RE)",
    "lambda": "fetch = lambda x: get(x=x)\n    return await asyncio.gather(*[fetch(x) for x in XS], return_exceptions=RE)",
    "map": "return await asyncio.gather(*map(lambda x: get(x=x), XS), return_exceptions=RE)",
    "map over the tool": "return await asyncio.gather(*map(get, [{'x': x} for x in XS]), return_exceptions=RE)",
    "nested plain function": (
        "def one(x):\n        return get(x=x)\n"
        "    return await asyncio.gather(*[one(x) for x in XS], return_exceptions=RE)"
    ),
    "class body": (
        "class Batch:\n        calls = [get(x=x) for x in XS]\n"
        "    return await asyncio.gather(*Batch.calls, return_exceptions=RE)"
    ),
    "comprehension inside async def": (
        "calls = {x: get(x=x) for x in XS}\n    return await asyncio.gather(*calls.values(), return_exceptions=RE)"
    ),
    "nested comprehension": (
        "groups = [[get(x=x) for x in XS[i:i + 2]] for i in range(0, len(XS), 2)]\n"
        "    return await asyncio.gather(*(c for g in groups for c in g), return_exceptions=RE)"
    ),
    "functools.partial": (
        "fetches = [functools.partial(get, x=x) for x in XS]\n"
        "    return await asyncio.gather(*(f() for f in fetches), return_exceptions=RE)"
    ),
    "call_tool through functools.partial and map": (
        "return await asyncio.gather(*map(functools.partial(call_tool, 'get'), [{'x': x} for x in XS]), "
        "return_exceptions=RE)"
    ),
    "create_task": (
        "tasks = [asyncio.create_task(get(x=x)) for x in XS]\n"
        "    return await asyncio.gather(*tasks, return_exceptions=RE)"
    ),
    "create_task in a generator expression": (
        "tasks = list(asyncio.create_task(get(x=x)) for x in XS)\n"
        "    return await asyncio.gather(*tasks, return_exceptions=RE)"
    ),
    "ensure_future and shield": (
        "return await asyncio.gather(*(asyncio.shield(asyncio.ensure_future(get(x=x))) for x in XS), "
        "return_exceptions=RE)"
    ),
    "wait_for": "return await asyncio.gather(*(asyncio.wait_for(get(x=x), 30) for x in XS), return_exceptions=RE)",
}

HARNESS = """\
import asyncio, functools, json
XS = {xs!r}
RE = {re}

def why(e):
    return str(e).splitlines()[0].rsplit(': ', 1)[-1]

def show(r):
    if isinstance(r, BaseException):
        return type(r).__name__ + ': ' + why(r)
    return r['x'] if isinstance(r, dict) else repr(r)

async def collect():
    {body}

try:
    print(json.dumps([show(r) for r in {runner}]))
except ToolError as e:
    print('raised', show(e))
"""

RUNNERS = {"asyncio.run": "asyncio.run(collect())", "top-level await": "await collect()"}


def _script(body: str, return_exceptions: bool, runner: str, xs: list[str] = XS) -> str:
    return HARNESS.format(xs=xs, re=return_exceptions, body=body, runner=RUNNERS[runner])


@pytest.mark.parametrize("runner", list(RUNNERS))
@pytest.mark.parametrize("form", list(GATHER_FORMS))
def test_each_form_gathers_with_failures_returned_in_place_and_in_order(run, form: str, runner: str):
    out = run(_script(GATHER_FORMS[form], True, runner))
    assert out == '["a", "ToolError: no bad1", "c", "ToolError: no bad2"]\n', out


@pytest.mark.parametrize("form", list(GATHER_FORMS))
def test_each_form_gathers_values_when_every_call_succeeds(run, form: str):
    out = run(_script(GATHER_FORMS[form], False, "asyncio.run", xs=["a", "c", "d"]))
    assert out == '["a", "c", "d"]\n', out


@pytest.mark.parametrize("form", list(GATHER_FORMS))
def test_without_return_exceptions_the_first_failure_raises(run, form: str):
    out = run(_script(GATHER_FORMS[form], False, "top-level await"))
    # Which failure comes first is the handler's affair: bad2 answers first under execute_async.
    assert out in ("raised ToolError: no bad1\n", "raised ToolError: no bad2\n"), out


def test_asyncio_wait_takes_calls_and_keeps_each_outcome(run):
    out = run(
        "async def main():\n"
        "    calls = list(get(x=x) for x in XS)\n"
        "    done, pending = await asyncio.wait(calls)\n"
        "    first, _ = await asyncio.wait(map(lambda x: get(x=x), ['a', 'c']), return_when=asyncio.FIRST_COMPLETED)\n"
        "    return [len(done), len(pending), len(first) >= 1] + [\n"
        "        type(c.exception()).__name__ if c.exception() else c.result()['x'] for c in calls]\n"
        f"XS = {XS!r}\n"
        "print(asyncio.run(main()))"
    )
    assert out == "[4, 0, True, 'a', 'ToolError', 'c', 'ToolError']\n", out


def test_as_completed_takes_calls_from_a_generator(run):
    out = run(
        "async def main():\n"
        "    got = []\n"
        "    for next_done in asyncio.as_completed(get(x=x) for x in XS):\n"
        "        try:\n"
        "            got.append((await next_done)['x'])\n"
        "        except ToolError as e:\n"
        "            got.append(str(e).splitlines()[0].rsplit(': ', 1)[-1])\n"
        "    async for done in asyncio.as_completed([get(x='a'), get(x='c')]):\n"
        "        got.append(done.result()['x'])\n"
        "    return got\n"
        f"XS = {XS!r}\n"
        "got = await main()\n"
        "print(sorted(got[:4]), sorted(got[4:]))"
    )
    assert out == "['a', 'c', 'no bad1', 'no bad2'] ['a', 'c']\n", out


def test_task_group_runs_calls_and_groups_their_failures(run):
    out = run(
        "async def main(xs):\n"
        "    async with asyncio.TaskGroup() as tg:\n"
        "        tasks = [tg.create_task(get(x=x)) for x in xs]\n"
        "        tg.create_task((lambda: get(x='lambda'))())\n"
        "    return [t.result()['x'] for t in tasks]\n"
        "print(asyncio.run(main(['a', 'c'])))\n"
        "try:\n"
        "    asyncio.run(main(['a', 'bad1']))\n"
        "except* ToolError as group:\n"
        "    print([str(e).splitlines()[0].rsplit(': ', 1)[-1] for e in group.exceptions])"
    )
    assert out == "['a', 'c']\n['no bad1']\n", out


def test_an_unawaited_call_stands_in_for_its_value_wherever_it_is_written(run):
    out = run(
        "import functools, json\n"
        "async def main():\n"
        "    def plain():\n"
        "        return get(x='plain')\n"
        "    class Body:\n"
        "        call = get(x='body')\n"
        "    calls = [get(x='direct'), (lambda: get(x='lambda'))(), plain(), Body.call,\n"
        "             functools.partial(get, x='partial')(), next(get(x=x) for x in ['gen']), *map(get, [{'x': 'map'}])]\n"
        "    out = [c['x'] for c in calls]\n"
        "    v = get(x='v')\n"
        "    out += [len(v), 'x' in v, v.get('x'), sorted(v.items()), str(v), f'{v}', json.dumps(v), v == {'x': 'v'},\n"
        "            dict(v), list(v), bool(v), v | {'y': 1}]\n"
        "    out.append((await v)['x'])  # and it is still awaitable after being read\n"
        "    bad = get(x='bad1')\n"
        "    try:\n"
        "        bad['x']\n"
        "    except ToolError as e:\n"
        "        out.append(str(e).splitlines()[0].rsplit(': ', 1)[-1])\n"
        "    return out\n"
        "print(asyncio.run(main()))"
    )
    assert out == (
        "['direct', 'lambda', 'plain', 'body', 'partial', 'gen', 'map', 1, True, 'v', [('x', 'v')], "
        "\"{'x': 'v'}\", \"{'x': 'v'}\", '{\"x\": \"v\"}', True, {'x': 'v'}, ['x'], True, {'x': 'v', 'y': 1}, "
        "'v', 'no bad1']\n"
    ), out


def test_with_no_loop_running_every_form_gives_the_value_itself(run):
    out = run(
        "import functools\n"
        "def plain(x):\n"
        "    return get(x=x)\n"
        "class Body:\n"
        "    call = get(x='body')\n"
        "values = [*(get(x=x) for x in ['gen']), (lambda: get(x='lambda'))(), *map(get, [{'x': 'map'}]), plain('plain'),\n"
        "          Body.call, functools.partial(get, x='partial')(), {k: get(x=k) for k in ['dict']}['dict']]\n"
        "print([(type(v).__name__, v['x']) for v in values])\n"
        "try:\n"
        "    list(get(x=x) for x in ['a', 'bad1'])\n"
        "except ToolError as e:\n"
        "    print('raised at the call:', str(e).splitlines()[0].rsplit(': ', 1)[-1])"
    )
    assert out == (
        "[('dict', 'gen'), ('dict', 'lambda'), ('dict', 'map'), ('dict', 'plain'), ('dict', 'body'), "
        "('dict', 'partial'), ('dict', 'dict')]\nraised at the call: no bad1\n"
    ), out


def test_a_call_from_inside_a_loop_is_readable_after_the_loop_ends(run):
    out = run(
        "async def start():\n"
        "    return get(x='later')  # not awaited: the loop ends with the call pending\n"
        "call = asyncio.run(start())\n"
        "print(call['x'], call.result(), repr(call))"
    )
    assert out == "later {'x': 'later'} {'x': 'later'}\n", out


def test_an_unawaited_call_is_a_future_whose_repr_is_the_values(run):
    out = run(
        "import copy\n"
        "async def main():\n"
        "    c = get(x='a')\n"
        "    text = repr([c])\n"
        "    clone = copy.deepcopy(c)\n"
        "    return text, clone, type(clone).__name__, type(c).__name__, isinstance(c, asyncio.Future), repr(get(x='bad1'))\n"
        "print(asyncio.run(main()))"
    )
    assert out == (
        "(\"[{'x': 'a'}]\", {'x': 'a'}, 'dict', 'ToolCall', True, "
        "\"<ToolError: tool call 'mcp:get' failed: internal: Tool 'mcp:get' failed: no bad1\\nParameters: {'x': 'bad1'}>\")\n"
    ), out


def test_cancelling_a_call_stops_the_wait_not_the_run(run):
    out = run(
        "async def main():\n"
        "    c = get(x='a')\n"
        "    c.cancel()\n"
        "    try:\n"
        "        await c\n"
        "    except asyncio.CancelledError:\n"
        "        print('cancelled')\n"
        "    return (await get(x='c'))['x']\n"
        "print(asyncio.run(main()))"
    )
    assert out == "cancelled\nc\n", out


def test_gathered_calls_in_a_generator_run_concurrently_under_execute_async():
    async def handler(method: str, params: Any) -> Any:
        await asyncio.sleep(0.3)
        return params["i"]

    with Sandbox(tools=[ToolDefinition(name="t", description="t", parameters={"type": "object"})], tool_handler=handler) as sb:

        async def main() -> tuple[str, float]:
            start = time.monotonic()
            out = await sb.execute_async(
                "async def main():\n"
                "    return sum(await asyncio.gather(*(t(i=i) for i in range(8))))\n"
                "print(asyncio.run(main()))",
                language="python",
            )
            return out, time.monotonic() - start

        out, took = asyncio.run(main())
    assert out == "28\n"
    assert took < 1.5, f"8 calls of 0.3 s took {took:.2f} s: they did not run together"


def test_calls_from_a_generator_reach_the_public_loop_together_and_come_back_in_order():
    with Sandbox(tools=_tools(), tool_handler=_sync_handler) as sb:
        sb.start(
            "rs = await asyncio.gather(*(get(x=x) for x in 'abc'), return_exceptions=True)\n"
            "print([r['x'] if isinstance(r, dict) else type(r).__name__ for r in rs])",
            "python",
        )
        held = [sb.step() for _ in range(3)]
        assert [r.params for r in held] == [{"x": "a"}, {"x": "b"}, {"x": "c"}]
        sb.resume(held[2].params, id=held[2].id)
        sb.resume_error("no b", id=held[1].id)
        sb.resume(held[0].params, id=held[0].id)
        assert sb.step() is None
        assert sb.result().stdout == "['a', 'ToolError', 'c']\n"


def test_python_function_tools_through_create_sandbox_tool():
    def get_weather(city: str) -> dict:
        return {"city": city, "temp": len(city)}

    with create_sandbox_tool(tools=[get_weather]) as tool:
        out = tool.run(
            "w = get_weather(city='SF')\n"
            "async def main():\n"
            "    return await asyncio.gather(*(get_weather(city=c) for c in ['SF', 'Paris']))\n"
            "print(w['temp'], [r['temp'] for r in asyncio.run(main())])",
            language="python",
        )
        assert out == "2 [2, 5]\n"


# -- what cannot work says what to use instead ------------------------------------------

REFUSALS = {
    "socket.socket()": ("import socket\nsocket.socket()", "OSError", "no sockets: HTTP and HTTPS requests go through the host"),
    "socket.socket(AF_INET, SOCK_DGRAM)": (
        "import socket\nsocket.socket(socket.AF_INET, socket.SOCK_DGRAM)",
        "OSError",
        "no sockets: HTTP and HTTPS requests go through the host",
    ),
    "socket.create_connection": (
        "import socket\nsocket.create_connection(('example.com', 80))",
        "OSError",
        "network policy (Sandbox(network=...)) with urllib.request, http.client, or requests/httpx",
    ),
    "ssl wrap_socket": (
        "import ssl\nssl.create_default_context().wrap_socket(object(), server_hostname='example.com')",
        "ssl.SSLError",
        "no sockets to wrap: HTTPS requests are made by the host",
    ),
    "urlopen https without a network policy": (
        "import urllib.request\nurllib.request.urlopen('https://example.com')",
        "urllib.error.URLError",
        "no network policy (it was created without network=)",
    ),
    "asyncio.open_connection": (
        "await asyncio.open_connection('example.com', 443)",
        "OSError",
        "no sockets: HTTP and HTTPS requests go through the host",
    ),
    "subprocess.run": ("import subprocess\nsubprocess.run(['ls'])", "OSError", 'no other processes; use shell("command")'),
    "asyncio.create_subprocess_exec": (
        "await asyncio.create_subprocess_exec('ls')",
        "OSError",
        'no other processes; use shell("command")',
    ),
    "multiprocessing.Pool": ("import multiprocessing\nmultiprocessing.Pool(2)", "OSError", 'no other processes; use shell("command")'),
    "multiprocessing.Process": (
        "import multiprocessing\nmultiprocessing.Process(target=print).start()",
        "OSError",
        'no other processes; use shell("command")',
    ),
    "ProcessPoolExecutor": (
        "import concurrent.futures\nconcurrent.futures.ProcessPoolExecutor()",
        "OSError",
        'no other processes; use shell("command")',
    ),
    "threading.Thread": ("import threading\nthreading.Thread(target=print).start()", "RuntimeError", "no threads; use asyncio"),
    "ThreadPool": ("from multiprocessing.pool import ThreadPool\nThreadPool(2)", "RuntimeError", "no threads; use asyncio"),
    "asyncio.to_thread": ("await asyncio.to_thread(print, 1)", "RuntimeError", "no threads; use asyncio"),
    "import ctypes": (
        "import ctypes",
        "ModuleNotFoundError",
        "No module named 'ctypes': the sandbox cannot load native code; use pure-Python modules",
    ),
}


@pytest.fixture(scope="module")
def plain_sandbox():
    with Sandbox() as sb:
        yield sb


@pytest.mark.parametrize("what", list(REFUSALS))
def test_what_cannot_work_says_what_to_use_instead(plain_sandbox: Sandbox, what: str):
    code, error, message = REFUSALS[what]
    plain_sandbox.python(code)
    stderr = plain_sandbox.last_stderr
    assert plain_sandbox.last_result.exit_code == 1, stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith(error) and message in last, stderr
    assert "Not supported" not in stderr and "unknown url type" not in stderr, stderr


def test_refusals_leave_what_works_alone(plain_sandbox: Sandbox):
    out = plain_sandbox.python(
        "import http.client, urllib.request, multiprocessing, socket, json\n"
        "open('/workspace/f.txt', 'w').write('file url')\n"
        "print(urllib.request.urlopen('file:///workspace/f.txt').read().decode())\n"
        "print(multiprocessing.cpu_count() >= 1, http.client.HTTPSConnection.default_port, socket.AF_INET > 0)\n"
        "print(json.dumps({'a': 1}), json.dumps(object(), default=lambda o: 'own default'))"
    )
    assert out == 'file url\nTrue 443 True\n{"a": 1} "own default"\n', out
