package applets

import "fmt"

// whoamiApplet prints the sandbox's user name.
func whoamiApplet(p *Proc, _ []string) int {
	fmt.Fprintln(p.Stdout, "user")
	return 0
}
