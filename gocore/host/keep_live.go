package host

import (
	"bytes"
	"fmt"
	"math"
	"sort"

	"github.com/bytecodealliance/wasmtime-go/v39"

	"amlasandbox/gocore/snapshot"
)

// Live sessions in snapshots and forks (docs/sessions.md).
//
// A kept instance (keep.go) is its guest's fresh instance plus what the
// runs since changed: bytes of its linear memory (which may also have
// grown) and the values of its mutable globals. Tables never change (see
// reset.go), and the WASI context holds nothing a run between two scripts
// needs but the preopened directories, which every instance gets in the
// same order. So a session is saved as the memory's ranges that differ
// from a fresh instance's, the memory's size, and the globals the guest's
// snapshot exports for resetting; and restored by making a fresh instance
// of the same guest build, growing its memory, writing the ranges and
// setting the globals. What the host held for the instance is not part of
// it: files a script left open are closed (their descriptors name nothing
// in the restored instance), and host requests the session's tasks were
// waiting for are gone.

// diffPage is the granularity at which memory is compared with a fresh
// instance's.
const diffPage = 4096

var zeroPage [diffPage]byte

// liveState is a kept instance's state, its ranges pointing into the
// instance's memory (valid while no run uses it).
type liveState struct {
	session snapshot.Session
	ranges  []snapshot.Range
}

// captureLive describes in's state against a fresh instance of its guest.
// No run may be using in.
func captureLive(in *instance) (*liveState, error) {
	lang := in.language
	if in.store == nil || in.mem == nil || in.g == nil {
		return nil, fmt.Errorf("the %s session has no memory to save", lang)
	}
	pr := in.g.pristineState()
	if pr == nil || len(pr.globals) != len(in.resetGlobals) {
		return nil, fmt.Errorf("the %s session cannot be saved: its guest module exports no fresh state to compare with", lang)
	}
	digest, err := digestOf(in.g)
	if err != nil {
		return nil, fmt.Errorf("the %s session: hashing its guest module: %w", lang, err)
	}
	mem := in.mem.UnsafeData(in.store)
	st := &liveState{session: snapshot.Session{Language: lang, Guest: digest, MemorySize: uint64(len(mem))}}
	for i, g := range in.resetGlobals {
		v, err := globalBits(g.Get(in.store))
		if err != nil {
			return nil, fmt.Errorf("the %s session's global %s: %w", lang, in.g.resetGlobals[i], err)
		}
		st.session.Globals = append(st.session.Globals, v)
	}
	// Only pages the kernel reports as private to the mapping can differ
	// from a fresh instance's (dirty_linux.go); without that report every
	// page is compared.
	spans, ok := changedPages(mem, len(mem))
	if !ok {
		spans = []span{{0, len(mem)}}
	}
	// Consecutive changed pages make one range.
	start, last := -1, -1
	flush := func() {
		if start >= 0 {
			st.ranges = append(st.ranges, snapshot.Range{Off: uint64(start), Data: mem[start:last]})
			start = -1
		}
	}
	for _, sp := range spans {
		for off := sp.off; off < sp.end; off += diffPage {
			end := min(off+diffPage, sp.end)
			var fresh []byte
			if off < len(pr.mem) {
				fresh = pr.mem[off:min(end, len(pr.mem))]
			}
			page := mem[off:end]
			same := len(fresh) == len(page) && bytes.Equal(page, fresh) ||
				len(fresh) == 0 && bytes.Equal(page, zeroPage[:len(page)])
			if same {
				flush()
				continue
			}
			if start >= 0 && off != last {
				flush()
			}
			if start < 0 {
				start = off
			}
			last = end
		}
	}
	flush()
	return st, nil
}

func globalBits(v wasmtime.Val) (snapshot.Global, error) {
	switch v.Kind() {
	case wasmtime.KindI32:
		return snapshot.Global{Kind: snapshot.GlobalI32, Bits: uint64(uint32(v.I32()))}, nil
	case wasmtime.KindI64:
		return snapshot.Global{Kind: snapshot.GlobalI64, Bits: uint64(v.I64())}, nil
	case wasmtime.KindF32:
		return snapshot.Global{Kind: snapshot.GlobalF32, Bits: uint64(math.Float32bits(v.F32()))}, nil
	case wasmtime.KindF64:
		return snapshot.Global{Kind: snapshot.GlobalF64, Bits: math.Float64bits(v.F64())}, nil
	}
	return snapshot.Global{}, fmt.Errorf("a global of kind %v cannot be saved", v.Kind())
}

func globalVal(g snapshot.Global) wasmtime.Val {
	switch g.Kind {
	case snapshot.GlobalI32:
		return wasmtime.ValI32(int32(uint32(g.Bits)))
	case snapshot.GlobalI64:
		return wasmtime.ValI64(int64(g.Bits))
	case snapshot.GlobalF32:
		return wasmtime.ValF32(math.Float32frombits(uint32(g.Bits)))
	}
	return wasmtime.ValF64(math.Float64frombits(g.Bits))
}

// liveStatesLocked captures every kept instance of s, sorted by language.
// spareMu must be held, and no run in progress.
func (s *Sandbox) liveStatesLocked() ([]*liveState, error) {
	langs := make([]string, 0, len(s.kept))
	for lang := range s.kept {
		langs = append(langs, lang)
	}
	sort.Strings(langs)
	var out []*liveState
	for _, lang := range langs {
		st, err := captureLive(s.kept[lang])
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// checkLive refuses a session this sandbox cannot take, before anything
// is made: what stops a restore should stop it before files change.
func (s *Sandbox) checkLive(sess *snapshot.Session) error {
	lang := sess.Language
	if err := checkLanguage(lang); err != nil {
		return fmt.Errorf("%w: a session of %v", snapshot.ErrInvalid, err)
	}
	if !s.cfg.KeepState {
		return fmt.Errorf("%w: it holds a live %s session (variables, imports, definitions): restore it into a sandbox made with keep_state=True", snapshot.ErrInvalid, lang)
	}
	if limit := s.cfg.Limits.MemoryLimit; limit > 0 && sess.MemorySize > uint64(limit) {
		return fmt.Errorf("%w: its %s session holds %d bytes of memory, more than this sandbox's memory_limit=%d", snapshot.ErrInvalid, lang, sess.MemorySize, limit)
	}
	g, err := s.guestFor(lang)
	if err != nil {
		return err
	}
	digest, err := digestOf(g)
	if err != nil {
		return fmt.Errorf("hashing the %s guest module: %w", lang, err)
	}
	if digest != sess.Guest {
		return fmt.Errorf("%w: its %s session was made by another build of the %s guest (module sha256 %x..., this sandbox's %x...): a session can only be restored by the same build", snapshot.ErrInvalid, lang, lang, sess.Guest[:8], digest[:8])
	}
	if g.resettable && len(g.resetGlobals) != len(sess.Globals) {
		return fmt.Errorf("%w: its %s session sets %d globals, the guest has %d", snapshot.ErrInvalid, lang, len(sess.Globals), len(g.resetGlobals))
	}
	return nil
}

// buildLive makes an instance for p holding sess, whose memory fill
// writes (it is handed the instance's memory, already of sess.MemorySize
// bytes and in its fresh state). p nil makes one for no run yet: to be
// kept, its memory limit the sandbox's.
func (s *Sandbox) buildLive(sess *snapshot.Session, p *proc, memLimit int64, fill func(mem []byte) error) (*instance, error) {
	lang := sess.Language
	forRun := p != nil
	if !forRun {
		p, memLimit = &proc{depth: 0, pending: map[int64]bool{}}, s.cfg.Limits.MemoryLimit
	}
	in := s.newInstance(lang, p, memLimit)
	fail := func(err error) (*instance, error) {
		in.close()
		return nil, fmt.Errorf("restoring the %s session: %w", lang, err)
	}
	if in.err != nil {
		return fail(in.err)
	}
	if in.instErr != nil {
		return fail(in.instErr)
	}
	if in.mem == nil || len(in.resetGlobals) != len(sess.Globals) {
		return fail(fmt.Errorf("the guest has %d globals to set, the session %d", len(in.resetGlobals), len(sess.Globals)))
	}
	size := uint64(in.mem.DataSize(in.store))
	if sess.MemorySize < size {
		return fail(fmt.Errorf("%w: its memory of %d bytes is smaller than a fresh instance's %d", snapshot.ErrInvalid, sess.MemorySize, size))
	}
	if grow := (sess.MemorySize - size) / 65536; grow > 0 {
		if _, err := in.mem.Grow(in.store, grow); err != nil {
			return fail(fmt.Errorf("growing its memory to %d bytes: %w", sess.MemorySize, err))
		}
	}
	if err := fill(in.mem.UnsafeData(in.store)); err != nil {
		return fail(err)
	}
	for i, g := range in.resetGlobals {
		want := g.Type(in.store).Content().Kind()
		v := globalVal(sess.Globals[i])
		if v.Kind() != want {
			return fail(fmt.Errorf("%w: global %s is a %v, the session gives a %v", snapshot.ErrInvalid, in.g.resetGlobals[i], want, v.Kind()))
		}
		if err := g.Set(in.store, v); err != nil {
			return fail(fmt.Errorf("setting global %s: %w", in.g.resetGlobals[i], err))
		}
	}
	if !forRun {
		// Between runs the store's epoch callback is the parked switch,
		// as for every kept instance.
		parked.attach(in.store)
		in.returned = true
	}
	return in, nil
}

// rebuildKept moves a kept instance's state into a new instance made for
// the run of p: a journaled run needs an instance whose WASI functions go
// through the journal (replay_wasi.go), and any other run one whose do
// not. kept is closed. On failure the instance returned carries the error
// (as newInstance's do), for the run to report.
func (s *Sandbox) rebuildKept(kept *instance, p *proc, memLimit int64) *instance {
	defer kept.close()
	st, err := captureLive(kept)
	if err == nil {
		var in *instance
		if in, err = s.buildLive(&st.session, p, memLimit, fillFrom(st.ranges)); err == nil {
			return in
		}
	}
	return &instance{language: kept.language, p: p, err: fmt.Errorf("keeping the %s session for this run: %w", kept.language, err)}
}

// fillFrom writes ranges into a memory.
func fillFrom(ranges []snapshot.Range) func(mem []byte) error {
	return func(mem []byte) error {
		for _, r := range ranges {
			copy(mem[r.Off:], r.Data)
		}
		return nil
	}
}

// liveFromSnapshot makes an instance holding a parsed session.
func (s *Sandbox) liveFromSnapshot(sess *snapshot.Session) (*instance, error) {
	return s.buildLive(sess, nil, 0, func(mem []byte) error {
		return sess.Ranges(func(off uint64, data []byte) error {
			copy(mem[off:], data)
			return nil
		})
	})
}

// liveFromJournal makes the kept instances a journal's start state
// holds (its start snapshot's sessions; none when it kept only the files'
// digest) the sandbox's, for a replay of it. s.mu is held, no run in
// progress.
func (s *Sandbox) liveFromJournal(snap []byte) error {
	var live []*instance
	if len(snap) > 0 {
		ps, err := snapshot.Parse(snap, s.durableKey())
		if err != nil {
			return err
		}
		for i := range ps.Sessions {
			err := s.checkLive(&ps.Sessions[i])
			var in *instance
			if err == nil {
				in, err = s.liveFromSnapshot(&ps.Sessions[i])
			}
			if err != nil {
				closeAll(live)
				return err
			}
			live = append(live, in)
		}
	}
	s.installLive(live)
	return nil
}

// hasKept reports whether the sandbox holds a kept instance.
func (s *Sandbox) hasKept() bool {
	s.spareMu.Lock()
	defer s.spareMu.Unlock()
	return len(s.kept) > 0
}

// installLive makes ins the sandbox's kept instances, dropping the ones it
// had. No run may be in progress.
func (s *Sandbox) installLive(ins []*instance) {
	s.spareMu.Lock()
	defer s.spareMu.Unlock()
	s.dropKeptLocked()
	if len(ins) == 0 {
		return
	}
	if s.kept == nil {
		s.kept = map[string]*instance{}
	}
	for _, in := range ins {
		s.kept[in.language] = in
	}
}

func closeAll(ins []*instance) {
	for _, in := range ins {
		in.close()
	}
}

// copyLiveTo gives dst a copy of each of s's kept instances (fork). Both
// sandboxes must be idle. A sandbox that keeps no state copies none and
// drops none of dst's.
func (s *Sandbox) copyLiveTo(dst *Sandbox) error {
	s.spareMu.Lock()
	states, err := s.liveStatesLocked()
	if err != nil {
		s.spareMu.Unlock()
		return err
	}
	var made []*instance
	for _, st := range states {
		err = dst.checkLive(&st.session)
		if err == nil {
			var in *instance
			in, err = dst.buildLive(&st.session, nil, 0, fillFrom(st.ranges))
			made = append(made, in)
		}
		if err != nil {
			break
		}
	}
	s.spareMu.Unlock()
	if err != nil {
		closeAll(made)
		return err
	}
	if len(states) > 0 || dst.cfg.KeepState {
		dst.installLive(made)
	}
	return nil
}

// refreshInstances is called when the sandbox's tools change: the spare
// is dropped (the next run makes one with the new tools), and when the
// instances' preopened directories change (remount) each kept instance's
// state moves into a new instance that has them, so a kept session keeps
// its variables when tools are added or removed. s.mu is held and no run
// in progress. A kept instance whose state cannot be moved is dropped,
// as reset() would.
func (s *Sandbox) refreshInstances(remount bool) {
	s.spareMu.Lock()
	defer s.spareMu.Unlock()
	s.spare.close()
	s.spare = nil
	s.forgetSpare()
	if !remount {
		return
	}
	for lang, in := range s.kept {
		st, err := captureLive(in)
		var fresh *instance
		if err == nil {
			fresh, err = s.buildLive(&st.session, nil, 0, fillFrom(st.ranges))
		}
		in.close()
		if err != nil {
			delete(s.kept, lang)
			continue
		}
		s.kept[lang] = fresh
	}
}
