package host

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// runText runs code on sb (journaled when record) and returns its stdout.
func runText(t *testing.T, sb *Sandbox, code string, record bool) string {
	t.Helper()
	if record {
		r := startDurable(t, sb, RunOptions{Language: "shell", Code: code, Record: true})
		res := r.Result()
		if res.ErrorKind != "" {
			t.Fatalf("%q (recorded): %s: %s", code, res.ErrorKind, res.Error)
		}
		return res.Stdout
	}
	r, err := sb.Start("shell", code, "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	res := r.Result()
	if res.ErrorKind != "" {
		t.Fatalf("%q: %s: %s", code, res.ErrorKind, res.Error)
	}
	return res.Stdout
}

func TestGuestsCannotMakeLinks(t *testing.T) {
	for _, record := range []bool{false, true} {
		for _, code := range []string{
			"symlink ../../../../etc/passwd /workspace/l",
			"symlink /workspace/f /workspace/l",
			"link /workspace/f /workspace/l",
			"link /workspace/f /tmp/l",
		} {
			sb := newTestSandbox(t, Limits{}, nil)
			writeTree(t, sb, map[string]string{"workspace/f": "data"})
			out := runText(t, sb, code, record)
			if !strings.Contains(strings.ToLower(out), "operation not permitted") {
				t.Errorf("%q (record %v): %q, want operation not permitted", code, record, out)
			}
			name := strings.Fields(code)[2]
			if _, err := os.Lstat(filepath.Join(sb.Root(), name)); !os.IsNotExist(err) {
				t.Errorf("%q (record %v): %s exists on the host (%v)", code, record, name, err)
			}
		}
	}
}

// TestLinksFoundInSandbox: a symlink, a hard link and a named pipe put into
// a sandbox's directory from outside are never followed, snapshot, fork
// and the files digest leave them out, and a recorded run removes them.
func TestLinksFoundInSandbox(t *testing.T) {
	secretDir := t.TempDir()
	secret := filepath.Join(secretDir, "secret")
	if err := os.WriteFile(secret, []byte("host secret 7f3a"), 0o600); err != nil {
		t.Fatal(err)
	}
	sb := newTestSandbox(t, Limits{}, nil)
	writeTree(t, sb, map[string]string{"workspace/f": "data", "tmp/g": "more"})
	plain, err := sb.FilesDigest()
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(sb.Root(), "workspace")
	wsInfo, err := os.Stat(ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, mk := range []func() error{
		func() error { return os.Symlink(secret, filepath.Join(ws, "abs")) },
		func() error { return os.Symlink("../../../../../../"+secret, filepath.Join(ws, "rel")) },
		func() error { return os.Symlink(secretDir, filepath.Join(ws, "dir")) },
		func() error { return syscall.Mkfifo(filepath.Join(ws, "fifo"), 0o644) },
	} {
		if err := mk(); err != nil {
			t.Fatal(err)
		}
	}
	// The digest covers the directory's mtime, which making them changed.
	if err := os.Chtimes(ws, wsInfo.ModTime(), wsInfo.ModTime()); err != nil {
		t.Fatal(err)
	}

	dg, err := sb.FilesDigest()
	if err != nil || dg != plain {
		t.Fatalf("files digest with links: %x, %v; want %x (the links left out)", dg[:4], err, plain[:4])
	}
	snap, err := sb.Snapshot(SnapshotOptions{})
	if err != nil {
		t.Fatalf("snapshot with links: %v", err)
	}
	if bytes.Contains(snap, []byte("host secret")) {
		t.Fatal("the snapshot holds the bytes of a file a symlink points at")
	}
	restored := newTestSandbox(t, Limits{}, nil)
	if err := restored.Restore(snap); err != nil {
		t.Fatal(err)
	}
	fork := newTestSandbox(t, Limits{}, nil)
	if err := sb.CopyTo(fork); err != nil {
		t.Fatalf("fork with links: %v", err)
	}
	for _, other := range []*Sandbox{restored, fork} {
		tree := readTree(t, other.Root())
		if len(tree) != 4 { // tmp, tmp/g, workspace, workspace/f
			t.Fatalf("copied files: %v", tree)
		}
	}
	// The quota's walk counts a link as one entry and never its target.
	if used := diskUsage(sb.Root()); used > 16*4096 {
		t.Fatalf("disk usage %d: the walk followed a link", used)
	}

	// A recorded run (which snapshots the files first) works, and removes them.
	for _, name := range []string{"abs", "rel", "dir", "fifo"} {
		if out := runText(t, sb, "rm /workspace/"+name, true); out != "removed\n" {
			t.Fatalf("rm %s: %q", name, out)
		}
	}
	if got, err := os.ReadFile(secret); err != nil || string(got) != "host secret 7f3a" {
		t.Fatalf("the symlink's target changed: %q, %v", got, err)
	}
	ents, _ := os.ReadDir(ws)
	if len(ents) != 1 {
		t.Fatalf("workspace after rm: %v", ents)
	}
}
