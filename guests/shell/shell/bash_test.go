package shell_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"amlasandbox/guests/shell/applets"
	"amlasandbox/guests/shell/applets/casefile"
	"amlasandbox/guests/shell/shell"
)

// The cases in testdata/bash/*.cases are bash's own answers: their stdout
// and exit sections were written by running /bin/bash on each script
// (go test -run TestBashAgrees -record-bash rewrites them). TestBashCases
// holds the sandbox's shell to them; TestBashAgrees re-runs bash on each
// case, so a bash whose answer changed shows up as a failure there rather
// than as a silently stale expectation. Stderr is not compared: bash names
// itself "bash" in messages, the sandbox "sh".

var recordBash = flag.Bool("record-bash", false, "rewrite testdata/bash/*.cases with /bin/bash's answers")

func bashCaseFiles(t *testing.T) map[string][]casefile.Case {
	t.Helper()
	files, err := filepath.Glob("testdata/bash/*.cases")
	if err != nil || len(files) == 0 {
		t.Fatalf("no bash case files: %v", err)
	}
	all := map[string][]casefile.Case{}
	for _, f := range files {
		if all[f], err = casefile.Parse(f); err != nil {
			t.Fatal(err)
		}
	}
	return all
}

// TestBashCases runs every recorded case through the sandbox's shell.
func TestBashCases(t *testing.T) {
	for file, cases := range bashCaseFiles(t) {
		for _, c := range cases {
			t.Run(strings.TrimSuffix(filepath.Base(file), ".cases")+"/"+c.Name, func(t *testing.T) {
				root := newBashRoot(t, c)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				var stdout, stderr bytes.Buffer
				status := shell.Run(root.mapPaths(c.Script), shell.Options{
					Stdin:    strings.NewReader(c.Stdin),
					Stdout:   &stdout,
					Stderr:   &stderr,
					Env:      root.env(),
					Dir:      root.mapPaths("/workspace"),
					Registry: applets.Default(),
					Ctx:      ctx,
				})
				if got := root.unmapPaths(stdout.String()); got != c.Stdout.Text || status != c.Exit {
					t.Errorf("%s:\n%s\nstdout = %q, exit %d\nbash:    %q, exit %d\nstderr: %s",
						c.Pos, c.Script, got, status, c.Stdout.Text, c.Exit, root.unmapPaths(stderr.String()))
				}
			})
		}
	}
}

// TestBashAgrees checks that bash still gives the recorded answers (with
// -record-bash it writes them instead).
func TestBashAgrees(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on this machine")
	}
	for file, cases := range bashCaseFiles(t) {
		if *recordBash {
			if err := os.WriteFile(file, []byte(formatCases(t, bash, cases)), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		for _, c := range cases {
			t.Run(strings.TrimSuffix(filepath.Base(file), ".cases")+"/"+c.Name, func(t *testing.T) {
				if ignored := ignoredSignals(); ignored != "" && strings.Contains(c.Script, "trap") {
					t.Skipf("this process ignores %s (started under nohup?): bash inherits that and lists it in trap's output", ignored)
				}
				out, status := runBash(t, bash, c)
				if out != c.Stdout.Text || status != c.Exit {
					t.Errorf("%s: bash now says stdout %q, exit %d; recorded %q, exit %d (re-record with -record-bash)",
						c.Pos, out, status, c.Stdout.Text, c.Exit)
				}
			})
		}
	}
}

// ignoredSignals names the signals this process was started with ignored.
// A child inherits ignored signals across exec, and bash reports them as
// traps of ” (trap -p), so recorded trap cases only hold without them.
func ignoredSignals() string {
	var names []string
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGPIPE, syscall.SIGUSR1, syscall.SIGUSR2} {
		if signal.Ignored(sig) {
			names = append(names, sig.String())
		}
	}
	return strings.Join(names, ", ")
}

// bashRoot is a case's sandbox root on the host.
type bashRoot struct{ sandboxRoot }

func newBashRoot(t *testing.T, c casefile.Case) bashRoot {
	t.Helper()
	root := bashRoot{newSandboxRoot(t)}
	for _, f := range c.Files {
		p := root.file(f.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.Content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func (r bashRoot) env() map[string]string {
	return map[string]string{"HOME": r.mapPaths("/workspace"), "PATH": "/usr/bin:/bin", "LC_ALL": "C"}
}

// runBash runs a case's script with bash in the case's own directory.
func runBash(t *testing.T, bash string, c casefile.Case) (string, int) {
	t.Helper()
	root := newBashRoot(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "--norc", "--noprofile", "-c", root.mapPaths(c.Script), "sh")
	cmd.Dir = root.mapPaths("/workspace")
	cmd.Stdin = strings.NewReader(c.Stdin)
	for k, v := range root.env() {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	err := cmd.Run()
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: bash: %v", c.Pos, err)
	}
	return root.unmapPaths(stdout.String()), status
}

// formatCases writes cases back in the case-file format with bash's
// stdout and exit status.
func formatCases(t *testing.T, bash string, cases []casefile.Case) string {
	var b strings.Builder
	b.WriteString("# Recorded from " + bashVersion(bash) + " by `go test -run TestBashAgrees -record-bash`;\n" +
		"# edit the scripts, stdin and files, then re-record. Do not edit stdout or exit by hand.\n")
	for _, c := range cases {
		out, status := runBash(t, bash, c)
		fmt.Fprintf(&b, "\n=== %s\n", c.Name)
		for _, l := range strings.Split(c.Script, "\n") {
			b.WriteString(strings.TrimRight("$ "+l, " ") + "\n")
		}
		for _, f := range c.Files {
			section(&b, "file "+f.Path, f.Content)
		}
		if c.Stdin != "" {
			section(&b, "stdin", c.Stdin)
		}
		section(&b, "stdout", out)
		if status != 0 {
			fmt.Fprintf(&b, "--- exit %d\n", status)
		}
	}
	return b.String()
}

// section writes one section, quoted when the plain form would not read
// back the same (no final newline, trailing blank lines, empty).
func section(b *strings.Builder, head, content string) {
	plain := content != "" && strings.HasSuffix(content, "\n") && !strings.HasSuffix(content, "\n\n") &&
		strings.TrimSpace(content[strings.LastIndexByte(content[:len(content)-1], '\n')+1:]) != ""
	if !plain {
		fmt.Fprintf(b, "--- %s %s\n", head, strconv.Quote(content))
		return
	}
	fmt.Fprintf(b, "--- %s\n", head)
	for _, l := range strings.SplitAfter(strings.TrimSuffix(content, "\n"), "\n") {
		l = strings.TrimSuffix(l, "\n")
		if strings.HasPrefix(l, "---") || strings.HasPrefix(l, "===") || strings.HasPrefix(l, `\`) {
			l = `\` + l
		}
		b.WriteString(l + "\n")
	}
}

func bashVersion(bash string) string {
	out, err := exec.Command(bash, "-c", `echo "bash $BASH_VERSION"`).Output()
	if err != nil {
		return "bash"
	}
	return strings.TrimSpace(string(out))
}
