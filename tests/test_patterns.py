"""Method-name patterns: every rule of docs/capabilities.md, "Patterns", plus hostile names."""

from __future__ import annotations

import pytest

from amla_sandbox import method_matches_pattern as top_match
from amla_sandbox.capabilities.patterns import method_matches_pattern, pattern_is_subset

MATCH = [
    ("stripe/charges/create", "stripe/charges/create", True),
    ("stripe/charges/create", "stripe/charges/refund", False),
    ("stripe/charges/refund", "stripe/charges/*", True),
    ("stripe/charges", "stripe/charges/*", False),
    ("stripe/charges/refund/full", "stripe/charges/*", False),
    ("stripe/v2/charges", "stripe/*/charges", True),
    ("stripe", "stripe/**", True),
    ("stripe/a/b/c/d/e", "stripe/**", True),
    ("anything", "**", True),
    ("a/b/c/d", "**", True),
    ("", "**", True),
    ("create", "**/create", True),
    ("a/b/create", "**/create", True),
    ("stripe/charges", "stripe/**/charges", True),
    ("stripe/a/b/c/charges", "stripe/**/charges", True),
    ("api/v2/users/get", "api/*/users/*", True),
    ("api/v2/v3/users/get", "api/*/users/*", False),
    ("api/users/get", "api/**/users/*", True),
    ("api/v2/x/y/users/get", "api/**/users/*", True),
    ("github/repos", "stripe/**", False),
    ("stripe/charges", "github/*", False),
    ("", "", True),
    ("", "*", False),
    ("foo", "", False),
]

SUBSET = [
    ("stripe/charges/create", "stripe/charges/*", True),
    ("stripe/charges/create", "stripe/**", True),
    ("stripe/charges/create", "**", True),
    ("stripe/charges/*", "stripe/charges/**", True),
    ("stripe/*", "stripe/**", True),
    ("*", "**", True),
    ("stripe/charges/**", "stripe/**", True),
    ("stripe/**", "**", True),
    ("stripe/charges/*", "stripe/charges/*", True),
    ("stripe/**", "stripe/**", True),
    ("**", "**", True),
    ("stripe/charges/create", "stripe/charges/create", True),
    ("stripe/charges/**", "stripe/charges/*", False),
    ("stripe/**", "stripe/*", False),
    ("github/**", "stripe/**", False),
    ("stripe/charges/*", "stripe/refunds/*", False),
    ("**", "stripe/**", False),
    ("**", "*", False),
    ("api/v1/users/*", "api/*/users/*", True),
    ("api/*/users/*", "api/**/users/*", True),
    ("api/**/users/*", "api/*/users/*", False),
    ("", "", True),
    ("", "**", True),
    ("foo", "", False),
]


@pytest.mark.parametrize(("method", "pattern", "expected"), MATCH)
def test_documented_matches(method: str, pattern: str, expected: bool) -> None:
    assert method_matches_pattern(method, pattern) is expected
    assert top_match(method, pattern) is expected


@pytest.mark.parametrize(("child", "parent", "expected"), SUBSET)
def test_documented_subsets(child: str, parent: str, expected: bool) -> None:
    assert pattern_is_subset(child, parent) is expected


@pytest.mark.parametrize(
    ("method", "pattern", "expected"),
    [
        # Wildcards only as whole segments: "mcp:*" is a literal.
        ("mcp:add", "mcp:*", False),
        ("mcp:add", "**", True),
        ("mcp:add", "mcp:add", True),
        ("charge", "char*", False),
        ("mcp:weather/current", "mcp:weather/*", True),
        ("mcp:weather/current", "weather/*", False),
        # No normalisation: ".." and empty segments are ordinary segments.
        ("mcp:a/../b", "mcp:a/**", True),
        ("mcp:a/../b", "mcp:b", False),
        ("a//b", "a/b", False),
        ("a//b", "a/*/b", True),
        ("a/", "a", False),
        ("a/", "a/*", True),
        ("/a", "a", False),
        # Case and Unicode are compared exactly.
        ("MCP:a", "mcp:a", False),
        ("mcp:A", "mcp:a", False),
        ("mcp:\u0430dd", "mcp:add", False),
        ("mcp:add\u200b", "mcp:add", False),
    ],
)
def test_hostile_names(method: str, pattern: str, expected: bool) -> None:
    assert method_matches_pattern(method, pattern) is expected


def test_long_method_name_is_fast() -> None:
    method = "a/" * 100_000 + "b"
    assert not method_matches_pattern(method, "**/a/" * 10 + "**/c")
    assert method_matches_pattern(method, "**/a/" * 10 + "**/b")


def test_non_str_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        method_matches_pattern(1, "**")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        pattern_is_subset("a", None)  # type: ignore[arg-type]
