"""Durable sessions (issue 19, docs/durable.md): what snapshots, forks and
journals cost.

    python bench/bench_durable.py                 # Markdown table on stdout
    python bench/bench_durable.py --repeat 9

Measured, each `--repeat` times (median and range reported):

- snapshot + restore of 1,000 files / 50 MB (50 KiB each, text-like):
  `sb.snapshot()` then `Sandbox.from_snapshot(data)` (the new sandbox
  included), stored and compressed; restore alone;
- `sb.fork()` of a sandbox with five small files (the new sandbox included);
- a run with 1,000 tool calls (a JavaScript loop, Promise.all, a shell
  loop): journal size (whole, and without its start snapshot), the run
  recorded and not, and its replay;
- a short run (`console.log(1)`, `echo 1`) recorded and not.

The targets: snapshot + restore <= 0.5 s; fork <= 5 ms. The sandboxes'
directories live under $TMPDIR (default /tmp): the disk matters for the
first two (creating 1,000 files), so the script says where that is.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from amla_sandbox import Sandbox, tool_from_function


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def lookup(k: str) -> dict:
    """Look a key up."""
    return {"key": k, "value": len(k)}


TOOLS = [tool_from_function(add), tool_from_function(lookup)]
FUNCS: dict[str, Callable[..., Any]] = {"add": add, "lookup": lookup}


def handler(name: str, params: dict[str, Any]) -> Any:
    return FUNCS[name](**params)


# CPU time (all threads of the process, Go's included) of the last
# samples() call, per sample in ms: on a shared machine wall time says as
# much about the neighbours as about the code.
last_cpu: list[float] = []


def samples(fn: Callable[[], Any], repeat: int, setup: Callable[[], Any] | None = None) -> list[float]:
    """Wall times of fn() in ms; setup() (untimed) runs before each."""
    out = []
    last_cpu.clear()
    for _ in range(repeat):
        if setup is not None:
            setup()
        c = time.process_time()
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
        last_cpu.append((time.process_time() - c) * 1000)
    return out


def with_cpu(text: str) -> str:
    return f"{text}; CPU {statistics.median(last_cpu):.0f} ms"


def fmt(ms: list[float], unit: str = "ms") -> str:
    med = statistics.median(ms)
    if unit == "s":
        return f"{med / 1000:.3f} s ({min(ms) / 1000:.3f}–{max(ms) / 1000:.3f})"
    return f"{med:.2f} ms ({min(ms):.2f}–{max(ms):.2f})"


def fill_50mb(sb: Sandbox) -> None:
    """1,000 files of 50 KiB of words, in 20 directories."""
    sb.execute(
        """
        const words = ["alpha", "beta", "gamma", "delta", "sandbox", "tool", "call", "journal", "42", "\\n"];
        let seed = 1;
        const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
        for (let d = 0; d < 20; d++) await fs.mkdir("/workspace/d" + d, {recursive: true});
        for (let i = 0; i < 1000; i++) {
          let s = "";
          while (s.length < 51200) s += words[Math.floor(rnd() * words.length)] + " ";
          await fs.writeFile("/workspace/d" + (i % 20) + "/f" + i + ".txt", s.slice(0, 51200));
        }
        """
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    rows: list[tuple[str, str]] = []
    print(f"sandbox directories under {tempfile.gettempdir()}", file=sys.stderr)

    # -- snapshot + restore: 1,000 files, 50 MB --------------------------------
    sb = Sandbox(tools=TOOLS, tool_handler=handler, timeout=120)
    fill_50mb(sb)
    for compress in (False, True):
        made: list[Sandbox] = []
        size = len(sb.snapshot(compress=compress))

        def both() -> None:
            data = sb.snapshot(compress=compress)
            made.append(Sandbox.from_snapshot(data, tools=TOOLS, tool_handler=handler))

        def close_made() -> None:
            # Closing removes the sandbox's 1,000 files. On ext4, creating
            # files right after removing as many in the same place makes the
            # inode allocator skip the recently freed inodes one by one (up
            # to several times the restore's own CPU time here), so the
            # restored sandboxes are kept until the measure is done.
            pass

        t = samples(both, args.repeat, setup=close_made)
        label = "compressed" if compress else "stored"
        rows.append((f"snapshot + restore, 1,000 files / 50 MB, {label} ({size / 1e6:.1f} MB)", with_cpu(fmt(t, "s"))))
        data = sb.snapshot(compress=compress)
        t = samples(lambda: sb.snapshot(compress=compress), args.repeat)
        rows.append((f"snapshot alone, {label}", with_cpu(fmt(t, "s"))))
        t = samples(lambda: made.append(Sandbox.from_snapshot(data, tools=TOOLS, tool_handler=handler)),
                    args.repeat, setup=close_made)
        rows.append((f"restore alone (from_snapshot), {label}", with_cpu(fmt(t, "s"))))
        while made:
            made.pop().close()
    sb.close()

    # -- fork of a sandbox with a few small files ------------------------------------------
    small = Sandbox(tools=TOOLS, tool_handler=handler)
    small.shell("for i in 1 2 3 4 5; do echo file $i > /workspace/f$i.txt; done")
    forks: list[Sandbox] = []
    small.fork().close()  # the first fork warms what every sandbox shares

    def close_forks() -> None:
        while forks:
            forks.pop().close()

    t = samples(lambda: forks.append(small.fork()), max(args.repeat, 20), setup=close_forks)
    close_forks()
    rows.append(("fork() of a sandbox with 5 small files", with_cpu(fmt(t))))
    t = samples(lambda: forks.append(Sandbox(tools=TOOLS, tool_handler=handler)), max(args.repeat, 20), setup=close_forks)
    close_forks()
    rows.append(("  for comparison: Sandbox() (a new, empty sandbox)", fmt(t)))
    small.close()

    # -- journals: 1,000 tool calls ---------------------------------------------------------------
    runs = {
        "JavaScript loop, 1,000 awaited add()": ("javascript", "let t = 0; for (let i = 0; i < 1000; i++) t += await add({a: i, b: 1}); console.log(t);"),
        "JavaScript Promise.all of 1,000 lookup()": ("javascript", "const r = await Promise.all(Array.from({length: 1000}, (_, i) => lookup({k: 'key' + i}))); console.log(r.length);"),
        "shell loop, 1,000 `tool add`": ("shell", "for i in $(seq 1 1000); do tool add --a $i --b 1; done | tail -1"),
        "console.log(1)": ("javascript", "console.log(1)"),
        "echo 1": ("shell", "echo 1"),
    }
    for label, (lang, code) in runs.items():
        plain = Sandbox(tools=TOOLS, tool_handler=handler, timeout=120)
        rec = Sandbox(tools=TOOLS, tool_handler=handler, timeout=120, record=True)
        run = (lambda s: (lambda: s.execute(code) if lang == "javascript" else s.shell(code)))
        run(plain)()
        run(rec)()
        journal = rec.last_result.journal
        assert journal is not None
        digest_sb = Sandbox(tools=TOOLS, tool_handler=handler, timeout=120, record="digest")
        run(digest_sb)()
        events_only = len(digest_sb.last_result.journal or b"")
        repeat = args.repeat if "1,000" in label else max(args.repeat, 50)
        t_plain = samples(run(plain), repeat)
        t_rec = samples(run(rec), repeat)
        replayed: list[Sandbox] = []
        t_replay = samples(lambda: replayed.append(Sandbox.replay(journal, tools=TOOLS, tool_handler=handler, timeout=120)), args.repeat)
        for s in replayed + [plain, rec, digest_sb]:
            s.close()
        rows.append((f"{label}: journal", f"{len(journal):,} bytes ({events_only:,} with only the start digest)"))
        rows.append((f"{label}: run / recorded / replay (new sandbox included)", f"{fmt(t_plain)} / {fmt(t_rec)} / {fmt(t_replay)}"))

    print(f"| measure (median of {args.repeat}+, range) | value |")
    print("|---|---|")
    for k, v in rows:
        print(f"| {k} | {v} |")
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", file=sys.stderr)


if __name__ == "__main__":
    main()
