package host

import (
	"io/fs"
	"path/filepath"
	"sync"
	"time"

	"amlasandbox/gocore/wire"
)

// diskQuota bounds the bytes a sandbox's files take on the host. The
// guests ask it for room before every write (the disk_reserve host
// function; the shell's awk included, whose file output goes through the
// shell's quota-checked files); it keeps a running estimate that only
// over-counts (it does not see deletions or overwrites), and re-measures
// the directory before refusing, so a refusal is true. The host does not
// take the guests' word for it: after every run it measures the directory
// itself (checkAfterRun). The walk never follows symlinks.
type diskQuota struct {
	root  string
	limit int64

	mu       sync.Mutex
	used     int64
	measured bool
	lastWalk time.Time
	// asked: a guest asked for room since the run began (takeAsked).
	asked bool
	// found is what a measure after a run that asked for nothing found
	// over the quota, for the next run to say (takeFound).
	found string
	// later: a measure is scheduled (measureLater).
	later bool
}

// laterDelay is how long after a run that asked for no room its measure
// comes. Runs that follow within it share one measure, so back-to-back
// short runs do not each pay a walk.
const laterDelay = 50 * time.Millisecond

// measureLater measures the directory laterDelay from now unless a measure
// is already scheduled, and calls found with the excess message if the
// files are over the quota then.
func (q *diskQuota) measureLater(over func(used int64)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.later {
		return
	}
	q.later = true
	time.AfterFunc(laterDelay, func() {
		q.mu.Lock()
		q.later = false
		q.mu.Unlock()
		// Not the estimate: the next run may already be removing files,
		// and a walk from before that must not refuse its writes. Its own
		// first reservation measures afresh (forget).
		if used := diskUsage(q.root); used > q.limit {
			over(used)
		}
	})
}

// rewalkEvery bounds how often a guest pressing at the quota makes the
// host walk the directory again within one run.
const rewalkEvery = 50 * time.Millisecond

// forget drops the estimate, so the next reservation measures afresh (at
// the start of every run: files may have been removed since).
func (q *diskQuota) forget() {
	q.mu.Lock()
	q.measured = false
	q.mu.Unlock()
}

// charge grants n more bytes if they fit under the limit, and counts them.
func (q *diskQuota) charge(n int64) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.asked = true
	if n <= 0 {
		return true
	}
	if !q.room(n) {
		return false
	}
	q.used += n
	return true
}

// room reports whether n more bytes fit, measuring the directory first
// when the estimate is missing or says no (at most every rewalkEvery).
// mu must be held.
func (q *diskQuota) room(n int64) bool {
	if !q.measured {
		q.used, q.measured, q.lastWalk = diskUsage(q.root), true, time.Now()
	}
	if q.used+n > q.limit && time.Since(q.lastWalk) >= rewalkEvery {
		q.used, q.lastWalk = diskUsage(q.root), time.Now()
	}
	return q.used+n <= q.limit
}

// measure walks the directory and reports whether the files are over the
// quota, and how much they take. The measure becomes the estimate, so
// once the files are over every reservation is refused until some go.
func (q *diskQuota) measure() (used int64, over bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.used, q.measured, q.lastWalk = diskUsage(q.root), true, time.Now()
	return q.used, q.used > q.limit
}

// takeAsked reports whether a guest asked for room since the last call.
func (q *diskQuota) takeAsked() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	asked := q.asked
	q.asked = false
	return asked
}

// note keeps msg for the next run to report (takeFound).
func (q *diskQuota) note(msg string) {
	q.mu.Lock()
	q.found = msg
	q.mu.Unlock()
}

// takeFound returns and forgets what the last measure after a run found.
func (q *diskQuota) takeFound() string {
	q.mu.Lock()
	defer q.mu.Unlock()
	msg := q.found
	q.found = ""
	return msg
}

// diskUsage is what the quota charges for the tree at root: every entry
// costs wire.DiskEntryCost plus its size rounded up to whole blocks.
func diskUsage(root string) int64 {
	var total int64
	_ = filepath.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		total += wire.DiskEntryCost
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				total += (info.Size() + wire.DiskEntryCost - 1) / wire.DiskEntryCost * wire.DiskEntryCost
			}
		}
		return nil
	})
	return total
}
