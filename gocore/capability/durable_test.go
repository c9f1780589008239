package capability

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestCapBudgetsNeverGrantsMore(t *testing.T) {
	tests := []struct {
		name string
		caps []MethodCapability
		left map[string]int64
		want map[string]int64
	}{
		{"lowered", []MethodCapability{{MethodPattern: "mcp:a", MaxCalls: limit(10)}},
			map[string]int64{"cap:tool-call:mcp:a": 3}, map[string]int64{"cap:tool-call:mcp:a": 3}},
		{"never raised", []MethodCapability{{MethodPattern: "mcp:a", MaxCalls: limit(2)}},
			map[string]int64{"cap:tool-call:mcp:a": 9}, map[string]int64{"cap:tool-call:mcp:a": 2}},
		{"other key format", []MethodCapability{{MethodPattern: "mcp:a", MaxCalls: limit(5), Kind: "method"}},
			map[string]int64{"cap:tool-call:mcp:a": 1}, map[string]int64{"cap:method:mcp:a": 1}},
		{"unlimited here, limited in the snapshot", []MethodCapability{{MethodPattern: "mcp:a"}},
			map[string]int64{"cap:tool-call:mcp:a": 4}, map[string]int64{"cap:tool-call:mcp:a": 4}},
		{"negative is zero", []MethodCapability{{MethodPattern: "mcp:a", MaxCalls: limit(5)}},
			map[string]int64{"cap:tool-call:mcp:a": -3}, map[string]int64{"cap:tool-call:mcp:a": 0}},
		{"not a key", []MethodCapability{{MethodPattern: "mcp:a", MaxCalls: limit(5)}},
			map[string]int64{"mcp:a": 1}, map[string]int64{"cap:tool-call:mcp:a": 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPolicy(tt.caps)
			p.CapBudgets(tt.left)
			if got := p.BudgetsLeft(); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("BudgetsLeft() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCapBudgetsEnforced(t *testing.T) {
	p := NewPolicy([]MethodCapability{{MethodPattern: "mcp:a"}})
	p.CapBudgets(map[string]int64{"cap:tool-call:mcp:a": 1})
	if err := p.Authorize("mcp:a", json.RawMessage(`{}`)); err != nil {
		t.Fatalf("first call refused: %v", err)
	}
	err := p.Authorize("mcp:a", json.RawMessage(`{}`))
	if _, ok := err.(*CallLimitExceededError); !ok {
		t.Fatalf("second call: got %v, want a CallLimitExceededError", err)
	}
}

func TestAuthorizeCallApproval(t *testing.T) {
	p := NewPolicy([]MethodCapability{
		{MethodPattern: "mcp:pay", RequiresApproval: true, MaxCalls: limit(1), Constraints: ConstraintSet{LE("amount", 100)}},
		{MethodPattern: "*"},
	})
	tests := []struct {
		method, params string
		approval, ok   bool
	}{
		{"mcp:pay", `{"amount": 50}`, true, true},
		// The budget of the approval capability is spent: the next call
		// falls through to the capability without approval.
		{"mcp:pay", `{"amount": 50}`, false, true},
		// Its constraint fails: the same.
		{"mcp:pay", `{"amount": 500}`, false, true},
		{"mcp:read", `{}`, false, true},
		{"other/x", `{}`, false, false},
	}
	for i, tt := range tests {
		approval, err := p.AuthorizeCall(tt.method, json.RawMessage(tt.params))
		if approval != tt.approval || (err == nil) != tt.ok {
			t.Fatalf("call %d %s: approval %v err %v; want approval %v ok %v", i, tt.method, approval, err, tt.approval, tt.ok)
		}
	}
}

func TestRequiresApprovalNarrows(t *testing.T) {
	ask := MethodCapability{MethodPattern: "mcp:pay", RequiresApproval: true}
	free := MethodCapability{MethodPattern: "mcp:pay"}
	if free.IsSubsetOf(ask) {
		t.Fatal("a capability without approval is not a subset of one that requires it")
	}
	if !ask.IsSubsetOf(free) {
		t.Fatal("requiring approval narrows: it is a subset")
	}
	c, err := ParseCapability([]byte(`{"method_pattern": "mcp:pay", "requires_approval": true}`))
	if err != nil || !c.RequiresApproval {
		t.Fatalf("parse: %+v %v", c, err)
	}
	if _, err := ParseCapability([]byte(`{"method_pattern": "mcp:pay", "requires_approval": "yes"}`)); err == nil {
		t.Fatal("a requires_approval that is not a bool must be refused")
	}
}

// Only capabilities whose pattern names the prefix literally decide an
// explicit call: "**" matches every method but opens nothing here.
func TestAuthorizeExplicit(t *testing.T) {
	one := int64(1)
	tests := []struct {
		name     string
		caps     []MethodCapability
		method   string
		explicit bool
		allowed  bool
	}{
		{"wildcard only", []MethodCapability{{MethodPattern: "**"}}, "http/GET/h/x", false, false},
		{"explicit match", []MethodCapability{{MethodPattern: "**"}, {MethodPattern: "http/GET/h/**"}}, "http/GET/h/x", true, true},
		{"explicit other host", []MethodCapability{{MethodPattern: "http/GET/h/**"}}, "http/GET/other/x", true, false},
		{"explicit budget", []MethodCapability{{MethodPattern: "http/GET/h/**", MaxCalls: &one}}, "http/GET/h/x", true, true},
	}
	for _, tc := range tests {
		p := NewPolicy(tc.caps)
		_, explicit, err := p.AuthorizeExplicit("http/", tc.method, nil)
		// Without an explicit capability nothing is decided (and nothing allowed).
		if explicit != tc.explicit || (explicit && err == nil) != tc.allowed {
			t.Errorf("%s: explicit=%v err=%v, want explicit=%v allowed=%v", tc.name, explicit, err, tc.explicit, tc.allowed)
		}
	}
	p := NewPolicy([]MethodCapability{{MethodPattern: "http/GET/h/**", MaxCalls: &one}})
	if _, _, err := p.AuthorizeExplicit("http/", "http/GET/h/x", nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.AuthorizeExplicit("http/", "http/GET/h/x", nil); err == nil {
		t.Fatal("a spent explicit budget allowed a second call")
	}
}
