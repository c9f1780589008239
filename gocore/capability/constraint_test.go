package capability

import (
	"errors"
	"strings"
	"testing"
)

// outcome names the result of an evaluation for table tests: "" (passes),
// "missing", "type", "violation" or "unknown", plus the exact message.
func outcome(err error) string {
	var (
		m *MissingParamError
		y *TypeMismatchError
		v *ViolationError
		u *UnknownTypeError
	)
	switch {
	case err == nil:
		return ""
	case errors.As(err, &m):
		return "missing: " + err.Error()
	case errors.As(err, &y):
		return "type: " + err.Error()
	case errors.As(err, &v):
		return "violation: " + err.Error()
	case errors.As(err, &u):
		return "unknown: " + err.Error()
	}
	return "other: " + err.Error()
}

type evalCase struct {
	name   string
	c      Constraint
	params string // JSON
	want   string // outcome(err)
}

func runEvalCases(t *testing.T, cases []evalCase) {
	t.Helper()
	for _, tt := range cases {
		var params any
		if v, err := ParseJSON([]byte(tt.params)); err == nil {
			params = v
		}
		if got := outcome(tt.c.Evaluate(params)); got != tt.want {
			t.Errorf("%s: %+v on %s\n got  %q\n want %q", tt.name, tt.c, tt.params, got, tt.want)
		}
	}
}

// The reference's pinned constraint behaviours and error texts (docs/capabilities.md, "Constraints").
func TestEvaluateDocumented(t *testing.T) {
	runEvalCases(t, []evalCase{
		{"le pass", LE("amount", 100), `{"amount": 50}`, ""},
		{"le equal", LE("amount", 100), `{"amount": 100}`, ""},
		{"le over", LE("amount", 100), `{"amount": 101}`, "violation: Constraint violation: amount <= 100, actual: 101"},
		{"le missing", LE("amount", 100), `{}`, "missing: Missing parameter: amount"},
		{"lt 50", LT("x", 100), `{"x": 50}`, ""},
		{"lt 99", LT("x", 100), `{"x": 99}`, ""},
		{"lt 100", LT("x", 100), `{"x": 100}`, "violation: Constraint violation: x < 100, actual: 100"},
		{"lt 101", LT("x", 100), `{"x": 101}`, "violation: Constraint violation: x < 100, actual: 101"},
		{"gt 1", GT("x", 0), `{"x": 1}`, ""},
		{"gt 100", GT("x", 0), `{"x": 100}`, ""},
		{"gt 0", GT("x", 0), `{"x": 0}`, "violation: Constraint violation: x > 0, actual: 0"},
		{"gt -1", GT("x", 0), `{"x": -1}`, "violation: Constraint violation: x > 0, actual: -1"},
		{"ge 100", GE("amount", 100), `{"amount": 100}`, ""},
		{"ge 200", GE("amount", 100), `{"amount": 200}`, ""},
		{"ge 50", GE("amount", 100), `{"amount": 50}`, "violation: Constraint violation: amount >= 100, actual: 50"},
		{"eq", EQ("status", "active"), `{"status": "inactive"}`, "violation: Constraint violation: status == 'active', actual: 'inactive'"},
		{"eq pass", EQ("status", "active"), `{"status": "active"}`, ""},
		{"ne active", NE("status", "deleted"), `{"status": "active"}`, ""},
		{"ne pending", NE("status", "deleted"), `{"status": "pending"}`, ""},
		{"ne deleted", NE("status", "deleted"), `{"status": "deleted"}`, "violation: Constraint violation: status != 'deleted', actual: 'deleted'"},
		{"in", In("currency", "USD", "EUR"), `{"currency": "GBP"}`, "violation: Constraint violation: currency in ['USD', 'EUR'], actual: 'GBP'"},
		{"in pass", In("currency", "USD", "EUR"), `{"currency": "EUR"}`, ""},
		{"not_in select", NotIn("method", "DELETE", "DROP"), `{"method": "SELECT"}`, ""},
		{"not_in insert", NotIn("method", "DELETE", "DROP"), `{"method": "INSERT"}`, ""},
		{"not_in delete", NotIn("method", "DELETE", "DROP"), `{"method": "DELETE"}`, "violation: Constraint violation: method not in ['DELETE', 'DROP'], actual: 'DELETE'"},
		{"starts_with", StartsWith("path", "/api/v2/"), `{"path": "/api/v1/users"}`, `violation: Constraint violation: path starts with "/api/v2/", actual: /api/v1/users`},
		{"starts_with doc", StartsWith("path", "/api/"), `{"path": "/x"}`, `violation: Constraint violation: path starts with "/api/", actual: /x`},
		{"ends_with pass", EndsWith("file", ".json"), `{"file": "config/settings.json"}`, ""},
		{"ends_with", EndsWith("file", ".json"), `{"file": "data.xml"}`, `violation: Constraint violation: file ends with ".json", actual: data.xml`},
		{"contains pass", Contains("query", "SELECT"), `{"query": "Running SELECT query"}`, ""},
		{"contains", Contains("query", "SELECT"), `{"query": "DELETE FROM users"}`, `violation: Constraint violation: query contains "SELECT", actual: DELETE FROM users`},
		{"exists", Exists("x"), `{}`, "missing: Missing parameter: x"},
		{"exists pass", Exists("x"), `{"x": 0}`, ""},
		{"not_exists empty", NotExists("deprecated"), `{}`, ""},
		{"not_exists other", NotExists("deprecated"), `{"other": 1}`, ""},
		{"not_exists present", NotExists("d"), `{"d": "yes"}`, "violation: Constraint violation: d must not exist, actual: 'yes'"},
		{"and 100", And(GE("x", 100), LE("x", 1000)), `{"x": 100}`, ""},
		{"and 500", And(GE("x", 100), LE("x", 1000)), `{"x": 500}`, ""},
		{"and 1000", And(GE("x", 100), LE("x", 1000)), `{"x": 1000}`, ""},
		{"and 50", And(GE("x", 100), LE("x", 1000)), `{"x": 50}`, "violation: Constraint violation: x >= 100, actual: 50"},
		{"and 1500", And(GE("x", 100), LE("x", 1000)), `{"x": 1500}`, "violation: Constraint violation: x <= 1000, actual: 1500"},
		{"or GBP (last error)", Or(EQ("c", "USD"), EQ("c", "EUR")), `{"c": "GBP"}`, "violation: Constraint violation: c == 'EUR', actual: 'GBP'"},
		{"or pass", Or(EQ("c", "USD"), EQ("c", "EUR")), `{"c": "USD"}`, ""},
		{"or empty", Or(), `{}`, "violation: Constraint violation: (or) at least one constraint must match, actual: empty Or"},
		{"and empty", And(), `{}`, ""},
		{"nested", EQ("nested/key", "value"), `{"nested": {"key": "value"}}`, ""},
		{"nested slash", EQ("/nested/key", "value"), `{"nested": {"key": "value"}}`, ""},
		{"nested differs", EQ("nested/key", "value"), `{"nested": {"key": "other"}}`, "violation: Constraint violation: nested/key == 'value', actual: 'other'"},
		{"starts_with int", StartsWith("path", "/"), `{"path": 5}`, "type: Type mismatch for path: expected string, got int"},
		{"amount doc", LE("amount", 1000), `{"amount": 5000}`, "violation: Constraint violation: amount <= 1000, actual: 5000"},
		{"unknown", Constraint{Type: "between", Param: "x"}, `{"x": 1}`, "unknown: Unknown constraint type: between"},
		{"unknown case", Constraint{Type: "LE", Param: "x", Value: 1}, `{"x": 1}`, "unknown: Unknown constraint type: LE"},
	})
}

// Hostile and edge inputs. Each outcome is a decision documented in
// docs/capabilities.md ("Edge cases and hostile inputs").
func TestEvaluateHostile(t *testing.T) {
	long := strings.Repeat("a", 1<<20)
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	runEvalCases(t, []evalCase{
		// A number sent as a string never satisfies a numeric rule (string
		// vs number is not ordered) and is reported with its quotes.
		{"string vs le", LE("amount", 10000), `{"amount": "10000"}`, "violation: Constraint violation: amount <= 10000, actual: '10000'"},
		{"string vs ge", GE("amount", 0), `{"amount": "50"}`, "violation: Constraint violation: amount >= 0, actual: '50'"},
		{"number vs string eq", EQ("id", "1"), `{"id": 1}`, "violation: Constraint violation: id == '1', actual: 1"},
		// bool is a number (Python bool subclasses int).
		{"true le 1", LE("n", 1), `{"n": true}`, ""},
		{"true lt 1", LT("n", 1), `{"n": true}`, "violation: Constraint violation: n < 1, actual: True"},
		{"false ge 0", GE("n", 0), `{"n": false}`, ""},
		{"true eq 1", EQ("n", 1), `{"n": true}`, ""},
		{"true in [1]", In("n", 1), `{"n": true}`, ""},
		{"1.0 eq 1", EQ("n", 1), `{"n": 1.0}`, ""},
		{"float bound repr", LE("n", 99.99), `{"n": 100}`, "violation: Constraint violation: n <= 99.99, actual: 100"},
		{"float actual repr", LE("n", 1000), `{"n": 5000.0}`, "violation: Constraint violation: n <= 1000, actual: 5000.0"},
		{"bool starts_with", StartsWith("p", "/"), `{"p": true}`, "type: Type mismatch for p: expected string, got bool"},
		{"float starts_with", StartsWith("p", "/"), `{"p": 1.5}`, "type: Type mismatch for p: expected string, got float"},
		{"list contains", Contains("p", "a"), `{"p": ["a"]}`, "type: Type mismatch for p: expected string, got list"},
		{"dict ends_with", EndsWith("p", "a"), `{"p": {}}`, "type: Type mismatch for p: expected string, got dict"},
		// Ints beyond 2^53 and beyond int64 compare exactly.
		{"2^53+1 le 2^53", LE("n", 9007199254740992), `{"n": 9007199254740993}`, "violation: Constraint violation: n <= 9007199254740992, actual: 9007199254740993"},
		{"2^53+1 vs float 2^53", LE("n", 9007199254740992.0), `{"n": 9007199254740993}`, "violation: Constraint violation: n <= 9007199254740992.0, actual: 9007199254740993"},
		{"beyond int64", LE("n", 1000), `{"n": 123456789012345678901234567890}`, "violation: Constraint violation: n <= 1000, actual: 123456789012345678901234567890"},
		{"negative beyond int64", GE("n", 0), `{"n": -123456789012345678901234567890}`, "violation: Constraint violation: n >= 0, actual: -123456789012345678901234567890"},
		{"beyond int64 below inf", LT("n", mustParse(t, "Infinity")), `{"n": 123456789012345678901234567890}`, ""},
		// -0 is the int 0; -0.0 equals 0.
		{"-0 eq 0", EQ("n", 0), `{"n": -0}`, ""},
		{"-0.0 ge 0", GE("n", 0), `{"n": -0.0}`, ""},
		{"-0.0 gt 0", GT("n", 0), `{"n": -0.0}`, "violation: Constraint violation: n > 0, actual: -0.0"},
		// NaN passes no ordering and equals nothing; Infinity orders.
		{"nan le", LE("n", 10), `{"n": NaN}`, "violation: Constraint violation: n <= 10, actual: nan"},
		{"nan ge", GE("n", 10), `{"n": NaN}`, "violation: Constraint violation: n >= 10, actual: nan"},
		{"nan ne", NE("n", mustParse(t, "NaN")), `{"n": NaN}`, ""},
		{"inf le", LE("n", 10), `{"n": Infinity}`, "violation: Constraint violation: n <= 10, actual: inf"},
		// null is absent.
		{"null le", LE("n", 10), `{"n": null}`, "missing: Missing parameter: n"},
		{"null not_exists", NotExists("n"), `{"n": null}`, ""},
		{"null exists", Exists("n"), `{"n": null}`, "missing: Missing parameter: n"},
		// Lists and dicts: equality is deep; ordering is not defined.
		{"list eq", EQ("l", []any{1, "a"}), `{"l": [1.0, "a"]}`, ""},
		{"list le equal", LE("l", []any{1}), `{"l": [1]}`, ""},
		{"list lt", LT("l", []any{2}), `{"l": [1]}`, "violation: Constraint violation: l < [2], actual: [1]"},
		{"dict eq", EQ("d", map[string]any{"a": 1}), `{"d": {"a": true}}`, ""},
		// Strings order by code point.
		{"str le", LE("s", "m"), `{"s": "a"}`, ""},
		{"str upper lt lower", LT("s", "a"), `{"s": "Z"}`, ""},
		// Very long strings are compared and reported in full.
		{"long starts_with", StartsWith("s", "a"), `{"s": "` + long + `"}`, ""},
		{"long eq", EQ("s", "b"), `{"s": "` + long + `"}`, "violation: Constraint violation: s == 'b', actual: '" + long + "'"},
		// Deeply nested values are walked without recursion.
		{"deep value not_exists", NotExists("x"), `{"x": ` + deep + `}`, "violation: Constraint violation: x must not exist, actual: " + deep},
		{"deep sibling", LE("n", 5), `{"n": 1, "junk": ` + deep + `}`, ""},
		{"deep eq", EQ("x", 1), `{"x": ` + deep + `}`, "violation: Constraint violation: x == 1, actual: " + deep},
		// Paths: dots are not separators; list indexes use Python int().
		{"dot is literal", EQ("a.b", 1), `{"a.b": 1}`, ""},
		{"dot not walked", EQ("a.b", 1), `{"a": {"b": 1}}`, "missing: Missing parameter: a.b"},
		{"list index", EQ("l/1", "b"), `{"l": ["a", "b"]}`, ""},
		{"list index +1", EQ("l/+1", "b"), `{"l": ["a", "b"]}`, ""},
		{"list index space", EQ("l/ 1", "b"), `{"l": ["a", "b"]}`, ""},
		{"list index -1", EQ("l/-1", "b"), `{"l": ["a", "b"]}`, "missing: Missing parameter: l/-1"},
		{"list index out of range", EQ("l/2", "b"), `{"l": ["a", "b"]}`, "missing: Missing parameter: l/2"},
		{"list index huge", EQ("l/99999999999999999999", "b"), `{"l": ["a"]}`, "missing: Missing parameter: l/99999999999999999999"},
		{"list index word", EQ("l/x", "b"), `{"l": ["a"]}`, "missing: Missing parameter: l/x"},
		{"walk into string", EQ("s/0", "a"), `{"s": "abc"}`, "missing: Missing parameter: s/0"},
		{"empty segment", EQ("a//b", 1), `{"a": {"": {"b": 1}}}`, ""},
		{"trailing slash", EQ("a/", 1), `{"a": {"": 1}}`, ""},
		{"two leading slashes", EQ("//a", 1), `{"": {"a": 1}}`, ""},
		{"empty param", EQ("", 1), `{"": 1}`, ""},
		// Params that are not a dict: every lookup is absent.
		{"string params", EQ("x", 1), `"x"`, "missing: Missing parameter: x"},
		{"list params", EQ("0", 1), `[1]`, "missing: Missing parameter: 0"},
		{"null params not_exists", NotExists("x"), `null`, ""},
		{"invalid JSON params", LE("x", 1), `{"x": 1`, "missing: Missing parameter: x"},
		// Duplicate keys: the last value wins, as in Python.
		{"duplicate key", LE("x", 1), `{"x": 1, "x": 5}`, "violation: Constraint violation: x <= 1, actual: 5"},
		// An unknown type inside or stops the evaluation (Python's
		// ValueError is not a failed alternative).
		{"unknown in or", Or(Constraint{Type: "bogus"}, EQ("x", 1)), `{"x": 1}`, "unknown: Unknown constraint type: bogus"},
		{"or of missing", Or(EQ("a", 1), EQ("b", 1)), `{}`, "missing: Missing parameter: b"},
		// Quotes in reported values follow Python's repr.
		{"quote repr", EQ("s", "x"), `{"s": "it's"}`, `violation: Constraint violation: s == 'x', actual: "it's"`},
		{"unicode repr", EQ("s", "x"), `{"s": "\u0430\u200b"}`, `violation: Constraint violation: s == 'x', actual: 'а\u200b'`},
	})
}

func TestReferencedParams(t *testing.T) {
	c := And(LE("a", 1), Or(EQ("b", 1), Exists("c")))
	if got := strings.Join(c.ReferencedParams(), ","); got != "a,b,c" {
		t.Fatalf("got %s", got)
	}
	if _, ok := c.ParamName(); ok {
		t.Fatal("and has a param name")
	}
	if n, ok := LE("a", 1).ParamName(); !ok || n != "a" {
		t.Fatal("le param name")
	}
}

func TestConstraintJSON(t *testing.T) {
	tests := []struct {
		c    Constraint
		want string
	}{
		{LE("amount", 1000), `{"type": "le", "param": "amount", "value": 1000}`},
		{EQ("x", 0), `{"type": "eq", "param": "x", "value": 0}`},
		{EQ("x", false), `{"type": "eq", "param": "x", "value": false}`},
		{EQ("x", nil), `{"type": "eq", "param": "x"}`},
		{EQ("x", 5000.0), `{"type": "eq", "param": "x", "value": 5000.0}`},
		{In("currency", "USD"), `{"type": "in", "param": "currency", "values": ["USD"]}`},
		{StartsWith("p", "/a"), `{"type": "starts_with", "param": "p", "prefix": "/a"}`},
		{And(Exists("a"), Or()), `{"type": "and", "constraints": [{"type": "exists", "param": "a"}, {"type": "or"}]}`},
	}
	for _, tt := range tests {
		b, err := tt.c.MarshalJSON()
		if err != nil || string(b) != tt.want {
			t.Errorf("MarshalJSON = %s, %v; want %s", b, err, tt.want)
		}
		back, err := ParseConstraint(b)
		if err != nil {
			t.Errorf("ParseConstraint(%s): %v", b, err)
			continue
		}
		b2, _ := back.MarshalJSON()
		if string(b2) != tt.want {
			t.Errorf("round trip: %s", b2)
		}
	}
	for _, bad := range []string{
		`{}`, `{"type": 1}`, `[]`, `{"type": "le", "param": 5}`, `{"type": "in", "values": 5}`,
		`{"type": "and", "constraints": {}}`, `{"type": "and", "constraints": [1]}`,
		strings.Repeat(`{"type": "and", "constraints": [`, MaxConstraintDepth+2) + strings.Repeat("]}", MaxConstraintDepth+2),
	} {
		if _, err := ParseConstraint([]byte(bad)); err == nil {
			t.Errorf("ParseConstraint(%.60s): no error", bad)
		}
	}
}
