"""TypeScript benchmarks: what stripping types adds to a run.

Run after `pip install .`:  python bench/bench_typescript.py [--repeat N]
Prints a Markdown table of medians (the numbers in docs/performance.md).

The same agent-style script is run as TypeScript and, with its types removed
by hand, as JavaScript on a warm sandbox; the difference is the host's
transform (esbuild plus the line layout, gocore/typescript). A 100,000-deep
nesting shows what the caps cost a hostile script.
"""

from __future__ import annotations

from timing import median_ms, parse_args

from amla_sandbox import Sandbox

UNIT_TS = """\
interface Item{i} {{ id: number; name: string; tags?: string[] }}
async function load{i}(ids: number[]): Promise<Item{i}[]> {{
  const out: Item{i}[] = [];
  for (const id of ids) {{
    const r = {{ id, name: "n" + id, tags: id % 2 ? ["a"] : undefined }} as Item{i};
    if (r.tags?.includes("a")) out.push(r);
  }}
  return out;
}}
total += (await load{i}([1, 2, 3])).length;
"""


UNIT_JS = """\

async function load{i}(ids) {{
  const out = [];
  for (const id of ids) {{
    const r = {{ id, name: "n" + id, tags: id % 2 ? ["a"] : undefined }};
    if (r.tags?.includes("a")) out.push(r);
  }}
  return out;
}}
total += (await load{i}([1, 2, 3])).length;
"""


def script(size: int) -> tuple[str, str]:
    """An agent-style TypeScript script of about size bytes, and the same
    script without its types."""
    ts, js, i = ["let total: number = 0;\n"], ["let total = 0;\n"], 0
    while sum(map(len, ts)) < size:
        ts.append(UNIT_TS.format(i=i))
        js.append(UNIT_JS.format(i=i))
        i += 1
    ts.append("console.log(total);\n")
    js.append("console.log(total);\n")
    return "".join(ts), "".join(js)


def main() -> None:
    args = parse_args()
    rows = []
    with Sandbox() as sb:
        for size in (1 << 10, 20 << 10, 100 << 10):
            ts, js = script(size)
            want = sb.execute(js, language="javascript")
            assert sb.execute(ts, language="typescript") == want, "TypeScript and JavaScript disagree"
            t_js = median_ms(lambda: sb.execute(js, language="javascript"), args.repeat)
            t_ts = median_ms(lambda: sb.execute(ts, language="typescript"), args.repeat)
            rows.append((f"agent script, {len(ts) // 1024} KB", t_js, t_ts))
            # Plain JavaScript through the TypeScript loader (what routing
            # every JavaScript run through it would cost).
            t_jts = median_ms(lambda: sb.execute(js, language="typescript"), args.repeat)
            rows.append((f"the same without types, {len(js) // 1024} KB, as TypeScript", t_js, t_jts))
        deep = "(" * 100_000 + "1" + ")" * 100_000
        t_deep = median_ms(lambda: sb.execute(deep, language="typescript"), args.repeat)
    print("| Run | as JavaScript (ms) | as TypeScript (ms) | difference (ms) |")
    print("|---|---|---|---|")
    for name, a, b in rows:
        print(f"| {name} | {a:.2f} | {b:.2f} | {b - a:.2f} |")
    print(f"| 100,000-deep nesting, refused | - | {t_deep:.2f} | - |")


if __name__ == "__main__":
    main()
