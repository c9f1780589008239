"""create_sandbox_tool's constraint DSL and limits, without running a sandbox.

Every error case here is raised before a sandbox is built.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from _apis import Api, api  # noqa: F401  (api is a fixture)
from amla_sandbox.capabilities import Constraint, ConstraintError, ConstraintSet

from amla_sandbox.bash_tool import (
    DEFAULT_MAX_CALLS,
    _build_capabilities,
    _parse_constraints,
    _parse_number,
    _parse_string_constraint,
    create_sandbox_tool,
)


def transfer(amount: float, currency: str, to: str = "") -> dict:
    """Send money."""
    return {"ok": True}


def read_file(path: str) -> str:
    """Read a file."""
    return ""


def test_default_max_calls() -> None:
    assert DEFAULT_MAX_CALLS == 100


def test_the_dsl_is_a_public_module_of_capabilities() -> None:
    from amla_sandbox import bash_tool
    from amla_sandbox.capabilities import dsl

    # The reference's private names in bash_tool are the DSL module's functions.
    assert bash_tool._parse_string_constraint is dsl.parse_string_constraint
    assert bash_tool._parse_constraints is dsl.parse_constraints
    assert bash_tool._parse_number is dsl.parse_number
    assert bash_tool._build_capabilities is dsl.build_capabilities
    assert bash_tool.DEFAULT_MAX_CALLS is dsl.DEFAULT_MAX_CALLS
    assert dsl.parse_string_constraint("p", "unknown format") is None
    assert dsl.parse_constraints({"n": "<=5"}).constraints == [Constraint.le("n", 5)]
    with pytest.raises(ValueError, match="Invalid constraint for tool 'transfer', parameter 'amount': 'x'"):
        dsl.check_spec({"transfer": transfer}, {"transfer": {"amount": "x"}}, None)


# -- _parse_string_constraint -------------------------------------------------------


@pytest.mark.parametrize(
    "spec,expected",
    [
        ("<=1000", Constraint.le("p", 1000)),
        ("<= 1000", Constraint.le("p", 1000)),
        (">=0", Constraint.ge("p", 0)),
        ("<100", Constraint.lt("p", 100)),
        (">0", Constraint.gt("p", 0)),
        (">5", Constraint.gt("p", 5)),
        ("==42", Constraint.eq("p", 42)),
        ("<=99.99", Constraint.le("p", 99.99)),
        (">= -5", Constraint.ge("p", -5)),
        ("<1.", Constraint.lt("p", 1.0)),
        ("startswith:/api/", Constraint.starts_with("p", "/api/")),
        ("startswith:", Constraint.starts_with("p", "")),
        # additions of ours (docs/compatibility.md, difference #5)
        ("!=0", Constraint.ne("p", 0)),
        ("!= 2.5", Constraint.ne("p", 2.5)),
        ("endswith:.json", Constraint.ends_with("p", ".json")),
        ("contains:SELECT", Constraint.contains("p", "SELECT")),
        ("contains: a b ", Constraint.contains("p", " a b ")),  # string operands are not stripped
    ],
)
def test_parse_string_constraint(spec: str, expected: Constraint) -> None:
    got = _parse_string_constraint("p", spec)
    assert isinstance(got, Constraint)
    assert got == expected
    assert type(got.value) is type(expected.value)


def test_int_and_float_operands() -> None:
    assert type(_parse_string_constraint("p", "<=10").value) is int
    assert type(_parse_string_constraint("p", "<=10.0").value) is float


@pytest.mark.parametrize(
    "spec",
    ["unknown format", "", "=5", "!5", "in:a,b", "StartsWith:/x", " <=5", "regex:.*"],
)
def test_unknown_format_is_none(spec: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="amla_sandbox.bash_tool"):
        assert _parse_string_constraint("p", spec) is None
    assert caplog.records == []  # silently: not a comparison


@pytest.mark.parametrize("spec,operand", [("==abc", "abc"), ("<1e3", "1e3"), ("<=", ""), (">= 1,000", "1,000")])
def test_bad_number_warns_and_is_none(spec: str, operand: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="amla_sandbox.bash_tool"):
        assert _parse_string_constraint("amount", spec) is None
    assert [r.getMessage() for r in caplog.records] == [
        f"Skipping invalid constraint for 'amount': Invalid numeric value in constraint: '{operand}' (spec: '{spec}')"
    ]
    assert caplog.records[0].name == "amla_sandbox.bash_tool"


def test_parse_number() -> None:
    assert _parse_number(" 12 ") == 12
    assert _parse_number("1.5") == 1.5
    with pytest.raises(ValueError, match="Invalid numeric value in constraint: 'x'"):
        _parse_number("x")
    with pytest.raises(ValueError):
        _parse_number("1e3")  # no ".": parsed as int


# -- _parse_constraints -----------------------------------------------------------


def test_parse_constraints_kinds() -> None:
    cs = _parse_constraints({"amount": "<=1000", "currency": ["USD", "EUR"], "n": 3, "x": 1.5, "flag": True})
    assert isinstance(cs, ConstraintSet)
    assert cs.constraints == [
        Constraint.le("amount", 1000),
        Constraint.is_in("currency", ["USD", "EUR"]),
        Constraint.eq("n", 3),
        Constraint.eq("x", 1.5),
        Constraint.eq("flag", True),
    ]


def test_parse_constraints_list_and_int_are_non_empty() -> None:
    assert not _parse_constraints({"currency": ["USD"]}).is_empty()
    assert not _parse_constraints({"count": 5}).is_empty()


def test_parse_constraints_is_lenient() -> None:
    # The private parser keeps the reference's leniency; create_sandbox_tool refuses these.
    assert _parse_constraints({"a": "nonsense", "b": {"x": 1}, "c": None, "d": ("t",)}).is_empty()
    assert _parse_constraints({}).is_empty()


def test_parsed_constraints_enforce() -> None:
    cs = _parse_constraints({"amount": "<=1000", "currency": ["USD", "EUR"], "path": "startswith:/api/"})
    cs.evaluate({"amount": 10, "currency": "USD", "path": "/api/x"})
    for bad in (
        {"amount": 5000, "currency": "USD", "path": "/api/x"},
        {"amount": 10, "currency": "GBP", "path": "/api/x"},
        {"amount": 10, "currency": "USD", "path": "/etc"},
    ):
        with pytest.raises(ConstraintError):
            cs.evaluate(bad)


# -- _build_capabilities ----------------------------------------------------------


def test_build_capabilities_builds_tool_call_caps_for_both_apis(api: Api) -> None:
    from amla_sandbox.capabilities import ToolCallCap

    caps = _build_capabilities([transfer], constraints={"transfer": {"amount": "<=5"}}, max_calls=3)
    assert type(caps[0]) is ToolCallCap and isinstance(caps[0], api.cls)  # 0.2.8's class, 0.1.7's isinstance
    assert caps[0].key() == "cap:tool-call:mcp:transfer"
    assert caps[0] == api.cls("mcp:transfer", ConstraintSet([Constraint.le("amount", 5)]), max_calls=3)


def test_build_capabilities_defaults() -> None:
    caps = _build_capabilities([transfer, read_file])
    assert [c.method_pattern for c in caps] == ["mcp:transfer", "mcp:read_file"]
    assert [c.max_calls for c in caps] == [100, 100]
    assert all(c.constraints.is_empty() for c in caps)


def test_build_capabilities_int_and_dict_limits() -> None:
    assert [c.max_calls for c in _build_capabilities([transfer, read_file], max_calls=50)] == [50, 50]
    caps = _build_capabilities([transfer, read_file], max_calls={"transfer": 5})
    limits = {c.method_pattern.rsplit(":", 1)[-1]: c.max_calls for c in caps}
    assert limits == {"transfer": 5, "read_file": 100}


def test_build_capabilities_constraints() -> None:
    caps = _build_capabilities([transfer, read_file], constraints={"transfer": {"amount": "<=1000"}})
    assert caps[0].constraints.constraints == [Constraint.le("amount", 1000)]
    assert caps[1].constraints.is_empty()


# -- create_sandbox_tool refuses what it cannot honour (docs/compatibility.md, difference #5)


def test_bad_constraint_string_names_tool_param_and_string() -> None:
    with pytest.raises(ValueError) as info:
        create_sandbox_tool([transfer], constraints={"transfer": {"amount": "at most 1000"}})
    msg = str(info.value)
    assert "'transfer'" in msg
    assert "'amount'" in msg
    assert "'at most 1000'" in msg
    assert msg.startswith("Invalid constraint for tool 'transfer', parameter 'amount': 'at most 1000'.")


@pytest.mark.parametrize("spec", ["==USD", "<1e3", "endswith", "<= ", "unknown format"])
def test_every_unparseable_string_is_an_error(spec: str) -> None:
    with pytest.raises(ValueError, match="Invalid constraint for tool 'transfer', parameter 'currency'"):
        create_sandbox_tool([transfer], constraints={"transfer": {"currency": spec}})


# Lenient where the reference was (issue 10 item 2): keys that name no tool
# and constraints on parameters a tool lacks are accepted with a UserWarning
# that names the key and the tools.


def search(query: str) -> list:
    """Search."""
    return []


def create_item(name: str) -> dict:
    """Create an item."""
    return {}


def test_unknown_tool_in_constraints_warns() -> None:
    with pytest.warns(UserWarning) as record:
        tool = create_sandbox_tool([transfer], constraints={"transfr": {"amount": "<=10"}})
    assert [str(w.message) for w in record] == [
        "constraints name no tool 'transfr', so they are ignored; the tools are ['transfer']"
    ]
    assert record[0].filename == __file__  # points at the caller
    assert [c.constraints.is_empty() for c in tool.sandbox.capabilities] == [True]
    tool.close()


def test_constraints_without_tools_warn() -> None:
    with pytest.warns(UserWarning, match="constraints name no tool 'x', so they are ignored; the tools are \\[\\]"):
        create_sandbox_tool(constraints={"x": {"a": 1}}).close()


def test_unknown_tool_in_max_calls_warns_as_in_the_reference_example() -> None:
    # One of the reference's own examples: max_calls names "create" for a tool called create_item.
    with pytest.warns(UserWarning) as record:
        tool = create_sandbox_tool([search, create_item], max_calls={"search": 10, "create": 5})
    assert [str(w.message) for w in record] == [
        "max_calls names no tool 'create', so it is ignored; the tools are ['create_item', 'search'] "
        "(tools not listed get 100 calls)"
    ]
    assert [(c.method_pattern, c.max_calls) for c in tool.sandbox.capabilities] == [
        ("mcp:search", 10),
        ("mcp:create_item", DEFAULT_MAX_CALLS),
    ]
    tool.close()


def test_constraint_on_a_parameter_the_tool_lacks_warns() -> None:
    with pytest.warns(UserWarning) as record:
        tool = create_sandbox_tool([transfer], constraints={"transfer": {"ammount": "<=10", "currency": ["USD"]}})
    assert [str(w.message) for w in record] == [
        "constraints for tool 'transfer' name parameter 'ammount', which the tool does not have "
        "(its parameters are ['amount', 'currency', 'to']); every call that does not pass it will be denied "
        "with 'Missing parameter: ammount'"
    ]
    assert len(tool.sandbox.capabilities[0].constraints) == 2  # kept, as the reference keeps it
    tool.close()


def test_constraint_parameters_that_exist_do_not_warn(recwarn: pytest.WarningsRecorder) -> None:
    def nested(body: dict, **extra: Any) -> None:
        """Nested."""

    def plain(body: dict) -> None:
        """Plain."""

    create_sandbox_tool([transfer], constraints={"transfer": {"amount": "<=10"}}).close()
    create_sandbox_tool([plain], constraints={"plain": {"/body/user/email": "endswith:@x.com"}}).close()
    create_sandbox_tool([nested], constraints={"nested": {"anything": "<=1"}}).close()  # **kwargs takes any name
    assert [str(w.message) for w in recwarn if issubclass(w.category, UserWarning)] == []


def test_unparseable_constraint_for_an_unknown_tool_is_still_an_error() -> None:
    with pytest.warns(UserWarning), pytest.raises(ValueError, match="Invalid constraint for tool 'nope'"):
        create_sandbox_tool([transfer], constraints={"nope": {"amount": "<=lots"}})


@pytest.mark.parametrize("value", [{"max": 5}, None, ("USD",), {"USD"}])
def test_constraint_of_unsupported_type_is_an_error(value: Any) -> None:
    with pytest.raises(TypeError, match="Invalid constraint for tool 'transfer', parameter 'currency': expected"):
        create_sandbox_tool([transfer], constraints={"transfer": {"currency": value}})


def test_tool_spec_must_be_a_dict() -> None:
    with pytest.raises(TypeError, match="constraints for tool 'transfer' must be a dict"):
        create_sandbox_tool([transfer], constraints={"transfer": "<=5"})  # type: ignore[dict-item]


@pytest.mark.parametrize("max_calls", ["5", 2.5, True])
def test_max_calls_type(max_calls: Any) -> None:
    with pytest.raises(TypeError, match="max_calls must be an int"):
        create_sandbox_tool([transfer], max_calls=max_calls)


def test_max_calls_dict_value_type() -> None:
    with pytest.raises(TypeError, match="max_calls for tool 'transfer' must be an int"):
        create_sandbox_tool([transfer], max_calls={"transfer": "5"})  # type: ignore[dict-item]


@pytest.mark.parametrize("bad", [42, {"name": "get_weather"}, "get_weather"])
def test_tools_must_be_functions(bad: Any) -> None:
    with pytest.raises(TypeError, match="tools must be functions") as info:
        create_sandbox_tool([transfer, bad])
    assert "from_openai_tools()" in str(info.value)
