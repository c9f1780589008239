"""The configuration file of `amla-sandbox-mcp` (docs/mcp.md).

A JSON object with these keys, all optional:

    mcpServers    MCP servers to mount, as MCP clients write them
    tools         Python tools, as "module:function" strings
    constraints   {tool: {parameter: constraint}}, the create_sandbox_tool DSL
    max_calls     an int for every tool, or {tool: int}
    timeout       seconds per run (also the default per MCP call)
    memory_limit  bytes per guest
    disk_quota    bytes of files per session
    max_code_size bytes of code one call may send (default 1 MiB)
    network       HTTP the sessions' scripts may make (docs/network.md): an
                  object of NetworkPolicy's fields, or a list of allow rules;
                  absent or null: no network
"""

from __future__ import annotations

import importlib
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..network import policy_json
from ..runtime.runtime import DEFAULT_DISK_QUOTA, DEFAULT_MEMORY_LIMIT, DEFAULT_TIMEOUT

__all__ = ["ServerConfig", "ConfigError", "DEFAULT_MAX_CODE_SIZE"]

DEFAULT_MAX_CODE_SIZE = 1024 * 1024
_KEYS = (
    "mcpServers", "tools", "constraints", "max_calls", "timeout", "memory_limit", "disk_quota", "max_code_size",
    "network",
)


@dataclass
class ServerConfig:
    mcp_servers: dict[str, Any] = field(default_factory=dict)
    tools: list[Callable[..., Any]] = field(default_factory=list)
    constraints: dict[str, Any] = field(default_factory=dict)
    max_calls: int | dict[str, int] | None = None
    timeout: float = DEFAULT_TIMEOUT
    memory_limit: int = DEFAULT_MEMORY_LIMIT
    disk_quota: int = DEFAULT_DISK_QUOTA
    max_code_size: int = DEFAULT_MAX_CODE_SIZE
    # The network policy's JSON (amla_sandbox.network.policy_json), or None.
    network: dict[str, Any] | None = None

    @classmethod
    def from_file(cls, path: str | Path) -> ServerConfig:
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as e:
            raise ConfigError(f"cannot read config file {str(p)!r}: {e.strerror or e}") from None
        try:
            data = json.loads(text)
        except ValueError as e:
            raise ConfigError(f"config file {str(p)!r} is not valid JSON: {e}") from None
        return cls.from_dict(data, where=f"config file {str(p)!r}")

    @classmethod
    def from_dict(cls, data: Any, *, where: str = "config") -> ServerConfig:
        if not isinstance(data, Mapping):
            raise ConfigError(f"{where} must be a JSON object, got {type(data).__name__}")
        unknown = [k for k in data if k not in _KEYS]
        if unknown:
            raise ConfigError(f"{where}: unknown key(s) {unknown}; known keys: {list(_KEYS)}")
        cfg = cls()
        servers = data.get("mcpServers", {})
        if not isinstance(servers, Mapping):
            raise ConfigError(f"{where}: 'mcpServers' must be an object of {{name: server}}")
        cfg.mcp_servers = dict(servers)
        tools = data.get("tools", [])
        if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
            raise ConfigError(f"{where}: 'tools' must be a list of \"module:function\" strings")
        cfg.tools = [_load_function(t, where) for t in tools]
        constraints = data.get("constraints", {})
        if not isinstance(constraints, Mapping):
            raise ConfigError(f"{where}: 'constraints' must be an object of {{tool: {{parameter: constraint}}}}")
        cfg.constraints = dict(constraints)
        max_calls = data.get("max_calls")
        if max_calls is not None and not (
            (isinstance(max_calls, int) and not isinstance(max_calls, bool)) or isinstance(max_calls, Mapping)
        ):
            raise ConfigError(f"{where}: 'max_calls' must be an integer or an object of {{tool: integer}}")
        cfg.max_calls = dict(max_calls) if isinstance(max_calls, Mapping) else max_calls
        cfg.timeout = _number(data, "timeout", DEFAULT_TIMEOUT, where)
        cfg.memory_limit = int(_number(data, "memory_limit", DEFAULT_MEMORY_LIMIT, where, integer=True))
        cfg.disk_quota = int(_number(data, "disk_quota", DEFAULT_DISK_QUOTA, where, integer=True))
        cfg.max_code_size = int(_number(data, "max_code_size", DEFAULT_MAX_CODE_SIZE, where, integer=True))
        network = data.get("network")
        if network is not None and not isinstance(network, (Mapping, list)):
            raise ConfigError(
                f"{where}: 'network' must be an object of network policy fields or a list of allow rules, "
                f"got {type(network).__name__}"
            )
        try:
            cfg.network = policy_json(network)
        except ValueError as e:
            raise ConfigError(f"{where}: 'network': {e}") from None
        return cfg


def _number(data: Mapping[str, Any], key: str, default: float, where: str, *, integer: bool = False) -> float:
    value = data.get(key, default)
    ok = isinstance(value, int) if integer else isinstance(value, (int, float))
    if isinstance(value, bool) or not ok or not 0 < value < math.inf:
        kind = "a positive integer" if integer else "a positive number"
        raise ConfigError(f"{where}: {key!r} must be {kind}, got {value!r}")
    return value


def _load_function(spec: str, where: str) -> Callable[..., Any]:
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ConfigError(f"{where}: tool {spec!r} must be written \"module:function\"")
    try:
        module = importlib.import_module(module_name)
    except Exception as e:
        raise ConfigError(f"{where}: tool {spec!r}: cannot import module {module_name!r}: {e}") from None
    obj: Any = module
    for part in attr.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise ConfigError(f"{where}: tool {spec!r}: module {module_name!r} has no {attr!r}")
    if not callable(obj):
        raise ConfigError(f"{where}: tool {spec!r} is not a function")
    return obj
