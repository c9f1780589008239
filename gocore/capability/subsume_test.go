package capability

import "testing"

func TestConstraintSubsumes(t *testing.T) {
	tests := []struct {
		name          string
		parent, child Constraint
		want          bool
	}{
		// The reference's pinned subsumption rows (docs/capabilities.md, "Constraints").
		{"le 100 ⊇ le 50", LE("x", 100), LE("x", 50), true},
		{"le 100 ⊉ le 150", LE("x", 100), LE("x", 150), false},
		{"ge 0 ⊇ ge 10", GE("x", 0), GE("x", 10), true},
		{"ge 0 ⊉ ge -10", GE("x", 0), GE("x", -10), false},
		{"in abc ⊇ in ab", In("x", "a", "b", "c"), In("x", "a", "b"), true},
		{"in ab ⊉ in abc", In("x", "a", "b"), In("x", "a", "b", "c"), false},
		{"not_in ab ⊇ not_in abc", NotIn("x", "a", "b"), NotIn("x", "a", "b", "c"), true},
		{"not_in ab ⊉ not_in a", NotIn("x", "a", "b"), NotIn("x", "a"), false},
		{"starts_with /api ⊇ /api/v2", StartsWith("p", "/api"), StartsWith("p", "/api/v2"), true},
		{"starts_with /api ⊉ /ap", StartsWith("p", "/api"), StartsWith("p", "/ap"), false},
		{"ends_with .json ⊇ config.json", EndsWith("f", ".json"), EndsWith("f", "config.json"), true},
		{"le x ⊉ le y", LE("x", 100), LE("y", 50), false},

		// The same-parameter rules of Subsumes.
		{"lt ⊇ lt", LT("x", 10), LT("x", 10), true},
		{"lt ⊉ le", LT("x", 10), LE("x", 5), false},
		{"le ⊉ lt", LE("x", 10), LT("x", 5), false},
		{"le ⊇ eq", LE("x", 10), EQ("x", 10), true},
		{"le ⊉ eq above", LE("x", 10), EQ("x", 11), false},
		{"gt ⊇ gt", GT("x", 0), GT("x", 1), true},
		{"ge ⊇ eq", GE("x", 0), EQ("x", 0), true},
		{"eq ⊇ eq", EQ("x", 1), EQ("x", 1.0), true},
		{"eq ⊉ eq", EQ("x", 1), EQ("x", 2), false},
		{"ne ⊇ ne", NE("x", "a"), NE("x", "a"), true},
		{"ne ⊉ ne", NE("x", "a"), NE("x", "b"), false},
		{"contains", Contains("q", "SEL"), Contains("q", "SELECT"), true},
		{"contains no", Contains("q", "SELECT"), Contains("q", "SEL"), false},
		{"exists", Exists("a"), Exists("a"), true},
		{"not_exists", NotExists("a"), NotExists("a"), true},
		{"exists ⊉ not_exists", Exists("a"), NotExists("a"), false},
		{"mixed types", LE("x", 10), LE("x", "5"), false},
		{"strings", LE("x", "m"), LE("x", "a"), true},
		{"bool as number", LE("x", 1), LE("x", true), true},
		{"nan", LE("x", 10), LE("x", mustParse(t, "NaN")), false},
		{"lists equal", LE("x", []any{1}), LE("x", []any{1}), true},
		{"empty param", LE("", 10), LE("", 5), false},
		// eq versus ordering, reproduced although unsound.
		{"eq ⊇ lt", EQ("x", 5), LT("x", 10), true},
		{"eq ⊉ lt", EQ("x", 10), LT("x", 10), false},
		{"eq ⊇ le", EQ("x", 10), LE("x", 10), true},
		{"eq ⊇ gt", EQ("x", 10), GT("x", 5), true},
		{"eq ⊇ ge", EQ("x", 10), GE("x", 10), true},
		{"lt ⊉ eq", LT("x", 10), EQ("x", 5), false},

		// Composites.
		{"and ⊇ and", And(GE("x", 0), LE("x", 100)), And(GE("x", 10), LE("x", 50), EQ("y", 1)), true},
		{"and ⊉ and", And(GE("x", 0), LE("x", 100)), And(GE("x", 10)), false},
		{"empty and ⊇ and", And(), And(LE("x", 1)), true},
		{"or ⊇ or", Or(EQ("c", "a"), EQ("c", "b")), Or(EQ("c", "b")), true},
		{"or ⊉ or", Or(EQ("c", "a")), Or(EQ("c", "b")), false},
		{"or ⊇ empty or", Or(EQ("c", "a")), Or(), true},
		{"simple ⊇ and (any)", LE("x", 100), And(EQ("y", 1), LE("x", 50)), true},
		{"simple ⊉ and", LE("x", 100), And(EQ("y", 1)), false},
		{"simple ⊇ or (all)", LE("x", 100), Or(LE("x", 50), EQ("x", 7)), true},
		{"simple ⊉ or", LE("x", 100), Or(LE("x", 50), LE("x", 500)), false},
		{"simple ⊇ empty or", LE("x", 100), Or(), true},
		{"and ⊉ simple", And(LE("x", 100)), LE("x", 50), false},
		{"or ⊉ simple", Or(LE("x", 100)), LE("x", 50), false},
		{"and ⊉ or", And(), Or(), false},
		{"unknown type", Constraint{Type: "bogus", Param: "x"}, Constraint{Type: "bogus", Param: "x"}, false},
	}
	for _, tt := range tests {
		if got := tt.parent.Subsumes(tt.child); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestConstraintSetSubsumes(t *testing.T) {
	tests := []struct {
		name          string
		parent, child ConstraintSet
		want          bool
	}{
		{"[le x 100] ⊇ [le x 50]", ConstraintSet{LE("x", 100)}, ConstraintSet{LE("x", 50)}, true},
		{"[le x 100] ⊉ [le x 200]", ConstraintSet{LE("x", 100)}, ConstraintSet{LE("x", 200)}, false},
		{"new param accepted", ConstraintSet{LE("x", 100)}, ConstraintSet{LE("x", 50), GE("y", 0)}, true},
		{"omitting is accepted", ConstraintSet{LE("x", 100)}, ConstraintSet{}, true},
		{"empty parent", ConstraintSet{}, ConstraintSet{LE("x", 5)}, true},
		{"same param other rule", ConstraintSet{LE("x", 100), GE("x", 0)}, ConstraintSet{GE("x", 10)}, true},
		{"composite child", ConstraintSet{LE("x", 100)}, ConstraintSet{Or(LE("x", 10), LE("x", 20))}, true},
		{"composite child fails", ConstraintSet{LE("x", 100)}, ConstraintSet{Or(LE("x", 10), LE("x", 200))}, false},
		{"composite child unrelated", ConstraintSet{LE("x", 100)}, ConstraintSet{Or(LE("z", 10))}, true},
		{"param must match by name", ConstraintSet{LE("y", 100), LE("x", 100)}, ConstraintSet{LE("x", 50)}, true},
	}
	for _, tt := range tests {
		if got := tt.parent.Subsumes(tt.child); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestConstraintSetEvaluate(t *testing.T) {
	s := ConstraintSet{GE("x", 0), LE("x", 10), In("c", "a")}
	if err := s.Evaluate(mustParse(t, `{"x": 5, "c": "a"}`)); err != nil {
		t.Fatal(err)
	}
	if got := outcome(s.Evaluate(mustParse(t, `{"x": 50, "c": "b"}`))); got != "violation: Constraint violation: x <= 10, actual: 50" {
		t.Fatal(got)
	}
	if err := (ConstraintSet{}).Evaluate(mustParse(t, `"anything"`)); err != nil {
		t.Fatal(err)
	}
	// Go values are accepted too.
	if err := s.Evaluate(map[string]any{"x": 3, "c": "a"}); err != nil {
		t.Fatal(err)
	}
}
