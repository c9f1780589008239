package applets

import "strings"

// yesApplet repeats "y" (or its arguments) until its reader goes away or the
// run is cancelled.
func yesApplet(p *Proc, args []string) int {
	line := "y"
	if len(args) > 1 {
		line = strings.Join(args[1:], " ")
	}
	// Write in blocks so a pipe round trip carries many lines.
	chunk := []byte(strings.Repeat(line+"\n", max(1, 4096/(len(line)+1))))
	for !p.cancelled() {
		if _, err := p.Stdout.Write(chunk); err != nil {
			return p.writeFailed("yes", err)
		}
	}
	return 130
}
