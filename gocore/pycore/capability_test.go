package pycore

import "testing"

func TestPolicyBindings(t *testing.T) {
	h, err := PolicyNew(`[{"method_pattern": "mcp:b", "max_calls": 2, "kind": "method"}, {"method_pattern": "mcp:a", "max_calls": 1}, {"method_pattern": "**"}]`)
	if err != nil {
		t.Fatal(err)
	}
	defer PolicyFree(h)
	if got, want := PolicyCounts(h), `{"cap:method:mcp:b": 2, "cap:tool-call:mcp:a": 1}`; got != want {
		t.Errorf("PolicyCounts = %s, want %s", got, want)
	}
	for _, tt := range []struct {
		key  string
		want int64
	}{
		{"cap:method:mcp:b", 2}, {"cap:tool-call:mcp:b", 2},
		{"cap:method:mcp:a", 1}, {"cap:tool-call:mcp:a", 1},
		{"cap:tool-call:**", -1}, {"mcp:a", -1},
	} {
		if got := PolicyRemaining(h, tt.key); got != tt.want {
			t.Errorf("PolicyRemaining(%q) = %d, want %d", tt.key, got, tt.want)
		}
	}
	if err := PolicySetGrants(h, `["mcp:a"]`); err != nil {
		t.Fatal(err)
	}
	if got, want := PolicyCheck(h, "mcp:b", "{}"), "PCA does not grant method 'mcp:b'. Granted patterns: ['mcp:a']"; got != want {
		t.Errorf("PolicyCheck = %q, want %q", got, want)
	}
	if got := PolicyCheck(h, "mcp:a", "{}"); got != "" {
		t.Errorf("PolicyCheck(granted) = %q", got)
	}
	if err := PolicySetGrants(h, "null"); err != nil {
		t.Fatal(err)
	}
	if got := PolicyCheck(h, "mcp:b", "{}"); got != "" {
		t.Errorf("PolicyCheck after lifting grants = %q", got)
	}
	for _, bad := range []string{`"mcp:a"`, `[1]`, `{`} {
		if err := PolicySetGrants(h, bad); err == nil {
			t.Errorf("PolicySetGrants(%s): no error", bad)
		}
	}
	if err := PolicySetGrants(-5, "[]"); err == nil {
		t.Error("PolicySetGrants on a closed handle: no error")
	}
	if _, err := PolicyNew(`[{"method_pattern": "x", "kind": "other"}]`); err == nil {
		t.Error(`kind "other" accepted`)
	}
}
