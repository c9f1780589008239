"""Constraints, constraint sets, Param, capabilities and budgets, as the
reference pins them (docs/capabilities.md and docs/compatibility.md),
plus the hostile inputs of docs/capabilities.md. Capability and budget
tests run under both reference APIs (tests/_apis.py): 0.1.7's
MethodCapability with cap:method: keys and 0.2.8's ToolCallCap with
cap:tool-call: keys."""

from __future__ import annotations

import math
from typing import Any

import pytest

import amla_sandbox
from amla_sandbox.capabilities import (
    METHOD_CAPABILITY_TYPE,
    TOOL_CALL_CAP_TYPE,
    CallLimitExceededError,
    CapabilityError,
    Constraint,
    ConstraintError,
    ConstraintSet,
    MethodCapability,
    MissingParamError,
    Param,
    ToolCallCap,
    TypeMismatchError,
    ViolationError,
)
from amla_sandbox.capabilities import constraints as constraints_module
from amla_sandbox.capabilities.constraints import ConstraintType

from _apis import APIS, Api, api  # noqa: F401  (api is a fixture)


def message(c: Constraint, params: Any) -> str | None:
    try:
        c.evaluate(params)
    except ConstraintError as e:
        return str(e)
    return None


# -- Constraint evaluation (docs/capabilities.md, "Constraints") ------------------------------------------------


def test_le() -> None:
    c = Constraint.le("amount", 100)
    c.evaluate({"amount": 50})
    c.evaluate({"amount": 100})
    with pytest.raises(ViolationError):
        c.evaluate({"amount": 101})
    with pytest.raises(MissingParamError):
        c.evaluate({})


def test_lt_gt_ge() -> None:
    for v in (50, 99):
        Constraint.lt("x", 100).evaluate({"x": v})
    for v in (100, 101):
        with pytest.raises(ViolationError):
            Constraint.lt("x", 100).evaluate({"x": v})
    for v in (1, 100):
        Constraint.gt("x", 0).evaluate({"x": v})
    for v in (0, -1):
        with pytest.raises(ViolationError):
            Constraint.gt("x", 0).evaluate({"x": v})
    for v in (100, 200):
        Constraint.ge("amount", 100).evaluate({"amount": v})
    with pytest.raises(ViolationError):
        Constraint.ge("amount", 100).evaluate({"amount": 50})


def test_eq_ne() -> None:
    with pytest.raises(ViolationError):
        Constraint.eq("status", "active").evaluate({"status": "inactive"})
    for v in ("active", "pending"):
        Constraint.ne("status", "deleted").evaluate({"status": v})
    with pytest.raises(ViolationError):
        Constraint.ne("status", "deleted").evaluate({"status": "deleted"})


def test_membership() -> None:
    with pytest.raises(ViolationError):
        Constraint.is_in("currency", ["USD", "EUR"]).evaluate({"currency": "GBP"})
    for v in ("SELECT", "INSERT"):
        Constraint.not_in("method", ["DELETE", "DROP"]).evaluate({"method": v})
    with pytest.raises(ViolationError):
        Constraint.not_in("method", ["DELETE", "DROP"]).evaluate({"method": "DELETE"})


def test_string_rules() -> None:
    with pytest.raises(ViolationError):
        Constraint.starts_with("path", "/api/v2/").evaluate({"path": "/api/v1/users"})
    Constraint.ends_with("file", ".json").evaluate({"file": "config/settings.json"})
    with pytest.raises(ViolationError):
        Constraint.ends_with("file", ".json").evaluate({"file": "data.xml"})
    Constraint.contains("query", "SELECT").evaluate({"query": "Running SELECT query"})
    with pytest.raises(ViolationError):
        Constraint.contains("query", "SELECT").evaluate({"query": "DELETE FROM users"})
    with pytest.raises(TypeMismatchError):
        Constraint.starts_with("path", "/").evaluate({"path": 5})


def test_exists_not_exists() -> None:
    with pytest.raises(MissingParamError):
        Constraint.exists("x").evaluate({})
    Constraint.not_exists("deprecated").evaluate({})
    Constraint.not_exists("deprecated").evaluate({"other": 1})
    with pytest.raises(ViolationError):
        Constraint.not_exists("deprecated").evaluate({"deprecated": True})


def test_and_or() -> None:
    c = Constraint.and_([Constraint.ge("x", 100), Constraint.le("x", 1000)])
    for v in (100, 500, 1000):
        c.evaluate({"x": v})
    for v in (50, 1500):
        with pytest.raises(ConstraintError):
            c.evaluate({"x": v})
    with pytest.raises(ViolationError):
        Constraint.or_([Constraint.eq("c", "USD"), Constraint.eq("c", "EUR")]).evaluate({"c": "GBP"})
    with pytest.raises(ViolationError) as e:
        Constraint.or_([]).evaluate({})
    assert str(e.value) == "Constraint violation: (or) at least one constraint must match, actual: empty Or"


def test_nested_paths() -> None:
    Constraint.eq("nested/key", "value").evaluate({"nested": {"key": "value"}})
    Constraint.eq("/nested/key", "value").evaluate({"nested": {"key": "value"}})
    with pytest.raises(ViolationError):
        Constraint.eq("nested/key", "value").evaluate({"nested": {"key": "other"}})


# -- Exact messages and attributes (docs/capabilities.md, "Constraints") --------------------------------------------


@pytest.mark.parametrize(
    ("constraint", "params", "text"),
    [
        (Constraint.le("amount", 1000), {"amount": 5000}, "Constraint violation: amount <= 1000, actual: 5000"),
        (
            Constraint.is_in("currency", ["USD", "EUR"]),
            {"currency": "GBP"},
            "Constraint violation: currency in ['USD', 'EUR'], actual: 'GBP'",
        ),
        (
            Constraint.eq("status", "active"),
            {"status": "inactive"},
            "Constraint violation: status == 'active', actual: 'inactive'",
        ),
        (Constraint.starts_with("path", "/api/"), {"path": "/x"}, 'Constraint violation: path starts with "/api/", actual: /x'),
        (Constraint.not_exists("d"), {"d": "yes"}, "Constraint violation: d must not exist, actual: 'yes'"),
        (Constraint.starts_with("path", "/"), {"path": 1}, "Type mismatch for path: expected string, got int"),
        (Constraint.exists("a/b"), {"a": {}}, "Missing parameter: a/b"),
    ],
)
def test_documented_messages(constraint: Constraint, params: dict[str, Any], text: str) -> None:
    assert message(constraint, params) == text


def test_error_attributes() -> None:
    with pytest.raises(ViolationError) as v:
        Constraint.le("amount", 99.99).evaluate({"amount": 5000.0})
    assert (v.value.param, v.value.rule, v.value.actual) == ("amount", "<= 99.99", "5000.0")
    with pytest.raises(TypeMismatchError) as t:
        Constraint.contains("q", "x").evaluate({"q": [1]})
    assert (t.value.param, t.value.expected, t.value.actual) == ("q", "string", "list")
    with pytest.raises(MissingParamError) as m:
        Constraint.le("amount", 1).evaluate({})
    assert m.value.param == "amount"


def test_exception_classes() -> None:
    assert issubclass(MissingParamError, ConstraintError)
    assert not issubclass(ConstraintError, CapabilityError)
    assert issubclass(CallLimitExceededError, CapabilityError)
    assert str(ViolationError("x", "<= 5", "7")) == "Constraint violation: x <= 5, actual: 7"
    assert str(TypeMismatchError("p", "string", "int")) == "Type mismatch for p: expected string, got int"
    assert str(MissingParamError("p")) == "Missing parameter: p"
    e = CallLimitExceededError("cap:method:stripe/charges/*", 100)
    assert "cap:method:stripe/charges/*" in str(e) and "100" in str(e) and "exceeded" in str(e).lower()
    assert (e.capability_key, e.max_calls) == ("cap:method:stripe/charges/*", 100)
    assert isinstance(e, CapabilityError)
    assert "0" in str(CallLimitExceededError("k", 0))
    assert str(e) == "Call limit exceeded for 'cap:method:stripe/charges/*': max 100 calls allowed"


def test_unknown_type_is_value_error() -> None:
    with pytest.raises(ValueError, match="^Unknown constraint type: between$"):
        Constraint(type="between", param="x").evaluate({"x": 1})


# -- Hostile and edge inputs (docs/capabilities.md) --------------------------------------


@pytest.mark.parametrize(
    ("constraint", "params", "expected"),
    [
        # A number sent as a string never satisfies a numeric rule.
        (Constraint.le("amount", 10000), {"amount": "10000"}, "Constraint violation: amount <= 10000, actual: '10000'"),
        (Constraint.eq("id", "1"), {"id": 1}, "Constraint violation: id == '1', actual: 1"),
        # bool is a number.
        (Constraint.le("n", 1), {"n": True}, None),
        (Constraint.lt("n", 1), {"n": True}, "Constraint violation: n < 1, actual: True"),
        (Constraint.eq("n", 1), {"n": True}, None),
        (Constraint.is_in("n", [1]), {"n": True}, None),
        (Constraint.eq("n", 1), {"n": 1.0}, None),
        (Constraint.starts_with("p", "/"), {"p": True}, "Type mismatch for p: expected string, got bool"),
        # Big ints compare exactly.
        (Constraint.le("n", 2**53), {"n": 2**53 + 1}, f"Constraint violation: n <= {2**53}, actual: {2**53 + 1}"),
        (Constraint.le("n", float(2**53)), {"n": 2**53 + 1}, f"Constraint violation: n <= {float(2**53)!r}, actual: {2**53 + 1}"),
        (Constraint.le("n", 1000), {"n": 10**30}, f"Constraint violation: n <= 1000, actual: {10**30}"),
        (Constraint.ge("n", 0), {"n": -(10**30)}, f"Constraint violation: n >= 0, actual: {-(10**30)}"),
        (Constraint.lt("n", math.inf), {"n": 10**300}, None),
        # -0.0 equals 0; NaN passes nothing; Infinity orders.
        (Constraint.ge("n", 0), {"n": -0.0}, None),
        (Constraint.gt("n", 0), {"n": -0.0}, "Constraint violation: n > 0, actual: -0.0"),
        (Constraint.le("n", 10), {"n": math.nan}, "Constraint violation: n <= 10, actual: nan"),
        (Constraint.le("n", 10), {"n": math.inf}, "Constraint violation: n <= 10, actual: inf"),
        (Constraint.le("n", 1e16), {"n": 1e17}, "Constraint violation: n <= 1e+16, actual: 1e+17"),
        (Constraint.ge("n", 1e-5), {"n": 1.5e-7}, "Constraint violation: n >= 1e-05, actual: 1.5e-07"),
        # None is absent.
        (Constraint.le("n", 10), {"n": None}, "Missing parameter: n"),
        (Constraint.not_exists("n"), {"n": None}, None),
        # Deep equality; lists are not ordered.
        (Constraint.eq("l", [1, "a"]), {"l": [1.0, "a"]}, None),
        (Constraint.eq("d", {"a": 1}), {"d": {"a": True}}, None),
        (Constraint.lt("l", [2]), {"l": [1]}, "Constraint violation: l < [2], actual: [1]"),
        (Constraint.le("l", [1]), {"l": [1]}, None),
        # Strings order by code point.
        (Constraint.lt("s", "a"), {"s": "Z"}, None),
        # Python repr of values.
        (Constraint.eq("s", "x"), {"s": "it's"}, "Constraint violation: s == 'x', actual: \"it's\""),
        (Constraint.eq("s", "x"), {"s": "\u0430\u200b\n"}, "Constraint violation: s == 'x', actual: 'а\\u200b\\n'"),
        (Constraint.eq("s", "x"), {"s": "\ud800"}, "Constraint violation: s == 'x', actual: '\\ud800'"),
        (
            Constraint.eq("d", 1),
            {"d": {"k": [1, 2.5, None, False, "v"]}},
            "Constraint violation: d == 1, actual: {'k': [1, 2.5, None, False, 'v']}",
        ),
        # Paths: dots are not separators; list indexes use int().
        (Constraint.eq("a.b", 1), {"a.b": 1}, None),
        (Constraint.eq("a.b", 1), {"a": {"b": 1}}, "Missing parameter: a.b"),
        (Constraint.eq("l/1", "b"), {"l": ["a", "b"]}, None),
        (Constraint.eq("l/+1", "b"), {"l": ["a", "b"]}, None),
        (Constraint.eq("l/-1", "b"), {"l": ["a", "b"]}, "Missing parameter: l/-1"),
        (Constraint.eq("l/2", "b"), {"l": ["a", "b"]}, "Missing parameter: l/2"),
        (Constraint.eq("s/0", "a"), {"s": "abc"}, "Missing parameter: s/0"),
        (Constraint.eq("a//b", 1), {"a": {"": {"b": 1}}}, None),
        # Params that are not a dict: every lookup is absent.
        (Constraint.eq("x", 1), "x", "Missing parameter: x"),
        (Constraint.eq("0", 1), [1], "Missing parameter: 0"),
        (Constraint.not_exists("x"), object(), None),
        # Tuples are lists.
        (Constraint.eq("t", [1, 2]), {"t": (1, 2)}, None),
    ],
)
def test_hostile_values(constraint: Constraint, params: Any, expected: str | None) -> None:
    assert message(constraint, params) == expected


def test_very_long_and_deep_values() -> None:
    long = "a" * (1 << 20)
    Constraint.starts_with("s", "a").evaluate({"s": long})
    assert message(Constraint.eq("s", "b"), {"s": long}) == f"Constraint violation: s == 'b', actual: '{long}'"
    deep: Any = 1
    for _ in range(500):  # deep for Python's json, which recurses
        deep = [deep]
    Constraint.le("n", 5).evaluate({"n": 1, "junk": deep})
    assert message(Constraint.eq("x", 1), {"x": deep}) == f"Constraint violation: x == 1, actual: {deep!r}"


def test_non_json_params() -> None:
    with pytest.raises(TypeError, match="JSON-serialisable"):
        Constraint.le("n", 5).evaluate({"n": 1, "when": object()})


def test_or_reports_last_alternative() -> None:
    c = Constraint.or_([Constraint.eq("a", 1), Constraint.eq("b", 1)])
    assert message(c, {}) == "Missing parameter: b"
    with pytest.raises(ValueError):
        Constraint.or_([Constraint(type="bogus"), Constraint.eq("x", 1)]).evaluate({"x": 1})


# -- Constraint data ------------------------------------------------------------------------


def test_constraint_dataclass() -> None:
    c = Constraint.le("amount", 100)
    assert c == Constraint(type="le", param="amount", value=100)
    assert repr(c) == (
        "Constraint(type='le', param='amount', value=100, values=[], prefix='', suffix='', "
        "substring='', constraints=[])"
    )
    a, b = Constraint(type="in"), Constraint(type="in")
    a.values.append(1)
    assert b.values == []
    values = ["a"]
    m = Constraint.is_in("x", values)
    values.append("b")
    assert m.values == ["a"]
    assert Constraint.le("x", 1).param_name == "x"
    assert Constraint.and_([]).param_name is None
    tree = Constraint.and_([Constraint.le("a", 1), Constraint.or_([Constraint.eq("b", 1), Constraint.exists("c")])])
    assert tree.referenced_params() == ["a", "b", "c"]
    assert ConstraintType.__args__ == (  # type: ignore[attr-defined]
        "lt", "le", "gt", "ge", "eq", "ne", "in", "not_in", "starts_with", "ends_with",
        "contains", "exists", "not_exists", "and", "or",
    )  # fmt: skip


def test_param_builder() -> None:
    x = Param("x")
    assert x.name == "x"
    assert [(x < 1).type, (x <= 1).type, (x > 1).type, (x >= 1).type, (x == 1).type, (x != 1).type] == [
        "lt", "le", "gt", "ge", "eq", "ne",
    ]  # fmt: skip
    assert (100 > x).type == "lt"
    assert x.is_in([1]).type == "in" and x.not_in([1]).type == "not_in"
    assert (x.starts_with("a").type, x.ends_with("a").type, x.contains("a").type) == (
        "starts_with", "ends_with", "contains",
    )  # fmt: skip
    assert x.exists().type == "exists" and x.not_exists().type == "not_exists"
    assert (Param("amount") <= 1000) == Constraint.le("amount", 1000)
    with pytest.raises(TypeError):
        hash(x)


# -- ConstraintSet -------------------------------------------------------------------------------


def test_constraint_set() -> None:
    empty = ConstraintSet()
    assert empty.is_empty() and len(empty) == 0 and not empty
    empty.evaluate({"anything": 1})
    a = ConstraintSet([Constraint.le("x", 10)])
    b = ConstraintSet([Constraint.ge("y", 0)])
    merged = a.merge(b)
    assert len(merged) == 2 and len(a) == 1
    merged.evaluate({"x": 5, "y": 1})
    with pytest.raises(ViolationError):
        merged.evaluate({"x": 50, "y": 1})
    with pytest.raises(ViolationError):
        merged.evaluate({"x": 5, "y": -1})
    a.extend(b)
    assert len(a) == 2 and a == merged
    items = [Constraint.le("x", 1)]
    s = ConstraintSet(items)
    items.append(Constraint.le("y", 1))
    assert len(s) == 1


def test_constraint_subsumption() -> None:
    assert Constraint.le("x", 100).subsumes(Constraint.le("x", 50))
    assert not Constraint.le("x", 100).subsumes(Constraint.le("x", 150))
    assert Constraint.ge("x", 0).subsumes(Constraint.ge("x", 10))
    assert not Constraint.ge("x", 0).subsumes(Constraint.ge("x", -10))
    assert Constraint.is_in("x", ["a", "b", "c"]).subsumes(Constraint.is_in("x", ["a", "b"]))
    assert not Constraint.is_in("x", ["a", "b"]).subsumes(Constraint.is_in("x", ["a", "b", "c"]))
    assert Constraint.not_in("x", ["a", "b"]).subsumes(Constraint.not_in("x", ["a", "b", "c"]))
    assert not Constraint.not_in("x", ["a", "b"]).subsumes(Constraint.not_in("x", ["a"]))
    assert Constraint.starts_with("p", "/api").subsumes(Constraint.starts_with("p", "/api/v2"))
    assert not Constraint.starts_with("p", "/api").subsumes(Constraint.starts_with("p", "/ap"))
    assert Constraint.ends_with("f", ".json").subsumes(Constraint.ends_with("f", "config.json"))
    assert not Constraint.le("x", 100).subsumes(Constraint.le("y", 50))
    # Documented although unsound: eq subsumes an ordering rule.
    assert Constraint.eq("x", 5).subsumes(Constraint.lt("x", 10))
    assert not Constraint.le("x", 10).subsumes(Constraint.lt("x", 5))


def test_set_subsumption() -> None:
    parent = ConstraintSet([Constraint.le("x", 100)])
    assert parent.subsumes(ConstraintSet([Constraint.le("x", 50)]))
    assert not parent.subsumes(ConstraintSet([Constraint.le("x", 200)]))
    assert parent.subsumes(ConstraintSet([Constraint.le("x", 50), Constraint.ge("y", 0)]))
    assert parent.subsumes(ConstraintSet())


# -- MethodCapability (docs/capabilities.md) -----------------------------------------------------------------------


def test_method_capability_defaults(api: Api) -> None:
    cap = api.cls(method_pattern="stripe/charges/*")
    assert cap.constraints.is_empty() and cap.max_calls is None and cap.input_schema is None
    assert api.cls("a").constraints is not api.cls("b").constraints
    full = api.cls("x", ConstraintSet([Constraint.le("a", 1)]), 5, {"type": "object"})
    assert (len(full.constraints), full.max_calls, full.input_schema) == (1, 5, {"type": "object"})
    assert cap.key() == api.key("stripe/charges/*")
    assert api.cls("**").key() == api.key("**")
    assert METHOD_CAPABILITY_TYPE == "method" and TOOL_CALL_CAP_TYPE == "tool-call"
    assert getattr(api.module, api.type_const_name) == api.type_const
    assert getattr(amla_sandbox, api.type_const_name) == api.type_const


def charge_cap(api: Api) -> ToolCallCap:
    return api.cls(
        "stripe/charges/*",
        ConstraintSet(
            [Constraint.ge("amount", 100), Constraint.le("amount", 10000), Constraint.is_in("currency", ["usd", "eur"])]
        ),
    )


def test_validate_call(api: Api) -> None:
    cap = charge_cap(api)
    cap.validate_call("stripe/charges/create", {"amount": 5000, "currency": "usd"})
    with pytest.raises(CapabilityError, match="^method 'stripe/refunds/x' does not match pattern 'stripe/charges/\\*'$"):
        cap.validate_call("stripe/refunds/x", {"amount": 5000, "currency": "usd"})
    for params in ({"amount": 50, "currency": "usd"}, {"amount": 50000, "currency": "usd"}, {"amount": 500, "currency": "gbp"}):
        with pytest.raises(CapabilityError):
            cap.validate_call("stripe/charges/create", params)
    with pytest.raises(CapabilityError) as e:
        cap.validate_call("stripe/charges/create", {"amount": 50000, "currency": "usd"})
    assert str(e.value) == "Constraint violation: amount <= 10000, actual: 50000"
    assert isinstance(e.value.__cause__, ViolationError)
    with pytest.raises(CapabilityError, match="Missing parameter"):
        cap.validate_call("stripe/charges/create", {"currency": "usd"})

    listing = api.cls("stripe/*/list", ConstraintSet([Constraint.le("limit", 100)]))
    with pytest.raises(CapabilityError):
        listing.validate_call("stripe/customers/list", {"limit": 101})
    files = api.cls("fs/read", ConstraintSet([Constraint.starts_with("path", "/tmp/")]))
    with pytest.raises(CapabilityError):
        files.validate_call("fs/read", {"path": "/etc/passwd"})
    sql = api.cls(
        "db/query", ConstraintSet([Constraint.starts_with("sql", "SELECT"), Constraint.ne("database", "production")])
    )
    sql.validate_call("db/query", {"sql": "SELECT 1", "database": "dev"})
    with pytest.raises(CapabilityError):
        sql.validate_call("db/query", {"sql": "DROP TABLE x", "database": "dev"})
    with pytest.raises(CapabilityError):
        sql.validate_call("db/query", {"sql": "SELECT 1", "database": "production"})
    http = api.cls(
        "http/post",
        ConstraintSet(
            [
                Constraint.eq("headers/content-type", "application/json"),
                Constraint.ends_with("body/user/email", "@example.com"),
            ]
        ),
    )
    ok = {"headers": {"content-type": "application/json"}, "body": {"user": {"email": "a@example.com"}}}
    http.validate_call("http/post", ok)
    with pytest.raises(CapabilityError):
        http.validate_call("http/post", {**ok, "headers": {"content-type": "text/plain"}})
    with pytest.raises(CapabilityError):
        http.validate_call("http/post", {**ok, "body": {"user": {"email": "a@evil.com"}}})
    pay = api.cls(
        "pay",
        ConstraintSet(
            [
                Constraint.or_(
                    [
                        Constraint.lt("amount", 1000),
                        Constraint.and_([Constraint.ge("amount", 1000), Constraint.eq("currency", "usd")]),
                    ]
                )
            ]
        ),
    )
    pay.validate_call("pay", {"amount": 500, "currency": "eur"})
    pay.validate_call("pay", {"amount": 5000, "currency": "usd"})
    with pytest.raises(CapabilityError):
        pay.validate_call("pay", {"amount": 5000, "currency": "eur"})
    for method in ("anything", "stripe/charges/create", "deeply/nested/path/method"):
        api.cls("**").validate_call(method, {})


def test_validate_call_ignores_max_calls_and_schema(api: Api) -> None:
    cap = api.cls("a", max_calls=0, input_schema={"bad": object()})
    cap.validate_call("a", {})


def test_is_subset_of(api: Api) -> None:
    stripe = api.cls("stripe/**")
    assert api.cls("stripe/charges/*").is_subset_of(stripe)
    assert not api.cls("github/**").is_subset_of(stripe)
    assert not api.cls("**").is_subset_of(stripe)
    assert not stripe.is_subset_of(api.cls("stripe/charges/*"))
    limited = api.cls("stripe/**", max_calls=100)
    assert api.cls("stripe/a", max_calls=50).is_subset_of(limited)
    assert api.cls("stripe/a", max_calls=100).is_subset_of(limited)
    assert not api.cls("stripe/a", max_calls=200).is_subset_of(limited)
    assert not api.cls("stripe/a").is_subset_of(limited)
    capped = api.cls("stripe/**", ConstraintSet([Constraint.le("amount", 10000)]))
    assert api.cls("stripe/a", ConstraintSet([Constraint.le("amount", 5000)])).is_subset_of(capped)
    assert api.cls(
        "stripe/a", ConstraintSet([Constraint.le("amount", 5000), Constraint.is_in("currency", ["usd"])])
    ).is_subset_of(capped)
    assert not api.cls("stripe/a", ConstraintSet([Constraint.le("amount", 20000)])).is_subset_of(capped)


def test_to_dict_from_dict(api: Api) -> None:
    assert api.cls("stripe/charges/*").to_dict() == {"method_pattern": "stripe/charges/*"}
    cap = api.cls(
        "s/*",
        ConstraintSet([Constraint.le("amount", 1000), Constraint.is_in("currency", ["USD"])]),
        max_calls=5,
        input_schema={"type": "object"},
    )
    assert cap.to_dict() == {
        "method_pattern": "s/*",
        "constraints": [
            {"type": "le", "param": "amount", "value": 1000},
            {"type": "in", "param": "currency", "values": ["USD"]},
        ],
        "max_calls": 5,
        "input_schema": {"type": "object"},
    }
    back = api.cls.from_dict(cap.to_dict())
    assert back == cap
    assert api.cls.from_dict({"method_pattern": "x"}) == api.cls("x")
    with pytest.raises(KeyError):
        api.cls.from_dict({})
    zero = api.cls("x", ConstraintSet([Constraint.eq("a", 0), Constraint.eq("b", False), Constraint.eq("c", None)]))
    assert zero.to_dict()["constraints"] == [
        {"type": "eq", "param": "a", "value": 0},
        {"type": "eq", "param": "b", "value": False},
        {"type": "eq", "param": "c"},
    ]
    nested = api.cls("x", ConstraintSet([Constraint.and_([Constraint.exists("a")])]))
    assert nested.to_dict()["constraints"] == [{"type": "and", "constraints": [{"type": "exists", "param": "a"}]}]
    with pytest.raises(TypeError, match="^Expected Constraint, got <class 'int'>$"):
        api.cls("x", ConstraintSet([1])).to_dict()  # type: ignore[list-item]


def test_top_level_exports(api: Api) -> None:
    for name in (
        api.type_name, api.type_const_name, "Constraint", "ConstraintSet", "Param", "CapabilityError",
        "CallLimitExceededError", "ConstraintError", "MissingParamError", "TypeMismatchError", "ViolationError",
        "method_matches_pattern", "pattern_is_subset",
    ):  # fmt: skip
        assert getattr(amla_sandbox, name) is getattr(amla_sandbox.capabilities, name)
    assert constraints_module.Constraint is Constraint


# -- Budgets and can_call through a Runtime (docs/capabilities.md, "Budgets") ------------------------------------------


def runtime_with(caps: list[ToolCallCap]) -> Any:
    from amla_sandbox import Runtime, RuntimeConfig
    from amla_sandbox.auth import EphemeralAuthority

    authority = EphemeralAuthority()
    return Runtime(
        RuntimeConfig(
            pca_bytes=authority.create_pca().to_cbor(),
            trusted_authorities=[authority.public_key_hex()],
            capabilities=caps,
        )
    )


def test_runtime_budgets_and_can_call(api: Api) -> None:
    rt = runtime_with(
        [
            api.cls("read/*", max_calls=100),
            api.cls("write/*", max_calls=10),
            api.cls("admin/*"),
        ]
    )
    try:
        assert rt.get_call_counts() == {api.key("read/*"): 100, api.key("write/*"): 10}
        assert rt.get_remaining_calls(api.key("admin/*")) is None
        assert rt.get_remaining_calls(api.key("nope")) is None
        assert rt.can_call("read/x") and not rt.can_call("other")
        assert rt.get_remaining_calls(api.key("read/*")) == 100  # can_call consumes nothing
    finally:
        rt.close()


def test_runtime_replaced_capabilities(api: Api) -> None:
    rt = runtime_with([api.cls("**")])
    try:
        rt._capabilities = [
            api.cls(
                "stripe/charges/*",
                ConstraintSet([Constraint.le("amount", 10000), Constraint.is_in("currency", ["usd"])]),
                max_calls=10,
            ),
            api.cls("stripe/*/list", ConstraintSet([Constraint.le("limit", 100)])),
            api.cls("github/**"),
        ]
        assert rt.can_call("stripe/charges/create", {"amount": 5000, "currency": "usd"})
        assert rt.can_call("stripe/charges/list", {"limit": 50})
        assert not rt.can_call("stripe/customers/delete")
        assert [c.method_pattern for c in rt.get_capabilities()] == ["stripe/charges/*", "stripe/*/list", "github/**"]
        rt._capabilities = []
        assert not rt.can_call("anything")
    finally:
        rt.close()


def test_runtime_can_call_with_constraint(api: Api) -> None:
    rt = runtime_with([api.cls("api/*", ConstraintSet([Constraint.le("limit", 100)]))])
    try:
        assert rt.can_call("api/users", {"limit": 50})
        assert rt.can_call("api/posts", {"limit": 100})
        assert not rt.can_call("other/method", {"limit": 50})
        assert not rt.can_call("api/users", {"limit": 200})
    finally:
        rt.close()


# -- Both APIs at once (docs/compatibility.md D1-D4) -----------------------------------------------------------


def test_the_two_classes_are_one_type() -> None:
    m = MethodCapability("mcp:add", max_calls=3)
    t = ToolCallCap("mcp:add", max_calls=3)
    assert issubclass(MethodCapability, ToolCallCap)
    # isinstance holds both ways, so 0.1.7 code type-checking library-built
    # capabilities (ToolCallCap) keeps working.
    assert isinstance(t, MethodCapability) and isinstance(m, ToolCallCap)
    assert not isinstance("mcp:add", MethodCapability) and not isinstance(None, ToolCallCap)
    # Equal across classes on (pattern, constraints, max_calls, input_schema) ...
    assert m == t and t == m and not (m != t)
    assert m != ToolCallCap("mcp:add", max_calls=4) and t != MethodCapability("mcp:add")
    assert m != ToolCallCap("mcp:add", ConstraintSet([Constraint.le("a", 1)]), 3)
    assert t != "mcp:add"
    # ... but each keeps its own key format and class.
    assert (m.key(), t.key()) == ("cap:method:mcp:add", "cap:tool-call:mcp:add")
    assert type(MethodCapability.from_dict(t.to_dict())) is MethodCapability
    assert type(ToolCallCap.from_dict(m.to_dict())) is ToolCallCap
    assert m.to_dict() == t.to_dict() == {"method_pattern": "mcp:add", "max_calls": 3}  # no class tag
    with pytest.raises(TypeError):
        hash(t)
    # is_subset_of accepts either class.
    assert MethodCapability("stripe/a", max_calls=1).is_subset_of(ToolCallCap("stripe/**"))
    assert ToolCallCap("stripe/a", max_calls=1).is_subset_of(MethodCapability("stripe/**", max_calls=2))
    assert not ToolCallCap("stripe/a").is_subset_of(MethodCapability("stripe/**", max_calls=2))
    assert "ToolCallCap(method_pattern='mcp:add'" in repr(t) and repr(m).startswith("MethodCapability(")


def test_both_submodules_share_the_exception_classes() -> None:
    from amla_sandbox.capabilities import method, tool_call

    assert method.CapabilityError is tool_call.CapabilityError is CapabilityError
    assert method.CallLimitExceededError is tool_call.CallLimitExceededError is CallLimitExceededError
    assert method.MethodCapability is MethodCapability and tool_call.ToolCallCap is ToolCallCap
    assert (method.METHOD_CAPABILITY_TYPE, tool_call.TOOL_CALL_CAP_TYPE) == ("method", "tool-call")
    assert set(method.__all__) == {"METHOD_CAPABILITY_TYPE", "CallLimitExceededError", "CapabilityError", "MethodCapability"}
    assert set(tool_call.__all__) == {"TOOL_CALL_CAP_TYPE", "CallLimitExceededError", "CapabilityError", "ToolCallCap"}
    try:
        raise tool_call.CallLimitExceededError("cap:tool-call:x", 1)
    except method.CapabilityError as e:  # an except clause written against the other module
        assert e.capability_key == "cap:tool-call:x"


def test_top_level_all_has_both_versions_names() -> None:
    assert len(amla_sandbox.__all__) == 43 == len(set(amla_sandbox.__all__))
    for name in ("MethodCapability", "METHOD_CAPABILITY_TYPE", "ToolCallCap", "TOOL_CALL_CAP_TYPE"):
        assert name in amla_sandbox.__all__ and name in amla_sandbox.capabilities.__all__
        assert getattr(amla_sandbox, name) is getattr(amla_sandbox.capabilities, name)
    # Extras reachable as attributes, not star-exported (they would shadow builtins).
    assert "TimeoutError" not in amla_sandbox.__all__ and "MemoryLimitError" not in amla_sandbox.__all__
    assert issubclass(amla_sandbox.TimeoutError, amla_sandbox.RuntimeError)
    assert issubclass(amla_sandbox.MemoryLimitError, amla_sandbox.RuntimeError)


def test_call_counts_mapping_accepts_both_prefixes() -> None:
    from amla_sandbox.capabilities._counts import CallCounts

    counts = CallCounts({"cap:tool-call:z": 1, "cap:method:a": 2, "other": 3})
    assert list(counts) == ["cap:tool-call:z", "cap:method:a", "other"]  # order kept, reported keys
    assert repr(counts) == "{'cap:tool-call:z': 1, 'cap:method:a': 2, 'other': 3}"
    assert counts["cap:method:z"] == counts["cap:tool-call:z"] == 1
    assert counts["cap:tool-call:a"] == counts["cap:method:a"] == 2
    assert "cap:method:z" in counts and "cap:tool-call:a" in counts and "other" in counts
    assert "cap:method:other" not in counts and "cap:method:q" not in counts and 5 not in counts
    assert counts.get("cap:method:z") == 1 and counts.get("cap:method:q") is None and counts.get("q", 7) == 7
    with pytest.raises(KeyError, match="cap:method:q"):
        counts["cap:method:q"]
    assert counts == {"cap:method:z": 1, "cap:tool-call:a": 2, "other": 3}
    assert {"cap:method:z": 1, "cap:tool-call:a": 2, "other": 3} == counts  # reflected
    assert counts == {"cap:tool-call:z": 1, "cap:method:a": 2, "other": 3}
    assert counts != {"cap:tool-call:z": 1, "cap:method:a": 3, "other": 3}
    assert counts != {"cap:tool-call:z": 1, "cap:method:a": 2}
    # Two spellings of one budget are not one entry.
    assert CallCounts({"cap:method:a": 1}) != {"cap:method:a": 1, "cap:tool-call:a": 1}
    assert counts != [("cap:tool-call:z", 1)]
    assert isinstance(counts, dict) and dict(counts) == {"cap:tool-call:z": 1, "cap:method:a": 2, "other": 3}


def test_policy_json_tags_each_capability_with_its_class() -> None:
    import json

    from amla_sandbox.capabilities._counts import policy_json

    caps = [MethodCapability("a", max_calls=1, input_schema={"x": object()}), ToolCallCap("b", ConstraintSet([Constraint.le("n", 1)]))]
    assert json.loads(policy_json(caps)) == [
        {"method_pattern": "a", "max_calls": 1, "kind": "method"},
        {"method_pattern": "b", "constraints": [{"type": "le", "param": "n", "value": 1}], "kind": "tool-call"},
    ]


def test_budget_keys_in_each_capabilitys_own_format(api: Api) -> None:
    other = APIS[1] if api is APIS[0] else APIS[0]
    rt = runtime_with([api.cls("z/*", max_calls=2), other.cls("a/*", max_calls=5), api.cls("u/*")])
    try:
        counts = rt.get_call_counts()
        # Reported in each capability's own format, in capability-list order.
        assert list(counts) == [api.key("z/*"), other.key("a/*")]
        # Looked up in either format.
        for k in (api.key("z/*"), other.key("z/*")):
            assert rt.get_remaining_calls(k) == 2 and counts[k] == 2 and k in counts
        for k in (api.key("a/*"), other.key("a/*")):
            assert rt.get_remaining_calls(k) == 5
        assert counts == {other.key("z/*"): 2, api.key("a/*"): 5}
        for k in ("z/*", "cap:tool_call:z/*", api.key("u/*"), other.key("u/*"), api.key("nope")):
            assert rt.get_remaining_calls(k) is None
    finally:
        rt.close()


def test_same_pattern_in_both_classes_shares_one_budget(api: Api) -> None:
    other = APIS[1] if api is APIS[0] else APIS[0]
    # The last limited capability with the pattern sets the counter and the
    # reported key; every capability with the pattern draws from it.
    rt = runtime_with([other.cls("p", max_calls=9), api.cls("p", max_calls=2)])
    try:
        assert dict(rt.get_call_counts()) == {api.key("p"): 2}
        assert rt.get_remaining_calls(other.key("p")) == 2
    finally:
        rt.close()
