"""A misbehaving MCP server over stdio, written by hand (the SDK cannot be
made to misbehave): it answers initialize and tools/list correctly, then
each tool does one bad thing. Usage: python hostile_server.py"""

from __future__ import annotations

import json
import os
import sys

TOOLS = {
    "big": "Answer with a text result of 50 MB.",
    "deep": "Answer with structuredContent nested 10,000 deep.",
    "invalid": "Answer with a line that is not JSON-RPC.",
    "silent": "Never answer.",
    "exit": "Exit in the middle of the call.",
    "ok": "Answer properly.",
}


def send(obj: object) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def result(id_: object, res: object) -> None:
    send({"jsonrpc": "2.0", "id": id_, "result": res})


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
        result(id_, {"tools": [
            {"name": n, "description": d, "inputSchema": {"type": "object", "properties": {}}}
            for n, d in TOOLS.items()
        ]})
    elif method == "tools/call":
        name = msg["params"]["name"]
        if name == "big":
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
        elif name == "exit":
            os._exit(3)
        else:
            result(id_, {"content": [{"type": "text", "text": "fine"}], "isError": False})
    elif id_ is not None:
        result(id_, {})
