"""Every example runs and prints what it promises."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize(
    "name,needles",
    [
        ("quick_start.py", ["SF: 62°C = 143.6°F", "3 cities", "warmest: SF at 143.6°F", "Paris\nTokyo", "[error]: Execution timed out", "still works"]),
        ("capabilities.py", ["ok   {\"charged\":500", "permission_denied: Method 'mcp:stripe.charge' matched pattern", "permission_denied: Call limit exceeded", "remaining: 0"]),
        ("step_resume.py", ["request", "wasm=4 | quickjs=7 | shell=5"]),
        ("ray_pool.py", ["alice's file: alice", "pear permission_denied: Call limit exceeded", "alice: 0.75", "approvals seen here: ['pears']", "async: ['0', '1', '4', '9']"]),
    ],
)
def test_example(name: str, needles: list[str], tmp_path):
    out = subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    for needle in needles:
        assert needle in out.stdout, (needle, out.stdout)


def test_every_example_is_tested():
    tested = {"quick_start.py", "capabilities.py", "step_resume.py", "ray_pool.py"}
    tested |= {"langgraph_agent.py"}  # needs langchain/langgraph: run by tests/test_docs.py
    assert {p.name for p in EXAMPLES.glob("*.py")} == tested
