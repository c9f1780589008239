"""Issue 24, item 15: what idle sandboxes cost the host once the idle time
has passed, in a process that runs nothing meanwhile.

100 sandboxes each run `console.log(1)` and then sit idle. After the
documented idle time (10 s, docs/architecture.md "Paying for start-up
once") their spares are released and the memory that freed is given back:
at most 0.1 MB of host RSS per idle sandbox. Before, the release came on a
timer polling every 2.5 s, up to 12.5 s after the last run: at 10.5 s the
sandboxes still cost 0.28 MB apiece.
"""

from __future__ import annotations

import sys

import pytest

from _hostile import run_isolated

MB = 1_000_000


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_idle_sandboxes_are_trimmed_after_the_idle_time() -> None:
    child = run_isolated(
        r'''
import gc
# The first run of the process (it also starts the timer of idle spares);
# its sandbox is closed, so only the 100 below hold anything afterwards.
first = Sandbox()
first.execute("console.log(1)")
first.close()
gc.collect()
before = rss_bytes()
started = time.monotonic()
sandboxes = [Sandbox() for _ in range(100)]
for sb in sandboxes:
    sb.execute("console.log(1)")
ran = time.monotonic()
gc.collect()
emit(runs_s=ran - started, right_after=(rss_bytes() - before) / 100)
time.sleep(10.5 - (time.monotonic() - ran))  # 10 s idle, and half a second
gc.collect()
emit(idle=(rss_bytes() - before) / 100)
# They all still run, and a sandbox in use stays quick.
for sb in sandboxes:
    assert sb.execute("console.log(2)") == "2\n"
t = time.monotonic()
for _ in range(200):
    sandboxes[0].execute("console.log(3)")
emit(warm_ms=(time.monotonic() - t) / 200 * 1000)
''',
        120.0,
    )
    # The scenario counts on the 100 runs taking less than 2 s (they take
    # about 0.5 s): the release timer of the previous build then had no
    # look between 10 and 10.5 s after them.
    assert child["runs_s"] < 2.0, child["runs_s"]
    assert child["idle"] <= 0.1 * MB, (
        f"{child['idle'] / MB:.3f} MB per idle sandbox after 10.5 s (right after the runs: "
        f"{child['right_after'] / MB:.3f} MB)"
    )
    assert child["warm_ms"] < 20, child["warm_ms"]


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_python_sandboxes_waiting_a_second_shed_their_image_pages() -> None:
    # 20 Python sandboxes that ran print(1) and wait for their next run:
    # right after the runs each maps about 7 MB of the guest's image
    # (resident in its own mapping though the page cache holds it once);
    # after the shed time (1-1.5 s, docs/architecture.md "Resetting an
    # instance") each keeps its spare but holds under 3 MB, and its next
    # run still starts from the snapshot's state.
    child = run_isolated(
        r'''
import gc
first = Sandbox()
first.python("print(1)")
time.sleep(2.0)
gc.collect()
before = rss_bytes()
sandboxes = [Sandbox() for _ in range(20)]
for sb in sandboxes:
    sb.python("x = 41\nprint(x + 1)")
time.sleep(0.3)
gc.collect()
emit(right_after=(rss_bytes() - before) / 20)
time.sleep(1.7)
gc.collect()
emit(waiting=(rss_bytes() - before) / 20)
for sb in sandboxes:
    assert sb.python("print('x' in globals())") == "False\n"
''',
        120.0,
    )
    assert child["waiting"] <= 3 * MB, (
        f"{child['waiting'] / MB:.2f} MB per Python sandbox waiting 2 s (right after the runs: "
        f"{child['right_after'] / MB:.2f} MB)"
    )
