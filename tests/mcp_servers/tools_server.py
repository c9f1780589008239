"""A small MCP server for the tests, written with the SDK's MCPServer (the
FastMCP of mcp 1.x). Usage: python tools_server.py stdio
                      python tools_server.py http PORT [--stateless]"""

from __future__ import annotations

import asyncio
import os
import sys
import time

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

server = MCPServer("test-tools")


class Issue(BaseModel):
    number: int
    title: str
    labels: list[str]


@server.tool()
def create_issue(title: str, body: str = "", labels: list[str] | None = None) -> Issue:
    """Open an issue in the test tracker."""
    return Issue(number=len(title), title=title, labels=labels or [])


@server.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@server.tool()
def add(a: int, b: int) -> dict[str, int]:
    """Add two integers."""
    return {"sum": a + b}


@server.tool()
async def sleep_then(seconds: float, value: str) -> str:
    """Sleep, then return the value (for concurrency tests)."""
    await asyncio.sleep(seconds)
    return value


_gathering: dict[str, tuple[int, asyncio.Event]] = {}


@server.tool()
async def gather_point(n: int, key: str) -> str:
    """"together" once n calls with this key are in progress at the same time; "alone" after 5 s."""
    count, event = _gathering.get(key, (0, asyncio.Event()))
    _gathering[key] = (count + 1, event)
    if count + 1 >= n:
        event.set()
    try:
        await asyncio.wait_for(event.wait(), 5)
        return "together"
    except asyncio.TimeoutError:
        return "alone"


@server.tool()
def fail(message: str) -> str:
    """Always fails with the message."""
    raise ValueError(message)


@server.tool()
def pid() -> int:
    """The server's process id."""
    return os.getpid()


@server.tool()
def slow_sync(seconds: float) -> float:
    """Block for the given seconds."""
    time.sleep(seconds)
    return seconds


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        server.run("stdio")
    else:
        server.run(
            "streamable-http",
            host="127.0.0.1",
            port=int(sys.argv[2]),
            stateless_http="--stateless" in sys.argv,
        )
