"""Network benchmarks: an HTTP request from a script against the same request from the host.

Run after `pip install .`:  python bench/bench_network.py [--repeat N]
Prints a Markdown table of medians (the numbers in docs/performance.md).

A real server on 127.0.0.1 (tests/_netserver.py, in a process of its own) answers a small JSON
body. The host's baseline is Python's urllib.request from the host, a new connection per request
as urlopen makes them. Each language makes 20 requests in one run, one after another, so the
per-request figure is the run's time over 20 (a run's own start is in docs/performance.md's other
rows); "one request" is a whole run that makes a single request. The overlap row runs 50 fetches
of a 100 ms endpoint at once under execute_async, against one such fetch.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from timing import median_ms, parse_args

from amla_sandbox import Sandbox

N = 20
TESTS = Path(__file__).resolve().parent.parent / "tests"


def start_server() -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, str(TESTS / "_netserver.py")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def scripts(url: str) -> dict[str, tuple[str, str]]:
    """language -> (code making N requests, code making one)."""
    js = f"for (let i = 0; i < {N}; i++) {{ const r = await fetch('{url}/json'); await r.json(); }}"
    py = (f"import json, urllib.request\nfor _ in range({N}):\n"
          f"    json.load(urllib.request.urlopen('{url}/json'))\n")
    sh = f"for i in $(seq {N}); do curl -s {url}/json > /dev/null; done"
    return {
        "javascript": (js, f"await (await fetch('{url}/json')).json()"),
        "python": (py, f"import urllib.request\nurllib.request.urlopen('{url}/json').read()"),
        "shell": (sh, f"curl -s {url}/json > /dev/null"),
    }


def main() -> None:
    args = parse_args()
    proc, url = start_server()
    try:
        def host_requests() -> None:
            for _ in range(N):
                with urllib.request.urlopen(f"{url}/json") as r:
                    r.read()

        host_requests()
        t_host = median_ms(host_requests, args.repeat) / N
        rows = []
        policy = {"allow": [f"GET {url}/**"], "allow_private": ["127.0.0.1"], "max_requests": 1_000_000,
                  "max_concurrent": 50}
        with Sandbox(network=policy, timeout=120) as sb:
            for lang, (many, one) in scripts(url).items():
                sb.execute(many, language=lang)
                if sb.last_result.exit_code != 0:
                    rows.append((lang, None, None, sb.last_result.stderr.strip().splitlines()[-1:]))
                    continue
                per = median_ms(lambda: sb.execute(many, language=lang), args.repeat) / N
                single = median_ms(lambda: sb.execute(one, language=lang), args.repeat)
                rows.append((lang, per, single, None))

            one_slow = f"await fetch('{url}/slow?ms=100')"
            fifty = f"await Promise.all(Array.from({{length: 50}}, () => fetch('{url}/slow?ms=100')))"

            def timed(code: str) -> float:
                t = time.perf_counter()
                asyncio.run(sb.execute_async(code))
                assert sb.last_result.exit_code == 0, sb.last_result.stderr
                return (time.perf_counter() - t) * 1000

            timed(fifty)
            t_one = min(timed(one_slow) for _ in range(args.repeat))
            t_fifty = min(timed(fifty) for _ in range(args.repeat))
    finally:
        proc.stdin.close()  # type: ignore[union-attr]
        proc.wait(timeout=10)

    print(f"| Request (small JSON, 127.0.0.1) | per request (ms) | target: 1.3 x host + 0.3 ms | one-request run (ms) |")
    print("|---|---|---|---|")
    print(f"| host: urllib.request | {t_host:.3f} | - | - |")
    target = 1.3 * t_host + 0.3
    for lang, per, single, err in rows:
        if per is None:
            print(f"| {lang} | not available: {err} | {target:.3f} | - |")
            continue
        ok = "meets" if per <= target else "misses"
        print(f"| {lang} | {per:.3f} ({per / t_host:.2f} x host) | {target:.3f} ({ok}) | {single:.2f} |")
    print()
    print("| Overlap (100 ms endpoint, execute_async) | ms |")
    print("|---|---|")
    print(f"| one fetch | {t_one:.1f} |")
    print(f"| 50 fetches with Promise.all | {t_fifty:.1f} ({t_fifty / t_one:.2f} x one; target <= 3 x) |")


if __name__ == "__main__":
    main()
