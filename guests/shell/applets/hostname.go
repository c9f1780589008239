package applets

import "fmt"

// hostnameApplet prints the sandbox's host name.
func hostnameApplet(p *Proc, _ []string) int {
	fmt.Fprintln(p.Stdout, "sandbox")
	return 0
}
