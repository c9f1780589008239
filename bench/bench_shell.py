"""Shell benchmarks: pipelines and jq inside the sandbox vs the machine's native tools.

Run after `pip install .`:  python bench/bench_shell.py [--repeat N]
Needs native grep/sort/uniq/head and jq for the comparison column (skipped if absent).
Prints a Markdown table of medians (the numbers in docs/performance.md).
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import tempfile
from pathlib import Path

from timing import median_ms, parse_args

PIPELINE = "grep ERROR {f} | cut -d' ' -f4 | sort | uniq -c | sort -rn | head -5"
JQ = "jq '[.[] | select(.status >= 400) | .endpoint] | group_by(.) | map({{e: .[0], n: length}}) | sort_by(.n) | reverse | .[0:3]' {f}"


def make_log(size: int) -> str:
    rng = random.Random(7)
    levels = ["INFO"] * 6 + ["WARN"] * 2 + ["ERROR"]
    services = [f"svc{i}" for i in range(40)]
    lines, n = [], 0
    while n < size:
        line = f"2026-11-22T10:{rng.randrange(60):02d}:{rng.randrange(60):02d} {rng.choice(levels)} pid={rng.randrange(999)} {rng.choice(services)} request took {rng.randrange(5000)}ms\n"
        lines.append(line)
        n += len(line)
    return "".join(lines)


def make_json(size: int) -> str:
    rng = random.Random(11)
    items, n = [], 0
    while n < size:
        item = {"endpoint": f"/api/v1/r{rng.randrange(30)}", "status": rng.choice([200, 200, 200, 201, 404, 500]), "duration_ms": rng.randrange(900)}
        items.append(item)
        n += 60
    return json.dumps(items)


def main() -> None:
    args = parse_args()
    from amla_sandbox import Sandbox

    log, data = make_log(10 * 1024 * 1024), make_json(5 * 1024 * 1024)
    rows = []
    with tempfile.TemporaryDirectory() as d, Sandbox(timeout=120) as sb:
        (Path(d) / "app.log").write_text(log)
        (Path(d) / "data.json").write_text(data)
        sb.execute("", stdin=f"await fs.writeFile('/workspace/app.log', {json.dumps(log)}); await fs.writeFile('/workspace/data.json', {json.dumps(data)})")
        for name, template, native_tool in (
            ("grep \\| cut \\| sort \\| uniq -c \\| sort -rn \\| head over a 10 MB log", PIPELINE, "grep"),
            ("jq select/group_by over a 5 MB JSON array", JQ, "jq"),
        ):
            inside_cmd = template.format(f="/workspace/" + ("app.log" if native_tool == "grep" else "data.json"))
            native_cmd = template.format(f=str(Path(d) / ("app.log" if native_tool == "grep" else "data.json")))
            inside_out = sb.shell(inside_cmd)
            assert sb.last_result.exit_code == 0, sb.last_stderr
            inside = median_ms(lambda: sb.shell(inside_cmd), args.repeat)
            if shutil.which(native_tool):
                native_out = subprocess.run(["bash", "-c", native_cmd], capture_output=True, text=True, env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"}).stdout
                same = "same output" if json.dumps(inside_out) == json.dumps(native_out) or (native_tool == "jq" and json.loads(inside_out) == json.loads(native_out)) else "OUTPUT DIFFERS"
                native = median_ms(lambda: subprocess.run(["bash", "-c", native_cmd], capture_output=True, env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"}), args.repeat)
                rows.append((name, f"{inside:.0f} ms", f"{native:.0f} ms", f"{inside / native:.1f}×", same))
            else:
                rows.append((name, f"{inside:.0f} ms", "n/a", "n/a", ""))
    print("| workload | in the sandbox | native tools | ratio | check |")
    print("|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
