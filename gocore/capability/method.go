package capability

// MethodCapabilityType is Python's METHOD_CAPABILITY_TYPE.
const MethodCapabilityType = "method"

// MethodCapability grants calls to the methods its pattern matches, under
// its constraints, at most MaxCalls times per sandbox (nil: unlimited).
// InputSchema is carried along and never enforced.
type MethodCapability struct {
	MethodPattern string        `json:"method_pattern"`
	Constraints   ConstraintSet `json:"constraints,omitempty"`
	MaxCalls      *int64        `json:"max_calls,omitempty"`
	InputSchema   any           `json:"input_schema,omitempty"`
}

// Key names the capability's budget: "cap:method:" + pattern.
// Capabilities with the same pattern share one key and one budget.
func (m MethodCapability) Key() string { return "cap:method:" + m.MethodPattern }

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
// limited child with MaxCalls <= parent's). InputSchema is ignored.
func (m MethodCapability) IsSubsetOf(parent MethodCapability) bool {
	if !PatternIsSubset(m.MethodPattern, parent.MethodPattern) {
		return false
	}
	if !parent.Constraints.Subsumes(m.Constraints) {
		return false
	}
	if parent.MaxCalls == nil {
		return true
	}
	return m.MaxCalls != nil && *m.MaxCalls <= *parent.MaxCalls
}
