package applets

import (
	"bufio"
	"slices"
)

// revApplet reverses the characters of each line.
func revApplet(p *Proc, args []string) int {
	_, files, err := flagSpec{}.parse(args[1:])
	if err != nil {
		return p.usage("rev", err.Error(), "rev [FILE]...")
	}
	out := bufio.NewWriter(p.Stdout)
	status := 0
	for _, name := range inputs(files) {
		f, err := p.Open(name)
		if err != nil {
			status = p.fileErr("rev", name, err)
			continue
		}
		err = eachLine(f, func(l string) error {
			r := []rune(l)
			slices.Reverse(r)
			_, err := out.WriteString(string(r) + "\n")
			return err
		})
		f.Close()
		if err != nil {
			if brokenPipe(err) {
				return StatusBrokenPipe
			}
			status = p.fileErr("rev", name, err)
		}
	}
	if err := out.Flush(); err != nil {
		return p.writeFailed("rev", err)
	}
	return status
}
