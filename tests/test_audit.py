"""Audit entries and the collector (amla_sandbox.audit)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from amla_sandbox.audit import AuditCollector, AuditConfig, AuditEntry

NOON = datetime(2025, 1, 1, 12, 0, 0, tzinfo=timezone.utc)


def entry(type: str = "tool_call", at: datetime = NOON, **data: object) -> AuditEntry:
    return AuditEntry(type=type, session_id="s1", timestamp=at, data=dict(data))


class FakeRuntime:
    def __init__(self, text: str) -> None:
        self.text = text
        self.drains = 0

    def drain_audit_jsonl(self) -> str:
        self.drains += 1
        text, self.text = self.text, ""
        return text


# -- AuditConfig ----------------------------------------------------------------


def test_config_defaults() -> None:
    c = AuditConfig()
    assert c.output_path is None
    assert c.agent_id is None
    assert c.trace_id is None
    assert c.capture_binary is False
    assert c.binary_dir is None
    assert c.custom_enricher is None


def test_config_options_stored(tmp_path: Path) -> None:
    def enrich(d: dict) -> dict:
        return {**d, "env": "test"}

    c = AuditConfig(
        output_path=tmp_path / "a.jsonl",
        agent_id="agent-1",
        trace_id="trace-1",
        capture_binary=True,
        binary_dir=tmp_path / "bin",
        custom_enricher=enrich,
    )
    assert c.output_path == tmp_path / "a.jsonl"
    assert (c.agent_id, c.trace_id, c.capture_binary) == ("agent-1", "trace-1", True)
    assert c.binary_dir == tmp_path / "bin"
    assert c.custom_enricher is enrich


# -- AuditEntry -----------------------------------------------------------------


def test_entry_fields_and_defaults() -> None:
    e = entry(method="mcp:add")
    assert (e.type, e.session_id, e.timestamp, e.data) == ("tool_call", "s1", NOON, {"method": "mcp:add"})
    assert e.agent_id is None and e.trace_id is None and e.turn_id is None and e.binary_path is None


def test_entry_to_dict_minimal() -> None:
    assert entry(method="mcp:add", ok=True).to_dict() == {
        "type": "tool_call",
        "session_id": "s1",
        "timestamp": "2025-01-01T12:00:00+00:00",
        "method": "mcp:add",
        "ok": True,
    }


def test_entry_to_dict_with_ids() -> None:
    e = AuditEntry(
        type="command_exit",
        session_id="s",
        timestamp=NOON,
        data={"exit_code": 0},
        agent_id="a",
        trace_id="t",
        turn_id=0,
        binary_path=Path("/tmp/x.bin"),
    )
    d = e.to_dict()
    assert d["agent_id"] == "a"
    assert d["trace_id"] == "t"
    assert d["turn_id"] == 0  # kept although falsy
    assert d["binary_path"] == "/tmp/x.bin"
    assert d["exit_code"] == 0


def test_entry_to_dict_omits_unset_and_data_overrides() -> None:
    d = AuditEntry(type="x", session_id="s", timestamp=NOON, data={"type": "overridden"}, agent_id="").to_dict()
    assert d["type"] == "overridden"
    for key in ("agent_id", "trace_id", "turn_id", "binary_path"):
        assert key not in d


def test_entry_to_jsonl() -> None:
    line = entry(method="mcp:add", n=1).to_jsonl()
    assert "\n" not in line
    parsed = json.loads(line)
    assert parsed["type"] == "tool_call"
    assert parsed["session_id"] == "s1"
    assert parsed["method"] == "mcp:add"
    assert line == json.dumps(parsed)  # default separators


# -- AuditCollector -------------------------------------------------------------


def test_collector_empty() -> None:
    c = AuditCollector()
    assert len(c) == 0
    assert c.turn_id == 0
    assert c.entries == []
    assert list(c.get_entries()) == []
    assert c._file is None
    assert isinstance(c._config, AuditConfig)


def test_new_turn_and_clear() -> None:
    c = AuditCollector()
    c.new_turn()
    assert c.turn_id == 1
    c.new_turn()
    assert c.turn_id == 2
    c._entries.append(entry())
    c.add_entry(entry())
    assert len(c) == 2
    c.clear()
    assert len(c) == 0
    assert c.entries == []


def test_entries_preserve_order_and_private_list_is_live() -> None:
    c = AuditCollector()
    a, b, d = entry("a"), entry("b"), entry("c")
    c.add_entry(a)
    c._entries.append(b)
    c.add_entries([d])
    assert c.entries == [a, b, d]
    assert c.entries is c._entries
    assert list(c.get_entries()) == [a, b, d]


def test_get_entries_by_type_and_since() -> None:
    c = AuditCollector()
    ten, twelve, fourteen = (NOON.replace(hour=h) for h in (10, 12, 14))
    e10, e12, e14 = entry("tool_call", ten), entry("command_exit", twelve), entry("tool_call", fourteen)
    c.add_entries([e10, e12, e14])
    assert len(list(c.get_entries("tool_call"))) == 2
    assert len(list(c.get_entries("command_exit"))) == 1
    assert list(c.get_entries(since=NOON.replace(hour=11))) == [e12, e14]
    assert list(c.get_entries("tool_call", since=NOON.replace(hour=11))) == [e14]
    assert list(c.get_entries(since=twelve)) == [e12, e14]  # inclusive


def test_get_entries_mixed_naive_and_aware_timestamps() -> None:
    c = AuditCollector()
    c.add_entry(entry(at=datetime.now()))  # naive
    since = datetime.now(timezone.utc) - timedelta(hours=1)
    assert len(list(c.get_entries(since=since))) == 1


def test_file_output_and_context_manager(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    with AuditCollector(AuditConfig(output_path=path, agent_id="agent-7")) as c:
        assert c._file is not None
        c.add_entry(entry(method="mcp:add"))
        c.add_entry(entry(method="mcp:skip"), write_to_file=False)
        assert len(c) == 2
    assert c._file is None
    lines = path.read_text().splitlines()
    assert len(lines) == 1
    assert json.loads(lines[0])["method"] == "mcp:add"
    c.close()  # idempotent


def test_file_is_appended(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    path.write_text('{"type": "old"}\n')
    with AuditCollector(AuditConfig(output_path=path)) as c:
        c.add_entry(entry())
    assert len(path.read_text().splitlines()) == 2


def test_jsonl_written_through_private_file(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    c = AuditCollector(AuditConfig(output_path=path, agent_id="agent-1", trace_id="trace-1"))
    e = AuditEntry(type="tool_call", session_id="sess", timestamp=NOON, data={"method": "mcp:x"}, agent_id="agent-1")
    assert c._file is not None
    c._file.write(e.to_jsonl() + "\n")
    c._file.flush()
    c.close()
    parsed = json.loads(path.read_text().strip())
    assert parsed["type"] == "tool_call"
    assert parsed["session_id"] == "sess"
    assert parsed["agent_id"] == "agent-1"
    assert parsed["method"] == "mcp:x"


def test_capture_binary(tmp_path: Path) -> None:
    bindir = tmp_path / "nested" / "bin"
    c = AuditCollector(AuditConfig(binary_dir=bindir))
    assert bindir.is_dir()  # created at construction
    path = c.capture_binary("abc123", b"\x00\x01data")
    assert path == bindir / "abc123.bin"
    assert path.read_bytes() == b"\x00\x01data"


def test_capture_binary_without_dir() -> None:
    assert AuditCollector().capture_binary("abc123", b"x") is None


def test_capture_binary_refuses_paths(tmp_path: Path) -> None:
    c = AuditCollector(AuditConfig(binary_dir=tmp_path))
    for bad in ("../escape", "a/b", "", ".."):
        with pytest.raises(ValueError, match="content_hash"):
            c.capture_binary(bad, b"x")


# -- drain_from_runtime -----------------------------------------------------------


def test_drain_from_runtime(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    c = AuditCollector(AuditConfig(output_path=path, agent_id="ag", trace_id="tr"))
    c.new_turn()
    rt = FakeRuntime(
        "\n".join(
            [
                '{"type": "command_create", "session_id": "s9", "timestamp": "2025-01-01T12:00:00Z", "language": "shell"}',
                "",
                "not json",
                "[1, 2]",
                '{"session_id": "s9", "timestamp": "garbage"}',
            ]
        )
    )
    new = c.drain_from_runtime(rt)
    assert len(new) == 2
    assert c.entries == new
    first, second = new
    assert first.type == "command_create"
    assert first.session_id == "s9"
    assert first.timestamp == NOON
    assert first.data["language"] == "shell"
    assert first.data["type"] == "command_create"  # data is the whole raw object
    assert (first.agent_id, first.trace_id, first.turn_id) == ("ag", "tr", 1)
    assert second.type == "unknown"
    assert second.timestamp.tzinfo is not None  # fell back to now
    c.close()
    written = [json.loads(line) for line in path.read_text().splitlines()]
    assert [w["type"] for w in written] == ["command_create", "unknown"]
    assert written[0]["agent_id"] == "ag" and written[0]["turn_id"] == 1
    assert c.drain_from_runtime(rt) == []  # nothing new


def test_drain_defaults_session_id() -> None:
    c = AuditCollector()
    (e,) = c.drain_from_runtime(FakeRuntime('{"type": "x"}'))
    assert e.session_id == ""


def test_drain_from_runtime_without_audit_support() -> None:
    c = AuditCollector()
    assert c.drain_from_runtime(object()) == []
    assert len(c) == 0


def test_drain_custom_enricher_replaces_data() -> None:
    seen: list[dict] = []

    def enrich(data: dict) -> dict:
        seen.append(data)
        return {"wrapped": data["type"]}

    c = AuditCollector(AuditConfig(custom_enricher=enrich))
    (e,) = c.drain_from_runtime(FakeRuntime('{"type": "tool_call", "session_id": "s"}'))
    assert seen == [{"type": "tool_call", "session_id": "s"}]
    assert e.data == {"wrapped": "tool_call"}
    assert e.type == "tool_call"


# -- with a Sandbox (needs the engine) --------------------------------------------


def test_sandbox_audit_collector(tmp_path: Path) -> None:
    from amla_sandbox import Sandbox

    config = AuditConfig(output_path=tmp_path / "a.jsonl", agent_id="agent-1", trace_id="trace-1")
    with Sandbox(audit_config=config) as sb:
        collector = sb.audit_collector
        assert isinstance(collector, AuditCollector)
        assert collector._config.agent_id == "agent-1"
        assert collector._config.trace_id == "trace-1"
        collector._entries.append(entry("custom"))
        collector.add_entry(entry("other"))
        assert [e.type for e in sb.get_audit_entries()][-2:] == ["custom", "other"]
        assert [e.type for e in sb.get_audit_entries("custom")] == ["custom"]
    assert sb._audit_collector is None
    assert sb.audit_collector is None


def test_sandbox_without_audit() -> None:
    from amla_sandbox import Sandbox

    with Sandbox() as sb:
        assert sb.audit_collector is None
        assert list(sb.get_audit_entries()) == []


def test_sandbox_run_is_drained_into_the_collector(tmp_path: Path) -> None:
    from amla_sandbox import Sandbox

    path = tmp_path / "a.jsonl"
    with Sandbox(audit_config=AuditConfig(output_path=path, agent_id="ag")) as sb:
        sb.audit_collector.new_turn()
        sb.execute("console.log(1)")
        entries = list(sb.get_audit_entries())
    # The reference allows an engine to record nothing; ours records the run.
    assert {"command_create", "command_exit"} <= {e.type for e in entries}
    for e in entries:
        assert e.agent_id == "ag" and e.turn_id == 1
    assert len(path.read_text().splitlines()) == len(entries)
