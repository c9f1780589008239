package pycore

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"amlasandbox/gocore/capability"
	"amlasandbox/gocore/pca"
)

// Capability engine and PCA bindings. Values cross as JSON text; a check
// that fails answers with a JSON object Python turns into the documented
// exception:
//
//	{"kind": "missing",   "message", "param"}                      MissingParamError
//	{"kind": "type",      "message", "param", "expected", "actual"} TypeMismatchError
//	{"kind": "violation", "message", "param", "rule", "actual"}     ViolationError
//	{"kind": "value",     "message"}                               ValueError (unknown type, bad JSON)
//	{"kind": "capability","message", "cause": {...}}               CapabilityError
//	{"kind": "internal",  "message"}                               a Go panic (a bug)

type checkResult struct {
	Kind     string       `json:"kind"`
	Message  string       `json:"message"`
	Param    *string      `json:"param,omitempty"`
	Expected *string      `json:"expected,omitempty"`
	Actual   *string      `json:"actual,omitempty"`
	Rule     *string      `json:"rule,omitempty"`
	Cause    *checkResult `json:"cause,omitempty"`
}

func describe(err error) *checkResult {
	if err == nil {
		return nil
	}
	r := &checkResult{Message: err.Error()}
	var (
		missing   *capability.MissingParamError
		mismatch  *capability.TypeMismatchError
		violation *capability.ViolationError
		capErr    *capability.CapabilityError
		limit     *capability.CallLimitExceededError
	)
	switch {
	case errors.As(err, &capErr):
		r.Kind = "capability"
		if capErr.Cause != nil {
			r.Cause = describe(capErr.Cause)
		}
	case errors.As(err, &limit):
		r.Kind = "capability"
	case errors.As(err, &missing):
		r.Kind, r.Param = "missing", &missing.Param
	case errors.As(err, &mismatch):
		r.Kind, r.Param, r.Expected, r.Actual = "type", &mismatch.Param, &mismatch.Expected, &mismatch.Actual
	case errors.As(err, &violation):
		r.Kind, r.Param, r.Rule, r.Actual = "violation", &violation.Param, &violation.Rule, &violation.Actual
	default:
		r.Kind = "value"
	}
	return r
}

func resultJSON(err error) string {
	if err == nil {
		return ""
	}
	b, _ := json.Marshal(describe(err))
	return string(b)
}

// recoverResult turns a panic in a function that answers with result JSON
// into an "internal" result.
func recoverResult(out *string) {
	if p := recover(); p != nil {
		b, _ := json.Marshal(checkResult{Kind: "internal", Message: fmt.Sprintf("internal error (Go panic): %v", p)})
		*out = string(b)
	}
}

// recoverFalse turns a panic in a predicate into false.
func recoverFalse(out *bool) {
	if recover() != nil {
		*out = false
	}
}

// paramsValue decodes call parameters; text that is not JSON is a value
// that is not a dict (every parameter absent), as in Policy.Authorize.
func paramsValue(paramsJSON string) any {
	v, err := capability.ParseJSON([]byte(paramsJSON))
	if err != nil {
		return nil
	}
	return v
}

func badInput(what string, err error) string {
	b, _ := json.Marshal(checkResult{Kind: "value", Message: fmt.Sprintf("invalid %s: %v", what, err)})
	return string(b)
}

// PatternMatch is method_matches_pattern.
func PatternMatch(method, pattern string) (ok bool) {
	defer recoverFalse(&ok)
	return capability.Match(method, pattern)
}

// PatternIsSubset is pattern_is_subset.
func PatternIsSubset(child, parent string) (ok bool) {
	defer recoverFalse(&ok)
	return capability.PatternIsSubset(child, parent)
}

// ConstraintEvaluate checks params against one constraint: "" when it
// passes, else result JSON.
func ConstraintEvaluate(constraintJSON, paramsJSON string) (out string) {
	defer recoverResult(&out)
	c, err := capability.ParseConstraint([]byte(constraintJSON))
	if err != nil {
		return badInput("constraint", err)
	}
	return resultJSON(c.Evaluate(paramsValue(paramsJSON)))
}

// ConstraintSubsumes is Constraint.subsumes (false for unreadable input).
func ConstraintSubsumes(parentJSON, childJSON string) (ok bool) {
	defer recoverFalse(&ok)
	p, err1 := capability.ParseConstraint([]byte(parentJSON))
	c, err2 := capability.ParseConstraint([]byte(childJSON))
	return err1 == nil && err2 == nil && p.Subsumes(c)
}

// ConstraintSetSubsumes is ConstraintSet.subsumes on two JSON lists.
func ConstraintSetSubsumes(parentListJSON, childListJSON string) (ok bool) {
	defer recoverFalse(&ok)
	p, err1 := capability.ParseConstraints([]byte(parentListJSON))
	c, err2 := capability.ParseConstraints([]byte(childListJSON))
	return err1 == nil && err2 == nil && p.Subsumes(c)
}

// ConstraintSetEvaluate checks params against a JSON list of constraints.
func ConstraintSetEvaluate(listJSON, paramsJSON string) (out string) {
	defer recoverResult(&out)
	s, err := capability.ParseConstraints([]byte(listJSON))
	if err != nil {
		return badInput("constraints", err)
	}
	return resultJSON(s.Evaluate(paramsValue(paramsJSON)))
}

// CapabilityValidateCall is MethodCapability.validate_call.
func CapabilityValidateCall(capJSON, method, paramsJSON string) (out string) {
	defer recoverResult(&out)
	c, err := capability.ParseCapability([]byte(capJSON))
	if err != nil {
		return badInput("capability", err)
	}
	return resultJSON(c.ValidateCall(method, paramsValue(paramsJSON)))
}

// CapabilityIsSubset is MethodCapability.is_subset_of.
func CapabilityIsSubset(childJSON, parentJSON string) (ok bool) {
	defer recoverFalse(&ok)
	c, err1 := capability.ParseCapability([]byte(childJSON))
	p, err2 := capability.ParseCapability([]byte(parentJSON))
	return err1 == nil && err2 == nil && c.IsSubsetOf(p)
}

func authorityFromHex(seedHex string) (*pca.Authority, error) {
	seed, err := hex.DecodeString(seedHex)
	if err != nil {
		return nil, pca.ErrSeedSize
	}
	return pca.FromSeed(seed)
}

// PCAKeyFromSeed returns the public key "ed25519:<hex>" of a hex seed.
func PCAKeyFromSeed(seedHex string) (key string, err error) {
	defer guard(&err)
	a, err := authorityFromHex(seedHex)
	if err != nil {
		return "", newError(kindInvalid, "%v", err)
	}
	return a.PublicKeyHex(), nil
}

// PCACreate builds and signs a PCA and returns its CBOR bytes as hex.
// patternsJSON is a JSON list of str, or "null" for the default; executor
// "" means the issuer's key.
func PCACreate(seedHex, patternsJSON string, expiresInSecs int64, executor string) (out string, err error) {
	defer guard(&err)
	a, err := authorityFromHex(seedHex)
	if err != nil {
		return "", newError(kindInvalid, "%v", err)
	}
	var patterns []string
	if err := json.Unmarshal([]byte(patternsJSON), &patterns); err != nil {
		return "", newError(kindInvalid, "capabilities must be a list of str: %v", err)
	}
	token, err := a.Create(patterns, expiresInSecs, executor, time.Now())
	var expiry *pca.ExpiryRangeError
	switch {
	case errors.As(err, &expiry):
		return "", newError(kindOverflow, "%v", err)
	case err != nil:
		return "", newError(kindInvalid, "%v", err)
	}
	return hex.EncodeToString(token), nil
}

// PCAVerify checks a hex PCA against a JSON list of trusted keys and
// returns the granted patterns as a JSON list.
func PCAVerify(cborHex, trustedJSON string) (out string, err error) {
	defer guard(&err)
	var trusted []string
	if err := json.Unmarshal([]byte(trustedJSON), &trusted); err != nil {
		return "", newError(kindInvalid, "trusted authorities must be a list of str: %v", err)
	}
	granted, err := verifyPCA(cborHex, trusted)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(granted)
	return string(b), err
}
