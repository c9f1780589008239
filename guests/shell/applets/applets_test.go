package applets_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"amlasandbox/guests/shell/applets"
	"amlasandbox/guests/shell/applets/casefile"
	"amlasandbox/guests/shell/hostapi"
)

// TestCases runs every case of testdata/*.cases: the "$" line is one
// command, split into words with shell quoting, run as an applet in a fresh
// temporary directory.
func TestCases(t *testing.T) {
	files, err := filepath.Glob("testdata/*.cases")
	if err != nil || len(files) == 0 {
		t.Fatalf("no case files: %v", err)
	}
	// Read every file first: awk changes the process directory while it runs.
	all := map[string][]casefile.Case{}
	for _, file := range files {
		cases, err := casefile.Parse(file)
		if err != nil {
			t.Fatal(err)
		}
		all[file] = cases
	}
	for _, file := range files {
		for _, c := range all[file] {
			t.Run(strings.TrimSuffix(filepath.Base(file), ".cases")+"/"+c.Name, func(t *testing.T) {
				runCase(t, c)
			})
		}
	}
}

// words splits a command line the way the shell would, without expansions
// beyond quoting.
func words(t *testing.T, line string) []string {
	t.Helper()
	f, err := syntax.NewParser().Parse(strings.NewReader(line), "")
	if err != nil {
		t.Fatalf("parsing %q: %v", line, err)
	}
	if len(f.Stmts) != 1 {
		t.Fatalf("%q: want one command", line)
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(f.Stmts[0].Redirs) > 0 {
		t.Fatalf("%q: want a simple command without redirections", line)
	}
	args, err := expand.Fields(nil, call.Args...)
	if err != nil {
		t.Fatalf("expanding %q: %v", line, err)
	}
	return args
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

// normalJSON re-encodes JSON compactly with sorted keys.
func normalJSON(raw []byte) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func runCase(t *testing.T, c casefile.Case) {
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
	env := map[string]string{}
	for _, kv := range c.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	var fake *hostapi.Fake
	var tools hostapi.Tools
	if c.Tools != "" {
		fake = fakeTools(t, c.Tools)
		tools = fake
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	reg := applets.Default()
	p := &applets.Proc{
		Stdin:    strings.NewReader(c.Stdin),
		Stdout:   &stdout,
		Stderr:   &stderr,
		Env:      env,
		Dir:      dir,
		Tools:    tools,
		Ctx:      ctx,
		Registry: reg,
	}
	args := words(t, c.Script)
	status := p.Exec(p.Stdin, args)

	clean := func(s string) string { return strings.ReplaceAll(s, dir, "$DIR") }
	if got := clean(stdout.String()); !c.Stdout.Check(got) {
		t.Errorf("%s: stdout = %q, want %q", c.Pos, got, c.Stdout.Text)
	}
	if got := clean(stderr.String()); !c.Stderr.Check(got) {
		t.Errorf("%s: stderr = %q, want %q", c.Pos, got, c.Stderr.Text)
	}
	if status != c.Exit {
		t.Errorf("%s: exit = %d, want %d", c.Pos, status, c.Exit)
	}
	for _, f := range c.WantFiles {
		got, err := os.ReadFile(filepath.Join(dir, f.Path))
		if err != nil {
			t.Errorf("%s: want file %s: %v", c.Pos, f.Path, err)
		} else if string(got) != f.Content {
			t.Errorf("%s: file %s = %q, want %q", c.Pos, f.Path, got, f.Content)
		}
	}
	for _, name := range c.NoFiles {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s: %s exists, want it gone", c.Pos, name)
		}
	}
	if c.Calls.Set {
		var lines []string
		if fake != nil {
			for _, call := range fake.Calls {
				lines = append(lines, call.Method+" "+normalJSON(call.Params))
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

func TestDefaultHasEveryApplet(t *testing.T) {
	want := strings.Fields(`cat echo printf grep tr head tail sort uniq wc cut ls mkdir rm cp mv touch find
		sed awk xargs tee seq base64 sha256sum date basename dirname env true false test [ jq tool sh yes curl wget`)
	reg := applets.Default()
	for _, name := range want {
		if _, ok := reg.Lookup(name); !ok {
			t.Errorf("Default() lacks %s", name)
		}
	}
	// Registering into one registry leaves the next Default() alone.
	reg.Register("node", func(*applets.Proc, []string) int { return 0 })
	if _, ok := applets.Default().Lookup("node"); ok {
		t.Error("Default() shares state between calls")
	}
	names := reg.Names()
	if len(names) < len(want) || names[0] > names[len(names)-1] {
		t.Errorf("Names() = %v, want sorted", names)
	}
}
