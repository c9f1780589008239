// Scratch differential runner (not committed): runs each line of a file in
// bash and in our shell, in fresh directories, and prints differences.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"amlasandbox/gocore/guest/shell"
)

const setup = `printf 'alpha 1\nbeta 22\ngamma 3\nalpha 4\n' > data.txt; printf 'b,2\na,10\nc,1\n' > c.csv; mkdir -p sub/deep; echo x > sub/one.txt; echo y > sub/deep/two.md; printf '{"a":1,"b":[1,2,{"c":"d"}]}\n' > j.json`

func main() {
	f, _ := os.Open(os.Args[1])
	sc := bufio.NewScanner(f)
	n, bad := 0, 0
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		n++
		d1, _ := os.MkdirTemp("", "b")
		d2, _ := os.MkdirTemp("", "m")
		cmd := exec.Command("bash", "-c", setup+"\n"+line)
		cmd.Dir = d1
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		var bo, be bytes.Buffer
		cmd.Stdout, cmd.Stderr = &bo, &be
		cmd.Stdin = strings.NewReader("in1\nin2\n")
		cmd.Run()
		bs := cmd.ProcessState.ExitCode()
		shell.Run(setup, shell.Options{Dir: d2})
		var mo, me bytes.Buffer
		ms := shell.Run(line, shell.Options{Dir: d2, Stdout: &mo, Stderr: &me, Stdin: strings.NewReader("in1\nin2\n"), Env: map[string]string{"HOME": d2}})
		bout := strings.ReplaceAll(bo.String(), d1, "D")
		mout := strings.ReplaceAll(mo.String(), d2, "D")
		if bout != mout || bs != ms {
			bad++
			fmt.Printf("### %s\n  bash(%d): %q\n    err: %q\n  ours(%d): %q\n    err: %q\n", line, bs, bout, be.String(), ms, mout, me.String())
		}
		os.RemoveAll(d1)
		os.RemoveAll(d2)
	}
	fmt.Printf("%d/%d differ\n", bad, n)
}
