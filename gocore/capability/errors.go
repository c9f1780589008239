package capability

import (
	"strconv"
	"strings"
)

// ConstraintError is implemented by the three ways a constraint can fail
// (MissingParamError, TypeMismatchError, ViolationError). An
// UnknownTypeError is not a ConstraintError: it is a configuration error,
// like the ValueError Python raises.
type ConstraintError interface {
	error
	constraintError()
}

// MissingParamError: a constraint needed a parameter that is absent (or
// null).
type MissingParamError struct {
	Param string // the path as written in the constraint
}

func (e *MissingParamError) Error() string  { return "Missing parameter: " + e.Param }
func (*MissingParamError) constraintError() {}

// TypeMismatchError: a string rule was applied to a value that is not a
// string.
type TypeMismatchError struct {
	Param    string
	Expected string // "string"
	Actual   string // the Python type name: int, float, bool, list, dict
}

func (e *TypeMismatchError) Error() string {
	return "Type mismatch for " + e.Param + ": expected " + e.Expected + ", got " + e.Actual
}
func (*TypeMismatchError) constraintError() {}

// ViolationError: the value is present and of a usable type but breaks the
// rule.
type ViolationError struct {
	Param  string
	Rule   string // e.g. "<= 1000", "in ['USD', 'EUR']", `starts with "/api/"`
	Actual string // Python repr of the value (raw text for string rules)
}

func (e *ViolationError) Error() string {
	return "Constraint violation: " + e.Param + " " + e.Rule + ", actual: " + e.Actual
}
func (*ViolationError) constraintError() {}

// UnknownTypeError: a constraint has a type string outside the 15 known
// ones. Python raises it as ValueError.
type UnknownTypeError struct {
	Type string
}

func (e *UnknownTypeError) Error() string { return "Unknown constraint type: " + e.Type }

// CapabilityError: a call is not authorised. Cause is the ConstraintError
// behind it, when there is one.
type CapabilityError struct {
	Message string
	Cause   error
	// Check names what refused the call, for a run's records and traces:
	// CheckPCA, CheckConstraint or CheckCapability (empty: CheckCapability).
	// Pattern is the capability pattern whose constraint failed (the first
	// one, when several did).
	Check   string
	Pattern string
}

// The checks a Policy refuses calls by (CapabilityError.Check, and
// CheckMaxCalls for a CallLimitExceededError).
const (
	CheckPCA        = "pca"        // the PCA grants no pattern that matches the method
	CheckCapability = "capability" // no capability's pattern matches the method
	CheckConstraint = "constraint" // a capability matched, its constraints failed
	CheckMaxCalls   = "max_calls"  // every matching capability's budget is spent
)

func (e *CapabilityError) Error() string { return e.Message }
func (e *CapabilityError) Unwrap() error { return e.Cause }

// Refusal names the check that refused the call and the rule it applied
// (the capability pattern), for a run's records.
func (e *CapabilityError) Refusal() (check, rule string) {
	if e.Check == "" {
		return CheckCapability, e.Pattern
	}
	return e.Check, e.Pattern
}

// CallLimitExceededError: every capability that would authorise the call
// has used up its budget. In Python it is a subclass of CapabilityError.
type CallLimitExceededError struct {
	CapabilityKey string
	MaxCalls      int64
}

// Refusal names the check (max_calls) and the spent capability's key.
func (e *CallLimitExceededError) Refusal() (check, rule string) {
	return CheckMaxCalls, e.CapabilityKey
}

func (e *CallLimitExceededError) Error() string {
	return "Call limit exceeded for '" + e.CapabilityKey + "': max " + strconv.FormatInt(e.MaxCalls, 10) + " calls allowed"
}

// reprStrings is Python's repr of a list of str.
func reprStrings(xs []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range xs {
		if i > 0 {
			b.WriteString(", ")
		}
		writeReprString(&b, x)
	}
	b.WriteByte(']')
	return b.String()
}
