package host

// Durable runs: a run that keeps a journal of its inputs (record), one
// that re-creates its inputs from a journal (replay; see replay_run.go),
// and approval of tool calls (approval.go). A durable run's guests get
// their clock, random bytes, sleeps (poll_oneoff), file times and
// directory listings through host functions of our own (replay_wasi.go),
// so those are journaled as well; runs that are not durable keep
// wasmtime's own and pay nothing.

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"

	"amlasandbox/gocore/journal"
	"amlasandbox/gocore/snapshot"
	"amlasandbox/gocore/wire"
)

// Approval modes: what a run does with a call that passed its capability
// check and requires approval.
const (
	// ApprovalRefuse: nobody can approve; the call fails with a
	// permission error that says so.
	ApprovalRefuse = ""
	// ApprovalAsk: the driver is asked (an EventApproval) and answers
	// with Run.Approve; the script waits meanwhile.
	ApprovalAsk = "ask"
	// ApprovalPause: the run stops at the call; its journal is a token
	// from which the run continues once the call is decided
	// (RunOptions.Replay with Approve). Needs Record.
	ApprovalPause = "pause"
)

// What a replay does when the script asks for more than the journal
// holds.
const (
	ThenError = "error" // a ReplayDivergence
	ThenLive  = "live"  // continue with live inputs
)

// Error kinds of durable runs (wire.Result.ErrorKind).
const (
	ErrKindApproval   = "approval_required"
	ErrKindDivergence = "replay_divergence"
)

// EventApproval asks the driver to approve tool call ID (Method, Params)
// with Run.Approve.
const EventApproval = "approval"

// Start-state forms of a recording.
const (
	StartSnapshot = "snapshot" // the journal holds a snapshot of the files
	StartDigest   = "digest"   // only the snapshot's files digest
)

// RunOptions describe a run; the durable ones make Start keep or follow
// a journal.
type RunOptions struct {
	Language, Code, Stdin string
	HasStdin, Stream      bool

	// Record keeps a journal of the run's inputs (Run.Journal).
	Record bool
	// RecordStart is StartSnapshot (default) or StartDigest.
	RecordStart string
	// Replay re-runs a journal's run: its code and inputs; Language,
	// Code and Stdin are ignored. The sandbox's files must be the
	// journal's start state.
	Replay *Journal
	// Then is ThenError (default) or ThenLive.
	Then string
	// Approve decides a paused journal's pending call (nil: decide it as
	// Approvals says, as a live run would).
	Approve *bool
	// Approvals is ApprovalRefuse, ApprovalAsk or ApprovalPause.
	Approvals string
	// Packages are the Python packages the run's guests see, with a digest
	// of each one's contents: recorded in the journal, so a replay can
	// check it is given the same ones (a replay keeps the journal's).
	Packages []PackageDigest
}

// Divergence is how a replay left its journal.
type Divergence struct {
	// Call is the id of the tool call concerned (calls are numbered from
	// 1 in the order the script made them); for another input, the
	// number of tool calls made before it.
	Call int64 `json:"call"`
	// Event is the index of the journal's input where they parted.
	Event    int    `json:"event"`
	Recorded string `json:"recorded"`
	Asked    string `json:"asked"`
}

func (d *Divergence) Error() string {
	return fmt.Sprintf("Replay diverged at tool call %d (input %d of the journal): recorded %s; the script asked for %s",
		d.Call, d.Event, d.Recorded, d.Asked)
}

// durableRun is a run's journal state. Its host functions run one at a
// time on the run's goroutine (processes take turns); the driver's
// threads touch only asks, under the run's mu.
type durableRun struct {
	r         *Run
	rec       *journal.EventWriter // the inputs as received (nil: approval only)
	play      *journal.EventReader // the journal being replayed (nil: live)
	src       *Journal
	then      string
	approve   *bool
	approvals string
	// live: the replay reached the journal's end and continues live.
	live bool
	// decidePending: the call being decided is the paused journal's
	// pending call, which approve decides.
	decidePending bool
	head          Journal // the journal being written: input, limits, start
	calls         int64   // tool calls made so far
	procs         []*proc // the processes running, outermost first
	// replayed are the requests registered during the replay and not yet
	// answered: what a live continuation must still send to the driver.
	replayed map[int64]wire.ToolRequest
	asks     map[int64]*approvalWait // guarded by r.mu

	// The clocks as the guests saw them: the last value of each, and, once
	// a replay has gone live, how far the host's monotonic clocks are
	// behind the journal's (they are shifted forward so the guests' time
	// never runs backwards; see liveClock).
	clockLast   [4]uint64
	clockOffset [4]uint64
	clockSet    [4]bool

	divergence *Divergence
	paused     *PendingCall
	encoded    []byte
	encodeOnce sync.Once
}

// journaled reports whether the run's inputs go through the journal (and
// so its instances need the journaling WASI functions).
func (d *durableRun) journaled() bool { return d != nil && d.rec != nil }

// replaying reports whether inputs still come from the journal.
func (d *durableRun) replaying() bool { return d != nil && d.play != nil && !d.live }

// StartDurable begins a run as o describes. A replay runs the journal's
// code with the journal's input; this sandbox's limits that shape what
// the guests do (memory_limit, max_output, max call stack, max tool
// calls) must be the journal's, and its files must be the journal's
// start state (restore the journal's snapshot first).
func (s *Sandbox) StartDurable(o RunOptions) (*Run, error) {
	in := wire.Input{Language: o.Language, Code: o.Code, Stdin: o.Stdin, HasStdin: o.HasStdin,
		Tools: s.cfg.Tools, MaxCallStack: s.cfg.Limits.MaxCallStack}
	switch o.Then {
	case "", ThenError, ThenLive:
	default:
		return nil, fmt.Errorf("start: then must be %q or %q, got %q", ThenError, ThenLive, o.Then)
	}
	switch o.Approvals {
	case ApprovalRefuse, ApprovalAsk:
	case ApprovalPause:
		if !o.Record && o.Replay == nil {
			return nil, errors.New("start: pausing for approval needs a journal (Record)")
		}
	default:
		return nil, fmt.Errorf("start: approvals must be %q, %q or %q, got %q", ApprovalRefuse, ApprovalAsk, ApprovalPause, o.Approvals)
	}
	switch o.RecordStart {
	case "", StartSnapshot, StartDigest:
	default:
		return nil, fmt.Errorf("start: the start state must be %q or %q, got %q", StartSnapshot, StartDigest, o.RecordStart)
	}
	if !o.Record && o.Replay == nil && o.Approvals == ApprovalRefuse {
		return s.start(in, o.Stream, nil)
	}
	d := &durableRun{then: o.Then, approve: o.Approve, approvals: o.Approvals,
		replayed: map[int64]wire.ToolRequest{}, asks: map[int64]*approvalWait{}}
	if o.Record || o.Replay != nil {
		d.rec = &journal.EventWriter{}
	}
	if j := o.Replay; j != nil {
		if err := s.checkReplayLimits(j); err != nil {
			return nil, err
		}
		if o.Approve != nil && j.End != EndPaused {
			return nil, errors.New("start: approve decides a paused run's pending call, and this journal's run did not pause")
		}
		in = j.Input
		d.src = j
		d.play = journal.NewEventReader(j.Events)
	}
	return s.start(in, o.Stream, func(r *Run) error {
		d.r = r
		r.dur = d
		return d.begin(s, o)
	})
}

// checkReplayLimits refuses a replay under limits that change what the
// guests do.
func (s *Sandbox) checkReplayLimits(j *Journal) error {
	have, want := s.cfg.Limits, j.Limits
	for _, c := range []struct {
		name       string
		have, want int64
	}{
		{"memory_limit", have.MemoryLimit, want.MemoryLimit},
		{"max_output_size", have.MaxOutput, want.MaxOutput},
		{"max call stack", int64(have.MaxCallStack), int64(want.MaxCallStack)},
		{"max_steps (tool calls per run)", int64(have.MaxToolCalls), int64(want.MaxToolCalls)},
	} {
		if c.have != c.want {
			return fmt.Errorf("replay: the journal was recorded with %s=%d, and this sandbox has %d; replay with the same value", c.name, c.want, c.have)
		}
	}
	return nil
}

// begin fills the journal's head: the input, the limits and the start
// state. s.mu is held and no run is in progress.
func (d *durableRun) begin(s *Sandbox, o RunOptions) error {
	if d.rec == nil {
		return nil
	}
	d.head = Journal{Input: d.r.input, Limits: journal.Limits(s.cfg.Limits), Packages: o.Packages}
	if j := d.src; j != nil {
		if j.Input.KeepState != s.cfg.KeepState {
			return fmt.Errorf("replay: the journal was recorded in a sandbox made with keep_state=%s; replay it in one made the same way", pyBool(j.Input.KeepState))
		}
		// The files must be the journal's start state.
		have, err := s.knownOrWalkDigest()
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		if have != j.FilesDigest {
			return fmt.Errorf("replay: this sandbox's files are not the journal's start state (files digest %x..., the journal's %x...); restore the journal's start snapshot first", have[:8], j.FilesDigest[:8])
		}
		if s.cfg.KeepState {
			// The interpreters start as the recorded run's did.
			if err := s.liveFromJournal(j.Snapshot); err != nil {
				return fmt.Errorf("replay: %w", err)
			}
		}
		d.head.Snapshot, d.head.FilesDigest, d.head.Budgets = j.Snapshot, j.FilesDigest, j.Budgets
		d.head.Packages = j.Packages
		d.head.Limits = j.Limits
		return nil
	}
	if b, ok := s.budgetsLeft(); ok {
		d.head.Budgets = b
	}
	if o.RecordStart == StartDigest {
		if s.hasKept() {
			return errors.New(`record: record="digest" keeps only the files' digest, not the state of this sandbox's kept interpreters (keep_state): record with record=True`)
		}
		dg, err := s.knownOrWalkDigest()
		if err != nil {
			return fmt.Errorf("record: %w", err)
		}
		d.head.FilesDigest = dg
		return nil
	}
	// Stored as they are: a run pays for reading and hashing its files
	// once, not for compressing them (callers compress journals they keep).
	snap, err := s.snapshotLocked(SnapshotOptions{})
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	ps, err := snapshot.Parse(snap, s.durableKey())
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	d.head.Snapshot, d.head.FilesDigest = snap, ps.Digest
	return nil
}

// knownDigests holds, per sandbox, the files digest a restore or fork
// just produced, so a replay that follows it does not hash the files
// again. Any run forgets it (forgetDigest).
var knownDigests sync.Map // *Sandbox -> [32]byte

func (s *Sandbox) knownOrWalkDigest() ([32]byte, error) {
	if v, ok := knownDigests.Load(s); ok {
		return v.([32]byte), nil
	}
	return filesDigest(s.Root())
}

func (s *Sandbox) noteDigest(d [32]byte) { knownDigests.Store(s, d) }

// forgetDigest is called as every run starts: it may change the files.
func (s *Sandbox) forgetDigest() { knownDigests.Delete(s) }

// Journal returns the run's journal once the run has ended: its input,
// start state, every input its guests received, and how it ended (for a
// run paused for approval: the pending call, so the journal is the token
// to continue from). It is an error for a run that kept none.
func (r *Run) Journal() ([]byte, error) {
	d := r.dur
	if !d.journaled() {
		return nil, errors.New("journal: this run kept no journal (record it)")
	}
	r.WaitDone()
	d.encodeOnce.Do(func() {
		j := d.head
		j.Events = d.rec.Bytes()
		r.mu.Lock()
		res := r.result
		r.mu.Unlock()
		j.ExitCode, j.ErrorKind, j.Error = res.ExitCode, res.ErrorKind, res.Error
		switch reason := r.ctl.reason(); {
		case d.paused != nil:
			j.End, j.Pending = EndPaused, d.paused
		case reason != stopNone:
			j.End, j.Reason = EndStopped, journal.StopReason(reason)
		default:
			j.End = EndFinished
		}
		d.encoded = j.Encode(r.sb.durableKey())
	})
	return d.encoded, nil
}

// Divergence is how the replay left its journal, or nil.
func (r *Run) Divergence() *Divergence {
	if r.dur == nil {
		return nil
	}
	r.WaitDone()
	return r.dur.divergence
}

// Paused is the call a run stopped at for approval, or nil.
func (r *Run) Paused() *PendingCall {
	if r.dur == nil {
		return nil
	}
	r.WaitDone()
	return r.dur.paused
}

// guestDigests caches the SHA-256 of guest module files by path.
var guestDigests sync.Map // path -> guestDigest

type guestDigest struct {
	size, mtime int64
	sum         [32]byte
}

// digestOf is the SHA-256 of a guest module's wasm file.
func digestOf(g *GuestModule) ([32]byte, error) {
	st, err := os.Stat(g.WasmPath)
	if err != nil {
		return [32]byte{}, err
	}
	if v, ok := guestDigests.Load(g.WasmPath); ok {
		if gd := v.(guestDigest); gd.size == st.Size() && gd.mtime == st.ModTime().UnixNano() {
			return gd.sum, nil
		}
	}
	b, err := os.ReadFile(g.WasmPath)
	if err != nil {
		return [32]byte{}, err
	}
	gd := guestDigest{size: st.Size(), mtime: st.ModTime().UnixNano(), sum: sha256.Sum256(b)}
	guestDigests.Store(g.WasmPath, gd)
	return gd.sum, nil
}

// enterDurable is called as each process of a run starts on its
// instance: the process event (which guest build runs what code) is
// journaled or checked, and the process joins the run's stack. leave is
// called as it ends.
func (r *Run) enterDurable(p *proc, inst *instance, in wire.Input) (leave func(), err error) {
	d := r.dur
	p.shim = inst.shim
	if d == nil {
		return func() {}, nil
	}
	d.procs = append(d.procs, p)
	leave = func() { d.procs = d.procs[:len(d.procs)-1] }
	if !d.journaled() {
		return leave, nil
	}
	if inst.shim == nil {
		return leave, errors.New("a journaled run's instance lacks the journaling WASI functions")
	}
	gd, err := digestOf(inst.g)
	if err != nil {
		return leave, fmt.Errorf("hashing the guest module: %w", err)
	}
	code := sha256.Sum256([]byte(in.Code + "\x00" + in.Stdin))
	ev := &journal.Event{Kind: journal.EvProcess, Text: in.Language, Digest: append(gd[:], code[:8]...)}
	if d.replaying() {
		got, err := d.next(ev.Describe(), journal.EvProcess)
		if err != nil {
			return leave, err
		}
		if got != nil && (got.Text != ev.Text || string(got.Digest) != string(ev.Digest)) {
			why := ev.Describe()
			if got.Text == ev.Text && string(got.Digest[:32]) != string(gd[:]) {
				why = fmt.Sprintf("a %s process on another build of its guest (module sha256 %x..., the journal's %x...)", in.Language, gd[:8], got.Digest[:8])
			}
			return leave, d.diverge(d.calls, got.Describe(), why)
		}
	}
	d.rec.Add(ev)
	return leave, nil
}

// jsonFrame frames an answer as tool_take does.
func jsonFrame(a wire.ToolAnswer) []byte {
	header, _ := json.Marshal(wire.AnswerHeader{ID: a.ID, OK: a.OK, Code: a.Code, Error: a.Error})
	data := make([]byte, 0, len(header)+1+len(a.Result))
	return append(append(append(data, header...), '\n'), a.Result...)
}

// pyBool spells b as Python does, for messages about Python arguments.
func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}
