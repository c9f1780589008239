"""SandboxPool on a real local Ray instance (num_cpus=2, no dashboard), one
per module: sessions across actors, actors killed between and during runs,
tools in actors and in this process, closing with runs in flight.

Tools whose side effects must never repeat write one line per call to a
ledger file per session (the ledger survives every actor); the tests count
the lines. A test kills an actor only once the pool has recorded the calls
it counts: it waits for a caller-side call (`local_pid`) the script makes
after them. (A call whose answer had not reached the pool when its actor
died is made again by the retried run: docs/scale-out.md.)
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray", reason="the ray extra is not installed (pip install 'amla-sandbox[ray]')")

from amla_sandbox import Sandbox  # noqa: E402
from amla_sandbox._language import ACCEPTED_LANGUAGES  # noqa: E402
from amla_sandbox.ray import (  # noqa: E402
    PoolClosedError,
    RunDivergedError,
    RunLostError,
    SandboxPool,
    SessionLostError,
)

HERE = Path(__file__).resolve().parent
# Durable sessions (snapshot / restore) decide whether a session that had
# finished runs survives its actor; both outcomes are asserted below.
HAS_SNAPSHOTS = callable(getattr(Sandbox, "snapshot", None))
# The Python guest: its cases run when this build accepts language "python";
# until then test_python_is_refused_until_the_guest_exists checks the refusal.
HAS_PYTHON = "python" in ACCEPTED_LANGUAGES


# -- tools (this module is importable on the workers: see the fixture) --------


def charge(session: str, n: int) -> str:
    """Charge a session once (a side effect: one ledger line per call).

    Args:
        session: whose ledger
        n: the call's number
    """
    with open(Path(os.environ["AMLA_TEST_LEDGER"]) / session, "a") as f:
        f.write(f"{n}\n")
    return f"charged {session} #{n}"


def note(session: str, n: int) -> str:
    """Echo a session's note (budgeted per session)."""
    return f"{session}/{n}"


def now_ms() -> float:
    """The time, in ms since the epoch."""
    return time.time() * 1000


def worker_pid() -> int:
    """The process the tool runs in."""
    return os.getpid()


class Fussy:
    """A tool that a worker refuses to load once its flag file exists."""

    __name__ = "fussy"

    def __init__(self, flag: str) -> None:
        self.flag = flag

    def __call__(self, x: int) -> int:
        return x

    def __getstate__(self) -> dict[str, str]:
        return {"flag": self.flag}

    def __setstate__(self, state: dict[str, str]) -> None:
        if os.path.exists(state["flag"]):
            raise RuntimeError("fussy: the flag file is there")
        self.flag = state["flag"]


def ledger(session: str) -> list[str]:
    path = Path(os.environ["AMLA_TEST_LEDGER"]) / session
    return path.read_text().split() if path.exists() else []


def wait_for(cond: Any, timeout: float = 60.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


@pytest.fixture(scope="module")
def ray_local(tmp_path_factory: pytest.TempPathFactory) -> Any:
    ledger_dir = tmp_path_factory.mktemp("ledger")
    os.environ["AMLA_TEST_LEDGER"] = str(ledger_dir)
    if ray.is_initialized():
        ray.shutdown()
    # Ray puts the driver's working directory on its workers' sys.path. Run
    # from a source checkout, that directory's amla_sandbox/ (no compiled
    # core unless built in place) would shadow the installed package in the
    # actors, so the driver starts Ray from an empty directory.
    cwd = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("ray-cwd"))
    try:
        _init_ray(ledger_dir)
    finally:
        os.chdir(cwd)
    yield ledger_dir
    ray.shutdown()


def _init_ray(ledger_dir: Path) -> None:
    # Earlier tests made sandboxes in this process, so wasmtime's fault
    # handlers (a wasm trap is a SIGILL or SIGSEGV) are installed; Ray's
    # driver would install its failure signal handler over them and the next
    # trap in a later test would kill pytest (docs/scale-out.md: call
    # ray.init() before the process makes its first sandbox). pytest enabled
    # faulthandler first, so Ray's handler is the only one to keep out.
    import ray._private.ray_constants as ray_constants

    ray_constants.RAY_DISABLE_FAILURE_SIGNAL_HANDLER = True
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
        object_store_memory=300 * 1024 * 1024,
        # Workers import this module to load its tools (as a user's workers
        # import the user's package), and write the same ledger.
        runtime_env={
            "env_vars": {
                "PYTHONPATH": os.pathsep.join(p for p in (str(HERE), os.environ.get("PYTHONPATH", "")) if p),
                "AMLA_TEST_LEDGER": str(ledger_dir),
            }
        },
    )


@pytest.fixture(scope="module")
def pool(ray_local: Any) -> Any:
    """4 actors; charge/note/worker_pid inside them, `local_pid` here."""
    calls: list[str] = []

    def local_pid(tag: str) -> int:
        """The caller's process id (runs in the test process)."""
        calls.append(tag)
        return os.getpid()

    with SandboxPool(
        size=4,
        tools=[charge, note, worker_pid, now_ms],
        local_tools=[local_pid],
        max_calls={"note": 5, "charge": 50},
        health_check_interval=None,  # tests call check_health() themselves
    ) as p:
        p.local_calls = calls  # type: ignore[attr-defined]
        yield p


def _is_dead(actor: Any) -> bool:
    try:
        ray.get(actor.ping.remote(), timeout=5)
    except ray.exceptions.RayActorError:
        return True
    except ray.exceptions.GetTimeoutError:
        pass
    return False


def _session_actor(pool: SandboxPool, sid: str) -> Any:
    slot = pool.where(sid)
    assert slot is not None, f"session {sid} is open nowhere"
    return pool.actors[slot]


# -- many sessions -----------------------------------------------------------------


def _session_script(sid: str, step: int) -> tuple[str, str, str]:
    """(language, code, expected output) for run `step` of session `sid`:
    each run checks the files the session's earlier runs left and adds its
    own, in JavaScript, the shell and (when it exists) Python."""
    so_far = "".join(f"[{sid}:{i}]" for i in range(1, step))
    mark = f"[{sid}:{step}]"
    if step in (1, 3, 5):
        if step == 3 and HAS_PYTHON:
            code = (
                "import os\n"
                f"p = '/workspace/{sid}.log'\n"
                "before = open(p).read() if os.path.exists(p) else ''\n"
                f"open(p, 'a').write({mark!r})\n"
                f"print(before + '|' + note(session={sid!r}, n={step}))\n"
            )
            return "python", code, f"{so_far}|{sid}/{step}"
        code = (
            f"const p = '/workspace/{sid}.log';\n"
            "let before = ''; try { before = await fs.readFile(p); } catch (e) {}\n"
            f"await fs.appendFile(p, {mark!r});\n"
            f"console.log(before + '|' + await note({{session: {sid!r}, n: {step}}}));\n"
        )
        return "javascript", code, f"{so_far}|{sid}/{step}"
    code = (
        f"touch /workspace/{sid}.log; before=$(cat /workspace/{sid}.log)\n"
        f"printf '%s' '{mark}' >> /workspace/{sid}.log\n"
        f"echo \"$before|$(tool note --session {sid} --n {step})\"\n"
    )
    return "shell", code, f"{so_far}|{sid}/{step}"


def test_200_sessions_5_runs_each_across_4_actors(pool: SandboxPool) -> None:
    sessions = [f"s{i:03d}" for i in range(200)]

    def session_life(sid: str) -> list[str]:
        problems = []
        homes = set()
        for step in range(1, 6):
            language, code, want = _session_script(sid, step)
            got = pool.run(sid, code, language).strip()
            homes.add(pool.where(sid))
            # The note tool returns JSON text in the shell, a string in JS/Python.
            if got.replace('"', "") != want:
                problems.append(f"{sid} run {step} ({language}): {got!r} != {want!r}")
        if len(homes) != 1:
            problems.append(f"{sid} moved between actors: {homes}")  # sessions stick
        return problems

    with ThreadPoolExecutor(max_workers=16) as ex:
        problems = [p for ps in ex.map(session_life, sessions) for p in ps]
    assert problems == []
    # Sticky and spread: every actor holds sessions, none holds most.
    homes = [pool.where(sid) for sid in sessions]
    counts = {slot: homes.count(slot) for slot in range(4)}
    assert all(20 <= n <= 80 for n in counts.values()), counts
    # Budgets are per session: each used its 5 notes, none more, none shared.
    assert {sid: pool.get_remaining_calls(sid, "cap:tool-call:mcp:note") for sid in sessions} == {sid: 0 for sid in sessions}
    for sid in sessions[::25]:
        out = pool.run(sid, f"try {{ await note({{session: '{sid}', n: 6}}) }} catch (e) {{ console.log(e.message) }}")
        assert "Call limit exceeded" in out, out
    assert pool.stats.runs_retried == 0 and pool.stats.actors_replaced == 0
    for sid in sessions:
        pool.close_session(sid)
    assert not set(sessions) & set(pool.sessions())


def test_tools_run_in_actors_and_local_tools_here(pool: SandboxPool) -> None:
    out = pool.run("where", "console.log(await worker_pid({}), await local_pid({tag: 'where'}))")
    actor_pid, local = (int(x) for x in out.split())
    assert local == os.getpid() and actor_pid != os.getpid()
    assert pool.local_calls.count("where") == 1  # type: ignore[attr-defined]
    # The same through the shell's `tool` applet.
    out = pool.run("where", "tool local_pid --tag shell", "shell")
    assert out.strip() == str(os.getpid())
    # A script waits for a caller-side tool however long it takes; a
    # failing one fails in the script with the same text as in one process.
    pool.close_session("where")


def test_caller_side_tool_errors_read_as_in_one_process(ray_local: Any) -> None:
    def flaky(x: int) -> int:
        """Fail for odd x."""
        if x % 2:
            raise ValueError(f"odd {x}")
        return x * 10

    code = "for (const x of [2, 3]) { try { console.log(await flaky({x})) } catch (e) { console.log(e.message) } }"
    from amla_sandbox import create_sandbox_tool

    with create_sandbox_tool([flaky]) as one:
        expected = one.run(code, "javascript")
    with SandboxPool(size=1, local_tools=[flaky], health_check_interval=None) as p:
        assert p.run("a", code) == expected
        assert "odd 3" in expected


def test_async_form_awaits_caller_tools_on_the_callers_loop(ray_local: Any) -> None:
    in_flight = 0
    peak = 0

    async def slow_lookup(key: str) -> str:
        """Look a key up (async, in this process)."""
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.2)
        in_flight -= 1
        return key.upper()

    async def main(p: SandboxPool) -> list[str]:
        code = "const r = await Promise.all(['a','b','c'].map(k => slow_lookup({key: k}))); console.log(r.join(''))"
        return await asyncio.gather(*(p.run_async(f"as{i}", code) for i in range(3)))

    with SandboxPool(size=2, local_tools=[slow_lookup], health_check_interval=None) as p:
        outs = asyncio.run(main(p))
        assert outs == ["ABC\n"] * 3
        # Calls issued together (Promise.all) ran together, across sessions too.
        assert peak >= 3
        # The sync form drives async caller-side tools itself.
        assert p.run("sync", "console.log(await slow_lookup({key: 'z'}))") == "Z\n"


def test_a_caller_that_gives_up_stops_its_run(pool: SandboxPool) -> None:
    async def give_up() -> None:
        code = "await fs.writeFile('/workspace/x', '1'); await local_pid({tag: 'quitter'}); while (true) {}"
        task = asyncio.ensure_future(pool.run_async("quitter", code))
        while pool.local_calls.count("quitter") == 0:  # type: ignore[attr-defined]
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.2)
        task.cancel()
        await task

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(give_up())
    # The actor stopped the script (it would run 30 s): the session's next
    # run starts at once, on its files.
    t0 = time.monotonic()
    assert pool.run("quitter", "cat /workspace/x", "shell") == "1"
    assert time.monotonic() - t0 < 20
    pool.close_session("quitter")


def test_a_second_driver_uses_the_running_cluster_by_address(ray_local: Any, tmp_path: Path) -> None:
    """The cluster path: another process joins this Ray instance with
    ray.init(address=...) and runs a pool there with the same code."""
    script = tmp_path / "driver.py"
    script.write_text(
        "import os, sys, ray\n"
        "from amla_sandbox.ray import SandboxPool\n"
        "def where() -> int:\n"
        "    \"\"\"The worker's pid.\"\"\"\n"
        "    return os.getpid()\n"
        "ray.init(address=sys.argv[1], log_to_driver=False)\n"
        "with SandboxPool(size=2, tools=[where], health_check_interval=None) as pool:\n"
        "    pid = int(pool.run('a', 'console.log(await where({}))'))\n"
        "    print('ok', pid != os.getpid(), pool.run('a', 'echo hi', 'shell').strip())\n"
    )
    address = ray.get_runtime_context().gcs_address
    out = subprocess.run(
        [sys.executable, str(script), address], capture_output=True, text=True, timeout=240, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().endswith("ok True hi"), out.stdout


def test_a_guest_trap_in_the_driver_after_ray_init_is_an_error(ray_local: Any, tmp_path: Path) -> None:
    """docs/scale-out.md: with ray.init() before the process's first
    sandbox, a trap (a script out of memory) in the driver is an error and
    the sandbox goes on."""
    script = tmp_path / "driver.py"
    script.write_text(
        "import sys, ray\n"
        "from amla_sandbox import Sandbox, MemoryLimitError\n"
        "ray.init(address=sys.argv[1], log_to_driver=False)\n"
        "sb = Sandbox(memory_limit=64 << 20)\n"
        "try:\n"
        "    sb.shell('seq 1 3000000 | sort -n | tail -1')\n"
        "except MemoryLimitError:\n"
        "    print('trapped', sb.shell('echo still here').strip())\n"
    )
    address = ray.get_runtime_context().gcs_address
    out = subprocess.run([sys.executable, str(script), address], capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "trapped still here", out.stdout


# -- bad input -----------------------------------------------------------------------


def test_unserialisable_tool_is_named_at_pool_creation(ray_local: Any) -> None:
    lock = threading.Lock()

    def guarded(x: int) -> int:
        """Uses a lock it captured."""
        with lock:
            return x

    with pytest.raises(TypeError, match=r"tool 'guarded' cannot be sent to the pool's Ray actors: .*lock.*local_tools"):
        SandboxPool(size=1, tools=[note, guarded])
    # In this process it is fine.
    with SandboxPool(size=1, local_tools=[guarded], health_check_interval=None) as p:
        assert p.run("g", "console.log(await guarded({x: 7}))") == "7\n"


def test_tool_workers_cannot_import_is_named_at_pool_creation(ray_local: Any, tmp_path: Path) -> None:
    (tmp_path / "only_here.py").write_text("def lookup(q: str) -> str:\n    return q\n")
    sys.path.insert(0, str(tmp_path))
    try:
        import only_here  # type: ignore[import-not-found]

        with pytest.raises(Exception, match=r"tool 'lookup' could not be loaded in a pool actor: ModuleNotFoundError"):
            SandboxPool(size=1, tools=[only_here.lookup], start_timeout=120)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("only_here", None)


def test_bad_arguments_are_refused_with_names(ray_local: Any) -> None:
    with pytest.raises(ValueError, match=r"tool 'note', parameter 'n': 'less than 5'"):
        SandboxPool(size=1, tools=[note], constraints={"note": {"n": "less than 5"}})
    with pytest.raises(ValueError, match="size must be a positive int"):
        SandboxPool(size=0, tools=[note])
    with pytest.raises(TypeError, match="snapshot"):
        SandboxPool(size=1, snapshot=b"x")
    with pytest.raises(TypeError, match="approval of tool calls is not supported in a SandboxPool yet"):
        SandboxPool(size=1, tools=[note], require_approval=["note"])
    with pytest.raises(ValueError, match="actor_options may not set max_restarts"):
        SandboxPool(size=1, actor_options={"max_restarts": 3})
    with pytest.raises(TypeError, match="unexpected keyword argument 'no_such_option'"):
        SandboxPool(size=1, no_such_option=1)
    with pytest.raises(ValueError, match="in both tools and local_tools"):
        SandboxPool(size=1, tools=[note], local_tools=[note])


def test_bad_run_and_session_arguments(pool: SandboxPool) -> None:
    with pytest.raises(ValueError, match="Unsupported language 'cobol'"):
        pool.run("x", "1", "cobol")
    with pytest.raises(TypeError, match="session_id must be a non-empty str"):
        pool.run("", "1")
    with pytest.raises(TypeError, match="code must be a str"):
        pool.run("x", b"1")  # type: ignore[arg-type]
    with pytest.raises(KeyError, match="no session 'never'"):
        pool.snapshot("never")
    with pytest.raises(ValueError, match=r"tool 'note', parameter 'n'"):
        pool.open_session("y", constraints={"note": {"n": "<= lots"}})
    assert "y" not in pool.sessions()
    pool.open_session("y")
    with pytest.raises(ValueError, match="already open"):
        pool.open_session("y")
    pool.close_session("y")


def test_typescript_runs_through_the_pool(pool: SandboxPool) -> None:
    out = pool.run("ts", "const n: number = await note({session: 'ts', n: 2}) as unknown as number; console.log(n)", "TS")
    assert out.strip() == "ts/2"
    assert pool.execute("ts", "enum E { A = 'a' }\nreturn E.A", "typescript").stdout == "a\n"
    pool.close_session("ts")


def test_python_is_refused_until_the_guest_exists(pool: SandboxPool) -> None:
    """Marked, not skipped: without the Python guest the pool refuses Python
    as one process does; with it, a Python run works through the pool."""
    if HAS_PYTHON:
        out = pool.run("py", "print(note(session='py', n=1))", "python")
        assert out.strip() == "py/1"
        pool.close_session("py")
        return
    with pytest.raises(ValueError, match="Unsupported language 'python'"):
        pool.run("py", "print(1)", "python")


def test_per_session_budgets(pool: SandboxPool) -> None:
    pool.open_session("tight", max_calls={"note": 1})
    code = "for (const n of [1, 2]) { try { console.log(await note({session: 's', n})) } catch (e) { console.log('denied') } }"
    assert pool.run("tight", code) == "s/1\ndenied\n"
    assert pool.run("loose", code) == "s/1\ns/2\n"  # the pool's budget: 5
    assert pool.get_remaining_calls("tight", "cap:tool-call:mcp:note") == 0
    assert pool.get_remaining_calls("loose", "cap:tool-call:mcp:note") == 3
    pool.close_session("tight")
    pool.close_session("loose")


# -- dead actors ----------------------------------------------------------------------


def test_health_check_replaces_a_dead_actor_and_keeps_it_out(pool: SandboxPool) -> None:
    before = pool.stats.actors_replaced
    victim = pool.actors[1]
    ray.kill(victim, no_restart=True)
    wait_for(lambda: 1 in pool.check_health() or victim not in pool.actors, what="the dead actor to be replaced")
    assert victim not in pool.actors
    assert pool.stats.actors_replaced == before + 1
    assert pool.check_health() == []  # the replacement answers
    # New sessions land on live actors only, the replacement included.
    for i in range(8):
        assert pool.run(f"h{i}", "console.log('ok')") == "ok\n"
    assert {pool.where(f"h{i}") for i in range(8)} == {0, 1, 2, 3}
    for i in range(8):
        pool.close_session(f"h{i}")


def test_a_slot_whose_actors_cannot_start_is_given_up(ray_local: Any, tmp_path: Path) -> None:
    flag = tmp_path / "refuse"
    with SandboxPool(size=2, tools=[Fussy(str(flag))], health_check_interval=None) as p:
        flag.touch()  # from now on no new actor can load the tool
        ray.kill(p.actors[1], no_restart=True)
        wait_for(lambda: p.check_health() == [1], what="the killed actor to be seen dead")
        for _ in range(20):
            if not p.check_health():
                break
        # The killed actor and two replacements that died starting; then
        # the slot is given up instead of replaced for ever.
        assert p.stats.actors_replaced == 3
        assert p.check_health() == []
        for i in range(4):
            assert p.run(f"f{i}", "console.log(await fussy({x: 5}))") == "5\n"
            assert p.where(f"f{i}") == 0


def test_actor_killed_mid_run_retries_without_repeating_tool_calls(pool: SandboxPool) -> None:
    sid = "midrun"
    code = f"""
        const got = [];
        for (const n of [1, 2]) got.push(await charge({{session: '{sid}', n}}));
        got.push(...await Promise.all([3, 4].map(n => charge({{session: '{sid}', n}}))));
        got.push(await local_pid({{tag: '{sid}'}}) > 0);
        await fs.writeFile('/workspace/progress.txt', got.join(','));
        await new Promise(r => setTimeout(r, 1500));  // the actor is killed here
        got.push(await charge({{session: '{sid}', n: 5}}));
        console.log(got.join(','), await fs.readFile('/workspace/progress.txt'));
    """
    retried = pool.stats.runs_retried
    with ThreadPoolExecutor(1) as ex:
        future = ex.submit(pool.run, sid, code)
        # The caller-side call comes after the four charges, so when it is
        # here the pool has recorded their answers (the actor waits for that).
        wait_for(lambda: pool.local_calls.count(sid) == 1, what="four charges recorded")  # type: ignore[attr-defined]
        assert len(ledger(sid)) == 4
        ray.kill(_session_actor(pool, sid), no_restart=True)
        out = future.result(timeout=120)
    charges = ",".join(f"charged {sid} #{n}" for n in (1, 2, 3, 4))
    assert out == f"{charges},true,charged {sid} #5 {charges},true\n"
    assert ledger(sid) == ["1", "2", "3", "4", "5"]  # each call once, none repeated
    assert pool.local_calls.count(sid) == 1  # type: ignore[attr-defined]
    assert pool.stats.runs_retried == retried + 1
    # The session lives on, on a live actor, with the retried run's files.
    assert pool.run(sid, "cat /workspace/progress.txt", "shell") == f"{charges},true"
    pool.close_session(sid)


def test_actor_killed_between_runs_loses_no_completed_run(pool: SandboxPool) -> None:
    sid = "between"
    big = "x" * 1_000_000
    out = pool.run(
        sid,
        f"await fs.writeFile('/workspace/big.txt', '{big[:10]}'.repeat(100000)); "
        f"console.log(await charge({{session: '{sid}', n: 1}}))",
    )
    assert out == f"charged {sid} #1\n"
    remaining = pool.get_remaining_calls(sid, "cap:tool-call:mcp:charge")
    victim = _session_actor(pool, sid)
    ray.kill(victim, no_restart=True)
    # ray.kill only asks: until the actor is gone, the next run could still
    # start on it and make its charge before it dies, and the retry would
    # then charge again. Between runs means after the actor is dead.
    wait_for(lambda: _is_dead(victim), what="the killed actor to be dead")
    check = f"const b = await fs.readFile('/workspace/big.txt'); console.log(b.length, await charge({{session: '{sid}', n: 2}}))"
    if not HAS_SNAPSHOTS:
        # Without durable sessions the files died with the actor, and the pool says so.
        with pytest.raises(SessionLostError, match=f"session '{sid}' was open on an actor that died"):
            pool.run(sid, check)
        assert ledger(sid) == ["1"]
        pool.close_session(sid)
        assert pool.run(sid, "console.log('fresh')") == "fresh\n"
        pool.close_session(sid)
        return
    assert pool.run(sid, check) == f"1000000 charged {sid} #2\n"
    assert ledger(sid) == ["1", "2"]
    assert pool.get_remaining_calls(sid, "cap:tool-call:mcp:charge") == remaining - 1  # the budget went on, not reset
    assert pool.stats.sessions_restored >= 1
    pool.close_session(sid)


def test_actor_killed_mid_run_of_a_session_with_history(pool: SandboxPool) -> None:
    sid = "history"
    pool.run(sid, f"await fs.writeFile('/workspace/a.txt', 'from run 1'); await charge({{session: '{sid}', n: 1}})")
    code = f"""
        await charge({{session: '{sid}', n: 2}});
        await local_pid({{tag: '{sid}'}});
        await new Promise(r => setTimeout(r, 1500));
        await charge({{session: '{sid}', n: 3}});
        console.log(await fs.readFile('/workspace/a.txt'));
    """
    with ThreadPoolExecutor(1) as ex:
        future = ex.submit(pool.run, sid, code)
        wait_for(lambda: pool.local_calls.count(sid) == 1, what="the second charge recorded")  # type: ignore[attr-defined]
        ray.kill(_session_actor(pool, sid), no_restart=True)
        if not HAS_SNAPSHOTS:
            with pytest.raises(SessionLostError):
                future.result(timeout=120)
            assert ledger(sid) == ["1", "2"]
            pool.close_session(sid)
            return
        out = future.result(timeout=120)
    assert out == "from run 1\n"
    assert ledger(sid) == ["1", "2", "3"]
    pool.close_session(sid)


def test_retried_run_that_asks_for_other_calls_stops_instead_of_repeating(pool: SandboxPool) -> None:
    sid = "diverge"
    code = f"""
        await charge({{session: '{sid}', n: Date.now()}});
        await local_pid({{tag: '{sid}'}});
        await new Promise(r => setTimeout(r, 1500));
        await charge({{session: '{sid}', n: 0}});
    """
    with ThreadPoolExecutor(1) as ex:
        future = ex.submit(pool.run, sid, code)
        wait_for(lambda: pool.local_calls.count(sid) == 1, what="the first charge recorded")  # type: ignore[attr-defined]
        ray.kill(_session_actor(pool, sid), no_restart=True)
        with pytest.raises(RunDivergedError, match="tool call 0 differs from the one recorded") as info:
            future.result(timeout=120)
    assert info.value.index == 0 and info.value.recorded[0] == "mcp:charge"
    assert len(ledger(sid)) == 1
    pool.close_session(sid)


def test_retried_run_that_skips_a_recorded_call_is_reported(pool: SandboxPool) -> None:
    sid = "skipper"
    code = f"""
        const t = await now_ms({{}});  // replayed on the retry: the old time
        if (Date.now() - t < 1000) await local_pid({{tag: '{sid}'}});
        await new Promise(r => setTimeout(r, 2500));
        console.log('done');
    """
    with ThreadPoolExecutor(1) as ex:
        future = ex.submit(pool.run, sid, code)
        wait_for(lambda: pool.local_calls.count(sid) == 1, what="the caller-side call")  # type: ignore[attr-defined]
        time.sleep(1.5)  # so that the retry sees more than 1000 ms since t
        ray.kill(_session_actor(pool, sid), no_restart=True)
        with pytest.raises(RunDivergedError, match="ended without asking for it") as info:
            future.result(timeout=120)
    assert info.value.index == 1 and info.value.asked is None
    assert info.value.recorded == ("mcp:local_pid", {"tag": sid})
    assert pool.local_calls.count(sid) == 1  # type: ignore[attr-defined]
    pool.close_session(sid)


def test_without_recover_a_killed_run_is_not_retried(ray_local: Any) -> None:
    sid = "norecover"
    code = f"await charge({{session: '{sid}', n: 1}}); await new Promise(r => setTimeout(r, 1500)); await charge({{session: '{sid}', n: 2}})"
    with SandboxPool(size=1, tools=[charge], recover=False, health_check_interval=None) as p:
        with ThreadPoolExecutor(1) as ex:
            future = ex.submit(p.run, sid, code)
            wait_for(lambda: len(ledger(sid)) == 1, what="the first charge")
            ray.kill(p.actors[0], no_restart=True)
            with pytest.raises(RunLostError, match="recover=False"):
                future.result(timeout=120)
        assert ledger(sid) == ["1"]
        assert p.run("other", "console.log(2)") == "2\n"  # the replacement serves


# -- moving --------------------------------------------------------------------------------


def test_move_and_rebalance(pool: SandboxPool) -> None:
    sid = "mover"
    pool.open_session(sid)
    first = pool.where(sid)
    assert first is not None
    # A session without runs moves with or without durable sessions.
    to = (first + 1) % 4
    assert pool.move_session(sid, to=to) == to and pool.where(sid) == to
    pool.run(sid, f"await fs.writeFile('/workspace/m.txt', 'moved'); await note({{session: '{sid}', n: 1}})")
    if not HAS_SNAPSHOTS:
        with pytest.raises(NotImplementedError, match="moving a session with files needs Sandbox.snapshot"):
            pool.move_session(sid)
        pool.close_session(sid)
        return
    dest = pool.move_session(sid)
    assert dest != to and pool.where(sid) == dest
    assert pool.run(sid, "cat /workspace/m.txt", "shell") == "moved"
    assert pool.get_remaining_calls(sid, "cap:tool-call:mcp:note") == 4
    with pytest.raises(ValueError, match="slot index"):
        pool.move_session(sid, to=9)
    pool.close_session(sid)


def test_kept_sessions_keep_their_variables_when_moved_and_when_their_actor_dies(ray_local: Any) -> None:
    with SandboxPool(size=2, keep_state=True, health_check_interval=None) as p:
        sid = "kept"
        p.run(sid, "import statistics\nscores = [3, 5, 8]", "python")
        p.run(sid, "var seen = 7", "javascript")
        here = p.where(sid)
        assert here is not None
        there = p.move_session(sid, to=1 - here)
        assert there == 1 - here
        assert p.run(sid, "print(statistics.mean(scores))", "python") == "5.333333333333333\n"
        assert p.run(sid, "console.log(seen)", "javascript") == "7\n"
        p.run(sid, "scores.append(12)", "python")
        # The actor dies between runs: the session goes on from its
        # snapshot after its last run, interpreters included.
        ray.kill(p.actors[there], no_restart=True)
        assert p.run(sid, "print(statistics.mean(scores))", "python") == "7\n"
        assert p.run(sid, "console.log(seen + 1)", "javascript") == "8\n"


def test_rebalance_evens_out_sessions(ray_local: Any) -> None:
    with SandboxPool(size=2, tools=[note], health_check_interval=None) as p:
        for i in range(6):
            p.open_session(f"r{i}")
            p.move_session(f"r{i}", to=0)
        assert [p.where(f"r{i}") for i in range(6)] == [0] * 6
        assert p.rebalance() == 3
        homes = [p.where(f"r{i}") for i in range(6)]
        assert homes.count(0) == 3 and homes.count(1) == 3
        assert p.stats.sessions_moved == 5 + 3  # r1..r5 moved to 0, then 3 back


# -- closing ------------------------------------------------------------------------------


def test_close_with_runs_in_flight(ray_local: Any, tmp_path: Path) -> None:
    entered = threading.Semaphore(0)
    release = threading.Event()

    def hold(tag: str) -> str:
        """Block in the caller's process until released."""
        entered.release()
        release.wait(60)
        return tag

    def started(tag: str) -> str:
        """Say a run has started."""
        entered.release()
        return tag

    sandboxes = tmp_path / "sandboxes"
    sandboxes.mkdir()
    p = SandboxPool(
        size=2,
        local_tools=[hold, started],
        health_check_interval=None,
        # Each actor's sandboxes live here, so the test sees them removed.
        actor_options={"runtime_env": {"env_vars": {"TMPDIR": str(sandboxes)}}},
    )
    jobs = [
        ("sleep1", "await started({tag: 'a'}); await fs.writeFile('/workspace/f', 'x'); await new Promise(r => setTimeout(r, 20000))", "javascript"),
        ("sleep2", "await started({tag: 'b'}); while (true) {}", "javascript"),
        ("shell", "tool started --tag c; sleep 20", "shell"),
        ("held1", "console.log(await hold({tag: 'd'}))", "javascript"),
        ("held2", "console.log(await hold({tag: 'e'}))", "javascript"),
    ]
    with ThreadPoolExecutor(len(jobs)) as ex:
        futures = [ex.submit(p.run, sid, code, lang) for sid, code, lang in jobs]
        for _ in jobs:
            assert entered.acquire(timeout=60), "a run did not start"
        assert len(list(sandboxes.glob("amla-sandbox-*"))) == len(jobs)
        t0 = time.monotonic()
        p.close()
        closing = time.monotonic() - t0
        release.set()  # the caller-side tools return into a closed pool
        for (sid, _, _), f in zip(jobs, futures):
            try:
                out = f.result(timeout=60)
            except PoolClosedError:
                continue
            raise AssertionError(f"run {sid} returned {out!r} from a closed pool")
    assert closing < 20, closing
    assert list(sandboxes.glob("amla-sandbox-*")) == []  # every sandbox's files removed
    with pytest.raises(PoolClosedError):
        p.run("late", "console.log(1)")
    for actor in p.actors:
        with pytest.raises(ray.exceptions.RayActorError):
            ray.get(actor.ping.remote(), timeout=30)
    p.close()  # idempotent


def test_zz_a_pool_outliving_ray_closes_quietly(ray_local: Any) -> None:
    """Last in the module: Ray shut down under an open pool."""
    p = SandboxPool(size=1, health_check_interval=0.2)
    assert p.run("a", "console.log(1)") == "1\n"
    ray.shutdown()
    time.sleep(0.5)  # the health thread sees Ray gone and ends
    assert not ray.is_initialized()  # nothing started a new instance
    p.close()
    assert not ray.is_initialized()

