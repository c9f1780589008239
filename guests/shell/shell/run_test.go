package shell_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"amlasandbox/guests/shell/applets"
	"amlasandbox/guests/shell/shell"
)

// run runs a script with a timeout and returns stdout, stderr and status.
func run(t *testing.T, script string, opts shell.Options) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	opts.Stdout, opts.Stderr = &out, &errb
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	status := shell.Run(script, opts)
	return out.String(), errb.String(), status
}

// TestRunawayScriptsStop checks that a cancelled context ends loops and
// endless producers promptly, wherever they block.
func TestRunawayScriptsStop(t *testing.T) {
	for _, script := range []string{
		"while true; do :; done",
		"until false; do x=1; done",
		"for ((;;)); do :; done",
		"yes > /dev/null",
		"yes | cat > /dev/null",
		"f() { while :; do :; done; }; f",
		"while true; do echo x; done | while read l; do :; done",
		"x=$(yes)",
		"sleep 100",
		"sh -c 'while :; do :; done'",
		"seq 1 10000000000 > /dev/null",
		"awk 'BEGIN { while (1) {} }'",
		"jq -n 'def f: f; f'",
		"sed ':a; s/x/x/; ba' <<< x",
		"yes | grep y > /dev/null",
		"yes | tail -1",
		"yes | sort",
	} {
		t.Run(script, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, stderr, status := run(t, script, shell.Options{Ctx: ctx})
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %v to stop", d)
			}
			if status == 0 {
				t.Errorf("status 0 after cancellation; stderr %q", stderr)
			}
		})
	}
}

func TestCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out, errs, status := run(t, "echo never", shell.Options{Ctx: ctx})
	if out != "" || status != 130 || !strings.Contains(errs, "cancelled") {
		t.Errorf("got %q %q %d", out, errs, status)
	}
}

func TestDeadlineMessage(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, errs, status := run(t, "while :; do :; done", shell.Options{Ctx: ctx})
	if status != 124 || !strings.Contains(errs, "time limit") {
		t.Errorf("got %q %d", errs, status)
	}
}

func TestOptions(t *testing.T) {
	reg := applets.Default()
	reg.Register("node", func(p *applets.Proc, args []string) int {
		p.Stdout.Write([]byte("node ran " + strings.Join(args[1:], " ") + "\n"))
		return 0
	})
	tests := []struct {
		name   string
		script string
		opts   shell.Options
		out    string
		errs   string
		status int
	}{
		{name: "default directory is /workspace", script: "pwd", opts: shell.Options{Dir: "/workspace"}, out: "/workspace\n"},
		{name: "cd .. at / stays at /", script: "cd /; cd ..; cd ../..; pwd", out: "/\n"},
		{name: "registered applets run", script: "node -e 'x'", opts: shell.Options{Registry: reg}, out: "node ran -e x\n"},
		{name: "env is exported", script: "echo $GREETING; env | grep GREETING", opts: shell.Options{Env: map[string]string{"GREETING": "hi"}},
			out: "hi\nGREETING=hi\n"},
		{name: "MaxCallDepth bounds recursion", script: "f() { f; }; f", opts: shell.Options{MaxCallDepth: 10},
			errs: "sh: line 1: f: maximum function nesting level exceeded (10)\n", status: 1},
		{name: "depth allows exactly MaxCallDepth calls", script: "n=0; f() { n=$((n+1)); [ $n -lt 10 ] && f; }; f; echo $n",
			opts: shell.Options{MaxCallDepth: 10}, out: "10\n"},
		{name: "nested sh is bounded", script: "echo 'sh s.sh' > s.sh; sh s.sh", opts: shell.Options{MaxCallDepth: 20},
			errs: "s.sh: maximum nesting level exceeded (20)\n", status: 1},
		{name: "nil stdin reads nothing", script: "cat; echo done", out: "done\n"},
		{name: "no tools", script: "tool --list", errs: "tool: no tools are available in this sandbox\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, status := run(t, tc.script, tc.opts)
			if out != tc.out || errs != tc.errs || status != tc.status {
				t.Errorf("got (%q, %q, %d), want (%q, %q, %d)", out, errs, status, tc.out, tc.errs, tc.status)
			}
		})
	}
}

// TestLongScriptFromStdin is the `shell("sh", stdin=...)` path with a
// script far beyond any command-length limit.
func TestLongScriptFromStdin(t *testing.T) {
	var script strings.Builder
	for i := 0; i < 2000; i++ {
		script.WriteString("echo line" + itoa(i) + "\n")
	}
	out, errs, status := run(t, "sh", shell.Options{Stdin: strings.NewReader(script.String())})
	if status != 0 || errs != "" || strings.Count(out, "\n") != 2000 || !strings.HasSuffix(out, "line1999\n") {
		t.Errorf("status %d, stderr %q, %d lines", status, errs, strings.Count(out, "\n"))
	}
}

func itoa(i int) string {
	return strings.TrimSpace(strings.Repeat(" ", 0) + func() string { return fmtInt(i) }())
}

func fmtInt(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// TestBigPipeline moves a few megabytes through a pipeline.
func TestBigPipeline(t *testing.T) {
	out, errs, status := run(t, "seq 1 200000 | sort -n | tail -1; seq 1 200000 | awk '{s+=$1} END {print s}'", shell.Options{})
	if out != "200000\n20000100000\n" || errs != "" || status != 0 {
		t.Errorf("got %q %q %d", out, errs, status)
	}
}
