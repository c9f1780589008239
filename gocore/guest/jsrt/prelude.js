// The prelude: the globals a sandboxed script sees (API.md §4), built on
// the natives Go hands in. Evaluates to a function of those natives that
// returns the helpers Go needs (describeError, resultText).
//
// Everything user code might replace (JSON.stringify, Object.keys, ...) is
// captured here first, so printing results and errors keeps working even
// when a script monkey-patches builtins.
(function (native) {
  'use strict';

  const G = globalThis;
  const ObjectKeys = Object.keys;
  const ObjectCreate = Object.create;
  const ObjectGetPrototypeOf = Object.getPrototypeOf;
  const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const ObjectGetOwnPropertySymbols = Object.getOwnPropertySymbols;
  const ObjectDefineProperty = Object.defineProperty;
  const ObjectIs = Object.is;
  const ArrayIsArray = Array.isArray;
  const JSONStringify = JSON.stringify;
  const JSONParse = JSON.parse;
  const FunctionToString = Function.prototype.toString;
  const ErrorCtor = Error;
  const PromiseCtor = Promise;
  const PromiseResolve = Promise.resolve.bind(Promise);
  const PromiseReject = Promise.reject.bind(Promise);
  const AsyncFunctionPrototype = ObjectGetPrototypeOf(async function () {});
  const GeneratorFunctionPrototype = ObjectGetPrototypeOf(function* () {});

  // define adds a global (or a property) the way builtins are: writable,
  // configurable, not enumerable, so Object.keys(globalThis) shows the
  // script's own globals and the tools.
  function define(obj, name, value) {
    ObjectDefineProperty(obj, name, { value, writable: true, configurable: true, enumerable: false });
    return value;
  }
  function defineIfMissing(obj, name, value) {
    if (obj[name] === undefined) define(obj, name, value);
  }
  function named(name, fn) {
    ObjectDefineProperty(fn, 'name', { value: name, configurable: true });
    return fn;
  }

  // lazy defines obj[name] by calling make on first use: most scripts never
  // touch Intl, Buffer or process, and building them costs startup time
  // (every run starts a fresh VM).
  function lazy(obj, name, make) {
    ObjectDefineProperty(obj, name, {
      configurable: true,
      enumerable: false,
      get() { const v = make(); define(obj, name, v); return v; },
      set(v) { define(obj, name, v); },
    });
  }
  // section compiles and runs one of the prelude_<name>.js files the first
  // time a script needs it (Intl, Buffer, fs, Node shims), so a run pays
  // only for what it uses. A direct eval, so the section sees this scope.
  function section(name) {
    return eval(native.section(name));
  }
  function once(make) {
    let v;
    return () => (v === undefined ? (v = make()) : v);
  }
  let BufferClass = null;

  // ---------------------------------------------------------------------
  // inspect: values as console.log shows them. Node-like ({ a: 1, b: [ 1, 2 ] },
  // 'quoted' nested strings, [Object] beyond depth 2, [Circular], Map(1) {...}),
  // not byte-for-byte Node: tests and docs pin only strings, numbers and
  // booleans (API.md §4), so this aims at readability.
  // ---------------------------------------------------------------------

  const getInspect = once(() => section('inspect'));

  // plainPrimitive is how a primitive other than a string prints, or
  // undefined when the value needs the inspect section (compiled on first
  // use: console.log(1) and console.log(`text`) never need it).
  function plainPrimitive(v) {
    switch (typeof v) {
      case 'number': return ObjectIs(v, -0) ? '-0' : String(v);
      case 'boolean': case 'undefined': return String(v);
      case 'bigint': return String(v) + 'n';
      case 'object': return v === null ? 'null' : undefined;
    }
    return undefined;
  }
  function inspect(value, options) {
    const s = plainPrimitive(value);
    return s !== undefined ? s : getInspect().inspect(value, options);
  }
  function formatPrimitive(v) {
    const s = plainPrimitive(v);
    return s !== undefined ? s : getInspect().formatPrimitive(v);
  }
  function functionBase(...args) { return getInspect().functionBase(...args); }
  function constructorName(...args) { return getInspect().constructorName(...args); }
  function errorHead(...args) { return getInspect().errorHead(...args); }
  function safeString(...args) { return getInspect().safeString(...args); }
  function isError(...args) { return getInspect().isError(...args); }
  function errorWithStack(...args) { return getInspect().errorWithStack(...args); }
  function formatValue(...args) { return getInspect().formatValue(...args); }

  function format(...args) {
    if (args.length === 0) return '';
    let out;
    let i = 1;
    const first = args[0];
    if (typeof first === 'string' && args.length > 1 && first.includes('%')) {
      out = first.replace(/%([sdifjoOc%])/g, (m, c) => {
        if (c === '%') return '%';
        if (i >= args.length) return m;
        const a = args[i++];
        switch (c) {
          case 's': return typeof a === 'string' ? a : typeof a === 'bigint' ? a + 'n' : inspect(a, { depth: 1 });
          case 'd': return typeof a === 'bigint' ? a + 'n' : typeof a === 'object' && a !== null ? 'NaN' : formatPrimitive(Number(a));
          case 'i': return typeof a === 'bigint' ? a + 'n' : String(parseInt(a, 10));
          case 'f': return String(parseFloat(a));
          case 'j': try { return JSONStringify(a); } catch (_) { return '[Circular]'; }
          case 'o': case 'O': return inspect(a, { depth: c === 'o' ? 4 : 2 });
          case 'c': return '';
        }
        return m;
      });
    } else {
      out = typeof first === 'string' ? first : inspect(first);
    }
    for (; i < args.length; i++) {
      const a = args[i];
      out += ' ' + (typeof a === 'string' ? a : inspect(a));
    }
    return out;
  }

  // ---------------------------------------------------------------------
  // console: log/info/debug to stdout, error/warn/trace to stderr; each
  // call is one write, so the host streams it at once.
  // ---------------------------------------------------------------------

  let groupIndent = '';
  function emit(fd, text) {
    if (groupIndent) text = groupIndent + text.split('\n').join('\n' + groupIndent);
    native.write(fd, text + '\n');
  }
  const counts = new Map();
  const timersByLabel = new Map();
  const console = {
    log: (...a) => emit(1, format(...a)),
    info: (...a) => emit(1, format(...a)),
    debug: (...a) => emit(1, format(...a)),
    error: (...a) => emit(2, format(...a)),
    warn: (...a) => emit(2, format(...a)),
    trace: (...a) => {
      const e = new ErrorCtor(format(...a));
      emit(2, 'Trace: ' + format(...a) + native.cleanStack(e.stack || ''));
    },
    dir: (v, opts) => emit(1, inspect(v, opts)),
    dirxml: (...a) => emit(1, format(...a)),
    assert: (cond, ...a) => {
      if (!cond) emit(2, 'Assertion failed' + (a.length ? ': ' + format(...a) : ''));
    },
    count: (label = 'default') => {
      const n = (counts.get(String(label)) || 0) + 1;
      counts.set(String(label), n);
      emit(1, label + ': ' + n);
    },
    countReset: (label = 'default') => { counts.delete(String(label)); },
    time: (label = 'default') => { timersByLabel.set(String(label), native.now()); },
    timeLog: (label = 'default', ...a) => {
      const t = timersByLabel.get(String(label));
      if (t === undefined) return emit(2, "Warning: No such label '" + label + "' for console.timeLog()");
      emit(1, label + ': ' + formatMs(native.now() - t) + (a.length ? ' ' + format(...a) : ''));
    },
    timeEnd: (label = 'default') => {
      const t = timersByLabel.get(String(label));
      if (t === undefined) return emit(2, "Warning: No such label '" + label + "' for console.timeEnd()");
      timersByLabel.delete(String(label));
      emit(1, label + ': ' + formatMs(native.now() - t));
    },
    group: (...a) => { if (a.length) emit(1, format(...a)); groupIndent += '  '; },
    groupCollapsed: (...a) => { if (a.length) emit(1, format(...a)); groupIndent += '  '; },
    groupEnd: () => { groupIndent = groupIndent.slice(2); },
    table: (data, columns) => emit(1, table(data, columns)),
  };
  function formatMs(ms) {
    return ms < 1000 ? ms.toFixed(3) + 'ms' : (ms / 1000).toFixed(3) + 's';
  }

  // table renders console.table's box (Node's layout).
  function table(data, columns) {
    if (data === null || typeof data !== 'object') return format(data);
    const rows = [];
    const keys = [];
    let hasValues = false;
    const addKey = (k) => { if (!keys.includes(k)) keys.push(k); };
    const entries = data instanceof Map ? Array.from(data.entries()) : Object.entries(data);
    for (const [idx, row] of entries) {
      const cells = {};
      if (row !== null && typeof row === 'object') {
        for (const k of ObjectKeys(row)) {
          if (columns && !columns.includes(k)) continue;
          addKey(k);
          cells[k] = formatValue({ depth: 0, seen: [] }, row[k], 1);
        }
      } else {
        hasValues = true;
        cells['\0values'] = formatValue({ depth: 0, seen: [] }, row, 1);
      }
      rows.push([String(idx), cells]);
    }
    const head = ['(index)', ...(columns || keys)];
    if (hasValues) head.push('Values');
    const body = rows.map(([idx, cells]) => [idx, ...(columns || keys).map((k) => cells[k] ?? ''), ...(hasValues ? [cells['\0values'] ?? ''] : [])]);
    const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)) + 2);
    const center = (s, w) => {
      const left = Math.floor((w - s.length) / 2);
      return ' '.repeat(left) + s + ' '.repeat(w - s.length - left);
    };
    const line = (l, m, r) => l + widths.map((w) => '─'.repeat(w)).join(m) + r;
    const row = (cells) => '│' + cells.map((c, i) => center(c, widths[i])).join('│') + '│';
    return [line('┌', '┬', '┐'), row(head), line('├', '┼', '┤'), ...body.map(row), line('└', '┴', '┘')].join('\n');
  }

  // ---------------------------------------------------------------------
  // Text and bytes: TextEncoder/TextDecoder (UTF-8), atob/btoa, Buffer.
  // ---------------------------------------------------------------------

  const atob = named('atob', function (data) { return native.atob(...arguments); });
  const btoa = named('btoa', function (data) { return native.btoa(...arguments); });

  // TextEncoder, TextDecoder and Buffer are built on first use. Buffer is
  // the part of Node's Buffer scripts use most: from/alloc/concat, toString
  // with an encoding, byteLength, equals, slice/subarray.
  const getText = once(() => section('text'));

  // ---------------------------------------------------------------------
  // Polyfills for what the engine lacks (API.md deviation #8).
  // ---------------------------------------------------------------------

  function toPropertyKey(k) { return typeof k === 'symbol' ? k : String(k); }

  defineIfMissing(Object, 'groupBy', named('groupBy', function (items, callback) {
    if (typeof callback !== 'function') throw new TypeError('callback is not a function');
    const out = ObjectCreate(null);
    let i = 0;
    for (const item of items) {
      const key = toPropertyKey(callback(item, i++));
      if (out[key] === undefined) out[key] = [];
      out[key].push(item);
    }
    return out;
  }));

  defineIfMissing(Map, 'groupBy', named('groupBy', function (items, callback) {
    if (typeof callback !== 'function') throw new TypeError('callback is not a function');
    const out = new Map();
    let i = 0;
    for (const item of items) {
      let key = callback(item, i++);
      if (ObjectIs(key, -0)) key = 0;
      const list = out.get(key);
      if (list) list.push(item);
      else out.set(key, [item]);
    }
    return out;
  }));

  defineIfMissing(Promise, 'withResolvers', named('withResolvers', function () {
    let resolve, reject;
    const promise = new this((res, rej) => { resolve = res; reject = rej; });
    return { promise, resolve, reject };
  }));

  defineIfMissing(Array, 'fromAsync', named('fromAsync', async function (items, mapFn, thisArg) {
    if (items == null) throw new TypeError('Array.fromAsync requires an iterable or array-like object');
    const out = [];
    const values = typeof items[Symbol.iterator] === 'function' ? items : Array.from({ length: items.length }, (_, i) => items[i]);
    let i = 0;
    for (const x of values) {
      let v = await x;
      if (mapFn) v = await mapFn.call(thisArg, v, i);
      out.push(v);
      i++;
    }
    return out;
  }));

  function isLoneSurrogateAt(s, i) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      return !(d >= 0xdc00 && d <= 0xdfff);
    }
    if (c >= 0xdc00 && c <= 0xdfff) {
      const b = s.charCodeAt(i - 1);
      return !(b >= 0xd800 && b <= 0xdbff);
    }
    return false;
  }
  defineIfMissing(String.prototype, 'isWellFormed', named('isWellFormed', function () {
    const s = String(this);
    for (let i = 0; i < s.length; i++) if (isLoneSurrogateAt(s, i)) return false;
    return true;
  }));
  defineIfMissing(String.prototype, 'toWellFormed', named('toWellFormed', function () {
    const s = String(this);
    let out = '';
    for (let i = 0; i < s.length; i++) out += isLoneSurrogateAt(s, i) ? '\ufffd' : s[i];
    return out;
  }));

  defineIfMissing(ErrorCtor, 'captureStackTrace', named('captureStackTrace', function (target) {
    if (target === null || typeof target !== 'object') throw new TypeError('Invalid argument');
    const stack = new ErrorCtor().stack;
    ObjectDefineProperty(target, 'stack', { value: errorHead(target) + stack.slice(stack.indexOf('\n')), writable: true, configurable: true });
  }));
  if (ErrorCtor.stackTraceLimit === undefined) ErrorCtor.stackTraceLimit = 10;

  function dataCloneError(msg) {
    const e = new ErrorCtor(msg);
    e.name = 'DataCloneError';
    return e;
  }
  const errorCtors = { Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError };

  // structuredClone follows the HTML structured clone algorithm for what
  // scripts pass it: primitives, plain objects and arrays (prototypes are
  // dropped), Date, RegExp, Map, Set, ArrayBuffer and views, Error, boxed
  // primitives; cycles and shared references are kept. Functions, symbols,
  // promises and weak collections throw a DataCloneError.
  defineIfMissing(G, 'structuredClone', named('structuredClone', function (value) {
    if (arguments.length === 0) throw new TypeError("Failed to execute 'structuredClone': 1 argument required, but only 0 present.");
    const memo = new Map();
    const clone = (v) => {
      if (typeof v === 'function' || typeof v === 'symbol') throw dataCloneError(safeString(typeof v === 'function' ? functionBase(v) : v.toString()) + ' could not be cloned.');
      if (v === null || typeof v !== 'object') return v;
      if (memo.has(v)) return memo.get(v);
      let out;
      if (ArrayIsArray(v)) {
        out = new Array(v.length);
        memo.set(v, out);
        for (const k of ObjectKeys(v)) out[k] = clone(v[k]);
        return out;
      }
      if (v instanceof Date) out = new Date(v.getTime());
      else if (v instanceof RegExp) out = new RegExp(v.source, v.flags);
      else if (v instanceof ArrayBuffer) out = v.slice(0);
      else if (v instanceof DataView) out = new DataView(clone(v.buffer), v.byteOffset, v.byteLength);
      else if (ArrayBuffer.isView(v)) {
        const C = ObjectGetPrototypeOf(v).constructor;
        out = new C(clone(v.buffer), v.byteOffset, v.length);
      } else if (v instanceof Number || v instanceof String || v instanceof Boolean || (typeof BigInt === 'function' && v instanceof BigInt)) {
        out = Object(v.valueOf());
      } else if (v instanceof PromiseCtor || v instanceof WeakMap || v instanceof WeakSet) {
        throw dataCloneError('#<' + (constructorName(v) || 'Object') + '> could not be cloned.');
      }
      if (out !== undefined) {
        memo.set(v, out);
        return out;
      }
      if (v instanceof Map) {
        out = new Map();
        memo.set(v, out);
        for (const [k, val] of v) out.set(clone(k), clone(val));
        return out;
      }
      if (v instanceof Set) {
        out = new Set();
        memo.set(v, out);
        for (const val of v) out.add(clone(val));
        return out;
      }
      if (isError(v)) {
        const C = errorCtors[v.name] || ErrorCtor;
        out = new C(v.message);
        memo.set(v, out);
        if (typeof v.stack === 'string') define(out, 'stack', v.stack);
        if ('cause' in v) define(out, 'cause', clone(v.cause));
        return out;
      }
      out = {};
      memo.set(v, out);
      for (const k of ObjectKeys(v)) out[k] = clone(v[k]);
      return out;
    };
    return clone(value);
  }));

  // queueMicrotask runs fn as a promise job; an exception in it is
  // reported like an unhandled rejection.
  const queueMicrotask = named('queueMicrotask', function (fn) {
    if (typeof fn !== 'function') throw new TypeError('The "callback" argument must be of type function. Received ' + format(fn));
    PromiseResolve().then(() => fn());
  });

  // ---- Numbers and dates in a locale (Intl is missing) -----------------
  // Enough of Intl for reports: en-US by default, "de" and "fr" separators,
  // styles decimal/percent/currency, fraction and significant digits,
  // grouping, compact notation, sign display; dates in en-US forms.

  const getLocale = once(() => section('locale'));

  define(Number.prototype, 'toLocaleString', named('toLocaleString', function (locales, options) {
    return getLocale().formatNumber(Number(this), locales, options);
  }));
  if (typeof BigInt === 'function') {
    define(BigInt.prototype, 'toLocaleString', named('toLocaleString', function (locales, options) {
      return getLocale().formatNumber(BigInt.prototype.valueOf.call(this), locales, options);
    }));
  }
  define(Date.prototype, 'toLocaleString', named('toLocaleString', function (locales, options) { return getLocale().formatDate(this, options, 'all'); }));
  define(Date.prototype, 'toLocaleDateString', named('toLocaleDateString', function (locales, options) { return getLocale().formatDate(this, options, 'date'); }));
  define(Date.prototype, 'toLocaleTimeString', named('toLocaleTimeString', function (locales, options) { return getLocale().formatDate(this, options, 'time'); }));

  if (!('Intl' in G)) lazy(G, 'Intl', () => getLocale().makeIntl());

  // ---------------------------------------------------------------------
  // Timers. See loop() in run.go: real time, fired in due order; after the
  // script's promise settles only ref'd timeouts keep the run alive.
  // ---------------------------------------------------------------------

  class Timeout {
    #id;
    constructor(id) { this.#id = id; }
    ref() { native.refTimer(this.#id, true); return this; }
    unref() { native.refTimer(this.#id, false); return this; }
    hasRef() { return true; }
    refresh() { return this; }
    [Symbol.toPrimitive]() { return this.#id; }
    static idOf(t) { return t instanceof Timeout ? t.#id : Number(t); }
  }
  function makeTimer(repeat) {
    return function (fn, ms, ...args) {
      if (typeof fn !== 'function') throw new TypeError('The "callback" argument must be of type function. Received ' + format(fn));
      const cb = args.length ? () => fn(...args) : () => fn();
      return new Timeout(native.setTimer(cb, ms, repeat));
    };
  }
  function clearTimer(t) {
    if (t === undefined || t === null) return;
    native.clearTimer(Timeout.idOf(t));
  }
  const setTimeout = named('setTimeout', makeTimer(false));
  const setInterval = named('setInterval', makeTimer(true));
  const setImmediate = named('setImmediate', function (fn, ...args) { return setTimeout(fn, 0, ...args); });

  // ---------------------------------------------------------------------
  // fs: Promise-returning calls over the synchronous natives; a trailing
  // callback is honoured Node-style; the *Sync names throw and say which
  // call to await instead.
  // ---------------------------------------------------------------------

  const getFs = once(() => section('fs'));

  // ---------------------------------------------------------------------
  // shell(cmd) resolves to { stdout, stderr, exitCode } and never rejects
  // for a non-zero exit; shell.run(cmd) resolves to stdout and rejects on
  // one. The command runs in-process in the sandbox shell.
  // ---------------------------------------------------------------------

  function commandText(cmd, values) {
    if (ArrayIsArray(cmd) && ArrayIsArray(cmd.raw)) return String.raw({ raw: cmd }, ...values);
    return String(cmd);
  }
  function stdinOf(options) {
    if (typeof options === 'string') return options;
    if (options && options.stdin !== undefined && options.stdin !== null) return String(options.stdin);
    return '';
  }
  const shell = named('shell', async function (cmd, ...rest) {
    const text = commandText(cmd, rest);
    const r = native.shell(text, ArrayIsArray(cmd) ? '' : stdinOf(rest[0]));
    return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
  });
  shell.run = named('run', async function (cmd, ...rest) {
    const text = commandText(cmd, rest);
    const r = await shell(text, ArrayIsArray(cmd) ? undefined : rest[0]);
    if (r.exitCode !== 0) {
      const detail = r.stderr ? '\n' + r.stderr.replace(/\n$/, '') : '';
      const e = new ErrorCtor('Command failed (exit ' + r.exitCode + '): ' + text + detail);
      e.exitCode = r.exitCode;
      e.stdout = r.stdout;
      e.stderr = r.stderr;
      throw e;
    }
    return r.stdout;
  });

  // ---------------------------------------------------------------------
  // Tools (API.md §3.6). One global per tool, named by JSName (each . / - :
  // becomes _), enumerable so Object.keys(globalThis) finds them. A tool
  // gets no global when its identifier is taken: by an earlier tool (a.b
  // and a_b: the first registered keeps a_b) or by a prelude global or
  // builtin (a tool named "fs" or "JSON" must not shadow it), except the
  // Node-habit conveniences of YIELDING_GLOBALS, which a tool replaces. Such tools
  // are listed in __tools__ under their id ("mcp:<name>"), left out of
  // listTools() (which lists callable identifiers), and reachable through
  // callTool(name, params) and getToolInfo(name).
  // ---------------------------------------------------------------------

  function paramsJSON(params) {
    if (params === undefined) return '{}';
    const json = JSONStringify(params);
    return json === undefined ? '{}' : json;
  }
  function callMethod(method, params) {
    let json;
    try {
      json = paramsJSON(params);
    } catch (e) {
      return PromiseReject(e);
    }
    return native.submit(method, json);
  }

  const YIELDING_GLOBALS = new Set(['fetch', 'require', 'process', 'Buffer', 'crypto', 'performance', 'global']);
  const toolsByJS = new Map();
  const toolsByName = new Map();
  const toolGlobals = [];
  const __tools__ = {};
  function installTools() {
    for (const t of native.tools) {
      let parameters = { type: 'object', properties: {} };
      if (t.schema) {
        try { parameters = JSONParse(t.schema); } catch (_) { /* keep the default */ }
      }
      const info = { id: 'mcp:' + t.name, name: t.name, description: t.description || '', parameters };
      toolsByName.set(t.name, info);
      // Conveniences the sandbox adds for Node habits (fetch, require,
      // process, ...) yield to a tool of the same name: the tool is what
      // the agent was told to call. Core globals and builtins never do.
      const yields = YIELDING_GLOBALS.has(t.jsName) && !toolsByJS.has(t.jsName);
      if (!yields && (toolsByJS.has(t.jsName) || t.jsName in G)) {
        __tools__[info.id] = info;
        continue;
      }
      toolsByJS.set(t.jsName, info);
      __tools__[t.jsName] = info;
      const method = info.id;
      const stub = named(t.jsName, function (params) { return callMethod(method, params); });
      ObjectDefineProperty(G, t.jsName, { value: stub, writable: true, configurable: true, enumerable: true });
      toolGlobals.push(t.jsName);
    }
  }
  // findTool looks a tool up by JS identifier, registered name or id.
  // getToolInfo prefers the identifier (it is documented to take one);
  // callTool prefers the registered name, so callTool('a_b') reaches the
  // tool registered as "a_b" even when "a.b" owns the identifier a_b.
  function findTool(name, preferName) {
    const n = String(name);
    const byID = n.startsWith('mcp:') ? toolsByName.get(n.slice(4)) : undefined;
    if (preferName) return toolsByName.get(n) || toolsByJS.get(n) || byID;
    return toolsByJS.get(n) || toolsByName.get(n) || byID;
  }
  const listTools = named('listTools', function () { return toolGlobals.slice(); });
  const getToolInfo = named('getToolInfo', function (name) { return findTool(name, false); });
  const callTool = named('callTool', function (name, params) {
    const info = findTool(name, true);
    if (!info) return PromiseReject(new ErrorCtor('Unknown tool: ' + name + ' (listTools() shows the tools available)'));
    return callMethod(info.id, params);
  });

  // ---------------------------------------------------------------------
  // A little of Node's environment that scripts reach for: process, path,
  // require for the modules that exist here, crypto, performance, and a
  // fetch that explains there is no network.
  // ---------------------------------------------------------------------

  const getNode = once(() => section('node'));
  const require = named('require', function (name) {
    const key = String(name).replace(/^node:/, '');
    const modules = getNode().modules;
    if (Object.prototype.hasOwnProperty.call(modules, key)) return modules[key];
    const e = new ErrorCtor("Cannot find module '" + name + "': the sandbox has no npm packages or network; " +
      'available: ' + ObjectKeys(modules).join(', ') + ' (fs, shell and the tool functions are also globals)');
    e.code = 'MODULE_NOT_FOUND';
    throw e;
  });

  const fetch = named('fetch', async function () {
    throw new TypeError('fetch is not available: the sandbox has no network access; use the tools it provides (listTools())');
  });

  // ---------------------------------------------------------------------
  // Install the globals.
  // ---------------------------------------------------------------------

  const globals = {
    console, shell, listTools, getToolInfo, callTool, __tools__,
    setTimeout, setInterval, setImmediate, clearTimeout: named('clearTimeout', clearTimer),
    clearInterval: named('clearInterval', clearTimer), clearImmediate: named('clearImmediate', clearTimer),
    queueMicrotask, atob, btoa, require, fetch,
  };
  for (const name of ObjectKeys(globals)) define(G, name, globals[name]);
  lazy(G, 'fs', getFs);
  lazy(G, 'TextEncoder', () => getText().TextEncoder);
  lazy(G, 'TextDecoder', () => getText().TextDecoder);
  lazy(G, 'Buffer', () => getText().Buffer);
  lazy(G, 'process', () => getNode().process);
  lazy(G, 'crypto', () => getNode().crypto);
  lazy(G, 'performance', () => getNode().performance);
  if (G.global === undefined) define(G, 'global', G);
  installTools();

  // ---------------------------------------------------------------------
  // Helpers for Go.
  // ---------------------------------------------------------------------

  return {
    // describeError is the text printed for an uncaught error (API.md
    // §3.2): "<Name>: <message>" and the stack; a thrown non-error prints
    // as itself.
    describeError(e) {
      if (e !== null && (typeof e === 'object' || typeof e === 'function')) {
        let looksLikeError = isError(e);
        try { looksLikeError = looksLikeError || 'message' in e || 'name' in e; } catch (_) { /* proxy */ }
        if (looksLikeError) return errorWithStack(e);
        return inspect(e);
      }
      return safeString(e);
    },
    // resultText is how the script's resolved value is printed: strings
    // raw, anything else as compact JSON; undefined prints nothing, and
    // what JSON cannot express (BigInt, cycles, functions) is inspected.
    resultText(v) {
      if (v === undefined) return undefined;
      if (typeof v === 'string') return v;
      try {
        const s = JSONStringify(v);
        if (s !== undefined) return s;
      } catch (_) { /* fall through */ }
      return inspect(v);
    },
  };
})
