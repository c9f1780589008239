"""Install and first-run timing, as a new user meets them.

For a wheel (or sdist) given on the command line:
  1. create a fresh venv and `pip install` the file (timed; pip's cache is
     used as a user's would be after one earlier download of dependencies);
  2. in a fresh process with an empty module cache, create a sandbox and run
     one shell and one JavaScript command (timed: "first run, empty cache");
  3. the same again in another fresh process ("first run, warm cache").
Each run is wall time of the whole child process (interpreter start, import,
sandbox creation, the runs), with the peak RSS the child reports.

Run: python bench/install_first_run.py dist/amla_sandbox-0.3.0-*.whl [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
from amla_sandbox import create_sandbox_tool
tool = create_sandbox_tool()
t1 = time.perf_counter()
a = tool.run("echo hi | tr a-z A-Z", language="shell")
b = tool.run("console.log(6 * 7)", language="javascript")
t2 = time.perf_counter()
assert a.strip() == "HI" and b.strip() == "42", (a, b)
print(json.dumps({"create_s": t1 - t0, "runs_s": t2 - t1,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, str, str]:
    start = time.perf_counter()
    out = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    took = time.perf_counter() - start
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{out.stdout}\n{out.stderr}")
    return took, out.stdout, out.stderr


def one_round(artifact: Path, work: Path) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    venv.EnvBuilder(with_pip=True, clear=True).create(work / "venv")
    py = str(work / "venv" / "bin" / "python")
    install_s, _, _ = timed([py, "-m", "pip", "install", "-q", "--disable-pip-version-check", str(artifact)], env, work)
    env["AMLA_CACHE_DIR"] = str(work / "cache")
    env["XDG_CACHE_HOME"] = str(work / "xdg")
    cold_s, cold_out, cold_err = timed([py, "-c", CHILD], env, work)
    warm_s, warm_out, _ = timed([py, "-c", CHILD], env, work)
    cache_mb = sum(p.stat().st_size for p in (work / "cache").glob("*.cwasm")) / 1e6
    return {
        "install_s": round(install_s, 2),
        "first_run_empty_cache_s": round(cold_s, 2),
        "first_run_empty_cache_detail": json.loads(cold_out),
        "stderr_note": cold_err.strip().splitlines(),
        "first_run_warm_cache_s": round(warm_s, 2),
        "first_run_warm_cache_detail": json.loads(warm_out),
        "cache_mb": round(cache_mb, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("artifact", type=Path, help="wheel or sdist to install")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    print(f"artifact: {args.artifact.name} ({args.artifact.stat().st_size / 1e6:.1f} MB)")
    for i in range(args.repeat):
        work = Path(tempfile.mkdtemp(prefix="amla-firstrun-"))
        try:
            print(json.dumps(one_round(args.artifact.resolve(), work), indent=1))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
