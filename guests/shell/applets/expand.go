package applets

import (
	"bufio"
	"strconv"
	"strings"
	"unicode/utf8"
)

// tabStops are the stops of -t: every n columns, or a list of columns
// (after the last one expand writes a single space for a tab and
// unexpand converts nothing).
type tabStops struct {
	every int
	list  []int
}

// next returns the first stop after col; ok false past the last listed one.
func (t tabStops) next(col int) (int, bool) {
	if t.list == nil {
		return col + t.every - col%t.every, true
	}
	for _, s := range t.list {
		if s > col {
			return s, true
		}
	}
	return 0, false
}

// parseTabStops reads -t: "N" or "N1,N2,..." (commas or blanks).
func parseTabStops(specs []string) (tabStops, string) {
	if len(specs) == 0 {
		return tabStops{every: 8}, ""
	}
	var nums []int
	for _, spec := range specs {
		for _, f := range strings.FieldsFunc(spec, func(r rune) bool { return r == ',' || r == ' ' }) {
			n, err := strconv.Atoi(f)
			if err != nil || n < 0 {
				return tabStops{}, "tab size contains invalid character(s): '" + f + "'"
			}
			if n == 0 {
				return tabStops{}, "tab size cannot be 0"
			}
			if len(nums) > 0 && n <= nums[len(nums)-1] {
				return tabStops{}, "tab sizes must be ascending"
			}
			nums = append(nums, n)
		}
	}
	if len(nums) == 1 {
		return tabStops{every: nums[0]}, ""
	}
	return tabStops{list: nums}, ""
}

// expandApplet turns tabs into spaces (-t stops, -i only in the leading
// blanks); unexpand turns runs of blanks that reach a tab stop into tabs
// (only leading ones unless -a; -t implies -a). Columns are characters.
func expandApplet(p *Proc, args []string) int {
	name := args[0]
	un := name == "unexpand"
	spec := flagSpec{short: "it:", numeric: true, long: map[string]string{"initial": "i", "tabs:": "t"}}
	usage := "expand [-i] [-t N|LIST] [FILE]..."
	if un {
		spec = flagSpec{short: "at:", numeric: true, long: map[string]string{"all": "a", "first-only": "first-only", "tabs:": "t"}}
		usage = "unexpand [-a] [--first-only] [-t N|LIST] [FILE]..."
	}
	opts, files, err := spec.parse(args[1:])
	if err != nil {
		return p.gnuUsage(name, err.Error(), usage)
	}
	initial, all := false, false
	var specs []string
	firstOnly := false
	for _, o := range opts {
		switch o.name {
		case "i":
			initial = true
		case "a":
			all = true
		case "first-only":
			firstOnly = true
		case "t", "#":
			specs = append(specs, o.val)
			if un {
				all = true
			}
		}
	}
	if firstOnly {
		all = false
	}
	stops, problem := parseTabStops(specs)
	if problem != "" {
		p.errorf(name, "%s", problem)
		return 1
	}
	out := bufio.NewWriter(p.Stdout)
	status := 0
	for _, file := range inputs(files) {
		f, err := p.Open(file)
		if err != nil {
			status = p.fileErr(name, file, err)
			continue
		}
		br := bufio.NewReaderSize(f, 64*1024)
		for {
			line, rerr := br.ReadString('\n')
			nl := strings.HasSuffix(line, "\n")
			line = strings.TrimSuffix(line, "\n")
			if un {
				out.WriteString(unexpandLine(line, stops, all))
			} else {
				out.WriteString(expandLine(line, stops, initial))
			}
			if nl {
				out.WriteByte('\n')
			}
			if rerr != nil {
				break
			}
		}
		f.Close()
	}
	if err := out.Flush(); err != nil {
		return p.writeFailed(name, err)
	}
	return status
}

func expandLine(line string, stops tabStops, initial bool) string {
	var b strings.Builder
	col := 0
	leading := true
	for _, r := range line {
		switch {
		case r == '\t' && (leading || !initial):
			next, ok := stops.next(col)
			if !ok {
				next = col + 1
			}
			b.WriteString(strings.Repeat(" ", next-col))
			col = next
		case r == '\b':
			b.WriteRune(r)
			col = max(col-1, 0)
		default:
			if r != ' ' && r != '\t' {
				leading = false
			}
			b.WriteRune(r)
			col++
		}
	}
	return b.String()
}

func unexpandLine(line string, stops tabStops, all bool) string {
	var b strings.Builder
	col := 0
	var pending []rune // blanks since the last stop or non-blank
	converting := true
	for len(line) > 0 {
		r, n := utf8.DecodeRuneInString(line)
		line = line[n:]
		if converting && (r == ' ' || r == '\t') {
			stop, ok := stops.next(col)
			if !ok {
				// Past the last listed stop: nothing more converts.
				b.WriteString(string(pending))
				pending = nil
				converting = false
				b.WriteRune(r)
				col++
				continue
			}
			if r == '\t' {
				col = stop
			} else {
				col++
			}
			pending = append(pending, r)
			if col == stop {
				if len(pending) > 1 || pending[0] == '\t' {
					b.WriteByte('\t')
				} else {
					b.WriteRune(pending[0])
				}
				pending = nil
			}
			continue
		}
		b.WriteString(string(pending))
		pending = nil
		if !all && r != ' ' && r != '\t' {
			converting = false
		}
		b.WriteRune(r)
		if r == '\b' {
			col = max(col-1, 0)
		} else {
			col++
		}
	}
	b.WriteString(string(pending))
	return b.String()
}
