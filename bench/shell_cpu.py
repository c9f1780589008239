#!/usr/bin/env python3
"""CPU time of compare.py's two shell rows, for a shared machine whose load makes wall time noisy.

    python bench/shell_cpu.py                                  # our package, as imported
    ~/.cache/amla-bench/ref-0.2.8/bin/python bench/shell_cpu.py  # the reference (compare.py's venv)
    python bench/shell_cpu.py --native                         # GNU tools and jq, LC_ALL=C

Prints medians of 5 runs: user+sys CPU time of this process (every engine thread included) or,
with --native, of the child processes; wall time beside it. The data and commands are
compare.py's.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare  # noqa: E402

ROWS = [
    ("pipeline", compare.LOG_JS, compare.make_log, "/workspace/app.log", compare.PIPELINE_SH, compare.LOG_BYTES),
    ("jq", compare.JSON_JS_DATA, compare.make_json, "/workspace/data.json", compare.JQ_SH, compare.JSON_BYTES),
]


def cpu_ms(who: int) -> float:
    r = resource.getrusage(who)
    return (r.ru_utime + r.ru_stime) * 1000


def measure(run, who: int, n: int = 5) -> tuple[float, float]:
    run()
    cpus, walls = [], []
    for _ in range(n):
        c, w = cpu_ms(who), time.perf_counter()
        run()
        cpus.append(cpu_ms(who) - c)
        walls.append((time.perf_counter() - w) * 1000)
    return statistics.median(cpus), statistics.median(walls)


def main() -> None:
    native = "--native" in sys.argv[1:]
    sb = None
    if not native:
        from amla_sandbox import Sandbox

        sb = Sandbox()
    for name, js, make, path, template, size in ROWS:
        if native:
            d = tempfile.mkdtemp()
            p = os.path.join(d, "data")
            Path(p).write_text(make())
            cmd = ["bash", "-c", template.format(f=p)]
            env = {"LC_ALL": "C", "PATH": "/usr/bin:/bin"}
            cpu, wall = measure(lambda: subprocess.run(cmd, capture_output=True, env=env, check=True),
                                resource.RUSAGE_CHILDREN)
        else:
            assert sb is not None
            sb.execute(js.replace("@BYTES@", str(size)).replace("@PATH@", path))
            command = template.format(f=path)
            cpu, wall = measure(lambda: sb.shell(command), resource.RUSAGE_SELF)
        print(f"{name}: cpu {cpu:.0f} ms, wall {wall:.0f} ms")


if __name__ == "__main__":
    main()
