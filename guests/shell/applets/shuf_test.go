package applets_test

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"amlasandbox/guests/shell/applets"
)

// shuf runs the shuf applet with args and returns its output lines.
func shuf(t *testing.T, dir string, args ...string) []string {
	t.Helper()
	var out, errb bytes.Buffer
	p := &applets.Proc{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: dir, Ctx: context.Background()}
	if st := p.Exec(p.Stdin, append([]string{"shuf"}, args...)); st != 0 {
		t.Fatalf("shuf %v: status %d: %s", args, st, errb.String())
	}
	return strings.Fields(out.String())
}

func TestShufIsARandomPermutation(t *testing.T) {
	want := make([]string, 100)
	for i := range want {
		want[i] = strconv.Itoa(i + 1)
	}
	a := shuf(t, t.TempDir(), "-i", "1-100")
	b := shuf(t, t.TempDir(), "-i", "1-100")
	if slices.Equal(a, want) || slices.Equal(a, b) {
		t.Errorf("two runs of shuf -i 1-100 gave %v and %v: want two different random orders", a, b)
	}
	for _, got := range [][]string{a, b} {
		sorted := slices.Clone(got)
		slices.SortFunc(sorted, func(x, y string) int { nx, _ := strconv.Atoi(x); ny, _ := strconv.Atoi(y); return nx - ny })
		if !slices.Equal(sorted, want) {
			t.Errorf("shuf -i 1-100 = %v, not a permutation of 1..100", got)
		}
	}
	// -n over a huge range draws distinct numbers without building the range.
	some := shuf(t, t.TempDir(), "-n", "5", "-i", "1-1000000000000")
	if len(some) != 5 || len(slices.Compact(slices.Sorted(slices.Values(some)))) != 5 {
		t.Errorf("shuf -n 5 -i 1-1e12 = %v, want 5 distinct numbers", some)
	}
}

func TestShufRandomSourceRepeats(t *testing.T) {
	dir := t.TempDir()
	shuf(t, dir, "-o", "seed", "-e", "some bytes")
	a := shuf(t, dir, "--random-source=seed", "-i", "1-50")
	b := shuf(t, dir, "--random-source=seed", "-i", "1-50")
	if !slices.Equal(a, b) {
		t.Errorf("shuf with one --random-source gave %v then %v, want the same order", a, b)
	}
}
