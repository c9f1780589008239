package applets

import (
	"bufio"
	"fmt"
	"math"
	"slices"
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
	var lines []string
	for _, name := range inputs(files) {
		f, err := p.Open(name)
		if err != nil {
			return p.fileErr("sort", name, err)
		}
		ls, err := readLines(f)
		f.Close()
		if err != nil {
			return p.fileErr("sort", name, err)
		}
		lines = append(lines, ls...)
	}
	for i := range keys {
		if !keys[i].hasOrder {
			keys[i].order = global
		}
	}
	// Decorate each line with its keys (and their numbers) once, rather
	// than re-parsing them in every comparison.
	type item struct {
		line string
		keys []string
		nums []float64
	}
	orders := []sortOrder{global}
	if len(keys) > 0 {
		orders = orders[:0]
		for _, k := range keys {
			orders = append(orders, k.order)
		}
	}
	decorate := func(line string) item {
		it := item{line: line}
		for i, o := range orders {
			key := line
			if len(keys) > 0 {
				key = keys[i].extract(line, sep)
			}
			if o.blanks {
				key = strings.TrimLeft(key, " \t")
			}
			it.keys = append(it.keys, key)
			if o.numeric || o.general || o.human {
				it.nums = append(it.nums, sortNumber(key, o))
			} else {
				it.nums = append(it.nums, 0)
			}
		}
		return it
	}
	cmp := func(a, b item) int {
		for i, o := range orders {
			var c int
			if o.numeric || o.general || o.human {
				switch x, y := a.nums[i], b.nums[i]; {
				case x < y:
					c = -1
				case x > y:
					c = 1
				}
				if o.reverse {
					c = -c
				}
			} else {
				c = compareBy(a.keys[i], b.keys[i], o)
			}
			if c != 0 {
				return c
			}
		}
		if unique || stable {
			return 0
		}
		// Last resort: the whole lines, byte-wise, honouring -r.
		c := strings.Compare(a.line, b.line)
		if global.reverse {
			c = -c
		}
		return c
	}
	items := make([]item, len(lines))
	for i, l := range lines {
		items[i] = decorate(l)
	}
	if check {
		for i := 1; i < len(items); i++ {
			if c := cmp(items[i-1], items[i]); c > 0 || unique && c == 0 {
				p.errorf("sort", "%s:%d: disorder: %s", displayName(inputs(files)[0]), i+1, lines[i])
				return 1
			}
		}
		return 0
	}
	if unique || stable {
		slices.SortStableFunc(items, cmp)
	} else {
		// cmp is a total order here (the last resort compares whole
		// lines), so equal items are equal lines and stability buys
		// nothing; pdqsort is much faster than the stable merge.
		slices.SortFunc(items, cmp)
	}
	if unique {
		items = slices.CompactFunc(items, func(a, b item) bool { return cmp(a, b) == 0 })
	}
	lines = lines[:0]
	for _, it := range items {
		lines = append(lines, it.line)
	}
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
	for _, l := range lines {
		if _, err := out.WriteString(l + "\n"); err != nil {
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

// fields splits a line as sort does: with sep on each sep; without, each
// field is a run of blanks followed by non-blanks.
func sortFields(line, sep string) []string {
	if sep != "" {
		return strings.Split(line, sep)
	}
	var fields []string
	i := 0
	for i < len(line) {
		j := i
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
		}
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		fields = append(fields, line[i:j])
		i = j
	}
	return fields
}

// extract returns the part of line the key looks at.
func (k sortKey) extract(line, sep string) string {
	fields := sortFields(line, sep)
	if k.startField > len(fields) {
		return ""
	}
	from := fields[k.startField-1]
	if k.order.blanks || sep == "" && k.startChar > 0 {
		from = strings.TrimLeft(from, " \t")
	}
	if k.startChar > 1 {
		from = from[min(k.startChar-1, len(from)):]
	}
	endField := k.endField
	if endField == 0 || endField > len(fields) {
		endField = len(fields)
	}
	if endField < k.startField {
		return ""
	}
	parts := []string{from}
	parts = append(parts, fields[k.startField:endField]...)
	joiner := sep
	s := strings.Join(parts, joiner)
	if k.endField > 0 && k.endChar > 0 && k.endField <= len(fields) {
		last := fields[k.endField-1]
		if k.endField == k.startField {
			last = from
		} else if sep == "" {
			last = strings.TrimLeft(last, " \t")
		}
		cut := len(last) - min(k.endChar, len(last))
		s = s[:len(s)-cut]
	}
	return s
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
		c = strings.Compare(strings.ToUpper(a), strings.ToUpper(b))
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
