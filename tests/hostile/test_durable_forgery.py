"""Forged and replayed durable artifacts (issue 24, items 1-4, 6 and 12).

Whoever holds an approval token, a journal or a snapshot is not trusted:
they may edit it and recompute every digest the format documents, or hand
it back more than once. The artifacts carry an HMAC under the application's
durable key, a token is redeemed once, a replay decides nothing, and a
package's contents are part of what a journal records.

The forgeries here work on the bytes as an attacker would, from the layout
in docs/durable.md: they keep the token's own format version and end it in
the plain SHA-256 a keyless writer can compute.
"""

from __future__ import annotations

import hashlib
import os
import zlib
from pathlib import Path
from typing import Any

import pytest

from _hostile import run_isolated

from amla_sandbox import ApprovalRequired, ReplayDivergenceError, Sandbox, ToolCallCap, create_sandbox_tool
from amla_sandbox.tools import tool_from_function

CODE = """
const balance = await get_balance({account: "me"});
const receipt = await transfer_money({to: "bob", amount: 5});
console.log(balance, receipt.to, receipt.amount);
"""


def uvarint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def read_uvarint(b: bytes, off: int) -> tuple[int, int]:
    n = shift = 0
    while True:
        c = b[off]
        off += 1
        n |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return n, off


def split_journal(j: bytes) -> tuple[bytes, bytes, bytes, bytes]:
    """(magic and version, meta, snapshot, inflated events section)."""
    off = 9
    n, off = read_uvarint(j, off)
    meta, off = j[off : off + n], off + n
    n, off = read_uvarint(j, off)
    snap, off = j[off : off + n], off + n
    raw, off = read_uvarint(j, off)
    n, off = read_uvarint(j, off)
    events = zlib.decompress(j[off : off + n], wbits=-15)
    assert len(events) == raw and off + n + 32 == len(j)
    return j[:9], meta, snap, events


def join_journal(head: bytes, meta: bytes, snap: bytes, events: bytes, declared: int | None = None) -> bytes:
    """A journal with the trailer a writer without the key can make: the
    SHA-256 of every byte before it."""
    z = zlib.compressobj(9, wbits=-15)
    packed = z.compress(events) + z.flush()
    body = head + uvarint(len(meta)) + meta + uvarint(len(snap)) + snap
    body += uvarint(len(events) if declared is None else declared) + uvarint(len(packed)) + packed
    return body + hashlib.sha256(body).digest()


def meta_code(meta: bytes) -> str:
    n, off = read_uvarint(meta, 0)  # language
    n, off = read_uvarint(meta, off + n)  # code
    return meta[off : off + n].decode()


class Bank:
    """The application's tools; every transfer that runs is in `transfers`."""

    def __init__(self) -> None:
        self.transfers: list[dict[str, Any]] = []
        self.asked: list[tuple[str, dict[str, Any]]] = []

        def get_balance(account: str) -> int:
            """The balance of an account."""
            return 100

        def transfer_money(to: str, amount: int) -> dict[str, Any]:
            """Move money to someone."""
            self.transfers.append({"to": to, "amount": amount})
            return {"to": to, "amount": amount}

        self.funcs = [get_balance, transfer_money]
        self.tools = [tool_from_function(f) for f in self.funcs]

    def handler(self, name: str, params: dict[str, Any]) -> Any:
        return {f.__name__: f for f in self.funcs}[name](**params)

    def approver(self, name: str, params: dict[str, Any]) -> bool:
        self.asked.append((name, params))
        return True

    def caps(self, approval: bool, max_calls: int | None = None) -> list[ToolCallCap]:
        return [
            ToolCallCap(method_pattern="mcp:transfer_money", requires_approval=approval, max_calls=max_calls),
            ToolCallCap(method_pattern="mcp:get_balance"),
        ]

    def pause(self, max_calls: int | None = None) -> ApprovalRequired:
        """Run CODE until it waits for approval of the transfer."""
        sb = Sandbox(tools=self.tools, tool_handler=self.handler, capabilities=self.caps(True, max_calls))
        try:
            with pytest.raises(ApprovalRequired) as info:
                sb.execute(CODE)
        finally:
            sb.close()
        assert (info.value.method, info.value.params) == ("transfer_money", {"to": "bob", "amount": 5})
        return info.value


def test_an_edited_token_is_refused_before_anything_in_it_is_used() -> None:
    """Item 1: the approver saw transfer_money(bob, 5); the token is edited
    to transfer 9 to eve (the pending call, the script that makes it and the
    process's code digest), and its SHA-256 trailer recomputed."""
    bank = Bank()
    token = bank.pause().token
    head, meta, snap, events = split_journal(token)
    assert b'{"to":"bob","amount":5}' in meta
    code = meta_code(meta)
    forged_code = code.replace('"bob"', '"eve"').replace("amount: 5", "amount: 9")
    forged_meta = meta.replace(code.encode(), forged_code.encode()).replace(
        b'{"to":"bob","amount":5}', b'{"to":"eve","amount":9}'
    )
    old_digest = hashlib.sha256((code + "\0").encode()).digest()[:8]
    assert events.count(old_digest) == 1
    forged_events = events.replace(old_digest, hashlib.sha256((forged_code + "\0").encode()).digest()[:8])
    forged = join_journal(head, forged_meta, snap, forged_events)
    with pytest.raises(ValueError, match="authentication failed"):
        Sandbox.resume_approval(forged, approve=True, tools=bank.tools, tool_handler=bank.handler,
                                capabilities=bank.caps(True))
    assert bank.transfers == []
    # A journal under another application's key is refused the same way.
    with pytest.raises(ValueError, match="authentication failed"):
        Sandbox.resume_approval(token, approve=True, tools=bank.tools, tool_handler=bank.handler,
                                durable_key=b"another application's durable key")
    assert bank.transfers == []
    # The real token was not spent by the refusals: it runs the call the approver saw.
    resumed = Sandbox.resume_approval(token, approve=True, tools=bank.tools, tool_handler=bank.handler,
                                      capabilities=bank.caps(True))
    assert resumed.last_result.stdout == "100 bob 5\n"
    assert bank.transfers == [{"to": "bob", "amount": 5}]
    resumed.close()


def test_replaying_a_token_calls_no_tool_and_asks_no_approver() -> None:
    """Item 2: Sandbox.replay of a paused run's token, on a sandbox with an
    approval_handler, replays to the pending call and stops there."""
    bank = Bank()
    token = bank.pause().token
    sb = Sandbox.replay(token, tools=bank.tools, tool_handler=bank.handler, capabilities=bank.caps(True),
                        approval_handler=bank.approver)
    try:
        assert bank.asked == [] and bank.transfers == []
        assert sb.last_result.error_kind == "approval_required"
        assert sb.last_result.stdout == ""
    finally:
        sb.close()
    # then="live" does not decide it either: only resume_approval does.
    sb = Sandbox.replay(token, then="live", tools=bank.tools, tool_handler=bank.handler,
                        capabilities=bank.caps(True), approval_handler=bank.approver)
    sb.close()
    assert bank.asked == [] and bank.transfers == []


def test_a_token_is_redeemed_once() -> None:
    """Item 3: three resumes of one token under max_calls=1 run the call
    once; the others are refused. The redeem= hook decides for
    applications that resume on several machines."""
    bank = Bank()
    token = bank.pause(max_calls=1).token
    kwargs: dict[str, Any] = dict(tools=bank.tools, tool_handler=bank.handler, capabilities=bank.caps(True, 1))
    outcomes = []
    for _ in range(3):
        try:
            Sandbox.resume_approval(token, approve=True, **kwargs).close()
            outcomes.append("ran")
        except ValueError as e:
            assert "already redeemed" in str(e)
            outcomes.append("refused")
    assert outcomes == ["ran", "refused", "refused"]
    assert bank.transfers == [{"to": "bob", "amount": 5}]
    # An approve=False after the approval is refused too: the token is spent.
    with pytest.raises(ValueError, match="already redeemed"):
        Sandbox.resume_approval(token, approve=False, **kwargs)

    shared: set[str] = set()
    seen: list[str] = []

    def redeem(token_id: str) -> bool:
        seen.append(token_id)
        if token_id in shared:
            return False
        shared.add(token_id)
        return True

    token = bank.pause().token
    Sandbox.resume_approval(token, approve=True, redeem=redeem, **kwargs).close()
    with pytest.raises(ValueError, match="already redeemed"):
        Sandbox.resume_approval(token, approve=True, redeem=redeem, **kwargs)
    assert len(seen) == 2 and seen[0] == seen[1] and len(seen[0]) == 32
    assert len(bank.transfers) == 2


def test_a_token_resumes_from_itself_in_a_fresh_process(tmp_path: Path) -> None:
    """Item 4: a fresh process resumes with its tools and handler only (no
    require_approval): approve runs the call, refuse is a permission error
    in the script. Capabilities that no longer allow the call refuse it."""
    tokens = {}
    for name in ("approve", "refuse", "narrowed"):
        tool = create_sandbox_tool(tools=Bank().funcs, require_approval=["transfer_money"])
        with pytest.raises(ApprovalRequired) as info:
            tool.run(CODE, language="javascript")
        tool.close()
        tokens[name] = info.value.token
        (tmp_path / name).write_bytes(info.value.token)
    run = run_isolated(
        f"""
        from pathlib import Path
        from amla_sandbox import create_sandbox_tool
        transfers = []
        def get_balance(account: str) -> int:
            return 100
        def transfer_money(to: str, amount: int) -> dict:
            transfers.append([to, amount])
            return {{"to": to, "amount": amount}}
        for name in ("approve", "refuse"):
            tool = create_sandbox_tool(tools=[get_balance, transfer_money])
            token = Path({str(tmp_path)!r}, name).read_bytes()
            r = attempt(lambda: tool.resume_approval(token, approve=name == "approve"))
            emit(**{{name: r, name + "_transfers": list(transfers)}})
        tool = create_sandbox_tool(tools=[get_balance, transfer_money], max_calls={{"transfer_money": 0}})
        token = Path({str(tmp_path)!r}, "narrowed").read_bytes()
        emit(narrowed=attempt(lambda: tool.resume_approval(token, approve=True)), narrowed_transfers=list(transfers))
        """,
        180,
    )
    assert run["approve"]["ok"] and run["approve"]["value"].startswith("100 bob 5"), run["approve"]
    assert run["approve_transfers"] == [["bob", 5]]
    assert "was not approved" in run["refuse"]["value"], run["refuse"]
    assert run["refuse_transfers"] == [["bob", 5]]
    assert run["narrowed"]["type"] == "amla_sandbox.ReplayDivergenceError", run["narrowed"]
    assert run["narrowed_transfers"] == [["bob", 5]]


def test_a_forged_journal_declaring_huge_events_costs_the_host_little() -> None:
    """Item 6: 261 KB that inflate to 256 MiB of events, with a recomputed
    SHA-256 trailer, are refused before anything is inflated."""
    run = run_isolated(
        """
        import hashlib, zlib
        sb = Sandbox(record=True)
        sb.execute("console.log(1)")
        j = sb.last_result.journal
        sb.close()
        off = 9
        for _ in range(2):  # meta, snapshot
            n, shift = 0, 0
            while True:
                c = j[off]; off += 1
                n |= (c & 0x7F) << shift; shift += 7
                if c < 0x80:
                    break
            off += n
        def uvarint(n):
            out = bytearray()
            while True:
                b, n = n & 0x7F, n >> 7
                out.append(b | 0x80 if n else b)
                if not n:
                    return bytes(out)
        raw = 256 << 20
        z = zlib.compressobj(9, wbits=-15)
        packed = z.compress(bytes(raw)) + z.flush()
        forged = j[:off] + uvarint(raw) + uvarint(len(packed)) + packed
        forged += hashlib.sha256(forged).digest()
        del packed
        emit(size=len(forged))
        for name, fn in (("replay", lambda: Sandbox.replay(forged)),
                         ("resume", lambda: Sandbox.resume_approval(forged, approve=True))):
            r = measure_rss(fn)
            emit(**{name: r})
        """,
        180,
    )
    assert run["size"] < 300_000
    for name in ("replay", "resume"):
        r = run[name]
        grew = r["rss_growth"]
        print(f"{name}: {run['size']}-byte forged journal, host peak RSS growth {grew / (1 << 20):.1f} MiB")
        assert grew < 32 << 20, f"{name}: the host grew by {grew >> 20} MiB for a {run['size']}-byte journal"
        assert r["type"] == "ValueError" and "authentication failed" in r["msg"], r


def test_python_packages_are_keyed_by_content_and_replays_check_them(tmp_path: Path) -> None:
    """Item 12: two versions of a package with equal sizes and times are two
    cache entries, and a replay given other contents is a divergence that
    names the package."""
    versions = []
    for v in (1, 2):
        pkg = tmp_path / f"v{v}" / "mypkg"
        pkg.mkdir(parents=True)
        (pkg / "__init__.py").write_text(f"VALUE = {v}\n")
        os.utime(pkg / "__init__.py", ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
        versions.append(pkg)
    with Sandbox(python_packages=[versions[0]], record=True) as sb:
        assert sb.python("import mypkg\nprint(mypkg.VALUE)") == "1\n"
        journal = sb.last_result.journal
    with Sandbox(python_packages=[versions[1]]) as sb:
        assert sb.python("import mypkg\nprint(mypkg.VALUE)") == "2\n"
    replayed = Sandbox.replay(journal, python_packages=[versions[0]])
    assert replayed.last_result.stdout == "1\n"
    replayed.close()
    with pytest.raises(ReplayDivergenceError, match="mypkg") as info:
        Sandbox.replay(journal, python_packages=[versions[1]])
    assert "mypkg" in info.value.recorded and "mypkg" in info.value.asked
    with pytest.raises(ReplayDivergenceError, match="mypkg"):
        Sandbox.replay(journal)
