package applets

import (
	"amlasandbox/guests/shell/hostcall"
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

const sedUsage = "sed [-nEsi] [-e SCRIPT]... [-f FILE]... [SCRIPT] [FILE]..."

// sedAddr is one address: a line number, $, /regex/ or first~step.
type sedAddr struct {
	kind        byte // 'n' line, '$' last, 'r' regex, '~' step, '+' relative (addr2 only)
	line        int
	re          *regexp.Regexp // nil with kind 'r' means the last regex used
	first, step int
}

// sedCmd is one command of a sed script.
type sedCmd struct {
	addr1, addr2 *sedAddr
	negate       bool
	name         byte

	// s and y
	re      *regexp.Regexp // nil: reuse the last regex
	repl    []replPart
	global  bool
	nth     int
	print   bool
	wfile   string
	from    []rune
	to      []rune
	text    string // a, i, c; label for b, t, T, :; file for r, w
	exit    int    // q, Q
	blockTo int    // '{': index of the matching '}'

	active   bool // inside an addr1,addr2 range
	rangeEnd int  // last line of a range whose end is a line number
}

// replPart is a piece of an s replacement: literal text, a group (& is
// group 0), or a case conversion (\U \L \E \u \l).
type replPart struct {
	lit   string
	group int // -1 for literals and case conversions
	conv  byte
}

// sedApplet is a stream editor: s///, d, p, q, a/i/c, y, =, hold space,
// branches, line and /regex/ addresses and ranges; -n, -E, -i, -s.
func sedApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "nEre:f:siuz", long: map[string]string{"quiet": "n", "silent": "n",
		"regexp-extended": "E", "expression:": "e", "file:": "f", "separate": "s", "in-place": "i",
		"null-data": "z", "posix": "posix", "debug": "debug"}}
	opts, operands, err := spec.parse(args[1:])
	if err != nil {
		return p.usage("sed", err.Error(), sedUsage)
	}
	var scripts []string
	var quiet, separate, inPlace bool
	syn := basicRE
	for _, o := range opts {
		switch o.name {
		case "n":
			quiet = true
		case "E", "r":
			syn = extendedRE
		case "e":
			scripts = append(scripts, o.val)
		case "f":
			f, err := p.Open(o.val)
			if err != nil {
				return p.fileErr("sed", o.val, err)
			}
			b, err := io.ReadAll(f)
			f.Close()
			if err != nil {
				return p.fileErr("sed", o.val, err)
			}
			scripts = append(scripts, strings.TrimSuffix(string(b), "\n"))
		case "s":
			separate = true
		case "i":
			inPlace, separate = true, true
		}
	}
	if len(scripts) == 0 {
		if len(operands) == 0 {
			return p.usage("sed", "no script specified", sedUsage)
		}
		scripts, operands = operands[:1], operands[1:]
	}
	prog, err := parseSed(strings.Join(scripts, "\n"), syn)
	if err != nil {
		p.errorf("sed", "-e expression #1: %s", err)
		return 1
	}
	if inPlace {
		if len(operands) == 0 {
			p.errorf("sed", "no input files")
			return 1
		}
		status := 0
		for _, name := range operands {
			data, err := os.ReadFile(p.Path(name))
			if err != nil {
				status = p.fileErr("sed", "can't read "+name, err)
				continue
			}
			var buf strings.Builder
			r := &sedRun{p: p, prog: prog, quiet: quiet}
			code := r.run(&buf, []sedInput{{name: name, r: strings.NewReader(string(data))}})
			if err := hostcall.WriteFile(p.Path(name), []byte(buf.String()), 0o644); err != nil {
				status = p.fileErr("sed", "couldn't edit "+name, err)
				continue
			}
			if code != 0 {
				return code
			}
		}
		return status
	}
	var ins []sedInput
	for _, name := range inputs(operands) {
		ins = append(ins, sedInput{name: name})
	}
	out := bufio.NewWriter(p.Stdout)
	status := 0
	if separate {
		for _, in := range ins {
			r := &sedRun{p: p, prog: prog, quiet: quiet}
			if code := r.run(out, []sedInput{in}); code != 0 {
				status = code
			}
			if r.quit {
				break
			}
		}
	} else {
		r := &sedRun{p: p, prog: prog, quiet: quiet}
		status = r.run(out, ins)
	}
	if err := out.Flush(); err != nil {
		return p.writeFailed("sed", err)
	}
	return status
}

// sedInput is one input file; r is set for in-memory input.
type sedInput struct {
	name string
	r    io.Reader
}

// sedRun is the state of one sed execution.
type sedRun struct {
	p      *Proc
	prog   []*sedCmd
	quiet  bool
	lastRE *regexp.Regexp

	ins      []sedInput
	cur      *bufio.Reader
	curFile  io.Closer
	next     string // lookahead line
	nextOK   bool
	nextNL   bool
	lineNo   int
	lastNL   bool // the current line ended with a newline
	status   int
	quit     bool
	pending  bool // output owes a newline
	out      io.Writer
	appended []string
	wfiles   map[string]io.WriteCloser
	hold     string // the hold space, kept across cycles
	jumps    int    // branches taken, to check for cancellation
}

// readRaw reads the next line from the inputs in turn.
func (r *sedRun) readRaw() (line string, nl, ok bool) {
	for {
		if r.cur == nil {
			if len(r.ins) == 0 {
				return "", false, false
			}
			in := r.ins[0]
			r.ins = r.ins[1:]
			if in.r != nil {
				r.cur = bufio.NewReader(in.r)
			} else {
				f, err := r.p.Open(in.name)
				if err != nil {
					r.p.errorf("sed", "can't read %s: %s", in.name, ErrText(err))
					r.status = 2
					continue
				}
				r.cur, r.curFile = bufio.NewReader(f), f
			}
		}
		s, err := r.cur.ReadString('\n')
		if s != "" {
			if strings.HasSuffix(s, "\n") {
				return s[:len(s)-1], true, true
			}
			return s, false, true
		}
		if err != nil {
			if err != io.EOF {
				r.p.errorf("sed", "read error: %s", ErrText(err))
				r.status = 2
			}
			if r.curFile != nil {
				r.curFile.Close()
			}
			r.cur, r.curFile = nil, nil
		}
	}
}

// readLine advances to the next input line; ok is false at the end.
func (r *sedRun) readLine() (string, bool) {
	if !r.nextOK {
		return "", false
	}
	line, nl := r.next, r.nextNL
	r.next, r.nextNL, r.nextOK = r.readRaw()
	r.lineNo++
	r.lastNL = nl
	return line, true
}

// isLast reports whether the current line is the last one.
func (r *sedRun) isLast() bool { return !r.nextOK }

// emit writes one line of output, owing its newline until the next write
// so a last input line without newline stays without one.
func (r *sedRun) emit(s string) error {
	if r.pending {
		if _, err := io.WriteString(r.out, "\n"); err != nil {
			return err
		}
	}
	_, err := io.WriteString(r.out, s)
	r.pending = true
	return err
}

func (r *sedRun) run(out io.Writer, ins []sedInput) int {
	r.out, r.ins = out, ins
	r.next, r.nextNL, r.nextOK = r.readRaw()
	defer func() {
		for _, f := range r.wfiles {
			f.Close()
		}
	}()
	err := r.cycles()
	if err == nil && r.pending && r.lastNL {
		_, err = io.WriteString(out, "\n")
	}
	if err != nil {
		if brokenPipe(err) {
			return StatusBrokenPipe
		}
		r.p.errorf("sed", "%s", err)
		return 4
	}
	return r.status
}

func (r *sedRun) cycles() error {
	for !r.quit {
		ps, ok := r.readLine()
		if !ok {
			return nil
		}
		if r.lineNo%1024 == 0 && r.p.cancelled() {
			return r.p.ctx().Err()
		}
		if err := r.execute(ps); err != nil {
			return err
		}
	}
	return nil
}

// execute runs the script over pattern space ps, possibly restarting (D).
func (r *sedRun) execute(ps string) error {
	autoprint := !r.quiet
	tflag := false
	for {
		restart := false
		deleted := false
		for pc := 0; pc < len(r.prog); pc++ {
			c := r.prog[pc]
			if !r.matches(c, ps) {
				if c.name == '{' {
					pc = c.blockTo
				}
				continue
			}
			switch c.name {
			case '{', '}', ':':
			case '=':
				if err := r.emit(strconv.Itoa(r.lineNo)); err != nil {
					return err
				}
			case 'a':
				r.appended = append(r.appended, c.text)
			case 'i':
				if err := r.emit(c.text); err != nil {
					return err
				}
			case 'c':
				// With a range, the text replaces the whole range: print it at
				// its end only.
				if c.addr2 == nil || !c.active {
					if err := r.emit(c.text); err != nil {
						return err
					}
				}
				deleted = true
			case 'b':
				pc = r.jump(c.text)
				if err := r.loopCheck(); err != nil {
					return err
				}
			case 't', 'T':
				if tflag == (c.name == 't') {
					pc = r.jump(c.text)
					if err := r.loopCheck(); err != nil {
						return err
					}
				}
				if c.name == 't' {
					tflag = false
				}
			case 'd':
				deleted = true
			case 'D':
				if i := strings.IndexByte(ps, '\n'); i >= 0 {
					ps = ps[i+1:]
					restart = true
				}
				deleted = true
			case 'p':
				if err := r.emit(ps); err != nil {
					return err
				}
			case 'P':
				first, _, _ := strings.Cut(ps, "\n")
				if err := r.emit(first); err != nil {
					return err
				}
			case 'n':
				if autoprint {
					if err := r.emit(ps); err != nil {
						return err
					}
				}
				if err := r.flushAppended(); err != nil {
					return err
				}
				line, ok := r.readLine()
				if !ok {
					r.quit = true
					return nil
				}
				ps = line
			case 'N':
				line, ok := r.readLine()
				if !ok {
					r.quit = true
					pc = len(r.prog)
					break
				}
				if err := r.flushAppended(); err != nil {
					return err
				}
				ps += "\n" + line
			case 'g':
				ps = r.hold
			case 'G':
				ps += "\n" + r.hold
			case 'h':
				r.hold = ps
			case 'H':
				r.hold += "\n" + ps
			case 'x':
				ps, r.hold = r.hold, ps
			case 'z':
				ps = ""
			case 'l':
				if err := r.emit(strconv.Quote(ps)[1:len(strconv.Quote(ps))-1] + "$"); err != nil {
					return err
				}
			case 'q':
				r.quit = true
				r.status = c.exit
				pc = len(r.prog)
			case 'Q':
				r.quit = true
				r.status = c.exit
				return nil
			case 'y':
				ps = transliterate(ps, c.from, c.to)
			case 's':
				out, did, err := r.substitute(c, ps)
				if err != nil {
					return err
				}
				if did {
					ps = out
					tflag = true
					if c.print {
						if err := r.emit(ps); err != nil {
							return err
						}
					}
					if c.wfile != "" {
						if err := r.writeTo(c.wfile, ps); err != nil {
							return err
						}
					}
				}
			case 'r':
				if data, err := os.ReadFile(r.p.Path(c.text)); err == nil {
					r.appended = append(r.appended, strings.TrimSuffix(string(data), "\n"))
				}
			case 'w':
				if err := r.writeTo(c.text, ps); err != nil {
					return err
				}
			}
			if deleted {
				break
			}
		}
		if !deleted && autoprint {
			if err := r.emit(ps); err != nil {
				return err
			}
		}
		if err := r.flushAppended(); err != nil {
			return err
		}
		if !restart || r.quit {
			return nil
		}
		if err := r.loopCheck(); err != nil {
			return err
		}
	}
}

// loopCheck stops scripts that branch forever once the run is cancelled.
func (r *sedRun) loopCheck() error {
	r.jumps++
	if r.jumps%1024 == 0 && r.p.cancelled() {
		return r.p.ctx().Err()
	}
	return nil
}

// jump returns the index before the label's command, so the loop's
// increment lands on it; an empty label jumps to the end.
func (r *sedRun) jump(label string) int {
	if label == "" {
		return len(r.prog)
	}
	for i, c := range r.prog {
		if c.name == ':' && c.text == label {
			return i
		}
	}
	return len(r.prog)
}

// flushAppended writes the text queued by a and r.
func (r *sedRun) flushAppended() error {
	for _, t := range r.appended {
		if err := r.emit(t); err != nil {
			return err
		}
	}
	r.appended = r.appended[:0]
	return nil
}

// writeTo appends a line to a w file, opened once per run.
func (r *sedRun) writeTo(name, line string) error {
	if r.wfiles == nil {
		r.wfiles = map[string]io.WriteCloser{}
	}
	f, ok := r.wfiles[name]
	if !ok {
		var err error
		if f, err = r.p.Create(name, false); err != nil {
			return fmt.Errorf("couldn't open file %s: %s", name, ErrText(err))
		}
		r.wfiles[name] = f
	}
	_, err := io.WriteString(f, line+"\n")
	return err
}

// matchAddr reports whether a single address selects the current line.
func (r *sedRun) matchAddr(a *sedAddr, ps string) bool {
	switch a.kind {
	case 'n':
		return r.lineNo == a.line
	case '$':
		return r.isLast()
	case '~':
		if a.step <= 0 {
			return r.lineNo == a.first
		}
		return r.lineNo >= a.first && (r.lineNo-a.first)%a.step == 0
	case 'r':
		re := a.re
		if re == nil {
			re = r.lastRE
		} else {
			r.lastRE = re
		}
		return re != nil && re.MatchString(ps)
	}
	return false
}

// matches reports whether command c applies to the current line,
// tracking addr1,addr2 ranges.
func (r *sedRun) matches(c *sedCmd, ps string) bool {
	var m bool
	switch {
	case c.addr1 == nil:
		m = true
	case c.addr2 == nil:
		m = r.matchAddr(c.addr1, ps)
	case c.active:
		m = true
		switch c.addr2.kind {
		case 'n', '+':
			if r.lineNo >= c.rangeEnd {
				c.active = false
			}
		default:
			if r.matchAddr(c.addr2, ps) {
				c.active = false
			}
		}
	default:
		var start bool
		zero := c.addr1.kind == 'n' && c.addr1.line == 0
		if zero {
			// 0,/re/: the range is open before line 1, so its end may match
			// on the very first line.
			start = r.lineNo == 1
		} else {
			start = r.matchAddr(c.addr1, ps)
		}
		if start {
			m = true
			c.active = true
			switch c.addr2.kind {
			case 'n':
				c.rangeEnd = c.addr2.line
				if c.addr2.line <= r.lineNo {
					c.active = false
				}
			case '+':
				c.rangeEnd = r.lineNo + c.addr2.line
				if c.addr2.line == 0 {
					c.active = false
				}
			case '$':
				if r.isLast() {
					c.active = false
				}
			case 'r':
				if zero && r.matchAddr(c.addr2, ps) {
					c.active = false
				}
			}
		}
	}
	return m != c.negate
}

// substitute applies an s command to ps.
func (r *sedRun) substitute(c *sedCmd, ps string) (string, bool, error) {
	re := c.re
	if re == nil {
		re = r.lastRE
		if re == nil {
			return "", false, fmt.Errorf("no previous regular expression")
		}
	} else {
		r.lastRE = re
	}
	matches := re.FindAllStringSubmatchIndex(ps, -1)
	if matches == nil {
		return ps, false, nil
	}
	var b strings.Builder
	last := 0
	did := false
	for i, m := range matches {
		n := i + 1
		if n < c.nth || !c.global && n > c.nth {
			continue
		}
		b.WriteString(ps[last:m[0]])
		expandRepl(&b, c.repl, ps, m)
		last = m[1]
		did = true
	}
	b.WriteString(ps[last:])
	return b.String(), did, nil
}

// expandRepl writes a replacement for match m of s.
func expandRepl(b *strings.Builder, parts []replPart, s string, m []int) {
	var mode, once byte // mode: 'U' or 'L' until \E; once: 'u' or 'l' for one char
	write := func(t string) {
		if t == "" {
			return
		}
		switch mode {
		case 'U':
			t = strings.ToUpper(t)
		case 'L':
			t = strings.ToLower(t)
		}
		if once != 0 {
			r, size := utf8.DecodeRuneInString(t)
			if once == 'u' {
				r = unicode.ToUpper(r)
			} else {
				r = unicode.ToLower(r)
			}
			t = string(r) + t[size:]
			once = 0
		}
		b.WriteString(t)
	}
	for _, p := range parts {
		switch {
		case p.conv == 'U' || p.conv == 'L':
			mode = p.conv
		case p.conv == 'E':
			mode = 0
		case p.conv != 0:
			once = p.conv
		case p.group >= 0:
			if 2*p.group+1 < len(m) && m[2*p.group] >= 0 {
				write(s[m[2*p.group]:m[2*p.group+1]])
			}
		default:
			write(p.lit)
		}
	}
}

// transliterate applies y/from/to/.
func transliterate(s string, from, to []rune) string {
	return strings.Map(func(r rune) rune {
		for i, f := range from {
			if f == r {
				return to[i]
			}
		}
		return r
	}, s)
}
