package applets

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

const grepUsage = "grep [-ivcnolLhHqsxwEFPr] [-m NUM] [-A NUM] [-B NUM] [-C NUM] [-e PATTERN]... PATTERN [FILE]..."

// grepOptions are grep's parsed flags.
type grepOptions struct {
	icase, invert, count, number, only, list, listMissing bool
	quiet, noMessages, wholeWord, wholeLine, recursive    bool
	withName, noName                                      bool
	syntax                                                regexSyntax
	fixed, perl                                           bool
	before, after                                         int
	maxCount                                              int
	patterns                                              []string
}

// grepApplet prints the lines of its inputs that match a pattern. Exit
// status 0 when a line matched, 1 when none did, 2 on error.
func grepApplet(p *Proc, args []string) int {
	spec := flagSpec{
		short: "ivcnolLqsxwEFGPrRhHe:f:A:B:C:m:a",
		long: map[string]string{
			"ignore-case": "i", "invert-match": "v", "count": "c", "line-number": "n",
			"only-matching": "o", "files-with-matches": "l", "files-without-match": "L",
			"quiet": "q", "silent": "q", "no-messages": "s", "line-regexp": "x",
			"word-regexp": "w", "extended-regexp": "E", "fixed-strings": "F",
			"basic-regexp": "G", "perl-regexp": "P", "recursive": "r", "no-filename": "h", "with-filename": "H",
			"regexp:": "e", "file:": "f", "after-context:": "A", "before-context:": "B",
			"context:": "C", "max-count:": "m", "text": "a", "include:": "include",
			"exclude:": "exclude",
		},
		numeric: true,
	}
	opts, operands, err := spec.parse(args[1:])
	if err != nil {
		return p.usage("grep", err.Error(), grepUsage)
	}
	var o grepOptions
	o.maxCount = -1
	var includes, excludes []string
	havePattern := false
	for _, op := range opts {
		switch op.name {
		case "i":
			o.icase = true
		case "v":
			o.invert = true
		case "c":
			o.count = true
		case "n":
			o.number = true
		case "o":
			o.only = true
		case "l":
			o.list = true
		case "L":
			o.listMissing = true
		case "q":
			o.quiet = true
		case "s":
			o.noMessages = true
		case "x":
			o.wholeLine = true
		case "w":
			o.wholeWord = true
		case "E":
			o.syntax, o.fixed, o.perl = extendedRE, false, false
		case "F":
			o.fixed = true
		case "G":
			o.syntax, o.fixed, o.perl = basicRE, false, false
		case "P":
			o.perl, o.fixed = true, false
		case "r", "R":
			o.recursive = true
		case "h":
			o.noName, o.withName = true, false
		case "H":
			o.withName, o.noName = true, false
		case "e":
			o.patterns = append(o.patterns, strings.Split(op.val, "\n")...)
			havePattern = true
		case "f":
			f, err := p.Open(op.val)
			if err != nil {
				p.fileErr("grep", op.val, err)
				return 2
			}
			lines, _ := readLines(f)
			f.Close()
			o.patterns = append(o.patterns, lines...)
			havePattern = true
		case "A", "B", "C", "m", "#":
			n, err := strconv.Atoi(op.val)
			if err != nil || n < 0 {
				return p.usage("grep", fmt.Sprintf("%s: invalid number", op.val), grepUsage)
			}
			switch op.name {
			case "A":
				o.after = n
			case "B":
				o.before = n
			case "C", "#":
				o.after, o.before = n, n
			case "m":
				o.maxCount = n
			}
		case "include":
			includes = append(includes, op.val)
		case "exclude":
			excludes = append(excludes, op.val)
		}
	}
	if !havePattern {
		if len(operands) == 0 {
			return p.usage("grep", "", grepUsage)
		}
		o.patterns = strings.Split(operands[0], "\n")
		operands = operands[1:]
	}
	match, err := o.matcher()
	if err != nil {
		p.errorf("grep", "%s", err)
		return 2
	}
	files := operands
	if len(files) == 0 {
		if o.recursive {
			files = []string{"."}
		} else {
			files = []string{"-"}
		}
	}
	if o.recursive {
		files = p.grepWalk(files, includes, excludes, &o)
	}
	showName := (len(files) > 1 || o.recursive) && !o.noName || o.withName
	out := bufio.NewWriter(p.Stdout)
	status := 1
	for _, name := range files {
		if p.cancelled() {
			return 130
		}
		f, err := p.Open(name)
		if err != nil {
			if !o.noMessages {
				p.errorf("grep", "%s: %s", name, ErrText(err))
			}
			status = 2
			continue
		}
		n, err := o.grepFile(out, f, displayName(name), showName, match)
		f.Close()
		if err != nil {
			if brokenPipe(err) {
				return StatusBrokenPipe
			}
			if !o.noMessages {
				out.Flush()
				p.errorf("grep", "%s: %s", name, ErrText(err))
			}
			status = 2
			continue
		}
		if n > 0 && status != 2 {
			status = 0
		}
		if n > 0 && o.quiet {
			return 0
		}
	}
	if err := out.Flush(); err != nil {
		return p.writeFailed("grep", err)
	}
	return status
}

// grepWalk expands directory operands of grep -r into the files below
// them, in name order.
func (p *Proc) grepWalk(roots, includes, excludes []string, o *grepOptions) []string {
	var files []string
	for _, root := range roots {
		if root == "-" || !p.isDir(root) {
			files = append(files, root)
			continue
		}
		full := p.Path(root)
		var found []string
		filepathWalk(full, func(abs string, d fs.DirEntry) {
			if d.IsDir() {
				return
			}
			base := path.Base(abs)
			if len(includes) > 0 && !anyMatch(includes, base) || anyMatch(excludes, base) {
				return
			}
			rel := strings.TrimPrefix(strings.TrimPrefix(abs, full), "/")
			if strings.HasSuffix(root, "/") {
				found = append(found, root+rel)
			} else {
				found = append(found, root+"/"+rel)
			}
		})
		sort.Strings(found)
		files = append(files, found...)
	}
	return files
}

// anyMatch reports whether name matches one of the shell patterns.
func anyMatch(patterns []string, name string) bool {
	for _, pat := range patterns {
		if ok, _ := path.Match(pat, name); ok {
			return true
		}
	}
	return false
}

// filepathWalk visits every entry below root (not following symlinks), in
// lexical order.
func filepathWalk(root string, fn func(abs string, d fs.DirEntry)) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		abs := path.Join(root, e.Name())
		fn(abs, e)
		if e.IsDir() {
			filepathWalk(abs, fn)
		}
	}
}

// lineMatcher finds the matches of the patterns in one line; nil means
// the line does not match.
type lineMatcher func(line string) [][]int

// matcher compiles the patterns into one matcher honouring -F -i -w -x.
func (o *grepOptions) matcher() (lineMatcher, error) {
	if o.perl && !o.fixed {
		return o.perlMatcher()
	}
	var alts []string
	for _, pat := range o.patterns {
		var re string
		switch {
		case o.fixed:
			re = regexp.QuoteMeta(pat)
		default:
			var err error
			if re, err = toRE2(pat, o.syntax); err != nil {
				return nil, err
			}
		}
		alts = append(alts, "(?:"+re+")")
	}
	expr := strings.Join(alts, "|")
	if o.wholeLine {
		expr = "^(?:" + expr + ")$"
	}
	if o.icase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression: %s", reErrText(err))
	}
	if lit, complete := re.LiteralPrefix(); complete && !o.wholeWord && !o.wholeLine && !o.only && !o.icase {
		// A plain string (grep ERROR): a substring search instead of the
		// regexp machine on every line.
		hit := [][]int{{0, 0}}
		return func(line string) [][]int {
			if strings.Contains(line, lit) {
				return hit
			}
			return nil
		}, nil
	}
	if !o.wholeWord {
		if !o.only {
			// Only -o needs the positions; everything else asks yes or no.
			hit := [][]int{{0, 0}}
			return func(line string) [][]int {
				if re.MatchString(line) {
					return hit
				}
				return nil
			}, nil
		}
		return func(line string) [][]int { return re.FindAllStringIndex(line, -1) }, nil
	}
	return func(line string) [][]int {
		var found [][]int
		for start := 0; start <= len(line); {
			loc := re.FindStringIndex(line[start:])
			if loc == nil {
				break
			}
			a, b := start+loc[0], start+loc[1]
			if wordBoundary(line, a, b) && b > a {
				found = append(found, []int{a, b})
				start = b
				continue
			}
			_, size := utf8.DecodeRuneInString(line[a:])
			start = a + max(size, 1)
		}
		return found
	}, nil
}

// wordBoundary reports whether line[a:b] is not glued to word characters.
func wordBoundary(line string, a, b int) bool {
	isWord := func(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	if a > 0 {
		r, _ := utf8.DecodeLastRuneInString(line[:a])
		if isWord(r) {
			return false
		}
	}
	if b < len(line) {
		r, _ := utf8.DecodeRuneInString(line[b:])
		if isWord(r) {
			return false
		}
	}
	return true
}

// grepFile searches one input and returns how many lines were selected.
func (o *grepOptions) grepFile(out *bufio.Writer, r io.Reader, name string, showName bool, match lineMatcher) (int, error) {
	prefix := func(lineNo int, sep byte) string {
		var s string
		if showName {
			s = name + string(sep)
		}
		if o.number {
			s += strconv.Itoa(lineNo) + string(sep)
		}
		return s
	}
	selected := 0
	var before []string // context lines waiting to be shown
	beforeStart := 0
	afterLeft := 0
	lastPrinted := 0
	lineNo := 0
	stopped := false
	err := eachLine(r, func(line string) error {
		if stopped {
			return nil
		}
		lineNo++
		matches := match(line)
		hit := (matches != nil) != o.invert
		if !hit {
			if afterLeft > 0 && !o.count && !o.list && !o.listMissing && !o.quiet {
				afterLeft--
				lastPrinted = lineNo
				_, err := out.WriteString(prefix(lineNo, '-') + line + "\n")
				return err
			}
			if o.before > 0 {
				if len(before) == 0 {
					beforeStart = lineNo
				}
				before = append(before, line)
				if len(before) > o.before {
					before = before[1:]
					beforeStart++
				}
			}
			return nil
		}
		selected++
		if o.maxCount >= 0 && selected >= o.maxCount {
			stopped = true
			if selected > o.maxCount {
				selected--
				return nil
			}
		}
		if o.count || o.list || o.listMissing || o.quiet {
			if o.list || o.quiet || o.listMissing {
				stopped = true
			}
			return nil
		}
		if (o.before > 0 || o.after > 0) && lastPrinted > 0 {
			first := lineNo
			if len(before) > 0 {
				first = beforeStart
			}
			if first > lastPrinted+1 {
				if _, err := out.WriteString("--\n"); err != nil {
					return err
				}
			}
		}
		for i, l := range before {
			if _, err := out.WriteString(prefix(beforeStart+i, '-') + l + "\n"); err != nil {
				return err
			}
		}
		before = before[:0]
		afterLeft = o.after
		lastPrinted = lineNo
		if o.only && !o.invert {
			for _, m := range matches {
				if m[1] == m[0] {
					continue
				}
				if _, err := out.WriteString(prefix(lineNo, ':') + line[m[0]:m[1]] + "\n"); err != nil {
					return err
				}
			}
			return nil
		}
		_, err := out.WriteString(prefix(lineNo, ':') + line + "\n")
		return err
	})
	if err != nil {
		return selected, err
	}
	switch {
	case o.quiet:
	case o.list:
		if selected > 0 {
			_, err = out.WriteString(name + "\n")
		}
	case o.listMissing:
		if selected == 0 {
			_, err = out.WriteString(name + "\n")
		}
	case o.count:
		s := strconv.Itoa(selected) + "\n"
		if showName {
			s = name + ":" + s
		}
		_, err = out.WriteString(s)
	}
	if o.listMissing {
		// -L succeeds for the files it lists.
		if selected == 0 {
			return 1, err
		}
		return 0, err
	}
	return selected, err
}
