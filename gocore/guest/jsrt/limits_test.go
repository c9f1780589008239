package jsrt

import (
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"amlasandbox/gocore/guest/hostapi"
)

// TestRecursion: deep recursion is a RangeError the script can catch, as in
// Node, for every shape of function the instrumentation covers.
func TestRecursion(t *testing.T) {
	runCases(t, []jsCase{
		{name: "catchable", code: `
function recurse(n) { return recurse(n + 1) + 1 }
try { recurse(0) } catch (e) { console.log(e instanceof RangeError, e.name + ': ' + e.message) }`,
			out: "true RangeError: Maximum call stack size exceeded\n"},
		{name: "catch at every level", code: `
function depth(n) { try { return depth(n + 1) } catch (e) { return n } }
const d = depth(0);
return d > 1500 && d <= 2000`, out: "true\n"},
		{name: "arrow expression body", code: `
const sum = n => n === 0 ? 0 : n + sum(n - 1);
try { sum(1e6) } catch (e) { return e.name }`, out: "RangeError\n"},
		{name: "mutual recursion", code: `
function even(n) { return n === 0 ? true : odd(n - 1) }
function odd(n) { return n === 0 ? false : even(n - 1) }
try { even(1e6) } catch (e) { return e.message }`, out: "Maximum call stack size exceeded\n"},
		{name: "methods", code: `
class Tree { walk(n) { return this.walk(n + 1) } }
try { new Tree().walk(0) } catch (e) { return e.name }`, out: "RangeError\n"},
		{name: "through native callbacks", code: `
function nest(n) { return [n].map(x => nest(x + 1)) }
try { nest(0) } catch (e) { return e.name }`, out: "RangeError\n"},
		{name: "async recursion", code: `
async function down(n) { return await down(n + 1) }
try { await down(0) } catch (e) { return e.name }`, out: "RangeError\n"},
		{name: "strict functions", code: `
function s(n) { 'use strict'; return s(n + 1) }
try { s(0) } catch (e) { return e.name }`, out: "RangeError\n"},
		{name: "uncaught", code: `function f() { return f() } f()`,
			errHas: []string{"RangeError: Maximum call stack size exceeded\n    at f (script.js:1:"}, exit: 1},
		{name: "usable after the error", code: `
function f() { return f() }
for (let i = 0; i < 3; i++) { try { f() } catch (e) {} }
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }
return fib(15)`, out: "610\n"},
		{name: "legit deep recursion within the limit", code: `
function count(n) { return n === 0 ? 0 : 1 + count(n - 1) }
return count(1500)`, out: "1500\n"},
		{name: "getter recursion", code: `const o = { get x() { return this.x } }; try { o.x } catch (e) { return e.name }`,
			out: "RangeError\n"},
		{name: "class getter recursion", code: `class P { get name() { return this.name } }; try { new P().name } catch (e) { return e.name }`,
			out: "RangeError\n"},
		{name: "proxy trap recursion", code: `const p = new Proxy({}, { get(t, k, r) { return r[k] } }); try { p.x } catch (e) { return e.name }`,
			out: "RangeError\n"},
		{name: "sort comparator recursion", code: `function s(a) { return a.sort((x, y) => (s([3, 2, 1]), x - y)) } try { s([2, 1]) } catch (e) { return e.name }`,
			out: "RangeError\n"},
		{name: "toJSON recursion", code: `function j(n) { return JSON.stringify({toJSON() { return j(n + 1) }}) } try { j(0) } catch (e) { return e.name }`,
			out: "RangeError\n"},
		{name: "constructor recursion", code: `class N { constructor(d) { this.c = d > 0 ? new N(d - 1) : null } } try { new N(1e6) } catch (e) { return e.name }`,
			out: "RangeError\n"},
		{name: "toString recursion", code: "const o = { toString() { return `${this}` } }; try { String(o) } catch (e) { return e.name }",
			out: "RangeError\n"},
		{name: "uninstrumented recursion hits the backstop",
			code:   "const o = {}; Object.defineProperty(o, 'x', {get: function () { return this.x }}); o.x",
			opts:   []runOpt{withMaxCallStack(300)},
			errHas: []string{"RangeError: Maximum call stack size exceeded"}, exit: 1},
		{name: "configurable limit", code: `
let d = 0;
function f() { d++; f() }
try { f() } catch (e) {}
return d > 250 && d <= 300`, opts: []runOpt{withMaxCallStack(300)}, out: "true\n"},
	})
}

func TestInstrumentedStackTrace(t *testing.T) {
	// The countdown inserted into functions must not move positions.
	r := runJS(t, "function a() { b() }\nfunction b() { throw new Error('deep') }\na()")
	checkResult(t, r, jsCase{errHas: []string{"Error: deep\n    at b (script.js:2:22)\n    at a (script.js:1:17)\n    at script.js:3:2"}, exit: 1})
}

func TestInterrupt(t *testing.T) {
	if goruntime.GOOS == "wasip1" {
		// Nothing preempts a running script there, so the goroutine that
		// would call vm.Interrupt never runs; the host's deadline is what
		// stops runaway code in the guest.
		t.Skip("no preemption under wasip1")
	}
	stop := make(chan struct{})
	time.AfterFunc(50*time.Millisecond, func() { close(stop) })
	start := time.Now()
	r := runJS(t, `console.log('started'); while (true) {}`, func(o *Options, _ *hostapi.Fake) { o.Interrupt = stop })
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("interrupt took %v", elapsed)
	}
	checkResult(t, r, jsCase{out: "started\n", errHas: []string{"interrupted"}, exit: 1})

	// An interrupt also ends a wait for a timer.
	stop2 := make(chan struct{})
	time.AfterFunc(20*time.Millisecond, func() { close(stop2) })
	r = runJS(t, `await new Promise(r => setTimeout(r, 60000))`, func(o *Options, _ *hostapi.Fake) { o.Interrupt = stop2 })
	checkResult(t, r, jsCase{errHas: []string{"interrupted"}, exit: 1})
}

func TestEventLoop(t *testing.T) {
	runCases(t, []jsCase{
		{name: "timers fire in due order", code: `
setTimeout(() => console.log('b'), 20);
setTimeout(() => console.log('a'), 10);
setTimeout(() => console.log('a2'), 10);
console.log('sync');`, out: "sync\na\na2\nb\n"},
		{name: "timer arguments", code: `setTimeout((x, y) => console.log(x + y), 0, 2, 3)`, out: "5\n"},
		{name: "clearTimeout", code: `const t = setTimeout(() => console.log('never'), 5); clearTimeout(t); clearTimeout(undefined); clearTimeout(12345)`, out: ""},
		{name: "setInterval and clearInterval", code: `
let n = 0;
await new Promise(done => { const id = setInterval(() => { n++; if (n === 3) { clearInterval(id); done() } }, 1) });
return n`, out: "3\n"},
		{name: "interval does not keep a finished run alive", code: `setInterval(() => {}, 5); return 'done'`, out: "done\n"},
		{name: "unref'd timeout does not keep it alive", code: `setTimeout(() => console.log('never'), 10000).unref(); return 'done'`, out: "done\n"},
		{name: "timeout after the result still runs", code: `setTimeout(() => console.log('after'), 5); return 'result'`, out: "result\nafter\n"},
		{name: "sleep pattern", code: `const sleep = ms => new Promise(r => setTimeout(r, ms)); const t = Date.now(); await sleep(30); return Date.now() - t >= 25`,
			out: "true\n"},
		{name: "setImmediate", code: `setImmediate(() => console.log('imm')); console.log('first')`, out: "first\nimm\n"},
		{name: "timer while a call is pending", code: `
setTimeout(() => console.log('tick'), 0);
const r = await echo({v: 1});
console.log('answer', r.v);`, out: "tick\nanswer 1\n"},
		{name: "timer callback error is reported", code: `setTimeout(() => { throw new Error('in timer') }, 0); setTimeout(() => console.log('still runs'), 5)`,
			out: "still runs\n", errHas: []string{"Uncaught Error: in timer"}, exit: 1},
		{name: "unhandled rejection", code: `Promise.reject(new Error('lost')); return 'value'`,
			out: "value\n", errHas: []string{"Uncaught (in promise) Error: lost"}, exit: 1},
		{name: "handled rejection is quiet", code: `const p = Promise.reject(new Error('x')); await null; p.catch(() => {}); return 1`, out: "1\n"},
		{name: "promise that never settles", code: `console.log('waiting'); await new Promise(() => {})`,
			out: "waiting\n", errHas: []string{"never finish"}, exit: 1},
		{name: "process.exit", code: `console.log('before'); process.exit(3); console.log('after')`, out: "before\n", exit: 3},
		{name: "process.exit in a timer", code: `setTimeout(() => process.exit(0), 1); await new Promise(() => {})`, out: ""},
		{name: "process.nextTick", code: `process.nextTick(() => console.log('tick')); console.log('now')`, out: "now\ntick\n"},
		{name: "Promise.race with a tool", code: `
const timeout = new Promise((_, rej) => setTimeout(() => rej(new Error('timeout')), 5000).unref());
return await Promise.race([echo({ok: 1}), timeout])`, out: "{\"ok\":1}\n"},
	})
}

// TestManyCallsInterleaved runs calls issued from several async chains at
// once; each chain's calls are sequential, the chains concurrent.
func TestManyCallsInterleaved(t *testing.T) {
	r := runJS(t, `
async function chain(id) { let s = 0; for (let i = 0; i < 20; i++) s += (await math_add({a: id, b: i})).result; return s }
return (await Promise.all([1, 2, 3, 4, 5].map(chain))).join(',')`)
	var want []string
	for id := 1; id <= 5; id++ {
		want = append(want, strconv.Itoa(20*id+190))
	}
	checkResult(t, r, jsCase{out: strings.Join(want, ",") + "\n"})
	if r.fake.Batches[0] != 5 {
		t.Errorf("first batch = %d, want 5", r.fake.Batches[0])
	}
}
