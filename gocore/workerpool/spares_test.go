package workerpool

import (
	"sync"
	"testing"
	"time"
)

// fakeHolder is a holder with a spare it may be busy with.
type fakeHolder struct {
	mu     sync.Mutex
	spare  bool
	closed bool
	sheds  int
	slot   SpareSlot
}

func (h *fakeHolder) TryLockSpare() bool { return h.mu.TryLock() }
func (h *fakeHolder) UnlockSpare()       { h.mu.Unlock() }
func (h *fakeHolder) Closed() bool       { return h.closed }
func (h *fakeHolder) ShedSpare()         { h.sheds++ }
func (h *fakeHolder) ReleaseSpare() bool {
	had := h.spare
	h.spare = false
	return had
}

// make gives h a spare and notes it, as a run's follow-up does.
func (h *fakeHolder) make() {
	h.mu.Lock()
	h.spare = true
	NoteSpare(h, &h.slot)
	h.mu.Unlock()
}

func (h *fakeHolder) has() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.spare
}

// TestSpareBounds: the holders used last keep their spares, up to the
// bound; a spare unused for the idle time goes; a holder busy with its
// spare is passed over and released once it is free.
func TestSpareBounds(t *testing.T) {
	SetSpareBounds(2, time.Hour)
	defer SetSpareBounds(DefaultMaxSpares, DefaultSpareIdle)
	hs := make([]*fakeHolder, 4)
	for i := range hs {
		hs[i] = &fakeHolder{}
		hs[i].make()
	}
	for i, want := range []bool{false, false, true, true} {
		if hs[i].has() != want {
			t.Fatalf("holder %d has a spare: %v, want %v", i, hs[i].has(), want)
		}
	}
	hs[0].make() // used again: the least recently used one (2) goes
	if !hs[0].has() || hs[2].has() || !hs[3].has() {
		t.Fatalf("spares: %v %v %v %v", hs[0].has(), hs[1].has(), hs[2].has(), hs[3].has())
	}

	// Busy (its lock held) when the idle time passes: kept until free.
	hs[3].mu.Lock()
	SetSpareBounds(2, 20*time.Millisecond)
	waitFor(t, func() bool { return !hs[0].has() }, "an idle spare was kept past the idle time")
	time.Sleep(50 * time.Millisecond)
	if !hs[3].spare {
		t.Fatal("the spare of a holder busy with it was released")
	}
	hs[3].mu.Unlock()
	waitFor(t, func() bool { return !hs[3].has() }, "a busy holder's idle spare was never released")

	// Taken out of the line (its spare taken by a run): never released.
	h := &fakeHolder{}
	h.make()
	h.mu.Lock()
	ForgetSpare(&h.slot)
	h.mu.Unlock()
	time.Sleep(100 * time.Millisecond)
	if !h.has() {
		t.Fatal("a spare out of the line was released")
	}
}

func waitFor(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (h *fakeHolder) shedCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sheds
}

// TestSpareShed: a spare unused for the shed time is shed once and kept;
// one made again after that is shed again later; a holder busy with its
// spare at the time is passed over; shedding off sheds nothing.
func TestSpareShed(t *testing.T) {
	SetSpareShed(30 * time.Millisecond)
	defer SetSpareShed(DefaultSpareShed)
	a, b := &fakeHolder{}, &fakeHolder{}
	a.make()
	b.make()
	b.mu.Lock() // busy when its time comes
	waitFor(t, func() bool { return a.shedCount() == 1 }, "an idle spare was never shed")
	time.Sleep(100 * time.Millisecond)
	if n := a.shedCount(); n != 1 || !a.has() {
		t.Fatalf("sheds %d (want 1), spare kept %v", n, a.has())
	}
	if b.sheds != 0 {
		t.Fatal("the spare of a holder busy with it was shed")
	}
	b.mu.Unlock()
	a.make() // used again: its new spare is shed in its turn
	waitFor(t, func() bool { return a.shedCount() == 2 }, "a spare made again was never shed")

	SetSpareShed(0)
	c := &fakeHolder{}
	c.make()
	time.Sleep(100 * time.Millisecond)
	if c.shedCount() != 0 {
		t.Fatal("a spare was shed with shedding off")
	}
	for _, h := range []*fakeHolder{a, b, c} {
		h.mu.Lock()
		ForgetSpare(&h.slot)
		h.mu.Unlock()
	}
}

// TestBackToBackRunsDoNotWakeTheJanitor: a holder whose spare is noted
// again and again (a loop of runs) does not wake the janitor each time
// (a goroutine wake-up per run).
func TestBackToBackRunsDoNotWakeTheJanitor(t *testing.T) {
	SetSpareShed(time.Second)
	defer SetSpareShed(DefaultSpareShed)
	h := &fakeHolder{}
	h.make()
	time.Sleep(time.Millisecond)
	before := janitorLooks.Load()
	for i := 0; i < 30; i++ {
		h.mu.Lock()
		ForgetSpare(&h.slot) // a run takes the spare ...
		h.mu.Unlock()
		time.Sleep(time.Millisecond)
		h.make() // ... and leaves the next one
	}
	if n := janitorLooks.Load() - before; n > 2 {
		t.Fatalf("30 runs 1 ms apart made the janitor look %d times", n)
	}
	h.mu.Lock()
	ForgetSpare(&h.slot)
	h.mu.Unlock()
}
