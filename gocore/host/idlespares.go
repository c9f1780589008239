package host

// Spares of idle sandboxes are released.
//
// A sandbox's spare (spare.go) makes its next run fast, and costs the host
// the instance's private pages: 0.7-1.7 MB per sandbox that has run. A
// process holding a thousand agent sessions, most of them idle, would keep
// a gigabyte of spares for runs that may never come. So spares are kept
// only for the sandboxes used most recently: at most maxSpares in the
// process, and none that nobody ran for spareIdle. A released spare costs
// the sandbox one instance made when it next runs (about 80 µs), nothing
// else. A sandbox in active use keeps its spare: each run puts it last in
// line to be released.

import (
	"container/list"
	"sync"
	"time"
)

// The defaults of the process-wide bounds on spares.
const (
	DefaultMaxSpares = 32
	DefaultSpareIdle = 10 * time.Second
)

var spares = struct {
	mu      sync.Mutex
	lru     list.List // *Sandbox holding a spare, least recently used first
	max     int
	idle    time.Duration
	janitor bool // the goroutine releasing idle spares is running
	// wake cuts the janitor's sleep short when the bounds change, so a
	// shorter idle time applies at once rather than after the old one.
	wake chan struct{}
}{max: DefaultMaxSpares, idle: DefaultSpareIdle, wake: make(chan struct{}, 1)}

// SetSpareBounds sets how many sandboxes of this process keep a spare
// instance at most (0: none), and how long a spare is kept unused.
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

// noteSpare records that s has a spare as of now. spareMu must be held.
func (s *Sandbox) noteSpare() {
	spares.mu.Lock()
	s.spareAt = time.Now()
	if s.spareElem != nil {
		spares.lru.MoveToBack(s.spareElem)
	} else {
		s.spareElem = spares.lru.PushBack(s)
	}
	victims := trimSparesLocked(time.Time{})
	if !spares.janitor && spares.lru.Len() > 0 {
		spares.janitor = true
		go releaseIdleSpares()
	}
	spares.mu.Unlock()
	releaseSpares(victims)
}

// forgetSpare drops s from the line (its spare was taken or closed).
// spareMu must be held.
func (s *Sandbox) forgetSpare() {
	spares.mu.Lock()
	if s.spareElem != nil {
		spares.lru.Remove(s.spareElem)
		s.spareElem = nil
	}
	spares.mu.Unlock()
}

// trimSpares takes from the line the sandboxes over the bound, and with a
// non-zero now those whose spare has been unused for the idle time.
func trimSpares(now time.Time) []*Sandbox {
	spares.mu.Lock()
	defer spares.mu.Unlock()
	return trimSparesLocked(now)
}

func trimSparesLocked(now time.Time) []*Sandbox {
	var out []*Sandbox
	for e := spares.lru.Front(); e != nil; {
		s := e.Value.(*Sandbox)
		next := e.Next()
		over := spares.lru.Len() > spares.max
		stale := !now.IsZero() && now.Sub(s.spareAt) >= spares.idle
		if !over && !stale {
			break // the rest were used later
		}
		spares.lru.Remove(e)
		s.spareElem = nil
		out = append(out, s)
		e = next
	}
	return out
}

// releaseSpares closes the spares of victims. A sandbox busy with its
// spare (a run taking it, or the reset making it) is skipped: it will be
// back in the line, or has no spare, when that is done.
func releaseSpares(victims []*Sandbox) {
	for _, s := range victims {
		if !s.spareMu.TryLock() {
			continue
		}
		spares.mu.Lock()
		noted := s.spareElem != nil // its spare was made again meanwhile
		spares.mu.Unlock()
		if !noted {
			s.spare.close()
			s.spare = nil
		}
		s.spareMu.Unlock()
	}
}

// releaseIdleSpares runs while any sandbox holds a spare, releasing those
// unused for the idle time.
func releaseIdleSpares() {
	for {
		spares.mu.Lock()
		idle := spares.idle
		if spares.lru.Len() == 0 {
			spares.janitor = false
			spares.mu.Unlock()
			return
		}
		spares.mu.Unlock()
		t := time.NewTimer(max(idle/4, 10*time.Millisecond))
		select {
		case <-t.C:
		case <-spares.wake:
			t.Stop()
		}
		releaseSpares(trimSpares(time.Now()))
	}
}
