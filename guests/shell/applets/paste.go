package applets

import (
	"bufio"
	"io"
	"strings"
)

// pasteApplet joins corresponding lines of files with tabs (or -d
// delimiters, used in turn); -s joins all lines of each file instead.
func pasteApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "d:s", long: map[string]string{"delimiters:": "d", "serial": "s"}}
	opts, files, err := spec.parse(args[1:])
	if err != nil {
		return p.usage("paste", err.Error(), "paste [-s] [-d LIST] [FILE]...")
	}
	delims := []string{"\t"}
	serial := false
	for _, o := range opts {
		switch o.name {
		case "d":
			delims = nil
			for _, r := range pasteDelims(o.val) {
				delims = append(delims, r)
			}
			if len(delims) == 0 {
				delims = []string{""}
			}
		case "s":
			serial = true
		}
	}
	files = inputs(files)
	var all [][]string
	stdinLines := -1
	for _, name := range files {
		if name == "-" && stdinLines >= 0 {
			all = append(all, all[stdinLines])
			continue
		}
		f, err := p.Open(name)
		if err != nil {
			return p.fileErr("paste", name, err)
		}
		lines, err := readLines(f)
		f.Close()
		if err != nil {
			return p.fileErr("paste", name, err)
		}
		if name == "-" {
			stdinLines = len(all)
		}
		all = append(all, lines)
	}
	out := bufio.NewWriter(p.Stdout)
	join := func(parts []string) string {
		var b strings.Builder
		for i, s := range parts {
			if i > 0 {
				b.WriteString(delims[(i-1)%len(delims)])
			}
			b.WriteString(s)
		}
		return b.String()
	}
	if serial {
		for _, lines := range all {
			io.WriteString(out, join(lines)+"\n")
		}
	} else {
		rows := 0
		for _, lines := range all {
			rows = max(rows, len(lines))
		}
		for i := 0; i < rows; i++ {
			parts := make([]string, len(all))
			for j, lines := range all {
				if i < len(lines) {
					parts[j] = lines[i]
				}
			}
			io.WriteString(out, join(parts)+"\n")
		}
	}
	if err := out.Flush(); err != nil {
		return p.writeFailed("paste", err)
	}
	return 0
}

// pasteDelims splits a -d list into its delimiters (\n, \t, \\ and \0 for
// none).
func pasteDelims(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 'n':
				out = append(out, "\n")
			case 't':
				out = append(out, "\t")
			case '0':
				out = append(out, "")
			default:
				out = append(out, string(s[i]))
			}
			continue
		}
		out = append(out, string(s[i]))
	}
	return out
}
