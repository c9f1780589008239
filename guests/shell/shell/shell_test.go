package shell_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"amlasandbox/guests/shell/applets"
	"amlasandbox/guests/shell/applets/casefile"
	"amlasandbox/guests/shell/hostapi"
	"amlasandbox/guests/shell/shell"
)

// sandboxRoot makes a temporary directory standing in for the sandbox's
// root, with workspace/ and tmp/. Scripts and expectations say
// /workspace and /tmp; mapPaths and unmapPaths translate.
type sandboxRoot struct{ dir string }

func newSandboxRoot(t *testing.T) sandboxRoot {
	dir := t.TempDir()
	for _, d := range []string{"workspace", "tmp"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return sandboxRoot{dir}
}

func (s sandboxRoot) mapPaths(text string) string {
	return strings.NewReplacer("/workspace", s.dir+"/workspace", "/tmp", s.dir+"/tmp").Replace(text)
}

func (s sandboxRoot) unmapPaths(text string) string {
	return strings.NewReplacer(s.dir+"/workspace", "/workspace", s.dir+"/tmp", "/tmp", s.dir, "").Replace(text)
}

// file resolves a case's file path: relative ones live in /workspace.
func (s sandboxRoot) file(p string) string {
	if !filepath.IsAbs(p) {
		p = "/workspace/" + p
	}
	return s.mapPaths(p)
}

// TestCases runs every case of testdata/*.cases through shell.Run.
func TestCases(t *testing.T) {
	files, err := filepath.Glob("testdata/*.cases")
	if err != nil || len(files) == 0 {
		t.Fatalf("no case files: %v", err)
	}
	all := map[string][]casefile.Case{}
	for _, file := range files {
		if all[file], err = casefile.Parse(file); err != nil {
			t.Fatal(err)
		}
	}
	for _, file := range files {
		for _, c := range all[file] {
			t.Run(strings.TrimSuffix(filepath.Base(file), ".cases")+"/"+c.Name, func(t *testing.T) {
				runCase(t, c)
			})
		}
	}
}

// fakeTools builds the hostapi.Fake of a case's "tools" section.
func fakeTools(t *testing.T, spec string) *hostapi.Fake {
	t.Helper()
	fake, err := casefile.FakeTools(spec)
	if err != nil {
		t.Fatal(err)
	}
	return fake
}

func runCase(t *testing.T, c casefile.Case) {
	root := newSandboxRoot(t)
	for _, d := range c.Dirs {
		if err := os.MkdirAll(root.file(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range c.Files {
		p := root.file(f.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.Content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"HOME": root.mapPaths("/workspace"), "PATH": "/bin"}
	for _, kv := range c.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = root.mapPaths(v)
	}
	var tools hostapi.Tools
	var fake *hostapi.Fake
	if c.Tools != "" {
		fake = fakeTools(t, c.Tools)
		tools = fake
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	status := shell.Run(root.mapPaths(c.Script), shell.Options{
		Stdin:    strings.NewReader(c.Stdin),
		Stdout:   &stdout,
		Stderr:   &stderr,
		Env:      env,
		Dir:      root.mapPaths("/workspace"),
		Tools:    tools,
		Registry: applets.Default(),
		Ctx:      ctx,
	})
	if got := root.unmapPaths(stdout.String()); !c.Stdout.Check(got) {
		t.Errorf("%s: stdout = %q, want %q", c.Pos, got, c.Stdout.Text)
	}
	if got := root.unmapPaths(stderr.String()); !c.Stderr.Check(got) {
		t.Errorf("%s: stderr = %q, want %q", c.Pos, got, c.Stderr.Text)
	}
	if status != c.Exit {
		t.Errorf("%s: exit = %d, want %d", c.Pos, status, c.Exit)
	}
	for _, f := range c.WantFiles {
		got, err := os.ReadFile(root.file(f.Path))
		if err != nil {
			t.Errorf("%s: want file %s: %v", c.Pos, f.Path, err)
		} else if string(got) != f.Content {
			t.Errorf("%s: file %s = %q, want %q", c.Pos, f.Path, got, f.Content)
		}
	}
	for _, name := range c.NoFiles {
		if _, err := os.Lstat(root.file(name)); err == nil {
			t.Errorf("%s: %s exists, want it gone", c.Pos, name)
		}
	}
	if c.Calls.Set {
		var lines []string
		if fake != nil {
			for _, call := range fake.Calls {
				var v any
				dec := json.NewDecoder(bytes.NewReader(call.Params))
				dec.UseNumber()
				_ = dec.Decode(&v)
				b, _ := json.Marshal(v)
				lines = append(lines, call.Method+" "+string(b))
			}
		}
		got := strings.Join(lines, "\n")
		if got != "" {
			got += "\n"
		}
		if !c.Calls.Check(got) {
			t.Errorf("%s: calls = %q, want %q", c.Pos, got, c.Calls.Text)
		}
	}
}
