package applets

import (
	"bufio"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

const sortUsage = "sort [-bfghnrsuVc] [-t SEP] [-k POS1[,POS2]]... [-o FILE] [FILE]..."

// sortKey is one -k key: fields and characters are 1-based; endField 0
// means the end of the line.
type sortKey struct {
	startField, startChar int
	endField, endChar     int
	order                 sortOrder
	hasOrder              bool
}

// sortOrder holds the ordering options of a key (or the global ones).
type sortOrder struct {
	numeric, general, human, version, fold, blanks, reverse bool
}

// sortApplet sorts lines byte-wise (the C locale), numerically (-n, -g,
// -h), by version (-V), by keys (-k with -t) and stably (-s).
func sortApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "bfghnrsuVcMk:t:o:zS:T:",
		long: map[string]string{"numeric-sort": "n", "reverse": "r", "unique": "u",
			"key:": "k", "field-separator:": "t", "output:": "o", "stable": "s",
			"ignore-case": "f", "human-numeric-sort": "h", "version-sort": "V",
			"general-numeric-sort": "g", "ignore-leading-blanks": "b", "check": "c"}}
	opts, files, err := spec.parse(args[1:])
	if err != nil {
		return p.usage("sort", err.Error(), sortUsage)
	}
	var global sortOrder
	var keys []sortKey
	var sep string
	var unique, stable, check bool
	output := ""
	for _, o := range opts {
		switch o.name {
		case "b":
			global.blanks = true
		case "f":
			global.fold = true
		case "g":
			global.general = true
		case "h":
			global.human = true
		case "n":
			global.numeric = true
		case "r":
			global.reverse = true
		case "V":
			global.version = true
		case "M":
			// Month order is not supported; keep the byte order.
		case "s":
			stable = true
		case "u":
			unique = true
		case "c":
			check = true
		case "k":
			k, err := parseSortKey(o.val)
			if err != nil {
				return p.usage("sort", err.Error(), sortUsage)
			}
			keys = append(keys, k)
		case "t":
			if o.val == `\t` {
				o.val = "\t"
			}
			if len([]rune(o.val)) != 1 {
				return p.usage("sort", "multi-character tab '"+o.val+"'", sortUsage)
			}
			sep = o.val
		case "o":
			output = o.val
		}
	}
	var in wholeInput
	for _, name := range inputs(files) {
		f, err := p.Open(name)
		if err != nil {
			return p.fileErr("sort", name, err)
		}
		err = in.readFrom(f)
		f.Close()
		if err != nil {
			return p.fileErr("sort", name, err)
		}
	}
	in.buf = nil
	if p.cancelled() {
		// The run was stopped while the input came in (an endless producer
		// ends with it): sorting what arrived would only delay the stop.
		return 130
	}
	for i := range keys {
		if !keys[i].hasOrder {
			keys[i].order = global
		}
	}
	s := &sorter{keys: keys, sep: sep, global: global, tieBreak: !unique && !stable}
	s.orders = []sortOrder{global}
	if len(keys) > 0 {
		s.orders = s.orders[:0]
		for _, k := range keys {
			s.orders = append(s.orders, k.order)
		}
	}
	if check {
		return s.check(p, &in, unique, displayName(inputs(files)[0]))
	}
	held := in.held()
	status := s.writeSorted(p, &in, unique, output)
	in = wholeInput{}
	collectAfter(held)
	return status
}

// writeSorted sorts the input and writes it to output, or to stdout when
// output is "".
func (s *sorter) writeSorted(p *Proc, in *wholeInput, unique bool, output string) int {
	lines := s.sort(in, unique)
	w := p.Stdout
	if output != "" {
		f, err := p.Create(output, false)
		if err != nil {
			return p.fileErr("sort", output, err)
		}
		defer f.Close()
		w = f
	}
	out := bufio.NewWriter(w)
	for l := range lines {
		out.WriteString(l)
		if err := out.WriteByte('\n'); err != nil {
			return p.writeFailed("sort", err)
		}
	}
	if err := out.Flush(); err != nil {
		return p.writeFailed("sort", err)
	}
	return 0
}

// parseSortKey parses F[.C][OPTS][,F[.C][OPTS]].
func parseSortKey(s string) (sortKey, error) {
	var k sortKey
	bad := fmt.Errorf("invalid key specification '%s'", s)
	parsePos := func(pos string) (field, char int, rest string, err error) {
		i := 0
		for i < len(pos) && pos[i] >= '0' && pos[i] <= '9' {
			i++
		}
		if i == 0 {
			return 0, 0, "", bad
		}
		field, _ = strconv.Atoi(pos[:i])
		pos = pos[i:]
		if strings.HasPrefix(pos, ".") {
			j := 1
			for j < len(pos) && pos[j] >= '0' && pos[j] <= '9' {
				j++
			}
			char, _ = strconv.Atoi(pos[1:j])
			pos = pos[j:]
		}
		return field, char, pos, nil
	}
	start, end, hasEnd := strings.Cut(s, ",")
	var opts1, opts2 string
	var err error
	if k.startField, k.startChar, opts1, err = parsePos(start); err != nil {
		return k, err
	}
	if k.startField == 0 {
		return k, bad
	}
	if hasEnd {
		if k.endField, k.endChar, opts2, err = parsePos(end); err != nil {
			return k, err
		}
	}
	for _, c := range opts1 + opts2 {
		k.hasOrder = true
		switch c {
		case 'n':
			k.order.numeric = true
		case 'g':
			k.order.general = true
		case 'h':
			k.order.human = true
		case 'r':
			k.order.reverse = true
		case 'f':
			k.order.fold = true
		case 'b':
			k.order.blanks = true
		case 'V':
			k.order.version = true
		case 'M', 'd', 'i':
		default:
			return k, bad
		}
	}
	return k, nil
}

// sortFields walks the fields of a line as sort splits them: with a
// separator, at each separator; without, each field is a run of blanks
// followed by non-blanks.
type sortFields struct {
	line, sep string
	pos       int
	done      bool
}

// next returns the bounds of the next field, ok false past the last.
func (f *sortFields) next() (start, end int, ok bool) {
	if f.done {
		return 0, 0, false
	}
	start = f.pos
	if f.sep != "" {
		if i := strings.Index(f.line[start:], f.sep); i >= 0 {
			end = start + i
			f.pos = end + len(f.sep)
		} else {
			end = len(f.line)
			f.done = true
		}
		return start, end, true
	}
	if start >= len(f.line) {
		f.done = true
		return 0, 0, false
	}
	end = start
	for end < len(f.line) && (f.line[end] == ' ' || f.line[end] == '\t') {
		end++
	}
	for end < len(f.line) && f.line[end] != ' ' && f.line[end] != '\t' {
		end++
	}
	f.pos = end
	return start, end, true
}

// skipBlanks returns i moved past the blanks at line[i:end].
func skipBlanks(line string, i, end int) int {
	for i < end && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	return i
}

// extract returns the part of line the key looks at: a substring of it,
// from the start field (its leading blanks dropped under -b, or with a
// start character and no separator), less startChar-1 characters, to
// the end of the end field (the line's last field when there is none,
// or it is past the last), cut after endChar characters of that field.
func (k sortKey) extract(line, sep string) string {
	f := sortFields{line: line, sep: sep}
	var fs, fe int
	for n := 0; n < k.startField; n++ {
		var ok bool
		if fs, fe, ok = f.next(); !ok {
			return ""
		}
	}
	if k.endField > 0 && k.endField < k.startField {
		return ""
	}
	from := fs
	if k.order.blanks || sep == "" && k.startChar > 0 {
		from = skipBlanks(line, from, fe)
	}
	if k.startChar > 1 {
		from += min(k.startChar-1, fe-from)
	}
	// The end field: its start (where endChar counts from) and end.
	ls, le := from, fe
	endIsField := k.endField == k.startField
	for n := k.startField; k.endField == 0 || n < k.endField; n++ {
		s, e, ok := f.next()
		if !ok {
			break
		}
		ls, le = s, e
		if sep == "" {
			ls = skipBlanks(line, s, e)
		}
		endIsField = n+1 == k.endField
	}
	if k.endField > 0 && k.endChar > 0 && endIsField {
		le = ls + min(k.endChar, le-ls)
	}
	return line[from:le]
}

// compareBy compares two keys under one set of ordering options.
func compareBy(a, b string, o sortOrder) int {
	if o.blanks {
		a, b = strings.TrimLeft(a, " \t"), strings.TrimLeft(b, " \t")
	}
	var c int
	switch {
	case o.numeric, o.general, o.human:
		na, nb := sortNumber(a, o), sortNumber(b, o)
		switch {
		case na < nb:
			c = -1
		case na > nb:
			c = 1
		}
	case o.version:
		c = compareVersions(a, b)
	case o.fold:
		c = foldCompare(a, b)
	default:
		c = strings.Compare(a, b)
	}
	if o.reverse {
		c = -c
	}
	return c
}

// sortNumber reads the leading number of s; text that is not a number sorts
// as zero (-n) or before every number (-g).
func sortNumber(s string, o sortOrder) float64 {
	s = strings.TrimLeft(s, " \t")
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	digits := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.' || o.general && (s[i] == 'e' || s[i] == 'E' ||
		(s[i] == '-' || s[i] == '+') && i > 0 && (s[i-1] == 'e' || s[i-1] == 'E'))) {
		if s[i] >= '0' && s[i] <= '9' {
			digits++
		}
		i++
	}
	if digits == 0 {
		if o.general {
			return math.Inf(-1)
		}
		return 0
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		// "1.2.3" and the like: use the longest prefix that parses.
		for j := i - 1; j > 0; j-- {
			if v, err = strconv.ParseFloat(s[:j], 64); err == nil {
				break
			}
		}
	}
	if o.human && i < len(s) {
		if e := strings.IndexByte("KMGTPE", byte(unicode.ToUpper(rune(s[i])))); e >= 0 {
			v *= math.Pow(1024, float64(e+1))
		}
	}
	return v
}
