package guesttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"amlasandbox/gocore/host"
	"amlasandbox/gocore/wire"
)

func sh(code string) Options { return Options{Language: wire.LangShell, Code: code} }

// TestShellGuest runs the shell guest on the real host.
func TestShellGuest(t *testing.T) {
	tests := []struct {
		name, code     string
		stdout, stderr string
		exit           int
		kind           string
	}{
		{"echo", "echo héllo", "héllo\n", "", 0, ""},
		{"pipeline", "printf 'b\\na\\nb\\n' | sort | uniq -c | awk '{print $2 \"=\" $1}'", "a=1\nb=2\n", "", 0, ""},
		{"exit status", "false || exit 3", "", "", 3, ""},
		{"files persist within a run", "echo x > /workspace/f && cat /workspace/f && ls /workspace", "x\nf\n", "", 0, ""},
		{"awk writes into the stage's directory", "mkdir -p d && seq 1 3 | awk '{print > \"n\"}' | (cd d && cat); cat n; ls d | wc -l",
			"1\n2\n3\n0\n", "", 0, ""},
		{"read-only root", "echo x > /nope; echo rc=$?", "rc=1\n", "", 0, ""},
		{"node from the shell", "echo 'console.log(6 * 7)' > /workspace/a.js && node - < /workspace/a.js", "42\n", "", 0, ""},
		{"node -e", "node -e 'console.log([1,2].map(x => x * 2))'", "[2,4]\n", "", 0, ""},
		{"timeout", "while true; do :; done", "", "", 124, wire.ErrKindTimeout},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := sh(tc.code)
			opts.Limits.Timeout = 2e9
			r := runJS(t, opts)
			if r.Stdout != tc.stdout || (tc.stderr != "" && !strings.Contains(r.Stderr, tc.stderr)) || r.ExitCode != tc.exit || r.ErrorKind != tc.kind {
				t.Errorf("%s\nstdout %q, want %q\nstderr %q exit %d kind %q error %q", tc.code, r.Stdout, tc.stdout, r.Stderr, r.ExitCode, r.ErrorKind, r.Error)
			}
		})
	}
}

// TestShellTools: the tool applet's calls go through the host's
// capability check and reach the handler.
func TestShellTools(t *testing.T) {
	opts := sh(`tool echo --x 1 --s é; tool fail --a 1; echo rc=$?`)
	opts.Tools = []wire.ToolInfo{{Name: "echo"}, {Name: "fail"}}
	opts.Handlers = echoTools()
	r := runJS(t, opts)
	if !strings.Contains(r.Stdout, `"s":"é"`) || !strings.Contains(r.Stdout, "rc=1") || !strings.Contains(r.Stderr, "mcp:fail") {
		t.Fatalf("stdout %q stderr %q", r.Stdout, r.Stderr)
	}
	if len(r.Requests) != 1 || r.Requests[0].Method != "mcp:echo" {
		t.Fatalf("requests that reached the driver: %+v", r.Requests)
	}
}

// TestFilesAcrossGuestsAndRuns: both guests see one directory, which
// outlives their runs.
func TestFilesAcrossGuestsAndRuns(t *testing.T) {
	sb := newSandbox(t, nil, host.Limits{})
	steps := []struct {
		opts Options
		want string
	}{
		{sh("echo from-shell > /workspace/s.txt"), ""},
		{js(`await fs.writeFile("/workspace/j.txt", await fs.readFile("/workspace/s.txt", "utf8") + "and-js")`), ""},
		{sh("cat /workspace/j.txt"), "from-shell\nand-js"},
	}
	for i, s := range steps {
		s.opts.Sandbox = sb
		if r := runJS(t, s.opts); r.Stdout != s.want || r.ExitCode != 0 {
			t.Fatalf("step %d: %+v", i, r.Result)
		}
	}
	if b, err := os.ReadFile(filepath.Join(sb.Root(), "workspace", "j.txt")); err != nil || string(b) != "from-shell\nand-js" {
		t.Fatalf("host file %q %v", b, err)
	}
}

// TestNestedMemoryAcrossGuests: a shell that holds memory leaves its
// JavaScript child only the rest of memory_limit.
func TestNestedMemoryAcrossGuests(t *testing.T) {
	opts := js(`globalThis.keep = []; for (let i = 0; i < 60; i++) keep.push(new Uint8Array(1 << 20).fill(1));
const r = await shell("echo child"); return [r.exitCode, r.stderr.includes("memory_limit")]`)
	opts.Limits.MemoryLimit = 128 << 20
	r := runJS(t, opts)
	if r.Stdout != "[126,true]\n" {
		t.Fatalf("stdout %q stderr %q error %q", r.Stdout, r.Stderr, r.Error)
	}
}
