"""How the capability classes cross to the Go core: the core module itself
(imported on first use) and the JSON it takes. Private to this package."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any


def core() -> ModuleType:
    """The door to the Go core (imported on first use, so importing this
    package never fails for any reason other than a missing build)."""
    from .. import _core

    return _core


def dumps(value: Any) -> str:
    """JSON for the core. json.dumps keeps what matters: ints stay ints
    (any size), floats keep their fraction, bools stay bools, and NaN and
    Infinity are written as such."""
    return json.dumps(value)


def params_json(params: Any) -> str:
    """A call's params as the core's checks read them."""
    # Params that are not a dict have no parameters at all (docs/capabilities.md, "Constraints"), so
    # their content never needs to cross.
    if not isinstance(params, dict):
        return "null"
    try:
        return json.dumps(params)
    except (TypeError, ValueError) as e:
        raise TypeError(f"constraint checks need JSON-serialisable params: {e}") from None
