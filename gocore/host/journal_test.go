package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"amlasandbox/gocore/journal"
	"amlasandbox/gocore/wire"
)

// driveAll answers requests with answer and approvals with approve;
// requests issued together are answered in reverse order (as concurrent
// handlers may finish), which the journal must capture.
func driveAll(t *testing.T, r *Run, answer func(wire.Event) (string, error), approve func(wire.Event) bool) wire.Result {
	t.Helper()
	var batch []wire.Event
	flush := func() {
		for i := len(batch) - 1; i >= 0; i-- {
			ev := batch[i]
			res, err := answer(ev)
			if err != nil {
				r.ResumeError(ev.ID, wire.CodeInternal, err.Error())
			} else if err := r.Resume(ev.ID, res); err != nil {
				t.Fatal(err)
			}
		}
		batch = batch[:0]
	}
	for {
		ev := r.Step(20*time.Millisecond, true)
		switch ev.Kind {
		case wire.EventDone:
			return *ev.Result
		case wire.EventRequest:
			if answer == nil {
				t.Fatalf("a request reached the driver: %s %s", ev.Method, ev.Params)
			}
			batch = append(batch, ev)
			continue
		case EventApproval:
			if approve == nil {
				t.Fatalf("an approval reached the driver: %s", ev.Method)
			}
			if err := r.Approve(ev.ID, approve(ev)); err != nil {
				t.Fatal(err)
			}
		}
		flush()
	}
}

func startDurable(t *testing.T, sb *Sandbox, o RunOptions) *Run {
	t.Helper()
	r, err := sb.StartDurable(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func journalOf(t *testing.T, r *Run) []byte {
	t.Helper()
	j, err := r.Journal()
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func decode(t *testing.T, b []byte) *Journal {
	t.Helper()
	j, err := DecodeJournal(b, testKey())
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// counting answers every call with a JSON number that counts the calls.
type counting struct{ n int }

func (c *counting) answer(ev wire.Event) (string, error) {
	c.n++
	if strings.Contains(string(ev.Params), "fail") {
		return "", errors.New("handler failed")
	}
	return fmt.Sprintf(`{"n": %d, "method": %q}`, c.n, ev.Method), nil
}

func TestRecordAndReplayTestGuest(t *testing.T) {
	tests := []struct{ name, code string }{
		{"calls answered out of order", "batch"},
		{"one call", `call mcp:x {"a":1}`},
		{"a failing call", `call mcp:x {"fail":1}`},
		{"sleep", "sleep 30"},
		{"files", "write /workspace/a.txt hello"},
		{"child process", `spawn call mcp:child {"c":2}`},
		{"nested children", "nest 0"},
	}
	for _, guest := range []*GuestModule{testGuest, testSnapGuest} {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				sb, err := NewSandbox(guest, Config{})
				if err != nil {
					t.Fatal(err)
				}
				defer sb.Close()
				c := &counting{}
				r := startDurable(t, sb, RunOptions{Language: "shell", Code: tt.code, Record: true})
				want := driveAll(t, r, c.answer, nil)
				jb := journalOf(t, r)
				j := decode(t, jb)
				if j.End != EndFinished || j.Input.Code != tt.code {
					t.Fatalf("journal end %q code %q", j.End, j.Input.Code)
				}
				// Replay in a fresh sandbox restored from the journal's start.
				sb2, err := NewSandbox(guest, Config{})
				if err != nil {
					t.Fatal(err)
				}
				defer sb2.Close()
				if err := sb2.Restore(j.Snapshot); err != nil {
					t.Fatal(err)
				}
				r2 := startDurable(t, sb2, RunOptions{Replay: j})
				got := driveAll(t, r2, nil, nil)
				if got.Stdout != want.Stdout || got.Stderr != want.Stderr || got.ExitCode != want.ExitCode || got.ErrorKind != want.ErrorKind {
					t.Fatalf("replay differs:\n got %+v\nwant %+v", got, want)
				}
				if d := r2.Divergence(); d != nil {
					t.Fatalf("divergence: %v", d)
				}
				// The replay's own journal is the same run.
				if j2 := decode(t, journalOf(t, r2)); !bytes.Equal(j2.Events, j.Events) {
					t.Fatal("the replay's journal differs from the recorded one")
				}
				if !equalTrees(readTree(t, sb.Root()), readTree(t, sb2.Root())) && tt.name != "files" {
					t.Fatal("files differ after the replay")
				}
			})
		}
	}
}

// rewriteEvents re-encodes a journal's events through edit, which may
// change an event or drop it (returning nil).
func rewriteEvents(t *testing.T, j *Journal, edit func(i int, e *journal.Event) *journal.Event) *Journal {
	t.Helper()
	out := *j
	er, w := journal.NewEventReader(j.Events), &journal.EventWriter{}
	for i := 0; !er.Done(); i++ {
		e, err := er.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e = edit(i, e); e != nil {
			w.Add(e)
		}
	}
	out.Events = w.Bytes()
	return decode(t, out.Encode(testKey()))
}

func TestReplayDivergence(t *testing.T) {
	sb := newTestSandbox(t, Limits{}, nil)
	r := startDurable(t, sb, RunOptions{Language: "shell", Code: "batch", Record: true})
	recorded := driveAll(t, r, (&counting{}).answer, nil)
	j := decode(t, journalOf(t, r))
	replay := func(t *testing.T, j *Journal, auth Authorizer, then string, answer func(wire.Event) (string, error)) (*Run, wire.Result) {
		sb := newTestSandbox(t, Limits{}, auth)
		if err := sb.Restore(j.Snapshot); err != nil {
			t.Fatal(err)
		}
		r := startDurable(t, sb, RunOptions{Replay: j, Then: then})
		return r, driveAll(t, r, answer, nil)
	}
	t.Run("other params", func(t *testing.T) {
		edited := rewriteEvents(t, j, func(_ int, e *journal.Event) *journal.Event {
			if e.Kind == journal.EvCall && e.N == 3 {
				e.Data = []byte(`{"i":99}`)
			}
			return e
		})
		r, res := replay(t, edited, nil, "", nil)
		d := r.Divergence()
		if d == nil || res.ErrorKind != ErrKindDivergence || d.Call != 3 {
			t.Fatalf("divergence %+v, result %+v", d, res)
		}
		if !strings.Contains(d.Recorded, `mcp:t {"i":99}`) || !strings.Contains(d.Asked, `mcp:t {"i":2}`) {
			t.Fatalf("divergence %+v", d)
		}
		if !strings.Contains(res.Error, "tool call 3") {
			t.Fatalf("error text %q", res.Error)
		}
	})
	t.Run("other method", func(t *testing.T) {
		edited := rewriteEvents(t, j, func(_ int, e *journal.Event) *journal.Event {
			if e.Kind == journal.EvCall && e.N == 1 {
				e.Text = "mcp:other"
			}
			return e
		})
		r, _ := replay(t, edited, nil, "", nil)
		if d := r.Divergence(); d == nil || d.Call != 1 || !strings.Contains(d.Recorded, "mcp:other") || !strings.Contains(d.Asked, "mcp:t") {
			t.Fatalf("divergence %+v", d)
		}
	})
	t.Run("refused now", func(t *testing.T) {
		r, _ := replay(t, j, denyList{"mcp:t": "no more"}, "", nil)
		if d := r.Divergence(); d == nil || d.Call != 1 || !strings.Contains(d.Asked, "no more") {
			t.Fatalf("divergence %+v", d)
		}
	})
	t.Run("other code", func(t *testing.T) {
		other := *j
		other.Input.Code = `call mcp:t {}`
		r, _ := replay(t, &other, nil, "", nil)
		if d := r.Divergence(); d == nil || !strings.Contains(d.Asked, "a shell process") {
			t.Fatalf("divergence %+v", d)
		}
	})
	// A journal cut after the first call's event: more calls than recorded.
	firstCall := -1
	cut := func(t *testing.T) *Journal {
		return rewriteEvents(t, j, func(i int, e *journal.Event) *journal.Event {
			if e.Kind == journal.EvCall && firstCall < 0 {
				firstCall = i
			}
			if firstCall >= 0 && i > firstCall {
				return nil
			}
			return e
		})
	}
	t.Run("more calls than recorded", func(t *testing.T) {
		firstCall = -1
		r, _ := replay(t, cut(t), nil, "", nil)
		d := r.Divergence()
		if d == nil || d.Call != 2 || !strings.Contains(d.Recorded, "the journal ends here") || !strings.Contains(d.Asked, `mcp:t {"i":1}`) {
			t.Fatalf("divergence %+v", d)
		}
	})
	t.Run("then live", func(t *testing.T) {
		firstCall = -1
		var seen []string
		r, res := replay(t, cut(t), nil, ThenLive, func(ev wire.Event) (string, error) {
			seen = append(seen, string(ev.Params))
			return "0", nil
		})
		if r.Divergence() != nil || res.ErrorKind != "" {
			t.Fatalf("then=live: %+v %v", res, r.Divergence())
		}
		// Call 1 was recorded (its answer was not): it is sent live too,
		// as the journal never answered it.
		if len(seen) != 10 || len(strings.Fields(res.Stdout)) != 10 {
			t.Fatalf("then=live: handler saw %v; stdout %q (recorded %q)", seen, res.Stdout, recorded.Stdout)
		}
	})
}

func TestReplayNeedsTheStartState(t *testing.T) {
	sb := newTestSandbox(t, Limits{}, nil)
	writeTree(t, sb, map[string]string{"workspace/x": "1"})
	r := startDurable(t, sb, RunOptions{Language: "shell", Code: "read /workspace/x", Record: true})
	driveAll(t, r, nil, nil)
	j := decode(t, journalOf(t, r))
	sb2 := newTestSandbox(t, Limits{}, nil)
	if _, err := sb2.StartDurable(RunOptions{Replay: j}); err == nil || !strings.Contains(err.Error(), "not the journal's start state") {
		t.Fatalf("replay on other files: %v", err)
	}
	sb3 := newTestSandbox(t, Limits{MemoryLimit: 64 << 20}, nil)
	if _, err := sb3.StartDurable(RunOptions{Replay: j}); err == nil || !strings.Contains(err.Error(), "memory_limit") {
		t.Fatalf("replay under another memory_limit: %v", err)
	}
}

func TestApprovalAskAndPause(t *testing.T) {
	auth := approvalAuth{"mcp:pay": true}
	sb := newTestSandbox(t, Limits{}, auth)
	// Ask: the driver decides.
	for _, ok := range []bool{true, false} {
		c := &counting{}
		r := startDurable(t, sb, RunOptions{Language: "shell", Code: `call mcp:pay {"amount":5}`, Approvals: ApprovalAsk})
		res := driveAll(t, r, c.answer, func(wire.Event) bool { return ok })
		if ok && (c.n != 1 || !strings.HasPrefix(res.Stdout, "ok ")) {
			t.Fatalf("approved: %d calls, %+v", c.n, res)
		}
		if !ok && (c.n != 0 || !strings.Contains(res.Stdout, "was not approved")) {
			t.Fatalf("refused: %d calls, %+v", c.n, res)
		}
	}
	// Neither: refused with a message that says why.
	r := startDurable(t, sb, RunOptions{Language: "shell", Code: `call mcp:pay {"amount":5}`})
	if res := driveAll(t, r, nil, nil); !strings.Contains(res.Stdout, "requires approval") {
		t.Fatalf("no approver: %+v", res)
	}
	// Pause: the run stops with a token; resuming replays and continues,
	// and no call made before the pause runs again.
	nth := &nthApproval{n: 4}
	sbp := newTestSandbox(t, Limits{}, nth)
	c := &counting{}
	r = startDurable(t, sbp, RunOptions{Language: "shell", Code: "batch", Record: true, Approvals: ApprovalPause})
	res := driveAll(t, r, c.answer, nil)
	if res.ErrorKind != ErrKindApproval || r.Paused() == nil {
		t.Fatalf("pause: %+v", res)
	}
	if c.n != 3 {
		t.Fatalf("%d calls before the pause, want 3", c.n)
	}
	token := decode(t, journalOf(t, r))
	if token.End != EndPaused || token.Pending.Method != "mcp:t" || string(token.Pending.Params) != `{"i":3}` || len(token.Pending.Unreceived) != 3 {
		t.Fatalf("token: %+v", token.Pending)
	}
	for _, ok := range []bool{true, false} {
		sb2 := newTestSandbox(t, Limits{}, &nthApproval{n: 4})
		if err := sb2.Restore(token.Snapshot); err != nil {
			t.Fatal(err)
		}
		var seen []string
		r2 := startDurable(t, sb2, RunOptions{Replay: token, Approve: &ok, Then: ThenLive, Record: true, Approvals: ApprovalPause})
		res2 := driveAll(t, r2, func(ev wire.Event) (string, error) {
			seen = append(seen, string(ev.Params))
			return "1", nil
		}, nil)
		if d := r2.Divergence(); d != nil {
			t.Fatal(d)
		}
		want := []string{`{"i":4}`, `{"i":5}`, `{"i":6}`, `{"i":7}`, `{"i":8}`, `{"i":9}`}
		if ok {
			want = append([]string{`{"i":3}`}, want...)
		}
		if strings.Join(sortedCopy(seen), " ") != strings.Join(sortedCopy(want), " ") {
			t.Fatalf("approve=%v: the handler saw %v after resuming, want %v", ok, seen, want)
		}
		if res2.ErrorKind != "" || len(strings.Fields(res2.Stdout)) != 10 {
			t.Fatalf("resumed run: %+v", res2)
		}
		// The resumed run's journal replays whole, without the driver.
		full := decode(t, journalOf(t, r2))
		sb3 := newTestSandbox(t, Limits{}, &nthApproval{n: 4})
		if err := sb3.Restore(full.Snapshot); err != nil {
			t.Fatal(err)
		}
		r3 := startDurable(t, sb3, RunOptions{Replay: full})
		res3 := driveAll(t, r3, nil, nil)
		if res3.Stdout != res2.Stdout || r3.Divergence() != nil {
			t.Fatalf("replay of the resumed run: %+v %v", res3, r3.Divergence())
		}
	}
	// The token carries the call's need for approval: a sandbox whose
	// capabilities require none resumes it, and its decision applies.
	for _, ok := range []bool{true, false} {
		sb2 := newTestSandbox(t, Limits{}, nil)
		if err := sb2.Restore(token.Snapshot); err != nil {
			t.Fatal(err)
		}
		calls := 0
		r2 := startDurable(t, sb2, RunOptions{Replay: token, Approve: &ok, Then: ThenLive, Record: true, Approvals: ApprovalPause})
		res2 := driveAll(t, r2, func(wire.Event) (string, error) { calls++; return "1", nil }, nil)
		if d := r2.Divergence(); d != nil {
			t.Fatalf("approve=%v without require_approval: %v", ok, d)
		}
		if want := map[bool]int{true: 7, false: 6}[ok]; calls != want || res2.ErrorKind != "" {
			t.Fatalf("approve=%v without require_approval: %d calls (want %d), %+v", ok, calls, want, res2)
		}
	}
	// A replay of the token (no decision given) stops at the pending call
	// as the run did, even with an approver and then=live: nothing reaches
	// the driver (driveAll fails on any request or approval).
	for _, then := range []string{ThenError, ThenLive} {
		sb2 := newTestSandbox(t, Limits{}, &nthApproval{n: 4})
		if err := sb2.Restore(token.Snapshot); err != nil {
			t.Fatal(err)
		}
		r2 := startDurable(t, sb2, RunOptions{Replay: token, Then: then, Approvals: ApprovalAsk})
		res2 := driveAll(t, r2, nil, nil)
		if res2.ErrorKind != ErrKindApproval || r2.Divergence() != nil || r2.Paused() != nil {
			t.Fatalf("replay of a token with then=%q: %+v, divergence %v", then, res2, r2.Divergence())
		}
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// nthApproval allows every call; the n-th call needs approval.
type nthApproval struct {
	mu    sync.Mutex
	n, at int
}

func (a *nthApproval) Authorize(string, json.RawMessage) error { return nil }

func (a *nthApproval) AuthorizeCall(string, json.RawMessage) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.at++
	return a.at == a.n, nil
}

// approvalAuth allows every call; those named true need approval.
type approvalAuth map[string]bool

func (a approvalAuth) Authorize(string, json.RawMessage) error { return nil }

func (a approvalAuth) AuthorizeCall(method string, _ json.RawMessage) (bool, error) {
	return a[method], nil
}
