package shell_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"amlasandbox/guests/shell/shell"
)

// FuzzRun checks that no script makes the shell panic or hang past its
// context. Scripts run in a throwaway directory.
func FuzzRun(f *testing.F) {
	for _, seed := range []string{
		"echo hi | tr a-z A-Z", "x=$((1+2)); echo ${x:-d} ${#x}", "for i in 1 2; do echo $i; done",
		"f() { local a=$1; echo $a; }; f x", "case a in a) echo y;; esac", "cat <<EOF\n$HOME\nEOF\n",
		"a=(1 2); echo ${a[@]}", "[[ a == a* ]] && echo ok", "echo $(echo $(echo x))", "set -e; false",
		"while read l; do echo $l; done <<< x", "echo ${x/#a/b} ${y//[a-z]/Q}", "exec 3>&1",
		"echo {1..3} | xargs -n1", "sed 's/a/b/' <<< a", "jq -n '1'", "awk '{print}' <<< x",
		"IFS=,; s=',a,,b,'; set -- $s; echo $#", "echo $(( 16#ff + 2#1 ))", "declare -n r=x; r=1",
		"cat <(echo a) <(echo b)", "exec {fd}<<<x; read -u $fd v", "echo ${a[@]@Q} ${!r} ${x@A}",
		"shopt -s extglob; echo @(a|b)*", "(( a[3]=1 )); echo ${#a[@]}", "select x in a; do break; done",
	} {
		f.Add(seed)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, script string) {
		if strings.Contains(script, "rm") || strings.Contains(script, ">") {
			return // keep the fuzzer from wandering the host file system
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		done := make(chan struct{})
		var stderr strings.Builder
		go func() {
			defer close(done)
			shell.Run(script, shell.Options{Dir: dir, Ctx: ctx, Stdout: io.Discard, Stderr: &stderr,
				MaxCallDepth: 50})
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("script did not stop after cancellation: %q", script)
		}
		// Run recovers from panics, reporting them as internal errors.
		if strings.Contains(stderr.String(), "internal error") {
			t.Fatalf("script %q: %s", script, stderr.String())
		}
	})
}
