"""Settings for every test under tests/.

The tests run from a temporary directory, as a user's program runs from its
own project and never from an amla-sandbox checkout. A process started with
`python -c`, `python -m`, a Ray worker, or an MCP server launched by a test
puts its working directory first on sys.path; from the checkout's root that
directory's amla_sandbox/ (without the compiled core after `pip install .`)
would shadow the installed package. Tests name their own files by absolute
paths (Path(__file__)), so nothing depends on the directory they start in.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session", autouse=True)
def _run_outside_the_checkout(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("cwd"))
    try:
        yield
    finally:
        os.chdir(before)
