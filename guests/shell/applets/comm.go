package applets

import (
	"bufio"
	"strconv"
	"strings"
)

const commUsage = "comm [-123] [--check-order|--nocheck-order] [--output-delimiter=STR] [--total] FILE1 FILE2"

// commApplet compares two sorted files line by line and prints three
// columns: lines only in FILE1, lines only in FILE2, lines in both; -1, -2
// and -3 hide a column. As GNU comm, it checks the order of its inputs
// once a line could not be paired (always with --check-order, never with
// --nocheck-order): "file N is not in sorted order" and status 1.
func commApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "123z", long: map[string]string{"check-order": "check-order",
		"nocheck-order": "nocheck-order", "output-delimiter:": "output-delimiter", "total": "total",
		"zero-terminated": "z"}}
	opts, operands, err := spec.parse(args[1:])
	if err != nil {
		return p.gnuUsage("comm", err.Error(), commUsage)
	}
	show := [3]bool{true, true, true}
	delim, delimSet := "\t", false
	checkOrder, total := 0, false
	for _, o := range opts {
		switch o.name {
		case "1", "2", "3":
			show[o.name[0]-'1'] = false
		case "check-order":
			checkOrder = 1
		case "nocheck-order":
			checkOrder = -1
		case "output-delimiter":
			if delimSet && o.val != delim {
				p.errorf("comm", "multiple output delimiters specified")
				return 1
			}
			delim, delimSet = o.val, true
			if delim == "" {
				// GNU comm separates the columns with a NUL byte then.
				delim = "\x00"
			}
		case "total":
			total = true
		case "z":
			return p.gnuUsage("comm", "-z (NUL-terminated lines) is not supported", commUsage)
		}
	}
	switch len(operands) {
	case 0:
		return p.gnuUsage("comm", "missing operand", commUsage)
	case 1:
		return p.gnuUsage("comm", "missing operand after '"+operands[0]+"'", commUsage)
	case 2:
	default:
		return p.gnuUsage("comm", "extra operand '"+operands[2]+"'", commUsage)
	}
	var lines [2][]string
	for i, name := range operands {
		f, err := p.Open(name)
		if err != nil {
			return p.fileErr("comm", name, err)
		}
		lines[i], err = readLines(f)
		f.Close()
		if err != nil {
			return p.fileErr("comm", name, err)
		}
	}
	// prefix[c] is what goes before a line of column c: one delimiter per
	// shown column to its left.
	var prefix [3]string
	for c := range 3 {
		for left := 0; left < c; left++ {
			if show[left] {
				prefix[c] += delim
			}
		}
	}
	out := bufio.NewWriter(p.Stdout)
	var pos [2]int
	var counts [3]int
	var warned [2]bool
	seenUnpairable := false
	// advance moves past the current line of file i and checks that the
	// next one does not sort before it; at the end of the file it checks
	// the last two lines again, since a line may have gone unpaired since
	// they were read (GNU comm does the same). False when --check-order
	// stops.
	advance := func(i int) bool {
		pos[i]++
		a := pos[i]
		if a >= len(lines[i]) {
			a = len(lines[i]) - 1
		}
		if a < 1 || warned[i] {
			return true
		}
		if checkOrder == 1 || checkOrder == 0 && seenUnpairable {
			if lines[i][a] < lines[i][a-1] {
				out.Flush()
				p.errorf("comm", "file %d is not in sorted order", i+1)
				warned[i] = true
				return checkOrder != 1
			}
		}
		return true
	}
	for pos[0] < len(lines[0]) || pos[1] < len(lines[1]) {
		if p.cancelled() {
			return 130
		}
		var order int
		switch {
		case pos[0] >= len(lines[0]):
			order = 1
		case pos[1] >= len(lines[1]):
			order = -1
		default:
			order = strings.Compare(lines[0][pos[0]], lines[1][pos[1]])
		}
		col, line := 2, ""
		switch {
		case order == 0:
			line = lines[0][pos[0]]
		case order < 0:
			col, line = 0, lines[0][pos[0]]
			seenUnpairable = true
		default:
			col, line = 1, lines[1][pos[1]]
			seenUnpairable = true
		}
		counts[col]++
		if show[col] {
			out.WriteString(prefix[col])
			out.WriteString(line)
			if err := out.WriteByte('\n'); err != nil {
				return p.writeFailed("comm", err)
			}
		}
		if order >= 0 && !advance(1) || order <= 0 && !advance(0) {
			return 1
		}
	}
	if total {
		out.WriteString(strconv.Itoa(counts[0]) + delim + strconv.Itoa(counts[1]) + delim +
			strconv.Itoa(counts[2]) + delim + "total\n")
	}
	if err := out.Flush(); err != nil {
		return p.writeFailed("comm", err)
	}
	if (warned[0] || warned[1]) && checkOrder != -1 {
		p.errorf("comm", "input is not in sorted order")
		return 1
	}
	return 0
}
