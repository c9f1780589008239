package wire

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The C guests (JavaScript and Python) declare the host functions in one
// header, guests/include/amla_host.h. TestCHeaderMatchesWire checks it
// against this package: the import module, one import per Fn constant and
// no other, each with the signature documented at the Fn constants, and
// the constants the header copies. (gocore/host checks the same header
// against the functions the host defines.)

const sharedHeader = "guests/include/amla_host.h"

var (
	cImport = regexp.MustCompile(`AMLA_IMPORT\("([a-z_]+)"\)\s+([a-z0-9_]+)\s+(\w+)\(([^)]*)\);`)
	cModule = regexp.MustCompile(`#define AMLA_IMPORT\(name\) __attribute__\(\(import_module\("([a-z_]+)"\), import_name\(name\)\)\)`)
	cDefine = regexp.MustCompile(`#define (AMLA_[A-Z_]+) (\d+)`)
	// A documented signature: "\tname(a, b i64) -> len".
	docSig = regexp.MustCompile(`^//\t([a-z_]+)\(([^)]*)\)(?:\s*->\s*(\w+))?`)
)

func repoFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return string(b)
}

// cWasmType is the wasm32 type of a C parameter or result type.
func cWasmType(t *testing.T, c string) string {
	c = strings.TrimSpace(c)
	switch {
	case c == "void" || c == "":
		return ""
	case strings.Contains(c, "*"), strings.HasPrefix(c, "int32_t"):
		return "i32"
	case strings.HasPrefix(c, "int64_t"):
		return "i64"
	}
	t.Fatalf("%s: C type %q has no wasm type here", sharedHeader, c)
	return ""
}

// headerImports reads the header's imports as name -> "(params) -> result".
func headerImports(t *testing.T, text string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range cImport.FindAllStringSubmatch(text, -1) {
		name, result, cName, params := m[1], m[2], m[3], m[4]
		if cName != "amla_"+name {
			t.Errorf("%s: import %q is declared as %s, want amla_%s", sharedHeader, name, cName, name)
		}
		var ps []string
		for _, p := range strings.Split(params, ",") {
			p = strings.TrimSpace(p)
			if p == "void" || p == "" {
				continue
			}
			if i := strings.LastIndexAny(p, " *"); i >= 0 {
				p = p[:i+1] // drop the parameter's name
			}
			ps = append(ps, cWasmType(t, p))
		}
		out[name] = "(" + strings.Join(ps, ",") + ") -> " + cWasmType(t, result)
	}
	return out
}

// wireFunctions reads wire.go: each Fn constant's value, and the signature
// its documentation gives (integers are i32 unless marked i64; a result
// named otherwise, such as len, is an i32).
func wireFunctions(t *testing.T) (names map[string]bool, sigs map[string]string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "wire.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	names = map[string]bool{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, id := range vs.Names {
				if !strings.HasPrefix(id.Name, "Fn") || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("wire.go: %s is not a string constant", id.Name)
				}
				v, _ := strconv.Unquote(lit.Value)
				names[v] = true
			}
		}
	}
	sigs = map[string]string{}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			m := docSig.FindStringSubmatch(c.Text)
			if m == nil || !names[m[1]] {
				continue
			}
			var ps []string
			for _, p := range strings.Split(m[2], ",") {
				p = strings.TrimSpace(p)
				if p == "" {
					continue
				}
				if strings.HasSuffix(p, " i64") {
					ps = append(ps, "i64")
				} else {
					ps = append(ps, "i32")
				}
			}
			result := ""
			switch m[3] {
			case "":
			case "i64":
				result = "i64"
			default:
				result = "i32"
			}
			sigs[m[1]] = "(" + strings.Join(ps, ",") + ") -> " + result
		}
	}
	return names, sigs
}

func sortedKeys[V any](m map[string]V) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func TestCHeaderMatchesWire(t *testing.T) {
	text := repoFile(t, sharedHeader)
	if m := cModule.FindStringSubmatch(text); m == nil {
		t.Errorf("%s: no AMLA_IMPORT macro naming the import module", sharedHeader)
	} else if m[1] != Module {
		t.Errorf("%s imports from module %q, wire.Module is %q", sharedHeader, m[1], Module)
	}
	got := headerImports(t, text)
	names, sigs := wireFunctions(t)
	if sortedKeys(got) != sortedKeys(names) {
		t.Errorf("%s declares %s;\nwire's Fn constants are %s", sharedHeader, sortedKeys(got), sortedKeys(names))
	}
	for name := range names {
		want, ok := sigs[name]
		if !ok {
			t.Errorf("wire.go documents no signature for %s", name)
			continue
		}
		if h, ok := got[name]; ok && h != want {
			t.Errorf("%s: %s is %s, wire.go documents %s", sharedHeader, name, h, want)
		}
	}
	defines := map[string]int64{}
	for _, m := range cDefine.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.ParseInt(m[2], 10, 64)
		defines[m[1]] = n
	}
	if got, ok := defines["AMLA_DISK_ENTRY_COST"]; !ok || got != DiskEntryCost {
		t.Errorf("%s: AMLA_DISK_ENTRY_COST is %d (defined: %v), wire.DiskEntryCost %d", sharedHeader, got, ok, DiskEntryCost)
	}
}

// TestCGuestsUseTheSharedHeader: each C guest's own header includes the
// shared one and declares no host import of its own, so there is one
// declaration of each to check.
func TestCGuestsUseTheSharedHeader(t *testing.T) {
	for _, h := range []string{"guests/js/amla.h", "guests/python/host.h"} {
		text := repoFile(t, h)
		if !strings.Contains(text, `#include "amla_host.h"`) {
			t.Errorf("%s does not include amla_host.h", h)
		}
		if strings.Contains(text, "AMLA_IMPORT") || strings.Contains(text, "import_module") {
			t.Errorf("%s declares host imports of its own; they belong in %s", h, sharedHeader)
		}
	}
}
