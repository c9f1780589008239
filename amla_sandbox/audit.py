"""Audit: a record of what sandbox runs did (commands, tool calls, exits),
kept in memory and optionally appended to a JSONL file.

The engine keeps audit lines as JSONL; `AuditCollector.drain_from_runtime`
turns them into `AuditEntry` objects. A `Sandbox` created with
`audit_config=AuditConfig(...)` drains after every run. This module never
runs anything itself.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

__all__ = ["AuditConfig", "AuditEntry", "AuditCollector"]


@dataclass
class AuditConfig:
    """Where audit entries go and what is attached to each.

    `output_path`: JSONL file appended to (None keeps entries in memory only).
    `agent_id` / `trace_id`: attached to every drained entry.
    `binary_dir`: where `capture_binary` writes blobs (created if missing).
    `custom_enricher`: receives each drained entry's data dict; its return
    value becomes the entry's data.
    """

    output_path: Path | None = None
    agent_id: str | None = None
    trace_id: str | None = None
    capture_binary: bool = False
    binary_dir: Path | None = None
    custom_enricher: Callable[[dict[str, Any]], dict[str, Any]] | None = None


@dataclass
class AuditEntry:
    """One audited event. `data` holds the event's own fields."""

    type: str
    session_id: str
    timestamp: datetime
    data: dict[str, Any]
    agent_id: str | None = None
    trace_id: str | None = None
    turn_id: int | None = None
    binary_path: Path | None = None

    def to_dict(self) -> dict[str, Any]:
        """A flat dict: type, session_id, timestamp, then the keys of `data`
        (which may overwrite those three), then the ids that are set."""
        out: dict[str, Any] = {
            "type": self.type,
            "session_id": self.session_id,
            "timestamp": self.timestamp.isoformat(),
        }
        out.update(self.data)
        if self.agent_id:
            out["agent_id"] = self.agent_id
        if self.trace_id:
            out["trace_id"] = self.trace_id
        if self.turn_id is not None:
            out["turn_id"] = self.turn_id
        if self.binary_path:
            out["binary_path"] = str(self.binary_path)
        return out

    def to_jsonl(self) -> str:
        """`to_dict()` as one line of JSON (values JSON cannot hold are written as str)."""
        return json.dumps(self.to_dict(), default=str)


def _parse_timestamp(value: Any) -> datetime:
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value)  # accepts a trailing "Z" on 3.11+
        except ValueError:
            pass
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(value, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            pass
    return datetime.now().astimezone()


def _at_or_after(ts: datetime, since: datetime) -> bool:
    if (ts.tzinfo is None) != (since.tzinfo is None):
        # One naive, one aware: read the naive one as local time rather than fail.
        ts, since = ts.astimezone(), since.astimezone()
    return ts >= since


class AuditCollector:
    """Collects audit entries in insertion order; with `output_path` set, also
    appends each entry as a JSONL line to that file (opened at construction)."""

    def __init__(self, config: AuditConfig | None = None) -> None:
        self._config = config or AuditConfig()
        self._entries: list[AuditEntry] = []
        self._turn_id = 0
        self._file: TextIO | None = None
        if self._config.output_path is not None:
            self._file = open(self._config.output_path, "a", encoding="utf-8")  # noqa: SIM115
        if self._config.binary_dir is not None:
            Path(self._config.binary_dir).mkdir(parents=True, exist_ok=True)

    # -- collecting -----------------------------------------------------------

    def drain_from_runtime(self, runtime: Any) -> list[AuditEntry]:
        """Pull the runtime's pending audit lines; return the new entries.

        A runtime without `drain_audit_jsonl()` has no audit lines. Lines that
        are not JSON objects are skipped.
        """
        drain = getattr(runtime, "drain_audit_jsonl", None)
        if drain is None:
            return []
        text = drain()
        if isinstance(text, (bytes, bytearray)):
            text = bytes(text).decode("utf-8", errors="replace")
        if not text:
            return []
        new: list[AuditEntry] = []
        for line in text.splitlines():
            line = line.strip()
            if not line:
                continue
            try:
                raw = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(raw, dict):
                continue
            data = raw
            if self._config.custom_enricher is not None:
                data = self._config.custom_enricher(data)
            entry = AuditEntry(
                type=str(raw.get("type", "unknown")),
                session_id=str(raw.get("session_id", "")),
                timestamp=_parse_timestamp(raw.get("timestamp")),
                data=data,
                agent_id=self._config.agent_id,
                trace_id=self._config.trace_id,
                turn_id=self._turn_id,
            )
            self.add_entry(entry)
            new.append(entry)
        return new

    def add_entry(self, entry: AuditEntry, *, write_to_file: bool = True) -> None:
        self._entries.append(entry)
        if write_to_file and self._file is not None:
            self._file.write(entry.to_jsonl() + "\n")
            self._file.flush()

    def add_entries(self, entries: list[AuditEntry], *, write_to_file: bool = True) -> None:
        for entry in entries:
            self.add_entry(entry, write_to_file=write_to_file)

    def new_turn(self) -> None:
        """Start the next agent turn: later entries carry the incremented `turn_id`."""
        self._turn_id += 1

    def capture_binary(self, content_hash: str, data: bytes) -> Path | None:
        """Write `data` to `<binary_dir>/<content_hash>.bin`; None without `binary_dir`."""
        if self._config.binary_dir is None:
            return None
        if not content_hash or "/" in content_hash or "\\" in content_hash or content_hash in (".", ".."):
            raise ValueError(f"content_hash must be a plain file name, got {content_hash!r}")
        path = Path(self._config.binary_dir) / f"{content_hash}.bin"
        path.write_bytes(data)
        return path

    # -- reading --------------------------------------------------------------

    def get_entries(self, entry_type: str | None = None, since: datetime | None = None) -> Iterator[AuditEntry]:
        """Entries in insertion order, of `entry_type` if given, at or after `since` if given."""
        return iter(
            [
                entry
                for entry in self._entries
                if (not entry_type or entry.type == entry_type)
                and (since is None or _at_or_after(entry.timestamp, since))
            ]
        )

    @property
    def entries(self) -> list[AuditEntry]:
        """The live list of entries, in insertion order."""
        return self._entries

    @property
    def turn_id(self) -> int:
        return self._turn_id

    def __len__(self) -> int:
        return len(self._entries)

    # -- lifetime -------------------------------------------------------------

    def clear(self) -> None:
        """Forget all entries (the file, if any, keeps what was written)."""
        self._entries.clear()

    def close(self) -> None:
        """Close the output file; safe to call more than once."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> AuditCollector:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
