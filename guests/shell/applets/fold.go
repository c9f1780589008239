package applets

import (
	"bufio"
	"strconv"
	"strings"
	"unicode/utf8"
)

const foldUsage = "fold [-bs] [-w WIDTH] [FILE]..."

// foldApplet wraps lines longer than WIDTH columns (80 by default) as GNU
// fold does: a tab moves to the next multiple of 8, a backspace one column
// back, a carriage return to column 0; with -s a line breaks after its
// last blank that fits; -b counts bytes. One difference: without -b the
// columns are characters, where GNU fold counts bytes and so splits UTF-8
// characters.
func foldApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "bsw:", numeric: true, long: map[string]string{"bytes": "b", "spaces": "s", "width:": "w"}}
	opts, files, err := spec.parse(args[1:])
	if err != nil {
		return p.gnuUsage("fold", err.Error(), foldUsage)
	}
	width, bytes, spaces := 80, false, false
	for _, o := range opts {
		switch o.name {
		case "b":
			bytes = true
		case "s":
			spaces = true
		case "w", "#":
			n, err := strconv.Atoi(o.val)
			if err != nil || n < 1 {
				p.errorf("fold", "invalid number of columns: '%s'", o.val)
				return 1
			}
			width = n
		}
	}
	out := bufio.NewWriter(p.Stdout)
	status := 0
	for _, name := range inputs(files) {
		f, err := p.Open(name)
		if err != nil {
			status = p.fileErr("fold", name, err)
			continue
		}
		br := bufio.NewReaderSize(f, 64*1024)
		for {
			line, rerr := br.ReadString('\n')
			nl := strings.HasSuffix(line, "\n")
			out.WriteString(foldLine(strings.TrimSuffix(line, "\n"), width, bytes, spaces))
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
		return p.writeFailed("fold", err)
	}
	return status
}

// foldLine wraps one line (without its newline).
func foldLine(line string, width int, bytes, spaces bool) string {
	var b strings.Builder
	var cur []string // the pending output line, one unit (byte or character) each
	col := 0
	advance := func(col int, u string) int {
		if bytes {
			return col + 1
		}
		switch u {
		case "\t":
			return col + 8 - col%8
		case "\b":
			return max(col-1, 0)
		case "\r":
			return 0
		}
		return col + 1
	}
	units := func(s string) []string {
		var us []string
		for len(s) > 0 {
			n := 1
			if !bytes {
				_, n = utf8.DecodeRuneInString(s)
			}
			us = append(us, s[:n])
			s = s[n:]
		}
		return us
	}
	recount := func() int {
		c := 0
		for _, u := range cur {
			c = advance(c, u)
		}
		return c
	}
	for _, u := range units(line) {
		for {
			next := advance(col, u)
			if next <= width {
				cur = append(cur, u)
				col = next
				break
			}
			if spaces {
				last := -1
				for i := len(cur) - 1; i >= 0; i-- {
					if cur[i] == " " || cur[i] == "\t" {
						last = i
						break
					}
				}
				if last >= 0 {
					b.WriteString(strings.Join(cur[:last+1], "") + "\n")
					cur = append([]string(nil), cur[last+1:]...)
					col = recount()
					continue
				}
			}
			if len(cur) == 0 {
				// One unit wider than the width gets a line of its own.
				cur = append(cur, u)
				col = next
				break
			}
			b.WriteString(strings.Join(cur, "") + "\n")
			cur, col = nil, 0
		}
	}
	b.WriteString(strings.Join(cur, ""))
	return b.String()
}
