package applets

import (
	"bufio"
	"io"
	"strings"
)

// eachLine calls fn with every line of r, without its newline. A last line
// without a newline is still a line. It stops at fn's first error.
func eachLine(r io.Reader, fn func(line string) error) error {
	br := bufio.NewReaderSize(r, 64*1024)
	for {
		line, err := br.ReadString('\n')
		if len(line) > 0 {
			if ferr := fn(strings.TrimSuffix(line, "\n")); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readLines returns all lines of r.
func readLines(r io.Reader) ([]string, error) {
	var lines []string
	err := eachLine(r, func(l string) error {
		lines = append(lines, l)
		return nil
	})
	return lines, err
}

// inputs returns the operands to read, "-" (stdin) when there are none.
func inputs(operands []string) []string {
	if len(operands) == 0 {
		return []string{"-"}
	}
	return operands
}

// displayName is how a file operand is named in messages and headers.
func displayName(name string) string {
	if name == "-" {
		return "(standard input)"
	}
	return name
}
