package pycore

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"amlasandbox/gocore/capability"
	"amlasandbox/gocore/host"
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

var policies handles[*capability.Policy]

func init() {
	lookupAuthorizer = func(h int64) (host.Authorizer, bool) {
		p, ok := policyByHandle(h)
		if !ok {
			return nil, false
		}
		return p, true
	}
}

// policyByHandle gives the Go side (the sandbox) the Policy a Python
// Runtime created, so in-sandbox calls and can_call share one budget.
func policyByHandle(h int64) (*capability.Policy, bool) { return policies.get(h) }

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

// PolicyNew builds a Policy from a JSON list of capability dicts.
func PolicyNew(capsJSON string) (h int64, err error) {
	defer recoverTo(&err)
	caps, err := capability.ParseCapabilities([]byte(capsJSON))
	if err != nil {
		return 0, err
	}
	return policies.put(capability.NewPolicy(caps)), nil
}

// PolicyFree releases a Policy handle (a sandbox already given the Policy
// keeps it).
func PolicyFree(h int64) {
	defer func() { _ = recover() }()
	policies.drop(h)
}

// PolicySetCapabilities replaces the capability list; budgets are kept.
func PolicySetCapabilities(h int64, capsJSON string) (err error) {
	defer recoverTo(&err)
	p, ok := policies.get(h)
	if !ok {
		return errPolicyClosed
	}
	caps, err := capability.ParseCapabilities([]byte(capsJSON))
	if err != nil {
		return err
	}
	p.SetCapabilities(caps)
	return nil
}

var errPolicyClosed = errors.New("capability policy is closed")

// PolicyCheck decides a call without spending budget: "" when allowed,
// else the denial message.
func PolicyCheck(h int64, method, paramsJSON string) (out string) {
	defer func() {
		if p := recover(); p != nil {
			out = fmt.Sprintf("internal error (Go panic): %v", p)
		}
	}()
	p, ok := policies.get(h)
	if !ok {
		return errPolicyClosed.Error()
	}
	if err := p.Check(method, json.RawMessage(paramsJSON)); err != nil {
		return err.Error()
	}
	return ""
}

// PolicySetGrants restricts a Policy to the methods a PCA grants:
// patternsJSON is a JSON list of patterns, or "null" to lift the
// restriction (see capability.Policy.SetGrants).
func PolicySetGrants(h int64, patternsJSON string) (err error) {
	defer recoverTo(&err)
	p, ok := policies.get(h)
	if !ok {
		return errPolicyClosed
	}
	var patterns []string
	if err := json.Unmarshal([]byte(patternsJSON), &patterns); err != nil {
		return fmt.Errorf("granted patterns must be a JSON list of str or null: %v", err)
	}
	p.SetGrants(patterns)
	return nil
}

// PolicyRemaining is the budget left for key (in either format,
// "cap:method:<p>" or "cap:tool-call:<p>"), or -1 when the key has no
// budget (unknown or unlimited) or the handle is closed.
func PolicyRemaining(h int64, key string) (n int64) {
	defer func() {
		if recover() != nil {
			n = -1
		}
	}()
	p, ok := policies.get(h)
	if !ok {
		return -1
	}
	left, tracked := p.Remaining(key)
	if !tracked {
		return -1
	}
	return left
}

// PolicyCounts is the budget table as a JSON object {key: remaining}, in
// capability-list order, each key in its capability's own format.
func PolicyCounts(h int64) (out string) {
	defer func() {
		if recover() != nil {
			out = "{}"
		}
	}()
	p, ok := policies.get(h)
	if !ok {
		return "{}"
	}
	return countsJSON(p.Counts())
}

// PCAGenerateSeed returns 32 random bytes as hex.
func PCAGenerateSeed() (out string) {
	defer func() {
		if recover() != nil {
			out = ""
		}
	}()
	seed := make([]byte, 32)
	if _, err := rand.Read(seed); err != nil {
		return ""
	}
	return hex.EncodeToString(seed)
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
	defer recoverTo(&err)
	a, err := authorityFromHex(seedHex)
	if err != nil {
		return "", err
	}
	return a.PublicKeyHex(), nil
}

// PCACreate builds and signs a PCA and returns its CBOR bytes as hex.
// patternsJSON is a JSON list of str, or "null" for the default; executor
// "" means the issuer's key.
func PCACreate(seedHex, patternsJSON string, expiresInSecs int64, executor string) (out string, err error) {
	defer recoverTo(&err)
	a, err := authorityFromHex(seedHex)
	if err != nil {
		return "", err
	}
	var patterns []string
	if err := json.Unmarshal([]byte(patternsJSON), &patterns); err != nil {
		return "", fmt.Errorf("capabilities must be a list of str: %v", err)
	}
	token, err := a.Create(patterns, expiresInSecs, executor, time.Now())
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(token), nil
}

// PCAVerify checks a hex PCA against a JSON list of trusted keys and
// returns the granted patterns as a JSON list.
func PCAVerify(cborHex, trustedJSON string) (out string, err error) {
	defer recoverTo(&err)
	token, err := hex.DecodeString(cborHex)
	if err != nil {
		return "", fmt.Errorf("PCA bytes: %v", err)
	}
	var trusted []string
	if err := json.Unmarshal([]byte(trustedJSON), &trusted); err != nil {
		return "", fmt.Errorf("trusted authorities must be a list of str: %v", err)
	}
	tok, err := pca.Verify(token, trusted, time.Now())
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(tok.Patterns)
	return string(b), err
}

// countsJSON writes counts as a JSON object, keeping their order.
func countsJSON(counts []capability.Count) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, c := range counts {
		if i > 0 {
			b.WriteString(", ")
		}
		k, _ := json.Marshal(c.Key)
		b.Write(k)
		b.WriteString(": ")
		b.WriteString(strconv.FormatInt(c.Remaining, 10))
	}
	b.WriteByte('}')
	return b.String()
}
