package netpolicy_test

import (
	"fmt"

	"amlasandbox/gocore/netpolicy"
	"amlasandbox/gocore/wire"
)

// The three steps a host takes for one guest request (Executor.Do, the
// third, needs a network and is left out here).
func ExamplePolicy_Prepare() {
	p, err := netpolicy.ParsePolicy([]byte(`{
		"allow": [
			"GET https://api.github.com/repos/**",
			{"url": "https://api.stripe.com/v1/refunds", "methods": ["POST"],
			 "constraints": {"form/amount": "<=5000"}, "max_calls": 2}
		]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, req := range []wire.HTTPRequest{
		{Method: "GET", URL: "https://api.github.com/repos/amla/sandbox?per_page=50"},
		{Method: "POST", URL: "https://api.stripe.com/v1/refunds",
			Headers: [][2]string{{"Content-Type", "application/x-www-form-urlencoded"}}, Body: []byte("amount=9000")},
		{Method: "GET", URL: "https://api.github.com/user"},
		{Method: "GET", URL: "http://169.254.169.254/latest/meta-data/"},
	} {
		r, err := p.Prepare(req)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(r.Method)
		if _, err := p.Authorize(r); err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(string(r.Params))
	}
	// Output:
	// http/GET/api.github.com/repos/amla/sandbox
	// {"method": "GET", "scheme": "https", "host": "api.github.com", "port": 443, "path": "/repos/amla/sandbox", "url": "https://api.github.com/repos/amla/sandbox?per_page=50", "query": {"per_page": 50}, "headers": {}, "body_size": 0}
	// http/POST/api.stripe.com/v1/refunds
	// network policy: refused by the constraint check: Constraint violation: form/amount <= 5000, actual: 9000 (https://api.stripe.com/v1/refunds) [allow[1] POST https://api.stripe.com/v1/refunds]
	// http/GET/api.github.com/user
	// network policy: refused by the allow check: no rule allows this request; rules: GET https://api.github.com/repos/**, POST https://api.stripe.com/v1/refunds (GET https://api.github.com/user)
	// http/GET/169.254.169.254/latest/meta-data/
	// network policy: refused by the allow check: no rule allows this request; rules: GET https://api.github.com/repos/**, POST https://api.stripe.com/v1/refunds (GET http://169.254.169.254/latest/meta-data/)
}
