package applets

import (
	"bufio"
	"strconv"
	"strings"
)

const joinUsage = "join [-i] [-t CHAR] [-1 FIELD] [-2 FIELD] [-j FIELD] [-a 1|2]... [-v 1|2]... [-e EMPTY] [-o FORMAT] [--header] [--check-order|--nocheck-order] FILE1 FILE2"

// joinField is one item of -o: file 0 is the join field, else file 1 or 2
// and its 1-based field.
type joinField struct{ file, field int }

// joinOptions are join's parsed flags.
type joinOptions struct {
	sep        string // "" splits on runs of blanks; else the one separator
	sepSet     bool
	keyField   [2]int // 1-based
	unpaired   [2]bool
	noPaired   bool // -v: print only unpaired lines
	empty      string
	format     []joinField
	auto       bool // -o auto
	icase      bool
	header     bool
	checkOrder int // 0 default, 1 --check-order, -1 --nocheck-order
}

// joinApplet prints, for each pair of lines of two sorted files with equal
// join fields, the join field and the other fields of both lines, as GNU
// join does: the same options, the same merge (groups of equal keys give
// every pairing), and the same order check (a warning naming the first
// unsorted line of each file and status 1, by default only once a line
// could not be paired).
func joinApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "a:e:ij:o:t:v:1:2:z",
		long: map[string]string{"ignore-case": "i", "header": "header", "check-order": "check-order",
			"nocheck-order": "nocheck-order", "zero-terminated": "z"}}
	opts, operands, err := spec.parse(args[1:])
	if err != nil {
		return p.gnuUsage("join", err.Error(), joinUsage)
	}
	o := joinOptions{keyField: [2]int{1, 1}}
	fieldNum := func(s string) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= 1
	}
	for _, op := range opts {
		switch op.name {
		case "a", "v":
			switch op.val {
			case "1", "2":
				o.unpaired[op.val[0]-'1'] = true
			default:
				return p.gnuUsage("join", "invalid file number: '"+op.val+"'", joinUsage)
			}
			if op.name == "v" {
				o.noPaired = true
			}
		case "e":
			o.empty = op.val
		case "i":
			o.icase = true
		case "j", "1", "2":
			n, ok := fieldNum(op.val)
			if !ok {
				return p.gnuUsage("join", "invalid field number: '"+op.val+"'", joinUsage)
			}
			switch op.name {
			case "1":
				o.keyField[0] = n
			case "2":
				o.keyField[1] = n
			default:
				o.keyField = [2]int{n, n}
			}
		case "o":
			if op.val == "auto" {
				o.auto = true
				continue
			}
			for _, item := range strings.FieldsFunc(op.val, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
				f, problem := parseJoinField(item)
				if problem != "" {
					return p.gnuUsage("join", problem, joinUsage)
				}
				o.format = append(o.format, f)
			}
		case "t":
			if len([]rune(op.val)) > 1 {
				return p.gnuUsage("join", "multi-character tab '"+op.val+"'", joinUsage)
			}
			o.sep, o.sepSet = op.val, true
		case "header":
			o.header = true
		case "check-order":
			o.checkOrder = 1
		case "nocheck-order":
			o.checkOrder = -1
		case "z":
			return p.gnuUsage("join", "-z (NUL-terminated lines) is not supported", joinUsage)
		}
	}
	switch len(operands) {
	case 0:
		return p.gnuUsage("join", "missing operand", joinUsage)
	case 1:
		return p.gnuUsage("join", "missing operand after '"+operands[0]+"'", joinUsage)
	case 2:
	default:
		return p.gnuUsage("join", "extra operand '"+operands[2]+"'", joinUsage)
	}
	if operands[0] == "-" && operands[1] == "-" {
		p.errorf("join", "both files cannot be standard input")
		return 1
	}
	var files [2][]string
	for i, name := range operands {
		f, err := p.Open(name)
		if err != nil {
			return p.fileErr("join", name, err)
		}
		files[i], err = readLines(f)
		f.Close()
		if err != nil {
			return p.fileErr("join", name, err)
		}
	}
	out := bufio.NewWriter(p.Stdout)
	j := &joiner{o: &o, out: out, p: p, names: [2]string{operands[0], operands[1]}}
	for i := range files {
		j.in[i] = files[i]
	}
	status := j.run()
	if err := out.Flush(); err != nil {
		return p.writeFailed("join", err)
	}
	return status
}

// parseJoinField reads one -o item: 0 or FILE.FIELD.
func parseJoinField(s string) (joinField, string) {
	if s == "0" {
		return joinField{}, ""
	}
	file, field, ok := strings.Cut(s, ".")
	if !ok || (file != "1" && file != "2") {
		return joinField{}, "invalid file number in field spec: '" + s + "'"
	}
	n, err := strconv.Atoi(field)
	if err != nil || n < 1 {
		return joinField{}, "invalid field number: '" + field + "'"
	}
	return joinField{int(file[0] - '0'), n}, ""
}

// joiner merges the two files.
type joiner struct {
	o     *joinOptions
	out   *bufio.Writer
	p     *Proc
	names [2]string
	in    [2][]string
	pos   [2]int      // next line to read
	prev  [2][]string // fields of the line read last, for the order check
	// autoCount is the field count of each file's first line (-o auto).
	autoCount      [2]int
	autoSet        [2]bool
	seenUnpairable bool
	warned         [2]bool
	fatal          bool
}

// fields splits a line as join reads it.
func (j *joiner) fields(line string) []string {
	switch {
	case !j.o.sepSet:
		return strings.Fields(strings.Map(func(r rune) rune {
			if r == '\t' || r == '\v' || r == '\f' || r == '\r' {
				return ' '
			}
			return r
		}, line))
	case j.o.sep == "":
		return []string{line}
	case line == "":
		return nil
	}
	return strings.Split(line, j.o.sep)
}

// key is the join field of a line's fields ("" when it has too few).
func (j *joiner) key(f []string, file int) string {
	if n := j.o.keyField[file]; n <= len(f) {
		return f[n-1]
	}
	return ""
}

// cmpKeys compares two lines' join fields (bytes, or folded with -i).
func (j *joiner) cmpKeys(a []string, fa int, b []string, fb int) int {
	ka, kb := j.key(a, fa), j.key(b, fb)
	if j.o.icase {
		ka, kb = strings.ToLower(ka), strings.ToLower(kb)
	}
	return strings.Compare(ka, kb)
}

// next reads the next line of file i, checking its order against the line
// before; nil at the end.
func (j *joiner) next(i int) []string {
	if j.fatal || j.pos[i] >= len(j.in[i]) {
		return nil
	}
	line := j.in[i][j.pos[i]]
	j.pos[i]++
	f := j.fields(line)
	if !j.autoSet[i] {
		j.autoSet[i], j.autoCount[i] = true, len(f)
	}
	check := j.o.checkOrder == 1 || j.o.checkOrder == 0 && j.seenUnpairable
	if j.prev[i] != nil && check && !j.warned[i] && j.cmpKeys(j.prev[i], i, f, i) > 0 {
		j.out.Flush()
		j.p.errorf("join", "%s:%d: is not sorted: %s", j.names[i], j.pos[i], line)
		j.warned[i] = true
		if j.o.checkOrder == 1 {
			j.fatal = true
			return nil
		}
	}
	j.prev[i] = f
	return f
}

// print writes one output line for a (or nil) from file 1 and b (or nil)
// from file 2.
func (j *joiner) print(a, b []string) {
	sep := " "
	if j.o.sepSet && j.o.sep != "" {
		sep = j.o.sep
	}
	var parts []string
	field := func(f []string, n int) string {
		if n <= len(f) {
			return f[n-1]
		}
		return j.o.empty
	}
	switch {
	case len(j.o.format) > 0:
		for _, jf := range j.o.format {
			switch {
			case jf.file == 0 && a != nil:
				parts = append(parts, field(a, j.o.keyField[0]))
			case jf.file == 0:
				parts = append(parts, field(b, j.o.keyField[1]))
			case jf.file == 1 && a != nil:
				parts = append(parts, field(a, jf.field))
			case jf.file == 2 && b != nil:
				parts = append(parts, field(b, jf.field))
			default:
				parts = append(parts, j.o.empty)
			}
		}
	case j.o.auto:
		if a != nil {
			parts = append(parts, field(a, j.o.keyField[0]))
		} else {
			parts = append(parts, field(b, j.o.keyField[1]))
		}
		for i, f := range [2][]string{a, b} {
			for n := 1; n <= j.autoCount[i]; n++ {
				if n == j.o.keyField[i] {
					continue
				}
				if f == nil {
					parts = append(parts, j.o.empty)
				} else {
					parts = append(parts, field(f, n))
				}
			}
		}
	default:
		if a != nil {
			parts = append(parts, j.key(a, 0))
		} else {
			parts = append(parts, j.key(b, 1))
		}
		for i, f := range [2][]string{a, b} {
			for n, v := range f {
				if n+1 != j.o.keyField[i] {
					parts = append(parts, v)
				}
			}
		}
	}
	j.out.WriteString(strings.Join(parts, sep))
	j.out.WriteByte('\n')
}

// run merges the files and returns the exit status.
func (j *joiner) run() int {
	var cur [2][]string
	cur[0], cur[1] = j.next(0), j.next(1)
	if j.o.header && (cur[0] != nil || cur[1] != nil) {
		j.print(cur[0], cur[1])
		j.prev = [2][]string{}
		cur[0], cur[1] = j.next(0), j.next(1)
	}
	for cur[0] != nil && cur[1] != nil && !j.fatal {
		if j.p.cancelled() {
			return 130
		}
		d := j.cmpKeys(cur[0], 0, cur[1], 1)
		if d != 0 {
			i := 0
			if d > 0 {
				i = 1
			}
			if j.o.unpaired[i] {
				if i == 0 {
					j.print(cur[0], nil)
				} else {
					j.print(nil, cur[1])
				}
			}
			j.seenUnpairable = true
			cur[i] = j.next(i)
			continue
		}
		// Equal keys: gather each file's run of lines with this key.
		var group [2][][]string
		first := [2][]string{cur[0], cur[1]}
		for i := range 2 {
			other := first[1-i]
			group[i] = append(group[i], cur[i])
			for {
				cur[i] = j.next(i)
				if cur[i] == nil || j.cmpKeys(cur[i], i, other, 1-i) != 0 {
					break
				}
				group[i] = append(group[i], cur[i])
			}
		}
		if !j.o.noPaired && !j.fatal {
			for _, a := range group[0] {
				for _, b := range group[1] {
					j.print(a, b)
				}
			}
		}
	}
	for i := range 2 {
		for cur[i] != nil && !j.fatal {
			j.seenUnpairable = true
			if j.o.unpaired[i] {
				if i == 0 {
					j.print(cur[0], nil)
				} else {
					j.print(nil, cur[1])
				}
			}
			cur[i] = j.next(i)
		}
	}
	if j.fatal {
		return 1
	}
	if j.warned[0] || j.warned[1] {
		j.out.Flush()
		j.p.errorf("join", "input is not in sorted order")
		return 1
	}
	return 0
}
