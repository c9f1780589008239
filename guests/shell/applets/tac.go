package applets

import (
	"bufio"
	"bytes"
	"regexp"
)

const tacUsage = "tac [-b] [-r] [-s SEP] [FILE]..."

// tacApplet prints each input's records in reverse order, as GNU tac: a
// record ends with the separator (a newline, or -s SEP; a regular
// expression with -r) which stays with it, or starts with it with -b; a
// last record without a separator is printed as it is.
func tacApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "brs:", long: map[string]string{"before": "b", "regex": "r", "separator:": "s"}}
	opts, files, err := spec.parse(args[1:])
	if err != nil {
		return p.gnuUsage("tac", err.Error(), tacUsage)
	}
	before, isRegex, sep := false, false, "\n"
	for _, o := range opts {
		switch o.name {
		case "b":
			before = true
		case "r":
			isRegex = true
		case "s":
			if o.val == "" {
				p.errorf("tac", "separator cannot be empty")
				return 1
			}
			sep = o.val
		}
	}
	var re *regexp.Regexp
	if isRegex {
		if re, err = compileRE(sep, basicRE, false); err != nil {
			p.errorf("tac", "%s", err)
			return 1
		}
	}
	out := bufio.NewWriter(p.Stdout)
	status := 0
	for _, name := range inputs(files) {
		f, err := p.Open(name)
		if err != nil {
			p.errorf("tac", "failed to open '%s' for reading: %s", name, ErrText(err))
			status = 1
			continue
		}
		data, err := readWhole(f)
		f.Close()
		if err != nil {
			p.errorf("tac", "%s: read error: %s", name, ErrText(err))
			status = 1
			continue
		}
		if re == nil {
			if err := tacLiteral(out, data, sep, before); err != nil {
				return p.writeFailed("tac", err)
			}
			continue
		}
		// With -r: cut the input into records, [start, end) pairs, at
		// the separator's matches, and write them from the last.
		var records [][2]int
		start := 0
		for _, m := range re.FindAllIndex(data, -1) {
			if m[1] == m[0] {
				continue
			}
			if before {
				if m[0] > start || start == 0 && m[0] == 0 {
					records = append(records, [2]int{start, m[0]})
				}
				start = m[0]
			} else {
				records = append(records, [2]int{start, m[1]})
				start = m[1]
			}
		}
		if start < len(data) {
			records = append(records, [2]int{start, len(data)})
		}
		if before && len(records) > 0 && records[0][0] == records[0][1] {
			records = records[1:]
		}
		for i := len(records) - 1; i >= 0; i-- {
			if _, err := out.Write(data[records[i][0]:records[i][1]]); err != nil {
				return p.writeFailed("tac", err)
			}
		}
	}
	if err := out.Flush(); err != nil {
		return p.writeFailed("tac", err)
	}
	return status
}

// tacLiteral writes data's records in reverse order when the separator
// is the literal sep, straight from data and from the end, as GNU tac
// looks for them: where matches of a separator could overlap ("xx" in
// "xxx"), the rightmost one counts.
func tacLiteral(out *bufio.Writer, data []byte, sep string, before bool) error {
	m := len(sep)
	for end := len(data); end > 0; {
		var start int
		if before {
			// A record starts at its separator; the text before the
			// first separator is a record when it is not empty.
			start = max(bytes.LastIndex(data[:end], []byte(sep)), 0)
		} else {
			// A record ends with its separator (the last one may have
			// none) and starts after the one before.
			search := end
			if bytes.HasSuffix(data[:end], []byte(sep)) {
				search = end - m
			}
			if i := bytes.LastIndex(data[:search], []byte(sep)); i >= 0 {
				start = i + m
			}
		}
		if _, err := out.Write(data[start:end]); err != nil {
			return err
		}
		end = start
	}
	return nil
}
