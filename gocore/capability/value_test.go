package capability

import (
	"math"
	"math/big"
	"strings"
	"testing"
)

func mustParse(t testing.TB, s string) any {
	t.Helper()
	v, err := ParseJSON([]byte(s))
	if err != nil {
		t.Fatalf("ParseJSON(%q): %v", s, err)
	}
	return v
}

// Repr of parsed JSON equals Python's repr(json.loads(text)).
func TestReprOfParsedJSON(t *testing.T) {
	tests := []struct{ json, repr string }{
		{`5000`, `5000`},
		{`5000.0`, `5000.0`},
		{`-0`, `0`},
		{`-0.0`, `-0.0`},
		{`99.99`, `99.99`},
		{`1e16`, `1e+16`},
		{`1e15`, `1000000000000000.0`},
		{`123456789012345678.0`, `1.2345678901234568e+17`},
		{`0.0001`, `0.0001`},
		{`0.00001`, `1e-05`},
		{`1.5e-7`, `1.5e-07`},
		{`1e300`, `1e+300`},
		{`1e400`, `inf`},
		{`-1e400`, `-inf`},
		{`1e-400`, `0.0`},
		{`NaN`, `nan`},
		{`Infinity`, `inf`},
		{`-Infinity`, `-inf`},
		{`0.1`, `0.1`},
		{`2.5`, `2.5`},
		{`100.0`, `100.0`},
		{`1E2`, `100.0`},
		{`5e-324`, `5e-324`},
		{`1.7976931348623157e308`, `1.7976931348623157e+308`},
		{`9007199254740993`, `9007199254740993`},
		{`123456789012345678901234567890`, `123456789012345678901234567890`},
		{`true`, `True`},
		{`false`, `False`},
		{`null`, `None`},
		{`"GBP"`, `'GBP'`},
		{`"it's"`, `"it's"`},
		{`"say \"hi\""`, `'say "hi"'`},
		{`"both ' and \""`, `'both \' and "'`},
		{`"back\\slash"`, `'back\\slash'`},
		{`"tab\there\nnl\rcr"`, `'tab\there\nnl\rcr'`},
		{`"\u0000\u001f\u007f"`, `'\x00\x1f\x7f'`},
		{`"caf\u00e9 \u00a0 \u4e2d \ud83d\ude00"`, `'café \xa0 中 😀'`},
		{`"\u200b\u2028\ue000"`, `'\u200b\u2028\ue000'`},
		{`"\ud800"`, `'\ud800'`},
		{`"\udfff x"`, `'\udfff x'`},
		{`"\U"`, ``}, // invalid escape: skipped below
		{`["a", 1, 2.0, null, true]`, `['a', 1, 2.0, None, True]`},
		{`{"k": 1, "a": [1, {"b": "c"}]}`, `{'k': 1, 'a': [1, {'b': 'c'}]}`},
		{`{"k": 1, "a": 2, "k": 3}`, `{'k': 3, 'a': 2}`},
		{`[]`, `[]`},
		{`{}`, `{}`},
		{` [ [ ] , { } ] `, `[[], {}]`},
	}
	for _, tt := range tests {
		if tt.repr == "" {
			continue
		}
		v, err := ParseJSON([]byte(tt.json))
		if err != nil {
			t.Errorf("ParseJSON(%s): %v", tt.json, err)
			continue
		}
		if got := Repr(v); got != tt.repr {
			t.Errorf("Repr(%s) = %s, want %s", tt.json, got, tt.repr)
		}
	}
}

func TestReprFloat(t *testing.T) {
	tests := []struct {
		f    float64
		want string
	}{
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {1, "1.0"}, {-1.5, "-1.5"},
		{1e16, "1e+16"}, {9999999999999998, "9999999999999998.0"}, {1e22, "1e+22"},
		{1e-4, "0.0001"}, {1.23e-5, "1.23e-05"}, {1e100, "1e+100"}, {1e-100, "1e-100"},
		{0.30000000000000004, "0.30000000000000004"}, {1 / 3.0, "0.3333333333333333"},
		{math.MaxFloat64, "1.7976931348623157e+308"}, {math.SmallestNonzeroFloat64, "5e-324"},
		{math.Inf(1), "inf"}, {math.Inf(-1), "-inf"}, {math.NaN(), "nan"},
		{123456.789, "123456.789"}, {1234567890123456.7, "1234567890123456.8"},
	}
	for _, tt := range tests {
		if got := ReprFloat(tt.f); got != tt.want {
			t.Errorf("ReprFloat(%v) = %s, want %s", tt.f, got, tt.want)
		}
	}
}

func TestParseJSONErrors(t *testing.T) {
	bad := []string{
		``, ` `, `{`, `[1,`, `[1,]`, `{"a":}`, `{"a" 1}`, `{a:1}`, `01`, `1.`, `.5`, `-`, `+1`,
		`"abc`, "\"a\x01b\"", `"\x"`, `"\u12"`, `tru`, `nan`, `inf`, `[1] 2`, `{"a":1,}`,
		`1` + strings.Repeat("0", MaxIntDigits),
	}
	for _, s := range bad {
		if _, err := ParseJSON([]byte(s)); err == nil {
			t.Errorf("ParseJSON(%q): no error", s)
		}
	}
	if _, err := ParseJSON([]byte(strings.Repeat("9", MaxIntDigits))); err != nil {
		t.Errorf("an int of %d digits: %v", MaxIntDigits, err)
	}
}

// Nesting depth is limited by memory only: the parser, Repr, equality and
// the JSON writer use explicit stacks.
func TestDeepJSON(t *testing.T) {
	const depth = 100000
	text := strings.Repeat("[", depth) + strings.Repeat("]", depth)
	v := mustParse(t, text)
	if got := Repr(v); got != text {
		t.Fatal("repr of deep list differs")
	}
	if !pyEqual(v, mustParse(t, text)) {
		t.Fatal("deep lists unequal")
	}
	if string(MarshalValue(v)) != text {
		t.Fatal("marshal of deep list differs")
	}
	obj := `{"a":` + strings.Repeat(`{"a":`, depth) + `1` + strings.Repeat("}", depth+1)
	mustParse(t, obj)
}

func TestPyEqual(t *testing.T) {
	big1 := new(big.Int).Lsh(big.NewInt(1), 53)
	big1.Add(big1, big.NewInt(1)) // 2**53 + 1, not representable as a float
	tests := []struct {
		a, b any
		want bool
	}{
		{1, 1.0, true},
		{true, 1, true},
		{false, 0, true},
		{true, 1.0, true},
		{"1", 1, false},
		{nil, nil, true},
		{nil, 0, false},
		{math.NaN(), math.NaN(), false},
		{big1, float64(1 << 53), false}, // exact comparison, as Python
		{float64(1 << 53), new(big.Int).Lsh(big.NewInt(1), 53), true},
		{[]any{1, "a"}, []any{1.0, "a"}, true},
		{[]any{1, "a"}, []any{1, "a", 2}, false},
		{map[string]any{"a": 1}, map[string]any{"a": true}, true},
		{map[string]any{"a": 1}, map[string]any{"b": 1}, false},
		{[]any{}, map[string]any{}, false},
		{math.Inf(1), math.Inf(1), true},
		{mustParse(t, "1"+strings.Repeat("0", 400)), math.Inf(1), false},
		{mustParse(t, `-0`), mustParse(t, `-0.0`), true},
	}
	for _, tt := range tests {
		if got := pyEqual(tt.a, tt.b); got != tt.want {
			t.Errorf("pyEqual(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestStrictLess(t *testing.T) {
	huge := mustParse(t, "1"+strings.Repeat("0", 400))
	tests := []struct {
		a, b any
		want bool
	}{
		{1, 2, true},
		{2, 1, false},
		{1, 1.5, true},
		{false, true, true},
		{true, 2, true},
		{"a", "b", true},
		{"B", "a", true}, // code points, not case-folded
		{"é", "z", false},
		{"50", 100, false},
		{100, "50", false},
		{[]any{1}, []any{2}, false}, // lists are not ordered here
		{nil, 1, false},
		{math.NaN(), 1, false},
		{1, math.NaN(), false},
		{huge, math.Inf(1), true},
		{1e308, huge, true},
		{math.Inf(-1), mustParse(t, "-"+strings.Repeat("9", 500)), true},
		{mustParse(t, "9223372036854775808"), mustParse(t, "9223372036854775809"), true},
		{mustParse(t, "9007199254740993"), 9007199254740992.0, false},
		{9007199254740992.0, mustParse(t, "9007199254740993"), true},
	}
	for _, tt := range tests {
		if got := strictLess(tt.a, tt.b); got != tt.want {
			t.Errorf("strictLess(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestMarshalValueRoundTrip(t *testing.T) {
	for _, s := range []string{
		`5000`, `5000.0`, `1e+16`, `NaN`, `-Infinity`, `"a\"b\\c\n\u0001"`, `"\ud800"`, `"😀"`,
		`[1, 2.5, "x", null, true, false]`, `{"b": 1, "a": {"c": []}}`,
	} {
		v := mustParse(t, s)
		back := mustParse(t, string(MarshalValue(v)))
		if Repr(back) != Repr(v) {
			t.Errorf("round trip of %s: %s != %s", s, Repr(back), Repr(v))
		}
	}
}

func TestPyInt(t *testing.T) {
	tests := []struct {
		s    string
		want int64
		ok   bool
	}{
		{"1", 1, true}, {"+1", 1, true}, {" 1", 1, true}, {"1 ", 1, true}, {"-0", 0, true},
		{"-1", -1, true}, {"007", 7, true}, {"1_0", 10, true}, {"\u0663", 3, true}, {"\U0001D7D9", 1, true},
		{"", 0, false}, {"1.0", 0, false}, {"_1", 0, false}, {"1_", 0, false}, {"1__0", 0, false},
		{"0x1", 0, false}, {"a", 0, false}, {"+", 0, false}, {"1e3", 0, false},
	}
	for _, tt := range tests {
		n, ok := pyInt(tt.s)
		if ok != tt.ok || (ok && n.Int64() != tt.want) {
			t.Errorf("pyInt(%q) = %v, %v; want %d, %v", tt.s, n, ok, tt.want, tt.ok)
		}
	}
}
