package decl

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// goldenSets are the tool sets of testdata/ with golden declarations.
var goldenSets = []string{"github", "payments", "edge"}

func loadTools(t testing.TB, name string) []Tool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var tools []Tool
	if err := json.Unmarshal(data, &tools); err != nil {
		t.Fatalf("testdata/%s.json: %v", name, err)
	}
	return tools
}

// TestGolden compares the declarations of each tool set with its golden
// files (go test -run TestGolden -update rewrites them).
func TestGolden(t *testing.T) {
	for _, name := range goldenSets {
		s := NewSet(loadTools(t, name))
		for ext, got := range map[string]string{".d.ts": s.TypeScript(), ".pyi": s.Python(), ".shell": s.Shell()} {
			path := filepath.Join("testdata", name+ext)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test -run TestGolden -update writes it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from what the renderer writes now:\n%s", path, firstDiff(string(want), got))
			}
		}
	}
}

func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g
		}
	}
	return "(same lines)"
}

// TestGitHubSetSize keeps the GitHub-like set as big as the issue asks.
func TestGitHubSetSize(t *testing.T) {
	if n := len(loadTools(t, "github")); n < 100 {
		t.Fatalf("testdata/github.json has %d tools, want 100 or more", n)
	}
}

// checker finds an external checker: the path in env, else name on PATH.
func checker(t *testing.T, env, name, install string) string {
	t.Helper()
	if p := os.Getenv(env); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s=%s: %v", env, p, err)
		}
		return p
	}
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not found: set %s to its path or put it on PATH (%s)", name, env, install)
	}
	return p
}

// perTool writes each tool's own declaration of the edge set to dir, one
// file per tool, so that each is checked as complete in itself.
func perTool(t *testing.T, dir, lang, ext, prefix string) []string {
	t.Helper()
	s := NewSet(loadTools(t, "edge"))
	var files []string
	for i, name := range s.Names() {
		text, ok, err := s.Declaration(lang, name)
		if err != nil || !ok {
			t.Fatalf("Declaration(%s, %q) = %v, %v", lang, name, ok, err)
		}
		f := filepath.Join(dir, "tool"+strconv.Itoa(i)+ext)
		if err := os.WriteFile(f, []byte(prefix+text), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// corpusFiles renders each input of the fuzz corpus (hostile names and
// schemas) to a file of its own in dir.
func corpusFiles(t *testing.T, dir, ext, prefix string, render func(*Set) string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzRender", "*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fuzz corpus: %v", err)
	}
	var files []string
	for i, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		if len(lines) < 3 {
			t.Fatalf("%s: not a corpus file", path)
		}
		var args [2]string
		for j := range args {
			arg := strings.TrimSuffix(strings.TrimPrefix(lines[j+1], "string("), ")")
			if args[j], err = strconv.Unquote(arg); err != nil {
				t.Fatalf("%s line %d: %v", path, j+2, err)
			}
		}
		s := NewSet([]Tool{{Name: args[0], Description: args[1], InputSchema: json.RawMessage(args[1]), OutputSchema: json.RawMessage(args[1])}})
		f := filepath.Join(dir, "corpus"+strconv.Itoa(i)+ext)
		if err := os.WriteFile(f, []byte(prefix+render(s)), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// TestTypeScriptCompiles runs tsc --strict --noEmit on the golden
// TypeScript and on each edge tool's own declaration.
func TestTypeScriptCompiles(t *testing.T) {
	tsc := checker(t, "AMLA_TSC", "tsc", "npm install --prefix /tmp/tsc typescript@5.9.3; AMLA_TSC=/tmp/tsc/node_modules/.bin/tsc")
	dir := t.TempDir()
	var files []string
	for _, name := range goldenSets {
		s := NewSet(loadTools(t, name))
		f := filepath.Join(dir, name+".d.ts")
		// A module each, so that the sets' global names do not meet.
		if err := os.WriteFile(f, []byte("export {};\n"+s.TypeScript()), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	files = append(files, perTool(t, dir, "javascript", ".d.ts", "export {};\n")...)
	files = append(files, corpusFiles(t, dir, ".d.ts", "export {};\n", (*Set).TypeScript)...)
	args := append([]string{"--strict", "--noEmit", "--target", "es2022"}, files...)
	out, err := exec.Command(tsc, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("tsc --strict --noEmit: %v\n%s", err, out)
	}
}

// TestPythonTypeChecks runs pyright in strict mode on the golden Python
// and on each edge tool's own declaration.
func TestPythonTypeChecks(t *testing.T) {
	pyright := checker(t, "AMLA_PYRIGHT", "pyright", "pip install pyright; AMLA_PYRIGHT=/work/main/.venv/bin/pyright")
	dir := t.TempDir()
	config := `{"typeCheckingMode": "strict", "pythonVersion": "3.13"}`
	if err := os.WriteFile(filepath.Join(dir, "pyrightconfig.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, name := range goldenSets {
		s := NewSet(loadTools(t, name))
		f := filepath.Join(dir, name+".pyi")
		if err := os.WriteFile(f, []byte(s.Python()), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	files = append(files, perTool(t, dir, "python", ".pyi", "")...)
	files = append(files, corpusFiles(t, dir, ".pyi", "", (*Set).Python)...)
	cmd := exec.Command(pyright, append([]string{"--project", dir}, files...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pyright (strict): %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "0 errors") {
		t.Fatalf("pyright found errors:\n%s", out)
	}
}
