package applets

import (
	"bufio"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

const cutUsage = "cut -f LIST [-d DELIM] [-s] | -c LIST | -b LIST [--complement] [FILE]..."

// span is a 1-based inclusive range of a cut list; hi 0 means "to the end".
type span struct{ lo, hi int }

// parseList parses a cut list such as "1,3", "1-5", "-3" or "2-".
func parseList(s string) ([]span, error) {
	var spans []span
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		var sp span
		var err error
		switch {
		case !isRange:
			if sp.lo, err = strconv.Atoi(lo); err != nil || sp.lo < 1 {
				return nil, fmt.Errorf("invalid field value '%s'", part)
			}
			sp.hi = sp.lo
		default:
			sp.lo = 1
			if lo != "" {
				if sp.lo, err = strconv.Atoi(lo); err != nil || sp.lo < 1 {
					return nil, fmt.Errorf("invalid range '%s'", part)
				}
			}
			if hi != "" {
				if sp.hi, err = strconv.Atoi(hi); err != nil || sp.hi < sp.lo {
					return nil, fmt.Errorf("invalid range '%s'", part)
				}
			} else if lo == "" {
				return nil, fmt.Errorf("invalid range with no endpoint: -")
			}
		}
		spans = append(spans, sp)
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	return spans, nil
}

// selected reports whether position i (1-based) is in the list.
func selected(spans []span, i int) bool {
	for _, s := range spans {
		if i >= s.lo && (s.hi == 0 || i <= s.hi) {
			return true
		}
	}
	return false
}

// cutApplet prints selected fields (-f, split on -d, tab by default) or
// characters (-c, -b) of each line.
func cutApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "b:c:d:f:sn", long: map[string]string{"bytes:": "b", "characters:": "c",
		"delimiter:": "d", "fields:": "f", "only-delimited": "s", "complement": "complement",
		"output-delimiter:": "output-delimiter"}}
	opts, files, err := spec.parse(args[1:])
	if err != nil {
		return p.usage("cut", err.Error(), cutUsage)
	}
	var mode string
	var list []span
	delim := "\t"
	var outDelim *string
	onlyDelimited, complement := false, false
	for _, o := range opts {
		switch o.name {
		case "b", "c", "f":
			if mode != "" {
				return p.usage("cut", "only one type of list may be specified", cutUsage)
			}
			mode = o.name
			if list, err = parseList(o.val); err != nil {
				return p.usage("cut", err.Error(), cutUsage)
			}
		case "d":
			if len([]rune(o.val)) != 1 {
				return p.usage("cut", "the delimiter must be a single character", cutUsage)
			}
			delim = o.val
		case "s":
			onlyDelimited = true
		case "complement":
			complement = true
		case "output-delimiter":
			v := o.val
			outDelim = &v
		}
	}
	if mode == "" {
		return p.usage("cut", "you must specify a list of bytes, characters, or fields", cutUsage)
	}
	want := func(i int) bool { return selected(list, i) != complement }
	out := bufio.NewWriter(p.Stdout)
	status := 0
	for _, name := range inputs(files) {
		f, err := p.Open(name)
		if err != nil {
			status = p.fileErr("cut", name, err)
			continue
		}
		err = eachLine(f, func(line string) error {
			var b strings.Builder
			switch mode {
			case "f":
				if !strings.Contains(line, delim) {
					if onlyDelimited {
						return nil
					}
					b.WriteString(line)
					break
				}
				sep := delim
				if outDelim != nil {
					sep = *outDelim
				}
				first := true
				for i, field := range strings.Split(line, delim) {
					if want(i + 1) {
						if !first {
							b.WriteString(sep)
						}
						b.WriteString(field)
						first = false
					}
				}
			case "c":
				for i, r := range []rune(line) {
					if want(i + 1) {
						b.WriteRune(r)
					}
				}
			case "b":
				for i := 0; i < len(line); i++ {
					if want(i + 1) {
						b.WriteByte(line[i])
					}
				}
			}
			b.WriteByte('\n')
			_, err := out.WriteString(b.String())
			return err
		})
		f.Close()
		if err != nil {
			if brokenPipe(err) {
				return StatusBrokenPipe
			}
			status = p.fileErr("cut", name, err)
		}
	}
	if err := out.Flush(); err != nil {
		return p.writeFailed("cut", err)
	}
	return status
}
