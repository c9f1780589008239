package shell

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Descriptors above 2 live in the shell, not in a process: exec 3>file,
// 3>&1, {fd}<file and process substitution put a reader or writer in the
// shell's table, where redirections (>&3, <&3), read -u 3 and /dev/fd/3
// (for applets too) find it.

// fdEntry is one open descriptor.
type fdEntry struct {
	r io.Reader
	w io.Writer
	// owner closes what the shell opened for it; nil for a copy of
	// another stream (3>&1), which is not the shell's to close.
	owner io.Closer
	refs  *int // descriptors sharing owner (3>f; 4>&3)
}

// fdTable holds descriptors 3 and up.
type fdTable map[int]*fdEntry

func (t fdTable) clone() fdTable { return maps.Clone(t) }

// lookupFD returns descriptor n as the shell's streams see it.
func (r *runner) lookupFD(n int) (*fdEntry, bool) {
	switch n {
	case 0:
		return &fdEntry{r: r.stdin}, true
	case 1:
		return &fdEntry{w: r.stdout}, true
	case 2:
		return &fdEntry{w: r.stderr}, true
	}
	e, ok := r.fds[n]
	return e, ok
}

// setFDEntry installs e as descriptor n (3 and up), closing what was there.
func (r *runner) setFDEntry(n int, e *fdEntry) {
	if r.fds == nil {
		r.fds = fdTable{}
	}
	if old, ok := r.fds[n]; ok && old != e {
		old.release()
	}
	if e == nil {
		delete(r.fds, n)
		return
	}
	r.fds[n] = e
}

// release drops one use of the entry, closing the file with the last.
func (e *fdEntry) release() {
	if e.owner == nil {
		return
	}
	if e.refs != nil {
		*e.refs--
		if *e.refs > 0 {
			return
		}
	}
	e.owner.Close()
}

// share returns a second descriptor for the same open file.
func (e *fdEntry) share() *fdEntry {
	if e.owner == nil {
		return &fdEntry{r: e.r, w: e.w}
	}
	if e.refs == nil {
		one := 1
		e.refs = &one
	}
	*e.refs++
	return &fdEntry{r: e.r, w: e.w, owner: e.owner, refs: e.refs}
}

// readerFD is the buffered reader of descriptor n for read -u and <&n.
func (r *runner) readerFD(n int) (*bufio.Reader, error) {
	if n == 0 {
		return r.stdinReader(), nil
	}
	e, ok := r.lookupFD(n)
	if !ok || e.r == nil {
		return nil, fmt.Errorf("%d: invalid file descriptor: Bad file descriptor", n)
	}
	if br, ok := e.r.(*bufio.Reader); ok {
		return br, nil
	}
	br := bufio.NewReader(e.r)
	e.r = br
	return br, nil
}

// devFD parses /dev/fd/N.
func devFD(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "/dev/fd/")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n >= 0
}

// openFD is Proc.FD: an applet opening /dev/fd/N gets the shell's
// descriptor N.
func (r *runner) openFD(n int) (io.Reader, io.Writer, bool) {
	e, ok := r.lookupFD(n)
	if !ok {
		return nil, nil, false
	}
	return e.r, e.w, true
}

// freeFD is the lowest unused descriptor from 10 up ({fd}>file).
func (r *runner) freeFD() int {
	n := 10
	for {
		if _, ok := r.fds[n]; !ok {
			return n
		}
		n++
	}
}

// procSub is a running process substitution.
type procSub struct {
	fd   int
	done chan struct{}
	// end closes the shell's side: the reader of <(…) (the command then
	// stops at its next write) or the writer of >(…) (it sees end of
	// input).
	end func()
}

// procSubst starts <(…) or >(…) and returns the /dev/fd/N path naming
// its pipe. It runs until the command that used it has finished.
func (r *runner) procSubst(ps *syntax.ProcSubst) (string, error) {
	n := 63
	for {
		if _, ok := r.fds[n]; !ok {
			break
		}
		n--
		if n < 10 {
			return "", fmt.Errorf("too many process substitutions")
		}
	}
	pr, pw := io.Pipe()
	sub := r.subshell()
	p := &procSub{fd: n, done: make(chan struct{})}
	if ps.Op == syntax.CmdIn {
		// <(cmd): the command writes, the shell's command reads.
		out := &pipeOut{w: pw}
		sub.stdout, sub.pipe = out, out
		r.setFDEntry(n, &fdEntry{r: pr})
		p.end = func() { pr.CloseWithError(io.ErrClosedPipe) }
	} else {
		sub.stdin = pr
		sub.pipe = nil
		r.setFDEntry(n, &fdEntry{w: pw})
		p.end = func() { pw.Close() }
	}
	// When the command ends: the reader of <(…) sees end of input; a
	// writer to >(…) gets a broken pipe.
	stop := func() { pw.Close() }
	if ps.Op != syntax.CmdIn {
		stop = func() { pr.CloseWithError(io.ErrClosedPipe) }
	}
	go func() {
		defer close(p.done)
		defer stop()
		defer func() {
			if v := recover(); v != nil {
				fmt.Fprintf(sub.stderr, "%s: internal error: %v\n", sub.name, v)
			}
		}()
		err := sub.stmts(ps.Stmts)
		sub.finishSub(err)
	}()
	r.procSubs = append(r.procSubs, p)
	return "/dev/fd/" + strconv.Itoa(n), nil
}

// finishProcSubs ends the process substitutions started since mark and
// waits for them.
func (r *runner) finishProcSubs(mark int) {
	if len(r.procSubs) <= mark {
		return
	}
	subs := r.procSubs[mark:]
	r.procSubs = r.procSubs[:mark]
	var wg sync.WaitGroup
	for _, p := range subs {
		p.end()
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-p.done:
			case <-r.ctx.Done():
			}
		}()
		if e, ok := r.fds[p.fd]; ok {
			delete(r.fds, p.fd)
			_ = e
		}
	}
	wg.Wait()
}
