"""A misbehaving MCP server over stdio, written by hand (the SDK cannot be
made to misbehave): it answers initialize, tools/list and ping correctly,
then each tool does one bad thing.

Usage: python hostile_server.py [--names JSON] [--many N] [--slow-restart FILE]
  --names JSON         list these tool names instead (each answers "called NAME")
  --many N             list N tools with long descriptions as well, 100 a page
  --slow-restart FILE  start normally when FILE does not exist (and create
                       it); otherwise sleep a minute before reading anything
"""

from __future__ import annotations

import json
import os
import sys
import time

TOOLS = {
    "big": "Answer with a text result of 50 MB.",
    "deep": "Answer with structuredContent nested 10,000 deep.",
    "invalid": "Answer with a line that is not JSON-RPC.",
    "silent": "Never answer this call (pings still are).",
    "hang": "Stop reading input and never answer anything again.",
    "exit": "Exit in the middle of the call.",
    "crlf": "Answer in pieces, after a log line and a blank line, with CRLF line ends.",
    "pid": "Answer with the server's process id.",
    "empty": "Answer with no content at all.",
    "ok": "Answer properly.",
}


def option(name: str) -> str | None:
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else None


names = option("--names")
listed_names = json.loads(names) if names is not None else list(TOOLS)
many = int(option("--many") or 0)
slow = option("--slow-restart")
if slow is not None:
    if os.path.exists(slow):
        time.sleep(60)
    else:
        open(slow, "w").close()


def send(obj: object) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def result(id_: object, res: object) -> None:
    send({"jsonrpc": "2.0", "id": id_, "result": res})


def text(id_: object, value: str) -> None:
    result(id_, {"content": [{"type": "text", "text": value}], "isError": False})


def tool_list(cursor: str | None) -> dict[str, object]:
    """One page of tools/list: the named tools, then the many in pages of 100."""
    page = int(cursor or 0)
    listed = [
        {"name": f"many_{i}", "description": "x" * 200, "inputSchema": {"type": "object"}}
        for i in range(page * 100, min(many, page * 100 + 100))
    ]
    if page == 0:
        listed[:0] = [
            {"name": n, "description": TOOLS.get(n, ""), "inputSchema": {"type": "object", "properties": {}}}
            for n in listed_names
        ]
    out: dict[str, object] = {"tools": listed}
    if many > (page + 1) * 100:
        out["nextCursor"] = str(page + 1)
    return out


for line in sys.stdin:
    msg = json.loads(line)
    method, id_ = msg.get("method"), msg.get("id")
    if method == "initialize":
        result(id_, {
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile", "version": "1"},
        })
    elif method == "tools/list":
        result(id_, tool_list((msg.get("params") or {}).get("cursor")))
    elif method == "tools/call":
        name = msg["params"]["name"]
        if names is not None:
            text(id_, "called " + name)
        elif name == "big":
            sys.stdout.write('{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"' % json.dumps(id_))
            chunk = "x" * (1 << 20)
            for _ in range(50):
                sys.stdout.write(chunk)
            sys.stdout.write('"}]}}\n')
            sys.stdout.flush()
        elif name == "deep":
            depth = 10_000
            sys.stdout.write('{"jsonrpc":"2.0","id":%s,"result":{"content":[],"structuredContent":{"a":' % json.dumps(id_)
                             + "[" * depth + "]" * depth + "}}}\n")
            sys.stdout.flush()
        elif name == "invalid":
            sys.stdout.write('{"jsonrpc": "2.0", "id": %s, "resul\n' % json.dumps(id_))
            sys.stdout.flush()
        elif name == "silent":
            pass
        elif name == "hang":
            time.sleep(3600)
        elif name == "exit":
            os._exit(3)
        elif name == "crlf":
            answer = json.dumps({"jsonrpc": "2.0", "id": id_, "result": {"content": [{"type": "text", "text": "fine\r\n"}]}})
            sys.stdout.write("a log line a server should have sent to stderr\r\n\r\n")
            for part in (answer[:7], answer[7:30], answer[30:] + "\r\n"):
                sys.stdout.write(part)
                sys.stdout.flush()
                time.sleep(0.05)
        elif name == "pid":
            text(id_, str(os.getpid()))
        elif name == "empty":
            result(id_, {"content": []})
        else:
            text(id_, "fine")
    elif id_ is not None:
        result(id_, {})
