"""Rendering tool declarations (issue 29 item 2; budget: 100 tools in at
most 10 ms).

Run after `pip install .` in a source checkout (or with PYTHONPATH at a
built one):
    python bench/bench_declarations.py [--tools N] [--repeat R]

The tools are the first N (default 100) of gocore/decl/testdata/github.json,
a GitHub-like MCP server's real-looking schemas (nested objects, enums,
unions, $refs, output schemas). Each figure is the median of R (default
21) calls through the public API, so it includes turning the definitions
into JSON and crossing into Go: SandboxTool.get_tool_declarations() per
language, the system prompt (every language; past 15 tools it names the
tools rather than declaring them) and, for the prompt of 15 tools, every
declaration in three languages. Also: making a Sandbox of those tools,
which renders each tool's TypeScript and Python declaration into its info
file for tools.describe, against a Sandbox of one tool.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from amla_sandbox import Sandbox, SandboxTool, ToolDefinition

TESTDATA = Path(__file__).resolve().parents[1] / "gocore" / "decl" / "testdata"


def definitions(n: int) -> list[ToolDefinition]:
    data = json.loads((TESTDATA / "github.json").read_text())
    if len(data) < n:
        raise SystemExit(f"github.json has {len(data)} tools, fewer than {n}")
    return [ToolDefinition.from_dict({"description": "", **t}) for t in data[:n]]


def median_ms(fn: Callable[[], Any], repeat: int) -> float:
    fn()  # warm: the extension's first call, caches
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tools", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=21)
    args = ap.parse_args()
    defs = definitions(args.tools)
    rows: list[tuple[str, float]] = []
    with Sandbox(tools=defs) as sb:
        tool = SandboxTool(sandbox=sb)
        for lang in ("typescript", "python", "shell"):
            text = tool.get_tool_declarations(lang)
            ms = median_ms(lambda lang=lang: tool.get_tool_declarations(lang), args.repeat)
            rows.append((f"get_tool_declarations({lang!r}), {args.tools} tools ({len(text):,} bytes)", ms))
        name = defs[len(defs) // 2].name
        ms = median_ms(lambda: tool.get_tool_declarations("typescript", names=[name]), args.repeat)
        rows.append((f"get_tool_declarations('typescript', names=[one]) of {args.tools}", ms))
        prompt = tool.get_system_prompt()
        ms = median_ms(tool.get_system_prompt, args.repeat)
        rows.append((f"get_system_prompt(), {args.tools} tools: names only ({len(prompt):,} bytes)", ms))
    with Sandbox(tools=defs[:15]) as sb:
        tool = SandboxTool(sandbox=sb)
        prompt = tool.get_system_prompt()
        ms = median_ms(tool.get_system_prompt, args.repeat)
        rows.append((f"get_system_prompt(), 15 tools: declarations in 3 languages ({len(prompt):,} bytes)", ms))

    def make(tools: list[ToolDefinition]) -> None:
        Sandbox(tools=tools).close()

    one = median_ms(lambda: make(defs[:1]), max(5, args.repeat // 3))
    many = median_ms(lambda: make(defs), max(5, args.repeat // 3))
    rows.append(("making a Sandbox of 1 tool", one))
    rows.append((f"making a Sandbox of {args.tools} tools (their info files hold their declarations)", many))

    print(f"Tool declarations: the first {args.tools} tools of gocore/decl/testdata/github.json, median of {args.repeat}\n")
    print("| what | ms |")
    print("|---|---|")
    for label, ms in rows:
        print(f"| {label} | {ms:.2f} |")


if __name__ == "__main__":
    main()
