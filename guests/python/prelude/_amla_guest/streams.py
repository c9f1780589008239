"""sys.stdout and sys.stderr as streams whose writes go to the host.

Each is line-buffered text over a buffered writer over HostOutput: a
print() of one line is one output call, so the host can stream it (and cap
it where it is produced). sys.stdin is the run's stdin, set per run.
"""

from __future__ import annotations

import io

import _amla


class HostOutput(io.RawIOBase):
    """The raw stream of fd 1 or 2: every write is one host output call."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:  # type: ignore[override]
        _amla.write(self._fd, b)
        return len(b)

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return False


def text_output(fd: int) -> io.TextIOWrapper:
    raw = HostOutput(fd)
    buffered = io.BufferedWriter(raw, buffer_size=8192)
    return io.TextIOWrapper(buffered, encoding="utf-8", errors="backslashreplace", line_buffering=True)


def text_input(data: str) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data.encode("utf-8", "surrogatepass")), encoding="utf-8", errors="surrogateescape")
