"""Capabilities: constraints and budgets checked before your function runs.

Run: python examples/capabilities.py
"""

from amla_sandbox import ConstraintSet, MethodCapability, Param, Sandbox, ToolDefinition


def main() -> None:
    def handler(name: str, params: dict) -> dict:
        return {"charged": params["amount"], "currency": params["currency"]}

    sandbox = Sandbox(
        tools=[ToolDefinition("stripe.charge", "Create a charge", {"type": "object"})],
        capabilities=[
            MethodCapability(
                method_pattern="mcp:stripe.charge",
                constraints=ConstraintSet([Param("amount") <= 10000, Param("currency").is_in(["USD", "EUR"])]),
                max_calls=2,
            )
        ],
        tool_handler=handler,
    )
    print(
        sandbox.execute(
            """
            for (const args of [{amount: 500, currency: "USD"}, {amount: 50000, currency: "USD"},
                                {amount: 20, currency: "GBP"}, {amount: 700, currency: "EUR"},
                                {amount: 1, currency: "USD"}]) {
              try { console.log("ok  ", JSON.stringify(await stripe_charge(args))) }
              catch (e) { console.log("deny", e.message) }
            }
            """
        )
    )
    print("remaining:", sandbox.get_remaining_calls("cap:method:mcp:stripe.charge"))
    sandbox.close()


if __name__ == "__main__":
    main()
