package capability

import (
	"math/big"
	"strings"
	"unicode"
)

// The 15 constraint type strings.
const (
	TypeLT         = "lt"
	TypeLE         = "le"
	TypeGT         = "gt"
	TypeGE         = "ge"
	TypeEQ         = "eq"
	TypeNE         = "ne"
	TypeIn         = "in"
	TypeNotIn      = "not_in"
	TypeStartsWith = "starts_with"
	TypeEndsWith   = "ends_with"
	TypeContains   = "contains"
	TypeExists     = "exists"
	TypeNotExists  = "not_exists"
	TypeAnd        = "and"
	TypeOr         = "or"
)

// Constraint is one rule on a call's parameters (docs/capabilities.md). The JSON
// form is Python's to_dict: "type" always, the other keys only when
// non-empty, except "value", which is kept for 0 and false and omitted
// only when nil.
type Constraint struct {
	Type        string       `json:"type"`
	Param       string       `json:"param,omitempty"`
	Value       any          `json:"value,omitempty"`
	Values      []any        `json:"values,omitempty"`
	Prefix      string       `json:"prefix,omitempty"`
	Suffix      string       `json:"suffix,omitempty"`
	Substring   string       `json:"substring,omitempty"`
	Constraints []Constraint `json:"constraints,omitempty"`
}

// Factories, named as in Python (In is Python's is_in).

func LT(param string, value any) Constraint {
	return Constraint{Type: TypeLT, Param: param, Value: value}
}
func LE(param string, value any) Constraint {
	return Constraint{Type: TypeLE, Param: param, Value: value}
}
func GT(param string, value any) Constraint {
	return Constraint{Type: TypeGT, Param: param, Value: value}
}
func GE(param string, value any) Constraint {
	return Constraint{Type: TypeGE, Param: param, Value: value}
}
func EQ(param string, value any) Constraint {
	return Constraint{Type: TypeEQ, Param: param, Value: value}
}
func NE(param string, value any) Constraint {
	return Constraint{Type: TypeNE, Param: param, Value: value}
}
func In(param string, values ...any) Constraint {
	return Constraint{Type: TypeIn, Param: param, Values: append([]any(nil), values...)}
}
func NotIn(param string, values ...any) Constraint {
	return Constraint{Type: TypeNotIn, Param: param, Values: append([]any(nil), values...)}
}
func StartsWith(param, prefix string) Constraint {
	return Constraint{Type: TypeStartsWith, Param: param, Prefix: prefix}
}
func EndsWith(param, suffix string) Constraint {
	return Constraint{Type: TypeEndsWith, Param: param, Suffix: suffix}
}
func Contains(param, substring string) Constraint {
	return Constraint{Type: TypeContains, Param: param, Substring: substring}
}
func Exists(param string) Constraint    { return Constraint{Type: TypeExists, Param: param} }
func NotExists(param string) Constraint { return Constraint{Type: TypeNotExists, Param: param} }
func And(cs ...Constraint) Constraint {
	return Constraint{Type: TypeAnd, Constraints: append([]Constraint(nil), cs...)}
}
func Or(cs ...Constraint) Constraint {
	return Constraint{Type: TypeOr, Constraints: append([]Constraint(nil), cs...)}
}

func (c Constraint) isComposite() bool { return c.Type == TypeAnd || c.Type == TypeOr }

// ParamName is Python's param_name: ok is false for and/or (None),
// otherwise the param (possibly "").
func (c Constraint) ParamName() (string, bool) {
	if c.isComposite() {
		return "", false
	}
	return c.Param, true
}

// ReferencedParams lists the params the constraint reads: its own, or for
// and/or those of its parts, in order.
func (c Constraint) ReferencedParams() []string {
	if !c.isComposite() {
		return []string{c.Param}
	}
	var out []string
	for _, sub := range c.Constraints {
		out = append(out, sub.ReferencedParams()...)
	}
	return out
}

// Evaluate checks params (a decoded JSON value, see Normalize) and
// returns nil, a ConstraintError, or an *UnknownTypeError.
func (c Constraint) Evaluate(params any) error {
	p, err := Normalize(params)
	if err != nil {
		return err
	}
	return c.evaluate(p)
}

func (c Constraint) evaluate(params any) error {
	switch c.Type {
	case TypeAnd:
		for _, sub := range c.Constraints {
			if err := sub.evaluate(params); err != nil {
				return err
			}
		}
		return nil
	case TypeOr:
		if len(c.Constraints) == 0 {
			return &ViolationError{Param: "(or)", Rule: "at least one constraint must match", Actual: "empty Or"}
		}
		var last error
		for _, sub := range c.Constraints {
			err := sub.evaluate(params)
			if err == nil {
				return nil
			}
			if _, ok := err.(ConstraintError); !ok {
				return err // a configuration error is not a failed alternative
			}
			last = err
		}
		return last
	case TypeExists:
		if _, ok := resolveParam(params, c.Param); !ok {
			return &MissingParamError{Param: c.Param}
		}
		return nil
	case TypeNotExists:
		if v, ok := resolveParam(params, c.Param); ok {
			return c.violation("must not exist", Repr(v))
		}
		return nil
	case TypeLT, TypeLE, TypeGT, TypeGE, TypeEQ, TypeNE, TypeIn, TypeNotIn,
		TypeStartsWith, TypeEndsWith, TypeContains:
	default:
		return &UnknownTypeError{Type: c.Type}
	}

	actual, ok := resolveParam(params, c.Param)
	if !ok {
		return &MissingParamError{Param: c.Param}
	}
	bound := mustNormalize(c.Value)
	switch c.Type {
	case TypeLT:
		if !strictLess(actual, bound) {
			return c.violation("< "+Repr(bound), Repr(actual))
		}
	case TypeLE:
		if !lessOrEqual(actual, bound) {
			return c.violation("<= "+Repr(bound), Repr(actual))
		}
	case TypeGT:
		if !strictLess(bound, actual) {
			return c.violation("> "+Repr(bound), Repr(actual))
		}
	case TypeGE:
		if !lessOrEqual(bound, actual) {
			return c.violation(">= "+Repr(bound), Repr(actual))
		}
	case TypeEQ:
		if !pyEqual(actual, bound) {
			return c.violation("== "+Repr(bound), Repr(actual))
		}
	case TypeNE:
		if pyEqual(actual, bound) {
			return c.violation("!= "+Repr(bound), Repr(actual))
		}
	case TypeIn:
		if !containsValue(c.Values, actual) {
			return c.violation("in "+reprList(c.Values), Repr(actual))
		}
	case TypeNotIn:
		if containsValue(c.Values, actual) {
			return c.violation("not in "+reprList(c.Values), Repr(actual))
		}
	case TypeStartsWith, TypeEndsWith, TypeContains:
		s, isStr := actual.(string)
		if !isStr {
			return &TypeMismatchError{Param: c.Param, Expected: "string", Actual: TypeName(actual)}
		}
		switch c.Type {
		case TypeStartsWith:
			if !strings.HasPrefix(s, c.Prefix) {
				return c.violation(`starts with "`+c.Prefix+`"`, s)
			}
		case TypeEndsWith:
			if !strings.HasSuffix(s, c.Suffix) {
				return c.violation(`ends with "`+c.Suffix+`"`, s)
			}
		default:
			if !strings.Contains(s, c.Substring) {
				return c.violation(`contains "`+c.Substring+`"`, s)
			}
		}
	}
	return nil
}

func (c Constraint) violation(rule, actual string) error {
	return &ViolationError{Param: c.Param, Rule: rule, Actual: actual}
}

func reprList(values []any) string {
	l := make(List, len(values))
	copy(l, values)
	return Repr(l)
}

// resolveParam walks params along path (docs/capabilities.md, "Parameter paths"): one leading "/" is
// dropped, the rest split on "/"; objects are indexed by key, lists by a
// segment Python's int() accepts that is in range; anything else, and a
// null value, is absent. It loops, so any depth is safe.
func resolveParam(params any, path string) (any, bool) {
	if _, ok := params.(*Object); !ok {
		return nil, false
	}
	path = strings.TrimPrefix(path, "/")
	cur := params
	for _, seg := range strings.Split(path, "/") {
		switch x := cur.(type) {
		case *Object:
			v, ok := x.Get(seg)
			if !ok {
				return nil, false
			}
			cur = v
		case List:
			i, ok := pyInt(seg)
			if !ok || i.Sign() < 0 || !i.IsInt64() || i.Int64() >= int64(len(x)) {
				return nil, false
			}
			cur = x[i.Int64()]
		default:
			return nil, false
		}
	}
	if cur == nil {
		return nil, false
	}
	return mustNormalize(cur), true
}

// pyInt parses s as Python's int(s) does in base 10: surrounding
// whitespace, an optional sign, decimal digits of any script, and single
// underscores between digits.
func pyInt(s string) (*big.Int, bool) {
	s = strings.TrimFunc(s, isPySpace)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" {
		return nil, false
	}
	var digits []byte
	prevUnderscore := true // no leading underscore
	for _, r := range s {
		if r == '_' {
			if prevUnderscore {
				return nil, false
			}
			prevUnderscore = true
			continue
		}
		d, ok := digitValue(r)
		if !ok {
			return nil, false
		}
		digits = append(digits, byte('0'+d))
		prevUnderscore = false
		if len(digits) > MaxIntDigits {
			return nil, false
		}
	}
	if prevUnderscore {
		return nil, false
	}
	n, ok := new(big.Int).SetString(string(digits), 10)
	if !ok {
		return nil, false
	}
	if neg {
		n.Neg(n)
	}
	return n, true
}

// isPySpace is str.isspace for one character.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// digitValue gives the value of a Unicode decimal digit (category Nd).
// Decimal digits come in contiguous runs of ten, 0 to 9.
func digitValue(r rune) (int, bool) {
	if r >= '0' && r <= '9' {
		return int(r - '0'), true
	}
	if !unicode.IsDigit(r) {
		return 0, false
	}
	start := r
	for unicode.IsDigit(start - 1) {
		start--
	}
	return int(r-start) % 10, true
}
