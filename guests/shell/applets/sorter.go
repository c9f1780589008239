package applets

import (
	"iter"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// sorter is one invocation of sort: its keys and orders, and how it
// compares lines. It sorts lines without building anything per line but
// what the order needs: the lines themselves for a byte-wise or text
// order, a number beside each line for a numeric one, and for -k each
// key's text (a substring of the line) and number, in flat slices.
type sorter struct {
	keys   []sortKey
	sep    string
	global sortOrder
	// orders holds one order per key, or the global order alone.
	orders []sortOrder
	// tieBreak: lines equal under every order are compared whole,
	// byte-wise (reversed by a global -r). Off for -s and -u.
	tieBreak bool
}

// numLine is a line with the number a numeric order reads from it.
type numLine struct {
	line string
	num  float64
}

// keyVal is one key of a line: its text (a substring of the line), and
// its number when the key's order is numeric.
type keyVal struct {
	key string
	num float64
}

// keyLine is a line with its first key. Its further keys, when there are
// more, are in one slice for all lines, from index rest on, so that a
// line costs no allocation of its own.
type keyLine struct {
	line  string
	first keyVal
	rest  int
}

// sort sorts the input's lines and returns them in order; with unique,
// only the first line of each run of lines equal under the orders. The
// lines are yielded from what was sorted, so that a number or key beside
// each line does not also need a slice of the lines alone.
func (s *sorter) sort(in *wholeInput, unique bool) iter.Seq[string] {
	o := s.orders[0]
	switch {
	case len(s.keys) == 0 && o == (sortOrder{reverse: o.reverse}):
		// Byte order on whole lines: lines that compare equal are the
		// same bytes, so neither stability nor the tie-break matters.
		lines := in.strings()
		slices.Sort(lines)
		if o.reverse {
			slices.Reverse(lines)
		}
		if unique {
			lines = slices.Compact(lines)
		}
		return slices.Values(lines)
	case len(s.keys) == 0 && !numericOrder(o):
		lines := in.strings()
		cmp := func(a, b string) int { return s.compare(a, b) }
		sortBy(lines, cmp, s.tieBreak)
		if unique {
			lines = slices.CompactFunc(lines, func(a, b string) bool { return cmp(a, b) == 0 })
		}
		return slices.Values(lines)
	case len(s.keys) == 0:
		items := make([]numLine, 0, in.lines)
		in.each(func(l string) { items = append(items, numLine{l, sortNumber(s.key(l, 0), o)}) })
		cmp := func(a, b numLine) int {
			if c := compareNums(a.num, b.num, o.reverse); c != 0 {
				return c
			}
			return s.lastResort(a.line, b.line)
		}
		sortBy(items, cmp, s.tieBreak)
		if unique {
			items = slices.CompactFunc(items, func(a, b numLine) bool { return cmp(a, b) == 0 })
		}
		return linesOf(items, func(it *numLine) string { return it.line })
	}
	nrest := len(s.orders) - 1
	items := make([]keyLine, 0, in.lines)
	rest := make([]keyVal, 0, in.lines*nrest)
	in.each(func(l string) {
		items = append(items, keyLine{line: l, first: s.keyVal(l, 0), rest: len(rest)})
		for i := 1; i <= nrest; i++ {
			rest = append(rest, s.keyVal(l, i))
		}
	})
	cmp := func(a, b keyLine) int {
		if c := compareKeys(a.first, b.first, o); c != 0 {
			return c
		}
		for i := range nrest {
			if c := compareKeys(rest[a.rest+i], rest[b.rest+i], s.orders[i+1]); c != 0 {
				return c
			}
		}
		return s.lastResort(a.line, b.line)
	}
	sortBy(items, cmp, s.tieBreak)
	if unique {
		items = slices.CompactFunc(items, func(a, b keyLine) bool { return cmp(a, b) == 0 })
	}
	return linesOf(items, func(it *keyLine) string { return it.line })
}

// keyVal returns key i of line, with its number under a numeric order.
func (s *sorter) keyVal(line string, i int) keyVal {
	kv := keyVal{key: s.key(line, i)}
	if o := s.orders[i]; numericOrder(o) {
		kv.num = sortNumber(kv.key, o)
	}
	return kv
}

// compareKeys compares two lines' keys under the key's order.
func compareKeys(a, b keyVal, o sortOrder) int {
	if numericOrder(o) {
		return compareNums(a.num, b.num, o.reverse)
	}
	return compareBy(a.key, b.key, o)
}

// linesOf yields the line of each item, in order.
func linesOf[T any](items []T, line func(*T) string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := range items {
			if !yield(line(&items[i])) {
				return
			}
		}
	}
}

// sortBy sorts with cmp. When cmp ends in the whole-line tie-break it is
// a total order, so equal elements are equal lines and the faster
// unstable sort gives the same output; without it (-s, -u) input order
// decides ties.
func sortBy[T any](x []T, cmp func(a, b T) int, total bool) {
	if total {
		slices.SortFunc(x, cmp)
	} else {
		slices.SortStableFunc(x, cmp)
	}
}

// check is sort -c: it reports the first line out of order (or, with
// unique, equal to the one before it).
func (s *sorter) check(p *Proc, in *wholeInput, unique bool, name string) int {
	status, n := 0, 0
	var prev string
	in.each(func(l string) {
		n++
		if status != 0 {
			return
		}
		if n > 1 {
			if c := s.compare(prev, l); c > 0 || unique && c == 0 {
				p.errorf("sort", "%s:%d: disorder: %s", name, n, l)
				status = 1
			}
		}
		prev = l
	})
	return status
}

// key returns the text order i looks at in line: the whole line or its
// key, without leading blanks under -b.
func (s *sorter) key(line string, i int) string {
	k := line
	if len(s.keys) > 0 {
		k = s.keys[i].extract(line, s.sep)
	}
	if s.orders[i].blanks {
		k = strings.TrimLeft(k, " \t")
	}
	return k
}

// compare compares two lines under every order, then by the tie-break,
// reading keys and numbers from the lines at each call: the order the
// faster layouts of sort must agree with.
func (s *sorter) compare(a, b string) int {
	for i := range s.orders {
		if c := compareKeys(s.keyVal(a, i), s.keyVal(b, i), s.orders[i]); c != 0 {
			return c
		}
	}
	return s.lastResort(a, b)
}

// lastResort is the whole-line tie-break, or 0 without one.
func (s *sorter) lastResort(a, b string) int {
	if !s.tieBreak {
		return 0
	}
	c := strings.Compare(a, b)
	if s.global.reverse {
		c = -c
	}
	return c
}

func numericOrder(o sortOrder) bool { return o.numeric || o.general || o.human }

// compareNums compares two numbers of a numeric order.
func compareNums(x, y float64, reverse bool) int {
	c := 0
	switch {
	case x < y:
		c = -1
	case x > y:
		c = 1
	}
	if reverse {
		c = -c
	}
	return c
}

// foldCompare compares a and b as strings.Compare(strings.ToUpper(a),
// strings.ToUpper(b)) does, without making the upper-case copies: rune
// by rune, an invalid byte counting as U+FFFD as ToUpper writes it.
// UTF-8 keeps code point order, so comparing runes compares the bytes
// the copies would hold.
func foldCompare(a, b string) int {
	for len(a) > 0 && len(b) > 0 {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra >= utf8.RuneSelf || rb >= utf8.RuneSelf || ra >= 'a' || rb >= 'a' {
			ra, rb = unicode.ToUpper(ra), unicode.ToUpper(rb)
		}
		if ra != rb {
			if ra < rb {
				return -1
			}
			return 1
		}
		a, b = a[na:], b[nb:]
	}
	switch {
	case len(a) > 0:
		return 1
	case len(b) > 0:
		return -1
	}
	return 0
}
