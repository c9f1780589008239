"""MCP benchmarks (issue 18; numbers in docs/performance.md).

Run after `pip install ".[mcp]"`:  python bench/bench_mcp.py [--repeat N]

1. An MCP tool call from inside the sandbox against the same call made
   directly with the SDK's client: the test server's `echo` over stdio, N
   sequential calls in one script vs N sequential `call_tool`s (target:
   sandbox <= 1.3 x direct + 0.3 ms per call). The two alternate round by
   round in one process, each with its own server, so a shared machine's
   load falls on both alike; the ratio is taken per round.
2. A `run_javascript` round trip through our server over stdio, driven by
   the SDK's client: `console.log(1)` (target: <= 5 ms).
3. The prompt for a 100-tool MCP server: servers and names only, one line
   per tool with its parameters, and every tool's full JSON schema.
4. Memory: how much a 50 MB text answer raises the process's peak RSS under
   the default 64 MiB max_tool_result_size (a fresh process per figure).
5. What a run costs per mounted tool (every run installs every tool).

Prints Markdown tables; each figure is the median of --repeat rounds, with
the range.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from timing import parse_args

ROOT = Path(__file__).resolve().parent.parent
SERVER = [str(ROOT / "tests" / "mcp_servers" / "tools_server.py"), "stdio"]
HOSTILE = [str(ROOT / "tests" / "mcp_servers" / "hostile_server.py")]
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


class DirectClient:
    """The SDK's own client with its own server, on an event loop thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self._stop = asyncio.Event()
        self._ready: Any = asyncio.run_coroutine_threadsafe(self._hold(), self.loop)
        while self.session is None:
            time.sleep(0.01)

    session: Any = None

    async def _hold(self) -> None:
        from mcp import ClientSession, StdioServerParameters, stdio_client

        params = StdioServerParameters(command=sys.executable, args=SERVER)
        self._stop = asyncio.Event()
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            await s.list_tools()
            self.session = s
            await self._stop.wait()

    def round_ms(self) -> tuple[float, float]:
        """Wall time and this process's CPU time per call, in ms."""

        async def calls() -> tuple[float, float]:
            t, c = time.perf_counter(), time.process_time()
            for _ in range(CALLS):
                await self.session.call_tool("echo", {"text": "x"})
            return (time.perf_counter() - t) * 1000 / CALLS, (time.process_time() - c) * 1000 / CALLS

        return asyncio.run_coroutine_threadsafe(calls(), self.loop).result()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self._stop.set)
        self._ready.result(20)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def call_overhead(rounds: int) -> dict[str, list[float]]:
    from amla_sandbox import Sandbox

    loop_code = f"for (let i = 0; i < {CALLS}; i++) await t.echo({{text: 'x'}});"
    out: dict[str, list[float]] = {
        "direct": [], "script": [], "ratio": [], "async": [], "per_run": [], "direct_cpu": [], "script_cpu": []
    }
    direct = DirectClient()
    try:
        with Sandbox(mcp_servers={"t": {"command": sys.executable, "args": SERVER}}) as sb:
            for _ in range(2):  # warm both
                direct.round_ms()
                sb.execute(loop_code)
            for _ in range(rounds):
                d, dc = direct.round_ms()
                t, c = time.perf_counter(), time.process_time()
                sb.execute(loop_code)
                s = (time.perf_counter() - t) * 1000 / CALLS
                out["script_cpu"].append((time.process_time() - c) * 1000 / CALLS)
                out["direct_cpu"].append(dc)
                t = time.perf_counter()
                asyncio.run(sb.execute_async(loop_code))
                a = (time.perf_counter() - t) * 1000 / CALLS
                t = time.perf_counter()
                for _ in range(50):
                    sb.execute("await t.echo({text: 'x'})")
                out["per_run"].append((time.perf_counter() - t) * 1000 / 50)
                out["direct"].append(d)
                out["script"].append(s)
                out["async"].append(a)
                out["ratio"].append(s / d)
    finally:
        direct.close()
    return out


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


_PEAK = """
import json, resource, sys
from amla_sandbox import Sandbox
with Sandbox(mcp_servers={"h": {"command": sys.executable, "args": json.loads(sys.argv[1])}}) as sb:
    sb.execute("await h.ok({})")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = sb.execute("console.log((await h.big({})).length)")
    assert out == "52428800\\n", out
    print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024)
"""


def answer_peak_mib(rounds: int) -> list[float]:
    return [
        float(subprocess.run([sys.executable, "-c", _PEAK, json.dumps(HOSTILE)], capture_output=True, text=True,
                             check=True, timeout=300).stdout)
        for _ in range(rounds)
    ]


def run_cost_ms(n: int, rounds: int) -> float:
    from amla_sandbox import Sandbox

    names = json.dumps([f"tool_{i}" for i in range(n)])
    with Sandbox(mcp_servers={"n": {"command": sys.executable, "args": [*HOSTILE, "--names", names]}}) as sb:
        sb.execute("console.log(1)")
        times = []
        for _ in range(rounds * 10):
            t = time.perf_counter()
            sb.execute("console.log(1)")
            times.append((time.perf_counter() - t) * 1000)
        return statistics.median(times)


def show(name: str, values: list[float], unit: str = "ms") -> str:
    return f"| {name} | {statistics.median(values):.3f} {unit} | {min(values):.3f}-{max(values):.3f} |"


def main() -> None:
    args = parse_args()
    rounds = max(args.repeat, 3)
    o = call_overhead(rounds)
    trip = asyncio.run(server_round_trip_ms(rounds))
    d = statistics.median(o["direct"])
    print("| measure | median | range |")
    print("|---|---|---|")
    print(show("direct SDK call_tool('echo') over stdio, per call", o["direct"]))
    print(show(f"the same call from a script in the sandbox ({CALLS} in one execute()), per call", o["script"]))
    print(show("ratio script / direct, per round; target <= 1.3 x + 0.3 ms", o["ratio"], "x"))
    target = [1.3 * dd + 0.3 for dd in o["direct"]]
    met = sum(s <= t for s, t in zip(o["script"], target))
    print(f"| rounds within 1.3 x direct + 0.3 ms | {met} of {len(target)} | |")
    print(show("CPU of this process per direct call (the SDK client)", o["direct_cpu"]))
    print(show("CPU of this process per call from a script (Python, Go, guest, spinning waits)", o["script_cpu"]))
    print(show("the same from execute_async(), per call", o["async"]))
    print(show("one call per execute() (run start included)", o["per_run"]))
    print(show("run_javascript console.log(1) through our server over stdio (target <= 5 ms)", trip))
    print(show("peak RSS growth for a 50 MB answer (default 64 MiB limit)", answer_peak_mib(rounds), "MiB"))
    print()
    print("| mounted tools | console.log(1) run |")
    print("|---|---|")
    for n in (10, 100, 1000):
        print(f"| {n} | {run_cost_ms(n, rounds):.2f} ms |")
    print()
    print("| prompt for 100 MCP tools | characters | about tokens (chars / 4) |")
    print("|---|---|---|")
    for name, size in prompt_sizes(100).items():
        print(f"| {name} | {size} | {size // 4} |")


if __name__ == "__main__":
    main()
