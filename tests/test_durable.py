"""Durable sessions through the public API (docs/durable.md): snapshots,
restore and fork; record and exact replay; approval that asks, pauses and
resumes in another process."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import amla_sandbox
from amla_sandbox import (
    ApprovalRequired,
    ReplayDivergenceError,
    Sandbox,
    ToolCallCap,
    create_sandbox_tool,
    tool_from_function,
)


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def lookup(k: str) -> dict:
    """Look a key up."""
    if k == "missing":
        raise KeyError("no such key: missing")
    return {"key": k, "value": len(k), "tags": ["x", k[:2]]}


def pay(to: str, amount: int) -> dict:
    """Move money."""
    return {"ok": True, "to": to, "amount": amount}


TOOLS = [tool_from_function(f) for f in (add, lookup, pay)]
FUNCS = {"add": add, "lookup": lookup, "pay": pay}


class Handler:
    """A tool handler that counts its calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def __call__(self, name: str, params: dict[str, Any]) -> Any:
        self.calls.append((name, params))
        return FUNCS[name](**params)


def refuse_all(name: str, params: dict[str, Any]) -> Any:
    raise AssertionError(f"a replay called the tool handler: {name} {params}")


def files_of(sb: Sandbox) -> str:
    """Every file's path and contents' hash (not its times), via the shell."""
    return sb.shell("find /workspace /tmp -type f | sort | xargs -r sha256sum; find /workspace /tmp -type d | sort")


# -- snapshots, restore, fork -----------------------------------------------------------------------


def test_snapshot_round_trip_keeps_files_times_and_budgets() -> None:
    tool = create_sandbox_tool(tools=[add, lookup], max_calls=3)
    sb = tool.sandbox
    sb.execute(
        """
        await fs.mkdir("/workspace/deep/er", {recursive: true});
        await fs.writeFile("/workspace/deep/er/ünï 🎉.txt", "snow ☃\\n".repeat(1000));
        await fs.writeFile("/tmp/scratch.json", JSON.stringify(await lookup({k: "alpha"})));
        console.log(await add({a: 1, b: 2}));
        """
    )
    sb.shell("printf 'line\\n' > /workspace/from-shell.txt; seq 1 5000 > /workspace/numbers")
    assert sb.get_remaining_calls("cap:tool-call:mcp:add") == 2
    listing = sb.shell("ls -lR /workspace /tmp")
    for compress in (False, True):
        data = sb.snapshot(compress=compress)
        assert isinstance(data, bytes) and data.startswith(b"AMLASNAP\x02")
        restored = create_sandbox_tool(tools=[add, lookup], max_calls=10, snapshot=data)
        try:
            assert files_of(restored.sandbox) == files_of(sb)
            assert restored.sandbox.shell("ls -lR /workspace /tmp") == listing
            # Never more calls than the snapshot had left.
            assert restored.sandbox.get_remaining_calls("cap:tool-call:mcp:add") == 2
            assert restored.sandbox.get_remaining_calls("cap:tool-call:mcp:lookup") == 2
        finally:
            restored.close()
    assert len(sb.snapshot(compress=True)) < len(sb.snapshot())
    tool.close()


def test_restore_never_raises_a_budget() -> None:
    sb = create_sandbox_tool(tools=[add], max_calls=5).sandbox
    data = sb.snapshot()
    fewer = create_sandbox_tool(tools=[add], max_calls=1, snapshot=data)
    assert fewer.sandbox.get_remaining_calls("cap:tool-call:mcp:add") == 1
    # Unlimited here, limited in the snapshot: the snapshot's limit holds.
    free = Sandbox.from_snapshot(data, tools=[tool_from_function(add)], tool_handler=Handler(),
                                 capabilities=[ToolCallCap(method_pattern="mcp:add")])
    assert free.get_remaining_calls("cap:tool-call:mcp:add") == 5
    for s in (sb, fewer.sandbox, free):
        s.close()


def test_fork_is_independent() -> None:
    tool = create_sandbox_tool(tools=[add], max_calls=4)
    sb = tool.sandbox
    sb.shell("echo one > /workspace/a; mkdir -p /workspace/d; echo two > /workspace/d/b")
    sb.execute("await add({a: 1, b: 1})")
    fork = sb.fork()
    try:
        assert files_of(fork) == files_of(sb)
        assert fork.get_remaining_calls("cap:tool-call:mcp:add") == 3
        fork.shell("echo changed > /workspace/a; echo new > /workspace/new")
        fork.execute("await add({a: 1, b: 1}); await add({a: 1, b: 1})")
        sb.shell("echo original > /workspace/d/b")
        assert sb.shell("cat /workspace/a; ls /workspace") == "one\na\nd\n"
        assert fork.shell("cat /workspace/d/b") == "two\n"
        assert sb.get_remaining_calls("cap:tool-call:mcp:add") == 3
        assert fork.get_remaining_calls("cap:tool-call:mcp:add") == 1
        assert fork.execute("console.log(await add({a: 20, b: 22}))") == "42\n"
    finally:
        fork.close()
        tool.close()


def test_snapshot_while_a_run_is_in_progress_is_an_error() -> None:
    sb = Sandbox(tools=TOOLS, tool_handler=Handler())
    sb.start("console.log(await add({a: 1, b: 2}))")
    req = sb.step()
    assert req is not None and req.method == "mcp:add"
    with pytest.raises(amla_sandbox.RuntimeError, match="a run is in progress"):
        sb.snapshot()
    with pytest.raises(amla_sandbox.RuntimeError, match="a run is in progress"):
        sb.fork()
    sb.resume(3)
    assert sb.step() is None
    assert sb.result().stdout == "3\n"
    assert sb.snapshot()
    sb.close()


@pytest.mark.parametrize("bad", [b"", b"AMLASNAP", b"not a snapshot at all" * 4, "a str"])
def test_garbage_is_refused(bad: Any) -> None:
    with pytest.raises((ValueError, TypeError)):
        Sandbox.from_snapshot(bad, tools=TOOLS, tool_handler=Handler())
    with pytest.raises((ValueError, TypeError)):
        Sandbox.replay(bad, tools=TOOLS, tool_handler=Handler())


# -- record and replay ------------------------------------------------------------------------------

# Agent-style scripts whose output depends on every kind of input. Each is
# run with several values of N, fifty runs in all.
JS = "javascript"
SH = "shell"
TEMPLATES: list[tuple[str, str]] = [
    (JS, "const r = await Promise.all(Array.from({length: N}, (_, i) => lookup({k: 'key' + i}))); console.log(JSON.stringify(r.map(x => x.value)));"),
    (JS, "let t = 0; for (let i = 0; i < N; i++) t += await add({a: i, b: Math.floor(Math.random() * 100)}); console.log(t, Math.random());"),
    (JS, "const t0 = Date.now(); await new Promise(r => setTimeout(r, N)); console.log(Date.now() - t0 >= 0, t0, performance.now() > -1e9);"),
    (JS, "await fs.writeFile('/workspace/f' + N, 'v' + Math.random()); const s = await fs.stat('/workspace/f' + N); console.log(s.size, s.mtimeMs, await fs.readdir('/workspace'));"),
    (JS, "const o = await shell('echo r=$RANDOM; date +%s%N; tool add --a N --b 1'); console.log(o.stdout, o.exitCode, Date.now());"),
    (JS, "try { await lookup({k: 'missing'}); } catch (e) { console.log('caught', e.message); } console.log(await add({a: N, b: N}), new Date().toISOString());"),
    (JS, "const [a, b] = await Promise.all([add({a: N, b: 1}), lookup({k: 'k' + N})]); if (Math.random() < 2) throw new Error('after ' + a + ' ' + b.value);"),
    (SH, "echo $RANDOM $RANDOM; date; date +%N; tool add --a N --b 2; tool lookup --k x$RANDOM | jq -c ."),
    (SH, "for i in $(seq 1 N); do tool add --a $i --b $RANDOM; done | sort -n | tail -2; sleep 0.0N"),
    (SH, "node -e 'console.log(Date.now(), Math.random(), await add({a: N, b: 3}))'; echo after $RANDOM"),
    (SH, "mkdir -p /workspace/dN; seq 1 N > /workspace/dN/n; echo $RANDOM > /workspace/dN/r; ls -l /workspace/dN; find /workspace -newer /workspace/dN/n; tool lookup --k missing; echo status $?"),
]
CASES = [(lang, code.replace("N", str(n))) for n in (1, 2, 3, 5, 8) for lang, code in TEMPLATES][:50]
assert len(CASES) == 50


@pytest.mark.parametrize("language,code", CASES, ids=[f"{i:02d}" for i in range(len(CASES))])
def test_replay_is_exact_and_calls_no_handler(language: str, code: str) -> None:
    handler = Handler()
    sb = Sandbox(tools=TOOLS, tool_handler=handler, record=True)
    sb.shell("echo seed > /workspace/seed.txt")
    try:
        if language == JS:
            sb.execute(code)
        else:
            sb.shell(code)
    except amla_sandbox.RuntimeError:
        pass
    recorded = sb.last_result
    assert recorded is not None and recorded.journal
    replayed = Sandbox.replay(recorded.journal, tools=TOOLS, tool_handler=refuse_all)
    try:
        got = replayed.last_result
        assert got is not None
        assert (got.stdout, got.stderr, got.exit_code, got.error_kind) == (
            recorded.stdout, recorded.stderr, recorded.exit_code, recorded.error_kind)
        assert [c.method for c in got.tool_calls] == [c.method for c in recorded.tool_calls]
        assert files_of(replayed) == files_of(sb)
    finally:
        replayed.close()
        sb.close()


def test_replay_on_a_sandbox_in_the_start_state() -> None:
    sb = Sandbox(tools=TOOLS, tool_handler=Handler(), record="digest")
    sb.shell("echo state > /workspace/s")
    before = sb.snapshot()
    out = sb.execute("console.log(await fs.readFile('/workspace/s', 'utf8'), Math.random(), await add({a: 1, b: 1}))")
    journal = sb.last_result.journal
    # A digest-only journal cannot make its own start state.
    with pytest.raises(amla_sandbox.RuntimeError, match="keeps only the digest"):
        Sandbox.replay(journal, tools=TOOLS, tool_handler=refuse_all)
    # Another state is refused by digest.
    sb.shell("echo changed > /workspace/s")
    with pytest.raises(amla_sandbox.RuntimeError, match="not the journal's start state"):
        sb.replay(journal)
    again = Sandbox.from_snapshot(before, tools=TOOLS, tool_handler=refuse_all)
    assert again.replay(journal).stdout == out
    for s in (sb, again):
        s.close()


def test_divergence_names_the_call_recorded_and_asked() -> None:
    code = "let n = 0; for (;;) { try { await add({a: n, b: 1}); n++; } catch (e) { break; } } console.log(n);"
    sb = create_sandbox_tool(tools=[add], max_calls=3, record=True).sandbox
    assert sb.execute(code) == "3\n"
    journal = sb.last_result.journal
    # With a smaller budget call 3 is refused where it was allowed (a
    # restore never raises a budget, so a bigger one cannot happen).
    with pytest.raises(ReplayDivergenceError) as info:
        Sandbox.replay(journal, tools=[tool_from_function(add)], tool_handler=refuse_all,
                       capabilities=[ToolCallCap(method_pattern="mcp:add", max_calls=2)])
    err = info.value
    assert err.index == 3
    assert 'mcp:add {"a":2,"b":1}' in err.recorded and "allowed" in err.recorded
    assert 'mcp:add {"a":2,"b":1}' in err.asked and "refused" in err.asked
    assert "tool call 3" in str(err)
    assert isinstance(err, amla_sandbox.RuntimeError)
    # The same budget replays exactly.
    same = Sandbox.replay(journal, tools=[tool_from_function(add)], tool_handler=refuse_all,
                          capabilities=[ToolCallCap(method_pattern="mcp:add", max_calls=3)])
    assert same.last_result.stdout == "3\n"
    # A capability that now needs approval diverges too.
    with pytest.raises(ReplayDivergenceError, match="approval"):
        Sandbox.replay(journal, tools=[tool_from_function(add)], tool_handler=refuse_all,
                       approval_handler=lambda n, p: True,
                       capabilities=[ToolCallCap(method_pattern="mcp:add", max_calls=3, requires_approval=True)])
    sb.close()
    same.close()


def test_a_stopped_run_replays_to_its_stop_and_then_live_goes_on() -> None:
    handler = Handler()
    sb = Sandbox(tools=TOOLS, tool_handler=handler, record=True, timeout=0.3)
    code = "let i = 0; for (;;) { await add({a: i++, b: 0}); await new Promise(r => setTimeout(r, 20)); }"
    with pytest.raises(amla_sandbox.TimeoutError):
        sb.execute(code)
    journal, made = sb.last_result.journal, len(handler.calls)
    assert made > 0
    replayed = Sandbox.replay(journal, tools=TOOLS, tool_handler=refuse_all, timeout=0.3)
    assert replayed.last_result.error_kind == "timeout"
    assert len(replayed.last_result.tool_calls) == len(sb.last_result.tool_calls)
    live = Handler()
    Sandbox.replay(journal, tools=TOOLS, tool_handler=live, timeout=0.3, then="live").close()
    assert live.calls and live.calls[0] == ("add", {"a": made, "b": 0})  # the first call after the journal
    for s in (sb, replayed):
        s.close()


def test_replay_needs_the_recorded_limits() -> None:
    sb = Sandbox(tools=TOOLS, tool_handler=Handler(), record=True, memory_limit=64 << 20)
    sb.execute("console.log(1)")
    journal = sb.last_result.journal
    other = Sandbox(tools=TOOLS, tool_handler=Handler(), memory_limit=128 << 20)
    with pytest.raises(amla_sandbox.RuntimeError, match="memory_limit"):
        other.replay(journal)
    # The class method takes them from the journal.
    Sandbox.replay(journal, tools=TOOLS, tool_handler=refuse_all).close()
    sb.close()
    other.close()


# -- approval -----------------------------------------------------------------------------------------

APPROVAL_CODE = """
const [balance, info] = await Promise.all([add({a: 50, b: 50}), lookup({k: "acct"})]);
const receipt = await pay({to: "bob", amount: 5});
console.log(balance, info.value, receipt.ok, await add({a: 1, b: 1}));
"""


def test_approval_handler_decides() -> None:
    for decision, paid in ((True, True), (False, False)):
        handler, asked = Handler(), []

        def approver(name: str, params: dict[str, Any]) -> bool:
            asked.append((name, params))
            return decision

        sb = Sandbox(tools=TOOLS, tool_handler=handler, approval_handler=approver,
                     capabilities=[ToolCallCap(method_pattern="mcp:pay", requires_approval=True),
                                   ToolCallCap(method_pattern="mcp:add"), ToolCallCap(method_pattern="mcp:lookup")])
        out = sb.execute(APPROVAL_CODE)
        if paid:
            assert out == "100 4 true 2\n"
        else:
            assert out == "" and sb.last_result.exit_code == 1
            assert "permission_denied: Tool call 'mcp:pay' was not approved" in sb.last_stderr
        assert asked == [("pay", {"to": "bob", "amount": 5})]
        assert (("pay", {"to": "bob", "amount": 5}) in handler.calls) == paid
        sb.close()


def test_async_and_failing_approval_handlers() -> None:
    async def approver(name: str, params: dict[str, Any]) -> bool:
        await asyncio.sleep(0)
        return params["amount"] < 10

    def broken(name: str, params: dict[str, Any]) -> bool:
        raise ValueError("the approver crashed")

    tool = create_sandbox_tool(tools=[add, lookup, pay], require_approval=["pay"], approval_handler=approver)
    assert tool.run(APPROVAL_CODE, language="javascript") == "100 4 true 2\n"
    assert asyncio.run(tool.run_async(APPROVAL_CODE, language="javascript")) == "100 4 true 2\n"
    tool.close()
    tool = create_sandbox_tool(tools=[add, lookup, pay], require_approval=["pay"], approval_handler=broken)
    assert "was not approved" in tool.run(APPROVAL_CODE, language="javascript")
    tool.close()


def test_require_approval_names_a_tool() -> None:
    with pytest.raises(ValueError, match="require_approval names no tool 'pya'"):
        create_sandbox_tool(tools=[add, pay], require_approval=["pya"])
    with pytest.raises(TypeError):
        create_sandbox_tool(tools=[add, pay], require_approval="pay")


def test_approval_pauses_and_resumes_in_process() -> None:
    handler = Handler()
    sb = Sandbox(tools=TOOLS, tool_handler=handler,
                 capabilities=[ToolCallCap(method_pattern="mcp:pay", requires_approval=True, max_calls=1),
                               ToolCallCap(method_pattern="mcp:add"), ToolCallCap(method_pattern="mcp:lookup")])
    kwargs = dict(tools=TOOLS, capabilities=sb.capabilities)
    for approve, out in ((True, "100 4 true 2\n"), (False, "")):
        # A token is redeemed once: each decision gets a run of its own.
        handler.calls.clear()
        with pytest.raises(ApprovalRequired) as info:
            Sandbox(tools=TOOLS, tool_handler=handler, capabilities=sb.capabilities).execute(APPROVAL_CODE)
        pending = info.value
        assert (pending.method, pending.params) == ("pay", {"to": "bob", "amount": 5})
        assert sorted(c[0] for c in handler.calls) == ["add", "lookup"]
        later = Handler()
        resumed = Sandbox.resume_approval(pending.token, approve=approve, tool_handler=later, **kwargs)
        assert resumed.last_result.stdout == out
        if approve:
            assert later.calls == [("pay", {"to": "bob", "amount": 5}), ("add", {"a": 1, "b": 1})]
        else:
            assert later.calls == [] and "was not approved" in resumed.last_result.stderr
        # The budget the paused call spent is spent in the resumed run too.
        assert resumed.get_remaining_calls("cap:tool-call:mcp:pay") == 0
        resumed.close()
        with pytest.raises(ValueError, match="already redeemed"):
            Sandbox.resume_approval(pending.token, approve=True, tool_handler=later, **kwargs)
    with pytest.raises(ValueError):
        Sandbox.resume_approval(sb.snapshot(), approve=True, **kwargs)
    sb.close()


def test_approval_resumes_in_a_fresh_process_from_the_token_alone(tmp_path: Path) -> None:
    """The run pauses here; a new `python` process resumes it from the token
    file alone. The tool writes every call to a file: no call made before
    the pause happens again."""
    effects = tmp_path / "effects.log"
    script = tmp_path / "agent.py"
    script.write_text(textwrap.dedent(f"""
        import json, sys
        from pathlib import Path
        from amla_sandbox import ApprovalRequired, create_sandbox_tool

        EFFECTS = Path({str(effects)!r})

        def charge(account: str, cents: int) -> dict:
            \"\"\"Charge an account (a side effect).\"\"\"
            with EFFECTS.open("a") as f:
                f.write(json.dumps(["charge", account, cents]) + "\\n")
            return {{"charged": cents}}

        def refund(account: str, cents: int) -> dict:
            \"\"\"Refund an account (needs a human).\"\"\"
            with EFFECTS.open("a") as f:
                f.write(json.dumps(["refund", account, cents]) + "\\n")
            return {{"refunded": cents}}

        CODE = '''
        const a = await charge({{account: "a", cents: 100}});
        await fs.writeFile("/workspace/state.json", JSON.stringify({{a, at: Date.now(), r: Math.random()}}));
        const b = await charge({{account: "b", cents: 200}});
        const r = await refund({{account: "a", cents: 100}});
        console.log(a.charged, b.charged, r.refunded, await fs.readFile("/workspace/state.json", "utf8"));
        '''

        tool = create_sandbox_tool(tools=[charge, refund], require_approval=["refund"])
        if sys.argv[1] == "start":
            try:
                tool.run(CODE, language="javascript")
            except ApprovalRequired as e:
                Path(sys.argv[2]).write_bytes(e.token)
                print("paused at", e.method, json.dumps(e.params))
        else:
            print(tool.resume_approval(Path(sys.argv[2]).read_bytes(), approve=sys.argv[1] == "approve"), end="")
    """))
    token = tmp_path / "token.bin"
    first = subprocess.run([sys.executable, str(script), "start", str(token)], capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == 'paused at refund {"account": "a", "cents": 100}'
    assert effects.read_text().splitlines() == ['["charge", "a", 100]', '["charge", "b", 200]']
    resumed = subprocess.run([sys.executable, str(script), "approve", str(token)], capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.startswith("100 200 100 {")
    # The two charges were not made again; the refund was made once.
    assert effects.read_text().splitlines() == ['["charge", "a", 100]', '["charge", "b", 200]', '["refund", "a", 100]']
    # The token was redeemed: resuming it again, in any process, is refused.
    again = subprocess.run([sys.executable, str(script), "approve", str(token)], capture_output=True, text=True, timeout=120)
    assert again.returncode != 0 and "already redeemed" in again.stderr
    assert len(effects.read_text().splitlines()) == 3
    # A new pause, refused: the script gets the permission error, the refund is not made.
    second = subprocess.run([sys.executable, str(script), "start", str(token)], capture_output=True, text=True, timeout=120)
    assert second.returncode == 0, second.stderr
    refused = subprocess.run([sys.executable, str(script), "refuse", str(token)], capture_output=True, text=True, timeout=120)
    assert refused.returncode == 0, refused.stderr
    assert "was not approved" in refused.stdout
    assert [json.loads(line)[0] for line in effects.read_text().splitlines()] == ["charge", "charge", "refund", "charge", "charge"]


def test_exceptions_are_attributes_and_all_is_unchanged() -> None:
    assert amla_sandbox.ApprovalRequired is ApprovalRequired
    assert amla_sandbox.ReplayDivergenceError is ReplayDivergenceError
    assert "ApprovalRequired" not in amla_sandbox.__all__ and "ReplayDivergenceError" not in amla_sandbox.__all__
    assert issubclass(ReplayDivergenceError, amla_sandbox.RuntimeError)
    cap = ToolCallCap(method_pattern="mcp:pay", requires_approval=True)
    assert cap.to_dict()["requires_approval"] is True
    assert ToolCallCap.from_dict(cap.to_dict()) == cap
    assert cap != ToolCallCap(method_pattern="mcp:pay")
    # Approval narrows: a capability without it is not a subset of one with it.
    assert not ToolCallCap(method_pattern="mcp:pay").is_subset_of(cap)
    assert cap.is_subset_of(ToolCallCap(method_pattern="mcp:pay"))
    with pytest.raises(ValueError, match="record must be"):
        Sandbox(record="sometimes")
    json.dumps(cap.to_dict())


def test_async_runs_record_and_replay() -> None:
    async def slow_add(a: int, b: int) -> int:
        """Add, slowly and out of order."""
        await asyncio.sleep(0.01 * (5 - a))
        return a + b

    async def main() -> tuple[str, bytes]:
        tool = create_sandbox_tool(tools=[slow_add], record=True)
        out = await tool.sandbox.execute_async(
            "const r = await Promise.all([0, 1, 2, 3, 4].map(a => slow_add({a, b: 1}))); console.log(r, Date.now())"
        )
        journal = tool.sandbox.last_result.journal
        tool.close()
        return out, journal

    out, journal = asyncio.run(main())
    assert out.startswith("[1,2,3,4,5] ")
    replayed = Sandbox.replay(journal, tools=[tool_from_function(slow_add)], tool_handler=refuse_all,
                              capabilities=[ToolCallCap(method_pattern="mcp:slow_add", max_calls=100)])
    assert replayed.last_result.stdout == out
    replayed.close()


def test_snapshots_and_journals_cross_the_boundary_without_leaking_handles() -> None:
    from amla_sandbox._core import _pycore

    sb = Sandbox(tools=TOOLS, tool_handler=Handler(), record=True)
    sb.execute("await fs.writeFile('/workspace/x', 'y'); console.log(await add({a: 1, b: 2}))")
    before = _pycore.NumHandles()
    for _ in range(20):
        data = sb.snapshot()
        Sandbox.from_snapshot(data, tools=TOOLS, tool_handler=Handler()).close()
        sb.execute("console.log(await add({a: 1, b: 2}))")
        Sandbox.replay(sb.last_result.journal, tools=TOOLS, tool_handler=refuse_all).close()
        with pytest.raises(ValueError):
            Sandbox.from_snapshot(data[:-1], tools=TOOLS, tool_handler=Handler())
    assert _pycore.NumHandles() == before
    sb.close()


def test_the_public_loop_records_and_asks_for_approval() -> None:
    approvals: list[str] = []

    def approver(name: str, params: dict[str, Any]) -> bool:
        approvals.append(name)
        return True

    sb = Sandbox(tools=TOOLS, record=True, approval_handler=approver,
                 capabilities=[ToolCallCap(method_pattern="mcp:pay", requires_approval=True),
                               ToolCallCap(method_pattern="mcp:add")])
    sb.start("const r = await pay({to: 'x', amount: 1}); console.log(r.ok, await add({a: 1, b: 1}))")
    seen = []
    while sb.has_work():
        req = sb.step()
        assert req is not None
        seen.append(req.method)
        sb.resume(FUNCS[req.method.removeprefix("mcp:")](**req.params))
    result = sb.result()
    assert result is not None and result.stdout == "true 2\n"
    assert approvals == ["pay"] and seen == ["mcp:pay", "mcp:add"]
    replayed = Sandbox.replay(result.journal, tools=TOOLS, tool_handler=refuse_all, capabilities=sb.capabilities)
    assert replayed.last_result.stdout == "true 2\n"
    for s in (sb, replayed):
        s.close()


def _rss() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise OSError("no VmRSS")


def test_the_durable_run_exports_refuse_a_replaced_run_and_do_not_grow_the_process() -> None:
    # The per-run durable exports take the run's id like the others
    # (tests/test_boundary.py) and return a status or (value, error), never a
    # bare error, whose C string gopy would leak on every call.
    from amla_sandbox import _core
    from amla_sandbox.runtime.runtime import StaleRunError

    sb = Sandbox(tools=TOOLS, tool_handler=Handler(), record=True)
    sb.execute("console.log(await add({a: 1, b: 2}))")
    rt = sb._runtime
    assert rt is not None and rt._run is not None
    handle, old = rt._handle, rt._run.id
    journal = _core.sandbox_journal(handle, old)
    assert journal == sb.last_result.journal
    sb.execute("console.log(1)")
    assert rt._run is not None and rt._run.id != old
    for call in (
        lambda: _core.sandbox_approve(handle, old, 1, True),
        lambda: _core.sandbox_journal(handle, old),
        lambda: _core.sandbox_durable_outcome(handle, old),
    ):
        with pytest.raises(StaleRunError, match="is not this sandbox's current run"):
            call()
    run = rt._run.id

    def rounds(n: int) -> None:
        for _ in range(n):
            _core.sandbox_durable_outcome(handle, run)
            _core.sandbox_journal(handle, run)
            assert _core._pycore.pycore_SandboxApprove(handle, old, 1, True) != ""
            assert _core._pycore.pycore_SandboxRestore(handle, 0) != ""  # no such byte slice

    rounds(20_000)  # the allocator's and Go's first growth
    before = _rss()
    rounds(100_000)
    grown = _rss() - before
    assert grown < 6 << 20, f"100,000 rounds of the durable exports grew RSS by {grown / 2**20:.1f} MiB"
    sb.close()


# -- Python scripts (the Python guest, issue 17) ----------------------------------------------------
#
# Durable sessions do not depend on the language: a journal names its
# language and the core replays whichever guest ran.

PY_CASES = [
    "print(add(a=1, b=2)); import random, time; print(random.random(), random.getrandbits(64), time.time(), time.monotonic())",
    "import os; print(os.urandom(8).hex()); open('/workspace/p.txt', 'w').write(str(os.urandom(4))); print(sorted(os.listdir('/workspace')), os.stat('/workspace/p.txt').st_mtime_ns)",
    "import asyncio\nasync def main():\n    r = await asyncio.gather(*[lookup(k='k' + str(i)) for i in range(4)])\n    print([x['value'] for x in r])\nasyncio.run(main())",
    "try:\n    lookup(k='missing')\nexcept Exception as e:\n    print('caught', e)\nimport datetime; print(datetime.datetime.now().isoformat()); raise SystemExit(3)",
    "import time; t = time.time(); time.sleep(0.01); print(time.time() - t >= 0); import subprocess; print(shell('echo $RANDOM; date +%N'))",
]


@pytest.mark.parametrize("code", PY_CASES, ids=[f"py{i}" for i in range(len(PY_CASES))])
def test_python_runs_record_and_replay_exactly(code: str) -> None:
    handler = Handler()
    sb = Sandbox(tools=TOOLS, tool_handler=handler, record=True)
    try:
        sb.python(code)  # type: ignore[attr-defined]
    except amla_sandbox.RuntimeError:
        pass
    recorded = sb.last_result
    assert recorded is not None and recorded.journal and recorded.stdout
    replayed = Sandbox.replay(recorded.journal, tools=TOOLS, tool_handler=refuse_all)
    try:
        got = replayed.last_result
        assert (got.stdout, got.stderr, got.exit_code, got.error_kind) == (
            recorded.stdout, recorded.stderr, recorded.exit_code, recorded.error_kind)
        assert files_of(replayed) == files_of(sb)
    finally:
        replayed.close()
        sb.close()


def test_python_snapshot_fork_and_approval() -> None:
    caps = [ToolCallCap(method_pattern="mcp:pay", requires_approval=True), ToolCallCap(method_pattern="mcp:add")]
    handler = Handler()
    sb = Sandbox(tools=TOOLS, tool_handler=handler, capabilities=caps)
    sb.python("open('/workspace/a.txt', 'w').write('from python')")  # type: ignore[attr-defined]
    child = sb.fork()
    again = Sandbox.from_snapshot(sb.snapshot(), tools=TOOLS, tool_handler=handler, capabilities=caps)
    for s in (child, again):
        assert s.python("print(open('/workspace/a.txt').read())") == "from python\n"  # type: ignore[attr-defined]
    with pytest.raises(ApprovalRequired) as info:
        sb.python("print(add(a=1, b=1)); print(pay(to='bob', amount=5)); print(add(a=2, b=2))")  # type: ignore[attr-defined]
    assert (info.value.method, info.value.params) == ("pay", {"to": "bob", "amount": 5})
    assert handler.calls == [("add", {"a": 1, "b": 1})]
    later = Handler()
    resumed = Sandbox.resume_approval(info.value.token, approve=True, tools=TOOLS, tool_handler=later, capabilities=caps)
    assert resumed.last_result.stdout == "2\n{'ok': True, 'to': 'bob', 'amount': 5}\n4\n"
    assert later.calls == [("pay", {"to": "bob", "amount": 5}), ("add", {"a": 2, "b": 2})]
    for s in (sb, child, again, resumed):
        s.close()
