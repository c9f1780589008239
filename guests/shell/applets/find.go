package applets

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

const findUsage = "find [PATH]... [-maxdepth N] [-mindepth N] [EXPRESSION]"

// findNode is one node of a find expression.
type findNode struct {
	op       string // "and", "or", "not", or a primary such as "-name"
	kids     []*findNode
	arg      string
	num      int64 // -mtime/-mmin: the N; -size: the unit in bytes
	sizeWant int64 // -size: the N
	cmp      int   // -1 less than, 0 exactly, 1 more than (for -size, -mtime)
	re       *regexp.Regexp
	execArgs []string
	batch    bool // -exec ... {} +
}

// findVisit is what the expression sees of one file.
type findVisit struct {
	display string // the path as printed
	full    string // the resolved absolute path
	info    fs.FileInfo
	depth   int
}

type finder struct {
	p                  *Proc
	out                *bufio.Writer
	root               *findNode
	maxDepth, minDepth int
	depthFirst         bool
	status             int
	batches            map[*findNode][]string
	pruned             bool
}

// findApplet walks directory trees and evaluates an expression for each
// file: -name -iname -path -regex -type -empty -size -mtime -newer, -maxdepth
// -mindepth -depth, actions -print -print0 -delete -exec -prune, and the
// operators ! -not -a -and -o -or ( ).
func findApplet(p *Proc, args []string) int {
	rest := args[1:]
	var starts []string
	for len(rest) > 0 && !strings.HasPrefix(rest[0], "-") && rest[0] != "!" && rest[0] != "(" {
		starts = append(starts, rest[0])
		rest = rest[1:]
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	f := &finder{p: p, maxDepth: -1, batches: map[*findNode][]string{}}
	ps := &findParser{args: rest, f: f}
	root, err := ps.parse()
	if err != nil {
		return p.usage("find", err.Error(), findUsage)
	}
	if !ps.hasAction {
		if root == nil {
			root = &findNode{op: "-print"}
		} else {
			root = &findNode{op: "and", kids: []*findNode{root, {op: "-print"}}}
		}
	}
	f.root = root
	f.out = bufio.NewWriter(p.Stdout)
	for _, s := range starts {
		full := p.Path(s)
		info, err := os.Lstat(full)
		if err != nil {
			f.out.Flush()
			p.errorf("find", "'%s': %s", s, ErrText(err))
			f.status = 1
			continue
		}
		if err := f.walk(findVisit{display: s, full: full, info: info}); err != nil {
			if brokenPipe(err) {
				return StatusBrokenPipe
			}
			f.out.Flush()
			p.errorf("find", "%s", err)
			return 1
		}
	}
	for node, paths := range f.batches {
		f.out.Flush()
		if p.Exec(p.Stdin, append(substituteAll(node.execArgs, "{}", ""), paths...)) != 0 {
			f.status = 1
		}
	}
	if err := f.out.Flush(); err != nil {
		return p.writeFailed("find", err)
	}
	return f.status
}

// walk visits v and, for directories, everything below it in name order.
func (f *finder) walk(v findVisit) error {
	if f.p.cancelled() {
		return f.p.ctx().Err()
	}
	inRange := v.depth >= f.minDepth
	if !f.depthFirst && inRange {
		f.pruned = false
		if _, err := f.eval(f.root, v); err != nil {
			return err
		}
		if f.pruned {
			return nil
		}
	}
	if v.info.IsDir() && (f.maxDepth < 0 || v.depth < f.maxDepth) {
		entries, err := os.ReadDir(v.full)
		if err != nil {
			f.out.Flush()
			f.p.errorf("find", "'%s': %s", v.display, ErrText(err))
			f.status = 1
		}
		names := make([]string, 0, len(entries))
		for _, e := range entries {
			names = append(names, e.Name())
		}
		sort.Strings(names)
		for _, n := range names {
			full := path.Join(v.full, n)
			info, err := os.Lstat(full)
			if err != nil {
				continue
			}
			display := v.display + "/" + n
			if strings.HasSuffix(v.display, "/") {
				display = v.display + n
			}
			if err := f.walk(findVisit{display: display, full: full, info: info, depth: v.depth + 1}); err != nil {
				return err
			}
		}
	}
	if f.depthFirst && inRange {
		if _, err := f.eval(f.root, v); err != nil {
			return err
		}
	}
	return nil
}

// eval evaluates node for v; an error stops the walk (write errors).
func (f *finder) eval(n *findNode, v findVisit) (bool, error) {
	switch n.op {
	case "and":
		for _, k := range n.kids {
			ok, err := f.eval(k, v)
			if !ok || err != nil {
				return false, err
			}
		}
		return true, nil
	case "or":
		for _, k := range n.kids {
			ok, err := f.eval(k, v)
			if ok || err != nil {
				return ok, err
			}
		}
		return false, nil
	case "not":
		ok, err := f.eval(n.kids[0], v)
		return !ok, err
	case "-true", "-maxdepth", "-mindepth", "-depth":
		return true, nil
	case "-false":
		return false, nil
	case "-name", "-iname":
		name := path.Base(v.display)
		if v.depth == 0 {
			name = path.Base(v.full)
		}
		pat := n.arg
		if n.op == "-iname" {
			name, pat = strings.ToLower(name), strings.ToLower(pat)
		}
		ok, _ := path.Match(pat, name)
		return ok, nil
	case "-path", "-wholename", "-ipath":
		pat, s := n.arg, v.display
		if n.op == "-ipath" {
			pat, s = strings.ToLower(pat), strings.ToLower(s)
		}
		return globMatchPath(pat, s), nil
	case "-regex":
		return n.re.MatchString(v.display), nil
	case "-type":
		m := v.info.Mode()
		switch n.arg {
		case "f":
			return m.IsRegular(), nil
		case "d":
			return m.IsDir(), nil
		case "l":
			return m&fs.ModeSymlink != 0, nil
		}
		return false, nil
	case "-empty":
		if v.info.IsDir() {
			entries, err := os.ReadDir(v.full)
			return err == nil && len(entries) == 0, nil
		}
		return v.info.Mode().IsRegular() && v.info.Size() == 0, nil
	case "-size":
		return compareNum(ceilDiv(v.info.Size(), n.num), n.sizeWant, n.cmp), nil
	case "-mtime", "-mmin":
		unit := 24 * time.Hour
		if n.op == "-mmin" {
			unit = time.Minute
		}
		age := int64(time.Since(v.info.ModTime()) / unit)
		return compareNum(age, n.num, n.cmp), nil
	case "-newer":
		ref, err := os.Stat(f.p.Path(n.arg))
		return err == nil && v.info.ModTime().After(ref.ModTime()), nil
	case "-print":
		_, err := f.out.WriteString(v.display + "\n")
		return true, err
	case "-print0":
		_, err := f.out.WriteString(v.display + "\x00")
		return true, err
	case "-prune":
		f.pruned = true
		return true, nil
	case "-delete":
		if err := os.Remove(v.full); err != nil {
			f.out.Flush()
			f.p.errorf("find", "cannot delete '%s': %s", v.display, ErrText(err))
			f.status = 1
			return false, nil
		}
		return true, nil
	case "-exec":
		if n.batch {
			f.batches[n] = append(f.batches[n], v.display)
			return true, nil
		}
		if err := f.out.Flush(); err != nil {
			return false, err
		}
		return f.p.Exec(f.p.Stdin, substituteAll(n.execArgs, "{}", v.display)) == 0, nil
	}
	return false, fmt.Errorf("unknown predicate %s", n.op)
}

// compareNum compares got with want as find's +N / -N / N do.
func compareNum(got, want int64, cmp int) bool {
	switch cmp {
	case 1:
		return got > want
	case -1:
		return got < want
	}
	return got == want
}

// ceilDiv returns size in units of unit bytes, rounded up, as -size counts.
func ceilDiv(size, unit int64) int64 {
	if unit <= 0 {
		return size
	}
	return (size + unit - 1) / unit
}

// globMatchPath matches a -path pattern, where * also matches '/'.
func globMatchPath(pat, s string) bool {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[':
			if j := strings.IndexByte(pat[i+1:], ']'); j >= 0 {
				class := pat[i+1 : i+1+j]
				if strings.HasPrefix(class, "!") {
					class = "^" + class[1:]
				}
				b.WriteString("[" + class + "]")
				i += j + 1
				continue
			}
			b.WriteString(`\[`)
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(s)
}

// substituteAll replaces every occurrence of old in each arg; with an
// empty repl, args that are exactly old are dropped.
func substituteAll(args []string, old, repl string) []string {
	out := make([]string, 0, len(args))
	for _, a := range args {
		if repl == "" && a == old {
			continue
		}
		out = append(out, strings.ReplaceAll(a, old, repl))
	}
	return out
}

// findParser parses the expression part of find's command line.
type findParser struct {
	args      []string
	f         *finder
	hasAction bool
}

func (ps *findParser) peek() string {
	if len(ps.args) == 0 {
		return ""
	}
	return ps.args[0]
}

func (ps *findParser) next() string {
	a := ps.args[0]
	ps.args = ps.args[1:]
	return a
}

func (ps *findParser) parse() (*findNode, error) {
	if len(ps.args) == 0 {
		return nil, nil
	}
	n, err := ps.or()
	if err != nil {
		return nil, err
	}
	if len(ps.args) > 0 {
		return nil, fmt.Errorf("unexpected '%s'", ps.peek())
	}
	return n, nil
}

func (ps *findParser) or() (*findNode, error) {
	left, err := ps.and()
	if err != nil {
		return nil, err
	}
	kids := []*findNode{left}
	for ps.peek() == "-o" || ps.peek() == "-or" {
		ps.next()
		right, err := ps.and()
		if err != nil {
			return nil, err
		}
		kids = append(kids, right)
	}
	if len(kids) == 1 {
		return left, nil
	}
	return &findNode{op: "or", kids: kids}, nil
}

func (ps *findParser) and() (*findNode, error) {
	left, err := ps.unary()
	if err != nil {
		return nil, err
	}
	kids := []*findNode{left}
	for {
		switch ps.peek() {
		case "-a", "-and":
			ps.next()
		case "", "-o", "-or", ")":
			if len(kids) == 1 {
				return left, nil
			}
			return &findNode{op: "and", kids: kids}, nil
		}
		right, err := ps.unary()
		if err != nil {
			return nil, err
		}
		kids = append(kids, right)
	}
}

func (ps *findParser) unary() (*findNode, error) {
	switch ps.peek() {
	case "":
		return nil, fmt.Errorf("expected an expression")
	case "!", "-not":
		ps.next()
		k, err := ps.unary()
		if err != nil {
			return nil, err
		}
		return &findNode{op: "not", kids: []*findNode{k}}, nil
	case "(":
		ps.next()
		n, err := ps.or()
		if err != nil {
			return nil, err
		}
		if ps.peek() != ")" {
			return nil, fmt.Errorf("missing ')'")
		}
		ps.next()
		return n, nil
	}
	return ps.primary()
}

func (ps *findParser) primary() (*findNode, error) {
	op := ps.next()
	n := &findNode{op: op}
	needArg := func() (string, error) {
		if len(ps.args) == 0 {
			return "", fmt.Errorf("missing argument to '%s'", op)
		}
		return ps.next(), nil
	}
	var err error
	switch op {
	case "-name", "-iname", "-path", "-wholename", "-ipath", "-newer":
		n.arg, err = needArg()
	case "-regex":
		if n.arg, err = needArg(); err == nil {
			n.re, err = regexp.Compile("^(?:" + n.arg + ")$")
		}
	case "-type":
		if n.arg, err = needArg(); err == nil && !strings.Contains("fdl", n.arg) {
			err = fmt.Errorf("unknown argument to -type: %s", n.arg)
		}
	case "-maxdepth", "-mindepth":
		var s string
		if s, err = needArg(); err == nil {
			d, convErr := strconv.Atoi(s)
			if convErr != nil || d < 0 {
				return nil, fmt.Errorf("invalid argument '%s' to %s", s, op)
			}
			if op == "-maxdepth" {
				ps.f.maxDepth = d
			} else {
				ps.f.minDepth = d
			}
		}
	case "-depth":
		ps.f.depthFirst = true
	case "-size", "-mtime", "-mmin":
		var s string
		if s, err = needArg(); err == nil {
			err = n.parseNumArg(s)
		}
	case "-print", "-print0", "-prune":
		ps.hasAction = ps.hasAction || op != "-prune"
	case "-delete":
		ps.hasAction = true
		ps.f.depthFirst = true
	case "-exec":
		ps.hasAction = true
		for {
			if len(ps.args) == 0 {
				return nil, fmt.Errorf("missing argument to '-exec'")
			}
			a := ps.next()
			if a == ";" {
				break
			}
			if a == "+" && len(n.execArgs) > 0 && n.execArgs[len(n.execArgs)-1] == "{}" {
				n.batch = true
				break
			}
			n.execArgs = append(n.execArgs, a)
		}
		if len(n.execArgs) == 0 {
			return nil, fmt.Errorf("missing argument to '-exec'")
		}
	case "-true", "-false", "-empty":
	default:
		return nil, fmt.Errorf("unknown predicate '%s'", op)
	}
	if err != nil {
		return nil, err
	}
	return n, nil
}

// parseNumArg parses [+-]N with -size's unit suffixes (c, k, M, G; blocks
// of 512 bytes by default).
func (n *findNode) parseNumArg(s string) error {
	orig := s
	switch {
	case strings.HasPrefix(s, "+"):
		n.cmp, s = 1, s[1:]
	case strings.HasPrefix(s, "-"):
		n.cmp, s = -1, s[1:]
	}
	unit := int64(1)
	if n.op == "-size" {
		unit = 512
		if s != "" {
			switch s[len(s)-1] {
			case 'c':
				unit, s = 1, s[:len(s)-1]
			case 'w':
				unit, s = 2, s[:len(s)-1]
			case 'b':
				unit, s = 512, s[:len(s)-1]
			case 'k':
				unit, s = 1024, s[:len(s)-1]
			case 'M':
				unit, s = 1<<20, s[:len(s)-1]
			case 'G':
				unit, s = 1<<30, s[:len(s)-1]
			}
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("invalid argument '%s' to %s", orig, n.op)
	}
	if n.op == "-size" {
		// -size compares ceil(size/unit) with v.
		n.num, n.sizeWant = unit, v
		return nil
	}
	n.num = v
	return nil
}
