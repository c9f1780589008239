package workerpool

// Spares of idle sandboxes are released.
//
// A sandbox's spare (the host's spare.go) makes its next run fast, and
// costs the host the instance's private pages: 0.7-1.7 MB per sandbox that
// has run. A process holding a thousand agent sessions, most of them idle,
// would keep a gigabyte of spares for runs that may never come. So spares are kept
// only for the sandboxes used most recently: at most maxSpares in the
// process, and none that nobody ran for spareIdle. A released spare costs
// the sandbox one instance made when it next runs (about 80 µs), nothing
// else. A sandbox in active use keeps its spare: each run puts it last in
// line to be released.
//
// Before that, a spare unused for spareShed sheds what it holds only as a
// reader: the pages of its memory mapped from the guest's image file, which
// a run reads (and the kernel maps around each page read, 64 KiB at a
// time). The page cache holds them once for every sandbox, but each
// mapping counts them as the process's resident memory: about 7 MB for a
// Python sandbox that ran `print(1)`, against 0.4 MB of its own. Mapping
// them again costs the next run about 0.5 ms, so a sandbox in a loop of
// runs keeps them and one waiting on a model between turns does not.
//
// A goroutine (the janitor) releases idle spares at their time, whether
// or not anything else runs in the process: it sleeps until the oldest
// spare has been idle for spareIdle (and a little more, so that spares
// made together go together), releases it, and after releasing any hands
// the memory they freed back to the system (the C heap's free pages,
// which the allocator would otherwise keep, and the Go heap's garbage).

/*
extern void amla_malloc_trim(void);
*/
import "C"

import (
	"container/list"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// The defaults of the process-wide bounds on spares.
const (
	DefaultMaxSpares = 32
	DefaultSpareIdle = 10 * time.Second
	DefaultSpareShed = time.Second
)

// A SpareHolder keeps a spare instance that the process-wide bounds apply
// to (a sandbox). Its spare is guarded by a lock of its own, which the
// janitor only tries to take: a holder busy with its spare is passed over.
type SpareHolder interface {
	// TryLockSpare takes the lock guarding the spare unless it is held.
	TryLockSpare() bool
	// UnlockSpare releases the lock TryLockSpare took.
	UnlockSpare()
	// ReleaseSpare closes the spare, if there is one, and reports whether
	// there was; the lock is held.
	ReleaseSpare() bool
	// ShedSpare drops what the spare holds that the next run can map again
	// (pages of the guest's image file), keeping the spare; the lock is
	// held.
	ShedSpare()
	// Closed reports whether the holder is closed (it keeps no spare); it
	// may be called with or without the lock.
	Closed() bool
}

// SpareSlot is a holder's place in the process's line of spares; the zero
// value is out of the line. Its fields are guarded by the line's mutex.
type SpareSlot struct {
	elem *list.Element
	// at is when the holder's spare was last made.
	at time.Time
	// shed is set once the spare made at at was shed (or passed over).
	shed bool
}

// spareEntry is a holder in the line, with its slot.
type spareEntry struct {
	h    SpareHolder
	slot *SpareSlot
}

var spares = struct {
	mu      sync.Mutex
	lru     list.List // spareEntry of a holder with a spare, least recently used first
	max     int
	idle    time.Duration
	shed    time.Duration
	janitor bool // the goroutine releasing idle spares is running
	// wake cuts the janitor's sleep short when the bounds change, so a
	// shorter idle time applies at once rather than after the old one.
	wake chan struct{}
}{max: DefaultMaxSpares, idle: DefaultSpareIdle, shed: DefaultSpareShed, wake: make(chan struct{}, 1)}

// SetSpareBounds sets how many holders (sandboxes) of this process keep a
// spare instance at most (0: none), and how long a spare is kept unused.
func SetSpareBounds(max int, idle time.Duration) {
	spares.mu.Lock()
	spares.max, spares.idle = max, idle
	spares.mu.Unlock()
	select {
	case spares.wake <- struct{}{}:
	default:
	}
	releaseSpares(trimSpares(time.Now()))
}

// janitorLooks counts the janitor's looks at the line (for tests).
var janitorLooks atomic.Int64

// SetSpareShed sets how long a spare is kept unused before it sheds its
// image pages (ShedSpare); 0 or less never sheds.
func SetSpareShed(d time.Duration) {
	spares.mu.Lock()
	spares.shed = d
	spares.mu.Unlock()
	select {
	case spares.wake <- struct{}{}:
	default:
	}
}

// NoteSpare records that h, whose place in the line is slot, has a spare
// as of now. h's spare lock must be held.
func NoteSpare(h SpareHolder, slot *SpareSlot) {
	spares.mu.Lock()
	slot.at = time.Now()
	slot.shed = false
	if slot.elem != nil {
		spares.lru.MoveToBack(slot.elem)
	} else {
		slot.elem = spares.lru.PushBack(spareEntry{h, slot})
	}
	victims := trimSparesLocked(time.Time{})
	if !spares.janitor && spares.lru.Len() > 0 {
		spares.janitor = true
		go releaseIdleSpares()
	}
	spares.mu.Unlock()
	releaseSpares(victims)
}

// ForgetSpare takes the holder whose place is slot out of the line (its
// spare was taken or closed). The holder's spare lock must be held.
func ForgetSpare(slot *SpareSlot) {
	spares.mu.Lock()
	if slot.elem != nil {
		spares.lru.Remove(slot.elem)
		slot.elem = nil
	}
	spares.mu.Unlock()
}

// trimSpares takes from the line the holders over the bound, and with a
// non-zero now those whose spare has been unused for the idle time.
func trimSpares(now time.Time) []spareEntry {
	spares.mu.Lock()
	defer spares.mu.Unlock()
	return trimSparesLocked(now)
}

func trimSparesLocked(now time.Time) []spareEntry {
	var out []spareEntry
	for e := spares.lru.Front(); e != nil; {
		s := e.Value.(spareEntry)
		next := e.Next()
		over := spares.lru.Len() > spares.max
		stale := !now.IsZero() && now.Sub(s.slot.at) >= spares.idle
		if !over && !stale {
			break // the rest were used later
		}
		spares.lru.Remove(e)
		s.slot.elem = nil
		out = append(out, s)
		e = next
	}
	return out
}

// releaseSpares closes the spares of victims and reports whether it
// closed any. A holder busy with its spare (a run taking it, the reset
// making it, a run ending without one) is put back at the front of the
// line, for the janitor's next look.
func releaseSpares(victims []spareEntry) (released bool) {
	var busy []spareEntry
	for _, s := range victims {
		if !s.h.TryLockSpare() {
			busy = append(busy, s)
			continue
		}
		spares.mu.Lock()
		noted := s.slot.elem != nil // its spare was made again meanwhile
		spares.mu.Unlock()
		if !noted && s.h.ReleaseSpare() {
			released = true
		}
		s.h.UnlockSpare()
	}
	if len(busy) > 0 {
		spares.mu.Lock()
		for i := len(busy) - 1; i >= 0; i-- {
			if s := busy[i]; s.slot.elem == nil && !s.h.Closed() {
				s.slot.elem = spares.lru.PushFront(s)
			}
		}
		spares.mu.Unlock()
	}
	return released
}

// spareSlack is how much later than the idle time the janitor looks, so
// that spares idle within this much of each other are released together.
func spareSlack(idle time.Duration) time.Duration {
	return min(max(idle/100, time.Millisecond), 100*time.Millisecond)
}

// trimEvery bounds how often the janitor gives freed memory back to the
// system (trimProcessMemory: a collection of the Go heap among others).
const trimEvery = time.Second

// releaseIdleSpares runs while any holder has a spare (or memory freed
// by released ones is still to be given back), releasing each spare once
// it has been unused for the idle time.
func releaseIdleSpares() {
	var lastTrim time.Time
	toTrim := false
	for {
		spares.mu.Lock()
		if spares.lru.Len() == 0 && !toTrim {
			spares.janitor = false
			spares.mu.Unlock()
			return
		}
		due := time.Now().Add(time.Hour)
		switch {
		case spares.lru.Len() > spares.max:
			due = time.Now() // a holder over the bound was busy when trimmed
		case spares.lru.Len() > 0:
			idle := spares.idle
			due = spares.lru.Front().Value.(spareEntry).slot.at.Add(idle + spareSlack(idle))
			if at, ok := nextToShedLocked(); ok {
				if d := at.Add(spares.shed + spareSlack(spares.shed)); d.Before(due) {
					due = d
				}
			}
			// A spare noted while the janitor sleeps is looked at within
			// half the shed time after it is due. NoteSpare does not wake
			// the janitor for it: in a loop of runs on one sandbox (its
			// spare out of the line during each run) that would be a
			// goroutine wake-up for every run.
			if spares.shed > 0 {
				if d := time.Now().Add(spares.shed / 2); d.Before(due) {
					due = d
				}
			}
		}
		if next := lastTrim.Add(trimEvery); toTrim && next.Before(due) {
			due = next
		}
		spares.mu.Unlock()
		// At least a moment between looks: a holder busy with its spare
		// is back at the front of the line at once.
		t := time.NewTimer(max(time.Until(due), 10*time.Millisecond))
		select {
		case <-t.C:
		case <-spares.wake:
			t.Stop()
		}
		janitorLooks.Add(1)
		now := time.Now()
		if releaseSpares(trimSpares(now)) {
			toTrim = true
		}
		shedSpares(now)
		if toTrim && time.Since(lastTrim) >= trimEvery {
			trimProcessMemory()
			lastTrim, toTrim = time.Now(), false
		}
	}
}

// nextToShedLocked returns when the oldest spare not yet shed was made;
// ok is false when there is none or shedding is off. spares.mu is held.
func nextToShedLocked() (at time.Time, ok bool) {
	if spares.shed <= 0 {
		return time.Time{}, false
	}
	for e := spares.lru.Front(); e != nil; e = e.Next() {
		if s := e.Value.(spareEntry); !s.slot.shed {
			return s.slot.at, true
		}
	}
	return time.Time{}, false
}

// shedSpares sheds the spares unused for the shed time. A holder busy
// with its spare is passed over: it is in use, and its next spare is
// noted afresh.
func shedSpares(now time.Time) {
	type due struct {
		e  spareEntry
		at time.Time
	}
	var todo []due
	spares.mu.Lock()
	if spares.shed > 0 {
		for e := spares.lru.Front(); e != nil; e = e.Next() {
			s := e.Value.(spareEntry)
			if s.slot.shed {
				continue
			}
			if now.Sub(s.slot.at) < spares.shed {
				break // the rest were made later
			}
			s.slot.shed = true
			todo = append(todo, due{s, s.slot.at})
		}
	}
	spares.mu.Unlock()
	for _, d := range todo {
		if !d.e.h.TryLockSpare() {
			continue
		}
		spares.mu.Lock()
		// Still the spare that was due: not taken, released or made again.
		same := d.e.slot.elem != nil && d.e.slot.at.Equal(d.at)
		spares.mu.Unlock()
		if same {
			d.e.h.ShedSpare()
		}
		d.e.h.UnlockSpare()
	}
}

// trimProcessMemory gives the system back the memory released spares
// freed: the C heap's free pages (wasmtime's allocations, which glibc
// keeps for reuse otherwise) and the Go heap's (after a collection, which
// an idle process would not otherwise run). The janitor calls it, off
// every run's path, at most once per trimEvery.
func trimProcessMemory() {
	C.amla_malloc_trim()
	debug.FreeOSMemory()
}
