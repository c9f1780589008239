"""Capabilities enforced on calls made from inside running scripts (capability issue),
under both reference APIs (tests/_apis.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from _apis import Api, api  # noqa: F401  (api is a fixture)
from amla_sandbox import (
    ConstraintSet,
    Param,
    Sandbox,
    ToolDefinition,
    create_sandbox_tool,
)


def defs(*names: str) -> list[ToolDefinition]:
    return [
        ToolDefinition(name=n, description=n, parameters={"type": "object", "properties": {"amount": {"type": "integer"}, "currency": {"type": "string"}}})
        for n in names
    ]


def counting_handler():
    calls: list[tuple[str, Any]] = []

    def handler(name: str, params: Any) -> Any:
        calls.append((name, params))
        return {"ok": True, "name": name}

    return handler, calls


def catch_all(call: str) -> str:
    return f"try {{ console.log(JSON.stringify(await {call})) }} catch (e) {{ console.log('DENIED ' + e.message) }}"


def test_denial_rejects_the_promise_and_never_calls_the_handler(api: Api):
    handler, calls = counting_handler()
    caps = [
        api.cls(
            method_pattern="mcp:stripe.charge",
            constraints=ConstraintSet([Param("amount") <= 10000, Param("currency").is_in(["USD", "EUR"])]),
        )
    ]
    with Sandbox(tools=defs("stripe.charge", "stripe.refund"), capabilities=caps, tool_handler=handler) as sb:
        out = sb.execute(
            "\n".join(
                [
                    catch_all("stripe_charge({amount: 500, currency: 'USD'})"),
                    catch_all("stripe_charge({amount: 50000, currency: 'USD'})"),
                    catch_all("stripe_charge({amount: 5, currency: 'GBP'})"),
                    catch_all("stripe_charge({currency: 'USD'})"),
                    catch_all("stripe_refund({amount: 1})"),
                    catch_all("stripe_charge({amount: '10000', currency: 'USD'})"),
                ]
            )
        )
    lines = out.splitlines()
    assert lines[0] == '{"ok":true,"name":"stripe.charge"}'
    assert lines[1] == (
        "DENIED tool call 'mcp:stripe.charge' failed: permission_denied: Method 'mcp:stripe.charge' matched pattern 'mcp:stripe.charge' but failed constraint check: "
        "Constraint violation: amount <= 10000, actual: 50000"
    )
    assert lines[2].endswith("Constraint violation: currency in ['USD', 'EUR'], actual: 'GBP'")
    assert lines[3].endswith("Missing parameter: amount")
    assert lines[4] == (
        "DENIED tool call 'mcp:stripe.refund' failed: permission_denied: "
        "No capability authorizes method 'mcp:stripe.refund'. Available patterns: ['mcp:stripe.charge']"
    )
    # A number sent as a string is not a number: string vs int ordering fails closed.
    assert lines[5].endswith("Constraint violation: amount <= 10000, actual: '10000'")
    assert calls == [("stripe.charge", {"amount": 500, "currency": "USD"})]


def test_values_json_cannot_carry_fail_closed(api: Api):
    handler, calls = counting_handler()
    caps = [api.cls(method_pattern="mcp:pay", constraints=ConstraintSet([Param("amount") <= 100]))]
    with Sandbox(tools=defs("pay"), capabilities=caps, tool_handler=handler) as sb:
        out = sb.execute(
            "\n".join(catch_all(f"pay({{amount: {v}}})") for v in ("NaN", "Infinity", "-Infinity", "true", "-0", "2n ** 70n > 0n ? 1e308 * 10 : 0"))
        )
    lines = out.splitlines()
    # JSON.stringify turns NaN and ±Infinity into null: a null value is an absent parameter.
    assert all("Missing parameter: amount" in line for line in (lines[0], lines[1], lines[2], lines[5])), out
    assert lines[3].startswith('{"ok"')  # True counts as the number 1 (Python bool semantics)
    assert lines[4].startswith('{"ok"')  # -0 <= 100
    assert len(calls) == 2


def test_budgets_are_consumed_in_order_with_fallback_and_limit_message(api: Api):
    handler, calls = counting_handler()
    caps = [api.cls(method_pattern="mcp:data.read", max_calls=2), api.cls(method_pattern="**", max_calls=10)]
    with Sandbox(tools=defs("data.read"), capabilities=caps, tool_handler=handler) as sb:
        sb.execute("for (let i = 0; i < 3; i++) await data_read({})")
        assert sb.get_call_counts() == {api.key("mcp:data.read"): 0, api.key("**"): 9}
        assert len(calls) == 3
    caps = [api.cls(method_pattern="**", max_calls=3)]
    handler, calls = counting_handler()
    with Sandbox(tools=defs("t"), capabilities=caps, tool_handler=handler) as sb:
        out = sb.execute("for (let i = 1; i <= 4; i++) { " + catch_all("t({})") + " }")
        assert out.splitlines()[3] == (
            f"DENIED tool call 'mcp:t' failed: permission_denied: Call limit exceeded for '{api.prefix}**': max 3 calls allowed"
        )
        assert len(calls) == 3
        assert sb.get_remaining_calls(api.key("**")) == 0
        assert not sb.can_call("mcp:t", {})
        # Budgets never reset between runs.
        assert sb.execute(catch_all("t({})")).startswith("DENIED tool call 'mcp:t' failed: permission_denied: Call limit exceeded")


def test_a_failing_handler_still_spends_budget(api: Api):
    def handler(name: str, params: Any) -> Any:
        raise RuntimeError("down")

    with Sandbox(tools=defs("t"), capabilities=[api.cls("**", max_calls=5)], tool_handler=handler) as sb:
        sb.execute(catch_all("t({})"))
        assert sb.get_remaining_calls(api.key("**")) == 4


def test_one_sandbox_cannot_spend_another_sandboxes_budget(api: Api):
    handler, _ = counting_handler()
    caps = [api.cls("**", max_calls=2)]
    a = Sandbox(tools=defs("t"), capabilities=caps, tool_handler=handler)
    b = Sandbox(tools=defs("t"), capabilities=caps, tool_handler=handler)
    try:
        a.execute("await t({}); await t({})")
        assert a.get_remaining_calls(api.key("**")) == 0
        assert b.get_remaining_calls(api.key("**")) == 2
        assert b.execute("return (await t({})).ok") == "true\n"
    finally:
        a.close()
        b.close()


def test_tool_applet_goes_through_the_same_checks_and_budget(api: Api):
    handler, calls = counting_handler()
    caps = [api.cls("mcp:pay", constraints=ConstraintSet([Param("amount") <= 100]), max_calls=2)]
    with Sandbox(tools=defs("pay"), capabilities=caps, tool_handler=handler) as sb:
        assert json.loads(sb.shell("tool pay --amount 50")) == {"ok": True, "name": "pay"}
        sb.shell("tool pay --amount 500")
        assert "Constraint violation: amount <= 100, actual: 500" in sb.last_stderr
        assert sb.last_result.exit_code != 0
        sb.execute("await pay({amount: 1})")
        sb.shell("tool pay --amount 1")
        assert (
            f"tool: pay failed: permission_denied: Call limit exceeded for '{api.prefix}mcp:pay': max 2 calls allowed"
            in sb.last_stderr
        )
    assert len(calls) == 2


def test_methods_a_script_was_not_given_never_reach_the_handler(api: Api):
    handler, calls = counting_handler()
    caps = [api.cls("mcp:safe")]
    with Sandbox(tools=defs("safe", "danger"), capabilities=caps, tool_handler=handler) as sb:
        out = sb.execute(
            "\n".join(
                [
                    catch_all("danger({})"),
                    catch_all("callTool('danger', {})"),
                    catch_all("callTool('mcp:danger', {})"),
                    catch_all("callTool('../danger', {})"),
                    catch_all("callTool('unregistered', {})"),
                ]
            )
        )
        sb.shell("tool danger; tool ../danger; tool mcp:safe")
    assert all(line.startswith("DENIED") for line in out.splitlines()), out
    assert calls == []


def test_mangled_name_collisions_do_not_bypass_capabilities(api: Api):
    handler, calls = counting_handler()
    caps = [api.cls("mcp:a.b")]
    with Sandbox(tools=defs("a.b", "a_b"), capabilities=caps, tool_handler=handler) as sb:
        out = sb.execute(catch_all("a_b({})") + "\n" + catch_all("callTool('a_b', {})"))
    lines = out.splitlines()
    assert lines[0] == '{"ok":true,"name":"a.b"}'  # the first registered tool owns the identifier
    assert lines[1] == (
        "DENIED tool call 'mcp:a_b' failed: permission_denied: "
        "No capability authorizes method 'mcp:a_b'. Available patterns: ['mcp:a.b']"
    )
    assert calls == [("a.b", {})]


@pytest.mark.parametrize(
    "pattern,method,allowed",
    [
        ("mcp:*", "mcp:t", False),  # mcp:* is a literal segment, not a wildcard
        ("**", "mcp:t", True),
        ("mcp:weather/*", "mcp:weather/current", True),
        ("weather/*", "mcp:weather/current", False),
        ("MCP:t", "mcp:t", False),
        ("mcp:t/", "mcp:t", False),
        ("mcp:t", "mcp:t/", False),
        ("mcp:t", "mcp:t/../t", False),
        ("mcp:t", "mcp:ｔ", False),  # a full-width look-alike is another name
    ],
)
def test_can_call_patterns(pattern: str, method: str, allowed: bool, api: Api):
    with Sandbox(capabilities=[api.cls(pattern)]) as sb:
        assert sb.can_call(method) is allowed


def test_create_sandbox_tool_constraints_from_inside_scripts(api: Api):
    def transfer_money(amount: float, currency: str) -> dict:
        return {"success": True}

    tool = create_sandbox_tool(
        tools=[transfer_money],
        constraints={"transfer_money": {"amount": "<=1000", "currency": ["USD", "EUR"]}},
        max_calls={"transfer_money": 2},
    )
    out = tool.run(
        "\n".join(
            [
                catch_all("transfer_money({amount: 5000, currency: 'USD'})"),
                catch_all("transfer_money({amount: 10, currency: 'GBP'})"),
                catch_all("transfer_money({amount: 10, currency: 'USD'})"),
                catch_all("transfer_money({amount: 20, currency: 'EUR'})"),
                catch_all("transfer_money({amount: 30, currency: 'EUR'})"),
            ]
        ),
        language="javascript",
    )
    lines = out.splitlines()
    assert "5000" in lines[0] and "GBP" in lines[1]
    assert lines[2] == lines[3] == '{"success":true}'
    # create_sandbox_tool builds ToolCallCap (0.2.8): its key is cap:tool-call:, found by either prefix.
    assert lines[4] == (
        "DENIED tool call 'mcp:transfer_money' failed: permission_denied: "
        "Call limit exceeded for 'cap:tool-call:mcp:transfer_money': max 2 calls allowed"
    )
    assert tool.sandbox.get_remaining_calls(api.key("mcp:transfer_money")) == 0
    assert tool.sandbox.get_call_counts() == {api.key("mcp:transfer_money"): 0}
    assert list(tool.sandbox.get_call_counts()) == ["cap:tool-call:mcp:transfer_money"]
    with pytest.raises(ValueError, match="transfer_money.*amount.*<=lots"):
        create_sandbox_tool(tools=[transfer_money], constraints={"transfer_money": {"amount": "<=lots"}})
