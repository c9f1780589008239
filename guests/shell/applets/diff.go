package applets

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

const diffUsage = "diff [-u | -U N] [-q] [-i] [-b] [-w] FILE1 FILE2"

// diffOp is one line of an edit script: ' ' kept, '-' deleted, '+' added.
type diffOp struct {
	kind byte
	a, b int // line indexes in the old and new file
}

// diffApplet compares two files line by line: the normal format by
// default, unified with -u or -U N, just whether they differ with -q.
// Status 0 when equal, 1 when different, 2 on trouble.
func diffApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "uU:qibwBtaN", numeric: false,
		long: map[string]string{"unified": "u", "brief": "q", "ignore-case": "i",
			"ignore-space-change": "b", "ignore-all-space": "w", "text": "a"}}
	opts, files, err := spec.parse(args[1:])
	if err != nil {
		p.usage("diff", err.Error(), diffUsage)
		return 2
	}
	unified, context := false, 3
	var brief, icase, spaceChange, allSpace bool
	for _, o := range opts {
		switch o.name {
		case "u":
			unified = true
		case "U":
			n, err := strconv.Atoi(o.val)
			if err != nil || n < 0 {
				p.usage("diff", "invalid context length '"+o.val+"'", diffUsage)
				return 2
			}
			unified, context = true, n
		case "q":
			brief = true
		case "i":
			icase = true
		case "b":
			spaceChange = true
		case "w":
			allSpace = true
		}
	}
	if len(files) != 2 {
		p.usage("diff", "need two files to compare", diffUsage)
		return 2
	}
	var text [2][]string
	var nl [2]bool // whether each file ends with a newline
	for i, name := range files {
		if name != "-" && p.isDir(name) {
			p.errorf("diff", "%s: Is a directory (comparing directories is not supported)", name)
			return 2
		}
		f, err := p.Open(name)
		if err != nil {
			p.fileErr("diff", name, err)
			return 2
		}
		data, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			p.fileErr("diff", name, err)
			return 2
		}
		s := string(data)
		nl[i] = s == "" || strings.HasSuffix(s, "\n")
		if s != "" {
			text[i] = strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		}
	}
	norm := func(s string) string {
		if icase {
			s = strings.ToLower(s)
		}
		switch {
		case allSpace:
			s = strings.Join(strings.Fields(s), "")
		case spaceChange:
			s = strings.Join(strings.Fields(s), " ")
		}
		return s
	}
	// A last line without its newline differs from the same text with one.
	keyed := text
	for i := range keyed {
		if !nl[i] && len(text[i]) > 0 {
			keyed[i] = append(append([]string(nil), text[i][:len(text[i])-1]...), text[i][len(text[i])-1]+"\x00")
		}
	}
	ops := diffLines(keyed[0], keyed[1], norm)
	changed := nl[0] != nl[1]
	for _, op := range ops {
		if op.kind != ' ' {
			changed = true
			break
		}
	}
	if !changed {
		return 0
	}
	if brief {
		fmt.Fprintf(p.Stdout, "Files %s and %s differ\n", files[0], files[1])
		return 1
	}
	out := bufio.NewWriter(p.Stdout)
	if unified {
		var stamps [2]string
		for i, name := range files {
			t := time.Now()
			if st, err := os.Stat(p.Path(name)); err == nil && name != "-" {
				t = st.ModTime()
			}
			stamps[i] = t.Format("2006-01-02 15:04:05.000000000 -0700")
		}
		fmt.Fprintf(out, "--- %s\t%s\n+++ %s\t%s\n", files[0], stamps[0], files[1], stamps[1])
		writeUnified(out, text, nl, ops, context)
	} else {
		writeNormal(out, text, nl, ops)
	}
	if err := out.Flush(); err != nil {
		return p.writeFailed("diff", err)
	}
	return 1
}

// diffLines computes a shortest edit script from a to b (Myers). Very
// different inputs fall back to replacing everything, which is correct if
// not minimal.
func diffLines(a, b []string, norm func(string) string) []diffOp {
	na, nb := make([]string, len(a)), make([]string, len(b))
	for i, s := range a {
		na[i] = norm(s)
	}
	for i, s := range b {
		nb[i] = norm(s)
	}
	n, m := len(na), len(nb)
	maxD := n + m
	const limit = 4000
	if maxD > 0 {
		offset := maxD
		v := make([]int, 2*maxD+2)
		var trace [][]int
		found := -1
		for d := 0; d <= maxD && d <= limit; d++ {
			trace = append(trace, append([]int(nil), v...))
			for k := -d; k <= d; k += 2 {
				var x int
				if k == -d || k != d && v[offset+k-1] < v[offset+k+1] {
					x = v[offset+k+1]
				} else {
					x = v[offset+k-1] + 1
				}
				y := x - k
				for x < n && y < m && na[x] == nb[y] {
					x, y = x+1, y+1
				}
				v[offset+k] = x
				if x >= n && y >= m {
					found = d
					break
				}
			}
			if found >= 0 {
				break
			}
		}
		if found >= 0 {
			return backtrack(trace, n, m, offset, found, na, nb)
		}
	}
	var ops []diffOp
	for i := range a {
		ops = append(ops, diffOp{'-', i, 0})
	}
	for j := range b {
		ops = append(ops, diffOp{'+', len(a), j})
	}
	return ops
}

// backtrack walks Myers' trace back from the end to build the script.
func backtrack(trace [][]int, n, m, offset, d int, a, b []string) []diffOp {
	var rev []diffOp
	x, y := n, m
	for ; d >= 0; d-- {
		v := trace[d]
		k := x - y
		var prevK int
		if k == -d || k != d && v[offset+k-1] < v[offset+k+1] {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := v[offset+prevK]
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x, y = x-1, y-1
			rev = append(rev, diffOp{' ', x, y})
		}
		if d > 0 {
			if x == prevX {
				rev = append(rev, diffOp{'+', x, y - 1})
			} else {
				rev = append(rev, diffOp{'-', x - 1, y})
			}
		}
		x, y = prevX, prevY
	}
	ops := make([]diffOp, len(rev))
	for i := range rev {
		ops[i] = rev[len(rev)-1-i]
	}
	return ops
}

// hunk is a run of changes with the positions it covers.
type hunk struct{ start, end int } // indexes into ops

// changeHunks groups changed ops, joining those within 2*context lines.
func changeHunks(ops []diffOp, context int) []hunk {
	var hs []hunk
	for i := 0; i < len(ops); i++ {
		if ops[i].kind == ' ' {
			continue
		}
		j := i
		for j < len(ops) && ops[j].kind != ' ' {
			j++
		}
		if len(hs) > 0 && i-hs[len(hs)-1].end <= 2*context {
			hs[len(hs)-1].end = j
		} else {
			hs = append(hs, hunk{i, j})
		}
		i = j - 1
	}
	return hs
}

// rangeText formats a normal-diff line range (1-based "a" or "a,b").
func rangeText(from, count int) string {
	if count <= 1 {
		return strconv.Itoa(from + max(count, 1) - 1)
	}
	return fmt.Sprintf("%d,%d", from, from+count-1)
}

func writeNormal(out *bufio.Writer, text [2][]string, nl [2]bool, ops []diffOp) {
	noNL := func(side int, idx int) {
		if !nl[side] && idx == len(text[side])-1 {
			out.WriteString("\\ No newline at end of file\n")
		}
	}
	for _, h := range changeHunks(ops, 0) {
		var dels, adds []diffOp
		for _, op := range ops[h.start:h.end] {
			if op.kind == '-' {
				dels = append(dels, op)
			} else if op.kind == '+' {
				adds = append(adds, op)
			}
		}
		first := ops[h.start]
		switch {
		case len(adds) == 0:
			fmt.Fprintf(out, "%sd%d\n", rangeText(dels[0].a+1, len(dels)), first.b)
		case len(dels) == 0:
			fmt.Fprintf(out, "%da%s\n", first.a, rangeText(adds[0].b+1, len(adds)))
		default:
			fmt.Fprintf(out, "%sc%s\n", rangeText(dels[0].a+1, len(dels)), rangeText(adds[0].b+1, len(adds)))
		}
		for _, op := range dels {
			out.WriteString("< " + text[0][op.a] + "\n")
			noNL(0, op.a)
		}
		if len(dels) > 0 && len(adds) > 0 {
			out.WriteString("---\n")
		}
		for _, op := range adds {
			out.WriteString("> " + text[1][op.b] + "\n")
			noNL(1, op.b)
		}
	}
}

func writeUnified(out *bufio.Writer, text [2][]string, nl [2]bool, ops []diffOp, context int) {
	for _, h := range changeHunks(ops, context) {
		start := max(h.start-context, 0)
		end := min(h.end+context, len(ops))
		var aStart, bStart, aLen, bLen int
		aStart, bStart = -1, -1
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				if aStart < 0 {
					aStart = op.a
				}
				aLen++
			}
			if op.kind != '-' {
				if bStart < 0 {
					bStart = op.b
				}
				bLen++
			}
		}
		// Empty ranges are numbered by the line before them.
		if aStart < 0 {
			aStart = ops[start].a - 1
		}
		if bStart < 0 {
			bStart = ops[start].b - 1
		}
		fmt.Fprintf(out, "@@ -%s +%s @@\n", unifiedRange(aStart, aLen), unifiedRange(bStart, bLen))
		for _, op := range ops[start:end] {
			switch op.kind {
			case ' ':
				out.WriteString(" " + text[0][op.a] + "\n")
				if !nl[0] && op.a == len(text[0])-1 {
					out.WriteString("\\ No newline at end of file\n")
				}
			case '-':
				out.WriteString("-" + text[0][op.a] + "\n")
				if !nl[0] && op.a == len(text[0])-1 {
					out.WriteString("\\ No newline at end of file\n")
				}
			case '+':
				out.WriteString("+" + text[1][op.b] + "\n")
				if !nl[1] && op.b == len(text[1])-1 {
					out.WriteString("\\ No newline at end of file\n")
				}
			}
		}
	}
}

// unifiedRange formats "start,len" (1-based; ",1" omitted).
func unifiedRange(start, n int) string {
	if n == 1 {
		return strconv.Itoa(start + 1)
	}
	if n == 0 {
		return fmt.Sprintf("%d,0", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
