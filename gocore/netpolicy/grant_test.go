package netpolicy

import (
	"testing"

	"amlasandbox/gocore/wire"
)

// A port no rule names is refused unless the caller's grant names it, and
// then only for that request's connections.
func TestPrepareNamingPorts(t *testing.T) {
	p, err := ParsePolicy([]byte(`{"allow": ["GET https://api.example.com/**"]}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		url     string
		named   func(int) bool
		ok      bool
		granted bool
	}{
		{"https://api.example.com/x", nil, true, false},
		{"https://api.example.com:8443/x", nil, false, false},
		{"https://api.example.com:8443/x", func(n int) bool { return n == 8443 }, true, true},
		{"https://api.example.com:8444/x", func(n int) bool { return n == 8443 }, false, false},
	}
	for _, tc := range tests {
		r, err := p.PrepareNaming(wire.HTTPRequest{Method: "GET", URL: tc.url}, tc.named)
		if (err == nil) != tc.ok {
			t.Errorf("%s: err = %v, want ok=%v", tc.url, err, tc.ok)
			continue
		}
		if err != nil {
			if ref, _ := AsRefusal(err); ref == nil || ref.Check != CheckPort {
				t.Errorf("%s: refused by %v, want the port check", tc.url, err)
			}
			continue
		}
		if r.portGranted != tc.granted {
			t.Errorf("%s: portGranted = %v, want %v", tc.url, r.portGranted, tc.granted)
		}
	}
}

// Permit makes a prepared request executable once, like Authorize.
func TestPermitMarksOnce(t *testing.T) {
	p, err := ParsePolicy([]byte(`{"allow": []}`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Prepare(wire.HTTPRequest{Method: "GET", URL: "https://api.example.com/"})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Permit(r); err != nil || !r.authorized.Load() {
		t.Fatalf("Permit: %v, authorized=%v", err, r.authorized.Load())
	}
	other, _ := ParsePolicy([]byte(`{}`))
	if err := other.Permit(r); err == nil {
		t.Fatal("a policy permitted a request another policy prepared")
	}
}

// Rule budgets round-trip through their keys and are only ever lowered.
func TestRuleBudgets(t *testing.T) {
	p, err := ParsePolicy([]byte(`{"allow": [{"url": "https://a.example/x", "max_calls": 3}, "https://b.example"]}`))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		r, err := p.Prepare(wire.HTTPRequest{Method: "GET", URL: "https://a.example/x"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Authorize(r); err != nil {
			t.Fatal(err)
		}
	}
	left := p.RuleBudgets()
	if len(left) != 1 {
		t.Fatalf("RuleBudgets = %v, want the one limited rule", left)
	}
	for k, v := range left {
		if v != 1 || k[:len(RuleBudgetPrefix)] != RuleBudgetPrefix {
			t.Fatalf("RuleBudgets = %v, want 1 call left under a %q key", left, RuleBudgetPrefix)
		}
	}
	fresh, _ := ParsePolicy([]byte(`{"allow": [{"url": "https://a.example/x", "max_calls": 3}, "https://b.example"]}`))
	fresh.CapRuleBudgets(left)
	if got := fresh.CallsLeft(); got[0] != 1 || got[1] != -1 {
		t.Fatalf("after CapRuleBudgets: CallsLeft = %v, want [1 -1]", got)
	}
	more := map[string]int64{}
	for k := range left {
		more[k] = 99 // a restore never grants more than the policy has left
	}
	fresh.CapRuleBudgets(more)
	if got := fresh.CallsLeft(); got[0] != 1 {
		t.Fatalf("CapRuleBudgets raised a budget: CallsLeft = %v", got)
	}
}
