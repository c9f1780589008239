package applets

import (
	"bufio"
	"slices"
	"strings"
)

// revApplet reverses the characters of each line; a last line without a
// newline stays without one, as in util-linux rev.
func revApplet(p *Proc, args []string) int {
	_, files, err := flagSpec{}.parse(args[1:])
	if err != nil {
		return p.gnuUsage("rev", err.Error(), "rev [FILE]...")
	}
	out := bufio.NewWriter(p.Stdout)
	status := 0
	for _, name := range inputs(files) {
		f, err := p.Open(name)
		if err != nil {
			status = p.fileErr("rev", name, err)
			continue
		}
		br := bufio.NewReaderSize(f, 64*1024)
		for {
			line, rerr := br.ReadString('\n')
			nl := strings.HasSuffix(line, "\n")
			r := []rune(strings.TrimSuffix(line, "\n"))
			slices.Reverse(r)
			out.WriteString(string(r))
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
		return p.writeFailed("rev", err)
	}
	return status
}
