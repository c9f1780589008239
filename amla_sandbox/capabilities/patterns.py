"""Method-name patterns (docs/capabilities.md, "Patterns").

Methods and patterns are split on ``/`` only; ``**`` (a whole segment)
matches zero or more segments, ``*`` exactly one, anything else itself.
Matching is done by the Go core.
"""

from __future__ import annotations

from typing import Any

from ._wire import core

__all__ = ["method_matches_pattern", "pattern_is_subset"]


def _require_str(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    return value


def method_matches_pattern(method: str, pattern: str) -> bool:
    """True if ``pattern`` matches all of ``method``.

    >>> method_matches_pattern("stripe/charges/refund", "stripe/charges/*")
    True
    >>> method_matches_pattern("mcp:add", "mcp:*")  # "mcp:*" is a literal segment
    False
    """
    return bool(core().pattern_match(_require_str("method", method), _require_str("pattern", pattern)))


def pattern_is_subset(child: str, parent: str) -> bool:
    """True if every method ``child`` matches is also matched by ``parent``
    (decided by the documented, conservative procedure)."""
    return bool(core().pattern_is_subset(_require_str("child", child), _require_str("parent", parent)))
