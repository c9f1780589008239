"""MCP benchmarks (issue 18; numbers in docs/performance.md).

Run after `pip install ".[mcp]"`:  python bench/bench_mcp.py [--repeat N]

1. An MCP tool call from inside the sandbox against the same call made
   directly with the SDK's client: the test server's `echo` over stdio,
   N sequential calls in one script vs N sequential `call_tool`s
   (target: sandbox <= 1.3 x direct + 0.3 ms per call).
2. A `run_javascript` round trip through our server over stdio, driven by
   the SDK's client: `console.log(1)` (target: <= 5 ms).
3. The prompt for a 100-tool MCP server: servers and names only, one line
   per tool with its parameters, and every tool's full JSON schema.

Prints a Markdown table; each figure is the median of --repeat rounds.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

from timing import parse_args

ROOT = Path(__file__).resolve().parent.parent
SERVER = [str(ROOT / "tests" / "mcp_servers" / "tools_server.py"), "stdio"]
CALLS = 200


def many_tools_server(n: int) -> str:
    """Source of a stdio MCP server with n tools of realistic schemas."""
    return f"""
from mcp.server.mcpserver import MCPServer
server = MCPServer("many")
def make(i):
    def tool(repo: str, title: str, body: str = "", labels: list[str] | None = None,
             assignee: str | None = None, limit: int = 10) -> dict:
        return {{"i": i}}
    tool.__name__ = f"action_{{i:03d}}"
    tool.__doc__ = f"Perform action number {{i}} on a repository's issues, pull requests or files."
    return tool
for i in range({n}):
    server.add_tool(make(i))
server.run("stdio")
"""


async def direct_per_call_ms(rounds: int) -> list[float]:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=SERVER)
    out = []
    async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        for _ in range(20):
            await s.call_tool("echo", {"text": "x"})
        for _ in range(rounds):
            t = time.perf_counter()
            for _ in range(CALLS):
                await s.call_tool("echo", {"text": "x"})
            out.append((time.perf_counter() - t) * 1000 / CALLS)
    return out


def sandbox_per_call_ms(rounds: int) -> tuple[list[float], list[float]]:
    from amla_sandbox import Sandbox

    loop_code = f"for (let i = 0; i < {CALLS}; i++) await t.echo({{text: 'x'}});"
    with Sandbox(mcp_servers={"t": {"command": sys.executable, "args": SERVER}}) as sb:
        sb.execute(loop_code)
        in_script, per_run = [], []
        for _ in range(rounds):
            t = time.perf_counter()
            sb.execute(loop_code)
            in_script.append((time.perf_counter() - t) * 1000 / CALLS)
            t = time.perf_counter()
            for _ in range(50):
                sb.execute("await t.echo({text: 'x'})")
            per_run.append((time.perf_counter() - t) * 1000 / 50)
    return in_script, per_run


async def server_round_trip_ms(rounds: int) -> list[float]:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "amla_sandbox.mcp"])
    out = []
    async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        for _ in range(20):
            await s.call_tool("run_javascript", {"code": "console.log(1)"})
        for _ in range(rounds):
            t = time.perf_counter()
            for _ in range(100):
                await s.call_tool("run_javascript", {"code": "console.log(1)"})
            out.append((time.perf_counter() - t) * 1000 / 100)
    return out


def prompt_sizes(n: int) -> dict[str, int]:
    from amla_sandbox import create_sandbox_tool

    spec = {"command": sys.executable, "args": ["-c", many_tools_server(n)]}
    with create_sandbox_tool(mcp_servers={"github": spec}) as st:
        mcp = st.sandbox._mcp
        compact = st.get_system_prompt()
        listed = "\n".join(mcp.prompt_lines(schemas=True))
        schemas = json.dumps(
            [{"name": d.name, "description": d.description, "inputSchema": d.parameters} for d in mcp.definitions]
        )
        return {
            "system prompt (servers and names)": len(compact),
            "the tool lines alone, names only": len("\n".join(mcp.prompt_lines(schemas=False))),
            "one line per tool with parameters": len(listed),
            "every tool's JSON schema": len(schemas),
        }


def main() -> None:
    args = parse_args()
    rounds = max(args.repeat, 3)
    direct = asyncio.run(direct_per_call_ms(rounds))
    inside, per_run = sandbox_per_call_ms(rounds)
    trip = asyncio.run(server_round_trip_ms(rounds))
    d, i, p = statistics.median(direct), statistics.median(inside), statistics.median(per_run)
    print("| measure | median | range |")
    print("|---|---|---|")
    print(f"| direct SDK call_tool('echo') over stdio, per call | {d:.3f} ms | {min(direct):.3f}-{max(direct):.3f} |")
    print(f"| the same call from a script in the sandbox ({CALLS} in one run), per call | {i:.3f} ms | {min(inside):.3f}-{max(inside):.3f} |")
    print(f"| ratio; target <= 1.3 x direct + 0.3 ms = {1.3 * d + 0.3:.3f} ms | {i / d:.2f} x | |")
    print(f"| one call per execute() (run start included) | {p:.3f} ms | {min(per_run):.3f}-{max(per_run):.3f} |")
    t = statistics.median(trip)
    print(f"| run_javascript console.log(1) through our server over stdio (target <= 5 ms) | {t:.3f} ms | {min(trip):.3f}-{max(trip):.3f} |")
    print()
    print("| prompt for 100 MCP tools | characters | about tokens (chars / 4) |")
    print("|---|---|---|")
    for name, size in prompt_sizes(100).items():
        print(f"| {name} | {size} | {size // 4} |")


if __name__ == "__main__":
    main()
