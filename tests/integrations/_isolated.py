"""Run a framework adapter's test file in a venv of its own
(docs/integrations.md, "Frameworks tested in venvs of their own").

Some frameworks pin dependencies that cannot be installed beside the `test`
extra (strands-agents needs mcp<2.2, crewai needs mcp<2 and openai<3, the
test extra pins mcp==2.3.0 and openai-agents, which needs openai>=3). Their
test files then run in a venv holding only the framework's extra, as pinned
in pyproject.toml (the one source of truth), plus pytest and pytest-timeout
at the versions the calling pytest runs.

Where the venvs live: `$AMLA_FRAMEWORK_VENVS`, else
`$XDG_CACHE_HOME/amla-sandbox/framework-venvs` (`~/.cache/...`), one
directory per extra named `<extra>-<hash>`, the hash covering the
requirements, the test tools' versions and the interpreter. A change of any
of them makes a new venv; deleting the directory clears them all.

Creating one is safe against several pytest processes at once: an exclusive
`flock` on `<name>.lock` is held while a venv is checked and built, and a
venv counts as made only once the marker file `amla-ready` is written, after
pip and an import of the framework succeeded. A failed or interrupted build
is deleted (by the builder, or by the next one that finds it unmarked), so the
next run tries again. The venv is built at its final path, not renamed into
place, because pip writes that path into the scripts it installs.

The package under test is not installed in the venv: it has no runtime
dependencies, so the child gets `PYTHONPATH=<run dir>/pkg`, a directory
holding only a symlink `amla_sandbox -> <the tested package>`. Adding the
directory containing the tested package instead would expose the test
venv's site-packages (mcp 2.3, openai 3, ...) ahead of the framework's
pins; a symlink inside the cached venv would be shared, and repointed, by
every checkout using it at once. A per-run link leaves the cached venv
unchanged after it is made and shows the child exactly one amla_sandbox.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent

# Set in the child's environment: a test run inside an isolated venv must not
# build isolated venvs of its own.
INNER_ENV = "AMLA_ISOLATED_FRAMEWORK_RUN"
READY = "amla-ready"
PIP_TIMEOUT_S = 1500
# Variables that would point the child at another interpreter, package set or
# pytest configuration than the venv's.
_DROPPED = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_CURRENT_TEST",
            "PIP_TARGET", "PIP_PREFIX", "PIP_USER", "PIP_REQUIRE_VIRTUALENV")


class IsolatedVenvError(Exception):
    """A framework venv could not be made; the message says why (pip's last lines)."""


def cache_root() -> Path:
    override = os.environ.get("AMLA_FRAMEWORK_VENVS")
    if override:
        return Path(override)
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "amla-sandbox" / "framework-venvs"


def extra_requirements(extra: str, pyproject: Path = ROOT / "pyproject.toml") -> list[str]:
    """The requirements of `extra` in pyproject.toml's optional-dependencies."""
    extras = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    if extra not in extras:
        raise KeyError(f"{pyproject} has no optional-dependencies extra {extra!r}")
    return list(extras[extra])


def test_tools() -> list[str]:
    """pytest and pytest-timeout at the calling environment's versions."""
    return [f"{name}=={metadata.version(name)}" for name in ("pytest", "pytest-timeout")]


def framework_venv(extra: str, module: str) -> FrameworkVenv:
    """The venv for `extra`: its pinned requirements plus the test tools."""
    return FrameworkVenv(extra, module, extra_requirements(extra) + test_tools())


def _child_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED}
    env.update(extra)
    return env


def _tail(text: str, lines: int = 40) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


@dataclass
class FrameworkVenv:
    extra: str
    module: str  # what `import` must find in the venv
    requirements: list[str]
    root: Path = field(default_factory=cache_root)

    @property
    def path(self) -> Path:
        key = json.dumps(
            {"requirements": self.requirements, "python": sys.version, "base": os.path.realpath(sys.base_prefix)},
            sort_keys=True,
        )
        return self.root / f"{self.extra}-{hashlib.sha256(key.encode()).hexdigest()[:16]}"

    @property
    def python(self) -> Path:
        return self.path / "bin" / "python"

    def ensure(self) -> Path:
        """The venv's interpreter, building the venv first when it is not made yet."""
        if os.environ.get(INNER_ENV):
            raise IsolatedVenvError(f"already inside an isolated run ({INNER_ENV}={os.environ[INNER_ENV]}): no nested venvs")
        venv = self.path
        if (venv / READY).is_file():
            return self.python
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / f"{venv.name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            if (venv / READY).is_file():  # another process made it while this one waited
                return self.python
            shutil.rmtree(venv, ignore_errors=True)  # an interrupted build's leftovers
            try:
                self._build(venv)
            except BaseException:
                shutil.rmtree(venv, ignore_errors=True)
                raise
        return self.python

    def _build(self, venv: Path) -> None:
        made = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True, text=True, env=_child_env())
        if made.returncode != 0:
            raise IsolatedVenvError(f"`python -m venv {venv}` failed:\n{_tail(made.stdout + made.stderr)}")
        command = [str(self.python), "-m", "pip", "install", "--disable-pip-version-check", "--no-input",
                   *self.requirements]
        try:
            pip = subprocess.run(command, capture_output=True, text=True, env=_child_env(), timeout=PIP_TIMEOUT_S)
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            raise IsolatedVenvError(f"pip install {' '.join(self.requirements)} took over {PIP_TIMEOUT_S} s:\n{_tail(out)}") from None
        if pip.returncode != 0:
            raise IsolatedVenvError(
                f"pip install {' '.join(self.requirements)} failed (exit {pip.returncode}) in {venv}; "
                f"the venv was removed, the next run tries again. pip's last lines:\n{_tail(pip.stdout + pip.stderr)}"
            )
        probe = subprocess.run([str(self.python), "-c", f"import {self.module}"], capture_output=True, text=True,
                               env=_child_env(), timeout=300)
        if probe.returncode != 0:
            raise IsolatedVenvError(
                f"{self.module} was installed in {venv} but does not import:\n{_tail(probe.stdout + probe.stderr)}"
            )
        (venv / READY).write_text(json.dumps(self.requirements) + "\n")


_COUNT = re.compile(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed|deselected)\b")


@dataclass
class InnerRun:
    returncode: int
    output: str
    counts: dict[str, int]

    def problem(self) -> str | None:
        """Why the run does not count as the tests passing, or None."""
        if self.returncode != 0:
            return f"pytest exited {self.returncode}"
        if self.counts.get("failed") or self.counts.get("error"):
            return f"failures in {self.counts}"
        if not self.counts.get("passed"):
            return f"no test passed ({self.counts or 'no summary line'}): the framework's tests did not run"
        return None


def summary_counts(output: str) -> dict[str, int]:
    """The counts on pytest's closing line (`2 passed, 1 skipped in 3.1s`)."""
    for line in reversed(output.strip().splitlines()):
        if re.search(r"\bin [\d.]+s\b", line) or "no tests ran" in line:
            return {("error" if kind.startswith("error") else kind): int(n) for n, kind in _COUNT.findall(line)}
    return {}


def run_test_file(venv: FrameworkVenv, test_file: Path, workdir: Path, timeout: float = 900) -> InnerRun:
    """Run `test_file` with pytest in `venv` (made if needed), the package
    under test linked in; `workdir` is the run's own scratch directory."""
    import amla_sandbox

    python = venv.ensure()
    package = Path(amla_sandbox.__file__).resolve().parent
    link_dir = workdir / "pkg"
    link_dir.mkdir(parents=True)
    (link_dir / "amla_sandbox").symlink_to(package, target_is_directory=True)
    cwd = workdir / "cwd"  # not a checkout: `-m` puts the cwd first on sys.path
    cwd.mkdir()
    command = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--basetemp", str(workdir / "tmp"),
               str(test_file)]
    env = _child_env(PYTHONPATH=str(link_dir), **{INNER_ENV: venv.extra})
    try:
        proc = subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return InnerRun(-1, f"timed out after {timeout} s\n{out}", {})
    output = proc.stdout + proc.stderr
    return InnerRun(proc.returncode, output, summary_counts(proc.stdout))
