"""Settings for every test under tests/.

The tests run from a temporary directory, as a user's program runs from its
own project and never from an amla-sandbox checkout. A process started with
`python -c`, `python -m`, a Ray worker, or an MCP server launched by a test
puts its working directory first on sys.path; from the checkout's root that
directory's amla_sandbox/ (without the compiled core after `pip install .`)
would shadow the installed package. Tests name their own files by absolute
paths (Path(__file__)), so nothing depends on the directory they start in.

The tests exercise the built package: its compiled core and its three guests.
Where any of them is missing (a checkout nobody built), the session stops
before collecting anything, with one message saying how to build, rather than
running a suite whose engine tests cannot run. Tests that need an optional
extra or tool (mcp, ray, otel, langchain, GNU sort, a type checker) still skip
one by one, each saying why.
"""

from __future__ import annotations

import os
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest


def _unbuilt_parts() -> tuple[Path, list[str]]:
    """The package under test and what it lacks of its build outputs."""
    from amla_sandbox import _wasm

    package = Path(_wasm.__file__).resolve().parent
    missing = []
    core = package / "_core" / f"_pycore{sysconfig.get_config_var('EXT_SUFFIX') or '.so'}"
    if not core.is_file():
        missing.append(f"the compiled core ({core.relative_to(package)})")
    for guest, what in (
        (_wasm.get_js_wasm_path(), "the JavaScript guest"),
        (_wasm.get_py_wasm_path(), "the Python guest"),
        (_wasm.get_wasm_path(), "the shell guest"),
    ):
        if not guest.is_file():
            missing.append(f"{what} ({guest})")
    return package, missing


def pytest_configure(config: pytest.Config) -> None:
    package, missing = _unbuilt_parts()
    if missing:
        raise pytest.UsageError(
            f"amla_sandbox in {package} was never built: it lacks {'; '.join(missing)}. "
            "Build it with `python setup.py build_go --inplace` (or `pip install -e .`) in the "
            "checkout, or install it with `pip install .`, and run the tests again."
        )


@pytest.fixture(scope="session", autouse=True)
def _run_outside_the_checkout(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("cwd"))
    try:
        yield
    finally:
        os.chdir(before)
