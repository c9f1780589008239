package shell

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
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

// openIn opens a file for reading, understanding /dev/null and /dev/stdin.
func (r *runner) openIn(name string) (io.ReadCloser, error) {
	switch name {
	case "/dev/null":
		return io.NopCloser(strings.NewReader("")), nil
	case "/dev/stdin", "/dev/fd/0":
		return io.NopCloser(r.stdin), nil
	}
	p := applets.Proc{Dir: r.dir, Stdin: r.stdin}
	return p.Open(name)
}

// openOut opens a file for writing, understanding /dev/null, /dev/stdout
// and /dev/stderr.
func (r *runner) openOut(name string, appendTo bool) (io.WriteCloser, error) {
	switch name {
	case "/dev/null":
		return nopWriter{io.Discard}, nil
	case "/dev/stdout", "/dev/fd/1":
		return nopWriter{r.stdout}, nil
	case "/dev/stderr", "/dev/fd/2":
		return nopWriter{r.stderr}, nil
	}
	full := r.path(name)
	if st, err := os.Stat(full); err == nil && st.IsDir() {
		return nil, fmt.Errorf("Is a directory")
	}
	p := applets.Proc{Dir: r.dir}
	return p.Create(name, appendTo)
}

type nopWriter struct{ io.Writer }

func (nopWriter) Close() error { return nil }

// redirect applies redirections to the shell's streams and returns the
// function that undoes them (and closes what they opened). On error the
// redirections made so far stay until restore is called, so the message
// goes where bash would send it (echo 2>/dev/null >/bad/f prints nothing).
func (r *runner) redirect(redirs []*syntax.Redirect) (restore func(), err error) {
	oldIn, oldOut, oldErr, oldPipe := r.stdin, r.stdout, r.stderr, r.pipe
	var closers []io.Closer
	restore = func() {
		for _, c := range closers {
			c.Close()
		}
		r.stdin, r.stdout, r.stderr, r.pipe = oldIn, oldOut, oldErr, oldPipe
	}
	if len(redirs) == 0 {
		return func() {}, nil
	}
	fail := func(e error) (func(), error) {
		return restore, e
	}
	for _, rd := range redirs {
		fd := -1
		if rd.N != nil {
			n, convErr := strconv.Atoi(rd.N.Value)
			if convErr != nil {
				return fail(fmt.Errorf("bad file descriptor %q", rd.N.Value))
			}
			fd = n
		}
		switch rd.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			body, err := r.heredoc(rd)
			if err != nil {
				return fail(err)
			}
			if err := r.setFD(fd, 0, strings.NewReader(body), nil); err != nil {
				return fail(err)
			}
			continue
		case syntax.WordHdoc:
			s, err := r.literal(rd.Word)
			if err != nil {
				return fail(err)
			}
			if err := r.setFD(fd, 0, strings.NewReader(s+"\n"), nil); err != nil {
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
			f, err := r.openOut(target, appendTo)
			if err != nil {
				return fail(fmt.Errorf("%s: %s", target, openErrText(err)))
			}
			closers = append(closers, f)
			if rd.Op == syntax.RdrAll || rd.Op == syntax.AppAll {
				r.stdout, r.stderr, r.pipe = f, f, nil
				continue
			}
			if err := r.setFD(fd, 1, nil, f); err != nil {
				return fail(err)
			}
		case syntax.RdrIn, syntax.RdrInOut:
			f, err := r.openIn(target)
			if err != nil {
				return fail(fmt.Errorf("%s: %s", target, errText(err)))
			}
			closers = append(closers, f)
			if err := r.setFD(fd, 0, f, nil); err != nil {
				return fail(err)
			}
		case syntax.DplOut:
			if fd < 0 {
				fd = 1
			}
			switch target {
			case "1":
				err = r.setFD(fd, 1, nil, r.stdout)
			case "2":
				err = r.setFD(fd, 1, nil, r.stderr)
			case "-":
				err = r.setFD(fd, 1, nil, badFD{})
			default:
				if !isDigitString(target) && rd.N == nil {
					// >&FILE is &>FILE.
					f, oerr := r.openOut(target, false)
					if oerr != nil {
						return fail(fmt.Errorf("%s: %s", target, openErrText(oerr)))
					}
					closers = append(closers, f)
					r.stdout, r.stderr, r.pipe = f, f, nil
					continue
				}
				err = fmt.Errorf("%s: file descriptor %s is not supported (only 0, 1 and 2 exist)", target, target)
			}
			if err != nil {
				return fail(err)
			}
		case syntax.DplIn:
			if fd < 0 {
				fd = 0
			}
			switch target {
			case "0":
				err = r.setFD(fd, 0, r.stdin, nil)
			case "-":
				err = r.setFD(fd, 0, badFD{}, nil)
			default:
				err = fmt.Errorf("%s: file descriptor %s is not supported for input", target, target)
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
	if err.Error() == "Is a directory" {
		return "Is a directory"
	}
	return errText(err)
}

// setFD points file descriptor fd (or def when fd is -1) at a reader or
// writer. Only 0, 1 and 2 exist in the sandbox.
func (r *runner) setFD(fd, def int, in io.Reader, out io.Writer) error {
	if fd < 0 {
		fd = def
	}
	switch {
	case fd == 0 && in != nil:
		r.stdin = in
	case fd == 1 && out != nil:
		if pw, ok := out.(*pipeOut); ok {
			r.pipe = pw
		} else {
			r.pipe = nil
		}
		r.stdout = out
	case fd == 2 && out != nil:
		r.stderr = out
	case fd > 2:
		return fmt.Errorf("file descriptor %d is not supported (only 0, 1 and 2 exist)", fd)
	default:
		return fmt.Errorf("file descriptor %d cannot be redirected that way", fd)
	}
	return nil
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
	s, err := expand.Document(r.config(), word)
	if err != nil {
		return "", wrapExpand(err)
	}
	return s, nil
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
