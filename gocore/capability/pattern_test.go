package capability

import (
	"strings"
	"testing"
)

// Every rule of docs/capabilities.md, "Patterns", plus its hostile method names.
func TestMatch(t *testing.T) {
	tests := []struct {
		method, pattern string
		want            bool
	}{
		{"stripe/charges/create", "stripe/charges/create", true},
		{"stripe/charges/create", "stripe/charges/refund", false},
		{"stripe/charges/refund", "stripe/charges/*", true},
		{"stripe/charges", "stripe/charges/*", false},
		{"stripe/charges/refund/full", "stripe/charges/*", false},
		{"stripe/v2/charges", "stripe/*/charges", true},
		{"stripe", "stripe/**", true},
		{"stripe/a/b/c/d/e", "stripe/**", true},
		{"anything", "**", true},
		{"a/b/c/d", "**", true},
		{"", "**", true},
		{"create", "**/create", true},
		{"a/b/create", "**/create", true},
		{"stripe/charges", "stripe/**/charges", true},
		{"stripe/a/b/c/charges", "stripe/**/charges", true},
		{"api/v2/users/get", "api/*/users/*", true},
		{"api/v2/v3/users/get", "api/*/users/*", false},
		{"api/users/get", "api/**/users/*", true},
		{"api/v2/x/y/users/get", "api/**/users/*", true},
		{"github/repos", "stripe/**", false},
		{"stripe/charges", "github/*", false},
		{"", "", true},
		{"", "*", false},
		{"foo", "", false},

		// Wildcards only as whole segments.
		{"mcp:add", "mcp:*", false},
		{"mcp:*", "mcp:*", true},
		{"charge", "char*", false},
		{"a", "a**", false},
		{"mcp:add", "**", true},
		{"mcp:add", "mcp:add", true},
		{"mcp:weather/current", "mcp:weather/*", true},
		{"mcp:weather/current", "weather/*", false},
		// No normalisation: ".." and empty segments are ordinary segments.
		{"mcp:a/../b", "mcp:a/**", true},  // names are not paths
		{"mcp:a/../b", "mcp:b", false},    // ".." never climbs
		{"mcp:a/../b", "mcp:a/*/b", true}, // ".." is one segment
		{"a//b", "a/b", false},            // the empty segment counts
		{"a//b", "a/*/b", true},           // and "*" matches it
		{"a/", "a", false},                // trailing "/" adds an empty segment
		{"a/", "a/*", true},
		{"a/", "a/**", true},
		{"/a", "a", false},
		{"/", "*", false}, // two empty segments
		{"/", "*/*", true},
		// Case and Unicode are compared byte for byte.
		{"MCP:a", "mcp:a", false},
		{"mcp:A", "mcp:a", false},
		{"mcp:\u0430dd", "mcp:add", false}, // Cyrillic a
		{"mcp:add\u200b", "mcp:add", false},
		{"mcp:add", "MCP:**", false},
		{"mcp:a/b", "mcp:a", false},
		{"mcp:", "mcp:*", false},
	}
	for _, tt := range tests {
		if got := Match(tt.method, tt.pattern); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.method, tt.pattern, got, tt.want)
		}
	}
}

func TestPatternIsSubset(t *testing.T) {
	tests := []struct {
		child, parent string
		want          bool
	}{
		{"stripe/charges/create", "stripe/charges/*", true},
		{"stripe/charges/create", "stripe/**", true},
		{"stripe/charges/create", "**", true},
		{"stripe/charges/*", "stripe/charges/**", true},
		{"stripe/*", "stripe/**", true},
		{"*", "**", true},
		{"stripe/charges/**", "stripe/**", true},
		{"stripe/**", "**", true},
		{"stripe/charges/*", "stripe/charges/*", true},
		{"stripe/**", "stripe/**", true},
		{"**", "**", true},
		{"stripe/charges/create", "stripe/charges/create", true},
		{"stripe/charges/**", "stripe/charges/*", false},
		{"stripe/**", "stripe/*", false},
		{"github/**", "stripe/**", false},
		{"stripe/charges/*", "stripe/refunds/*", false},
		{"**", "stripe/**", false},
		{"**", "*", false},
		{"api/v1/users/*", "api/*/users/*", true},
		{"api/*/users/*", "api/**/users/*", true},
		{"api/**/users/*", "api/*/users/*", false},
		{"", "", true},
		{"", "**", true},
		{"foo", "", false},

		// The procedure's conservative answers, reproduced.
		{"a/**/b", "a/**/b", true},
		{"**/a", "**/a", true},
		{"**/a", "*/**", false}, // rule 4: child "**" against a non-"**" head, though every "**/a" method matches "*/**"
		{"mcp:*", "mcp:*", true},
		{"mcp:add", "mcp:*", false},
		{"a/b", "a/**/b", true},
		{"", "*", false},
		{"x", "**/**", true},
	}
	for _, tt := range tests {
		if got := PatternIsSubset(tt.child, tt.parent); got != tt.want {
			t.Errorf("PatternIsSubset(%q, %q) = %v, want %v", tt.child, tt.parent, got, tt.want)
		}
	}
}

// A very long hostile method name is matched in time proportional to its
// size, however many "**" the pattern has.
func TestMatchLongInputs(t *testing.T) {
	method := strings.Repeat("a/", 200000) + "b"
	pattern := strings.Repeat("**/a/", 10) + "**/c"
	if Match(method, pattern) {
		t.Fatal("matched")
	}
	if !Match(method, strings.Repeat("**/a/", 10)+"**/b") {
		t.Fatal("did not match")
	}
	if !PatternIsSubset(strings.Repeat("a/", 5000)+"b", strings.Repeat("**/a/", 20)+"**") {
		t.Fatal("subset")
	}
}
