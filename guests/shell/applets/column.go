package applets

import (
	"bufio"
	"strconv"
	"strings"
	"unicode/utf8"
)

const columnUsage = "column [-t] [-s SEP] [-o OUTSEP] [-R COLS] [-N NAMES] [-c WIDTH] [-x] [FILE]..."

// columnApplet lays its input out in columns as util-linux column does:
// with -t, a table whose cells are split on runs of blanks (or exactly on
// any character of -s SEP) and padded to the widest cell of each column,
// joined by two spaces (-o OUTSEP), -R right-aligning the listed columns
// and -N naming them in a header line; without -t, the input lines filled
// into as many tab-separated columns as fit in -c WIDTH (COLUMNS, else
// 80), down the columns first or across with -x. Empty lines are skipped.
func columnApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "ts:o:c:xR:N:", long: map[string]string{"table": "t", "separator:": "s",
		"output-separator:": "o", "output-width:": "c", "fillrows": "x", "table-right:": "R",
		"table-columns:": "N"}}
	opts, files, err := spec.parse(args[1:])
	if err != nil {
		return p.gnuUsage("column", err.Error(), columnUsage)
	}
	table, across := false, false
	seps, outSep := "", "  "
	width := 80
	if n, err := strconv.Atoi(p.Env["COLUMNS"]); err == nil && n > 0 {
		width = n
	}
	var right, names []string
	for _, o := range opts {
		switch o.name {
		case "t":
			table = true
		case "s":
			seps = o.val
		case "o":
			outSep = o.val
		case "c":
			n, err := strconv.Atoi(o.val)
			if err != nil || n <= 0 {
				p.errorf("column", "invalid columns argument: '%s'", o.val)
				return 1
			}
			width = n
		case "x":
			across = true
		case "R":
			right = append(right, strings.Split(o.val, ",")...)
		case "N":
			names = strings.Split(o.val, ",")
		}
	}
	var lines []string
	for _, name := range inputs(files) {
		f, err := p.Open(name)
		if err != nil {
			return p.fileErr("column", name, err)
		}
		err = eachLine(f, func(l string) error {
			if l != "" {
				lines = append(lines, l)
			}
			return nil
		})
		f.Close()
		if err != nil {
			return p.fileErr("column", name, err)
		}
	}
	out := bufio.NewWriter(p.Stdout)
	if table {
		if status := columnTable(p, out, lines, seps, outSep, right, names); status != 0 {
			return status
		}
	} else {
		columnFill(out, lines, width, across)
	}
	if err := out.Flush(); err != nil {
		return p.writeFailed("column", err)
	}
	return 0
}

// columnTable writes lines as an aligned table.
func columnTable(p *Proc, out *bufio.Writer, lines []string, seps, outSep string, right, names []string) int {
	var rows [][]string
	if names != nil {
		rows = append(rows, names)
	}
	for _, l := range lines {
		var cells []string
		if seps == "" {
			cells = strings.Fields(l)
		} else {
			cells = splitAny(l, seps)
		}
		rows = append(rows, cells)
	}
	ncols := 0
	for _, r := range rows {
		ncols = max(ncols, len(r))
	}
	widths := make([]int, ncols)
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	alignRight := make([]bool, ncols)
	for _, r := range right {
		n, err := strconv.Atoi(r)
		if err != nil {
			// A column may be named by its -N name.
			n = -1
			for i, name := range names {
				if name == r {
					n = i + 1
				}
			}
		}
		if n < 1 || n > ncols {
			p.errorf("column", "undefined column name '%s'", r)
			return 1
		}
		alignRight[n-1] = true
	}
	for _, r := range rows {
		for i := 0; i < ncols; i++ {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			switch {
			case alignRight[i]:
				out.WriteString(pad + c)
			case i == ncols-1:
				out.WriteString(c)
			default:
				out.WriteString(c + pad)
			}
			if i < ncols-1 {
				out.WriteString(outSep)
			}
		}
		out.WriteByte('\n')
	}
	return 0
}

// splitAny splits s at every character of seps, keeping empty fields.
func splitAny(s, seps string) []string {
	var cells []string
	start := 0
	for i, r := range s {
		if strings.ContainsRune(seps, r) {
			cells = append(cells, s[start:i])
			start = i + utf8.RuneLen(r)
		}
	}
	return append(cells, s[start:])
}

// columnFill fills the lines into columns padded with tabs to multiples of
// eight, as util-linux column does without -t.
func columnFill(out *bufio.Writer, ents []string, width int, across bool) {
	if len(ents) == 0 {
		return
	}
	maxLen := 0
	for _, e := range ents {
		maxLen = max(maxLen, utf8.RuneCountInString(e))
	}
	if maxLen >= width {
		for _, e := range ents {
			out.WriteString(e + "\n")
		}
		return
	}
	maxLen = (maxLen + 8) &^ 7
	numCols := max(width/maxLen, 1)
	tabTo := func(chcnt, endcol int) int {
		for {
			next := (chcnt + 8) &^ 7
			if next > endcol {
				return chcnt
			}
			out.WriteByte('\t')
			chcnt = next
		}
	}
	if across {
		chcnt, col, endcol := 0, 0, maxLen
		for i, e := range ents {
			out.WriteString(e)
			chcnt += utf8.RuneCountInString(e)
			if i == len(ents)-1 {
				break
			}
			col++
			if col == numCols {
				chcnt, col, endcol = 0, 0, maxLen
				out.WriteByte('\n')
				continue
			}
			chcnt = tabTo(chcnt, endcol)
			endcol += maxLen
		}
		if chcnt > 0 {
			out.WriteByte('\n')
		}
		return
	}
	numRows := (len(ents) + numCols - 1) / numCols
	for row := 0; row < numRows; row++ {
		endcol, chcnt := maxLen, 0
		for base, col := row, 0; col < numCols; col++ {
			out.WriteString(ents[base])
			chcnt += utf8.RuneCountInString(ents[base])
			if base += numRows; base >= len(ents) {
				break
			}
			chcnt = tabTo(chcnt, endcol)
			endcol += maxLen
		}
		out.WriteByte('\n')
	}
}
