package capability_test

import (
	"encoding/json"
	"fmt"

	"amlasandbox/gocore/capability"
)

// A sandbox's policy: transfers up to 1000 in USD or EUR, at most twice;
// reads of anything under "mcp:read/".
func ExamplePolicy() {
	limit := int64(2)
	p := capability.NewPolicy([]capability.MethodCapability{
		{
			MethodPattern: "mcp:transfer",
			Constraints: capability.ConstraintSet{
				capability.LE("amount", 1000),
				capability.In("currency", "USD", "EUR"),
			},
			MaxCalls: &limit,
		},
		{MethodPattern: "mcp:read/**"},
	})
	for _, call := range []struct{ method, params string }{
		{"mcp:transfer", `{"amount": 500, "currency": "USD"}`},
		{"mcp:transfer", `{"amount": 5000.0, "currency": "USD"}`},
		{"mcp:transfer", `{"amount": "10", "currency": "GBP"}`},
		{"mcp:read/config", `{}`},
		{"mcp:delete", `{}`},
		{"mcp:transfer", `{"amount": 1, "currency": "EUR"}`},
		{"mcp:transfer", `{"amount": 1, "currency": "EUR"}`},
	} {
		if err := p.Authorize(call.method, json.RawMessage(call.params)); err != nil {
			fmt.Println("denied:", err)
		} else {
			fmt.Println("allowed")
		}
	}
	n, _ := p.Remaining("cap:method:mcp:transfer")
	fmt.Println("transfers left:", n)
	// Output:
	// allowed
	// denied: Method 'mcp:transfer' matched pattern 'mcp:transfer' but failed constraint check: Constraint violation: amount <= 1000, actual: 5000.0
	// denied: Method 'mcp:transfer' matched pattern 'mcp:transfer' but failed constraint check: Constraint violation: amount <= 1000, actual: '10'
	// allowed
	// denied: No capability authorizes method 'mcp:delete'. Available patterns: ['mcp:transfer', 'mcp:read/**']
	// allowed
	// denied: Call limit exceeded for 'cap:tool-call:mcp:transfer': max 2 calls allowed
	// transfers left: 0
}

func ExampleMatch() {
	fmt.Println(capability.Match("mcp:add", "mcp:*"))
	fmt.Println(capability.Match("mcp:add", "**"))
	fmt.Println(capability.Match("mcp:weather/current", "mcp:weather/*"))
	// Output:
	// false
	// true
	// true
}
