package host

import (
	"fmt"

	"amlasandbox/gocore/wire"
)

// Sessions that remember (Config.KeepState, docs/sessions.md).
//
// Without KeepState every run starts on an instance in the guest's
// snapshot state (spare.go, reset.go). With it, the instance a run's own
// process used is kept after the run, one per language, and the next run
// of that language continues in it: the interpreter's globals, imports and
// definitions are still there. The run's Input says so (wire.Input
// KeepState), so a guest does not clear what it would otherwise rebuild.
//
// An instance is kept only when its run ended with the guest's amla_run
// returning, not stopped by the host: a trap (a crash, an exit through
// proc_exit), the memory limit, a timeout, a cancellation, or a limit the
// host enforces (tool calls per run) discard it, since the interpreter may
// have been stopped half way through changing its own state. The result
// then says so (wire.Result StateReset, and a line on stderr), and the
// next run takes a fresh instance. A script that fails with an ordinary
// error (a Python exception, a JavaScript throw, a shell command's
// status) keeps what it did until then, as an interactive interpreter
// would. Limits still apply per run: the memory a kept instance holds
// counts against the next run's memory_limit, as it would in one
// long-lived interpreter.
//
// Child processes (shell() from a script, node or python from the shell)
// never keep state: each starts on an instance of its own. A journaled
// run (record, replay) in a kept session starts from the session: the
// journal's start snapshot holds the kept instances' state (keep_live.go),
// and a replay restores it before running.

// takeKept returns the kept instance of language, set up as p (the run's
// own process), or nil when there is none. It notes in the run which
// ResetState generation it started in.
func (s *Sandbox) takeKept(language string, p *proc) *instance {
	s.spareMu.Lock()
	defer s.spareMu.Unlock()
	p.run.keptGen = s.keptGen
	in := s.kept[language]
	if in == nil {
		return nil
	}
	delete(s.kept, language)
	s.forgetSpare()
	// The store's data is in.p: it becomes the run's process.
	mem := in.p.mem
	*in.p = *p
	in.p.mem = mem
	in.returned = false
	return in
}

// keepable reports whether a run that ended as res may leave its instance
// for the next run. mu must be held (r.fatal).
func (r *Run) keepable(res wire.Result, used *instance) bool {
	if used == nil || used.store == nil || used.g == nil || !used.returned || used.p.depth != 0 {
		return false
	}
	if r.ctl.reason() != stopNone || r.fatal != nil {
		return false
	}
	switch res.ErrorKind {
	case wire.ErrKindMemory, wire.ErrKindTimeout, wire.ErrKindCancelled:
		return false
	}
	return true
}

// stateResetNote is the line stderr ends with when a kept session's
// instance was discarded.
func stateResetNote(res wire.Result) string {
	why := "it was stopped"
	switch res.ErrorKind {
	case wire.ErrKindMemory:
		why = "it reached the memory limit"
	case wire.ErrKindTimeout:
		why = "it timed out"
	case wire.ErrKindCancelled:
		why = "it was cancelled"
	case wire.ErrKindRuntime:
		why = "the run ended abnormally"
	}
	return fmt.Sprintf("[keep_state] the session's state was discarded because %s: the next run starts fresh (variables, imports and definitions are gone; files are kept)\n", why)
}

// keepOrReplace is replaceSpare for a run of a sandbox that keeps state:
// a keepable instance becomes its language's kept one; anything else is
// closed and the spare made as usual. spareMu must be held.
func (s *Sandbox) keepOrReplace(used *instance, keep bool, gen uint64) {
	if !keep || s.isClosed() || gen != s.keptGen {
		s.replaceSpare(used)
		return
	}
	// Between runs the store's epoch callback must not point at the
	// finished run's stop switch (reset.go does the same).
	parked.attach(used.store)
	if s.kept == nil {
		s.kept = map[string]*instance{}
	}
	if old := s.kept[used.language]; old != nil && old != used {
		old.close()
	}
	s.kept[used.language] = used
	// In the line of spares, to shed its image pages when idle (never to be
	// released: it is the session).
	s.noteSpare()
}

// ResetState discards the kept instances (Sandbox.reset()): the next run
// of each language starts fresh. A run in progress keeps nothing either.
// Files are untouched.
func (s *Sandbox) ResetState() {
	s.spareMu.Lock()
	defer s.spareMu.Unlock()
	s.dropKeptLocked()
}

// dropKeptLocked closes the kept instances. spareMu must be held.
func (s *Sandbox) dropKeptLocked() {
	for lang, in := range s.kept {
		in.close()
		delete(s.kept, lang)
	}
	s.keptGen++
}

// KeepsState reports whether the sandbox keeps its interpreters' state.
func (s *Sandbox) KeepsState() bool { return s.cfg.KeepState }
