package host

import (
	"strings"
	"testing"
	"time"
)

// TestKeepState checks that with Config.KeepState the instance a run used
// is the next run's (the test guest's counter, a package variable, goes
// on counting), that stopping a run discards it with a note, and that
// ResetState starts fresh.
func TestKeepState(t *testing.T) {
	tests := []struct {
		name  string
		steps []struct{ code, stdout string }
		// between runs before the last step
		before func(sb *Sandbox)
		reset  bool // the run before the last step reports StateReset
	}{
		{name: "the instance is kept", steps: []struct{ code, stdout string }{
			{"counter", "1\n"}, {"counter", "2\n"}, {"echo x", "x\n"}, {"counter", "3\n"},
		}},
		{name: "a timeout discards it", reset: true, steps: []struct{ code, stdout string }{
			{"counter", "1\n"}, {"counter", "2\n"}, {"spin", ""}, {"counter", "1\n"},
		}},
		{name: "ResetState discards it", before: func(sb *Sandbox) { sb.ResetState() }, steps: []struct{ code, stdout string }{
			{"counter", "1\n"}, {"counter", "2\n"}, {"counter", "1\n"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sb, err := NewSandbox(testSnapGuest, Config{KeepState: true, Limits: Limits{Timeout: 500 * time.Millisecond}})
			if err != nil {
				t.Fatal(err)
			}
			defer sb.Close()
			for i, st := range tc.steps {
				last := i == len(tc.steps)-1
				if last && tc.before != nil {
					tc.before(sb)
				}
				res := run(t, sb, st.code, nil)
				if res.Stdout != st.stdout {
					t.Fatalf("step %d %q: stdout %q, want %q (%+v)", i, st.code, res.Stdout, st.stdout, res)
				}
				if i == len(tc.steps)-2 && res.StateReset != tc.reset {
					t.Fatalf("step %d %q: StateReset %v, want %v", i, st.code, res.StateReset, tc.reset)
				}
				if res.StateReset && !strings.Contains(res.Stderr, "[keep_state] the session's state was discarded because it timed out") {
					t.Fatalf("step %d: no note on stderr: %q", i, res.Stderr)
				}
				if !tc.reset && res.StateReset {
					t.Fatalf("step %d %q: state reset: %+v", i, st.code, res)
				}
			}
		})
	}
}

// TestWithoutKeepStateEveryRunIsFresh is the contrast: the same runs
// without KeepState each start from the snapshot.
func TestWithoutKeepStateEveryRunIsFresh(t *testing.T) {
	sb := newSnapSandbox(t, Limits{})
	for i := 0; i < 3; i++ {
		if res := run(t, sb, "counter", nil); res.Stdout != "1\n" || res.StateReset {
			t.Fatalf("run %d: %+v", i, res)
		}
	}
}

// newKeepSandbox makes a sandbox of the snapshot test guest that keeps
// state, closed when the test ends.
func newKeepSandbox(t *testing.T, cfg Config) *Sandbox {
	t.Helper()
	cfg.KeepState = true
	sb, err := NewSandbox(testSnapGuest, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

// countIs runs the test guest's counter and checks what it printed.
func countIs(t *testing.T, sb *Sandbox, want string) {
	t.Helper()
	if res := run(t, sb, "counter", nil); res.Stdout != want {
		t.Fatalf("counter: %q, want %q (%+v)", res.Stdout, want, res)
	}
}

// TestLiveSessionTravels checks that a kept instance's state goes with a
// snapshot into another sandbox and with a fork (the test guest's counter
// goes on from where it was), that each copy is then independent, and
// that sandboxes which cannot take the state refuse it, changing nothing.
func TestLiveSessionTravels(t *testing.T) {
	newKeep, count := newKeepSandbox, countIs
	src := newKeep(t, Config{})
	count(t, src, "1\n")
	count(t, src, "2\n")
	for _, compress := range []bool{false, true} {
		data, err := src.Snapshot(SnapshotOptions{Compress: compress})
		if err != nil {
			t.Fatal(err)
		}
		dst := newKeep(t, Config{})
		if err := dst.Restore(data); err != nil {
			t.Fatal(err)
		}
		count(t, dst, "3\n")
		count(t, dst, "4\n")

		// Without keep_state the snapshot is refused, before its files
		// are written.
		plain := newSnapSandbox(t, Limits{})
		if err := plain.Restore(data); err == nil || !strings.Contains(err.Error(), "keep_state=True") {
			t.Fatalf("restore into a sandbox without keep_state: %v", err)
		}
		count(t, plain, "1\n")
	}
	count(t, src, "3\n") // the copies did not touch the original

	fork := newKeep(t, Config{})
	if err := src.CopyTo(fork); err != nil {
		t.Fatal(err)
	}
	count(t, fork, "4\n")
	count(t, fork, "5\n")
	count(t, src, "4\n")

	// A snapshot without a session restores fresh interpreters.
	empty := newKeep(t, Config{})
	data, err := empty.Snapshot(SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Restore(data); err != nil {
		t.Fatal(err)
	}
	count(t, src, "1\n")
}

// TestJournaledRunsInAKeptSession checks that a recorded run in a kept
// session starts from the session and leaves it for the next run, that
// its journal replays in another kept sandbox from the same state (the
// start snapshot holds the session), and that the combinations that
// cannot hold are refused by name.
func TestJournaledRunsInAKeptSession(t *testing.T) {
	newKeep := func(t *testing.T) *Sandbox { return newKeepSandbox(t, Config{}) }
	count := countIs
	sb := newKeep(t)
	count(t, sb, "1\n")
	count(t, sb, "2\n")
	r := startDurable(t, sb, RunOptions{Language: "shell", Code: "counter", Record: true})
	if res := driveAll(t, r, nil, nil); res.Stdout != "3\n" {
		t.Fatalf("recorded run: %+v", res)
	}
	data := journalOf(t, r)
	count(t, sb, "4\n") // the session goes on after the journaled run

	j := decode(t, data)
	if !j.Input.KeepState {
		t.Fatal("the journal does not say it was recorded in a kept session")
	}
	again := newKeep(t)
	if err := again.Restore(j.Snapshot); err != nil {
		t.Fatal(err)
	}
	count(t, again, "3\n") // the start snapshot holds the session as it was
	again = newKeep(t)
	if err := again.Restore(j.Snapshot); err != nil {
		t.Fatal(err)
	}
	again.ResetState() // the replay itself puts the journal's session back
	r2 := startDurable(t, again, RunOptions{Replay: j})
	if res := driveAll(t, r2, nil, nil); res.Stdout != "3\n" {
		t.Fatalf("replayed run: %+v", res)
	}
	count(t, again, "4\n")

	plain := newSnapSandbox(t, Limits{})
	if err := plain.Restore(j.Snapshot); err == nil || !strings.Contains(err.Error(), "keep_state=True") {
		t.Fatalf("restoring a kept session's start snapshot without keep_state: %v", err)
	}
	if _, err := plain.StartDurable(RunOptions{Replay: decode(t, data)}); err == nil || !strings.Contains(err.Error(), "keep_state=True") {
		t.Fatalf("replay outside a kept session: %v", err)
	}
	if _, err := sb.StartDurable(RunOptions{Language: "shell", Code: "counter", Record: true, RecordStart: StartDigest}); err == nil || !strings.Contains(err.Error(), `record="digest"`) {
		t.Fatalf("a digest-only journal of a kept session: %v", err)
	}
	count(t, sb, "5\n")
}

// TestShedKeepsTheSession: shedding a kept instance's image pages (an
// idle session, workerpool's shed time) drops them and keeps its state.
func TestShedKeepsTheSession(t *testing.T) {
	sb := newKeepSandbox(t, Config{})
	countIs(t, sb, "1\n")
	countIs(t, sb, "2\n")
	sb.spareMu.Lock()
	in := sb.kept["shell"]
	if in == nil {
		sb.spareMu.Unlock()
		t.Fatal("no kept instance after a run")
	}
	mem := in.mem.UnsafeData(in.store)
	before, _ := mappedImagePages(mem)
	spareHolder{sb}.ShedSpare()
	after, ok := mappedImagePages(mem)
	sb.spareMu.Unlock()
	if len(before) == 0 || !ok || len(after) != 0 {
		t.Fatalf("image page ranges before %d, after %d (ok %v): want some, then none", len(before), len(after), ok)
	}
	countIs(t, sb, "3\n")
}
