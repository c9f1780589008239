package capability

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// JSON forms are those of Python's to_dict / from_dict; a
// capability dict may also carry "kind" ("method" or "tool-call", the
// Python class), which to_dict never writes. They are
// decoded with ParseJSON (not encoding/json) so that ints stay ints,
// NaN/Infinity from Python's json.dumps are accepted, and object order is
// kept.

// MaxConstraintDepth bounds and/or nesting in decoded constraints, so that
// evaluating or comparing them never recurses without limit.
const MaxConstraintDepth = 1000

// ParseConstraint decodes one constraint dict.
func ParseConstraint(data []byte) (Constraint, error) {
	v, err := ParseJSON(data)
	if err != nil {
		return Constraint{}, err
	}
	return ConstraintFromValue(v)
}

// ParseConstraints decodes a list of constraint dicts.
func ParseConstraints(data []byte) (ConstraintSet, error) {
	v, err := ParseJSON(data)
	if err != nil {
		return nil, err
	}
	return constraintListFromValue(v, "constraints", 0)
}

// ParseCapability decodes one capability dict.
func ParseCapability(data []byte) (MethodCapability, error) {
	v, err := ParseJSON(data)
	if err != nil {
		return MethodCapability{}, err
	}
	return CapabilityFromValue(v)
}

// ParseCapabilities decodes a list of capability dicts.
func ParseCapabilities(data []byte) ([]MethodCapability, error) {
	v, err := ParseJSON(data)
	if err != nil {
		return nil, err
	}
	l, ok := v.(List)
	if !ok {
		return nil, fmt.Errorf("capabilities: expected a list, got %s", TypeName(v))
	}
	out := make([]MethodCapability, 0, len(l))
	for i, e := range l {
		c, err := CapabilityFromValue(e)
		if err != nil {
			return nil, fmt.Errorf("capabilities[%d]: %w", i, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// ConstraintFromValue converts a decoded constraint dict.
func ConstraintFromValue(v any) (Constraint, error) { return constraintFromValue(v, 0) }

func constraintFromValue(v any, depth int) (Constraint, error) {
	if depth > MaxConstraintDepth {
		return Constraint{}, fmt.Errorf("constraints nested deeper than %d levels", MaxConstraintDepth)
	}
	o, ok := v.(*Object)
	if !ok {
		return Constraint{}, fmt.Errorf("constraint: expected a dict, got %s", TypeName(v))
	}
	var c Constraint
	t, ok := o.Get("type")
	if !ok {
		return c, fmt.Errorf("constraint: missing key 'type'")
	}
	var err error
	if c.Type, err = asString(t, "type"); err != nil {
		return c, err
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"param", &c.Param}, {"prefix", &c.Prefix}, {"suffix", &c.Suffix}, {"substring", &c.Substring}} {
		if x, ok := o.Get(f.key); ok && x != nil {
			if *f.dst, err = asString(x, f.key); err != nil {
				return c, err
			}
		}
	}
	if x, ok := o.Get("value"); ok {
		c.Value = x
	}
	if x, ok := o.Get("values"); ok && x != nil {
		l, ok := x.(List)
		if !ok {
			return c, fmt.Errorf("constraint: 'values' must be a list, got %s", TypeName(x))
		}
		c.Values = append([]any(nil), l...)
	}
	if x, ok := o.Get("constraints"); ok && x != nil {
		if c.Constraints, err = constraintListFromValue(x, "constraints", depth+1); err != nil {
			return c, err
		}
	}
	return c, nil
}

func constraintListFromValue(v any, what string, depth int) (ConstraintSet, error) {
	l, ok := v.(List)
	if !ok {
		return nil, fmt.Errorf("%s: expected a list, got %s", what, TypeName(v))
	}
	out := make(ConstraintSet, 0, len(l))
	for _, e := range l {
		c, err := constraintFromValue(e, depth)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func asString(v any, key string) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("constraint: '%s' must be a str, got %s", key, TypeName(v))
	}
	return s, nil
}

// CapabilityFromValue converts a decoded capability dict.
func CapabilityFromValue(v any) (MethodCapability, error) {
	var m MethodCapability
	o, ok := v.(*Object)
	if !ok {
		return m, fmt.Errorf("capability: expected a dict, got %s", TypeName(v))
	}
	p, ok := o.Get("method_pattern")
	if !ok {
		return m, fmt.Errorf("capability: missing key 'method_pattern'")
	}
	if m.MethodPattern, ok = p.(string); !ok {
		return m, fmt.Errorf("capability: 'method_pattern' must be a str, got %s", TypeName(p))
	}
	if x, ok := o.Get("constraints"); ok && x != nil {
		cs, err := constraintListFromValue(x, "capability constraints", 0)
		if err != nil {
			return m, err
		}
		m.Constraints = cs
	}
	if x, ok := o.Get("max_calls"); ok && x != nil {
		n, err := maxCallsFromValue(x)
		if err != nil {
			return m, err
		}
		m.MaxCalls = &n
	}
	if x, ok := o.Get("input_schema"); ok {
		m.InputSchema = x
	}
	if x, ok := o.Get("requires_approval"); ok && x != nil {
		b, isBool := x.(bool)
		if !isBool {
			return m, fmt.Errorf("capability: 'requires_approval' must be a bool, got %s", TypeName(x))
		}
		m.RequiresApproval = b
	}
	if x, ok := o.Get("kind"); ok && x != nil {
		k, isStr := x.(string)
		if !isStr || (k != MethodCapabilityType && k != ToolCallCapType) {
			return m, fmt.Errorf("capability: 'kind' must be %q or %q, got %s", MethodCapabilityType, ToolCallCapType, Repr(x))
		}
		m.Kind = k
	}
	return m, nil
}

// maxCallsFromValue accepts an int that fits in int64, or a bool (Python's
// bool is an int). Anything else is refused rather than guessed at.
func maxCallsFromValue(v any) (int64, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case *big.Int:
		if x.IsInt64() {
			return x.Int64(), nil
		}
		return 0, fmt.Errorf("capability: max_calls %s is out of range", x)
	}
	return 0, fmt.Errorf("capability: max_calls must be an int, got %s", TypeName(v))
}

// MarshalJSON writes the to_dict form. Values are written as Python's
// json.dumps writes them (NaN and Infinity included, which encoding/json
// itself refuses to pass through).
func (c Constraint) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	writeConstraint(&b, c)
	return []byte(b.String()), nil
}

func writeConstraint(b *strings.Builder, c Constraint) {
	b.WriteString(`{"type": `)
	writeJSONString(b, c.Type)
	for _, f := range []struct{ key, val string }{{"param", c.Param}} {
		if f.val != "" {
			b.WriteString(`, "` + f.key + `": `)
			writeJSONString(b, f.val)
		}
	}
	if c.Value != nil {
		b.WriteString(`, "value": `)
		writeValue(b, c.Value, jsonStyle)
	}
	if len(c.Values) > 0 {
		b.WriteString(`, "values": `)
		writeValue(b, List(c.Values), jsonStyle)
	}
	for _, f := range []struct{ key, val string }{{"prefix", c.Prefix}, {"suffix", c.Suffix}, {"substring", c.Substring}} {
		if f.val != "" {
			b.WriteString(`, "` + f.key + `": `)
			writeJSONString(b, f.val)
		}
	}
	if len(c.Constraints) > 0 {
		b.WriteString(`, "constraints": [`)
		for i, sub := range c.Constraints {
			if i > 0 {
				b.WriteString(", ")
			}
			writeConstraint(b, sub)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
}

// UnmarshalJSON reads the to_dict form.
func (c *Constraint) UnmarshalJSON(data []byte) error {
	v, err := ParseConstraint(data)
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// MarshalJSON writes the to_dict form.
func (m MethodCapability) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteString(`{"method_pattern": `)
	writeJSONString(&b, m.MethodPattern)
	if len(m.Constraints) > 0 {
		b.WriteString(`, "constraints": [`)
		for i, c := range m.Constraints {
			if i > 0 {
				b.WriteString(", ")
			}
			writeConstraint(&b, c)
		}
		b.WriteByte(']')
	}
	if m.MaxCalls != nil {
		b.WriteString(`, "max_calls": ` + strconv.FormatInt(*m.MaxCalls, 10))
	}
	if m.InputSchema != nil {
		b.WriteString(`, "input_schema": `)
		writeValue(&b, m.InputSchema, jsonStyle)
	}
	if m.Kind != "" {
		b.WriteString(`, "kind": `)
		writeJSONString(&b, m.Kind)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// UnmarshalJSON reads the to_dict form.
func (m *MethodCapability) UnmarshalJSON(data []byte) error {
	v, err := ParseCapability(data)
	if err != nil {
		return err
	}
	*m = v
	return nil
}
