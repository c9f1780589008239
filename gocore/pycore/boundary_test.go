package pycore

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"strings"
	"testing"

	"amlasandbox/gocore/host"
)

// gopy v0.4.10 never frees the C string it returns for an export whose only
// result is error (its generator says "NOTE: leaked string"), so no export
// may have that shape; tests/test_boundary.py measures the memory.
func TestNoExportReturnsABareError(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	exports := 0
	for _, pkg := range pkgs {
		for _, file := range pkg.Files {
			for _, decl := range file.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Recv != nil || !fn.Name.IsExported() {
					continue
				}
				exports++
				res := fn.Type.Results
				if res == nil || res.NumFields() != 1 {
					continue
				}
				if id, ok := res.List[0].Type.(*ast.Ident); ok && id.Name == "error" {
					t.Errorf("%s: %s returns only an error; return a status string instead (see boundary.go)",
						fset.Position(fn.Pos()), fn.Name.Name)
				}
			}
		}
	}
	if exports < 20 {
		t.Fatalf("found only %d exports: the scan is not looking at the package", exports)
	}
}

func TestStatusAndGuard(t *testing.T) {
	if s := status(func() error { return nil }); s != "" {
		t.Errorf("success: %q", s)
	}
	for _, tt := range []struct {
		name string
		f    func() error
		kind errorKind
		msg  string
	}{
		{"plain error", func() error { return errors.New("boom") }, kindRuntime, "boom"},
		{"closed", func() error { return host.ErrClosed }, kindClosed, "Sandbox not initialized"},
		{"kind kept", func() error { return newError(kindStaleRun, "run %d", 3) }, kindStaleRun, "run 3"},
		{"panic", func() error { panic("bad") }, kindInternal, "internal error (Go panic): bad"},
		{"quotes and NUL", func() error { return errors.New("a \"b\"\x00c") }, kindRuntime, "a \"b\"\x00c"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := status(tt.f)
			if strings.IndexByte(s, 0) >= 0 {
				t.Fatalf("status holds a NUL (it crosses as a C string): %q", s)
			}
			var be boundaryError
			if err := json.Unmarshal([]byte(s), &be); err != nil {
				t.Fatalf("status %q is not JSON: %v", s, err)
			}
			if be.Kind != tt.kind || be.Message != tt.msg {
				t.Fatalf("status = %+v, want %s %q", be, tt.kind, tt.msg)
			}
		})
	}
}
