"""Network policies: the HTTP requests a sandbox's scripts may make through
the host (docs/network.md).

`NetworkPolicy`, `HttpRule` and `Secret` only hold what the application
wrote and convert it to the policy JSON the Go core reads
(gocore/netpolicy: ParsePolicy). Every check of that JSON is made there,
once, when a sandbox is made with it: a bad policy is a ValueError whose
message names the field at fault ("network: allow[1].methods[0]:
..."). What Python does here is turn Python values into JSON values
(tuples into lists, `Constraint` objects into their dicts, a CA file path
into its PEM text) and refuse the values JSON cannot hold, naming the field.

A `Secret`'s value never appears in its repr, in a policy's repr or in an
error message made here.
"""

from __future__ import annotations

import ipaddress
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

__all__ = ["HttpRule", "NetworkPolicy", "Secret", "NetworkArg"]

# The defaults the Go core has too (gocore/netpolicy: Default*).
DEFAULT_MAX_REQUESTS = 100
DEFAULT_MAX_REQUEST_BYTES = 10 * 1024 * 1024
DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024
DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_CONCURRENT = 8

# HttpRule's default verbs. A rule whose url names its verbs
# ("POST https://...") must not also send "methods"; leaving `methods` at
# this default object is how a caller leaves them out.
_GET_ONLY: tuple[str, ...] = ("GET",)


@dataclass(eq=True)
class Secret:
    """A value scripts never see. With `expose=True` a script sees the
    environment variable of the secret's name (the key in
    `NetworkPolicy.secrets`) holding a placeholder,
    `amla_secret_<NAME>_<32 hex digits>`; the host puts the value in place
    of the placeholder as a request leaves, only in the parts of it `where`
    names ("header", "query", "path", "body"), only over https and only to
    `hosts` (exact names, addresses or "*.example.com"). With
    `expose=False` only `inject_headers` can use it ("{NAME}")."""

    value: str
    hosts: Sequence[str]
    where: Sequence[str] = ("header",)
    expose: bool = True

    def __repr__(self) -> str:
        return f"Secret(value=<hidden>, hosts={list(self.hosts)!r}, where={list(self.where)!r}, expose={self.expose!r})"

    __str__ = __repr__

    def to_dict(self) -> dict[str, Any]:
        """The secret as the policy JSON holds it (with its value)."""
        value: Any = self.value
        if isinstance(value, (bytes, bytearray)):
            try:
                value = bytes(value).decode("utf-8")
            except UnicodeDecodeError:
                value = _Refused("a secret's value must be UTF-8 text")
        return {"value": value, "hosts": _list(self.hosts), "where": _list(self.where), "expose": self.expose}


@dataclass(eq=True)
class HttpRule:
    """One allow rule with more than a rule string says: the requests it
    allows (`url`: "https://api.stripe.com/v1/refunds", paths with "*" for
    one segment and "**" for any; or a whole rule string "POST https://...",
    then leave `methods` out), the verbs (`methods`, default GET only; "*"
    for any), `constraints` on the request's parameters (the DSL dict
    `{"form/amount": "<=5000"}`, or `Constraint` objects), a budget
    (`max_calls`, None: unlimited) and whether each request waits for a
    human's approval (`require_approval`)."""

    url: str
    methods: Sequence[str] = _GET_ONLY
    constraints: Any = field(default_factory=dict)
    max_calls: int | None = None
    require_approval: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The rule as the policy JSON holds it."""
        d: dict[str, Any] = {"url": self.url}
        if not (self.methods is _GET_ONLY and isinstance(self.url, str) and len(self.url.split()) > 1):
            d["methods"] = [self.methods] if isinstance(self.methods, str) else _list(self.methods)
        if self.constraints:
            d["constraints"] = _constraints(self.constraints)
        if self.max_calls is not None:
            d["max_calls"] = self.max_calls
        if self.require_approval:
            d["require_approval"] = self.require_approval
        return d


@dataclass
class NetworkPolicy:
    """What a sandbox's scripts may reach over HTTP(S), with `Sandbox(...,
    network=policy)` or `create_sandbox_tool(..., network=policy)`.

    `allow`: rule strings ("api.github.com", "GET https://api.github.com/repos/**",
    "POST https://api.stripe.com/v1/refunds") or `HttpRule`s; nothing else
    is reachable. `secrets`: name -> `Secret`. `inject_headers`:
    {host: {header: value}} added by the host ("Bearer {STRIPE_KEY}" uses a
    secret). The limits: `max_requests` (requests in all), the request and
    response body sizes in bytes, `timeout` (seconds per request),
    `max_concurrent` (requests in flight at once). `allow_private`:
    addresses, CIDR blocks or host names that may reach private and other
    special-purpose addresses (refused by default). `extra_ca_certs`: PEM
    text, or the path of a PEM file, of certificate authorities trusted
    besides the system's."""

    allow: Sequence[str | HttpRule | Mapping[str, Any]] = field(default_factory=list)
    secrets: Mapping[str, Secret | Mapping[str, Any]] = field(default_factory=dict)
    inject_headers: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    max_requests: int = DEFAULT_MAX_REQUESTS
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    timeout: float = DEFAULT_TIMEOUT
    max_concurrent: int = DEFAULT_MAX_CONCURRENT
    allow_private: Sequence[str] = field(default_factory=list)
    extra_ca_certs: str | os.PathLike[str] | None = None

    def __repr__(self) -> str:
        secrets = {k: _hidden(v) for k, v in self.secrets.items()} if isinstance(self.secrets, Mapping) else self.secrets
        return (
            f"NetworkPolicy(allow={self.allow!r}, secrets={secrets!r}, inject_headers={self.inject_headers!r}, "
            f"max_requests={self.max_requests!r}, max_request_bytes={self.max_request_bytes!r}, "
            f"max_response_bytes={self.max_response_bytes!r}, timeout={self.timeout!r}, "
            f"max_concurrent={self.max_concurrent!r}, allow_private={self.allow_private!r}, "
            f"extra_ca_certs={self.extra_ca_certs!r:.60})"
        )

    __str__ = __repr__

    def to_dict(self) -> dict[str, Any]:
        """The policy JSON (gocore/netpolicy), as a dict of JSON values. A
        value JSON cannot hold, or a CA file that cannot be read, is a
        ValueError naming the field; everything else is checked by the core
        when a sandbox is made with the policy."""
        return _policy_json(
            {
                "allow": self.allow,
                "secrets": self.secrets,
                "inject_headers": self.inject_headers,
                "max_requests": self.max_requests,
                "max_request_bytes": self.max_request_bytes,
                "max_response_bytes": self.max_response_bytes,
                "timeout": self.timeout,
                "max_concurrent": self.max_concurrent,
                "allow_private": self.allow_private,
                "extra_ca_certs": self.extra_ca_certs,
            }
        )


# What `network=` takes: a policy, a dict of its fields, a list (its
# `allow`), or None (no network).
NetworkArg = Union[NetworkPolicy, Mapping[str, Any], Sequence[Union[str, HttpRule, Mapping[str, Any]]], None]


def policy_json(network: Any) -> dict[str, Any] | None:
    """The policy JSON of a `network=` argument, or None for no network."""
    if network is None:
        return None
    if isinstance(network, NetworkPolicy):
        return network.to_dict()
    if isinstance(network, Mapping):
        return _policy_json(network)
    if isinstance(network, (list, tuple)):
        return _policy_json({"allow": network})
    raise TypeError(
        "network must be a NetworkPolicy, a dict of its fields or a list of allow rules, "
        f"got {type(network).__name__}"
    )


# -- conversion -------------------------------------------------------------------------------------


class _Refused:
    """A value that cannot become JSON: the reason, raised with its field's name."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _hidden(secret: Any) -> Any:
    """A secret for a repr: a Secret hides its value itself; the dict form
    gets its "value" replaced."""
    if isinstance(secret, Mapping) and "value" in secret:
        return {**secret, "value": "<hidden>"}
    return secret


def _list(x: Any) -> Any:
    # A str is one item's text, not a list of characters: left for the
    # core to refuse as "expected a list".
    if isinstance(x, (list, tuple)):
        return list(x)
    return x


def _constraints(c: Any) -> Any:
    from .capabilities import Constraint, ConstraintSet
    from .capabilities.constraints import constraint_to_dict

    if isinstance(c, Constraint):
        return [constraint_to_dict(c)]
    if isinstance(c, ConstraintSet):
        return [constraint_to_dict(x) for x in c.constraints]
    if isinstance(c, (list, tuple)):
        return [constraint_to_dict(x) if isinstance(x, Constraint) else x for x in c]
    if isinstance(c, Mapping):
        out: dict[Any, Any] = {}
        for k, v in c.items():
            if isinstance(v, (Constraint, ConstraintSet)):
                out[k] = _Refused(
                    "a Constraint goes in a list (constraints=[Param('form/amount') <= 5000]); "
                    "the dict form takes DSL strings ('<=5000'), lists and numbers"
                )
            else:
                out[k] = _list(v)
        return out
    return c


def _rule(r: Any) -> Any:
    if isinstance(r, HttpRule):
        return r.to_dict()
    if isinstance(r, Mapping) and "constraints" in r:
        return {**r, "constraints": _constraints(r["constraints"])}
    return r


def _private(x: Any) -> Any:
    if isinstance(x, (ipaddress.IPv4Address, ipaddress.IPv6Address, ipaddress.IPv4Network, ipaddress.IPv6Network)):
        return str(x)
    return x


def _ca_certs(x: Any) -> Any:
    """PEM text as it is; a path (str or PathLike), or a list of PEM texts
    and paths, read into PEM text."""
    if x is None:
        return None
    if isinstance(x, (list, tuple)):
        parts = [_ca_certs(p) for p in x]
        bad = next((p for p in parts if isinstance(p, _Refused)), None)
        return bad if bad is not None else "\n".join(str(p) for p in parts)
    if isinstance(x, (bytes, bytearray)):
        try:
            return bytes(x).decode("ascii")
        except UnicodeDecodeError:
            return _Refused("PEM bytes must be ASCII text")
    if isinstance(x, str) and "-----BEGIN" in x:
        return x
    if isinstance(x, (str, os.PathLike)):
        path = Path(x)
        try:
            return path.read_text(encoding="ascii")
        except (OSError, UnicodeDecodeError) as e:
            reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            return _Refused(f"cannot read the PEM file {str(path)!r}: {reason} (pass PEM text or a PEM file's path)")
    return x


def _policy_json(fields: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in fields.items():
        if key == "allow" and isinstance(value, (list, tuple)):
            value = [_rule(r) for r in value]
        elif key == "secrets" and isinstance(value, Mapping):
            value = {k: v.to_dict() if isinstance(v, Secret) else v for k, v in value.items()}
        elif key == "allow_private" and isinstance(value, (list, tuple)):
            value = [_private(x) for x in value]
        elif key == "extra_ca_certs":
            value = _ca_certs(value)
        out[str(key) if not isinstance(key, str) else key] = _checked(value, str(key))
    return out


def _checked(value: Any, where: str) -> Any:
    """`value` with its tuples as lists, if JSON can hold it; else a
    ValueError naming the field (`where`) without showing the value (it may
    be a secret's)."""
    if isinstance(value, _Refused):
        raise ValueError(f"network: {where}: {value.reason}")
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"network: {where}: expected a finite number, got {value!r}")
        return value
    if isinstance(value, (list, tuple)):
        return [_checked(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, Mapping):
        d: dict[str, Any] = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise ValueError(f"network: {where}: keys must be str, got {type(k).__name__} {k!r}")
            d[k] = _checked(v, f"{where}.{k}")
        return d
    if isinstance(value, (Secret, HttpRule)):
        return _checked(value.to_dict(), where)
    raise ValueError(f"network: {where}: {type(value).__name__} cannot be written as JSON")


# -- what the model is told -------------------------------------------------------------------------


def _rule_text(rule: Any) -> str:
    """One allow rule as the prompt shows it: its verbs, its URL and what
    else limits it (budget, approval, the parameters it constrains)."""
    if isinstance(rule, str):
        words = rule.split()
        if not words:
            return repr(rule)
        target = words[-1] if "://" in words[-1] else "https://" + words[-1]
        return f"{words[0]} {target}" if len(words) == 2 else f"any method {target}"
    if not isinstance(rule, Mapping):
        return str(rule)
    url = str(rule.get("url", ""))
    methods = rule.get("methods")
    if methods is None:
        text = url if len(url.split()) > 1 else f"GET {url}"
    else:
        text = f"{','.join(str(m) for m in methods)} {url}"
    notes = []
    constraints = rule.get("constraints")
    if isinstance(constraints, Mapping) and constraints:
        notes.append("only with " + ", ".join(f"{k} {v}" for k, v in constraints.items()))
    elif constraints:
        notes.append("with parameter constraints")
    if rule.get("max_calls") is not None:
        notes.append(f"at most {rule['max_calls']} request{'' if rule['max_calls'] == 1 else 's'}")
    if rule.get("require_approval"):
        notes.append("each request waits for a human's approval")
    return text + (f" ({'; '.join(notes)})" if notes else "")


def prompt_lines(config: Mapping[str, Any] | None, capabilities: Sequence[Any] = ()) -> list[str]:
    """What a model is told about a sandbox's network: the requests it may
    make (the allow rules, and capabilities of "http/..." methods), the
    secrets' variable names (never their values) and how to make a request
    in each language. Empty without a network policy."""
    if config is None:
        return []
    lines = ["HTTP requests are made by the host under a network policy; only these are allowed:"]
    rules = config.get("allow") or []
    lines += [f"- {_rule_text(r)}" for r in rules] if isinstance(rules, list) else []
    for cap in capabilities:
        pattern = getattr(cap, "method_pattern", "")
        if isinstance(pattern, str) and pattern.startswith("http/"):
            n = getattr(cap, "max_calls", None)
            budget = f" (at most {n} request{'' if n == 1 else 's'})" if n is not None else ""
            lines.append(f"- capability {pattern}{budget}")
    if len(lines) == 1:
        lines.append("- none (every request is refused)")
    secrets = config.get("secrets") or {}
    exposed = [
        f"{name} (for {', '.join(map(str, s.get('hosts') or []))})"
        for name, s in secrets.items()
        if isinstance(s, Mapping) and s.get("expose", True)
    ] if isinstance(secrets, Mapping) else []
    if exposed:
        lines.append(
            "Secrets, as environment variables (process.env.NAME, os.environ['NAME'], $NAME) holding a "
            "placeholder the host replaces with the real value when the request goes to those hosts: "
            + ", ".join(exposed)
        )
    injected = config.get("inject_headers") or {}
    if isinstance(injected, Mapping) and injected:
        lines.append(
            "Headers the host adds itself (do not send them): "
            + "; ".join(f"{host}: {', '.join(h)}" for host, h in injected.items() if isinstance(h, Mapping))
        )
    lines.append(
        "Make requests with fetch() in JavaScript; urllib.request (or requests/httpx when installed) in Python; "
        "curl or wget in the shell. A refused request fails with a message naming the check and the rule "
        "(in JavaScript: TypeError 'fetch failed', the reason in err.cause.message)."
    )
    return lines
