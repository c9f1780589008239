package applets

import (
	"bufio"
	"slices"
)

// tacApplet prints the lines of its inputs in reverse order.
func tacApplet(p *Proc, args []string) int {
	_, files, err := flagSpec{}.parse(args[1:])
	if err != nil {
		return p.usage("tac", err.Error(), "tac [FILE]...")
	}
	out := bufio.NewWriter(p.Stdout)
	status := 0
	for _, name := range inputs(files) {
		f, err := p.Open(name)
		if err != nil {
			status = p.fileErr("tac", name, err)
			continue
		}
		lines, err := readLines(f)
		f.Close()
		if err != nil {
			status = p.fileErr("tac", name, err)
			continue
		}
		slices.Reverse(lines)
		for _, l := range lines {
			out.WriteString(l + "\n")
		}
	}
	if err := out.Flush(); err != nil {
		return p.writeFailed("tac", err)
	}
	return status
}
