package applets

import "strings"

// dirnameApplet strips the last component from each name.
func dirnameApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "z"}
	_, names, err := spec.parse(args[1:])
	if err != nil || len(names) == 0 {
		problem := "missing operand"
		if err != nil {
			problem = err.Error()
		}
		return p.usage("dirname", problem, "dirname NAME...")
	}
	var b strings.Builder
	for _, n := range names {
		trimmed := strings.TrimRight(n, "/")
		switch {
		case n == "":
			b.WriteString(".\n")
		case trimmed == "":
			b.WriteString("/\n")
		default:
			i := strings.LastIndexByte(trimmed, '/')
			switch {
			case i < 0:
				b.WriteString(".\n")
			default:
				d := strings.TrimRight(trimmed[:i], "/")
				if d == "" {
					d = "/"
				}
				b.WriteString(d + "\n")
			}
		}
	}
	if _, err := p.Stdout.Write([]byte(b.String())); err != nil {
		return p.writeFailed("dirname", err)
	}
	return 0
}
