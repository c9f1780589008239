package host

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/bytecodealliance/wasmtime-go/v39"

	"amlasandbox/gocore/wire"
)

// The guests declare the host functions themselves: the C guests in one
// header, guests/include/amla_host.h, the Go guest with //go:wasmimport in
// guests/shell/hostcall. TestGuestDeclarationsMatchTheHost checks both
// against the functions the host defines (names, wasm signatures) and the
// constants of package wire they copy, so a change on one side that the
// other does not follow fails here rather than as a link error at run
// time or, worse, a wrong value.

// sig is a wasm signature: parameter and result types, "i32"/"i64".
type sig struct{ params, results []string }

func (s sig) String() string {
	return "(" + strings.Join(s.params, ",") + ") -> (" + strings.Join(s.results, ",") + ")"
}

// hostSigs are the wasm signatures of the host functions, read from the
// Go functions the host wraps.
func hostSigs(t *testing.T) map[string]sig {
	t.Helper()
	caller := reflect.TypeOf((*wasmtime.Caller)(nil))
	trap := reflect.TypeOf((*wasmtime.Trap)(nil))
	out := map[string]sig{}
	for _, f := range hostFuncs() {
		ft := reflect.TypeOf(f.fn)
		var s sig
		for i := 0; i < ft.NumIn(); i++ {
			if ft.In(i) == caller {
				continue
			}
			s.params = append(s.params, wasmType(t, f.name, ft.In(i).Kind()))
		}
		for i := 0; i < ft.NumOut(); i++ {
			if ft.Out(i) == trap {
				continue
			}
			s.results = append(s.results, wasmType(t, f.name, ft.Out(i).Kind()))
		}
		out[f.name] = s
	}
	return out
}

func wasmType(t *testing.T, fn string, k reflect.Kind) string {
	switch k {
	case reflect.Int32:
		return "i32"
	case reflect.Int64:
		return "i64"
	}
	t.Fatalf("host function %s: Go type %v has no wasm type here", fn, k)
	return ""
}

var (
	cImport = regexp.MustCompile(`AMLA_IMPORT\("([a-z_]+)"\)\s+([a-z0-9_]+)\s+\w+\(([^)]*)\);`)
	cModule = regexp.MustCompile(`#define AMLA_IMPORT\(name\) __attribute__\(\(import_module\("([a-z_]+)"\)`)
	cDefine = regexp.MustCompile(`#define (AMLA_[A-Z_]+) (\d+)`)
)

// cType is the wasm32 type of a C type (pointers are i32).
func cType(t *testing.T, c string) []string {
	c = strings.TrimSpace(c)
	switch {
	case c == "void" || c == "":
		return nil
	case strings.Contains(c, "*"), strings.HasPrefix(c, "int32_t"):
		return []string{"i32"}
	case strings.HasPrefix(c, "int64_t"):
		return []string{"i64"}
	}
	t.Fatalf("amla_host.h: C type %q has no wasm type here", c)
	return nil
}

func headerSigs(t *testing.T, header string) (module string, sigs map[string]sig, defines map[string]int64) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", header))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	m := cModule.FindStringSubmatch(text)
	if m == nil {
		t.Fatal("amla_host.h: no AMLA_IMPORT macro naming the import module")
	}
	sigs = map[string]sig{}
	for _, m := range cImport.FindAllStringSubmatch(text, -1) {
		var s sig
		s.results = cType(t, m[2])
		for _, p := range strings.Split(m[3], ",") {
			p = strings.TrimSpace(p)
			if p == "void" || p == "" {
				continue
			}
			// Drop the parameter name: the last word.
			if i := strings.LastIndexAny(p, " *"); i >= 0 {
				p = p[:i+1]
			}
			s.params = append(s.params, cType(t, p)...)
		}
		sigs[m[1]] = s
	}
	defines = map[string]int64{}
	for _, m := range cDefine.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.ParseInt(m[2], 10, 64)
		defines[m[1]] = n
	}
	return m[1], sigs, defines
}

// goGuestSigs reads the //go:wasmimport declarations of the Go guest.
func goGuestSigs(t *testing.T) (module string, sigs map[string]sig) {
	t.Helper()
	path := filepath.Join("..", "..", "guests", "shell", "hostcall", "imports_wasip1.go")
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	goType := func(e ast.Expr) string {
		switch x := e.(type) {
		case *ast.Ident:
			switch x.Name {
			case "int32":
				return "i32"
			case "int64":
				return "i64"
			}
		case *ast.SelectorExpr:
			if x.Sel.Name == "Pointer" {
				return "i32"
			}
		}
		t.Fatalf("%s: Go type %#v has no wasm type here", path, e)
		return ""
	}
	sigs = map[string]sig{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Doc == nil {
			continue
		}
		for _, c := range fd.Doc.List {
			fields := strings.Fields(strings.TrimPrefix(c.Text, "//go:wasmimport"))
			if !strings.HasPrefix(c.Text, "//go:wasmimport") || len(fields) != 2 {
				continue
			}
			if fields[0] == "wasi_snapshot_preview1" {
				continue // WASI's own functions (path_open), not the host's ABI
			}
			if module == "" {
				module = fields[0]
			} else if module != fields[0] {
				t.Fatalf("%s: imports from %q and %q", path, module, fields[0])
			}
			var s sig
			for _, p := range fd.Type.Params.List {
				for range max(len(p.Names), 1) {
					s.params = append(s.params, goType(p.Type))
				}
			}
			if fd.Type.Results != nil {
				for _, r := range fd.Type.Results.List {
					s.results = append(s.results, goType(r.Type))
				}
			}
			sigs[fields[1]] = s
		}
	}
	return module, sigs
}

func TestGuestDeclarationsMatchTheHost(t *testing.T) {
	host := hostSigs(t)
	cMod, cSigs, defines := headerSigs(t, "guests/include/amla_host.h")
	goMod, goSigs := goGuestSigs(t)
	for _, guest := range []struct {
		name   string
		module string
		sigs   map[string]sig
	}{{"guests/include/amla_host.h", cMod, cSigs}, {"guests/shell/hostcall", goMod, goSigs}} {
		if guest.module != wire.Module {
			t.Errorf("%s imports from module %q, the host defines %q", guest.name, guest.module, wire.Module)
		}
		if names(guest.sigs) != names(host) {
			t.Errorf("%s declares %s; the host defines %s", guest.name, names(guest.sigs), names(host))
		}
		for name, s := range guest.sigs {
			if h, ok := host[name]; ok && h.String() != s.String() {
				t.Errorf("%s: %s is %s, the host's is %s", guest.name, name, s, h)
			}
		}
	}
	if got := defines["AMLA_DISK_ENTRY_COST"]; got != wire.DiskEntryCost {
		t.Errorf("amla_host.h: AMLA_DISK_ENTRY_COST is %d, wire.DiskEntryCost %d", got, wire.DiskEntryCost)
	}
}

func names(m map[string]sig) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}
