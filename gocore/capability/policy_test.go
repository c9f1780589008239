package capability

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func limit(n int64) *int64 { return &n }

func TestMethodCapabilityKey(t *testing.T) {
	tests := []struct {
		kind, pattern, want string
	}{
		{"method", "stripe/charges/*", "cap:method:stripe/charges/*"},
		{"method", "**", "cap:method:**"},
		{"method", "mcp:add", "cap:method:mcp:add"},
		{"tool-call", "mcp:add", "cap:tool-call:mcp:add"},
		{"", "mcp:add", "cap:tool-call:mcp:add"},
		{"", "", "cap:tool-call:"},
	}
	for _, tt := range tests {
		if got := (MethodCapability{MethodPattern: tt.pattern, Kind: tt.kind}).Key(); got != tt.want {
			t.Errorf("Key(%q, kind %q) = %q, want %q", tt.pattern, tt.kind, got, tt.want)
		}
	}
}

func TestPatternOfKey(t *testing.T) {
	tests := []struct {
		key, pattern string
		ok           bool
	}{
		{"cap:method:mcp:add", "mcp:add", true},
		{"cap:tool-call:mcp:add", "mcp:add", true},
		{"cap:tool-call:", "", true},
		{"cap:method:cap:tool-call:x", "cap:tool-call:x", true},
		{"mcp:add", "", false},
		{"cap:tool_call:mcp:add", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		p, ok := PatternOfKey(tt.key)
		if p != tt.pattern || ok != tt.ok {
			t.Errorf("PatternOfKey(%q) = %q, %v; want %q, %v", tt.key, p, ok, tt.pattern, tt.ok)
		}
	}
}

// The reference's pinned MethodCapability behaviours (docs/capabilities.md).
func TestValidateCall(t *testing.T) {
	charges := MethodCapability{MethodPattern: "stripe/charges/*", Constraints: ConstraintSet{
		GE("amount", 100), LE("amount", 10000), In("currency", "usd", "eur"),
	}}
	list := MethodCapability{MethodPattern: "stripe/*/list", Constraints: ConstraintSet{LE("limit", 100)}}
	files := MethodCapability{MethodPattern: "fs/read", Constraints: ConstraintSet{StartsWith("path", "/tmp/")}}
	sql := MethodCapability{MethodPattern: "db/query", Constraints: ConstraintSet{
		StartsWith("sql", "SELECT"), NE("database", "production"),
	}}
	http := MethodCapability{MethodPattern: "http/post", Constraints: ConstraintSet{
		EQ("headers/content-type", "application/json"), EndsWith("body/user/email", "@example.com"),
	}}
	mixed := MethodCapability{MethodPattern: "pay", Constraints: ConstraintSet{
		Or(LT("amount", 1000), And(GE("amount", 1000), EQ("currency", "usd"))),
	}}
	all := MethodCapability{MethodPattern: "**"}

	tests := []struct {
		cap    MethodCapability
		method string
		params string
		want   string // "" or the CapabilityError text
	}{
		{charges, "stripe/charges/create", `{"amount": 5000, "currency": "usd"}`, ""},
		{charges, "stripe/refunds/create", `{"amount": 5000, "currency": "usd"}`, "method 'stripe/refunds/create' does not match pattern 'stripe/charges/*'"},
		{charges, "stripe/charges/create", `{"amount": 50, "currency": "usd"}`, "Constraint violation: amount >= 100, actual: 50"},
		{charges, "stripe/charges/create", `{"amount": 50000, "currency": "usd"}`, "Constraint violation: amount <= 10000, actual: 50000"},
		{charges, "stripe/charges/create", `{"amount": 500, "currency": "gbp"}`, "Constraint violation: currency in ['usd', 'eur'], actual: 'gbp'"},
		{charges, "stripe/charges/create", `{"currency": "usd"}`, "Missing parameter: amount"},
		{list, "stripe/customers/list", `{"limit": 100}`, ""},
		{list, "stripe/customers/list", `{"limit": 101}`, "Constraint violation: limit <= 100, actual: 101"},
		{files, "fs/read", `{"path": "/tmp/a"}`, ""},
		{files, "fs/read", `{"path": "/etc/passwd"}`, `Constraint violation: path starts with "/tmp/", actual: /etc/passwd`},
		{sql, "db/query", `{"sql": "SELECT 1", "database": "dev"}`, ""},
		{sql, "db/query", `{"sql": "DROP TABLE x", "database": "dev"}`, `Constraint violation: sql starts with "SELECT", actual: DROP TABLE x`},
		{sql, "db/query", `{"sql": "SELECT 1", "database": "production"}`, "Constraint violation: database != 'production', actual: 'production'"},
		{http, "http/post", `{"headers": {"content-type": "application/json"}, "body": {"user": {"email": "a@example.com"}}}`, ""},
		{http, "http/post", `{"headers": {"content-type": "text/plain"}, "body": {"user": {"email": "a@example.com"}}}`, "Constraint violation: headers/content-type == 'application/json', actual: 'text/plain'"},
		{http, "http/post", `{"headers": {"content-type": "application/json"}, "body": {"user": {"email": "a@evil.com"}}}`, `Constraint violation: body/user/email ends with "@example.com", actual: a@evil.com`},
		{mixed, "pay", `{"amount": 500, "currency": "eur"}`, ""},
		{mixed, "pay", `{"amount": 5000, "currency": "usd"}`, ""},
		{mixed, "pay", `{"amount": 5000, "currency": "eur"}`, "Constraint violation: currency == 'usd', actual: 'eur'"},
		{all, "anything", `{}`, ""},
		{all, "stripe/charges/create", `{}`, ""},
		{all, "deeply/nested/path/method", `{}`, ""},
	}
	for _, tt := range tests {
		err := tt.cap.ValidateCall(tt.method, mustParse(t, tt.params))
		got := ""
		if err != nil {
			var ce *CapabilityError
			if !errors.As(err, &ce) {
				t.Errorf("%s %s: %T is not a CapabilityError", tt.method, tt.params, err)
			}
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s %s:\n got  %q\n want %q", tt.method, tt.params, got, tt.want)
		}
	}
	// The constraint error is kept as the cause.
	err := charges.ValidateCall("stripe/charges/x", mustParse(t, `{}`))
	var missing *MissingParamError
	if !errors.As(err, &missing) || missing.Param != "amount" {
		t.Fatalf("cause: %v", err)
	}
}

func TestIsSubsetOf(t *testing.T) {
	stripe := MethodCapability{MethodPattern: "stripe/**"}
	limited := MethodCapability{MethodPattern: "stripe/**", MaxCalls: limit(100)}
	capped := MethodCapability{MethodPattern: "stripe/**", Constraints: ConstraintSet{LE("amount", 10000)}}
	tests := []struct {
		name          string
		child, parent MethodCapability
		want          bool
	}{
		{"narrower pattern", MethodCapability{MethodPattern: "stripe/charges/*"}, stripe, true},
		{"other service", MethodCapability{MethodPattern: "github/**"}, stripe, false},
		{"everything", MethodCapability{MethodPattern: "**"}, stripe, false},
		{"broader child", stripe, MethodCapability{MethodPattern: "stripe/charges/*"}, false},
		{"50 of 100", MethodCapability{MethodPattern: "stripe/a", MaxCalls: limit(50)}, limited, true},
		{"100 of 100", MethodCapability{MethodPattern: "stripe/a", MaxCalls: limit(100)}, limited, true},
		{"200 of 100", MethodCapability{MethodPattern: "stripe/a", MaxCalls: limit(200)}, limited, false},
		{"unlimited of 100", MethodCapability{MethodPattern: "stripe/a"}, limited, false},
		{"limited of unlimited", MethodCapability{MethodPattern: "stripe/a", MaxCalls: limit(5)}, stripe, true},
		{"le 5000 of le 10000", MethodCapability{MethodPattern: "stripe/a", Constraints: ConstraintSet{LE("amount", 5000)}}, capped, true},
		{"adds currency", MethodCapability{MethodPattern: "stripe/a", Constraints: ConstraintSet{LE("amount", 5000), In("currency", "usd")}}, capped, true},
		{"le 20000 of le 10000", MethodCapability{MethodPattern: "stripe/a", Constraints: ConstraintSet{LE("amount", 20000)}}, capped, false},
		{"schema ignored", MethodCapability{MethodPattern: "stripe/a", InputSchema: map[string]any{"type": "object"}}, stripe, true},
	}
	for _, tt := range tests {
		if got := tt.child.IsSubsetOf(tt.parent); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestCapabilityJSON(t *testing.T) {
	full := `{"method_pattern": "s/*", "constraints": [{"type": "le", "param": "amount", "value": 1000}, {"type": "in", "param": "currency", "values": ["USD"]}], "max_calls": 5, "input_schema": {"type": "object"}}`
	c, err := ParseCapability([]byte(full))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Constraints) != 2 || *c.MaxCalls != 5 || c.InputSchema == nil {
		t.Fatalf("%+v", c)
	}
	b, _ := c.MarshalJSON()
	if string(b) != full {
		t.Fatalf("round trip:\n%s\n%s", b, full)
	}
	bare, _ := MethodCapability{MethodPattern: "stripe/charges/*"}.MarshalJSON()
	if string(bare) != `{"method_pattern": "stripe/charges/*"}` {
		t.Fatal(string(bare))
	}
	// Through encoding/json too.
	var viaStd MethodCapability
	if err := json.Unmarshal([]byte(full), &viaStd); err != nil || len(viaStd.Constraints) != 2 {
		t.Fatalf("json.Unmarshal: %v", err)
	}
	if c, err := ParseCapability([]byte(`{"method_pattern": "x", "max_calls": true}`)); err != nil || *c.MaxCalls != 1 {
		t.Fatalf("bool max_calls: %v", err)
	}
	for _, bad := range []string{
		`{}`, `{"method_pattern": 1}`, `{"method_pattern": "x", "max_calls": 1.5}`,
		`{"method_pattern": "x", "max_calls": 99999999999999999999}`, `{"method_pattern": "x", "constraints": [{}]}`, `[]`,
	} {
		if _, err := ParseCapability([]byte(bad)); err == nil {
			t.Errorf("ParseCapability(%s): no error", bad)
		}
	}
	caps, err := ParseCapabilities([]byte(`[{"method_pattern": "a"}, {"method_pattern": "b", "max_calls": 0}]`))
	if err != nil || len(caps) != 2 || *caps[1].MaxCalls != 0 {
		t.Fatalf("ParseCapabilities: %v", err)
	}
}

func authorize(p *Policy, method, params string) string {
	if err := p.Authorize(method, json.RawMessage(params)); err != nil {
		return err.Error()
	}
	return ""
}

// The reference's pinned budget behaviours (docs/capabilities.md, "Budgets and the order capabilities are tried").
func TestPolicyBudgets(t *testing.T) {
	t.Run("three of three", func(t *testing.T) {
		p := NewPolicy([]MethodCapability{{MethodPattern: "**", MaxCalls: limit(3)}})
		for i := 0; i < 3; i++ {
			if got := authorize(p, "mcp:x", `{}`); got != "" {
				t.Fatal(got)
			}
		}
		err := p.Authorize("mcp:x", nil)
		var cl *CallLimitExceededError
		if !errors.As(err, &cl) || err.Error() != "Call limit exceeded for 'cap:tool-call:**': max 3 calls allowed" {
			t.Fatalf("%v", err)
		}
	})
	t.Run("remaining", func(t *testing.T) {
		p := NewPolicy([]MethodCapability{{MethodPattern: "**", MaxCalls: limit(5)}})
		if n, ok := p.Remaining("cap:method:**"); !ok || n != 5 {
			t.Fatal(n, ok)
		}
		authorize(p, "a", "{}")
		if n, _ := p.Remaining("cap:method:**"); n != 4 {
			t.Fatal(n)
		}
		authorize(p, "a", "{}")
		authorize(p, "a", "{}")
		if n, _ := p.Remaining("cap:method:**"); n != 2 {
			t.Fatal(n)
		}
		if _, ok := p.Remaining("cap:method:nope"); ok {
			t.Fatal("unknown key has a budget")
		}
	})
	t.Run("counts", func(t *testing.T) {
		p := NewPolicy([]MethodCapability{
			{MethodPattern: "read/*", MaxCalls: limit(100)},
			{MethodPattern: "write/*", MaxCalls: limit(10)},
			{MethodPattern: "admin/*"},
		})
		got := p.Counts()
		want := []Count{{"cap:tool-call:read/*", 100}, {"cap:tool-call:write/*", 10}}
		if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Fatal(got)
		}
		if _, ok := p.Remaining("cap:method:admin/*"); ok {
			t.Fatal("unlimited has a budget")
		}
	})
	t.Run("check does not consume", func(t *testing.T) {
		p := NewPolicy([]MethodCapability{{MethodPattern: "mcp:limited.action", MaxCalls: limit(2)}})
		if err := p.Check("mcp:limited.action", json.RawMessage(`{}`)); err != nil {
			t.Fatal(err)
		}
		authorize(p, "mcp:limited.action", "{}")
		authorize(p, "mcp:limited.action", "{}")
		if err := p.Check("mcp:limited.action", json.RawMessage(`{}`)); err == nil {
			t.Fatal("allowed after budget")
		}
		if n, _ := p.Remaining("cap:method:mcp:limited.action"); n != 0 {
			t.Fatal(n)
		}
	})
	t.Run("fallback", func(t *testing.T) {
		p := NewPolicy([]MethodCapability{
			{MethodPattern: "mcp:data.read", MaxCalls: limit(2)},
			{MethodPattern: "**", MaxCalls: limit(10)},
		})
		authorize(p, "mcp:data.read", "{}")
		authorize(p, "mcp:data.read", "{}")
		if n, _ := p.Remaining("cap:method:mcp:data.read"); n != 0 {
			t.Fatal(n)
		}
		if n, _ := p.Remaining("cap:method:**"); n != 10 {
			t.Fatal(n)
		}
		if got := authorize(p, "mcp:data.read", "{}"); got != "" {
			t.Fatal(got)
		}
		if n, _ := p.Remaining("cap:method:**"); n != 9 {
			t.Fatal(n)
		}
	})
	t.Run("can_call with constraint", func(t *testing.T) {
		p := NewPolicy([]MethodCapability{{MethodPattern: "api/*", Constraints: ConstraintSet{LE("limit", 100)}}})
		for _, c := range []struct {
			m, params string
			ok        bool
		}{
			{"api/users", `{"limit": 50}`, true},
			{"api/posts", `{"limit": 100}`, true},
			{"other/method", `{"limit": 50}`, false},
			{"api/users", `{"limit": 200}`, false},
		} {
			if got := p.Check(c.m, json.RawMessage(c.params)) == nil; got != c.ok {
				t.Errorf("%s %s: %v", c.m, c.params, got)
			}
		}
	})
	t.Run("unlimited shadows limited", func(t *testing.T) {
		p := NewPolicy([]MethodCapability{{MethodPattern: "**"}, {MethodPattern: "a", MaxCalls: limit(1)}})
		for i := 0; i < 5; i++ {
			if got := authorize(p, "a", "{}"); got != "" {
				t.Fatal(got)
			}
		}
		if n, _ := p.Remaining("cap:method:a"); n != 1 {
			t.Fatal(n)
		}
	})
	t.Run("shared key", func(t *testing.T) {
		// The last limited capability with the key sets the budget; an
		// unlimited one with the same key draws from it and reports 0.
		p := NewPolicy([]MethodCapability{
			{MethodPattern: "a", Constraints: ConstraintSet{EQ("x", 1)}},
			{MethodPattern: "a", MaxCalls: limit(5)},
			{MethodPattern: "a", MaxCalls: limit(2)},
		})
		if n, _ := p.Remaining("cap:method:a"); n != 2 {
			t.Fatal(n)
		}
		authorize(p, "a", `{"x": 1}`)
		authorize(p, "a", `{"x": 1}`)
		if got := authorize(p, "a", `{"x": 1}`); got != "Call limit exceeded for 'cap:tool-call:a': max 0 calls allowed" {
			t.Fatal(got)
		}
	})
	t.Run("denied calls are free", func(t *testing.T) {
		p := NewPolicy([]MethodCapability{{MethodPattern: "a", MaxCalls: limit(1), Constraints: ConstraintSet{LE("n", 1)}}})
		authorize(p, "a", `{"n": 5}`)
		authorize(p, "b", `{}`)
		if n, _ := p.Remaining("cap:method:a"); n != 1 {
			t.Fatal(n)
		}
	})
	t.Run("zero and negative budgets", func(t *testing.T) {
		p := NewPolicy([]MethodCapability{{MethodPattern: "a", MaxCalls: limit(0)}, {MethodPattern: "b", MaxCalls: limit(-3)}})
		if got := authorize(p, "a", "{}"); got != "Call limit exceeded for 'cap:tool-call:a': max 0 calls allowed" {
			t.Fatal(got)
		}
		if got := authorize(p, "b", "{}"); got != "Call limit exceeded for 'cap:tool-call:b': max -3 calls allowed" {
			t.Fatal(got)
		}
		if n, ok := p.Remaining("cap:method:b"); !ok || n != 0 {
			t.Fatal(n, ok)
		}
	})
}

func TestPolicyDenials(t *testing.T) {
	p := NewPolicy([]MethodCapability{
		{MethodPattern: "mcp:pay", Constraints: ConstraintSet{LE("amount", 100)}},
		{MethodPattern: "*", Constraints: ConstraintSet{EQ("currency", "usd")}},
		{MethodPattern: "mcp:read"},
	})
	tests := []struct{ method, params, want string }{
		{"mcp:read", `{}`, ""},
		// "mcp:*" is a literal segment, not a wildcard.
		{"mcp:x/y", `{}`, "No capability authorizes method 'mcp:x/y'. Available patterns: ['mcp:pay', '*', 'mcp:read']"},
		{"mcp:other", `{"currency": "eur"}`, "Method 'mcp:other' matched pattern '*' but failed constraint check: Constraint violation: currency == 'usd', actual: 'eur'"},
		{"mcp:pay", `{"amount": 500, "currency": "eur"}`, "Method 'mcp:pay' matched patterns but failed constraint checks: 'mcp:pay': Constraint violation: amount <= 100, actual: 500; '*': Constraint violation: currency == 'usd', actual: 'eur'"},
		{"mcp:pay", `{"amount": 500, "currency": "usd"}`, ""},
		{"nope/x", `{}`, "No capability authorizes method 'nope/x'. Available patterns: ['mcp:pay', '*', 'mcp:read']"},
		{"it's/x", `{}`, `No capability authorizes method 'it's/x'. Available patterns: ['mcp:pay', '*', 'mcp:read']`},
		// Hostile names: no normalisation, no case folding.
		{"MCP:read", `{}`, "Method 'MCP:read' matched pattern '*' but failed constraint check: Missing parameter: currency"},
		{"mcp:read/../pay", `{}`, "No capability authorizes method 'mcp:read/../pay'. Available patterns: ['mcp:pay', '*', 'mcp:read']"},
		{"mcp:re\u0430d", `{"currency": "usd"}`, ""}, // only "*" matches; its constraint passes
		// Params that are not an object: every parameter is absent.
		{"mcp:pay", `[1, 2]`, "Method 'mcp:pay' matched patterns but failed constraint checks: 'mcp:pay': Missing parameter: amount; '*': Missing parameter: currency"},
		{"mcp:pay", `not json`, "Method 'mcp:pay' matched patterns but failed constraint checks: 'mcp:pay': Missing parameter: amount; '*': Missing parameter: currency"},
		{"mcp:read", `not json`, ""},
	}
	for _, tt := range tests {
		if got := authorize(p, tt.method, tt.params); got != tt.want {
			t.Errorf("%s %s:\n got  %q\n want %q", tt.method, tt.params, got, tt.want)
		}
	}
	empty := NewPolicy(nil)
	if got := authorize(empty, "a", "{}"); got != "No capability authorizes method 'a'. Available patterns: []" {
		t.Fatal(got)
	}
	bad := NewPolicy([]MethodCapability{{MethodPattern: "a", Constraints: ConstraintSet{{Type: "bogus"}}}, {MethodPattern: "**"}})
	if got := authorize(bad, "a", "{}"); got != "Unknown constraint type: bogus" {
		t.Fatal(got)
	}
}

func TestPolicySetCapabilities(t *testing.T) {
	p := NewPolicy([]MethodCapability{{MethodPattern: "**", MaxCalls: limit(1)}})
	p.SetCapabilities([]MethodCapability{
		{MethodPattern: "stripe/charges/*", Constraints: ConstraintSet{LE("amount", 10000), In("currency", "usd")}},
		{MethodPattern: "stripe/*/list", Constraints: ConstraintSet{LE("limit", 100)}},
		{MethodPattern: "**", MaxCalls: limit(1)},
	})
	if got := authorize(p, "stripe/charges/create", `{"amount": 5000, "currency": "usd"}`); got != "" {
		t.Fatal(got)
	}
	if got := authorize(p, "stripe/charges/list", `{"limit": 50}`); got != "" {
		t.Fatal(got)
	}
	authorize(p, "x", "{}")
	if err := p.Check("stripe/customers/delete", nil); err == nil {
		t.Fatal("allowed")
	}
	if len(p.Capabilities()) != 3 {
		t.Fatal("capabilities")
	}
	p.SetCapabilities(nil)
	if err := p.Check("anything", nil); err == nil {
		t.Fatal("empty list allows")
	}
	if n, ok := p.Remaining("cap:method:**"); !ok || n != 0 {
		t.Fatal("budget table was rebuilt", n, ok)
	}
}

// Concurrent calls never spend more than the budget.
func TestPolicyConcurrent(t *testing.T) {
	p := NewPolicy([]MethodCapability{{MethodPattern: "**", MaxCalls: limit(100)}})
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if p.Authorize("m", nil) == nil {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if allowed != 100 {
		t.Fatal(allowed)
	}
}

func TestErrorTexts(t *testing.T) {
	if got := (&CallLimitExceededError{"cap:method:stripe/charges/*", 100}).Error(); got != "Call limit exceeded for 'cap:method:stripe/charges/*': max 100 calls allowed" {
		t.Fatal(got)
	}
	if got := (&CallLimitExceededError{"k", 0}).Error(); !strings.Contains(got, "0") {
		t.Fatal(got)
	}
	if got := (&TypeMismatchError{"path", "string", "int"}).Error(); got != "Type mismatch for path: expected string, got int" {
		t.Fatal(got)
	}
}

// docs/compatibility.md D4: budgets per pattern, reported in each capability's own
// key format, looked up in either.
func TestPolicyKeyFormats(t *testing.T) {
	method := func(p string, n int64) MethodCapability {
		return MethodCapability{MethodPattern: p, MaxCalls: limit(n), Kind: MethodCapabilityType}
	}
	toolCall := func(p string, n int64) MethodCapability {
		return MethodCapability{MethodPattern: p, MaxCalls: limit(n), Kind: ToolCallCapType}
	}
	tests := []struct {
		name       string
		caps       []MethodCapability
		calls      []string // methods authorised in turn
		wantErrs   []string // "" or the denial, one per call
		wantCounts []Count
	}{
		{
			name:       "method keys",
			caps:       []MethodCapability{method("mcp:add", 1)},
			calls:      []string{"mcp:add", "mcp:add"},
			wantErrs:   []string{"", "Call limit exceeded for 'cap:method:mcp:add': max 1 calls allowed"},
			wantCounts: []Count{{"cap:method:mcp:add", 0}},
		},
		{
			name:       "tool-call keys",
			caps:       []MethodCapability{toolCall("mcp:add", 1)},
			calls:      []string{"mcp:add", "mcp:add"},
			wantErrs:   []string{"", "Call limit exceeded for 'cap:tool-call:mcp:add': max 1 calls allowed"},
			wantCounts: []Count{{"cap:tool-call:mcp:add", 0}},
		},
		{
			name: "same pattern shares one counter, reported in the last limited one's format",
			caps: []MethodCapability{method("mcp:a", 5), toolCall("mcp:a", 2)},
			// The first capability is exhausted when the shared counter is;
			// the error names the first exhausted capability's own key.
			calls:      []string{"mcp:a", "mcp:a", "mcp:a"},
			wantErrs:   []string{"", "", "Call limit exceeded for 'cap:method:mcp:a': max 5 calls allowed"},
			wantCounts: []Count{{"cap:tool-call:mcp:a", 0}},
		},
		{
			name:       "capability-list order, not sorted",
			caps:       []MethodCapability{toolCall("z", 1), method("a", 2), toolCall("m", 3), toolCall("z", 4)},
			calls:      []string{"a"},
			wantErrs:   []string{""},
			wantCounts: []Count{{"cap:tool-call:z", 4}, {"cap:method:a", 1}, {"cap:tool-call:m", 3}},
		},
		{
			name:       "unlimited same-pattern capability draws from and is blocked by the shared counter",
			caps:       []MethodCapability{method("b", 1), {MethodPattern: "b"}},
			calls:      []string{"b", "b"},
			wantErrs:   []string{"", "Call limit exceeded for 'cap:method:b': max 1 calls allowed"},
			wantCounts: []Count{{"cap:method:b", 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPolicy(tt.caps)
			for i, m := range tt.calls {
				if got := authorize(p, m, "{}"); got != tt.wantErrs[i] {
					t.Errorf("call %d (%s): got %q, want %q", i, m, got, tt.wantErrs[i])
				}
			}
			got := p.Counts()
			if len(got) != len(tt.wantCounts) {
				t.Fatalf("Counts() = %v, want %v", got, tt.wantCounts)
			}
			for i := range got {
				if got[i] != tt.wantCounts[i] {
					t.Fatalf("Counts() = %v, want %v", got, tt.wantCounts)
				}
				// Either prefix finds the budget.
				pattern, _ := PatternOfKey(got[i].Key)
				for _, k := range []string{MethodKeyPrefix + pattern, ToolCallKeyPrefix + pattern} {
					if n, ok := p.Remaining(k); !ok || n != got[i].Remaining {
						t.Errorf("Remaining(%q) = %d, %v; want %d", k, n, ok, got[i].Remaining)
					}
				}
			}
			for _, k := range []string{"nope", "cap:tool_call:a", "cap:method:unknown"} {
				if _, ok := p.Remaining(k); ok {
					t.Errorf("Remaining(%q) found a budget", k)
				}
			}
		})
	}
}

func TestPolicyGrants(t *testing.T) {
	all := []MethodCapability{{MethodPattern: "**"}}
	tests := []struct {
		name   string
		grants []string
		method string
		want   string
	}{
		{"no grants set", nil, "mcp:x", ""},
		{"granted exactly", []string{"mcp:x"}, "mcp:x", ""},
		{"granted by wildcard", []string{"db/*"}, "db/query", ""},
		{"granted by **", []string{"**"}, "anything/at/all", ""},
		{"not granted", []string{"mcp:read", "db/*"}, "mcp:write",
			"PCA does not grant method 'mcp:write'. Granted patterns: ['mcp:read', 'db/*']"},
		{"empty grant list denies all", []string{}, "mcp:x",
			"PCA does not grant method 'mcp:x'. Granted patterns: []"},
		{"quotes in patterns use Python repr", []string{"it's"}, "mcp:x",
			`PCA does not grant method 'mcp:x'. Granted patterns: ["it's"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPolicy(all)
			p.SetGrants(tt.grants)
			if got := authorize(p, tt.method, "{}"); got != tt.want {
				t.Errorf("Authorize: got %q, want %q", got, tt.want)
			}
			check := ""
			if err := p.Check(tt.method, json.RawMessage("{}")); err != nil {
				check = err.Error()
			}
			if check != tt.want {
				t.Errorf("Check: got %q, want %q", check, tt.want)
			}
		})
	}
	t.Run("granted but no capability", func(t *testing.T) {
		p := NewPolicy([]MethodCapability{{MethodPattern: "mcp:a"}})
		p.SetGrants([]string{"**"})
		if got := authorize(p, "mcp:b", "{}"); got != "No capability authorizes method 'mcp:b'. Available patterns: ['mcp:a']" {
			t.Error(got)
		}
	})
	t.Run("denied by grants spends nothing", func(t *testing.T) {
		p := NewPolicy([]MethodCapability{{MethodPattern: "**", MaxCalls: limit(1)}})
		p.SetGrants([]string{"mcp:a"})
		_ = authorize(p, "mcp:b", "{}")
		if n, _ := p.Remaining("cap:tool-call:**"); n != 1 {
			t.Errorf("remaining %d after a grant denial", n)
		}
		p.SetGrants(nil)
		if got := authorize(p, "mcp:b", "{}"); got != "" {
			t.Errorf("after SetGrants(nil): %q", got)
		}
	})
}

func TestSetCapabilitiesBudgeted(t *testing.T) {
	tests := []struct {
		name  string
		start []MethodCapability
		spend int // calls of mcp:a made before the change
		next  []MethodCapability
		want  map[string]int64
	}{
		{"new limited pattern gets its budget", []MethodCapability{{MethodPattern: "mcp:a"}}, 0,
			[]MethodCapability{{MethodPattern: "mcp:a"}, {MethodPattern: "mcp:b", MaxCalls: limit(2)}},
			map[string]int64{"cap:tool-call:mcp:b": 2}},
		{"spent calls stay spent", []MethodCapability{{MethodPattern: "mcp:a", MaxCalls: limit(3)}}, 2,
			[]MethodCapability{{MethodPattern: "mcp:a", MaxCalls: limit(10)}},
			map[string]int64{"cap:tool-call:mcp:a": 1}},
		{"unlimited adds no budget", []MethodCapability{{MethodPattern: "mcp:a", MaxCalls: limit(1)}}, 0,
			[]MethodCapability{{MethodPattern: "mcp:a", MaxCalls: limit(1)}, {MethodPattern: "mcp:c"}},
			map[string]int64{"cap:tool-call:mcp:a": 1}},
		{"last limited capability of a new pattern sets it", nil, 0,
			[]MethodCapability{{MethodPattern: "mcp:d", MaxCalls: limit(5)}, {MethodPattern: "mcp:d", MaxCalls: limit(-1)}},
			map[string]int64{"cap:tool-call:mcp:d": 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPolicy(tt.start)
			for range tt.spend {
				if err := p.Authorize("mcp:a", json.RawMessage(`{}`)); err != nil {
					t.Fatal(err)
				}
			}
			p.SetCapabilitiesBudgeted(tt.next)
			if got := p.BudgetsLeft(); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("BudgetsLeft() = %v, want %v", got, tt.want)
			}
		})
	}
}
