package applets

import (
	"io"
	"strings"
)

// echoApplet writes its arguments separated by spaces. -n drops the
// newline, -e interprets backslash escapes, -E (the default) does not.
// Like bash, only words made entirely of n, e and E are options.
func echoApplet(p *Proc, args []string) int {
	newline, escapes := true, false
	words := args[1:]
	for len(words) > 0 {
		w := words[0]
		if len(w) < 2 || w[0] != '-' || strings.Trim(w[1:], "neE") != "" {
			break
		}
		for _, c := range w[1:] {
			switch c {
			case 'n':
				newline = false
			case 'e':
				escapes = true
			case 'E':
				escapes = false
			}
		}
		words = words[1:]
	}
	s := strings.Join(words, " ")
	if escapes {
		var stop bool
		if s, stop = backslashEscapes(s); stop {
			newline = false
		}
	}
	if newline {
		s += "\n"
	}
	if _, err := io.WriteString(p.Stdout, s); err != nil {
		return p.writeFailed("echo", err)
	}
	return 0
}
