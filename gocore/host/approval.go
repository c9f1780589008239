package host

// Approval of tool calls. A capability may require a human's approval for
// the calls it allows: the capability check comes first (and spends the
// budget), so only a call that passed it is ever put to a human, and a
// refusal narrows what the capabilities allow, never widens it. The run
// then asks its driver (ApprovalAsk: an EventApproval, answered by
// Run.Approve while the script waits), or stops with a token
// (ApprovalPause: its journal, from which the run continues by replay
// once the call is decided), or, with neither, refuses the call.

import (
	"encoding/json"
	"fmt"
	"time"

	"amlasandbox/gocore/wire"
	"amlasandbox/gocore/workerpool"
)

// ApprovalAuthorizer is an Authorizer that also says whether the
// capability that allowed a call requires approval.
type ApprovalAuthorizer interface {
	AuthorizeCall(method string, params json.RawMessage) (needsApproval bool, err error)
}

// authorizeWithApproval decides a call by a: the grant (the pattern that
// allowed it, when a names it), and whether it requires approval.
func authorizeWithApproval(a Authorizer, method string, params json.RawMessage) (string, bool, error) {
	switch aa := a.(type) {
	case GrantAuthorizer:
		return aa.AuthorizeGrant(method, params)
	case ApprovalAuthorizer:
		needs, err := aa.AuthorizeCall(method, params)
		return "", needs, err
	}
	return "", false, a.Authorize(method, params)
}

// approvalError is the permission error a script sees for a call that was
// not approved; outcome is the decision (wire.ApprovalRefused or
// wire.ApprovalNoApprover).
type approvalError struct{ msg, outcome string }

func (e *approvalError) Error() string { return e.msg }

func errApprovalRefused(method string) error {
	return &approvalError{fmt.Sprintf("Tool call '%s' was not approved: the approver refused it", method), wire.ApprovalRefused}
}

func errNoApprover(method string) error {
	return &approvalError{fmt.Sprintf("Tool call '%s' requires approval, and this sandbox has no approval_handler and does not pause for approval", method), wire.ApprovalNoApprover}
}

// approvalWait is a call waiting for the driver's decision.
type approvalWait struct {
	decided, ok bool
}

// decide gives a live call's outcome: the capability check's, and for a
// call that passed it and requires approval, the approver's.
func (d *durableRun) decide(p *proc, id int64, method string, params json.RawMessage, needs bool, authErr error) (byte, error) {
	if authErr != nil {
		return callDenied, authErr
	}
	var ok bool
	switch {
	case d.decidePending && d.approve != nil:
		// A resumed token's pending call: the token says it needs
		// approval, whatever the resuming sandbox's capabilities say.
		ok = *d.approve
	case !needs:
		return callAllowed, nil
	case d.approvals == ApprovalAsk:
		var err error
		if ok, err = d.ask(id, method, params); err != nil {
			return 0, err
		}
	case d.approvals == ApprovalPause && d.rec != nil:
		return 0, d.pause(id, method, params)
	default:
		return callNoApprover, errNoApprover(method)
	}
	d.decidePending = false
	if !ok {
		return callRefused, errApprovalRefused(method)
	}
	return callApproved, nil
}

// ask hands the driver an EventApproval and waits for Run.Approve. Time
// spent waiting does not count against the run's timeout.
func (d *durableRun) ask(id int64, method string, params json.RawMessage) (bool, error) {
	r := d.r
	w := &approvalWait{}
	r.mu.Lock()
	d.asks[id] = w
	r.queue = append(r.queue, wire.Event{Kind: EventApproval, ID: id, Method: method, Params: params})
	blockedAt := time.Now()
	r.blocked++
	r.changed()
	workerpool.ReleaseSlot() // waiting on Python computes nothing
	for !w.decided && !r.stopped() {
		r.cond.Wait()
	}
	workerpool.RetakeSlot()
	r.blocked--
	delete(d.asks, id)
	delete(r.handed, id)
	r.mu.Unlock()
	r.ctl.extend(time.Since(blockedAt))
	if !w.decided {
		return false, errStopped
	}
	return w.ok, nil
}

// Approve answers the approval request id: ok approves the call (its
// handler runs next), !ok refuses it (the script gets a permission
// error).
func (r *Run) Approve(id int64, ok bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var w *approvalWait
	if r.dur != nil {
		w = r.dur.asks[id]
	}
	if w == nil {
		if r.finished || r.stopped() {
			return nil
		}
		return fmt.Errorf("approve: no tool call %d waits for approval", id)
	}
	w.decided, w.ok = true, ok
	// Answered: the driver no longer owes it (Step reports "waiting" only
	// for requests it does).
	delete(r.handed, id)
	for i, ev := range r.queue {
		if ev.Kind == EventApproval && ev.ID == id {
			r.queue = append(r.queue[:i], r.queue[i+1:]...)
			break
		}
	}
	r.changed()
	return nil
}

// pause stops the run at call id, which waits for approval. It first
// waits until every earlier request has been answered (their handlers ran
// and must not run again when the run continues); answers that reached
// the host but not yet the script go into the token.
func (d *durableRun) pause(id int64, method string, params json.RawMessage) error {
	r := d.r
	r.mu.Lock()
	blockedAt := time.Now()
	r.blocked++
	r.changed()
	workerpool.ReleaseSlot()
	for len(r.owner) > 0 && !r.stopped() {
		r.cond.Wait()
	}
	workerpool.RetakeSlot()
	r.blocked--
	stopped := r.stopped()
	var unreceived [][]byte
	for _, p := range d.procs {
		for _, a := range p.answers {
			unreceived = append(unreceived, jsonFrame(a))
		}
	}
	r.mu.Unlock()
	r.ctl.extend(time.Since(blockedAt))
	if stopped {
		return errStopped
	}
	d.paused = &PendingCall{Token: newToken(), ID: id, Method: method, Params: append(json.RawMessage(nil), params...), Unreceived: unreceived}
	r.fail(stopLimit, wire.Result{ExitCode: 1, ErrorKind: ErrKindApproval,
		Error: fmt.Sprintf("Approval required: tool call '%s' waits for a human's approval; the run stopped there and continues from its token", method)})
	return errStopped
}

// isCallEvent reports whether an event is handed to the driver to answer
// (a tool request or an approval request).
func isCallEvent(kind string) bool { return kind == wire.EventRequest || kind == EventApproval }
