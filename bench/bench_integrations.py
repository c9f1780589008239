#!/usr/bin/env python3
"""What an adapter adds to a run (issue 27's target: <= 0.2 ms).

    python bench/bench_integrations.py [--repeat 500] [--rounds 5] [framework ...]

For each framework whose adapter can be imported, the same small script is
run through the adapter and directly on a `Sandbox` (the baseline), in
alternating rounds of `repeat` runs each so both see the same machine load.
Each figure is the median over rounds of a round's median run time (wall
time from Python, milliseconds); "added" is adapter - baseline. A
framework that is not installed is skipped with a note.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable

from timing import median_ms

from amla_sandbox import Sandbox


async def _amedian_ms(fn: Callable[[], Awaitable[object]], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        await fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def _report(name: str, base: list[float], adapted: list[float]) -> None:
    b, a = statistics.median(base), statistics.median(adapted)
    print(f"{name:<44} baseline {b:7.3f} ms   adapter {a:7.3f} ms   added {a - b:+.3f} ms")


def bench_fastmcp(repeat: int, rounds: int) -> None:
    """Code mode's usual run, one awaited tool call: through
    `AmlaSandboxProvider.run` (the body wrapped in an async function, the
    tools synced, the value checked and returned) against the same call
    written as a top-level script on a `Sandbox` with the same tool; and
    `return 1` against the script `1`."""
    from amla_sandbox.integrations.fastmcp import AmlaSandboxProvider
    from amla_sandbox.tools import ToolDefinition

    async def call_tool(name: str, params: dict[str, int]) -> int:
        return params["a"] + params["b"]

    async def handler(method: str, params: dict[str, int]) -> int:
        return await call_tool(method, params)

    add = ToolDefinition(name="add", description="add", parameters={"type": "object"})
    body = 'return await call_tool("add", {"a": 1, "b": 2})'
    script = 'await call_tool("add", {"a": 1, "b": 2})'

    async def go() -> None:
        with AmlaSandboxProvider() as provider, Sandbox(tools=[add], tool_handler=handler) as sb:
            provider.sandbox.add_tools([add])
            # Outside a FastMCP request there is no catalog: "add" is the
            # sandbox's own tool here, answered by call_tool.
            fns = {"call_tool": call_tool}
            for _ in range(20):
                assert await provider.run(body, external_functions=fns) == 3
                await sb.python_async(script)
                assert sb.last_result is not None and sb.last_result.return_value == 3
            base, adapted = [], []
            for _ in range(rounds):
                base.append(await _amedian_ms(lambda: sb.python_async(script), repeat))
                adapted.append(await _amedian_ms(lambda: provider.run(body, external_functions=fns), repeat))
            _report("fastmcp SandboxProvider.run, one tool call", base, adapted)
            # No tool call: `return 1` against the script `1`. A body that
            # never awaits is a plain function, so neither starts an event
            # loop; what is added is the wrapper (compiled in the guest) and
            # the adapter's own work on the host.
            base, adapted = [], []
            for _ in range(rounds):
                base.append(await _amedian_ms(lambda: sb.python_async("1"), repeat))
                adapted.append(await _amedian_ms(lambda: provider.run("return 1", external_functions=fns), repeat))
            _report("fastmcp SandboxProvider.run, `return 1`", base, adapted)

    asyncio.run(go())


def bench_deepagents(repeat: int, rounds: int) -> None:
    """`AmlaSandboxBackend.execute("echo 1")` against
    `Sandbox.run_shell("echo 1")` on the same sandbox."""
    from amla_sandbox.integrations.deepagents import AmlaSandboxBackend

    with Sandbox() as sb:
        backend = AmlaSandboxBackend(sb)
        for _ in range(20):
            assert backend.execute("echo 1").output == "1\n"
            sb.run_shell("echo 1")
        base, adapted = [], []
        for _ in range(rounds):
            base.append(median_ms(lambda: sb.run_shell("echo 1"), repeat))
            adapted.append(median_ms(lambda: backend.execute("echo 1"), repeat))
        _report("deepagents BaseSandbox.execute", base, adapted)


def bench_pydantic_ai(repeat: int, rounds: int) -> None:
    """`AmlaWorkspaceBackend.run(["echo", "1"])` against
    `Sandbox.run_shell_async("echo 1")` on the same sandbox."""
    from amla_sandbox.integrations.pydantic_ai import AmlaWorkspaceBackend

    async def go() -> None:
        backend = AmlaWorkspaceBackend()
        sb = backend.sandbox
        try:
            for _ in range(20):
                assert (await backend.run(["echo", "1"])).stdout == "1\n"
                await sb.run_shell_async("echo 1")
            base, adapted = [], []
            for _ in range(rounds):
                base.append(await _amedian_ms(lambda: sb.run_shell_async("echo 1", stdin=""), repeat))
                adapted.append(await _amedian_ms(lambda: backend.run(["echo", "1"]), repeat))
            _report("pydantic-ai WorkspaceBackend.run", base, adapted)
        finally:
            await backend.delete()

    asyncio.run(go())


def bench_strands(repeat: int, rounds: int) -> None:
    """`AmlaStrandsSandbox.execute("echo 1")` against
    `Sandbox.run_shell_async("echo 1")` on the same sandbox."""
    from amla_sandbox.integrations.strands import AmlaStrandsSandbox

    async def go() -> None:
        with Sandbox() as sb:
            box = AmlaStrandsSandbox(sb)
            for _ in range(20):
                assert (await box.execute("echo 1")).stdout == "1\n"
                await sb.run_shell_async("echo 1")
            base, adapted = [], []
            for _ in range(rounds):
                base.append(await _amedian_ms(lambda: sb.run_shell_async("echo 1", stdin=""), repeat))
                adapted.append(await _amedian_ms(lambda: box.execute("echo 1"), repeat))
            _report("strands Sandbox.execute", base, adapted)

    asyncio.run(go())


BENCHES: dict[str, Callable[[int, int], None]] = {
    "fastmcp": bench_fastmcp,
    "deepagents": bench_deepagents,
    "pydantic-ai": bench_pydantic_ai,
    "strands": bench_strands,
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=500, help="runs per round")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds (the median is reported)")
    ap.add_argument("frameworks", nargs="*", help=f"some of {sorted(BENCHES)} (default: all)")
    args = ap.parse_args()
    for name in args.frameworks or sorted(BENCHES):
        try:
            BENCHES[name](args.repeat, args.rounds)
        except ImportError as e:
            print(f"{name:<44} skipped: {e}")


if __name__ == "__main__":
    main()
