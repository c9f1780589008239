package shell

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"amlasandbox/guests/shell/applets"
)

// errText words a file error as the shell reports it.
func errText(err error) string { return applets.ErrText(err) }

// nopCloser is a stream the redirection does not own.
type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// badFD is a stream closed with >&- or <&-.
type badFD struct{}

func (badFD) Read([]byte) (int, error)  { return 0, fmt.Errorf("Bad file descriptor") }
func (badFD) Write([]byte) (int, error) { return 0, fmt.Errorf("Bad file descriptor") }

// path resolves a name against the shell's directory.
func (r *runner) path(name string) string {
	p := applets.Proc{Dir: r.dir}
	return p.Path(name)
}

// openIn opens a file for reading, understanding /dev/null, /dev/stdin
// and /dev/fd/N.
func (r *runner) openIn(name string) (io.ReadCloser, error) {
	switch name {
	case "/dev/null":
		return io.NopCloser(strings.NewReader("")), nil
	case "/dev/stdin":
		return io.NopCloser(r.stdin), nil
	}
	if n, ok := devFD(name); ok {
		e, found := r.lookupFD(n)
		if !found || e.r == nil {
			return nil, fmt.Errorf("Bad file descriptor")
		}
		return io.NopCloser(e.r), nil
	}
	p := applets.Proc{Dir: r.dir, Stdin: r.stdin}
	return p.Open(name)
}

// openOut opens a file for writing, understanding /dev/null, /dev/stdout,
// /dev/stderr and /dev/fd/N. With noclobber (set -C) an existing regular
// file is refused unless clobber (>|).
func (r *runner) openOut(name string, appendTo, clobber bool) (io.WriteCloser, error) {
	switch name {
	case "/dev/null":
		return nopWriter{io.Discard}, nil
	case "/dev/stdout":
		return nopWriter{r.stdout}, nil
	case "/dev/stderr":
		return nopWriter{r.stderr}, nil
	}
	if n, ok := devFD(name); ok {
		e, found := r.lookupFD(n)
		if !found || e.w == nil {
			return nil, fmt.Errorf("Bad file descriptor")
		}
		return nopWriter{e.w}, nil
	}
	full := r.path(name)
	st, err := os.Stat(full)
	if err == nil && st.IsDir() {
		return nil, fmt.Errorf("Is a directory")
	}
	if err == nil && r.opts.noclobber && !clobber && !appendTo && st.Mode().IsRegular() {
		return nil, fmt.Errorf("cannot overwrite existing file")
	}
	p := applets.Proc{Dir: r.dir}
	return p.Create(name, appendTo)
}

type nopWriter struct{ io.Writer }

func (nopWriter) Close() error { return nil }

// redirect applies redirections to the shell's streams and descriptors
// and returns the function that undoes them (and closes what they
// opened). With persist (exec with only redirections) nothing is undone:
// restore then only forgets the old streams. On error the redirections
// made so far stay until restore is called, so the message goes where
// bash would send it (echo 2>/dev/null >/bad/f prints nothing).
func (r *runner) redirect(redirs []*syntax.Redirect, persist bool) (restore func(), err error) {
	if len(redirs) == 0 {
		return func() {}, nil
	}
	oldIn, oldOut, oldErr, oldPipe := r.stdin, r.stdout, r.stderr, r.pipe
	oldFDs := r.fds
	if !persist {
		// A temporary table: the old one comes back on restore.
		r.fds = oldFDs.clone()
	}
	var opened []io.Closer
	restore = func() {
		if persist {
			return
		}
		for _, c := range opened {
			c.Close()
		}
		r.stdin, r.stdout, r.stderr, r.pipe = oldIn, oldOut, oldErr, oldPipe
		r.fds = oldFDs
	}
	fail := func(e error) (func(), error) {
		return restore, e
	}
	// set points descriptor fd at e.
	set := func(fd int, e *fdEntry) error {
		switch fd {
		case 0:
			if e == nil {
				r.stdin = badFD{}
				return nil
			}
			if e.r == nil {
				return fmt.Errorf("%d: Bad file descriptor", fd)
			}
			r.stdin = e.r
		case 1, 2:
			var w io.Writer = badFD{}
			if e != nil {
				if e.w == nil {
					return fmt.Errorf("%d: Bad file descriptor", fd)
				}
				w = e.w
			}
			if fd == 1 {
				r.stdout = w
				if pw, ok := w.(*pipeOut); ok {
					r.pipe = pw
				} else {
					r.pipe = nil
				}
			} else {
				r.stderr = w
			}
		default:
			if !persist {
				if r.fds == nil {
					r.fds = fdTable{}
				}
				if e == nil {
					delete(r.fds, fd)
				} else {
					r.fds[fd] = e
				}
				return nil
			}
			r.setFDEntry(fd, e)
		}
		return nil
	}
	for _, rd := range redirs {
		fd := -1
		if rd.N != nil {
			if isDigitString(rd.N.Value) {
				n, convErr := strconv.Atoi(rd.N.Value)
				if convErr != nil {
					return fail(fmt.Errorf("%s: bad file descriptor", rd.N.Value))
				}
				fd = n
			} else {
				// {name}>file: a new descriptor, its number in $name;
				// {name}>&- closes the one $name holds.
				name := strings.TrimSuffix(strings.TrimPrefix(rd.N.Value, "{"), "}")
				if (rd.Op == syntax.DplOut || rd.Op == syntax.DplIn) && rd.Word.Lit() == "-" {
					n, convErr := strconv.Atoi(r.env.Get(name).String())
					if convErr != nil {
						return fail(fmt.Errorf("%s: ambiguous redirect", name))
					}
					fd = n
				} else {
					fd = r.freeFD()
					if err := r.setVar(name, strconv.Itoa(fd)); err != nil {
						return fail(err)
					}
				}
			}
		}
		switch rd.Op {
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			var body string
			if rd.Op == syntax.WordHdoc {
				s, err := r.literal(rd.Word)
				if err != nil {
					return fail(err)
				}
				body = s + "\n"
			} else {
				s, err := r.heredoc(rd)
				if err != nil {
					return fail(err)
				}
				body = s
			}
			if fd < 0 {
				fd = 0
			}
			if err := set(fd, &fdEntry{r: bufio.NewReader(strings.NewReader(body))}); err != nil {
				return fail(err)
			}
			continue
		}
		target, err := r.literal(rd.Word)
		if err != nil {
			return fail(err)
		}
		switch rd.Op {
		case syntax.RdrOut, syntax.RdrClob, syntax.AppOut, syntax.RdrAll, syntax.AppAll:
			appendTo := rd.Op == syntax.AppOut || rd.Op == syntax.AppAll
			f, err := r.openOut(target, appendTo, rd.Op == syntax.RdrClob)
			if err != nil {
				return fail(fmt.Errorf("%s: %s", target, openErrText(err)))
			}
			if !persist || fd < 3 {
				opened = append(opened, f)
			}
			e := &fdEntry{w: f, owner: f}
			if rd.Op == syntax.RdrAll || rd.Op == syntax.AppAll {
				_ = set(1, e)
				_ = set(2, e)
				continue
			}
			if fd < 0 {
				fd = 1
			}
			if err := set(fd, e); err != nil {
				return fail(err)
			}
		case syntax.RdrIn, syntax.RdrInOut:
			f, err := r.openIn(target)
			if err != nil {
				return fail(fmt.Errorf("%s: %s", target, errText(err)))
			}
			if !persist || fd < 3 {
				opened = append(opened, f)
			}
			if fd < 0 {
				fd = 0
			}
			var rdr io.Reader = f
			if fd > 2 {
				// Reads through the descriptor share one buffer.
				rdr = bufio.NewReader(f)
			}
			if err := set(fd, &fdEntry{r: rdr, owner: f}); err != nil {
				return fail(err)
			}
		case syntax.DplOut, syntax.DplIn:
			if fd < 0 {
				fd = 1
				if rd.Op == syntax.DplIn {
					fd = 0
				}
			}
			switch {
			case target == "-":
				err = set(fd, nil)
			case isDigitString(target):
				n, _ := strconv.Atoi(target)
				e, ok := r.lookupFD(n)
				if !ok {
					return fail(fmt.Errorf("%s: Bad file descriptor", target))
				}
				if rd.Op == syntax.DplOut && e.w == nil || rd.Op == syntax.DplIn && e.r == nil {
					return fail(fmt.Errorf("%s: Bad file descriptor", target))
				}
				err = set(fd, &fdEntry{r: e.r, w: e.w})
			case rd.Op == syntax.DplOut && rd.N == nil:
				// >&FILE is &>FILE.
				f, oerr := r.openOut(target, false, false)
				if oerr != nil {
					return fail(fmt.Errorf("%s: %s", target, openErrText(oerr)))
				}
				opened = append(opened, f)
				e := &fdEntry{w: f}
				_ = set(1, e)
				_ = set(2, e)
			default:
				return fail(fmt.Errorf("%s: ambiguous redirect", target))
			}
			if err != nil {
				return fail(err)
			}
		default:
			return fail(fmt.Errorf("redirection %s is not supported", rd.Op))
		}
	}
	return restore, nil
}

// openErrText words an error of opening a file for writing.
func openErrText(err error) string {
	switch err.Error() {
	case "Is a directory", "cannot overwrite existing file", "Bad file descriptor":
		return err.Error()
	}
	return errText(err)
}

// heredoc returns the body of a here-document: expanded unless its
// delimiter was quoted; with <<- leading tabs are removed from each line.
func (r *runner) heredoc(rd *syntax.Redirect) (string, error) {
	if rd.Hdoc == nil {
		return "", nil
	}
	word := rd.Hdoc
	if rd.Op == syntax.DashHdoc {
		word = stripTabs(word)
	}
	if quotedWord(rd.Word) {
		var b strings.Builder
		for _, p := range word.Parts {
			if lit, ok := p.(*syntax.Lit); ok {
				b.WriteString(lit.Value)
			}
		}
		return b.String(), nil
	}
	return r.document(word)
}

// quotedWord reports whether a here-document delimiter was quoted.
func quotedWord(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		case *syntax.Lit:
			if strings.Contains(p.Value, `\`) {
				return true
			}
		}
	}
	return false
}

// stripTabs removes the tabs that start each line of a <<- body.
func stripTabs(w *syntax.Word) *syntax.Word {
	out := &syntax.Word{}
	atLineStart := true
	for _, p := range w.Parts {
		lit, ok := p.(*syntax.Lit)
		if !ok {
			out.Parts = append(out.Parts, p)
			atLineStart = false
			continue
		}
		var b strings.Builder
		for i := 0; i < len(lit.Value); i++ {
			c := lit.Value[i]
			if c == '\t' && atLineStart {
				continue
			}
			atLineStart = c == '\n'
			b.WriteByte(c)
		}
		out.Parts = append(out.Parts, &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: b.String()})
	}
	return out
}

// stdinReader returns the shell's stdin as a buffered reader that read
// can consume line by line, installing it so later readers continue where
// read stopped.
func (r *runner) stdinReader() *bufio.Reader {
	if br, ok := r.stdin.(*bufio.Reader); ok {
		return br
	}
	br := bufio.NewReader(r.stdin)
	r.stdin = br
	return br
}
