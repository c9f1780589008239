"""The two reference APIs our capability, budget and tool tests run under
(docs/compatibility.md D1-D4): 0.1.7's MethodCapability with `cap:method:` keys and
0.2.8's ToolCallCap with `cap:tool-call:` keys."""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import pytest

from amla_sandbox.capabilities import method as method_module
from amla_sandbox.capabilities import tool_call as tool_call_module
from amla_sandbox.capabilities.tool_call import ToolCallCap


@dataclass(frozen=True)
class Api:
    version: str
    cls: type[ToolCallCap]
    prefix: str
    type_name: str  # the class's name in that version
    type_const_name: str
    type_const: str
    module: ModuleType

    def key(self, pattern: str) -> str:
        return self.prefix + pattern

    def __repr__(self) -> str:
        return self.version


APIS = [
    Api("0.1.7", method_module.MethodCapability, "cap:method:", "MethodCapability", "METHOD_CAPABILITY_TYPE", "method", method_module),
    Api("0.2.8", ToolCallCap, "cap:tool-call:", "ToolCallCap", "TOOL_CALL_CAP_TYPE", "tool-call", tool_call_module),
]

# Library factories (create_sandbox_tool, capability_from_function, ...)
# build ToolCallCap, as 0.2.8 does.
LIBRARY = APIS[1]


@pytest.fixture(params=APIS, ids=[a.version for a in APIS])
def api(request: pytest.FixtureRequest) -> Api:
    return request.param  # type: ignore[no-any-return]
