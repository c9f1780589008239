package shell_test

import (
	"bytes"
	"testing"

	"amlasandbox/guests/shell/shell"
)

// TestSessionKeepsState runs scripts one after another in one Session and
// checks what carries over from each to the next, and what is per run.
func TestSessionKeepsState(t *testing.T) {
	dir := t.TempDir()
	s := shell.NewSession(shell.Options{Dir: dir, Env: map[string]string{"HOME": dir, "FROM_ENV": "e"}})
	steps := []struct {
		script, want string
		status       int
	}{
		{"X=1; export Y=2; f() { echo \"f $1\"; }; shopt -s expand_aliases; alias hi='echo alias'; mkdir -p sub; cd sub", "", 0},
		{"echo $X $Y $FROM_ENV; f a; hi; basename \"$PWD\"", "1 2 e\nf a\nalias\nsub\n", 0},
		{"X=changed; false", "", 1},
		{"echo $X $?", "changed 1\n", 0},
		{"g() { local L=in; exit 3; }; g", "", 3},
		{"echo \"[$L]\"; unset X; f b", "[]\nf b\n", 0},
		{"echo \"[$X]\"", "[]\n", 0},
	}
	for i, st := range steps {
		var out, errb bytes.Buffer
		status := s.Run(st.script, shell.Options{Stdout: &out, Stderr: &errb, Env: map[string]string{"FROM_ENV": "ignored"}})
		if out.String() != st.want || status != st.status {
			t.Fatalf("step %d %q: got %q (stderr %q) status %d, want %q status %d", i, st.script, out.String(), errb.String(), status, st.want, st.status)
		}
	}
}
