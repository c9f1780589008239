package jsrt

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
	"github.com/dop251/goja/token"
)

// FuzzCompileScript: any text either compiles or yields a syntax error
// located inside the user's code; nothing panics.
func FuzzCompileScript(f *testing.F) {
	for _, seed := range []string{
		"return 1", "const x = ;", "function f() {", "}", "for await (const x of y) {}", "`${", "/*", "'",
		"async function* g() {}", "#!/bin/node\nreturn 2", "})(); (async () => {", "let a; let a;", "é = 1 +",
		"class A { get x() { return this.x } }", "x => (y) => ({z: y})",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, code string) {
		_, err := compileScript(code, nil)
		if err == nil {
			return
		}
		lines := strings.Split(code, "\n")
		if err.Line < 1 || err.Line > len(lines) || err.Column < 1 {
			t.Fatalf("position %d:%d outside the code (%d lines): %v", err.Line, err.Column, len(lines), err)
		}
		if !strings.HasPrefix(err.Error(), "SyntaxError: ") {
			t.Fatalf("message %q", err.Error())
		}
	})
}

// TestInstrumentKeepsSemantics runs code whose meaning the countdown could
// break if it were inserted in the wrong place.
func TestInstrumentKeepsSemantics(t *testing.T) {
	runCases(t, []jsCase{
		{name: "directive stays first", code: `function f() { 'use strict'; return this } return f() === undefined`, out: "true\n"},
		{name: "arrow returning an object", code: `const f = (x) => ({v: g(x)}); function g(x) { return x } return f(1)`, out: "{\"v\":1}\n"},
		{name: "derived constructor before super", code: `
class A { constructor(x) { this.x = x } }
class B extends A { constructor() { super(id(5)) } }
function id(v) { return v }
return new B().x`, out: "5\n"},
		{name: "generator", code: `function* g() { yield id(1); yield id(2) } function id(v) { return v } return [...g()]`, out: "[1,2]\n"},
		{name: "function toString unchanged", code: `function f(a) { return g(a) } function g(x) { return x } return f.toString()`,
			out: "function f(a) { return g(a) }\n"},
		{name: "default parameters", code: `function f(a = g()) { return a } function g() { return 7 } return f()`, out: "7\n"},
		{name: "hoisting", code: `return h(); function h() { return k() } function k() { return 'hoisted' }`, out: "hoisted\n"},
		{name: "arguments object", code: `function f() { return g(arguments.length) } function g(n) { return n } return f(1, 2, 3)`, out: "3\n"},
		{name: "eval and with", code: `function f(o) { with (o) { return eval('g(a)') } } function g(x) { return x + 1 } return f({a: 1})`, out: "2\n"},
	})
}

// instrumentedFunctions compiles code as a run would and returns, for each
// named function (declarations, named expressions, methods, variables
// bound to arrows), whether it got the depth countdown.
func instrumentedFunctions(t *testing.T, code string) map[string]bool {
	t.Helper()
	rt, err := newRuntime(Options{ToolList: testTools})
	if err != nil {
		t.Fatal(err)
	}
	src := wrapPrefix + code + wrapSuffix
	prg, perr := parser.ParseFile(nil, scriptName, src, 0)
	if perr != nil {
		t.Fatal(perr)
	}
	base := prg.File.Base()
	instrument(prg, base+len(wrapPrefix), base+len(wrapPrefix)+len(code), rt.globalNames())
	has := func(e ast.Expression) bool {
		b, ok := e.(*ast.BinaryExpression)
		if !ok || b.Operator != token.LOGICAL_OR {
			return false
		}
		l, ok := b.Left.(*ast.BinaryExpression)
		if !ok {
			return false
		}
		u, ok := l.Left.(*ast.UnaryExpression)
		if !ok {
			return false
		}
		id, ok := u.Operand.(*ast.Identifier)
		return ok && id.Name == depthCounterName
	}
	bodyHas := func(b *ast.BlockStatement) bool {
		for _, st := range b.List {
			if es, ok := st.(*ast.ExpressionStatement); ok && has(es.Expression) {
				return true
			}
		}
		return false
	}
	arrowHas := func(a *ast.ArrowFunctionLiteral) bool {
		switch b := a.Body.(type) {
		case *ast.BlockStatement:
			return bodyHas(b)
		case *ast.ExpressionBody:
			if seq, ok := b.Expression.(*ast.SequenceExpression); ok && len(seq.Sequence) == 2 {
				return has(seq.Sequence[0])
			}
		}
		return false
	}
	out := map[string]bool{}
	walkAST(reflect.ValueOf(prg), map[uintptr]bool{}, func(v reflect.Value) bool {
		switch n := v.Interface().(type) {
		case *ast.FunctionLiteral:
			if n.Name != nil {
				out[n.Name.Name.String()] = bodyHas(n.Body)
			}
		case *ast.MethodDefinition:
			if name, ok := propertyName(n.Key); ok {
				out[name] = bodyHas(n.Body.Body)
			}
		case *ast.PropertyKeyed:
			if f, ok := n.Value.(*ast.FunctionLiteral); ok {
				if name, ok := propertyName(n.Key); ok {
					out[name] = bodyHas(f.Body)
				}
			}
		case *ast.Binding:
			if id, ok := n.Target.(*ast.Identifier); ok {
				switch f := n.Initializer.(type) {
				case *ast.ArrowFunctionLiteral:
					out[id.Name.String()] = arrowHas(f)
				case *ast.FunctionLiteral:
					out[id.Name.String()] = bodyHas(f.Body)
				}
			}
		}
		return true
	})
	return out
}

// TestInstrumentChoice pins which functions get the countdown: those that
// may close a recursion cycle, and not those that only call globals and
// methods of data.
func TestInstrumentChoice(t *testing.T) {
	cases := []struct {
		name, code string
		want       map[string]bool
	}{
		{"direct recursion", `function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }`, map[string]bool{"fib": true}},
		{"builtins and tools only", `
const up = s => s.trim().toUpperCase();
const parse = t => JSON.parse(t);
async function load() { const r = await math_add({a: 1}); console.log(Math.max(1, 2)); return [r].map(x => x) }
function leaf(x) { return x * 2 }`, map[string]bool{"up": false, "parse": false, "load": false, "leaf": false}},
		{"calls a user function", `function a() { return b() } function b() { return 1 }`, map[string]bool{"a": true, "b": false}},
		{"hands itself to a built-in", `function walk(n) { return n.children.map(walk) }`, map[string]bool{"walk": true}},
		{"user method", `class T { walk(n) { return this.walk(n) } size() { return this.items.length } }`, map[string]bool{"walk": true, "size": false}},
		{"calls a parameter", `function each(xs, f) { for (const x of xs) f(x) }`, map[string]bool{"each": true}},
		{"computed member call", `function run(h, k) { return h[k]() }`, map[string]bool{"run": true}},
		{"call/apply", `function fwd(g) { return g.call(null) }`, map[string]bool{"fwd": true}},
		{"shadowed global", `function parseInt(s) { return parseInt(s) }`, map[string]bool{"parseInt": true}},
		{"user class construction", `class N { constructor(d) { this.c = new N(d - 1) } } function m() { return new Map() }`, map[string]bool{"constructor": true, "m": false}},
		{"implicit methods", `const o = { toString() { return 'x' }, get v() { return 1 }, plain() { return 2 } }`,
			map[string]bool{"toString": true, "v": true, "plain": false}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := instrumentedFunctions(t, tc.code)
			for name, want := range tc.want {
				if got[name] != want {
					t.Errorf("%s instrumented = %v, want %v (all: %v)", name, got[name], want, got)
				}
			}
		})
	}
}
