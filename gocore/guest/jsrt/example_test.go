package jsrt_test

import (
	"encoding/json"
	"os"

	"amlasandbox/gocore/guest/hostapi"
	"amlasandbox/gocore/guest/jsrt"
	"amlasandbox/gocore/wire"
)

// A script calls two tools, the second with the first one's result, and
// returns a value, which is printed.
func ExampleRun() {
	tools := &hostapi.Fake{
		ToolList: []wire.ToolInfo{{Name: "math.add"}, {Name: "math.multiply"}},
		Handler: func(method string, params json.RawMessage) (json.RawMessage, error) {
			var p struct{ A, B float64 }
			_ = json.Unmarshal(params, &p)
			if method == "mcp:math.add" {
				return json.Marshal(map[string]float64{"result": p.A + p.B})
			}
			return json.Marshal(map[string]float64{"result": p.A * p.B})
		},
	}
	jsrt.Run(`
const sum = await math_add({a: 3, b: 4});
const product = await math_multiply({a: sum.result, b: 5});
console.log(product.result);
return {sum: sum.result, product: product.result};
`, jsrt.Options{Stdout: os.Stdout, Stderr: os.Stdout, Tools: tools})
	// Output:
	// 35
	// {"sum":7,"product":35}
}

func ExampleJSName() {
	for _, name := range []string{"stripe.listTransactions", "weather/current", "my-tool", "mcp:x"} {
		os.Stdout.WriteString(jsrt.JSName(name) + "\n")
	}
	// Output:
	// stripe_listTransactions
	// weather_current
	// my_tool
	// mcp_x
}
