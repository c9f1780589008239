"""The parent side of the hostile suite: run a scenario in a child process
with a deadline, and read back what it reported."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import amla_sandbox

HERE = Path(__file__).resolve().parent
# The package under test (source tree or installed), so children import the same one.
PACKAGE_ROOT = Path(amla_sandbox.__file__).resolve().parent.parent
RESULT_PREFIX = "@@RESULT "


@dataclass
class ChildRun:
    """What a child process did: its reports (one dict per `emit()`), output and exit."""

    reports: list[dict[str, Any]]
    stdout: str
    stderr: str
    returncode: int
    elapsed: float
    merged: dict[str, Any] = field(default_factory=dict)
    hung: bool = False
    deadline_s: float = 0.0

    def __getitem__(self, key: str) -> Any:
        if key not in self.merged:
            pytest.fail(
                f"child did not report {key!r} (reported {sorted(self.merged)}); "
                f"exit {self.returncode}; stderr tail:\n{self.stderr[-3000:]}"
            )
        return self.merged[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.merged.get(key, default)


def _child_env(extra: dict[str, str] | None) -> dict[str, str]:
    env = dict(os.environ)
    paths = [str(HERE), str(PACKAGE_ROOT)]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONFAULTHANDLER"] = "1"
    if extra:
        env.update(extra)
    return env


def spawn_isolated(
    code: str,
    deadline_s: float,
    *,
    env: dict[str, str] | None = None,
    stack_limit: int | None = None,
) -> ChildRun:
    """Run `code` (Python, may use everything in `_child`) in a child
    interpreter; kill it if it outlives `deadline_s` (then `.hung` is True).
    `stack_limit` sets the child's RLIMIT_STACK (bytes), which is also the
    C library's default stack for the threads it starts. Asserts nothing:
    see `check_child`."""
    source = "from _child import *\n" + textwrap.dedent(code)
    start = time.monotonic()

    def in_child() -> None:
        # A child inherits ignored signals across exec, and Python installs its
        # Ctrl-C handler only when SIGINT is not ignored: a suite started in the
        # background of a non-interactive shell would turn the Ctrl-C scenarios
        # into hangs. Children start with the default disposition instead.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        if stack_limit is not None:
            resource.setrlimit(resource.RLIMIT_STACK, (stack_limit, resource.getrlimit(resource.RLIMIT_STACK)[1]))

    proc = subprocess.Popen(
        [sys.executable, "-c", source],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_child_env(env),
        cwd=HERE,  # `-c` puts the cwd first on sys.path: never a checkout other than the one under test
        text=True,
        errors="replace",
        start_new_session=True,
        preexec_fn=in_child,
    )
    hung = False
    try:
        out, err = proc.communicate(timeout=deadline_s)
    except subprocess.TimeoutExpired:
        hung = True
        try:
            # A traceback of every thread first (faulthandler), then kill.
            os.killpg(proc.pid, signal.SIGABRT)
            out, err = proc.communicate(timeout=3)
        except (subprocess.TimeoutExpired, ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
    run = ChildRun(_reports(out), out, err, proc.returncode, time.monotonic() - start)
    run.hung, run.deadline_s = hung, deadline_s
    for r in run.reports:
        run.merged.update(r)
    return run


def check_child(run: ChildRun, *, expect_clean_exit: bool = True) -> ChildRun:
    """Fail the test if the child hung or (unless told otherwise) crashed."""
    if run.hung:
        pytest.fail(
            f"hung: the scenario did not finish within {run.deadline_s:.0f}s (killed). "
            f"Reported before the hang: {run.reports}\nstderr tail:\n{run.stderr[-4000:]}",
            pytrace=False,
        )
    if expect_clean_exit and run.returncode != 0:
        rc = run.returncode
        how = f"signal {-rc}" if rc < 0 else f"exit code {rc}"
        pytest.fail(
            f"crashed: the child process ended with {how}. Reported: {run.reports}\n"
            f"stderr tail:\n{run.stderr[-4000:]}",
            pytrace=False,
        )
    return run


def run_isolated(
    code: str,
    deadline_s: float,
    *,
    env: dict[str, str] | None = None,
    expect_clean_exit: bool = True,
    stack_limit: int | None = None,
) -> ChildRun:
    """spawn_isolated + check_child: the child's reports, or a failed test
    ("hung" past the deadline, "crashed" on a signal or non-zero exit)."""
    return check_child(
        spawn_isolated(code, deadline_s, env=env, stack_limit=stack_limit), expect_clean_exit=expect_clean_exit
    )


def spawn_many(codes: dict[str, str], deadline_s: float, workers: int = 4) -> dict[str, ChildRun]:
    """spawn_isolated for many scenarios, `workers` at a time (hangs then cost
    one deadline per `workers` scenarios, not one each)."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {key: pool.submit(spawn_isolated, code, deadline_s) for key, code in codes.items()}
        return {key: f.result() for key, f in futures.items()}


def _reports(out: str) -> list[dict[str, Any]]:
    found = []
    for line in out.splitlines():
        if line.startswith(RESULT_PREFIX):
            found.append(json.loads(line[len(RESULT_PREFIX) :]))
    return found


def warm_module_cache() -> None:
    """Run JavaScript and shell once (compiling and caching both guests if needed)."""
    run_isolated("sb = Sandbox()\nsb.execute('1')\nsb.shell('true')\nsb.close()\nemit(warm=True)", 300)


# -- assertions on reported outcomes -----------------------------------------------------------


def assert_finished_quickly(outcome: dict[str, Any], limit_s: float, what: str) -> None:
    assert outcome["dt"] < limit_s, f"{what}: took {outcome['dt']:.2f}s (limit {limit_s}s): {outcome}"


def assert_raised(outcome: dict[str, Any], type_name: str, what: str) -> None:
    assert not outcome["ok"], f"{what}: expected {type_name}, but it returned {outcome.get('value')!r:.300}"
    assert outcome["type"] == type_name, f"{what}: expected {type_name}, got {outcome['type']}: {outcome['msg']:.500}"
