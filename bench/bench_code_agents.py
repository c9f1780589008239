#!/usr/bin/env python3
"""What the code-agent adapters (smolagents, LlamaIndex, OpenAI Agents, CrewAI) add to a run (issue 27: at most 0.2 ms).

    python bench/bench_code_agents.py [--repeat 2000] [--rounds 5]

For each adapter whose framework is installed: a warm snippet (`x = 1`, a
Python run of a keep_state session) through the adapter's own entry point
(what the framework calls), and the same snippet through the adapter's
sandbox directly (`sb.python` / `sb.python_async`; for a shell call,
`sb.run_shell_async`), timed in alternating rounds so both see the same
machine load. Each cell is the median over rounds of a round's median, in
milliseconds; the overhead is the difference. A framework that is not
installed is skipped with a line saying so.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from collections.abc import Awaitable, Callable
from typing import Any

from timing import median_ms, median_ms_async

SNIPPET = "x = 1"


def _compare(direct: Callable[[], object], adapter: Callable[[], object], repeat: int, rounds: int) -> tuple[float, float]:
    for _ in range(50):  # warm both paths
        direct()
        adapter()
    d, a = [], []
    for _ in range(rounds):
        d.append(median_ms(direct, repeat))
        a.append(median_ms(adapter, repeat))
    return statistics.median(d), statistics.median(a)


async def _compare_async(direct: Callable[[], Awaitable[object]], adapter: Callable[[], Awaitable[object]],
                         repeat: int, rounds: int) -> tuple[float, float]:
    for _ in range(50):
        await direct()
        await adapter()
    d, a = [], []
    for _ in range(rounds):
        d.append(await median_ms_async(direct, repeat))
        a.append(await median_ms_async(adapter, repeat))
    return statistics.median(d), statistics.median(a)


def bench_smolagents(repeat: int, rounds: int) -> list[tuple[str, float, float]]:
    from smolagents import tool

    from amla_sandbox.integrations.smolagents import AmlaExecutor

    @tool
    def lookup(city: str) -> str:
        """Look up a city.

        Args:
            city: The city.
        """
        return city

    # A tool call through the adapter's function (positional arguments
    # bound on the guest's side) against the guest's own call_tool.
    call = "lookup('Paris')"
    direct_call = "call_tool('lookup', {'city': 'Paris'})"
    with AmlaExecutor(max_calls=10**9) as ex:
        ex.send_tools({"lookup": lookup})
        ex(SNIPPET)
        sb = ex.sandbox
        d1, a1 = _compare(lambda: sb.python(SNIPPET), lambda: ex(SNIPPET), repeat, rounds)
        d2, a2 = _compare(lambda: sb.python(direct_call), lambda: ex(call), repeat, rounds)
    return [("smolagents `AmlaExecutor(code)`", d1, a1), ("smolagents, a snippet calling one tool", d2, a2)]


def bench_llama_index(repeat: int, rounds: int) -> list[tuple[str, float, float]]:
    from amla_sandbox.integrations.llama_index import AmlaCodeExecutor

    async def go() -> tuple[float, float]:
        with AmlaCodeExecutor() as ex:
            await ex.execute(SNIPPET)
            sb = ex.sandbox
            return await _compare_async(lambda: sb.python_async(SNIPPET), lambda: ex.execute(SNIPPET), repeat, rounds)

    d, a = asyncio.run(go())
    return [("LlamaIndex `execute(code)`", d, a)]


def bench_openai_agents(repeat: int, rounds: int) -> list[tuple[str, float, float]]:
    from agents import RunContextWrapper
    from agents.tool import ShellActionRequest, ShellCallData, ShellCommandRequest

    from amla_sandbox.integrations.openai_agents import AmlaShell

    request = ShellCommandRequest(ctx_wrapper=RunContextWrapper(context=None),
                                  data=ShellCallData(call_id="c", action=ShellActionRequest(commands=["true"])))

    async def go() -> list[tuple[str, float, float]]:
        with AmlaShell() as shell:
            await shell.run_python(SNIPPET)
            sb = shell.sandbox
            d1, a1 = await _compare_async(lambda: sb.python_async(SNIPPET), lambda: shell.run_python(SNIPPET),
                                          repeat, rounds)
            d2, a2 = await _compare_async(lambda: sb.run_shell_async("true"), lambda: shell(request), repeat, rounds)
        return [("OpenAI Agents `run_python(code)`", d1, a1), ("OpenAI Agents shell executor, `true`", d2, a2)]

    return asyncio.run(go())


def bench_crewai(repeat: int, rounds: int) -> list[tuple[str, float, float]]:
    from amla_sandbox.integrations.crewai import AmlaCodeTool

    tool = AmlaCodeTool()
    try:
        tool.run(code=SNIPPET)
        sb = tool.sandbox
        d1, a1 = _compare(lambda: sb.python(SNIPPET), lambda: tool.run(code=SNIPPET), repeat, rounds)
        # _run alone: without CrewAI's own argument validation in run()
        d2, a2 = _compare(lambda: sb.python(SNIPPET), lambda: tool._run(code=SNIPPET), repeat, rounds)
    finally:
        tool.close()
    return [("CrewAI `AmlaCodeTool.run(code=...)`", d1, a1), ("CrewAI `AmlaCodeTool._run(code)`", d2, a2)]


BENCHES: list[tuple[str, Callable[[int, int], list[tuple[str, float, float]]]]] = [
    ("smolagents", bench_smolagents),
    ("llama-index-core", bench_llama_index),
    ("openai-agents", bench_openai_agents),
    ("crewai", bench_crewai),
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=2000, help="runs per round")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds (the median is reported)")
    args = ap.parse_args()
    rows: list[tuple[str, float, float]] = []
    for framework, bench in BENCHES:
        try:
            rows += bench(args.repeat, args.rounds)
        except ImportError as e:
            print(f"{framework}: skipped ({e})")
    print("| run | sandbox directly (ms) | through the adapter (ms) | added (ms) |")
    print("|---|---|---|---|")
    for name, d, a in rows:
        print(f"| {name} | {d:.3f} | {a:.3f} | {a - d:+.3f} |")


if __name__ == "__main__":
    main()
