package applets

import (
	"bufio"
	"fmt"
	"io"
)

// catApplet concatenates files (or stdin) to stdout. -n numbers lines.
func catApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "nuAE", long: map[string]string{"number": "n"}}
	opts, files, err := spec.parse(args[1:])
	if err != nil {
		return p.usage("cat", err.Error(), "cat [-n] [FILE]...")
	}
	number := false
	for _, o := range opts {
		if o.name == "n" {
			number = true
		}
	}
	status := 0
	out := bufio.NewWriter(p.Stdout)
	line := 0
	for _, name := range inputs(files) {
		f, err := p.Open(name)
		if err != nil {
			out.Flush()
			status = p.fileErr("cat", name, err)
			continue
		}
		if number {
			err = eachLine(f, func(l string) error {
				line++
				_, err := fmt.Fprintf(out, "%6d\t%s\n", line, l)
				return err
			})
		} else {
			_, err = io.Copy(out, f)
		}
		f.Close()
		if err != nil {
			if brokenPipe(err) {
				return StatusBrokenPipe
			}
			if ferr := out.Flush(); ferr != nil {
				return p.writeFailed("cat", ferr)
			}
			status = p.fileErr("cat", name, err)
			continue
		}
		// Flush between files so output interleaves with stderr sensibly
		// and a broken pipe is noticed early.
		if err := out.Flush(); err != nil {
			return p.writeFailed("cat", err)
		}
	}
	if err := out.Flush(); err != nil {
		return p.writeFailed("cat", err)
	}
	return status
}
