package capability

import (
	"math"
	"math/big"
	"strings"
	"testing"
)

// naiveMatch is the obvious recursive reading of the pattern rules (docs/capabilities.md), used to check the
// dynamic-programming Match on small inputs.
func naiveMatch(m, p []string) bool {
	if len(p) == 0 {
		return len(m) == 0
	}
	switch p[0] {
	case "**":
		for i := 0; i <= len(m); i++ {
			if naiveMatch(m[i:], p[1:]) {
				return true
			}
		}
		return false
	case "*":
		return len(m) > 0 && naiveMatch(m[1:], p[1:])
	}
	return len(m) > 0 && m[0] == p[0] && naiveMatch(m[1:], p[1:])
}

// naiveSubset is the literal recursive procedure of pattern_is_subset (docs/capabilities.md).
func naiveSubset(c, p []string) bool {
	if len(p) == 0 {
		return len(c) == 0
	}
	if p[0] == "**" {
		if len(p) == 1 {
			return true
		}
		for i := 0; i <= len(c); i++ {
			if naiveSubset(c[i:], p[1:]) {
				return true
			}
		}
		return false
	}
	if len(c) == 0 || c[0] == "**" {
		return false
	}
	if c[0] == "*" {
		return p[0] == "*" && naiveSubset(c[1:], p[1:])
	}
	return (p[0] == "*" || p[0] == c[0]) && naiveSubset(c[1:], p[1:])
}

func smallEnough(segs ...[]string) bool {
	for _, s := range segs {
		if len(s) > 12 {
			return false
		}
		stars := 0
		for _, x := range s {
			if x == "**" {
				stars++
			}
		}
		if stars > 4 {
			return false
		}
	}
	return true
}

func FuzzMatch(f *testing.F) {
	for _, s := range [][2]string{
		{"stripe/charges/create", "stripe/charges/*"}, {"", "**"}, {"a/b/create", "**/create"},
		{"api/v2/x/y/users/get", "api/**/users/*"}, {"mcp:a/../b", "mcp:a/**"}, {"a//b", "a/*/b"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, method, pattern string) {
		got := Match(method, pattern)
		if !Match(method, "**") {
			t.Fatalf("** does not match %q", method)
		}
		m, p := segments(method), segments(pattern)
		if smallEnough(m, p) && naiveMatch(m, p) != got {
			t.Fatalf("Match(%q, %q) = %v, naive %v", method, pattern, got, !got)
		}
		// A method with no wildcard segments matches itself as a pattern.
		if !strings.Contains(method, "*") && !Match(method, method) {
			t.Fatalf("%q does not match itself", method)
		}
	})
}

// samples returns concrete methods matched by pattern: "*" replaced by
// each of subs, every "**" by k copies of "y" for k in 0..2.
func samples(pattern string, subs []string) []string {
	var out []string
	segs := segments(pattern)
	for _, sub := range subs {
		for k := 0; k < 3; k++ {
			var m []string
			for _, s := range segs {
				switch s {
				case "*":
					m = append(m, sub)
				case "**":
					for i := 0; i < k; i++ {
						m = append(m, "y")
					}
				default:
					m = append(m, s)
				}
			}
			if len(m) == 1 && m[0] == "" {
				continue // [""] is not the segment list of any string
			}
			out = append(out, strings.Join(m, "/"))
		}
	}
	return out
}

func FuzzSubset(f *testing.F) {
	for _, s := range [][2]string{
		{"stripe/charges/create", "stripe/charges/*"}, {"stripe/**", "**"}, {"api/*/users/*", "api/**/users/*"},
		{"api/**/users/*", "api/*/users/*"}, {"", "**"}, {"**/a", "**/a"}, {"a/**/b", "a/**/**/b"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, child, parent string) {
		got := PatternIsSubset(child, parent)
		c, p := segments(child), segments(parent)
		if smallEnough(c, p) && naiveSubset(c, p) != got {
			t.Fatalf("PatternIsSubset(%q, %q) = %v, naive %v", child, parent, got, !got)
		}
		if !PatternIsSubset(child, "**") {
			t.Fatalf("%q is not a subset of **", child)
		}
		if !got {
			return
		}
		subs := []string{"x"}
		for _, s := range p {
			if s != "*" && s != "**" && len(subs) < 4 {
				subs = append(subs, s)
			}
		}
		for _, m := range samples(child, subs) {
			if !Match(m, child) {
				t.Fatalf("sample %q not matched by its own pattern %q", m, child)
			}
			if !Match(m, parent) {
				t.Fatalf("PatternIsSubset(%q, %q) but %q matches only the child", child, parent, m)
			}
		}
	})
}

// gen turns fuzzer bytes into constraints and params from a small
// vocabulary, so that subsumption is exercised far more often than
// random JSON would.
type gen struct {
	b []byte
	i int
}

func (g *gen) next(n int) int {
	if g.i >= len(g.b) || n <= 0 {
		return 0
	}
	v := int(g.b[g.i]) % n
	g.i++
	return v
}

var (
	genParams = []string{"a", "b", "a/0", "/a", ""}
	genTypes  = []string{TypeLT, TypeLE, TypeGT, TypeGE, TypeEQ, TypeNE, TypeIn, TypeNotIn,
		TypeStartsWith, TypeEndsWith, TypeContains, TypeExists, TypeNotExists, TypeAnd, TypeOr, "bogus"}
	genStrings = []string{"", "a", "ab", "b", "A", "é"}
)

func (g *gen) value() any {
	switch g.next(19) {
	case 0:
		return big.NewInt(-1)
	case 1:
		return big.NewInt(0)
	case 2:
		return big.NewInt(1)
	case 3:
		return big.NewInt(2)
	case 4:
		return new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 53), big.NewInt(1))
	case 5:
		n, _ := new(big.Int).SetString("100000000000000000000", 10)
		return n
	case 6:
		return 0.5
	case 7:
		return 1.0
	case 8:
		return math.Copysign(0, -1)
	case 9:
		return math.NaN()
	case 10:
		return math.Inf(1)
	case 11:
		return float64(1 << 53)
	case 12:
		return true
	case 13:
		return false
	case 14:
		return nil
	case 15:
		return List{big.NewInt(1)}
	case 16:
		o := NewObject()
		o.Set("k", big.NewInt(1))
		return o
	}
	return genStrings[g.next(len(genStrings))]
}

func (g *gen) values() []any {
	n := g.next(4)
	out := make([]any, n)
	for i := range out {
		out[i] = g.value()
	}
	return out
}

func (g *gen) constraint(depth int) Constraint {
	t := genTypes[g.next(len(genTypes))]
	if depth >= 3 && (t == TypeAnd || t == TypeOr) {
		t = TypeLE
	}
	c := Constraint{Type: t}
	switch t {
	case TypeAnd, TypeOr:
		for n := g.next(4); n > 0; n-- {
			c.Constraints = append(c.Constraints, g.constraint(depth+1))
		}
		return c
	}
	c.Param = genParams[g.next(len(genParams))]
	switch t {
	case TypeIn, TypeNotIn:
		c.Values = g.values()
	case TypeStartsWith:
		c.Prefix = genStrings[g.next(len(genStrings))]
	case TypeEndsWith:
		c.Suffix = genStrings[g.next(len(genStrings))]
	case TypeContains:
		c.Substring = genStrings[g.next(len(genStrings))]
	case TypeExists, TypeNotExists:
	default:
		c.Value = g.value()
	}
	return c
}

func (g *gen) params() any {
	o := NewObject()
	for _, k := range []string{"a", "b"} {
		switch g.next(4) {
		case 0: // absent
		case 1:
			o.Set(k, List{g.value(), g.value()})
		default:
			o.Set(k, g.value())
		}
	}
	return o
}

// hasType reports whether c or any part of it has one of the types.
func hasType(c Constraint, types ...string) bool {
	for _, t := range types {
		if c.Type == t {
			return true
		}
	}
	for _, sub := range c.Constraints {
		if hasType(sub, types...) {
			return true
		}
	}
	return false
}

// soundCase excludes what the documentation says is not sound: eq
// subsuming an ordering rule, and unknown types (a configuration error).
func soundCase(parent, child Constraint) bool {
	if hasType(parent, "bogus") || hasType(child, "bogus") {
		return false
	}
	return !(hasType(parent, TypeEQ) && hasType(child, TypeLT, TypeLE, TypeGT, TypeGE))
}

var genPatterns = []string{"**", "mcp:*", "a/*", "a/**", "a/b", "*", "a/*/c", "**/c"}

func FuzzEvaluate(f *testing.F) {
	f.Add(`{"type": "le", "param": "amount", "value": 1000}`, `{"amount": 5000}`, []byte{1, 2, 3})
	f.Add(`{"type": "or", "constraints": [{"type": "eq", "param": "c", "value": "USD"}]}`, `{"c": "GBP"}`, []byte{13, 1, 2, 14, 4})
	f.Add(`{"type": "in", "param": "x", "values": [1, 2.0, NaN, "a"]}`, `{"x": true}`, []byte{6, 2, 1, 6, 0, 2})
	f.Add(`{"type": "starts_with", "param": "/p/0", "prefix": "/api"}`, `{"p": ["/api/v1"]}`, []byte{0, 0, 0, 0})
	f.Add(`{"type": "not_exists", "param": "d"}`, `[[[[{"d": 1}]]]]`, []byte{15, 1, 3, 7, 1, 1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, constraintJSON, paramsJSON string, shape []byte) {
		// Arbitrary JSON: never panics; values survive a round trip.
		var params any
		if v, err := ParseJSON([]byte(paramsJSON)); err == nil {
			params = v
			back, err := ParseJSON(MarshalValue(v))
			if err != nil || Repr(back) != Repr(v) {
				t.Fatalf("round trip of %q: %v %q != %q", paramsJSON, err, Repr(back), Repr(v))
			}
		}
		if c, err := ParseConstraint([]byte(constraintJSON)); err == nil {
			_ = c.Evaluate(params)
			_ = c.Subsumes(c)
			b, _ := c.MarshalJSON()
			c2, err := ParseConstraint(b)
			if err != nil {
				t.Fatalf("re-parse of %s: %v", b, err)
			}
			b2, _ := c2.MarshalJSON()
			if string(b) != string(b2) {
				t.Fatalf("constraint round trip: %s != %s", b, b2)
			}
			p := NewPolicy([]MethodCapability{{MethodPattern: "**", Constraints: ConstraintSet{c}}})
			_ = p.Authorize("m", []byte(paramsJSON))
		}

		// Generated: a call the child admits, the parent must admit.
		g := &gen{b: shape}
		parent, child := g.constraint(0), g.constraint(0)
		gp := g.params()
		if parent.Subsumes(child) && soundCase(parent, child) {
			if child.Evaluate(gp) == nil {
				if err := parent.Evaluate(gp); err != nil {
					t.Fatalf("%s subsumes %s, but on %s the child passes and the parent fails: %v",
						mustJSON(parent), mustJSON(child), Repr(gp), err)
				}
			}
		}

		// The same at the capability level, where the set rule takes the
		// subsumption path (the parent references the child's params).
		cc := MethodCapability{MethodPattern: genPatterns[g.next(len(genPatterns))], Constraints: ConstraintSet{child}}
		pc := MethodCapability{MethodPattern: genPatterns[g.next(len(genPatterns))], Constraints: ConstraintSet{parent}}
		if cc.IsSubsetOf(pc) && pc.Constraints.referencesAny(child.ReferencedParams()) && soundCase(parent, child) {
			for _, m := range samples(cc.MethodPattern, []string{"x", "c"}) {
				if cc.ValidateCall(m, gp) == nil {
					if err := pc.ValidateCall(m, gp); err != nil {
						t.Fatalf("%s ⊆ %s, but %s %s passes only the child: %v",
							mustJSON(cc), mustJSON(pc), m, Repr(gp), err)
					}
				}
			}
		}
	})
}

func mustJSON(v interface{ MarshalJSON() ([]byte, error) }) string {
	b, _ := v.MarshalJSON()
	return string(b)
}
