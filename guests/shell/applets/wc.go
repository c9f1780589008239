package applets

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// wcApplet counts lines (-l), words (-w), bytes (-c) and characters (-m).
// With one input and one count it prints the bare number, which is what
// scripts compare against.
func wcApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "lwcmL", long: map[string]string{"lines": "l", "words": "w",
		"bytes": "c", "chars": "m", "max-line-length": "L"}}
	opts, files, err := spec.parse(args[1:])
	if err != nil {
		return p.usage("wc", err.Error(), "wc [-lwcmL] [FILE]...")
	}
	var want [5]bool // lines, words, chars, bytes, max line length
	for _, o := range opts {
		want[strings.Index("lwmcL", o.name)] = true
	}
	if want == [5]bool{} {
		want = [5]bool{true, true, false, true, false}
	}
	type result struct {
		counts [5]int64
		name   string
	}
	var results []result
	var total [5]int64
	status := 0
	for _, name := range inputs(files) {
		f, err := p.Open(name)
		if err != nil {
			status = p.fileErr("wc", name, err)
			continue
		}
		c, err := wcCount(f)
		f.Close()
		if err != nil {
			status = p.fileErr("wc", name, err)
			continue
		}
		for i := range c {
			if i == 4 {
				total[i] = max(total[i], c[i])
			} else {
				total[i] += c[i]
			}
		}
		shown := name
		if name == "-" && len(files) == 0 {
			shown = ""
		}
		results = append(results, result{c, shown})
	}
	if len(files) > 1 {
		results = append(results, result{total, "total"})
	}
	nwant := 0
	for _, w := range want {
		if w {
			nwant++
		}
	}
	width := 1
	if nwant > 1 || len(results) > 1 {
		for _, r := range results {
			for i, w := range want {
				if w {
					width = max(width, len(strconv.FormatInt(r.counts[i], 10)))
				}
			}
		}
		if len(files) == 0 {
			width = max(width, 7)
		}
	}
	out := bufio.NewWriter(p.Stdout)
	for _, r := range results {
		var cols []string
		for i, w := range want {
			if w {
				cols = append(cols, fmt.Sprintf("%*d", width, r.counts[i]))
			}
		}
		line := strings.Join(cols, " ")
		if r.name != "" {
			line += " " + r.name
		}
		out.WriteString(line + "\n")
	}
	if err := out.Flush(); err != nil {
		return p.writeFailed("wc", err)
	}
	return status
}

// wcCount returns lines, words, characters, bytes and the longest line.
func wcCount(r io.Reader) ([5]int64, error) {
	var c [5]int64
	br := bufio.NewReaderSize(r, 64*1024)
	inWord := false
	var lineLen int64
	for {
		ru, size, err := br.ReadRune()
		if err == io.EOF {
			break
		}
		if err != nil {
			return c, err
		}
		c[3] += int64(size)
		if ru != utf8.RuneError || size > 1 {
			c[2]++
		}
		if ru == '\n' {
			c[0]++
			c[4] = max(c[4], lineLen)
			lineLen = 0
		} else {
			lineLen++
		}
		if unicode.IsSpace(ru) {
			inWord = false
		} else if !inWord {
			inWord = true
			c[1]++
		}
	}
	c[4] = max(c[4], lineLen)
	return c, nil
}
