package jsrt

import (
	"testing"

	"github.com/dop251/goja"
)

// BenchmarkFib measures call-heavy code, where the recursion countdown
// (recursion.go) costs most.
func BenchmarkFib(b *testing.B) {
	for i := 0; i < b.N; i++ {
		r := runJS(b, `function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) } return fib(22)`)
		if r.stdout != "17711\n" {
			b.Fatal(r.stdout, r.stderr)
		}
	}
}

// BenchmarkStartup is one whole run of a trivial script: VM, prelude,
// compile, run.
func BenchmarkStartup(b *testing.B) {
	for i := 0; i < b.N; i++ {
		r := runJS(b, `return 1`)
		if r.stdout != "1\n" {
			b.Fatal(r.stdout, r.stderr)
		}
	}
}

// BenchmarkGojaNew is the engine alone, for comparison.
func BenchmarkGojaNew(b *testing.B) {
	for i := 0; i < b.N; i++ {
		vm := goja.New()
		_, _ = vm.RunString("1")
	}
}

// BenchmarkNewRuntime is a VM with the prelude installed.
func BenchmarkNewRuntime(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := newRuntime(Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompileScript(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := compileScript("return 1", nil); err != nil {
			b.Fatal(err)
		}
	}
}
