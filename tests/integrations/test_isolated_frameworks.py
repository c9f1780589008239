"""The adapters whose frameworks cannot be installed beside the `test` extra
(see pyproject.toml) are tested all the same: where the framework does not
import here, its own test file runs in a cached venv holding only the
framework's pinned extra (tests/integrations/_isolated.py says how), and must
pass with at least one test run. Where it does import, its test file runs in
this session already and the case here skips."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import pytest

from _isolated import HERE, INNER_ENV, FrameworkVenv, IsolatedVenvError, framework_venv, run_test_file, summary_counts

# extra in pyproject.toml -> the module its test file imports
FRAMEWORKS = {"strands": "strands", "crewai": "crewai"}


def _importable(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


@pytest.mark.slow
@pytest.mark.timeout(2700)  # a first run installs the framework (wheels from pip's cache after that)
@pytest.mark.parametrize("extra", sorted(FRAMEWORKS))
def test_framework_tests_pass_in_their_own_venv(extra: str, tmp_path: Path) -> None:
    module = FRAMEWORKS[extra]
    if os.environ.get(INNER_ENV):
        pytest.skip(f"inside the isolated run for {os.environ[INNER_ENV]}: no nested venvs")
    if _importable(module):
        pytest.skip(f"{module} imports here, so tests/integrations/test_{extra}.py runs in this session")
    try:
        run = run_test_file(framework_venv(extra, module), HERE / f"test_{extra}.py", tmp_path)
    except IsolatedVenvError as e:
        pytest.fail(str(e), pytrace=False)
    problem = run.problem()
    assert problem is None, f"test_{extra}.py in its venv: {problem}\n{run.output[-6000:]}"


@pytest.mark.parametrize(
    ("output", "counts", "ok"),
    [
        ("...\n3 passed in 4.20s\n", {"passed": 3}, True),
        ("s..\n2 passed, 1 skipped, 1 warning in 1.00s\n", {"passed": 2, "skipped": 1}, True),
        ("s\n1 skipped in 0.31s\n", {"skipped": 1}, False),  # the framework failed to import
        (".F\n1 failed, 1 passed in 2.00s\n", {"failed": 1, "passed": 1}, False),
        ("E\n1 passed, 2 errors in 2.00s\n", {"passed": 1, "error": 2}, False),
        ("\nno tests ran in 0.01s\n", {}, False),
        ("Traceback (most recent call last):\n", {}, False),
    ],
)
def test_a_run_counts_only_when_tests_passed(output: str, counts: dict[str, int], ok: bool) -> None:
    from _isolated import InnerRun

    assert summary_counts(output) == counts
    assert (InnerRun(0, output, summary_counts(output)).problem() is None) is ok


def test_a_failed_install_leaves_no_venv_and_shows_pips_error(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-framework-1.0-py3-none-any.whl"
    venv = FrameworkVenv("broken", "no_such_framework", [str(missing)], root=tmp_path / "venvs")
    with pytest.raises(IsolatedVenvError) as failed:
        venv.ensure()
    assert "failed (exit" in str(failed.value) and str(missing.name) in str(failed.value)
    assert not venv.path.exists()
    assert [p.name for p in (tmp_path / "venvs").iterdir()] == [f"{venv.path.name}.lock"]


def test_no_venv_is_made_inside_an_isolated_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(INNER_ENV, "crewai")
    venv = FrameworkVenv("crewai", "crewai", ["crewai"], root=tmp_path)
    with pytest.raises(IsolatedVenvError, match="no nested venvs"):
        venv.ensure()
    assert not any(tmp_path.iterdir())
