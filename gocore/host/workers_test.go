package host

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"amlasandbox/gocore/wire"
	"amlasandbox/gocore/workerpool"
)

// The worker threads themselves are tested in gocore/workerpool; these
// tests are of runs on them.

// TestPanicPreparingTheSpareIsSurvived: a panic in a run's follow-up (the
// reset of its instance, on the worker thread, after the result is out)
// neither ends the process nor leaves a broken spare for the next run.
func TestPanicPreparingTheSpareIsSurvived(t *testing.T) {
	sb := newTestSandbox(t, Limits{}, nil)
	spareHook = func() { panic("injected fault") }
	res := run(t, sb, "echo one", nil)
	sb.spareMu.Lock() // the follow-up has ended once the lock is free
	sb.spareMu.Unlock()
	spareHook = nil
	if res.Stdout != "one\n" {
		t.Fatalf("first run: %+v", res)
	}
	if sb.spare != nil {
		t.Fatal("a spare survived the fault in making it")
	}
	for i := 0; i < 3; i++ {
		if res := run(t, sb, "echo again", nil); res.Stdout != "again\n" || res.ErrorKind != "" {
			t.Fatalf("run %d after the fault: %+v", i, res)
		}
	}
}

// TestWorkersAreBounded: runs beyond the bound of worker threads wait for
// a worker instead of starting threads; nested processes still get theirs
// (a parent holds its worker), so nothing deadlocks.
func TestWorkersAreBounded(t *testing.T) {
	base, _ := workerpool.Counts()
	workerpool.SetMaxWorkers(base + 1)
	defer workerpool.SetMaxWorkers(workerpool.DefaultMaxWorkers)
	const runs = 4
	sbs := make([]*Sandbox, runs)
	for i := range sbs {
		sbs[i] = newTestSandbox(t, Limits{}, nil)
	}
	var wg sync.WaitGroup
	results := make([]string, runs)
	for i := range sbs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			code := "sleep 100"
			if i%2 == 0 {
				code = "spawn sleep 100"
			}
			r, err := sbs[i].Start("shell", code, "", false, false)
			if err != nil {
				t.Error(err)
				return
			}
			res := r.Result()
			results[i] = res.Stdout + res.Error
		}(i)
	}
	wg.Wait()
	for i, out := range results {
		if !strings.Contains(out, "slept") {
			t.Fatalf("run %d: %q", i, out)
		}
	}
	got, _ := workerpool.Counts()
	// One worker for runs beyond those that existed, plus one per nested
	// process at most.
	if got > base+1+runs/2 {
		t.Fatalf("%d worker threads after %d concurrent runs (had %d, bound %d)", got, runs, base, base+1)
	}
}

// TestRunsWaitingOnPythonLeaveTheirSlots: runs blocked on a tool whose
// handler runs a script in another sandbox (from the script's own process
// or a child's) do not hold the slots that script needs: every slot is
// taken by such a run here, and the scripts still run. A run waiting for
// a slot ends at its deadline, counted from its Start, or when cancelled.
func TestRunsWaitingOnPythonLeaveTheirSlots(t *testing.T) {
	_, base := workerpool.Counts()
	const runs = 3
	workerpool.SetMaxWorkers(base + runs)
	defer workerpool.SetMaxWorkers(workerpool.DefaultMaxWorkers)
	outer := make([]*Sandbox, runs)
	inner := make([]*Sandbox, runs)
	for i := range outer {
		outer[i] = newTestSandbox(t, Limits{Timeout: 5 * time.Second}, nil)
		inner[i] = newTestSandbox(t, Limits{Timeout: 5 * time.Second}, nil)
	}
	var allBlocked sync.WaitGroup
	allBlocked.Add(runs)
	results := make([]chan wire.Result, runs)
	for i := range outer {
		results[i] = make(chan wire.Result, 1)
		code := `call mcp:nested {}`
		if i%2 == 1 {
			code = `spawn call mcp:nested {}` // a child process waits on Python
		}
		r, err := outer[i].Start("shell", code, "", false, false)
		if err != nil {
			t.Fatal(err)
		}
		go func(i int, r *Run) {
			results[i] <- drive(t, r, func(wire.Event) (string, error) {
				allBlocked.Done()
				allBlocked.Wait() // every slot is held by a run waiting here
				in, err := inner[i].Start("shell", "echo inner", "", false, false)
				if err != nil {
					return "", err
				}
				res := in.Result()
				if res.Stdout != "inner\n" {
					return "", fmt.Errorf("inner run: %+v", res)
				}
				return `"nested ok"`, nil
			})
		}(i, r)
	}
	for i := range outer {
		select {
		case res := <-results[i]:
			if res.ErrorKind != "" || !strings.Contains(res.Stdout, "nested ok") {
				t.Fatalf("run %d: %+v", i, res)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("run %d did not finish: runs waiting on Python hold the slots their handlers' scripts need", i)
		}
	}

	// With every slot computing, a queued run ends at its deadline, counted
	// from its Start, although no worker ever took it.
	workerpool.SetMaxWorkers(base + 1)
	busy := newTestSandbox(t, Limits{Timeout: 2 * time.Second}, nil)
	spin, err := busy.Start("shell", "spin", "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	waiter := newTestSandbox(t, Limits{Timeout: 200 * time.Millisecond}, nil)
	started := time.Now()
	w, err := waiter.Start("shell", "echo never", "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	res := w.Result()
	if took := time.Since(started); res.ErrorKind != wire.ErrKindTimeout || took > time.Second {
		t.Fatalf("queued run: %+v after %v, want a timeout after 200ms", res, took)
	}
	// Cancel ends a queued run at once.
	other, err := newTestSandbox(t, Limits{}, nil).Start("shell", "echo never", "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	other.Cancel()
	if res := other.Result(); res.ErrorKind != wire.ErrKindCancelled {
		t.Fatalf("cancelled queued run: %+v", res)
	}
	spin.Cancel()
	spin.WaitDone()
}
