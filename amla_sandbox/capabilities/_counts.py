"""The mapping ``get_call_counts()`` returns (docs/compatibility.md, D4)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["CallCounts", "policy_json"]

_METHOD = "cap:method:"
_TOOL_CALL = "cap:tool-call:"


def _other_form(key: object) -> str | None:
    """The same budget key in the other version's format, or None."""
    if isinstance(key, str):
        if key.startswith(_METHOD):
            return _TOOL_CALL + key[len(_METHOD) :]
        if key.startswith(_TOOL_CALL):
            return _METHOD + key[len(_TOOL_CALL) :]
    return None


def _canonical(key: object) -> object:
    if isinstance(key, str) and key.startswith(_METHOD):
        return _TOOL_CALL + key[len(_METHOD) :]
    return key


class CallCounts(dict[str, int]):
    """Remaining calls per budget, in capability-list order.

    Iterating and printing give each budget's key in its capability's own
    format (``cap:tool-call:…`` or, for a user-built MethodCapability,
    ``cap:method:…``). Lookups and comparisons accept either format, so
    code written for amla-sandbox 0.1.7 and for 0.2.8 both work::

        counts["cap:method:mcp:add"] == counts["cap:tool-call:mcp:add"]
        counts == {"cap:tool-call:mcp:add": 3}
    """

    def _resolve(self, key: Any) -> Any:
        if dict.__contains__(self, key):
            return key
        other = _other_form(key)
        if other is not None and dict.__contains__(self, other):
            return other
        return key

    def __getitem__(self, key: str) -> int:
        return super().__getitem__(self._resolve(key))

    def __contains__(self, key: object) -> bool:
        return super().__contains__(self._resolve(key))

    def get(self, key: str, default: Any = None) -> Any:
        return super().get(self._resolve(key), default)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mapping):
            return NotImplemented
        if len(self) != len(other):
            return False
        mine = {_canonical(k): v for k, v in self.items()}
        theirs = {_canonical(k): v for k, v in other.items()}
        return len(theirs) == len(other) and mine == theirs

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # a dict is not hashable either

    def __repr__(self) -> str:
        return dict.__repr__(self)


def policy_json(capabilities: Any) -> str:
    """The capability list as the Go policy reads it: each capability's
    decision data plus its class (which sets its key format). Objects that
    are not capabilities of this package are passed as their ``to_dict()``."""
    from ._wire import dumps
    from .tool_call import ToolCallCap, core_dict

    items = []
    for c in capabilities:
        if type.__instancecheck__(ToolCallCap, c):
            items.append(core_dict(c))
        else:
            items.append(c.to_dict())
    return dumps(items)
