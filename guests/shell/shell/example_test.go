package shell_test

import (
	"fmt"
	"os"
	"strings"

	"amlasandbox/guests/shell/applets"
	"amlasandbox/guests/shell/shell"
)

// A script runs against a registry of applets; its status is returned and
// its output goes to the writers given.
func ExampleRun() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	status := shell.Run(`
		printf 'b 2\na 1\nb 3\n' > data.txt
		cut -d' ' -f1 data.txt | sort | uniq -c
		exit 3`, shell.Options{Dir: dir, Stdout: os.Stdout})
	fmt.Println("status", status)
	// Output:
	//       1 a
	//       2 b
	// status 3
}

// Commands are looked up in the registry, so an embedder can add its own.
func ExampleOptions_registry() {
	reg := applets.Default()
	reg.Register("greet", func(p *applets.Proc, args []string) int {
		fmt.Fprintf(p.Stdout, "hello, %s\n", strings.Join(args[1:], " "))
		return 0
	})
	shell.Run("greet sandbox | tr a-z A-Z", shell.Options{Registry: reg, Dir: os.TempDir(), Stdout: os.Stdout})
	// Output: HELLO, SANDBOX
}
