package jsrt

import (
	"strings"
	"testing"

	"amlasandbox/gocore/wire"
)

// jsCase is one script and what it must produce. out is the exact stdout
// unless outHas is set; errHas are substrings stderr must contain (none:
// stderr must be empty).
type jsCase struct {
	name   string
	code   string
	opts   []runOpt
	out    string
	outHas []string
	errHas []string
	exit   int
}

func runCases(t *testing.T, cases []jsCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runJS(t, tc.code, tc.opts...)
			checkResult(t, r, tc)
		})
	}
}

func checkResult(t *testing.T, r result, tc jsCase) {
	t.Helper()
	if r.exit != tc.exit {
		t.Errorf("exit = %d, want %d\nstdout: %q\nstderr: %q", r.exit, tc.exit, r.stdout, r.stderr)
	}
	if tc.outHas != nil {
		for _, s := range tc.outHas {
			if !strings.Contains(r.stdout, s) {
				t.Errorf("stdout %q does not contain %q (stderr %q)", r.stdout, s, r.stderr)
			}
		}
	} else if r.stdout != tc.out {
		t.Errorf("stdout = %q, want %q (stderr %q)", r.stdout, tc.out, r.stderr)
	}
	if len(tc.errHas) == 0 && r.stderr != "" {
		t.Errorf("unexpected stderr %q", r.stderr)
	}
	for _, s := range tc.errHas {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr %q does not contain %q", r.stderr, s)
		}
	}
}

func fakeShell(cmd, stdin string) (string, string, int) {
	switch {
	case strings.HasPrefix(cmd, "echo "):
		return strings.TrimPrefix(cmd, "echo ") + "\n", "", 0
	case cmd == "exit 1":
		return "", "", 1
	case cmd == "cat":
		return stdin, "", 0
	case cmd == "fail":
		return "partial\n", "something broke\n", 2
	}
	return "", "sh: " + cmd + ": not found\n", 127
}

// TestSection15 runs the JavaScript rows of API.md §15 that do not need
// Python, with the example tools of the documentation.
func TestSection15(t *testing.T) {
	runCases(t, []jsCase{
		{name: "tool call result", code: `const r = await math_add({a: 3, b: 4}); console.log(JSON.stringify(r));`,
			out: "{\"result\":7}\n"},
		{name: "chained calls", code: `
const sum = await math_add({a: 3, b: 4});
const product = await math_multiply({a: sum.result, b: 5});
console.log(product.result);`, out: "35\n"},
		{name: "string result prints as is", code: `const g = await greet({name: "World"}); console.log(g);`, out: "Hello, World!\n"},
		{name: "object result usable", code: `const u = await get_user({id: 1}); console.log(u.name); console.log(u.roles.length);`,
			out: "Alice\n2\n"},
		{name: "list result via JSON.stringify", code: `const u = await get_user({}); console.log(JSON.stringify(u.roles));`,
			out: "[\"admin\",\"user\"]\n"},
		{name: "plain code", code: `console.log(42)`, out: "42\n"},
		{name: "no handler", code: `try { await math_add({a: 1, b: 2}) } catch (e) { console.log(e.message) }`,
			opts: []runOpt{withNoTools()}, out: "tool call 'mcp:math.add' failed: internal: No handler for tool call: mcp:math.add\n"},
		{name: "no handler uncaught", code: `await math_add({a: 1, b: 2})`, opts: []runOpt{withNoTools()},
			errHas: []string{"Error: tool call 'mcp:math.add' failed: internal: No handler for tool call: mcp:math.add"}, exit: 1},
		{name: "shell", code: `const r = await shell('echo hello'); console.log(r.stdout.trim()); console.log(r.exitCode);`,
			opts: []runOpt{withShell(fakeShell)}, out: "hello\n0\n"},
		{name: "shell destructuring", code: `const { stdout } = await shell('echo hi'); return stdout.trim()`,
			opts: []runOpt{withShell(fakeShell)}, out: "hi\n"},
		{name: "shell non-zero does not reject", code: `const r = await shell('fail'); return [r.stdout, r.stderr, r.exitCode]`,
			opts: []runOpt{withShell(fakeShell)}, out: "[\"partial\\n\",\"something broke\\n\",2]\n"},
		{name: "shell stdin", code: `return (await shell('cat', {stdin: 'in put'})).stdout`,
			opts: []runOpt{withShell(fakeShell)}, out: "in put\n"},
		{name: "shell.run", code: `const out = await shell.run('echo hello world'); console.log(out.trim());`,
			opts: []runOpt{withShell(fakeShell)}, out: "hello world\n"},
		{name: "shell.run exit 1", code: `try { await shell.run('exit 1') } catch (e) { console.log(e.message) }`,
			opts: []runOpt{withShell(fakeShell)}, out: "Command failed (exit 1): exit 1\n"},
		{name: "shell.run stderr in message", code: `try { await shell.run('fail') } catch (e) { return [e.message, e.exitCode] }`,
			opts: []runOpt{withShell(fakeShell)}, out: "[\"Command failed (exit 2): fail\\nsomething broke\",2]\n"},
		{name: "shell unavailable", code: `try { await shell('ls') } catch (e) { return e.message }`,
			out: "shell is not available in this runtime\n"},
		{name: "readFileSync throws", code: `try { fs.readFileSync('/workspace/x') } catch (e) { console.log(e.message) }`,
			out: "fs.readFileSync is not available: use await fs.readFile(path)\n"},
		{name: "writeFileSync throws", code: `try { fs.writeFileSync('/workspace/x', 'y'); console.log('wrote') } catch (e) { console.log(e.message) }`,
			out: "fs.writeFileSync is not available: use await fs.writeFile(path, data)\n"},
		{name: "listTools", code: `const t = listTools(); console.log(t.includes('math_add'), t.includes('math_multiply'))`,
			out: "true true\n"},
		{name: "getToolInfo", code: `const i = getToolInfo('stripe_charge'); console.log(i.id); console.log(i.description)`,
			out: "mcp:stripe.charge\nCreate a charge\n"},
		{name: "__tools__", code: `console.log('api_call' in __tools__, Object.keys(__tools__).includes('math_add'))`,
			out: "true true\n"},
		{name: "try catch", code: `try { throw new Error('Something went wrong') } catch (e) { console.log('Caught: ' + e.message) }`,
			out: "Caught: Something went wrong\n"},
		{name: "error name and message", code: `try { null.x } catch (e) { console.log(e.name) }`, out: "TypeError\n"},
		{name: "console.error", code: `console.error('to stderr'); console.log('to stdout')`,
			out: "to stdout\n", errHas: []string{"to stderr\n"}},
		{name: "globalThis", code: `globalThis.counter = 1; return globalThis.counter + 1`, out: "2\n"},
	})
}

// TestReturnRules pins API.md §3.2: a resolved value other than undefined
// is printed once, strings raw, everything else as compact JSON.
func TestReturnRules(t *testing.T) {
	runCases(t, []jsCase{
		{name: "string raw", code: `return "hi"`, out: "hi\n"},
		{name: "number", code: `return 42`, out: "42\n"},
		{name: "float", code: `return 22.5`, out: "22.5\n"},
		{name: "true", code: `return true`, out: "true\n"},
		{name: "null", code: `return null`, out: "null\n"},
		{name: "object compact", code: `return {a: 1, b: 2}`, out: "{\"a\":1,\"b\":2}\n"},
		{name: "array", code: `return [1, 2]`, out: "[1,2]\n"},
		{name: "undefined prints nothing", code: `return undefined`, out: ""},
		{name: "no return prints nothing", code: `const x = 42;`, out: ""},
		{name: "empty script", code: ``, out: ""},
		{name: "awaited value", code: `return await Promise.resolve('later')`, out: "later\n"},
		{name: "empty string", code: `return ''`, out: "\n"},
		{name: "bigint is inspected", code: `return 10n`, out: "10n\n"},
		{name: "cycle is inspected", code: `const a = {x: 1}; a.self = a; return a`, out: "{ x: 1, self: [Circular] }\n"},
		{name: "logs then value", code: `console.log('first'); return 'second'`, out: "first\nsecond\n"},
		{name: "declarations are local", code: `var v = 1; let l = 2; function f() {} return typeof globalThis.v + ' ' + typeof globalThis.f`,
			out: "undefined undefined\n"},
		{name: "hashbang", code: "#!/usr/bin/env node\nreturn 1", out: "1\n"},
		{name: "use strict directive", code: "'use strict';\ntry { undeclared = 1 } catch (e) { return e.name }", out: "ReferenceError\n"},
	})
}

// TestErrorPrinting pins how uncaught errors look on stderr.
func TestErrorPrinting(t *testing.T) {
	runCases(t, []jsCase{
		{name: "thrown error", code: "function boom() {\n  throw new Error('boom')\n}\nboom()",
			errHas: []string{"Error: boom\n    at boom (script.js:2:9)\n    at script.js:4:5"}, exit: 1},
		{name: "line 1 column in user terms", code: `throw new TypeError('bad')`,
			errHas: []string{"TypeError: bad\n    at script.js:1:7\n"}, exit: 1},
		{name: "rejected await", code: `await Promise.reject(new RangeError('nope'))`, errHas: []string{"RangeError: nope"}, exit: 1},
		{name: "thrown string", code: `throw 'oops'`, errHas: []string{"oops\n"}, exit: 1},
		{name: "thrown object", code: `throw {code: 7}`, errHas: []string{"{ code: 7 }"}, exit: 1},
		{name: "custom error class", code: `class MyError extends Error { constructor(m) { super(m); this.name = 'MyError' } }
throw new MyError('custom')`, errHas: []string{"MyError: custom"}, exit: 1},
		{name: "empty message", code: `throw new Error()`, errHas: []string{"Error\n"}, exit: 1},
		{name: "output before the error stays", code: `console.log('before'); throw new Error('after')`,
			out: "before\n", errHas: []string{"Error: after"}, exit: 1},
		{name: "tool error uncaught", code: `await fail({})`, errHas: []string{"Error: tool call 'mcp:fail' failed: internal: Tool 'mcp:fail' failed: boom"}, exit: 1},
		{name: "no wrapper frames", code: `throw new Error('x')`, errHas: []string{"Error: x\n    at script.js:1:7\n"}, exit: 1},
	})
}

func TestSyntaxErrors(t *testing.T) {
	runCases(t, []jsCase{
		{name: "position in user code", code: `const x = ;`,
			errHas: []string{"SyntaxError: Unexpected token ; (line 1, column 11)", "    1 | const x = ;\n      |           ^"}, exit: 1},
		{name: "later line", code: "const a = 1;\nconst b = 2;\nlet c = = 3;",
			errHas: []string{"SyntaxError: Unexpected token = (line 3, column 9)"}, exit: 1},
		{name: "unclosed brace", code: "function f() {\n  return 1;\n",
			errHas: []string{"SyntaxError: Unexpected end of input", "(line 3, column 1)"}, exit: 1},
		{name: "extra brace", code: "return 1; }",
			errHas: []string{"SyntaxError: Unexpected end of input"}, exit: 1},
		{name: "nothing runs", code: "console.log('ran');\nconst = 1;", errHas: []string{"SyntaxError"}, exit: 1},
		{name: "async generator", code: "async function* gen() { yield 1 }",
			errHas: []string{"SyntaxError: async generator functions (async function*) are not supported"}, exit: 1},
		{name: "async generator method", code: "const o = { async *gen() { yield 1 } }",
			errHas: []string{"SyntaxError: async generator methods"}, exit: 1},
		{name: "for await", code: "for await (const x of [1]) {}",
			errHas: []string{"SyntaxError: for await...of is not supported"}, exit: 1},
		{name: "import", code: "import fs from 'fs'",
			errHas: []string{"SyntaxError: import is not supported"}, exit: 1},
		{name: "duplicate declaration", code: "let a = 1;\nlet a = 2;",
			errHas: []string{"SyntaxError: Identifier 'a' has already been declared (line 2, column 5)"}, exit: 1},
		{name: "non-ASCII column", code: "const s = 'é'; const = 1",
			errHas: []string{"(line 1, column 22)"}, exit: 1},
	})
}

// TestToolCallsBatch checks that calls issued together reach the host
// together: Promise.all of 10 calls, then one more call.
func TestToolCallsBatch(t *testing.T) {
	r := runJS(t, `
const results = await Promise.all(Array.from({length: 10}, (_, i) => math_add({a: i, b: 1})));
const last = await math_add({a: 100, b: 1});
return results.map(r => r.result).concat(last.result)`)
	checkResult(t, r, jsCase{out: "[1,2,3,4,5,6,7,8,9,10,101]\n"})
	want := []int{10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 1}
	if !equalInts(r.fake.Batches, want) {
		t.Errorf("batches = %v, want %v", r.fake.Batches, want)
	}
	if len(r.fake.Calls) != 11 {
		t.Fatalf("calls = %d", len(r.fake.Calls))
	}
	if got := string(r.fake.Calls[10].Params); got != `{"a":100,"b":1}` {
		t.Errorf("last params = %s", got)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestToolParams(t *testing.T) {
	cases := []struct {
		name, code, method, params string
	}{
		{"object unchanged", `await math_add({a: 3, b: 4})`, "mcp:math.add", `{"a":3,"b":4}`},
		{"no argument", `await echo()`, "mcp:echo", `{}`},
		{"undefined argument", `await echo(undefined)`, "mcp:echo", `{}`},
		{"positional string", `await echo("x")`, "mcp:echo", `"x"`},
		{"positional number", `await echo(5)`, "mcp:echo", `5`},
		{"null", `await echo(null)`, "mcp:echo", `null`},
		{"NaN and Infinity", `await echo({n: NaN, i: Infinity, u: undefined})`, "mcp:echo", `{"n":null,"i":null}`},
		{"nested and unicode", `await echo({s: "héllo 🌍", list: [1, {x: true}]})`, "mcp:echo", `{"s":"héllo 🌍","list":[1,{"x":true}]}`},
		{"toJSON honoured", `await echo({d: new Date(0)})`, "mcp:echo", `{"d":"1970-01-01T00:00:00.000Z"}`},
		{"mangled dot", `await stripe_charge({amount: 1})`, "mcp:stripe.charge", `{"amount":1}`},
		{"mangled slash", `await weather_current({})`, "mcp:weather/current", `{}`},
		{"mangled dash", `await my_tool({})`, "mcp:my-tool", `{}`},
		{"callTool by name", `await callTool('math.add', {a: 1})`, "mcp:math.add", `{"a":1}`},
		{"callTool by identifier", `await callTool('math_add', {a: 2})`, "mcp:math.add", `{"a":2}`},
		{"callTool by id", `await callTool('mcp:math.add', {a: 3})`, "mcp:math.add", `{"a":3}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runJS(t, tc.code)
			if r.exit != 0 || len(r.fake.Calls) != 1 {
				t.Fatalf("exit %d, calls %v, stderr %q", r.exit, r.fake.Calls, r.stderr)
			}
			c := r.fake.Calls[0]
			if c.Method != tc.method || string(c.Params) != tc.params {
				t.Errorf("call = %s %s, want %s %s", c.Method, c.Params, tc.method, tc.params)
			}
		})
	}
}

func TestToolResults(t *testing.T) {
	runCases(t, []jsCase{
		{name: "tool error message exact", code: `try { await fail({}) } catch (e) { return [e instanceof Error, e.message] }`,
			out: "[true,\"tool call 'mcp:fail' failed: internal: Tool 'mcp:fail' failed: boom\\nParameters: {}\"]\n"},
		{name: "serialization error rejects", code: `try { await echo({n: 1n}) } catch (e) { return e.name }`, out: "TypeError\n"},
		{name: "cycle rejects", code: `const a = {}; a.a = a; try { await echo(a) } catch (e) { return e.name }`, out: "TypeError\n"},
		{name: "stub returns a promise", code: `const p = echo({}); return p instanceof Promise`, out: "true\n"},
		{name: "unicode and emoji round trip", code: `
const s = 'Hello, 世界! 🌍🎉 café';
const r = await echo({s});
console.log('has_world:', r.s.includes('世界'));
console.log('has_emoji:', r.s.includes('🌍'));
return r.s === s`, out: "has_world: true\nhas_emoji: true\ntrue\n"},
		{name: "500 items", code: `
const items = Array.from({length: 500}, (_, i) => ({id: i, name: 'item_' + String(i).padStart(4, '0')}));
const r = await echo({items});
console.log('count:', r.items.length);
console.log('first', r.items[0].id, r.items[0].name);
console.log('last', r.items[499].id, r.items[499].name);`,
			out: "count: 500\nfirst 0 item_0000\nlast 499 item_0499\n"},
		{name: "4000 characters", code: `const r = await big({n: 4000}); return r.length + ' ' + /^x+$/.test(r)`, out: "4000 true\n"},
		{name: "10-deep nesting", code: `
let o = {items: Array.from({length: 50}, (_, i) => i)};
for (let i = 0; i < 9; i++) o = {child: o};
let r = await echo(o), depth = 1;
while (r.child) { r = r.child; depth++ }
console.log('max_depth:', depth); console.log('deepest_items:', r.items.length)`,
			out: "max_depth: 10\ndeepest_items: 50\n"},
		{name: "10 MB result", code: `const s = await big({n: 10 * 1024 * 1024}); return s.length`, out: "10485760\n"},
		{name: "500 sequential calls", code: `
let total = 0;
for (let i = 0; i < 500; i++) total += (await math_add({a: i, b: 0})).result;
return total`, out: "124750\n"},
		{name: "null result", code: `return JSON.stringify(await echo(null))`, out: "null\n"},
		{name: "unawaited call still completes", code: `echo({}).then(() => console.log('answered')); console.log('returned')`,
			out: "returned\nanswered\n"},
		{name: "late handler is not unhandled", code: `
const p = fail({});
await echo({});
try { await p } catch (e) { console.log('caught late') }`, out: "caught late\n"},
	})
}

func TestToolNames(t *testing.T) {
	if got := JSName("a.b/c-d:e"); got != "a_b_c_d_e" {
		t.Errorf("JSName = %q", got)
	}
	infos := []wire.ToolInfo{
		{Name: "a.b", Description: "first"}, {Name: "a_b", Description: "second"}, {Name: "fs", Description: "shadows fs"},
		{Name: "console.log", Description: "logs"}, {Name: "JSON", Description: "shadows a builtin"},
		{Name: "listTools", Description: "shadows the prelude"}, {Name: "x-y", Description: "dash"},
	}
	runCases(t, []jsCase{
		{name: "first registered keeps the identifier", code: `await a_b({}); return getToolInfo('a_b').name`,
			opts: []runOpt{withTools(infos)}, out: "a.b\n"},
		{name: "listTools has callable identifiers only", code: `return listTools()`,
			opts: []runOpt{withTools(infos)}, out: "[\"a_b\",\"console_log\",\"x_y\"]\n"},
		{name: "__tools__ keys", code: `return Object.keys(__tools__)`,
			opts: []runOpt{withTools(infos)}, out: "[\"a_b\",\"mcp:a_b\",\"mcp:fs\",\"console_log\",\"mcp:JSON\",\"mcp:listTools\",\"x_y\"]\n"},
		{name: "prelude globals not shadowed", code: `return [typeof fs.readFile, typeof JSON.parse, typeof listTools(), typeof console.log]`,
			opts: []runOpt{withTools(infos)}, out: "[\"function\",\"function\",\"object\",\"function\"]\n"},
		{name: "collider via callTool", code: `await callTool('a_b', {n: 1}); await callTool('fs', {}); return 'ok'`,
			opts: []runOpt{withTools(infos)}, out: "ok\n"},
		{name: "getToolInfo by name and id", code: `return [getToolInfo('mcp:a_b').description, getToolInfo('fs').id, getToolInfo('nope')]`,
			opts: []runOpt{withTools(infos)}, out: "[\"second\",\"mcp:fs\",null]\n"},
		{name: "unknown callTool rejects", code: `try { await callTool('nope') } catch (e) { return e.message }`,
			opts: []runOpt{withTools(infos)}, out: "Unknown tool: nope (listTools() shows the tools available)\n"},
		{name: "tool info shape", code: `return getToolInfo('math_add')`,
			out: `{"id":"mcp:math.add","name":"math.add","description":"Add two numbers","parameters":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}}` + "\n"},
		{name: "stubs are enumerable globals", code: `return Object.keys(globalThis).filter(k => k.startsWith('math_'))`,
			out: "[\"math_add\",\"math_multiply\"]\n"},
		{name: "stub name", code: `return stripe_charge.name`, out: "stripe_charge\n"},
		{name: "a tool replaces the no-network fetch", code: `await fetch({url: 'u'}); return [listTools(), getToolInfo('fetch').id]`,
			opts: []runOpt{withTools([]wire.ToolInfo{{Name: "fetch"}, {Name: "require"}})}, out: "[[\"fetch\",\"require\"],\"mcp:fetch\"]\n"},
	})
	r := runJS(t, `await a_b({}); await callTool('a_b', {}); await callTool('fs', {}); await console_log({})`,
		withTools(infos))
	var methods []string
	for _, c := range r.fake.Calls {
		methods = append(methods, c.Method)
	}
	if got := strings.Join(methods, " "); got != "mcp:a.b mcp:a_b mcp:fs mcp:console.log" {
		t.Errorf("methods = %s (stderr %q)", got, r.stderr)
	}
}

// TestAgentScripts runs scripts shaped like the ones agents write
// (Appendix A.2): tools, files as a cache, classes, formatting.
func TestAgentScripts(t *testing.T) {
	root := newRoot(t)
	cache := `
await fs.mkdir('/workspace/cache', {recursive: true});
const path = '/workspace/cache/user.json';
let user;
if (await fs.exists(path)) {
  user = JSON.parse(await fs.readFile(path));
  console.log('from cache:', user.name);
} else {
  user = await get_user({id: 1});
  await fs.writeFile(path, JSON.stringify(user, null, 2));
  console.log('fetched:', user.name);
}
return user.roles.length`
	r := runJS(t, cache, withRoot(root))
	checkResult(t, r, jsCase{out: "fetched: Alice\n2\n"})
	r = runJS(t, cache, withRoot(root))
	checkResult(t, r, jsCase{out: "from cache: Alice\n2\n"})
	if len(r.fake.Calls) != 0 {
		t.Errorf("cached run called tools: %v", r.fake.Calls)
	}

	runCases(t, []jsCase{
		{name: "report", code: `
class Account {
  #balance = 0;
  constructor(name) { this.name = name }
  deposit(n) { this.#balance += n; return this }
  get balance() { return this.#balance }
}
const accounts = ['alice', 'bob'].map((n, i) => new Account(n).deposit((i + 1) * 1234.5));
const rows = accounts.map(a => ` + "`${a.name.padEnd(6)} ${a.balance.toLocaleString('en-US', {style: 'currency', currency: 'USD'})}`" + `);
console.log(rows.join('\n'));
const total = accounts.reduce((s, a) => s + a.balance, 0);
return {total: Number(total.toFixed(2)), when: new Date(0).toISOString(), ok: /^\d+$/.test(String(Math.floor(total)))}`,
			out: "alice  $1,234.50\nbob    $2,469.00\n{\"total\":3703.5,\"when\":\"1970-01-01T00:00:00.000Z\",\"ok\":true}\n"},
		{name: "parallel tools then sequential", code: `
const [a, b] = await Promise.all([math_add({a: 1, b: 2}), math_multiply({a: 3, b: 4})]);
const c = await math_add({a: a.result, b: b.result});
const settled = await Promise.allSettled([fail({}), echo({x: 1})]);
return [c.result, settled.map(s => s.status)]`, out: "[15,[\"rejected\",\"fulfilled\"]]\n"},
		{name: "retry with backoff", code: `
async function withRetry(fn, tries = 3) {
  for (let i = 0; i < tries; i++) {
    try { return await fn() } catch (e) { console.log('attempt', i + 1, 'failed:', e.message.split('\n')[0]); await new Promise(r => setTimeout(r, 2)) }
  }
  return 'gave up';
}
return await withRetry(() => fail({}), 2)`,
			out: "attempt 1 failed: tool call 'mcp:fail' failed: internal: Tool 'mcp:fail' failed: boom\nattempt 2 failed: tool call 'mcp:fail' failed: internal: Tool 'mcp:fail' failed: boom\ngave up\n"},
	})
}
