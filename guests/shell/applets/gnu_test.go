package applets_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"amlasandbox/guests/shell/applets/casefile"
)

// gnuMarker on a line of a case file says its cases were written against
// the real tools: TestCasesAgainstGNU runs them there too.
const gnuMarker = "# gnu-checked"

// TestCasesAgainstGNU runs the cases of the case files marked gnu-checked
// with the real commands of this machine (GNU coreutils, grep, util-linux,
// jq) instead of the applets, and checks that they print what the case
// expects: stdout and the exit status exactly, and the first line of
// stderr (the tools' usage hints differ: "Try 'x --help'" against our
// "usage:" line). A case marked not-gnu is skipped. The check needs those
// tools, so it runs only when AMLA_GNU_CHECK=1; the cases themselves run
// against the applets in TestCases on every machine.
func TestCasesAgainstGNU(t *testing.T) {
	if os.Getenv("AMLA_GNU_CHECK") != "1" {
		t.Skip("set AMLA_GNU_CHECK=1 to compare the case files with the real tools")
	}
	files, err := filepath.Glob("testdata/*.cases")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(gnuMarker)) {
			continue
		}
		cases, err := casefile.Parse(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			if c.NotGNU != "" || c.Tools != "" {
				continue
			}
			t.Run(strings.TrimSuffix(filepath.Base(file), ".cases")+"/"+c.Name, func(t *testing.T) {
				runGNU(t, c)
			})
		}
	}
}

func runGNU(t *testing.T, c casefile.Case) {
	dir := t.TempDir()
	for _, d := range c.Dirs {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range c.Files {
		p := filepath.Join(dir, f.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.Content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := words(t, c.Script)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8", "TZ=UTC"}, c.Env...)
	cmd.Stdin = strings.NewReader(c.Stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	status := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		status = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", c.Pos, err)
	}
	// GNU quotes names with curly quotes in a UTF-8 locale; the applets
	// use ASCII ones.
	quotes := strings.NewReplacer("\u2018", "'", "\u2019", "'")
	clean := func(s string) string { return quotes.Replace(strings.ReplaceAll(s, dir, "$DIR")) }
	if got := clean(stdout.String()); !c.Stdout.Check(got) {
		t.Errorf("%s: GNU stdout = %q, case wants %q", c.Pos, got, c.Stdout.Text)
	}
	first := func(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
	got := first(clean(stderr.String()))
	want := first(c.Stderr.Text)
	if c.Stderr.Contains {
		if !strings.Contains(clean(stderr.String()), want) {
			t.Errorf("%s: GNU stderr = %q, case wants it to contain %q", c.Pos, stderr.String(), want)
		}
	} else if got != want {
		t.Errorf("%s: GNU stderr starts %q, case wants %q", c.Pos, got, want)
	}
	if status != c.Exit {
		t.Errorf("%s: GNU exit = %d, case wants %d", c.Pos, status, c.Exit)
	}
	for _, f := range c.WantFiles {
		got, err := os.ReadFile(filepath.Join(dir, f.Path))
		if err != nil {
			t.Errorf("%s: want file %s: %v", c.Pos, f.Path, err)
		} else if string(got) != f.Content {
			t.Errorf("%s: GNU file %s = %q, case wants %q", c.Pos, f.Path, got, f.Content)
		}
	}
}
