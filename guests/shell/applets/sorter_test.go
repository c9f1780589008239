package applets

import (
	"errors"
	"fmt"
	"io"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// randomText makes a string from a small alphabet of the bytes sort's
// options care about: blanks, a separator, digits and signs, letters in
// both cases, a multi-byte letter and an invalid byte.
func randomText(r *rand.Rand, max int) string {
	alphabet := []string{"a", "B", "b", " ", "\t", ",", "1", "2", "9", "-", ".", "e", "K", "é", "ß", "\xff", "x"}
	var b strings.Builder
	for n := r.Intn(max + 1); n > 0; n-- {
		b.WriteString(alphabet[r.Intn(len(alphabet))])
	}
	return b.String()
}

// splitExtract is the key extraction sort used before it learnt to work
// on offsets: split the line into fields, join the key's, then cut. It
// stays here as the reference the offsets must agree with.
func splitExtract(k sortKey, line, sep string) string {
	var fields []string
	if sep != "" {
		fields = strings.Split(line, sep)
	} else {
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
	}
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
	s := strings.Join(append([]string{from}, fields[k.startField:endField]...), sep)
	if k.endField > 0 && k.endChar > 0 && k.endField <= len(fields) {
		last := fields[k.endField-1]
		if k.endField == k.startField {
			last = from
		} else if sep == "" {
			last = strings.TrimLeft(last, " \t")
		}
		s = s[:len(s)-(len(last)-min(k.endChar, len(last)))]
	}
	return s
}

func TestSortKeyExtract(t *testing.T) {
	cases := []struct {
		key, sep, line, want string
	}{
		{"2", "", "a b c", " b c"},
		{"2,2", "", "a  b c", "  b"},
		{"2b,2", "", "a  b c", "b"},
		{"2.2,3.1", ",", "a,xyz,pq,r", "yz,p"},
		{"3", ",", "a,b", ""},
		{"2,1", ",", "a,b", ""},
		{"2", ",", "a,", ""},
		{"1,5", "", "a b", "a b"},
		{"2.9", "", "a bc", ""},
	}
	for _, c := range cases {
		k, err := parseSortKey(c.key)
		if err != nil {
			t.Fatal(err)
		}
		if got := k.extract(c.line, c.sep); got != c.want {
			t.Errorf("-k %s -t %q on %q: got %q, want %q", c.key, c.sep, c.line, got, c.want)
		}
		if ref := splitExtract(k, c.line, c.sep); ref != c.want {
			t.Errorf("reference: -k %s -t %q on %q: got %q, want %q", c.key, c.sep, c.line, ref, c.want)
		}
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 200000; i++ {
		k := sortKey{startField: 1 + r.Intn(4), startChar: r.Intn(4), endField: r.Intn(5), endChar: r.Intn(4)}
		k.order.blanks = r.Intn(2) == 0
		sep := ""
		if r.Intn(2) == 0 {
			sep = ","
		}
		line := randomText(r, 12)
		if got, want := k.extract(line, sep), splitExtract(k, line, sep); got != want {
			t.Fatalf("key %+v, sep %q, line %q: got %q, want %q", k, sep, line, got, want)
		}
	}
}

func TestFoldCompare(t *testing.T) {
	pairs := [][2]string{{"a", "A"}, {"ab", "AC"}, {"ß", "SS"}, {"ǆ", "Ǆ"}, {"ı", "I"}, {"\xff", "\uFFFD"},
		{"z", "é"}, {"", "a"}, {"a\xffb", "A\xffC"}, {"ﬀ", "FF"}}
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 100000; i++ {
		pairs = append(pairs, [2]string{randomText(r, 5), randomText(r, 5)})
	}
	for _, p := range pairs {
		want := strings.Compare(strings.ToUpper(p[0]), strings.ToUpper(p[1]))
		if got := foldCompare(p[0], p[1]); got != want {
			t.Fatalf("foldCompare(%q, %q) = %d, want %d", p[0], p[1], got, want)
		}
	}
}

func TestWholeInput(t *testing.T) {
	long := strings.Repeat("x", 3*wholeInputChunk+17)
	var many strings.Builder
	for i := 0; i < 100000; i++ {
		fmt.Fprintf(&many, "line %d\n", i)
	}
	inputs := []string{"", "\n", "\n\n", "a", "a\n", "a\nb", "a\r\nb\n", long, long + "\n" + long, "a\n" + long + "\nb\n", many.String(),
		many.String() + "tail"}
	readers := map[string]func(string) io.Reader{
		"whole":      func(s string) io.Reader { return strings.NewReader(s) },
		"one byte":   func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		"data + EOF": func(s string) io.Reader { return iotest.DataErrReader(strings.NewReader(s)) },
	}
	for name, reader := range readers {
		for _, text := range inputs {
			want, err := readLines(strings.NewReader(text))
			if err != nil {
				t.Fatal(err)
			}
			var in wholeInput
			if err := in.readFrom(reader(text)); err != nil {
				t.Fatal(err)
			}
			if got := in.strings(); in.lines != len(want) || !slices.Equal(got, want) {
				t.Fatalf("%s, %.20q (%d bytes): %d lines counted, %d read; want %d", name, text, len(text), in.lines, len(got), len(want))
			}
		}
	}
	// Several inputs: a last line without a newline stays its own line.
	var in wholeInput
	for _, s := range []string{"a\nb", "c\n", "d"} {
		if err := in.readFrom(strings.NewReader(s)); err != nil {
			t.Fatal(err)
		}
	}
	if got := in.strings(); !slices.Equal(got, []string{"a", "b", "c", "d"}) || in.lines != 4 {
		t.Fatalf("several inputs: %q (%d lines)", got, in.lines)
	}
	boom := errors.New("boom")
	if err := in.readFrom(iotest.ErrReader(boom)); !errors.Is(err, boom) {
		t.Fatalf("a read error: got %v", err)
	}
}

// TestSorterPathsAgree checks each way sort lays its lines out (the lines
// alone, a number beside each, the first key beside each) against a
// stable sort of the lines under the full comparison, for random lines
// and options.
func TestSorterPathsAgree(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	randomOrder := func() sortOrder {
		var o sortOrder
		switch r.Intn(6) {
		case 0:
			o.numeric = true
		case 1:
			o.general = true
		case 2:
			o.human = true
		case 3:
			o.version = true
		}
		o.fold = r.Intn(3) == 0
		o.blanks = r.Intn(3) == 0
		o.reverse = r.Intn(2) == 0
		return o
	}
	for i := 0; i < 3000; i++ {
		s := &sorter{global: randomOrder()}
		if r.Intn(3) == 0 {
			s.global = sortOrder{reverse: r.Intn(2) == 0}
		}
		unique, stable := r.Intn(3) == 0, r.Intn(3) == 0
		s.tieBreak = !unique && !stable
		if r.Intn(2) == 0 {
			s.sep = ","
		}
		s.orders = []sortOrder{s.global}
		if r.Intn(2) == 0 {
			s.orders = nil
			for n := 1 + r.Intn(3); n > 0; n-- {
				k := sortKey{startField: 1 + r.Intn(3), startChar: r.Intn(3), endField: r.Intn(4), endChar: r.Intn(3),
					order: s.global}
				if r.Intn(2) == 0 {
					k.order, k.hasOrder = randomOrder(), true
				}
				s.keys = append(s.keys, k)
				s.orders = append(s.orders, k.order)
			}
		}
		var text strings.Builder
		for n := r.Intn(30); n > 0; n-- {
			text.WriteString(randomText(r, 8) + "\n")
		}
		var in wholeInput
		if err := in.readFrom(strings.NewReader(text.String())); err != nil {
			t.Fatal(err)
		}
		want := in.strings()
		cmp := func(a, b string) int { return s.compare(a, b) }
		slices.SortStableFunc(want, cmp)
		if unique {
			want = slices.CompactFunc(want, func(a, b string) bool { return cmp(a, b) == 0 })
		}
		if got := slices.Collect(s.sort(&in, unique)); !slices.Equal(got, want) {
			t.Fatalf("sorter %+v, unique %v, lines %q:\ngot  %q\nwant %q", s, unique, text.String(), got, want)
		}
	}
}
