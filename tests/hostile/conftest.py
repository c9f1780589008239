"""Shared pieces of the hostile suite (issue 7).

Every scenario that could hang runs in a child process with a hard deadline:
a hang there is killed and reported as a failure, so the suite always ends.
"""

from __future__ import annotations

import pytest

from _hostile import warm_module_cache


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: long-running stress test (still runs in CI)")


@pytest.fixture(scope="session", autouse=True)
def _compiled_guest() -> None:
    # The first sandbox after a rebuild compiles the guest (~10 s on 2 cores);
    # do it once here so no child's deadline pays for it.
    warm_module_cache()
