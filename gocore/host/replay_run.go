package host

// Replaying a journal: each input the script asks for is taken from the
// journal instead of the world, after checking that the script asks for
// what the journal recorded (a tool call with the same method and params,
// a clock reading of the same clock...). No tool handler runs, no sleep
// sleeps. The replayed inputs are journaled again, so a replay that goes
// on live (ThenLive, or a paused run resumed) ends with a journal of the
// whole run from its start.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"time"

	"amlasandbox/gocore/journal"
	"amlasandbox/gocore/wire"
)

// next returns the journal's next input, which must be one of kinds;
// asked describes what the script asks for. It returns (nil, nil) when
// the run goes on live: the journal ended and live inputs follow.
func (d *durableRun) next(asked string, kinds ...byte) (*journal.Event, error) {
	if !d.replaying() {
		return nil, nil
	}
	if d.play.Done() {
		return nil, d.atEnd(asked)
	}
	at := d.play.Index()
	ev, err := d.play.Next()
	if err != nil {
		// Journals are checked whole before a replay starts.
		return nil, d.diverge(d.calls, fmt.Sprintf("a damaged input %d (%v)", at, err), asked)
	}
	if !slices.Contains(kinds, ev.Kind) {
		return nil, d.divergeAt(at, d.calls, ev.Describe(), asked)
	}
	return ev, nil
}

// atEnd decides what happens when the script asks for more than the
// journal holds.
func (d *durableRun) atEnd(asked string) error {
	j := d.src
	switch {
	case j.End == EndPaused:
		return d.diverge(d.calls, fmt.Sprintf("nothing more before tool call %d (%s), which waits for approval", j.Pending.ID, j.Pending.Method), asked)
	case d.then == ThenLive:
		d.goLive()
		return nil
	case j.End == EndStopped:
		// The recorded run was stopped here: so is the replay.
		switch reason := stopReason(j.Reason); reason {
		case stopTimeout, stopCancel:
			d.r.ctl.stop(reason)
			d.r.broadcast()
		default:
			d.r.fail(stopLimit, wire.Result{ExitCode: j.ExitCode, ErrorKind: j.ErrorKind, Error: j.Error})
		}
		return errStopped
	}
	return d.diverge(d.calls, "nothing more (the journal ends here)", asked)
}

// diverge ends the run with a ReplayDivergence.
func (d *durableRun) diverge(call int64, recorded, asked string) error {
	at := 0
	if d.play != nil {
		at = d.play.Index()
	}
	return d.divergeAt(at, call, recorded, asked)
}

func (d *durableRun) divergeAt(event int, call int64, recorded, asked string) error {
	if d.divergence == nil {
		d.divergence = &Divergence{Call: call, Event: event, Recorded: recorded, Asked: asked}
		d.r.fail(stopLimit, wire.Result{ExitCode: 1, ErrorKind: ErrKindDivergence, Error: d.divergence.Error()})
	}
	return errStopped
}

// goLive turns a replay live at the journal's end: answers that had
// reached the host but not the script when the run paused are handed to
// their processes, and requests made during the replay that the journal
// never answered go to the driver, as a live run's would. Requests of
// processes that have ended are dropped: nobody waits for them.
func (d *durableRun) goLive() {
	d.live = true
	r := d.r
	r.mu.Lock()
	defer r.mu.Unlock()
	alive := func(p *proc) bool { return slices.Contains(d.procs, p) }
	if j := d.src; j.Pending != nil {
		for _, frame := range j.Pending.Unreceived {
			h, result, err := journal.SplitFrame(frame)
			if err != nil {
				continue
			}
			p, ok := r.owner[h.ID]
			if !ok || !alive(p) {
				continue
			}
			a := wire.ToolAnswer{ID: h.ID, OK: h.OK, Code: h.Code, Error: h.Error}
			if h.OK {
				a.Result = json.RawMessage(result)
			}
			r.forgetRequest(p, h.ID)
			r.record(h.ID, a)
			delete(d.replayed, h.ID)
			p.answers = append(p.answers, a)
		}
	}
	ids := make([]int64, 0, len(d.replayed))
	for id := range d.replayed {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, k int) bool { return ids[i] < ids[k] })
	for _, id := range ids {
		req := d.replayed[id]
		delete(d.replayed, id)
		p, ok := r.owner[id]
		if !ok {
			continue
		}
		if !alive(p) {
			r.forgetRequest(p, id)
			continue
		}
		r.queue = append(r.queue, wire.Event{Kind: wire.EventRequest, ID: id, Method: req.Method, Params: req.Params})
	}
	r.changed()
}

// forgetRequest removes an outstanding request's bookkeeping. mu must be
// held.
func (r *Run) forgetRequest(p *proc, id int64) {
	delete(r.owner, id)
	delete(r.handed, id)
	delete(p.pending, id)
}

// describeCall is how divergence messages show a tool call.
func describeCall(id int64, method string, params []byte) string {
	return fmt.Sprintf("tool call %d: %s %s", id, method, journal.Clip(string(params), 200))
}

// authorizeCall is the capability check of a tool call, and in a durable
// run the journaling of its outcome and its approval. It returns the
// denial the script sees, or errStopped when the run stopped (a pause, a
// divergence).
func (p *proc) authorizeCall(id int64, method string, params json.RawMessage) error {
	a := p.run.sb.cfg.Authorizer
	return p.authorizeCallWith(id, method, params, func() (bool, error) { return authorizeWithApproval(a, method, params) })
}

// authorizeCallWith is authorizeCall with the capability check given:
// decide spends the budget of whatever allows the call and says whether
// it requires approval (an HTTP request's grant, network.go).
func (p *proc) authorizeCallWith(id int64, method string, params json.RawMessage, decide func() (needsApproval bool, err error)) error {
	r := p.run
	needs, authErr := decide()
	d := r.dur
	if d == nil {
		if authErr != nil {
			return authErr
		}
		if needs {
			return errNoApprover(method)
		}
		return nil
	}
	d.calls = id
	if d.replaying() {
		if d.play.Done() && d.src.End == EndPaused {
			pend := d.src.Pending
			if id != pend.ID || method != pend.Method || !bytes.Equal(params, pend.Params) {
				return d.diverge(id, describeCall(pend.ID, pend.Method, pend.Params)+", which waits for approval", describeCall(id, method, params))
			}
			if authErr != nil {
				return d.diverge(id, describeCall(id, method, params)+" allowed by the capabilities", "it now, refused: "+authErr.Error())
			}
			if d.approve == nil {
				// A replay (not a resumption) of a paused run stops where
				// the recorded run stopped: it decides nothing, asks no
				// approver and runs no handler.
				j := d.src
				d.r.fail(stopLimit, wire.Result{ExitCode: j.ExitCode, ErrorKind: j.ErrorKind, Error: j.Error})
				return errStopped
			}
			// Resuming: the token carries the call's need for approval,
			// so the resuming sandbox need not require it again; its
			// capabilities still had to allow the call (above).
			d.goLive()
			d.decidePending = true
		} else {
			ev, err := d.next(describeCall(id, method, params), journal.EvCall)
			if err != nil {
				return err
			}
			if ev != nil {
				return d.replayCall(p, ev, id, method, params, needs, authErr)
			}
		}
	}
	outcome, err := d.decide(p, id, method, params, needs, authErr)
	if err == errStopped {
		return err
	}
	d.rec.Add(&journal.Event{Kind: journal.EvCall, N: uint64(id), Text: method, Data: params, Outcome: outcome})
	return err
}

// replayCall checks a tool call against the journal's and gives the
// recorded outcome.
func (d *durableRun) replayCall(p *proc, ev *journal.Event, id int64, method string, params json.RawMessage, needs bool, authErr error) error {
	asked := describeCall(id, method, params)
	if int64(ev.N) != id || ev.Text != method || !bytes.Equal(ev.Data, params) {
		return d.diverge(id, ev.Describe(), asked)
	}
	recordedOK := ev.Outcome != journal.CallDenied
	if recordedOK != (authErr == nil) {
		now := "allowed by this sandbox's capabilities"
		if authErr != nil {
			now = "refused by this sandbox's capabilities: " + authErr.Error()
		}
		was := "allowed"
		if !recordedOK {
			was = "refused by the capabilities"
		}
		return d.diverge(id, ev.Describe()+" "+was, asked+", "+now)
	}
	// A recorded decision of an approver stands (a resumed token's
	// calls need no require_approval from the resuming sandbox); a call
	// that now needs approval and was recorded without one diverges:
	// the capabilities may narrow a replay, never widen it.
	recordedApproval := ev.Outcome == journal.CallApproved || ev.Outcome == journal.CallRefused
	if authErr == nil && needs && !recordedApproval && ev.Outcome != journal.CallNoApprover {
		return d.diverge(id, fmt.Sprintf("%s (approval needed: %v)", ev.Describe(), recordedApproval), fmt.Sprintf("%s (approval needed: %v)", asked, needs))
	}
	d.rec.Add(ev)
	switch ev.Outcome {
	case journal.CallDenied:
		return authErr
	case journal.CallRefused:
		return errApprovalRefused(method)
	case journal.CallNoApprover:
		return errNoApprover(method)
	}
	return nil
}

// replayedRequest registers an allowed request during a replay as a live
// run registers one for the driver, without handing it to the driver: its
// answer comes from the journal. It reports false when the run is live.
func (p *proc) replayedRequest(id int64, req wire.ToolRequest) bool {
	r := p.run
	d := r.dur
	if !d.replaying() {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	shown, cut := preview(req.Params)
	r.calls = append(r.calls, wire.ToolCall{ID: id, Method: req.Method, Params: shown, ParamsTruncated: cut})
	r.callIdx[id] = len(r.calls) - 1
	r.callStart[id] = time.Now()
	r.owner[id] = p
	p.pending[id] = true
	d.replayed[id] = req
	return true
}

// waitJournaled is the tool_wait host function of a run that may keep a
// journal: live, it waits and journals what the script received; in a
// replay it gives the journal's answer (or timeout) at once.
func (p *proc) waitJournaled(timeoutMS int64) (int32, error) {
	r := p.run
	d := r.dur
	if !d.journaled() {
		return p.wait(timeoutMS)
	}
	r.mu.Lock()
	idle := len(p.answers) == 0 && len(p.pending) == 0
	r.mu.Unlock()
	if d.replaying() {
		if idle {
			if timeoutMS < 0 {
				return -1, nil
			}
			ev, err := d.next(fmt.Sprintf("sleep(%d ms)", timeoutMS), journal.EvSleep)
			if err != nil {
				return 0, err
			}
			if ev != nil {
				if int64(ev.N) != timeoutMS {
					return 0, d.diverge(d.calls, ev.Describe(), fmt.Sprintf("sleep(%d ms)", timeoutMS))
				}
				d.rec.Add(ev)
				return 0, nil
			}
		} else {
			ev, err := d.next("the answer to a tool call", journal.EvAnswer, journal.EvNoAnswer)
			if err != nil {
				return 0, err
			}
			if ev != nil {
				return d.deliver(p, ev)
			}
		}
	}
	n, err := p.wait(timeoutMS)
	if err != nil {
		return n, err
	}
	switch {
	case n > 0:
		d.rec.Add(&journal.Event{Kind: journal.EvAnswer, Parts: p.taken})
	case n == 0 && idle:
		d.rec.Add(&journal.Event{Kind: journal.EvSleep, N: uint64(timeoutMS)})
	case n == 0:
		d.rec.Add(&journal.Event{Kind: journal.EvNoAnswer})
	}
	return n, nil
}

// deliver hands the script a recorded answer (or the recorded timeout).
func (d *durableRun) deliver(p *proc, ev *journal.Event) (int32, error) {
	r := d.r
	if ev.Kind == journal.EvNoAnswer {
		d.rec.Add(ev)
		return 0, nil
	}
	h, result, _ := journal.SplitFrame(ev.Data)
	r.mu.Lock()
	found := false
	// A host-decided answer (a refusal) waits in the process's answers.
	for i, a := range p.answers {
		if a.ID == h.ID {
			p.answers = append(p.answers[:i], p.answers[i+1:]...)
			found = true
			break
		}
	}
	if !found && r.owner[h.ID] == p {
		r.forgetRequest(p, h.ID)
		a := wire.ToolAnswer{ID: h.ID, OK: h.OK, Code: h.Code, Error: h.Error}
		if h.OK {
			a.Result = json.RawMessage(result)
		}
		r.record(h.ID, a)
		delete(d.replayed, h.ID)
		found = true
	}
	r.mu.Unlock()
	if !found {
		return 0, d.diverge(d.calls, ev.Describe(), "an answer to one of this process's own tool calls")
	}
	d.rec.Add(ev)
	p.taken = [][]byte{ev.Data}
	return int32(len(ev.Data)), nil
}

// sleepJournaled is the sleep host function of a run that may keep a
// journal: a replay does not sleep (the clock the script reads next is
// the journal's anyway).
func (p *proc) sleepJournaled(ms int64) error {
	r := p.run
	d := r.dur
	if !d.journaled() {
		return r.sleep(time.Duration(ms) * time.Millisecond)
	}
	asked := fmt.Sprintf("sleep(%d ms)", ms)
	ev, err := d.next(asked, journal.EvSleep)
	if err != nil {
		return err
	}
	if ev != nil {
		if int64(ev.N) != ms {
			return d.diverge(d.calls, ev.Describe(), asked)
		}
		d.rec.Add(ev)
		return nil
	}
	if err := r.sleep(time.Duration(ms) * time.Millisecond); err != nil {
		return err
	}
	d.rec.Add(&journal.Event{Kind: journal.EvSleep, N: uint64(ms)})
	return nil
}

// reserveJournaled is the disk_reserve host function of a run that may
// keep a journal: the quota's answer depends on timing (it re-measures
// now and then), so it is an input like the others.
func (p *proc) reserveJournaled(n int64) (granted bool, err error) {
	r := p.run
	d := r.dur
	if !d.journaled() {
		return r.sb.disk.charge(n), nil
	}
	asked := fmt.Sprintf("disk_reserve(%d bytes)", n)
	ev, err := d.next(asked, journal.EvDisk)
	if err != nil {
		return false, err
	}
	if ev != nil {
		if int64(ev.N) != n {
			return false, d.diverge(d.calls, ev.Describe(), asked)
		}
		d.rec.Add(ev)
		return ev.Outcome == 0, nil
	}
	granted = r.sb.disk.charge(n)
	refused := byte(0)
	if !granted {
		refused = 1
	}
	d.rec.Add(&journal.Event{Kind: journal.EvDisk, N: uint64(n), Outcome: refused})
	return granted, nil
}
