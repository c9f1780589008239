package guesttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"amlasandbox/gocore/host"
	"amlasandbox/gocore/wire"
)

// TestOutput pins what console.log and the returned value print
// (docs/javascript.md, "`console.*` output").
func TestOutput(t *testing.T) {
	tests := []struct {
		name, code, stdout string
	}{
		{"object", `console.log({a:1,b:[1,2]})`, `{"a":1,"b":[1,2]}`},
		{"deep", `console.log("s", {x:{y:{z:{w:1}}}})`, `s {"x":{"y":{"z":{"w":1}}}}`},
		{"array holes and undefined", `console.log([1,"a",null,undefined])`, `[1,"a",null,null]`},
		{"NaN Infinity", `console.log([NaN, Infinity, -Infinity], {n: NaN})`, `[null,null,null] {"n":null}`},
		{"top-level numbers", `console.log(NaN, -0, 1.5, 1e21)`, `NaN 0 1.5 1e+21`},
		{"date", `console.log({d: new Date(0)}, new Date(86400000))`, `{"d":"1970-01-01T00:00:00.000Z"} "1970-01-02T00:00:00.000Z"`},
		{"cycle", `const o = {a: 1}; o.self = o; o.list = [o]; console.log(o)`, `{"a":1,"self":"[Circular]","list":["[Circular]"]}`},
		{"shared is not a cycle", `const s = {v: 1}; console.log({a: s, b: s})`, `{"a":{"v":1},"b":{"v":1}}`},
		{"bigint", `console.log(10n, {n: 10n}, [1n])`, `10n {"n":"10n"} ["1n"]`},
		{"functions", `console.log(() => 1, {f() {}}, [Math.max])`, `[Function] {"f":"[Function]"} ["[Function]"]`},
		{"strings", `console.log("a b", ["q\"x"], "%s", 5)`, `a b ["q\"x"] %s 5`},
		{"primitives", `console.log(null, undefined, true, Symbol("s"))`, `null undefined true Symbol(s)`},
		{"error", `console.log(new Error("boom"), {e: new TypeError("bad")})`, `Error: boom {"e":"TypeError: bad"}`},
		{"map and set", `console.log(new Map([["a", 1], [2, {b: 2}]]), new Set([1, "x"]))`, `{"Map":[["a",1],[2,{"b":2}]]} {"Set":[1,"x"]}`},
		{"self-containing map", `const m = new Map(); m.set("m", m); console.log(m)`, `{"Map":[["m","[Circular]"]]}`},
		{"typed array", `console.log(new Uint8Array([1, 2]), {f: new Float64Array([0.5])})`, `[1,2] {"f":[0.5]}`},
		{"class instance", `class P { constructor() { this.x = 1 } m() {} }; console.log(new P())`, `{"x":1}`},
		{"toJSON", `console.log({toJSON() { return "j" }})`, `"j"`},
		{"empty", `console.log()`, ``},
		{"info and debug", `console.info(1); console.debug(2)`, "1\n2"},
		{"return string raw", `return "plain text"`, `plain text`},
		{"return object as JSON", `return {a: [1, "x"], b: null}`, `{"a":[1,"x"],"b":null}`},
		{"return number", `return 42`, `42`},
		{"return bigint", `return 10n`, `10n`},
		{"return after await", `await null; return [1, 2]`, `[1,2]`},
		{"hashbang", "#!/usr/bin/env node\nreturn 1", `1`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runJS(t, js(tc.code))
			want := tc.stdout + "\n"
			if tc.stdout == "" && !strings.HasPrefix(tc.code, "console.log()") {
				want = ""
			}
			if r.Stdout != want || r.Stderr != "" || r.ExitCode != 0 {
				t.Errorf("%s\nstdout %q, want %q\nstderr %q exit %d err %v", tc.code, r.Stdout, want, r.Stderr, r.ExitCode, r.Error)
			}
		})
	}
}

func TestReturnUndefinedPrintsNothing(t *testing.T) {
	r := runJS(t, js(`let x = 1`))
	if r.Stdout != "" || r.ExitCode != 0 {
		t.Errorf("stdout %q exit %d", r.Stdout, r.ExitCode)
	}
}

func TestConsoleStreams(t *testing.T) {
	r := runJS(t, js(`console.log("out"); console.error("err", {a: 1}); console.warn("w")`))
	if r.Stdout != "out\n" || r.Stderr != "err {\"a\":1}\nw\n" {
		t.Errorf("stdout %q stderr %q", r.Stdout, r.Stderr)
	}
}

// TestErrors covers what an uncaught error prints and the exit status.
func TestErrors(t *testing.T) {
	tests := []struct {
		name, code string
		stderr     *regexp.Regexp
		exit       int
	}{
		{"thrown error with stack", "function f() { throw new TypeError('bad thing') }\nf()",
			regexp.MustCompile(`^TypeError: bad thing\n    at f \(script\.js:1:\d+\)\n    at <anonymous> \(script\.js:2:1\)\n$`), 1},
		{"rejection", "await Promise.reject(new RangeError('r'))", regexp.MustCompile(`^RangeError: r\n`), 1},
		{"thrown string", "throw 'just text'", regexp.MustCompile(`^just text\n$`), 1},
		{"thrown object", "throw {code: 7}", regexp.MustCompile(`^\{"code":7\}\n$`), 1},
		{"syntax error", "let x = ;", regexp.MustCompile(`^SyntaxError: .*\n    at script\.js:1:\d+\n$`), 1},
		{"reference error", "no_such_tool()", regexp.MustCompile(`^ReferenceError: .*no_such_tool`), 1},
		{"unhandled rejection elsewhere", "Promise.reject(new Error('late')); return 'done'",
			regexp.MustCompile(`^Uncaught \(in promise\) Error: late\n`), 1},
		{"timer callback throws", "setTimeout(() => { throw new Error('in timer') }, 1)", regexp.MustCompile(`^Uncaught Error: in timer\n`), 1},
		{"never settles", "await new Promise(() => {})", regexp.MustCompile(`never finish`), 1},
		{"process.exit", "console.log('a'); process.exit(3); console.log('b')", regexp.MustCompile(`^$`), 3},
		{"process.exit inside try", "try { process.exit(4) } catch (e) { console.log('caught') } finally { }", regexp.MustCompile(`^$`), 4},
		{"process.exitCode", "process.exitCode = 5", regexp.MustCompile(`^$`), 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runJS(t, js(tc.code))
			if !tc.stderr.MatchString(r.Stderr) || r.ExitCode != tc.exit {
				t.Errorf("%s\nstderr %q (want %v)\nexit %d, want %d; stdout %q error %q", tc.code, r.Stderr, tc.stderr, r.ExitCode, tc.exit, r.Stdout, r.Error)
			}
			if strings.Contains(r.Stdout, "b\n") || strings.Contains(r.Stdout, "caught") {
				t.Errorf("code after process.exit ran: %q", r.Stdout)
			}
		})
	}
}

// TestPromiseAllBatching: ten calls made in one tick reach the host
// before the script first waits: it waits on all ten at once.
func TestPromiseAllBatching(t *testing.T) {
	opts := js(`const r = await Promise.all(Array.from({length: 10}, (_, i) => echo({i}))); return r.map(x => x.i)`)
	opts.Handlers = echoTools()
	opts.Tools = []wire.ToolInfo{{Name: "echo"}}
	opts.Batch = true
	r := runJS(t, opts)
	if r.Stdout != "[0,1,2,3,4,5,6,7,8,9]\n" || r.ExitCode != 0 {
		t.Fatalf("stdout %q stderr %q", r.Stdout, r.Stderr)
	}
	if len(r.FirstWaitOn) != 10 {
		t.Fatalf("the script first waited on %v, want all ten requests", r.FirstWaitOn)
	}
	for i, req := range r.Requests {
		if req.Method != "mcp:echo" || string(req.Params) != `{"i":`+string(rune('0'+i))+`}` {
			t.Errorf("request %d = %s %s", i, req.Method, req.Params)
		}
	}
}

func TestTools(t *testing.T) {
	tools := []wire.ToolInfo{
		{Name: "echo", Description: "echoes", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"number"}}}`)},
		{Name: "fail"},
		{Name: "weather.get-now"},
		{Name: "JSON"},    // a builtin's name: no global, callTool only
		{Name: "fetch"},   // a Node-habit convenience: the tool replaces it
		{Name: "missing"}, // no handler in the host
	}
	tests := []struct{ name, code, stdout string }{
		{"call", `return await echo({x: 1, s: "é"})`, `{"x":1,"s":"é"}`},
		{"no params", `return await echo()`, `{}`},
		{"mangled name", `return typeof weather_get_now`, `function`},
		{"listTools", `return listTools()`, `["echo","fail","weather_get_now","fetch","missing"]`},
		{"getToolInfo", `const i = getToolInfo("echo"); return [i.id, i.description, i.parameters.properties.x.type]`, `["mcp:echo","echoes","number"]`},
		{"__tools__ of a shadowed name", `return [typeof JSON.parse, __tools__["mcp:JSON"].name]`, `["function","JSON"]`},
		{"callTool by name", `return await callTool("JSON", {a: 1})`, ``},
		{"tool replaces fetch", `return await fetch({u: 1})`, ``},
		{"denied", `try { await fail({}) } catch (e) { return e.message }`,
			`tool call 'mcp:fail' failed: permission_denied: method 'mcp:fail' does not match pattern 'x'`},
		{"no handler", `try { await missing() } catch (e) { return e.message }`,
			`tool call 'mcp:missing' failed: internal: No handler for tool call: mcp:missing`},
		{"unknown callTool", `try { await callTool("nope") } catch (e) { return e.message }`,
			`Unknown tool: nope (listTools() shows the tools available)`},
		{"params that cannot be JSON", `try { await echo({n: 1n}) } catch (e) { return e.name }`, `TypeError`},
		{"sequential", `let s = 0; for (let i = 0; i < 50; i++) s += (await echo({i})).i; return s`, `1225`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := js(tc.code)
			opts.Tools = tools
			opts.Handlers = echoTools()
			opts.Handlers["JSON"] = func(json.RawMessage) Answer { return Answer{Result: json.RawMessage(`"json tool"`)} }
			opts.Handlers["fetch"] = func(json.RawMessage) Answer { return Answer{Result: json.RawMessage(`"fetched"`)} }
			want := tc.stdout
			switch tc.name {
			case "callTool by name":
				want = "json tool"
			case "tool replaces fetch":
				want = "fetched"
			}
			r := runJS(t, opts)
			if r.Stdout != want+"\n" || r.ExitCode != 0 {
				t.Errorf("%s\nstdout %q, want %q\nstderr %q", tc.code, r.Stdout, want+"\n", r.Stderr)
			}
		})
	}
}

// TestTimers: a timer wait ends on time; with a tool call pending the wait
// is bounded by the next timer (the timer's callback runs before the tool's
// answer comes).
func TestTimers(t *testing.T) {
	r := runJS(t, js(`const t0 = Date.now(); await new Promise(r => setTimeout(r, 60)); return Date.now() - t0 >= 55`))
	if r.Stdout != "true\n" {
		t.Errorf("stdout %q stderr %q", r.Stdout, r.Stderr)
	}

	opts := js(`
const order = [];
setTimeout(() => order.push("timer"), 20);
const p = slow({v: 1}).then(() => order.push("tool"));
await p;
return order`)
	opts.Tools = []wire.ToolInfo{{Name: "slow"}}
	opts.Handlers = echoTools()
	r = runJS(t, opts)
	if r.Stdout != `["timer","tool"]`+"\n" {
		t.Errorf("stdout %q stderr %q", r.Stdout, r.Stderr)
	}

	r = runJS(t, js(`
const seen = [];
let n = 0;
const iv = setInterval(() => { seen.push("i"); if (++n === 3) clearInterval(iv) }, 5);
setTimeout(() => seen.push("t10"), 1);
await new Promise(r => setTimeout(r, 300)); // room for late ticks on a loaded machine
return seen`))
	if r.Stdout != `["t10","i","i","i"]`+"\n" {
		t.Errorf("interval: stdout %q stderr %q", r.Stdout, r.Stderr)
	}

	// A forgotten interval does not keep a finished script alive.
	r = runJS(t, js(`setInterval(() => {}, 10); return "done"`))
	if r.Stdout != "done\n" || r.TimedOut() {
		t.Errorf("forgotten interval: %q timedOut %v", r.Stdout, r.TimedOut())
	}
}

func TestFS(t *testing.T) {
	sb := newSandbox(t, nil, host.Limits{})
	dir := sb.Root()
	opts := js(`
await fs.mkdir("/workspace/a/b", {recursive: true});
await fs.writeFile("/workspace/a/b/f.txt", "héllo");
await fs.appendFile("a/b/f.txt", " world");
const text = await fs.readFile("a/b/f.txt", "utf8");
const st = await fs.stat("/workspace/a/b/f.txt");
await fs.writeFile("/tmp/bin", new Uint8Array([0, 255]));
const bin = await fs.readFile("/tmp/bin", {encoding: "base64"});
await fs.rename("a/b/f.txt", "a/g.txt");
const list = await fs.readdir("/workspace/a");
const exists = [await fs.exists("a/g.txt"), await fs.exists("a/b/f.txt")];
let missing;
try { await fs.readFile("nope.txt") } catch (e) { missing = [e.code, e.message] }
await fs.rm("a/b", {recursive: true});
let sync;
try { fs.readFileSync("x") } catch (e) { sync = e.message }
return {text, size: st.size, isFile: st.isFile, bin, list, exists, missing, after: await fs.readdir("a"), sync}`)
	opts.Sandbox = sb
	r := runJS(t, opts)
	want := `{"text":"héllo world","size":12,"isFile":true,"bin":"AP8=","list":["b","g.txt"],"exists":[true,false],` +
		`"missing":["ENOENT","ENOENT: no such file or directory, open 'nope.txt'"],"after":["g.txt"],` +
		`"sync":"ENOENT: no such file or directory, open 'x'"}` + "\n"
	if r.Stdout != want {
		t.Errorf("stdout %s\nwant   %s\nstderr %q", r.Stdout, want, r.Stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "workspace", "a", "g.txt"))
	if err != nil || string(b) != "héllo world" {
		t.Errorf("host file %q %v", b, err)
	}

	for _, code := range []string{
		`await fs.writeFile("/x.txt", "no")`,
		`await fs.mkdir("/newdir")`,
		`await fs.writeFile("/workspace/../../escape.txt", "no")`,
	} {
		opts := js(`try { ` + code + `; return "wrote" } catch (e) { return e.message }`)
		opts.Sandbox = sb
		r := runJS(t, opts)
		if !strings.Contains(r.Stdout, "EACCES") {
			t.Errorf("%s: %q %q, want EACCES", code, r.Stdout, r.Stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape.txt")); err == nil {
		t.Errorf("a write escaped the sandbox")
	}
}

// TestLanguage checks language features agents use.
func TestLanguage(t *testing.T) {
	tests := []struct{ name, code, stdout string }{
		{"async generator and for await", `async function* g() { yield 1; await null; yield 2 } const out = []; for await (const x of g()) out.push(x); return out`, `[1,2]`},
		{"unicode property escapes", `return "héllo wörld 123".match(/\p{L}+/gu)`, `["héllo","wörld"]`},
		{"v flag", `return [/[\p{L}--[a-z]]/v.test("é"), /[\p{L}--[a-z]]/v.test("a")]`, `[true,false]`},
		{"Object.groupBy", `return Object.groupBy([1, 2, 3, 4], x => x % 2 ? "odd" : "even")`, `{"odd":[1,3],"even":[2,4]}`},
		{"Map.groupBy", `return [...Map.groupBy([1, 2, 3], x => x > 1)]`, `[[false,[1]],[true,[2,3]]]`},
		{"toSorted", `const a = [3, 1, 2]; return [a.toSorted(), a, a.toReversed(), a.with(0, 9)]`, `[[1,2,3],[3,1,2],[2,1,3],[9,1,2]]`},
		{"Set methods", `const a = new Set([1, 2, 3]), b = new Set([2, 3, 4]); return [[...a.union(b)], [...a.intersection(b)], [...a.difference(b)], a.isSubsetOf(new Set([1,2,3,4]))]`, `[[1,2,3,4],[2,3],[1],true]`},
		{"Iterator helpers", `return [1, 2, 3, 4].values().filter(x => x % 2 === 0).map(x => x * 10).toArray()`, `[20,40]`},
		{"Array.fromAsync", `return await Array.fromAsync([Promise.resolve(1), 2])`, `[1,2]`},
		{"Promise.withResolvers", `const {promise, resolve} = Promise.withResolvers(); resolve(5); return await promise`, `5`},
		{"structuredClone", `const o = {d: new Date(0), m: new Map([[1, {x: 1}]])}; o.self = o; const c = structuredClone(o); return [c !== o, c.self === c, c.d instanceof Date, c.m.get(1).x]`, `[true,true,true,1]`},
		{"TextEncoder and TextDecoder", `return [...new TextEncoder().encode("é€")].concat(new TextDecoder().decode(new Uint8Array([0xe2, 0x82, 0xac, 0xff])))`, `[195,169,226,130,172,"€�"]`},
		{"atob btoa", `return [btoa("hi!"), atob("aGkh")]`, `["aGkh","hi!"]`},
		{"Buffer", `const b = Buffer.from("héllo"); return [b.length, b.toString("hex"), b.toString("base64"), Buffer.from("aGk=", "base64").toString(), Buffer.concat([Buffer.from("a"), Buffer.from("b")]).toString()]`, `[6,"68c3a96c6c6f","aMOpbGxv","hi","ab"]`},
		{"queueMicrotask", `const o = []; queueMicrotask(() => o.push(2)); o.push(1); await null; await null; return o`, `[1,2]`},
		{"require path", `const path = require("path"); return [path.join("a", "../b", "c.txt"), path.extname("x.json")]`, `["b/c.txt",".json"]`},
		{"require unknown", `try { require("lodash") } catch (e) { return e.code }`, `MODULE_NOT_FOUND`},
		{"crypto.randomUUID", `return /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(crypto.randomUUID())`, `true`},
		{"numbers in en-US", `return [(1234567.891).toLocaleString(), (1234.5).toLocaleString("en-US", {style: "currency", currency: "USD"}), (0.25).toLocaleString("en-US", {style: "percent"})]`, `["1,234,567.891","$1,234.50","25%"]`},
		{"numbers in de", `return new Intl.NumberFormat("de-DE").format(1234567.5)`, `1.234.567,5`},
		{"dates in UTC", `return new Date(Date.UTC(2024, 0, 15, 13, 5)).toLocaleDateString("en-US", {timeZone: "UTC"})`, `1/15/2024`},
		{"unsupported time zone", `try { new Date(0).toLocaleString("en-US", {timeZone: "America/New_York"}) } catch (e) { return e.name + ": " + e.message.includes('"America/New_York" is not supported') }`, `RangeError: true`},
		{"unsupported date locale", `try { new Intl.DateTimeFormat("de-DE").format(new Date(0)) } catch (e) { return e.name }`, `RangeError`},
		{"unsupported number locale", `try { (1).toLocaleString("hi-IN") } catch (e) { return e.name }`, `RangeError`},
		{"deep JSON.parse", `try { JSON.parse("[".repeat(100000) + "]".repeat(100000)) } catch (e) { return e.name }`, `RangeError`},
		{"JSON.parse still parses", `return JSON.parse('{"a":[1,{"b":"x"}]}', (k, v) => typeof v === "number" ? v + 1 : v)`, `{"a":[2,{"b":"x"}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runJS(t, js(tc.code))
			if r.Stdout != tc.stdout+"\n" || r.ExitCode != 0 {
				t.Errorf("%s\nstdout %q, want %q\nstderr %q", tc.code, r.Stdout, tc.stdout+"\n", r.Stderr)
			}
		})
	}
}

// TestShell: shell() runs the shell guest as a child process on the same
// files.
func TestShell(t *testing.T) {
	r := runJS(t, js(`
await fs.writeFile("/workspace/f.txt", "x");
const a = await shell("ls /workspace");
const b = await shell("cat", {stdin: "in"});
let failed;
try { await shell.run("echo nope >&2; false") } catch (e) { failed = [e.message, e.exitCode] }
return [a, b.stdout, await shell.run("echo ok"), failed]`))
	want := `[{"stdout":"f.txt\n","stderr":"","exitCode":0},"in","ok\n",["Command failed (exit 1): echo nope >&2; false\nnope",1]]` + "\n"
	if r.Stdout != want {
		t.Errorf("stdout %s\nwant   %s\nstderr %q", r.Stdout, want, r.Stderr)
	}
}

// TestRecursion: 10,000 deep recursion is a catchable RangeError and the
// script goes on.
func TestRecursion(t *testing.T) {
	r := runJS(t, js(`
function down(n) { return n === 0 ? 0 : 1 + down(n - 1) }
let caught;
try { down(10000) } catch (e) { caught = e instanceof RangeError }
const ok = down(1000);
async function adown(n) { return n === 0 ? 0 : 1 + await adown(n - 1) }
let acaught;
try { await adown(10000) } catch (e) { acaught = e.name }
return [caught, ok, acaught]`))
	if r.Stdout != `[true,1000,"RangeError"]`+"\n" || r.ErrorKind != "" {
		t.Errorf("stdout %q stderr %q err %v", r.Stdout, r.Stderr, r.Error)
	}
	r = runJS(t, js(`function f() { f() } f()`))
	if !strings.HasPrefix(r.Stderr, "RangeError: Maximum call stack size exceeded") || r.ExitCode != 1 || r.ErrorKind != "" {
		t.Errorf("uncaught: stderr %.200q exit %d err %v", r.Stderr, r.ExitCode, r.Error)
	}
}

func TestInfiniteLoopStopsAtDeadline(t *testing.T) {
	opts := js(`while (true) {}`)
	opts.Limits.Timeout = 300 * time.Millisecond
	start := time.Now()
	r := runJS(t, opts)
	if !r.TimedOut() || time.Since(start) > 5*time.Second {
		t.Errorf("timedOut %v after %v, err %v", r.TimedOut(), time.Since(start), r.Error)
	}
	// A sleep past the deadline ends the run too.
	opts = js(`await new Promise(r => setTimeout(r, 5000)); console.log("late")`)
	opts.Limits.Timeout = 200 * time.Millisecond
	r = runJS(t, opts)
	if !r.TimedOut() || r.Stdout != "" {
		t.Errorf("sleep past deadline: timedOut %v stdout %q", r.TimedOut(), r.Stdout)
	}
}

// TestAllocationBomb: at the store's memory limit the script gets an
// out-of-memory error it cannot outrun, and the run ends promptly.
func TestAllocationBomb(t *testing.T) {
	for _, code := range []string{
		`const a = []; while (true) a.push("x".repeat(1 << 20) + a.length)`,
		`let s = "x"; while (true) s = s + s`,
		`const a = []; for (;;) a.push({i: a.length, pad: [1, 2, 3]})`,
	} {
		opts := js(code)
		opts.Limits.MemoryLimit = 64 << 20
		opts.Limits.Timeout = 20 * time.Second
		start := time.Now()
		r := runJS(t, opts)
		if r.TimedOut() || time.Since(start) > 15*time.Second {
			t.Errorf("%s: did not end by itself (%v, timedOut %v)", code, time.Since(start), r.TimedOut())
		}
		// Out of memory exits 137; a string past QuickJS's length limit
		// is an ordinary InternalError.
		if r.ErrorKind == "" && r.ExitCode != 137 && !strings.Contains(r.Stderr, "string too long") {
			t.Errorf("%s: exit %d, want 137 (out of memory): %q", code, r.ExitCode, r.Stderr)
		}
		if r.PeakMemoryBytes > 64<<20 {
			t.Errorf("%s: memory %d above the limit", code, r.PeakMemoryBytes)
		}
		t.Logf("%s: exit %d stderr %.120q err %v", code, r.ExitCode, r.Stderr, r.Error)
	}
}

// TestFreshGlobals: nothing a script defines survives into the next run
// of the same sandbox (whose instance is reset in between) or of another.
func TestFreshGlobals(t *testing.T) {
	sb := newSandbox(t, nil, host.Limits{})
	for i := 0; i < 3; i++ {
		opts := js(`const seen = [typeof leaked, typeof Array.prototype.leak]; globalThis.leaked = 1; Array.prototype.leak = 1; return seen`)
		opts.Sandbox = sb
		if r := runJS(t, opts); r.Stdout != `["undefined","undefined"]`+"\n" {
			t.Errorf("run %d: %q %q", i, r.Stdout, r.Stderr)
		}
	}
}

func TestBadInput(t *testing.T) {
	sb := newSandbox(t, nil, host.Limits{})
	if _, err := sb.Start("ruby", "puts 1", "", false, false); err == nil || !strings.Contains(err.Error(), `"ruby"`) {
		t.Errorf("ruby: %v", err)
	}
	opts := Options{Code: "ignored", Stdin: "return 'from stdin'", HasStdin: true}
	r := runJS(t, opts)
	if r.Stdout != "from stdin\n" {
		t.Errorf("stdin script: %q %q", r.Stdout, r.Stderr)
	}
}

// TestDiskQuota: every write asks the host first; a refused write fails
// with ENOSPC and leaves what is on disk as it was.
func TestDiskQuota(t *testing.T) {
	opts := js(`await fs.writeFile('/workspace/keep.txt', 'kept');
let err = '';
try { for (let i = 0; ; i++) await fs.writeFile('/workspace/f' + i, 'x'.repeat(10000)) } catch (e) { err = e.code + ' ' + e.message }
try { await fs.mkdir('/workspace/d/e/f', {recursive: true}) } catch (e) { err += ' | ' + e.code }
return [err, await fs.readFile('/workspace/keep.txt', 'utf8')]`)
	opts.Limits.DiskQuota = 64 << 10
	r := runJS(t, opts)
	// 64 KiB: the sandbox's three directories and keep.txt take 20 KiB,
	// each file 4 KiB for its entry and 12 KiB for its bytes (whole blocks).
	want := `["ENOSPC ENOSPC: no space left on device, write '/workspace/f3' | ENOSPC","kept"]` + "\n"
	if r.Stdout != want {
		t.Fatalf("got %q (stderr %q)\nwant %q", r.Stdout, r.Stderr, want)
	}
}
