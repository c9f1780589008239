package host

import (
	"encoding/json"
	"errors"
	"time"

	"amlasandbox/gocore/netpolicy"
	"amlasandbox/gocore/wire"
)

// verdict is why the host allowed or refused a call, as the run's record
// of it (wire.ToolCall) says: what granted it, or which check refused it
// and by which rule, and what the approver decided.
type verdict struct {
	grant    string // the capability pattern, or the network rule's text
	check    string // the refusing check (empty: allowed)
	rule     string // the refusing check's rule, when it has one
	approval string // wire.Approval*: empty when the grant asks for none
}

// Checks the host itself refuses a call by, before or after the
// capabilities (besides those of package capability and netpolicy).
const (
	checkRequest  = "request"      // the request is not something Python can take
	checkMemory   = "memory_limit" // its params would put the run over memory_limit
	checkApproval = "approval"     // the approver refused it, or there is no approver
)

// GrantAuthorizer is an ApprovalAuthorizer that also names the grant: the
// method pattern of the capability that allowed the call.
type GrantAuthorizer interface {
	AuthorizeGrant(method string, params json.RawMessage) (pattern string, needsApproval bool, err error)
}

// namedRefusal is an authorizer's error that names the check that refused
// a call and the rule it applied (capability.CapabilityError,
// capability.CallLimitExceededError).
type namedRefusal interface {
	Refusal() (check, rule string)
}

// refusedBy is the verdict for a call refused with err.
func refusedBy(err error) verdict {
	var ap *approvalError
	if errors.As(err, &ap) {
		return verdict{check: checkApproval, approval: ap.outcome}
	}
	if ref, ok := netpolicy.AsRefusal(err); ok {
		return verdict{check: ref.Check, rule: ref.Rule}
	}
	var named namedRefusal
	if errors.As(err, &named) {
		check, rule := named.Refusal()
		return verdict{check: check, rule: rule}
	}
	return verdict{check: checkCapability}
}

// checkCapability is what refused a call whose authorizer does not say.
const checkCapability = "capability"

// apply copies the verdict into a call's record.
func (v verdict) apply(c *wire.ToolCall) {
	c.Grant, c.Check, c.Rule, c.Approval = v.grant, v.check, v.rule, v.approval
}

// sinceStart is the time since the run started, in milliseconds.
func (r *Run) sinceStart() float64 {
	return float64(time.Since(r.begun).Microseconds()) / 1000
}

// addCall records an allowed call, which waits for its answer (record).
// mu must be held.
func (r *Run) addCall(id int64, method string, params json.RawMessage, v verdict) {
	shown, cut := preview(params)
	now := time.Now()
	c := wire.ToolCall{ID: id, Method: method, Params: shown, ParamsTruncated: cut,
		StartedMS: float64(now.Sub(r.begun).Microseconds()) / 1000}
	v.apply(&c)
	r.calls = append(r.calls, c)
	r.callIdx[id] = len(r.calls) - 1
	r.callStart[id] = now
}

// recordPaused records call id when the run paused on it to wait for
// approval (approval.go: pause): the call the run's token continues from.
func (r *Run) recordPaused(id int64, method string, params json.RawMessage, grant string) {
	d := r.dur
	if d == nil || d.paused == nil || d.paused.ID != id {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	shown, cut := preview(params)
	r.calls = append(r.calls, wire.ToolCall{ID: id, Method: method, Params: shown, ParamsTruncated: cut,
		StartedMS: r.sinceStart(), Grant: grant, Check: checkApproval, Approval: wire.ApprovalPending})
}
