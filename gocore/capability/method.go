package capability

import "strings"

// The two capability type constants of the Python API: 0.1.7's
// METHOD_CAPABILITY_TYPE and 0.2.8's TOOL_CALL_CAP_TYPE. A capability's
// Kind is one of them; it decides only the format of the capability's
// key.
const (
	MethodCapabilityType = "method"
	ToolCallCapType      = "tool-call"
)

// Key prefixes: a MethodCapability (0.1.7) is keyed "cap:method:<pattern>",
// a ToolCallCap (0.2.8) "cap:tool-call:<pattern>".
const (
	MethodKeyPrefix   = "cap:method:"
	ToolCallKeyPrefix = "cap:tool-call:"
)

// MethodCapability grants calls to the methods its pattern matches, under
// its constraints, at most MaxCalls times per sandbox (nil: unlimited).
// InputSchema is carried along and never enforced. Kind is
// MethodCapabilityType for a Python MethodCapability; anything else
// (normally "") is a ToolCallCap, the class the library builds.
type MethodCapability struct {
	MethodPattern string        `json:"method_pattern"`
	Constraints   ConstraintSet `json:"constraints,omitempty"`
	MaxCalls      *int64        `json:"max_calls,omitempty"`
	InputSchema   any           `json:"input_schema,omitempty"`
	Kind          string        `json:"kind,omitempty"`
	// RequiresApproval: a call this capability allows still waits for a
	// human's approval before its handler runs (approval.go).
	RequiresApproval bool `json:"requires_approval,omitempty"`
}

// Key names the capability's budget in its own format: "cap:method:" +
// pattern for Kind "method", else "cap:tool-call:" + pattern.
// Capabilities with the same pattern share one budget whatever their
// kind (see Policy).
func (m MethodCapability) Key() string {
	if m.Kind == MethodCapabilityType {
		return MethodKeyPrefix + m.MethodPattern
	}
	return ToolCallKeyPrefix + m.MethodPattern
}

// PatternOfKey is the pattern a budget key names, in either format; ok is
// false for any other string.
func PatternOfKey(key string) (pattern string, ok bool) {
	if p, found := strings.CutPrefix(key, MethodKeyPrefix); found {
		return p, true
	}
	if p, found := strings.CutPrefix(key, ToolCallKeyPrefix); found {
		return p, true
	}
	return "", false
}

// ValidateCall checks one call against the pattern and the constraints.
// It does not consult MaxCalls. A pattern mismatch or a failed constraint
// is a *CapabilityError (the constraint's error is its Cause and its text
// is the message); an unknown constraint type is an *UnknownTypeError.
func (m MethodCapability) ValidateCall(method string, params any) error {
	if !Match(method, m.MethodPattern) {
		return &CapabilityError{Message: "method '" + method + "' does not match pattern '" + m.MethodPattern + "'"}
	}
	p, err := Normalize(params)
	if err != nil {
		return err
	}
	return m.checkConstraints(p)
}

func (m MethodCapability) checkConstraints(params any) error {
	if err := m.Constraints.evaluate(params); err != nil {
		if _, ok := err.(ConstraintError); ok {
			return &CapabilityError{Message: err.Error(), Cause: err}
		}
		return err
	}
	return nil
}

// IsSubsetOf reports whether m grants no more than parent: its pattern is a
// subset, parent's constraints subsume m's, and m's budget fits in
// parent's (an unlimited parent takes anything; a limited parent needs a
// limited child with MaxCalls <= parent's), and it requires approval
// where parent does. InputSchema and Kind are ignored.
func (m MethodCapability) IsSubsetOf(parent MethodCapability) bool {
	if !PatternIsSubset(m.MethodPattern, parent.MethodPattern) {
		return false
	}
	if !parent.Constraints.Subsumes(m.Constraints) {
		return false
	}
	// Approval narrows: a child must ask whenever its parent asks.
	if parent.RequiresApproval && !m.RequiresApproval {
		return false
	}
	if parent.MaxCalls == nil {
		return true
	}
	return m.MaxCalls != nil && *m.MaxCalls <= *parent.MaxCalls
}
