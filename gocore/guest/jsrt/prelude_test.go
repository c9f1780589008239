package jsrt

import (
	"testing"

	"amlasandbox/gocore/guest/hostapi"
)

// TestBuiltinsPresent records what goja provides itself and what the
// prelude adds, so an engine upgrade that drops something shows here.
func TestBuiltinsPresent(t *testing.T) {
	runCases(t, []jsCase{
		{name: "engine builtins", code: `
const checks = {
  at: [1, 2, 3].at(-1) === 3, findLast: [1, 2, 3].findLast(x => x < 3) === 2, hasOwn: Object.hasOwn({a: 1}, 'a'),
  replaceAll: 'a-b-c'.replaceAll('-', '+') === 'a+b+c', flat: [1, [2, [3]]].flat(Infinity).length === 3,
  toSorted: [3, 1, 2].toSorted().join() === '1,2,3', any: typeof Promise.any === 'function',
  allSettled: typeof Promise.allSettled === 'function', padStart: '5'.padStart(3, '0') === '005',
  fromEntries: Object.fromEntries([['a', 1]]).a === 1, optional: ({})?.a?.b ?? 'd', bigint: 2n ** 64n > 0n,
  privateFields: new (class { #x = 1; get x() { return this.#x } })().x === 1,
  proxy: new Proxy({}, {get: () => 7}).z === 7, reflect: Reflect.ownKeys({a: 1}).length === 1,
  generators: [...(function* () { yield 1; yield 2 })()].length === 2, namedGroups: /(?<y>\d+)/.exec('12').groups.y === '12',
};
return Object.entries(checks).filter(([k, v]) => v !== true && v !== 'd').map(([k]) => k)`, out: "[]\n"},
		{name: "prelude globals", code: `
return ['console', 'fs', 'shell', 'listTools', 'getToolInfo', 'callTool', '__tools__', 'setTimeout', 'setInterval',
  'clearTimeout', 'clearInterval', 'setImmediate', 'queueMicrotask', 'structuredClone', 'TextEncoder', 'TextDecoder',
  'atob', 'btoa', 'Buffer', 'process', 'require', 'crypto', 'performance', 'fetch', 'Intl', 'globalThis']
  .filter(n => typeof globalThis[n] === 'undefined')`, out: "[]\n"},
		{name: "prelude globals are not enumerable", code: `return Object.keys(globalThis).filter(k => !listTools().includes(k))`, out: "[]\n"},
	})
}

func TestPolyfills(t *testing.T) {
	runCases(t, []jsCase{
		{name: "Object.groupBy", code: `
const g = Object.groupBy([{t: 'a', v: 1}, {t: 'b', v: 2}, {t: 'a', v: 3}], x => x.t);
return [Object.getPrototypeOf(g) === null, g.a.length, g.b[0].v]`, out: "[true,2,2]\n"},
		{name: "Map.groupBy", code: `
const m = Map.groupBy([1, 2, 3, 4, 5], x => x % 2 === 0);
return [m instanceof Map, m.get(true), m.get(false)]`, out: "[true,[2,4],[1,3,5]]\n"},
		{name: "structuredClone deep", code: `
const src = {d: new Date(0), m: new Map([['k', {v: 1}]]), s: new Set([1]), a: [1, {b: 2}], u: new Uint8Array([1, 2]), r: /x/g};
src.self = src;
const c = structuredClone(src);
c.a[1].b = 99;
return [src.a[1].b, c.self === c, c.d instanceof Date && c.d.getTime() === 0, c.m.get('k').v, c.s.has(1),
  c.u instanceof Uint8Array && c.u[1] === 2, c.r.flags, c !== src]`, out: "[2,true,true,1,true,true,\"g\",true]\n"},
		{name: "structuredClone rejects functions", code: `try { structuredClone({f() {}}) } catch (e) { return e.name }`, out: "DataCloneError\n"},
		{name: "structuredClone error", code: `const e = structuredClone(new TypeError('t')); return [e instanceof TypeError, e.message]`,
			out: "[true,\"t\"]\n"},
		{name: "TextEncoder and TextDecoder", code: `
const bytes = new TextEncoder().encode('héllo 🌍');
const back = new TextDecoder().decode(bytes);
return [bytes.length, bytes instanceof Uint8Array, back, new TextDecoder('utf-8').decode(new Uint8Array([0xEF, 0xBB, 0xBF, 0x41]))]`,
			out: "[11,true,\"héllo 🌍\",\"A\"]\n"},
		{name: "TextDecoder fatal", code: `try { new TextDecoder('utf-8', {fatal: true}).decode(new Uint8Array([0xff])) } catch (e) { return e.name }`,
			out: "TypeError\n"},
		{name: "TextDecoder replacement", code: `return new TextDecoder().decode(new Uint8Array([0x41, 0xff, 0x42]))`, out: "A\uFFFDB\n"},
		{name: "TextDecoder views", code: `const b = new Uint8Array([0, 0x68, 0x69, 0]); return new TextDecoder().decode(new DataView(b.buffer, 1, 2))`,
			out: "hi\n"},
		{name: "atob and btoa", code: `return [btoa('Hello, World!'), atob('SGVsbG8sIFdvcmxkIQ=='), atob(btoa('\xff\x00')).charCodeAt(0), atob(' SGk ')]`,
			out: "[\"SGVsbG8sIFdvcmxkIQ==\",\"Hello, World!\",255,\"Hi\"]\n"},
		{name: "btoa outside Latin1", code: `try { btoa('🌍') } catch (e) { return e.name }`, out: "InvalidCharacterError\n"},
		{name: "atob invalid", code: `try { atob('***') } catch (e) { return e.name }`, out: "InvalidCharacterError\n"},
		{name: "btoa with String.fromCharCode", code: `
const bytes = new Uint8Array([104, 105]);
return btoa(String.fromCharCode(...bytes))`, out: "aGk=\n"},
		{name: "Buffer", code: `
const b = Buffer.from('héllo');
return [b.length, b.toString('base64'), Buffer.from('aGk=', 'base64').toString(), b.toString('hex').slice(0, 4),
  Buffer.concat([Buffer.from('a'), Buffer.from('b')]).toString(), Buffer.isBuffer(b), b instanceof Uint8Array,
  Buffer.byteLength('🌍'), b.slice(0, 1).toString(), JSON.stringify(Buffer.from('A'))]`,
			out: `[6,"aMOpbGxv","hi","68c3","ab",true,true,4,"h","{\"type\":\"Buffer\",\"data\":[65]}"]` + "\n"},
		{name: "Promise.withResolvers", code: `const {promise, resolve} = Promise.withResolvers(); setTimeout(() => resolve(5), 1); return await promise`,
			out: "5\n"},
		{name: "Array.fromAsync", code: `return await Array.fromAsync([Promise.resolve(1), 2], x => x * 10)`, out: "[10,20]\n"},
		{name: "well formed strings", code: `return ['a\uD800b'.isWellFormed(), 'ab'.isWellFormed(), 'a\uD800'.toWellFormed() === 'a\uFFFD']`,
			out: "[false,true,true]\n"},
		{name: "Error.captureStackTrace", code: `
class E extends Error { constructor(m) { super(m); this.name = 'E'; Error.captureStackTrace(this, E) } }
return new E('x').stack.startsWith('E: x')`, out: "true\n"},
		{name: "queueMicrotask order", code: `
const order = [];
setTimeout(() => order.push('timeout'), 0);
queueMicrotask(() => order.push('micro'));
Promise.resolve().then(() => order.push('then'));
order.push('sync');
await new Promise(r => setTimeout(r, 5));
return order`, out: "[\"sync\",\"micro\",\"then\",\"timeout\"]\n"},
		{name: "number toLocaleString", code: `return [(1234567.891).toLocaleString(), (1234.5).toLocaleString('en-US', {style: 'currency', currency: 'USD'}),
  (0.256).toLocaleString('en-US', {style: 'percent'}), (1234.5).toLocaleString('de-DE'), (5).toLocaleString('en-US', {minimumFractionDigits: 2}),
  (-1234.567).toLocaleString(undefined, {maximumFractionDigits: 1}), (12345678901234567890n).toLocaleString()]`,
			out: `["1,234,567.891","$1,234.50","26%","1.234,5","5.00","-1,234.6","12,345,678,901,234,567,890"]` + "\n"},
		{name: "Intl.NumberFormat", code: `return [new Intl.NumberFormat('en-US', {style: 'currency', currency: 'EUR'}).format(9.5),
  new Intl.NumberFormat('en-US', {notation: 'compact'}).format(1530000), new Intl.NumberFormat().format(1e6)]`,
			out: `["€9.50","1.5M","1,000,000"]` + "\n"},
		{name: "date locale strings", code: `
const d = new Date(Date.UTC(2024, 0, 5, 15, 4, 9));
const o = {timeZone: 'UTC'};
return [d.toLocaleDateString('en-US', o), d.toLocaleTimeString('en-US', o), d.toLocaleString('en-US', o),
  d.toLocaleDateString('en-US', {timeZone: 'UTC', year: 'numeric', month: 'long', day: 'numeric'}),
  d.toLocaleDateString('en-US', {timeZone: 'UTC', weekday: 'long', month: 'short', day: 'numeric'}),
  new Intl.DateTimeFormat('en-US', {timeZone: 'UTC', dateStyle: 'medium'}).format(d),
  Intl.DateTimeFormat().resolvedOptions().timeZone]`,
			out: `["1/5/2024","3:04:09 PM","1/5/2024, 3:04:09 PM","January 5, 2024","Friday, Jan 5","Jan 5, 2024","UTC"]` + "\n"},
		{name: "crypto", code: `
const id = crypto.randomUUID();
const a = crypto.getRandomValues(new Uint8Array(8));
return [/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id), a.length]`, out: "[true,8]\n"},
		{name: "path module", code: `
const path = require('path');
return [path.join('/a/b', '../c', 'd.txt'), path.resolve('x'), path.dirname('/a/b/c'), path.basename('/a/b.txt', '.txt'),
  path.extname('f.tar.gz'), path.relative('/a/b', '/a/c/d'), path.normalize('a//b/./c/..'), path.parse('/x/y.js').name]`,
			out: `["/a/c/d.txt","/workspace/x","/a/b","b",".gz","../c/d","a/b","y"]` + "\n"},
		{name: "require unknown module", code: `try { require('lodash') } catch (e) { return [e.code, e.message.startsWith("Cannot find module 'lodash'")] }`,
			out: "[\"MODULE_NOT_FOUND\",true]\n"},
		{name: "util.format and inspect", code: `const util = require('util'); return [util.format('%s=%d %j', 'a', 5, {x: 1}), util.inspect({a: [1]})]`,
			out: `["a=5 {\"x\":1}","{ a: [ 1 ] }"]` + "\n"},
		{name: "fetch explains", code: `try { await fetch('https://example.com') } catch (e) { return e.message.includes('no network') }`, out: "true\n"},
		{name: "process", code: `process.stdout.write('no newline'); return [process.cwd(), typeof process.env, process.argv.length > 0]`,
			out: "no newline[\"/workspace\",\"object\",true]\n"},
		{name: "performance.now", code: `const a = performance.now(); await new Promise(r => setTimeout(r, 5)); return performance.now() - a >= 4`, out: "true\n"},
	})
}

func TestConsole(t *testing.T) {
	runCases(t, []jsCase{
		{name: "args joined by spaces", code: `console.log('a', 1, true, null, undefined, 22.5, -0, 10n)`, out: "a 1 true null undefined 22.5 -0 10n\n"},
		{name: "template string", code: "const n = 3; console.log(`n = ${n}`)", out: "n = 3\n"},
		{name: "objects readable", code: `console.log({a: 1, b: [1, 2], s: 'x', n: null})`, out: "{ a: 1, b: [ 1, 2 ], s: 'x', n: null }\n"},
		{name: "nested beyond depth 2", code: `console.log({a: {b: {c: {d: 1}}}})`, out: "{ a: { b: { c: [Object] } } }\n"},
		{name: "long objects break lines", code: `console.log({alpha: 'aaaaaaaaaaaaaaaaaaaa', beta: 'bbbbbbbbbbbbbbbbbbbb', gamma: 'cccccccccccccccccccc'})`,
			out: "{\n  alpha: 'aaaaaaaaaaaaaaaaaaaa',\n  beta: 'bbbbbbbbbbbbbbbbbbbb',\n  gamma: 'cccccccccccccccccccc'\n}\n"},
		{name: "empty containers", code: `console.log({}, [], new Map(), new Set())`, out: "{} [] Map(0) {} Set(0) {}\n"},
		{name: "collections", code: `console.log(new Map([['k', 1]]), new Set(['v']))`, out: "Map(1) { 'k' => 1 } Set(1) { 'v' }\n"},
		{name: "class instance", code: `class P { constructor() { this.x = 1 } } console.log(new P())`, out: "P { x: 1 }\n"},
		{name: "functions", code: `console.log(function f() {}, () => 1, class A {}, async function g() {})`,
			out: "[Function: f] [Function (anonymous)] [class A] [AsyncFunction: g]\n"},
		{name: "date and regexp", code: `console.log(new Date(0), /x/g)`, out: "1970-01-01T00:00:00.000Z /x/g\n"},
		{name: "string quoting nested", code: `console.log(["it's", 'a\nb'])`, out: "[ \"it's\", 'a\\nb' ]\n"},
		{name: "keys quoted when needed", code: `console.log({'a-b': 1, [Symbol('s')]: 2})`, out: "{ 'a-b': 1, [Symbol(s)]: 2 }\n"},
		{name: "sparse and long arrays", code: `const a = [1, , 3]; const b = Array.from({length: 102}, (_, i) => i); console.log(a); console.log(b.length, String(b).length > 0)`,
			out: "[ 1, <1 empty item>, 3 ]\n102 true\n"},
		{name: "getters not invoked", code: `console.log({get x() { throw new Error('no') }})`, out: "{ x: [Getter] }\n"},
		{name: "error object", code: `const e = new Error('bad'); console.log(String(e)); console.log(e.message)`, out: "Error: bad\nbad\n"},
		{name: "error logged", code: `try { await fs.readFile('/workspace/none') } catch (e) { console.log(e) }`,
			outHas: []string{"Error: ENOENT: no such file or directory, open '/workspace/none'\n    at ", "code: 'ENOENT'"}},
		{name: "promise states", code: `console.log(Promise.resolve(1), new Promise(() => {}))`, out: "Promise { 1 } Promise { <pending> }\n"},
		{name: "format placeholders", code: `console.log('%s has %d items (%i%%)', 'cart', 3, 42.9)`, out: "cart has 3 items (42%)\n"},
		{name: "typed arrays and buffers", code: `console.log(new Uint8Array([1, 2]), Buffer.from('hi'))`, out: "Uint8Array(2) [ 1, 2 ] <Buffer 68 69>\n"},
		{name: "warn and error to stderr", code: `console.warn('w'); console.error('e', {a: 1}); console.info('i'); console.debug('d')`,
			out: "i\nd\n", errHas: []string{"w\ne { a: 1 }\n"}},
		{name: "group indent", code: `console.group('g'); console.log('inner'); console.groupEnd(); console.log('outer')`, out: "g\n  inner\nouter\n"},
		{name: "count and assert", code: `console.count(); console.count(); console.count('x'); console.assert(1 === 2, 'math')`,
			out: "default: 1\ndefault: 2\nx: 1\n", errHas: []string{"Assertion failed: math\n"}},
		{name: "table", code: `console.table([{a: 1, b: 'x'}, {a: 2}])`,
			out: "┌─────────┬───┬─────┐\n│ (index) │ a │  b  │\n├─────────┼───┼─────┤\n│    0    │ 1 │ 'x' │\n│    1    │ 2 │     │\n└─────────┴───┴─────┘\n"},
		{name: "console.log survives a replaced JSON", code: `JSON.stringify = () => 'hacked'; return {a: 1}`, out: "{\"a\":1}\n"},
	})
}

// TestConsoleStreams checks that every console call is one write, so the
// host can stream output as it happens.
func TestConsoleStreams(t *testing.T) {
	var out syncBuffer
	r := runJS(t, `console.log('one'); await echo({}); console.log('two', 'parts'); console.log('three\nlines')`,
		func(o *Options, _ *hostapi.Fake) { o.Stdout = &out })
	if r.exit != 0 {
		t.Fatalf("exit %d: %s", r.exit, r.stderr)
	}
	if out.String() != "one\ntwo parts\nthree\nlines\n" || out.writes != 3 {
		t.Errorf("stdout %q in %d writes", out.String(), out.writes)
	}
}

// TestPreludeCorners touches the lazily built parts of the prelude that
// the other tests do not, so a mistake there shows up here and not in a
// user's script.
func TestPreludeCorners(t *testing.T) {
	runCases(t, []jsCase{
		{name: "Intl extras", code: `
const c = new Intl.Collator('en', {numeric: true});
const p = new Intl.PluralRules('en-US', {type: 'ordinal'});
return [['a10', 'a2', 'a1'].sort(c.compare), [1, 2, 3, 4, 11].map(n => p.select(n)), Intl.NumberFormat('en').format(1234),
  new Intl.NumberFormat('en-US', {style: 'percent', maximumFractionDigits: 1}).format(0.1234),
  new Intl.NumberFormat('en-US', {maximumSignificantDigits: 3}).format(123456), (1234.5).toLocaleString('fr-FR')]`,
			out: `[["a1","a2","a10"],["one","two","few","other","other"],"1,234","12.3%","123,000","1` + "\u202f" + `234,5"]` + "\n"},
		{name: "util and timers modules", code: `
const util = require('util');
const wait = util.promisify((ms, cb) => setTimeout(() => cb(null, ms), ms));
const {setTimeout: sleep} = require('timers/promises');
return [await wait(1), await sleep(1, 'v'), util.isDeepStrictEqual({a: [1]}, {a: [1]}), util.types.isPromise(Promise.resolve())]`,
			out: "[1,\"v\",true,true]\n"},
		{name: "process extras", code: `
const t = process.hrtime();
const d = process.hrtime(t);
return [Array.isArray(d), typeof process.hrtime.bigint(), process.uptime() >= 0, typeof process.memoryUsage().heapUsed, require('os').EOL]`,
			out: "[true,\"bigint\",true,\"number\",\"\\n\"]\n"},
		{name: "console timers", code: `console.time('t'); console.timeLog('t'); console.timeEnd('t'); console.timeEnd('t')`,
			outHas: []string{"t: "}, errHas: []string{"No such label 't'"}},
		{name: "console.trace and dir", code: `console.trace('here'); console.dir({a: {b: {c: {}}}}, {depth: 0})`,
			out: "{ a: [Object] }\n", errHas: []string{"Trace: here\n    at script.js:1:"}},
		{name: "fs extras", code: `
await fs.writeFile('x', '1');
await fs.access('x');
let missing;
try { await fs.access('none') } catch (e) { missing = e.code }
const s = await fs.lstat('x');
return [missing, s.isFile, typeof s.mtimeMs, fs.constants.F_OK, (await fs.readdir('.')).includes('x')]`,
			out: "[\"ENOENT\",true,\"number\",0,true]\n"},
		{name: "path extras", code: `
const path = require('node:path');
return [path.format({dir: '/a', name: 'b', ext: '.c'}), path.isAbsolute('x'), path.sep, path.posix === path, path.join(), path.resolve('/a', 'b', '../c')]`,
			out: `["/a/b.c",false,"/",true,".","/a/c"]` + "\n"},
		{name: "Buffer extras", code: `
const b = Buffer.alloc(3, 'a');
const w = Buffer.alloc(4); w.write('hi', 1);
return [b.toString(), Array.from(w), Buffer.from([1, 2]).equals(Buffer.from([1, 2])), Buffer.compare(Buffer.from('a'), Buffer.from('b')),
  Buffer.from('héllo').toString('latin1').length, Buffer.from(new Uint8Array([104, 105]).buffer).toString(), require('buffer').Buffer === Buffer]`,
			out: "[\"aaa\",[0,104,105,0],true,-1,6,\"hi\",true]\n"},
		{name: "TextEncoder.encodeInto", code: `const dest = new Uint8Array(4); const r = new TextEncoder().encodeInto('aé🌍', dest); return [r.read, r.written]`,
			out: "[2,3]\n"},
		{name: "crypto module", code: `const c = require('crypto'); return [c.randomBytes(4).length, typeof c.randomUUID(), Buffer.isBuffer(c.randomBytes(1))]`,
			out: "[4,\"string\",true]\n"},
		{name: "timer objects", code: `const t = setTimeout(() => {}, 1); return [typeof t.ref, t.hasRef(), Number(t) > 0, t.unref() === t]`,
			out: "[\"function\",true,true,true]\n"},
	})
}
