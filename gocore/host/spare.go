package host

// A run's own process starts on an instance made in advance. Making an
// instance (store, WASI context, instantiating the snapshot) and freeing
// one (unmapping its memory) were about a quarter of a short run. After a
// run has published its result, its goroutine resets the used instance to
// the snapshot's state (reset.go) or, when it cannot, frees it and makes a
// fresh one for the next run of the same language, while Python reads the
// result. Either way every run starts from the snapshot's clean state; a
// nested process makes its own instance.
//
// How many sandboxes of the process keep a spare, and for how long unused,
// is gocore/workerpool's bound (spares.go there); noteSpare and
// forgetSpare keep a sandbox's place in its line.

import "amlasandbox/gocore/workerpool"

// replaceSpare makes the spare for the next run, unless the sandbox is
// closed: used itself, reset to the snapshot's state (reset.go), or else a
// fresh instance of used's language, used being closed. spareMu must be
// held (Run.execute takes it before the result is out).
func (s *Sandbox) replaceSpare(used *instance) {
	defer func() {
		if p := recover(); p != nil {
			// A half-reset or half-made instance must not be the next
			// run's: the next run makes a fresh one.
			s.spare = nil
			s.forgetSpare()
			panic(p)
		}
	}()
	if spareHook != nil {
		spareHook()
	}
	if used == nil || used.g == nil || s.isClosed() {
		used.close()
		return
	}
	s.spare.close()
	defer func() {
		if s.spare != nil {
			s.noteSpare()
		}
	}()
	if s.reset(used) {
		s.spare = used
		return
	}
	used.close()
	s.spare = s.newInstance(used.language, &proc{depth: 0, pending: map[int64]bool{}}, s.cfg.Limits.MemoryLimit)
	if s.spare.err != nil || s.spare.instErr != nil {
		// Made again, and the error reported, by the run that needs it.
		s.spare.close()
		s.spare = nil
	}
}

// spareHook, when set (by tests), runs at the start of every replaceSpare.
var spareHook func()

// takeSpare returns the spare for a run of language, set up as p (the
// run's own process), or nil when there is none for that language. It
// waits while a spare is being made.
func (s *Sandbox) takeSpare(language string, p *proc) *instance {
	s.spareMu.Lock()
	defer s.spareMu.Unlock()
	in := s.spare
	s.spare = nil
	s.forgetSpare()
	if in == nil {
		return nil
	}
	if in.language != language {
		in.close()
		return nil
	}
	// The store's data is in.p: it becomes the run's process.
	mem := in.p.mem
	*in.p = *p
	in.p.mem = mem
	return in
}

// dropSpare closes the spare, if any (Sandbox.Close).
func (s *Sandbox) dropSpare() {
	s.spareMu.Lock()
	defer s.spareMu.Unlock()
	s.spare.close()
	s.spare = nil
	s.forgetSpare()
	s.dropKeptLocked()
}

// isClosed may be called with spareMu held: Start holds mu while it waits
// for a stopped run, which may be queued behind a spare being made.
func (s *Sandbox) isClosed() bool { return s.closed.Load() }

// noteSpare records that s has a spare as of now. spareMu must be held.
func (s *Sandbox) noteSpare() { workerpool.NoteSpare(spareHolder{s}, &s.spareSlot) }

// forgetSpare drops s from the line (its spare was taken or closed).
// spareMu must be held.
func (s *Sandbox) forgetSpare() { workerpool.ForgetSpare(&s.spareSlot) }

// spareHolder is a Sandbox as the process-wide bound on spares sees it.
type spareHolder struct{ s *Sandbox }

func (h spareHolder) TryLockSpare() bool { return h.s.spareMu.TryLock() }
func (h spareHolder) UnlockSpare()       { h.s.spareMu.Unlock() }
func (h spareHolder) Closed() bool       { return h.s.isClosed() }

// ShedSpare drops the pages mapped from the guest's image (dropImagePages)
// of the spare and of the kept instances of a session; spareMu is held.
func (h spareHolder) ShedSpare() {
	shed := func(in *instance) {
		if in != nil && in.store != nil && in.mem != nil {
			dropImagePages(in.mem.UnsafeData(in.store))
		}
	}
	shed(h.s.spare)
	for _, in := range h.s.kept {
		shed(in)
	}
}

// ReleaseSpare closes the sandbox's spare; spareMu is held.
func (h spareHolder) ReleaseSpare() bool {
	if h.s.spare == nil {
		return false
	}
	h.s.spare.close()
	h.s.spare = nil
	return true
}
