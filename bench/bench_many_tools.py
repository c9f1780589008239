"""Many tools with long descriptions (issue 24, item 13; figures in
docs/performance.md, "Many tools").

Run after `pip install .` (or with PYTHONPATH at a built checkout):
    python bench/bench_many_tools.py [--tools N] [--description BYTES] [--repeat R]

What N tools (default 10,000) with descriptions of BYTES (default 5,000)
add to a run that calls none of them: `console.log(1)`, Python `print(1)`
and shell `echo 1`, against the same run in a sandbox with one tool. The
two sandboxes alternate run by run, so a shared machine's load falls on
both alike; each figure is the median of R rounds (default 5) of 10 runs.
Also: how long making the sandbox takes (it writes one info file per tool
and the index of them all); what N tools add to a run that calls one tool
(JavaScript and Python read the index then, and make only that tool's
global), against the same run in a sandbox of 3 tools; and a first
getToolInfo / get_tool_info / tool --describe, which read the index and one
info file.
"""

from __future__ import annotations

import argparse
import statistics
import time

from amla_sandbox import Sandbox, ToolDefinition

RUNS = [("JavaScript `console.log(1)`", "javascript", "console.log(1)"),
        ("Python `print(1)`", "python", "print(1)"),
        ("shell `echo 1`", "shell", "echo 1")]


def definitions(n: int, size: int) -> list[ToolDefinition]:
    return [ToolDefinition(name=f"srv.tool_{i}", description=(f"Tool {i} finds thing {i}.\n" + "lorem ipsum " * (size // 12))[:size],
                           parameters={"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]})
            for i in range(n)]


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tools", type=int, default=10_000)
    ap.add_argument("--description", type=int, default=5_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    few = Sandbox(tools=definitions(1, args.description), tool_handler=lambda m, p: 1, timeout=60)
    defs = definitions(args.tools, args.description)
    made: list[Sandbox] = []
    make_ms = timed(lambda: made.append(Sandbox(tools=defs, tool_handler=lambda m, p: 1, timeout=60)))
    many = made[0]
    print(f"{args.tools:,} tools, {args.description:,}-byte descriptions; making the sandbox: {make_ms:.0f} ms\n")
    print("| run | one tool | many tools | added |")
    print("|---|---|---|---|")
    for label, language, code in RUNS:
        few.execute(code, language=language)
        many.execute(code, language=language)
        rounds = []
        for _ in range(args.repeat):
            a, b = [], []
            for _ in range(10):
                a.append(timed(lambda: few.execute(code, language=language)))
                b.append(timed(lambda: many.execute(code, language=language)))
            rounds.append((statistics.median(a), statistics.median(b)))
        base = statistics.median(r[0] for r in rounds)
        big = statistics.median(r[1] for r in rounds)
        added = [r[1] - r[0] for r in rounds]
        print(f"| {label} | {base:.1f} ms | {big:.1f} ms | {statistics.median(added):.1f} ms "
              f"({min(added):.1f}–{max(added):.1f}) |")
    print()
    # A run calling one tool, against the same run in a sandbox of 3 tools.
    three = Sandbox(tools=[defs[i] for i in (0, 1, 77)], tool_handler=lambda m, p: 1, timeout=60)
    print("| run calling one tool | 3 tools | many tools | added |")
    print("|---|---|---|---|")
    for label, language, code in [("JavaScript `await srv.tool_77({q: 'x'})`", "javascript", "await srv.tool_77({q: 'x'})"),
                                  ("Python `srv.tool_77(q='x')`", "python", "srv.tool_77(q='x')")]:
        three.execute(code, language=language)
        many.execute(code, language=language)
        rounds = []
        for _ in range(args.repeat):
            a, b = [], []
            for _ in range(10):
                a.append(timed(lambda: three.execute(code, language=language)))
                b.append(timed(lambda: many.execute(code, language=language)))
            rounds.append((statistics.median(a), statistics.median(b)))
        added = [r[1] - r[0] for r in rounds]
        print(f"| {label} | {statistics.median(r[0] for r in rounds):.1f} ms | {statistics.median(r[1] for r in rounds):.1f} ms | "
              f"{statistics.median(added):.1f} ms ({min(added):.1f}–{max(added):.1f}) |")
    three.close()
    print()
    for label, fn in [
        ("JavaScript getToolInfo of one tool", lambda: many.execute("console.log(getToolInfo('srv.tool_77').description.length)")),
        ("Python get_tool_info of one tool", lambda: many.execute("print(len(get_tool_info('srv.tool_77')['description']))", language="python")),
        ("shell tool --describe of one tool", lambda: many.shell("tool --describe srv.tool_77 > /dev/null")),
    ]:
        fn()
        print(f"- {label}: a run of {statistics.median(timed(fn) for _ in range(5)):.1f} ms")
    few.close()
    many.close()


if __name__ == "__main__":
    main()
