"""A kept session's live state in snapshots and forks (docs/sessions.md):
`snapshot()` of a `keep_state=True` sandbox holds each language's
interpreter, so `Sandbox.from_snapshot` (in another process too) and
`fork()` go on with its variables, functions, classes and imports."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import amla_sandbox
from amla_sandbox import Sandbox, create_sandbox_tool

KEY = b"live-session-test-key-0123456789"

SETUP_PY = """
import statistics
scores = [3, 5, 8]
def mean():
    return statistics.mean(scores)
class Box:
    def __init__(self, n):
        self.n = n
box = Box(7)
statistics.median = lambda *a, **k: "patched"
"""
SETUP_JS = "var seen = new Set(['a']); function note(x) { seen.add(x); return seen.size }; class Pt { constructor(x) { this.x = x } }; const origin = new Pt(3)"
SETUP_SH = 'export GREETING=hello; greet() { echo "$GREETING $1"; }; mkdir -p work; cd work'


def _session() -> Sandbox:
    sb = Sandbox(keep_state=True, durable_key=KEY)
    sb.python(SETUP_PY)
    sb.execute(SETUP_JS)
    sb.shell(SETUP_SH)
    sb.shell("echo data > /workspace/kept.txt")
    return sb


def _check_restored(sb: Sandbox) -> None:
    assert sb.python("print(mean(), box.n, statistics.median([1]))") == "5.333333333333333 7 patched\n"
    assert sb.execute("console.log(note('b'), origin.x)") == "2 3\n"
    assert sb.shell("greet there; pwd; cat /workspace/kept.txt") == "hello there\n/workspace/work\ndata\n"


@pytest.mark.parametrize("compress", [False, True])
def test_snapshot_restores_every_language_in_this_process(compress: bool) -> None:
    with _session() as sb:
        data = sb.snapshot(compress=compress)
    with Sandbox.from_snapshot(data, keep_state=True, durable_key=KEY) as restored:
        _check_restored(restored)


def test_snapshot_restores_in_a_fresh_process(tmp_path: Path) -> None:
    snap = tmp_path / "session.snap"
    with _session() as sb:
        snap.write_bytes(sb.snapshot(compress=True))
    child = textwrap.dedent(
        f"""
        from amla_sandbox import Sandbox
        data = open({str(snap)!r}, "rb").read()
        with Sandbox.from_snapshot(data, keep_state=True, durable_key={KEY!r}) as sb:
            print(sb.python("print(mean(), box.n)"), end="")
            print(sb.execute("console.log(note('z'), origin.x)"), end="")
            print(sb.shell("greet child; pwd"), end="")
        """
    )
    env = dict(os.environ, PYTHONPATH=str(Path(amla_sandbox.__file__).resolve().parent.parent))
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=240, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "5.333333333333333 7\n2 3\nhello child\n/workspace/work\n"


def test_fork_carries_the_session_and_is_independent() -> None:
    with _session() as sb:
        fork = sb.fork()
        with fork:
            assert fork.python("scores.append(12); mean()") == "7\n"
            assert fork.execute("note('b'); note('c')") == "3\n"
            assert fork.shell("GREETING=bye; greet fork") == "bye fork\n"
            # The original did not see any of it.
            assert sb.python("mean()") == "5.333333333333333\n"
            assert sb.execute("note('a')") == "1\n"
            assert sb.shell("greet orig") == "hello orig\n"
            # Nor does the fork see what the original does next.
            sb.python("scores.clear(); scores.append(100)")
            assert fork.python("mean()") == "7\n"


def test_restored_session_is_independent_of_the_original() -> None:
    with _session() as sb:
        data = sb.snapshot()
        with Sandbox.from_snapshot(data, keep_state=True, durable_key=KEY) as a, Sandbox.from_snapshot(
            data, keep_state=True, durable_key=KEY
        ) as b:
            a.python("scores.append(100)")
            assert b.python("len(scores)") == "3\n"
            assert sb.python("len(scores)") == "3\n"


def test_reset_then_snapshot_holds_no_session() -> None:
    with _session() as sb:
        sb.reset()
        data = sb.snapshot()
    # No live session: a sandbox without keep_state takes it, files and all.
    with Sandbox.from_snapshot(data, durable_key=KEY) as plain:
        assert plain.shell("cat /workspace/kept.txt") == "data\n"
    with Sandbox.from_snapshot(data, keep_state=True, durable_key=KEY) as kept:
        assert kept.python("print('scores' in globals())") == "False\n"


def test_a_session_needs_keep_state_to_be_restored() -> None:
    with _session() as sb:
        data = sb.snapshot()
    with pytest.raises(ValueError, match=r"live javascript session .*keep_state=True"):
        Sandbox.from_snapshot(data, durable_key=KEY)


def test_a_session_larger_than_the_memory_limit_is_refused() -> None:
    with Sandbox(keep_state=True, durable_key=KEY) as sb:
        sb.python("blob = bytearray(40 * 1024 * 1024)")
        data = sb.snapshot(compress=True)
    with pytest.raises(ValueError, match=r"python session holds \d+ bytes of memory, more than this sandbox's memory_limit=33554432"):
        Sandbox.from_snapshot(data, keep_state=True, durable_key=KEY, memory_limit=32 * 1024 * 1024)
    # With room for it, the state is there.
    with Sandbox.from_snapshot(data, keep_state=True, durable_key=KEY) as ok:
        assert ok.python("len(blob)") == str(40 * 1024 * 1024) + "\n"


def test_an_edited_session_is_refused() -> None:
    with Sandbox(keep_state=True, durable_key=KEY) as sb:
        sb.python("secret_marker = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'")
        data = bytearray(sb.snapshot())
    at = data.find(b"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
    assert at > 0, "the session's memory holds the string as it is"
    data[at] = ord("B")
    with pytest.raises(ValueError, match="authentication failed"):
        Sandbox.from_snapshot(bytes(data), keep_state=True, durable_key=KEY)


def test_a_session_from_another_key_is_refused() -> None:
    with _session() as sb:
        data = sb.snapshot()
    with pytest.raises(ValueError, match="authentication failed"):
        Sandbox.from_snapshot(data, keep_state=True, durable_key=b"another-key-0123456789abcdef0123")


def test_the_tool_keeps_its_session_through_a_snapshot() -> None:
    tool = create_sandbox_tool(keep_state=True)
    try:
        tool.run("x = 20", language="python")
        data = tool.sandbox.snapshot()
    finally:
        tool.sandbox.close()
    with Sandbox.from_snapshot(data, keep_state=True) as sb:
        assert sb.python("x * 2 + 2") == "42\n"


def test_budgets_and_session_travel_together() -> None:
    def ping() -> str:
        return "pong"

    tool = create_sandbox_tool(tools=[ping], max_calls=3, keep_state=True)
    try:
        tool.run("first = ping()\nprint(first)", language="python")
        data = tool.sandbox.snapshot()
    finally:
        tool.sandbox.close()
    restored = create_sandbox_tool(tools=[ping], max_calls=3, keep_state=True, snapshot=data)
    try:
        assert restored.run("print(first)", language="python") == "pong\n"
        out = restored.run("print(ping(), ping())\nprint(ping())", language="python")
        assert "pong pong" in out and ("budget" in out.lower() or "exceeded" in out.lower() or "limit" in out.lower()), out
    finally:
        restored.sandbox.close()


def test_a_recorded_run_in_a_kept_session_replays_from_the_session() -> None:
    with Sandbox(keep_state=True, record=True, durable_key=KEY) as sb:
        sb.python("x = 40")
        assert sb.python("x += 2\nprint(x)") == "42\n"
        journal = sb.last_result.journal
        assert journal is not None
        assert sb.python("print(x)") == "42\n"  # the session went on after the recorded run
    replayed = Sandbox.replay(journal, keep_state=True, durable_key=KEY)
    with replayed:
        assert replayed.last_result.stdout == "42\n"
        assert replayed.python("print(x)") == "42\n"  # and goes on from the replayed run
    with pytest.raises(ValueError, match="keep_state=True"):
        Sandbox.replay(journal, durable_key=KEY)


def test_an_approval_pause_in_a_kept_session_resumes_with_its_variables() -> None:
    from amla_sandbox import ApprovalRequired

    def pay(amount: int) -> str:
        return f"paid {amount}"

    tool = create_sandbox_tool(tools=[pay], require_approval=["pay"], keep_state=True, durable_key=KEY)
    try:
        tool.run("total = 5", language="python")
        with pytest.raises(ApprovalRequired) as pending:
            tool.run("receipt = pay(amount=total)\nprint(receipt, total)", language="python")
        out = tool.resume_approval(pending.value.token, approve=True)
        assert "paid 5 5" in out
        assert tool.run("print(receipt)", language="python") == "paid 5\n"
    finally:
        tool.sandbox.close()


def test_a_digest_only_journal_of_a_kept_session_is_refused() -> None:
    with Sandbox(keep_state=True, record="digest", durable_key=KEY) as sb:
        sb.python("x = 1")  # the first run starts fresh: its digest is its whole start state
        with pytest.raises(Exception, match='record="digest"'):
            sb.python("print(x)")


def test_tools_added_and_removed_keep_the_session() -> None:
    from amla_sandbox import ToolDefinition

    double = ToolDefinition(name="double", description="twice x", parameters={"type": "object", "properties": {"x": {"type": "integer"}}})

    def handler(method: str, params: dict) -> int:  # type: ignore[type-arg]
        return 2 * int(params["x"])

    # A sandbox made without tools gets the tools directory mounted by the
    # first add_tools: its kept interpreters move into instances that see it.
    with Sandbox(keep_state=True, durable_key=KEY, tool_handler=handler) as sb:
        sb.python("total = 21")
        sb.execute("var seen = 7")
        sb.add_tools([double])
        assert sb.python("print(double(x=total))") == "42\n"
        assert sb.execute("console.log(seen + (await double({x: 1})))") == "9\n"
        sb.remove_tools(["double"])
        assert sb.python("print(total, 'double' in globals())") == "21 False\n"
        assert sb.execute("console.log(seen)") == "7\n"
        assert sb.last_result.state_reset is False


def test_restore_into_a_sandbox_that_has_files_gives_sessions_that_see_the_new_files() -> None:
    with _session() as sb:
        data = sb.snapshot()
    with Sandbox(keep_state=True, durable_key=KEY) as other:
        other.shell("echo old > /workspace/old.txt; mkdir -p /workspace/d")
        other.python("mine = 1")
        other.restore(data)  # the files are swapped in: the interpreters must see the new ones
        assert other.python("print(open('/workspace/kept.txt').read().strip(), mean(), 'mine' in globals())") == "data 5.333333333333333 False\n"
        assert other.shell("cat /workspace/kept.txt; ls /workspace") == "data\nkept.txt\nwork\n"
        other.python("open('/workspace/new.txt', 'w').write('x')")
        assert other.files.read("/workspace/new.txt") == b"x"
