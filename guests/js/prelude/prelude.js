// The prelude of the JavaScript guest: the globals a sandboxed script sees
// (docs/javascript.md), built on the natives driver.c, fs.c and text.c hand in.
// build.py puts the section files (prelude/section_*.js) where the
// SECTIONS marker is, compiles the whole to QuickJS bytecode, and the
// driver runs it once in amla_init(). It evaluates to a function of the
// natives that returns the helpers the driver calls (prepare, settle,
// timerDelay, fireTimer, describeError, resultText, exitCode).
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
  const ObjectDefineProperty = Object.defineProperty;
  const ObjectIs = Object.is;
  const ArrayIsArray = Array.isArray;
  const ArrayFrom = Array.from;
  const JSONStringify = JSON.stringify;
  const JSONParse = JSON.parse;
  const ErrorCtor = Error;
  const PromiseCtor = Promise;
  const PromiseResolve = Promise.resolve.bind(Promise);
  const PromiseReject = Promise.reject.bind(Promise);
  const MapCtor = Map;
  const SetCtor = Set;
  const ProxyCtor = Proxy;
  const ReflectObj = Reflect;
  const isView = ArrayBuffer.isView;

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
  // touch Intl, Buffer or process.
  function lazy(obj, name, make) {
    ObjectDefineProperty(obj, name, {
      configurable: true,
      enumerable: false,
      get() { const v = make(); define(obj, name, v); return v; },
      set(v) { define(obj, name, v); },
    });
  }
  function once(make) {
    let v;
    return () => (v === undefined ? (v = make()) : v);
  }

  // ---------------------------------------------------------------------
  // How values print (docs/javascript.md, "`console.*` output", issue 8 item
  // 3): a string raw; numbers, booleans, null and undefined as words; a
  // bigint as 10n; a symbol as Symbol(s); a function as [Function]; an
  // Error as "Name: message"; everything else as compact JSON at any depth
  // where a cycle prints "[Circular]", a bigint "10n", a function
  // "[Function]", NaN/Infinity and undefined array items null, a Date its
  // ISO string, an Error "Name: message", a Map {"Map":[[k,v],...]}, a Set
  // {"Set":[v,...]} and a typed array a plain array. docs/javascript.md.
  // ---------------------------------------------------------------------

  function safeString(v) {
    try { return String(v); } catch (_) { return Object.prototype.toString.call(v); }
  }
  function isError(v) {
    if (v instanceof ErrorCtor) return true;
    try {
      return v !== null && typeof v === 'object' && typeof v.stack === 'string' && typeof v.message === 'string';
    } catch (_) {
      return false;
    }
  }
  function errorHead(e) {
    let name, message;
    try { name = e.name; } catch (_) { /* getter */ }
    try { message = e.message; } catch (_) { /* getter */ }
    const msg = message === undefined ? safeString(e) : safeString(message);
    if (typeof name === 'string' && name !== '') return msg === '' ? name : name + ': ' + msg;
    return msg;
  }

  function compact(value) {
    // holders are the objects JSON.stringify is inside of (what it passes
    // as `this`), origins the values they stand for; together the chain
    // of ancestors, so only a real cycle prints "[Circular]".
    const holders = [];
    const origins = [];
    function replacer(key, v) {
      while (holders.length && holders[holders.length - 1] !== this) {
        holders.pop();
        origins.pop();
      }
      switch (typeof v) {
        case 'bigint': return v + 'n';
        case 'function': return '[Function]';
        case 'symbol': return v.toString();
        case 'object': break;
        default: return v;
      }
      if (v === null) return v;
      if (origins.includes(v)) return '[Circular]';
      let out = v;
      if (isError(v)) return errorHead(v);
      if (v instanceof MapCtor) out = { Map: ArrayFrom(v) };
      else if (v instanceof SetCtor) out = { Set: ArrayFrom(v) };
      else if (isView(v) && !(v instanceof DataView)) out = ArrayFrom(v);
      holders.push(out);
      origins.push(v);
      return out;
    }
    const s = JSONStringify(value, replacer);
    return s === undefined ? 'undefined' : s;
  }

  // formatArg is how one console argument prints.
  function formatArg(v) {
    switch (typeof v) {
      case 'string': return v;
      case 'number': return ObjectIs(v, -0) ? '0' : String(v);
      case 'boolean': case 'undefined': return String(v);
      case 'bigint': return v + 'n';
      case 'symbol': return v.toString();
      case 'function': return '[Function]';
    }
    if (v === null) return 'null';
    if (isError(v)) return errorHead(v);
    try {
      return compact(v);
    } catch (e) {
      // Too deep for the stack, or a toJSON that throws.
      if (e instanceof RangeError) throw e;
      return safeString(v);
    }
  }
  function format(...args) {
    let out = '';
    for (let i = 0; i < args.length; i++) out += (i ? ' ' : '') + formatArg(args[i]);
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
  function formatMs(ms) {
    return ms < 1000 ? ms.toFixed(3) + 'ms' : (ms / 1000).toFixed(3) + 's';
  }
  const console = {
    log: (...a) => emit(1, format(...a)),
    info: (...a) => emit(1, format(...a)),
    debug: (...a) => emit(1, format(...a)),
    error: (...a) => emit(2, format(...a)),
    warn: (...a) => emit(2, format(...a)),
    trace: (...a) => {
      const e = new ErrorCtor(format(...a));
      emit(2, 'Trace: ' + format(...a) + cleanStack(e.stack || ''));
    },
    dir: (v) => emit(1, formatArg(v)),
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

  // table renders console.table's box (Node's layout), cells as
  // console.log prints them.
  function table(data, columns) {
    if (data === null || typeof data !== 'object') return formatArg(data);
    const rows = [];
    const keys = [];
    let hasValues = false;
    const addKey = (k) => { if (!keys.includes(k)) keys.push(k); };
    const entries = data instanceof MapCtor ? ArrayFrom(data.entries()) : Object.entries(data);
    for (const [idx, row] of entries) {
      const cells = {};
      if (row !== null && typeof row === 'object') {
        for (const k of ObjectKeys(row)) {
          if (columns && !columns.includes(k)) continue;
          addKey(k);
          cells[k] = formatArg(row[k]);
        }
      } else {
        hasValues = true;
        cells['\0values'] = formatArg(row);
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
  // Stacks: QuickJS frames in Node's shape, without the prelude's frames,
  // in the user's line and column terms, at most maxFrames of them.
  // ---------------------------------------------------------------------

  const SCRIPT = 'script.js';
  const WRAP_PREFIX = '(async () => {';
  const WRAP_SUFFIX = '\n})()';
  const maxFrames = 10;
  let userLines = 1;
  let userCode = '';
  // wrapped: the script runs inside WRAP_PREFIX/WRAP_SUFFIX (always,
  // except in a kept session: driver.c eval_script), which moves line 1's
  // columns.
  let wrapped = true;

  // moduleSyntaxHint explains a syntax error QuickJS reports at an import
  // or export statement: scripts run as the body of a function, where
  // neither exists. It looks only at the line the error points to, so a
  // string or comment that mentions import is never taken for one, and
  // import() (an expression) compiles and is left alone.
  // keptDeclarations is a kept session's script (docs/sessions.md) with
  // its top-level `let` and `const` declarations made `var` ones, the
  // same length, so lines and columns stay. In global code a `let` or
  // `const` binding lives as long as the context: declared again by a
  // later run it would be a SyntaxError, and one whose initialiser threw
  // would stay uninitialised for good; a `var` can be declared again and
  // assigned. Only tokens at the top level (outside every bracket) change;
  // strings, template literals, comments and regular expressions are
  // skipped (a `/` starts a regular expression where an operand may
  // start).
  const REGEX_AFTER = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw',
    'case', 'do', 'else', 'yield', 'await']);
  // The next character or word the top-level scan must look at; what lies
  // between is skipped by the regular expression engine, not by a loop.
  const SCAN_NEXT = /['"`/(){}[\]]|\b(?:const|let)\b/g;
  const SCAN_STRING = { '"': /(?:[^"\\\n]|\\[\s\S])*"?/y, "'": /(?:[^'\\\n]|\\[\s\S])*'?/y };
  // The rest of a template's text, to its end or to a ${.
  const SCAN_TEMPLATE = /(?:[^`\\$]|\\[\s\S]|\$(?!\{))*(`|\$\{)?/y;
  // A regular expression literal's rest, after its first /.
  const SCAN_REGEX = /(?:[^\\/[\n]|\\.|\[(?:[^\]\\\n]|\\.)*\]?)*\/?[A-Za-z]*/y;
  // What follows a declaring `let` or `const`: the name or pattern.
  const SCAN_DECL = /\s*(?!(?:in|of|instanceof)\b)[A-Za-z_$\u0080-\uffff[{]/y;
  const SCAN_PREV_WORD = /[A-Za-z0-9_$\u0080-\uffff]+$/;
  const isIdentChar = (c) => c !== undefined && /[A-Za-z0-9_$\u0080-\uffff]/.test(c);
  // regexAt tells a / at i that starts a regular expression from one that
  // divides, by what precedes it: an operand (a name, a number, a closing
  // bracket) makes it a division, unless that name is a keyword after
  // which an operand comes.
  function regexAt(code, i) {
    let j = i - 1;
    while (j >= 0 && /\s/.test(code[j])) j--;
    if (j < 0) return true;
    const c = code[j];
    if (c === ')' || c === ']') return false;
    if (!isIdentChar(c)) return true;
    const m = SCAN_PREV_WORD.exec(code.slice(Math.max(0, j - 15), j + 1));
    return m !== null && REGEX_AFTER.has(m[0]);
  }
  function keptDeclarations(code) {
    if (!/\b(?:const|let)\b/.test(code)) return code;
    const n = code.length;
    let out = '';
    let copied = 0;
    let depth = 0;
    const templates = []; // the depth at which each open template's ${ began
    let i = 0;
    // template scans template text from i to its end or to a ${, which
    // opens a substitution.
    const template = () => {
      SCAN_TEMPLATE.lastIndex = i;
      const m = SCAN_TEMPLATE.exec(code);
      i = SCAN_TEMPLATE.lastIndex;
      if (m[1] === '${') { templates.push(depth); depth++; }
    };
    while (i < n) {
      SCAN_NEXT.lastIndex = i;
      const m = SCAN_NEXT.exec(code);
      if (!m) break;
      const at = m.index;
      const t = m[0];
      i = at + t.length;
      if (t === 'const' || t === 'let') {
        if (depth !== 0 || isIdentChar(code[at - 1]) || isIdentChar(code[i]) || code[at - 1] === '.') continue;
        SCAN_DECL.lastIndex = i;
        if (SCAN_DECL.exec(code) && SCAN_DECL.lastIndex - 1 > i) {
          out += code.slice(copied, at) + (t === 'const' ? 'var  ' : 'var');
          copied = i;
        }
        continue;
      }
      if (t === '"' || t === "'") {
        const re = SCAN_STRING[t];
        re.lastIndex = i;
        re.exec(code);
        i = re.lastIndex;
        continue;
      }
      if (t === '`') { template(); continue; }
      if (t === '/') {
        const next = code[i];
        if (next === '/') {
          const end = code.indexOf('\n', i);
          i = end < 0 ? n : end;
        } else if (next === '*') {
          const end = code.indexOf('*/', i + 1);
          i = end < 0 ? n : end + 2;
        } else if (regexAt(code, at)) {
          SCAN_REGEX.lastIndex = i;
          SCAN_REGEX.exec(code);
          i = SCAN_REGEX.lastIndex;
        }
        continue;
      }
      if (t === '(' || t === '[' || t === '{') { depth++; continue; }
      if (t === '}' && templates.length && templates[templates.length - 1] === depth - 1) {
        templates.pop();
        depth--;
        template();
        continue;
      }
      if (depth > 0) depth--;
    }
    return copied === 0 ? code : out + code.slice(copied);
  }

  function moduleSyntaxHint(e, stack) {
    if (!(e instanceof SyntaxError)) return undefined;
    const m = /script\.js:(\d+):\d+/.exec(stack);
    if (!m) return undefined;
    const line = userCode.split('\n')[Number(m[1]) - 1] || '';
    const imp = /^\s*import\s*(?:([\w$]+)\s*(?:,|from\b)|\{([^}]*)\}\s*from|\*\s*as\s+([\w$]+)\s+from|['"])\s*['"]?([^'";\s]*)/.exec(line);
    if (imp) {
      const mod = imp[4] || 'fs';
      let instead;
      if (imp[1]) instead = 'const ' + imp[1] + " = require('" + mod + "')";
      else if (imp[2] !== undefined) instead = 'const {' + imp[2].replace(/\s+as\s+/g, ': ').trim() + "} = require('" + mod + "')";
      else if (imp[3]) instead = 'const ' + imp[3] + " = require('" + mod + "')";
      else instead = "require('" + mod + "')";
      return 'import statements are not supported: scripts run as the body of an async function, not as modules. ' +
        'Write ' + instead + ' instead' + (mod === 'fs' ? ', or use the global fs' : '') +
        "; await import('" + mod + "') also works for the built-in modules.";
    }
    if (/^\s*export\b/.test(line)) {
      return 'export statements are not supported: scripts run as the body of an async function, not as modules. ' +
        'Drop the export; to give a result back, return it (or print it with console.log).';
    }
    return undefined;
  }

  function cleanStack(stack) {
    if (typeof stack !== 'string') return '';
    let out = '';
    let frames = 0;
    let dropped = 0;
    for (const raw of stack.split('\n')) {
      const m = /^\s*at (.*)$/.exec(raw);
      if (!m) continue;
      let frame = m[1];
      if (frame.includes('prelude.js')) continue;
      let keep = true;
      frame = frame.replace(/script\.js:(\d+):(\d+)/g, (all, l, c) => {
        const line = Number(l);
        let col = Number(c);
        if (line === 1 && wrapped) col -= WRAP_PREFIX.length;
        if (line > userLines || col < 1) keep = false;
        return SCRIPT + ':' + line + ':' + col;
      });
      if (!keep) continue;
      if (frames === maxFrames) { dropped++; continue; }
      out += '\n    at ' + frame;
      frames++;
    }
    if (dropped > 0) out += '\n    ... ' + dropped + ' more';
    return out;
  }

  // ---------------------------------------------------------------------
  // Polyfills for what QuickJS-NG lacks. Each is installed only when the
  // engine does not have it.
  // ---------------------------------------------------------------------

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
    const memo = new MapCtor();
    const clone = (v) => {
      if (typeof v === 'function') throw dataCloneError((v.name ? 'function ' + v.name : 'function') + ' could not be cloned.');
      if (typeof v === 'symbol') throw dataCloneError(v.toString() + ' could not be cloned.');
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
      else if (isView(v)) {
        const C = ObjectGetPrototypeOf(v).constructor;
        out = new C(clone(v.buffer), v.byteOffset, v.length);
      } else if (v instanceof Number || v instanceof String || v instanceof Boolean || v instanceof BigInt) {
        out = Object(v.valueOf());
      } else if (v instanceof PromiseCtor || v instanceof WeakMap || v instanceof WeakSet) {
        const ctor = ObjectGetPrototypeOf(v) && ObjectGetPrototypeOf(v).constructor;
        throw dataCloneError('#<' + ((ctor && ctor.name) || 'Object') + '> could not be cloned.');
      }
      if (out !== undefined) {
        memo.set(v, out);
        return out;
      }
      if (v instanceof MapCtor) {
        out = new MapCtor();
        memo.set(v, out);
        for (const [k, val] of v) out.set(clone(k), clone(val));
        return out;
      }
      if (v instanceof SetCtor) {
        out = new SetCtor();
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

  // JSON.parse refuses text nested deeper than the driver's limit with a
  // RangeError: QuickJS's parser would otherwise exhaust the wasm stack
  // (an uncatchable trap) long before its own stack check fires.
  const JSONParseNative = JSON.parse;
  define(JSON, 'parse', named('parse', function parse(text, reviver) {
    const s = typeof text === 'string' ? text : String(text);
    if (native.jsonTooDeep(s)) throw new RangeError('Maximum call stack size exceeded (JSON nested too deeply)');
    return reviver === undefined ? JSONParseNative(s) : JSONParseNative(s, reviver);
  }));

  defineIfMissing(G, 'queueMicrotask', named('queueMicrotask', function (fn) {
    if (typeof fn !== 'function') throw new TypeError('The "callback" argument must be of type function. Received ' + formatArg(fn));
    PromiseResolve().then(() => fn());
  }));

  // ---- Numbers and dates in a locale (QuickJS-NG has no Intl) ----------
  // Honest or an error: a locale whose conventions the section does not
  // know, or a time zone other than UTC, is a RangeError that says what is
  // supported (section_locale.js).

  const getLocale = once(() => section_locale());

  define(Number.prototype, 'toLocaleString', named('toLocaleString', function (locales, options) {
    return getLocale().formatNumber(Number.prototype.valueOf.call(this), locales, options);
  }));
  define(BigInt.prototype, 'toLocaleString', named('toLocaleString', function (locales, options) {
    return getLocale().formatNumber(BigInt.prototype.valueOf.call(this), locales, options);
  }));
  define(Date.prototype, 'toLocaleString', named('toLocaleString', function (locales, options) { return getLocale().formatDate(this, locales, options, 'all'); }));
  define(Date.prototype, 'toLocaleDateString', named('toLocaleDateString', function (locales, options) { return getLocale().formatDate(this, locales, options, 'date'); }));
  define(Date.prototype, 'toLocaleTimeString', named('toLocaleTimeString', function (locales, options) { return getLocale().formatDate(this, locales, options, 'time'); }));
  if (!('Intl' in G)) lazy(G, 'Intl', () => getLocale().makeIntl());

  // ---------------------------------------------------------------------
  // Timers. The driver asks timerDelay() how long it may wait and calls
  // fireTimer() when one is due; they run in real time, in order of due
  // time and then of creation. Once the script's promise has settled,
  // only ref'd timeouts keep the run alive (a forgotten setInterval would
  // otherwise run until the timeout).
  // ---------------------------------------------------------------------

  const timers = new MapCtor(); // id -> { due, ms, fn, repeat, ref }
  let nextTimerID = 1;

  class Timeout {
    #id;
    constructor(id) { this.#id = id; }
    ref() { const t = timers.get(this.#id); if (t) t.ref = true; return this; }
    unref() { const t = timers.get(this.#id); if (t) t.ref = false; return this; }
    hasRef() { const t = timers.get(this.#id); return !!(t && t.ref); }
    refresh() { const t = timers.get(this.#id); if (t) t.due = native.now() + t.ms; return this; }
    [Symbol.toPrimitive]() { return this.#id; }
    static idOf(t) { return t instanceof Timeout ? t.#id : Number(t); }
  }
  function makeTimer(repeat) {
    return function (fn, ms, ...args) {
      if (typeof fn !== 'function') throw new TypeError('The "callback" argument must be of type function. Received ' + formatArg(fn));
      let delay = Number(ms);
      if (!(delay >= 1) || delay > 2147483647) delay = 1;
      const id = nextTimerID++;
      const cb = args.length ? () => fn(...args) : fn;
      timers.set(id, { due: native.now() + delay, ms: delay, fn: cb, repeat, ref: true });
      return new Timeout(id);
    };
  }
  function clearTimer(t) {
    if (t === undefined || t === null) return;
    timers.delete(Timeout.idOf(t));
  }
  const setTimeout = named('setTimeout', makeTimer(false));
  const setInterval = named('setInterval', makeTimer(true));
  const setImmediate = named('setImmediate', function (fn, ...args) { return setTimeout(fn, 0, ...args); });

  // earliestTimer is the [id, timer] due first (creation order breaks
  // ties: ids grow), or undefined.
  function earliestTimer() {
    let best;
    for (const entry of timers) {
      if (best === undefined || entry[1].due < best[1].due) best = entry;
    }
    return best;
  }
  function timerDelay(settled, toolsPending) {
    if (timers.size === 0) return -1;
    if (settled && !toolsPending) {
      let alive = false;
      for (const t of timers.values()) if (t.ref && !t.repeat) { alive = true; break; }
      if (!alive) return -1;
    }
    const d = earliestTimer()[1].due - native.now();
    return d > 0 ? d : 0;
  }
  function fireTimer() {
    const best = earliestTimer();
    if (!best || best[1].due > native.now()) return;
    const [id, t] = best;
    if (t.repeat) t.due = native.now() + t.ms;
    else timers.delete(id);
    t.fn();
  }

  // ---------------------------------------------------------------------
  // fs: Promise-returning calls over the synchronous natives of fs.c
  // (section_fs.js).
  // ---------------------------------------------------------------------

  const WORKDIR = '/workspace';
  const getFs = once(() => section_fs());

  // ---------------------------------------------------------------------
  // shell(cmd) resolves to { stdout, stderr, exitCode } and never rejects
  // for a non-zero exit; shell.run(cmd) resolves to stdout and rejects on
  // one. The command runs as a child process: the host starts the shell
  // guest on the same files (wire.SpawnRequest), inside this run's limits.
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
  function runShell(text, stdin) {
    const req = { language: 'shell', code: text, output_apart: true };
    if (stdin !== '') req.stdin = stdin;
    // [result JSON, stdout, stderr]: the output apart from the JSON, where
    // a NUL would take six bytes.
    const frame = native.spawn(JSONStringify(req));
    const r = JSONParse(frame[0]);
    r.stdout = frame[1];
    r.stderr = frame[2];
    let stderr = typeof r.stderr === 'string' ? r.stderr : '';
    if (r.error && !stderr.includes(r.error)) stderr += (stderr && !stderr.endsWith('\n') ? '\n' : '') + r.error + '\n';
    return { stdout: typeof r.stdout === 'string' ? r.stdout : '', stderr, exitCode: typeof r.exit_code === 'number' ? r.exit_code : 1 };
  }
  const shell = named('shell', async function (cmd, ...rest) {
    return runShell(commandText(cmd, rest), ArrayIsArray(cmd) ? '' : stdinOf(rest[0]));
  });
  shell.run = named('run', async function (cmd, ...rest) {
    const text = commandText(cmd, rest);
    const r = runShell(text, ArrayIsArray(cmd) ? '' : stdinOf(rest[0]));
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
  shell.exec = shell;

  // ---------------------------------------------------------------------
  // Tools (docs/tools.md, "How sandbox code calls a tool"). One global per tool, named by its JS name (each
  // . / - : becomes _), which the host decides (gocore/toolcat) and hands
  // over in each index entry (js; ns its namespace, section_tools.js). A
  // run whose input lists the tools gets them as
  // enumerable properties of globalThis. A run handed the list as a file
  // (input.tool_index) reads it only when a script first looks up a global
  // name nobody defined, and then defines that name alone, when a tool or
  // namespace has it, on toolProto, globalThis's prototype (driver.c,
  // toolGlobals), where a script's own global of the same name shadows it
  // (resolveGlobal). listTools, getToolInfo, callTool, tools and __tools__
  // install them all. So a run pays for the list only if it names a global
  // nobody defined, and for the tools it names, not for each tool.
  // A tool gets no global when its identifier is taken: by an earlier
  // tool (a.b and a_b: the first registered keeps a_b) or by a prelude
  // global or builtin (a tool named "fs" or "JSON" must not shadow it),
  // except the Node-habit conveniences of YIELDING_GLOBALS, which a tool
  // replaces. Such tools are listed in __tools__ under their id
  // ("mcp:<name>"), left out of listTools(), and reachable through
  // callTool(name, params) and getToolInfo(name).
  //
  // A call is submitted to the host at once (native.submit); the driver
  // waits only when the script has nothing else to do, so calls made
  // together reach the host together. settle() answers them.
  // ---------------------------------------------------------------------

  const pending = new MapCtor(); // request id -> { method, resolve, reject }

  function paramsJSON(params) {
    if (params === undefined) return '{}';
    const json = JSONStringify(params);
    return json === undefined ? '{}' : json;
  }
  // callMethod submits one request; with http set it is an HTTP request
  // (section_web.js), whose refusal rejects with the host's message alone.
  function callMethod(method, params, http) {
    let request;
    try {
      request = '{"method":' + JSONStringify(method) + ',"params":' + paramsJSON(params) + '}';
    } catch (e) {
      return PromiseReject(e);
    }
    let rec;
    const p = new PromiseCtor((resolve, reject) => { rec = { method, resolve, reject, http }; });
    const id = native.submit(request);
    pending.set(id, rec);
    p.requestId = id;
    return p;
  }
  function settle(header, result, parseError) {
    const rec = pending.get(header.id);
    if (!rec) throw new ErrorCtor('amla js: internal error: an answer for unknown tool call ' + header.id);
    pending.delete(header.id);
    if (!header.ok && rec.http) {
      const e = new ErrorCtor(header.error || 'network policy: the request failed');
      e.code = header.code || 'internal';
      if (result && typeof result === 'object') {
        if (typeof result.check === 'string') e.check = result.check;
        if (typeof result.rule === 'string' && result.rule !== '') e.rule = result.rule;
      }
      rec.reject(e);
    } else if (!header.ok) {
      rec.reject(new ErrorCtor("tool call '" + rec.method + "' failed: " + (header.code || 'internal') + ': ' + (header.error || '')));
    } else if (parseError !== undefined) {
      rec.reject(new ErrorCtor("tool call '" + rec.method + "' failed: internal: the result could not be read: " + errorHead(parseError)));
    } else {
      rec.resolve(result === undefined ? null : result);
    }
  }

  // jsOf and nsOf are an index entry's JS name and namespace, as the host
  // decided them; '' when the entry has none.
  function jsOf(t) { return typeof t.js === 'string' ? t.js : ''; }
  function nsOf(t) { return typeof t.ns === 'string' ? t.ns : ''; }

  const YIELDING_GLOBALS = new SetCtor(['fetch', 'require', 'process', 'Buffer', 'crypto', 'performance', 'global', 'tools']);
  const toolsByJS = new MapCtor();
  const toolsByName = new MapCtor();
  const toolGlobals = [];
  const __tools__ = {};
  // toolProto is where tools read from an index file go; toolIndex the
  // file's path until it is read; deferred the descriptors of the globals
  // taken off globalThis until then (deferTools).
  const toolProto = native.toolGlobals(resolveGlobal);
  Object.setPrototypeOf(toolProto, ObjectGetPrototypeOf(G));
  Object.setPrototypeOf(G, toolProto);
  let toolIndex;
  const deferred = new MapCtor();
  // deferTools leaves the run's tools in the file at path until a script
  // needs them. The globals a tool could replace (YIELDING_GLOBALS) and
  // those that show the tools leave globalThis meanwhile, so that looking
  // one up reads the file first; they come back on toolProto unless a tool
  // takes the name.
  function deferTools(path) {
    toolIndex = path;
    for (const name of [...YIELDING_GLOBALS, '__tools__']) {
      const d = Object.getOwnPropertyDescriptor(G, name);
      if (d === undefined) continue;
      deferred.set(name, d);
      delete G[name];
    }
  }
  // indexList is the parsed tool list of the index file, read once; a
  // file that cannot be read means no tools.
  let indexEntries;
  function indexList() {
    if (indexEntries === undefined) {
      let list = [];
      try { list = JSONParse(native.encode(native.fs.readFile(toolIndex), 'utf8')); } catch (e) { /* no tools */ }
      indexEntries = ArrayIsArray(list) ? list : [];
    }
    return indexEntries;
  }
  // ensureTools installs all the deferred tools, once, in place of the
  // globals resolveGlobal defined one by one.
  function ensureTools() {
    if (toolIndex === undefined) return;
    const list = indexList();
    toolIndex = undefined;
    for (const name of resolved) delete toolProto[name];
    resolved.clear();
    unresolved.clear();
    for (const [name, d] of deferred) {
      if (!Object.prototype.hasOwnProperty.call(G, name)) ObjectDefineProperty(toolProto, name, d);
    }
    deferred.clear();
    installTools(list, toolProto);
  }
  // resolveGlobal is driver.c's question for a global name found nowhere:
  // true when it defined name on toolProto. Until a script asks for all
  // the tools (ensureTools), it defines only the name asked for, as
  // installTools would: the first tool whose identifier it is, else a
  // held-back global (deferTools), else a namespace of the tools whose
  // name starts with name and a dot, whose members are made as they are
  // read (section_tools.js, lazyNamespace). So a run pays for the list
  // once and for the tools it names, not for each tool.
  const resolved = new SetCtor();
  const unresolved = new SetCtor();
  function resolveGlobal(name) {
    if (toolIndex === undefined) return false;
    if (name === 'tools' || name === '__tools__') {
      ensureTools();
      return Object.prototype.hasOwnProperty.call(toolProto, name);
    }
    if (unresolved.has(name)) return false;
    const list = indexList();
    const n = name.length;
    if (YIELDING_GLOBALS.has(name) || !(name in G)) {
      for (let i = 0; i < list.length; i++) {
        const t = list[i];
        if (t && typeof t.name === 'string' && name !== '' && jsOf(t) === name) {
          const method = typeof t.method === 'string' && t.method ? t.method : 'mcp:' + t.name;
          const stub = named(name, function (params) { return callMethod(method, params); });
          ObjectDefineProperty(toolProto, name, { value: stub, writable: true, configurable: true, enumerable: true });
          resolved.add(name);
          return true;
        }
      }
    }
    const d = deferred.get(name);
    if (d !== undefined) {
      ObjectDefineProperty(toolProto, name, d);
      resolved.add(name);
      return true;
    }
    if (!(name in G)) {
      const members = [];
      for (let i = 0; i < list.length; i++) {
        const t = list[i];
        if (t && typeof t.name === 'string' && name !== '' && nsOf(t) === name) members.push(t);
      }
      if (members.length > 0) {
        const obj = getToolsSection().lazyNamespace(members, n + 1);
        ObjectDefineProperty(toolProto, name, { value: obj, writable: true, configurable: true, enumerable: true });
        resolved.add(name);
        return true;
      }
    }
    unresolved.add(name);
    return false;
  }
  function installTools(list, target) {
    for (const t of list) {
      if (!t || typeof t.name !== 'string') continue;
      const id = jsOf(t);
      let parameters = { type: 'object', properties: {} };
      if (t.inputSchema !== undefined && t.inputSchema !== null) parameters = t.inputSchema;
      const method = typeof t.method === 'string' && t.method ? t.method : 'mcp:' + t.name;
      const info = { id: method, name: t.name, description: t.description || '', parameters };
      namesOf.set(info, { js: id, ns: nsOf(t) });
      if (typeof t.info === 'string') {
        infoFiles.set(info, t.info);
        if (t.info.endsWith('.json')) declarationFiles.set(info, t.info.slice(0, -5) + '.decl');
      }
      // The first tool of a name keeps it (gocore/toolcat.Unique).
      if (!toolsByName.has(t.name)) toolsByName.set(t.name, info);
      // Conveniences the sandbox adds for Node habits (fetch, require,
      // process, ...) yield to a tool of the same name: the tool is what
      // the agent was told to call. Core globals and builtins never do.
      const yields = YIELDING_GLOBALS.has(id) && !toolsByJS.has(id);
      if (id === '' || (!yields && (toolsByJS.has(id) || id in G))) {
        __tools__[info.id] = info;
        continue;
      }
      toolsByJS.set(id, info);
      __tools__[id] = info;
      const stub = named(id, function (params) { return callMethod(method, params); });
      ObjectDefineProperty(target, id, { value: stub, writable: true, configurable: true, enumerable: true });
      toolGlobals.push(id);
    }
    if (list.some((t) => t && typeof t.name === 'string' && nsOf(t) !== '')) {
      getToolsSection().namespaces(toolsByName.values(), target);
    }
  }
  // namesOf maps a tool's info to its names from the index entry (js, ns).
  const namesOf = new MapCtor();
  // infoFiles maps the info of a tool whose description and parameters
  // the run's input left out to its info file (the host's whole ToolInfo
  // JSON); fullInfo reads the file the first time a script looks into the
  // tool, so only tools a script looks into cost it their descriptions. A
  // file that cannot be read leaves them empty.
  const infoFiles = new MapCtor();
  function fullInfo(info) {
    const path = info && infoFiles.get(info);
    if (path === undefined) return info;
    infoFiles.delete(info);
    let full = {};
    try { full = JSONParse(native.encode(native.fs.readFile(path), 'utf8')) || {}; } catch (e) { /* empty */ }
    if (typeof full.description === 'string') info.description = full.description;
    if (full.inputSchema !== undefined && full.inputSchema !== null) info.parameters = full.inputSchema;
    if (full.outputSchema !== undefined && full.outputSchema !== null) info.outputSchema = full.outputSchema;
    return info;
  }
  // declarationFiles maps the info of a tool with an info file (<n>.json)
  // to the file of its declarations beside it (<n>.decl: TypeScript, a NUL,
  // Python; gocore/host/toolnames.go), which only tools.describe reads.
  const declarationFiles = new MapCtor();
  // declarationText is the tool's TypeScript declaration, as the host
  // rendered it; '' when it has none.
  function declarationText(info) {
    const path = declarationFiles.get(info);
    if (path === undefined) return '';
    let text = '';
    try { text = native.encode(native.fs.readFile(path), 'utf8'); } catch (e) { return ''; }
    const nul = text.indexOf('\0');
    return nul < 0 ? '' : text.slice(0, nul);
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
  const listTools = named('listTools', function () { ensureTools(); return toolGlobals.slice(); });
  const getToolInfo = named('getToolInfo', function (name) { ensureTools(); return fullInfo(findTool(name, false)); });
  const callTool = named('callTool', function (name, params) {
    ensureTools();
    const info = findTool(name, true);
    if (!info) return PromiseReject(new ErrorCtor('Unknown tool: ' + name + ' (listTools() shows the tools available)'));
    return callMethod(info.id, params);
  });

  // ---------------------------------------------------------------------
  // A little of Node's environment that scripts reach for: process, path,
  // require for the modules that exist here and crypto (section_node.js).
  // ---------------------------------------------------------------------

  const getToolsSection = once(() => section_tools());
  const getText = once(() => section_text());
  // runEnv is process.env: the run's variables (input.env, the network
  // policy's secret placeholders), set by prepare.
  let runEnv = {};
  const getNode = once(() => section_node());
  const require = named('require', function (name) {
    const key = String(name).replace(/^node:/, '');
    const modules = getNode().modules;
    if (Object.prototype.hasOwnProperty.call(modules, key)) return modules[key];
    const e = new ErrorCtor("Cannot find module '" + name + "': the sandbox has no npm packages or network; " +
      'available: ' + ObjectKeys(modules).join(', ') + ' (fs, shell and the tool functions are also globals)');
    e.code = 'MODULE_NOT_FOUND';
    throw e;
  });
  // URL, Headers, fetch and the rest of the web platform (section_web.js).
  const getWeb = once(() => section_web());

  /*@@SECTIONS@@*/

  // ---------------------------------------------------------------------
  // Install the globals.
  // ---------------------------------------------------------------------

  const globals = {
    console, shell, listTools, getToolInfo, callTool, __tools__,
    setTimeout, setInterval, setImmediate, clearTimeout: named('clearTimeout', clearTimer),
    clearInterval: named('clearInterval', clearTimer), clearImmediate: named('clearImmediate', clearTimer),
    require,
  };
  for (const name of ObjectKeys(globals)) define(G, name, globals[name]);
  lazy(G, 'fs', getFs);
  lazy(G, 'tools', () => getToolsSection().tools);
  lazy(G, 'TextEncoder', () => getText().TextEncoder);
  lazy(G, 'TextDecoder', () => getText().TextDecoder);
  lazy(G, 'Buffer', () => getText().Buffer);
  lazy(G, 'process', () => getNode().process);
  lazy(G, 'crypto', () => getNode().crypto);
  for (const name of ['URL', 'URLSearchParams', 'Event', 'EventTarget', 'AbortController', 'AbortSignal', 'Headers', 'Request', 'Response', 'fetch']) {
    lazy(G, name, () => getWeb()[name]);
  }
  if (G.global === undefined) define(G, 'global', G);

  // ---------------------------------------------------------------------
  // Helpers for the driver.
  // ---------------------------------------------------------------------

  return {
    // prepare installs the run's tools and returns the user's code
    // wrapped as the body of an async function invoked at once (docs/javascript.md,
    // "The run"), so top-level await and return work. The prefix shares the
    // first line with the code: line numbers stay the user's.
    prepare(input) {
      if (input.language !== undefined && input.language !== 'javascript') {
        throw new ErrorCtor('this guest runs JavaScript, not ' + JSONStringify(input.language));
      }
      if (input.env !== null && typeof input.env === 'object') runEnv = Object.assign({}, input.env);
      if (typeof input.tool_index === 'string') deferTools(input.tool_index);
      else installTools(ArrayIsArray(input.tools) ? input.tools : [], G);
      let code = input.has_stdin ? String(input.stdin ?? '') : String(input.code ?? '');
      if (code.startsWith('#!')) code = '//' + code.slice(2);
      userCode = code;
      userLines = code.split('\n').length;
      wrapped = !input.keep_state;
      if (!wrapped) {
        // A kept session (docs/sessions.md): the script runs as global
        // code, so its top-level declarations stay for the next run. An
        // exit code an earlier run set is that run's.
        const d = Object.getOwnPropertyDescriptor(G, 'process');
        if (d && 'value' in d && d.value && typeof d.value === 'object') d.value.exitCode = undefined;
        return keptDeclarations(code);
      }
      return WRAP_PREFIX + code + WRAP_SUFFIX;
    },
    // wrapKept is the kept session's script as a function body, for one
    // with a top-level return, which global code cannot have.
    wrapKept() {
      wrapped = true;
      return WRAP_PREFIX + userCode + WRAP_SUFFIX;
    },
    // importModule is what import('name') loads (modules.c): the module
    // require(name) gives, whatever a tool named require shadows.
    importModule(name) {
      return require(name);
    },
    settle,
    timerDelay,
    fireTimer,
    // describeError is the text printed for an uncaught error (docs/javascript.md,
    // "The run"): "<Name>: <message>" and the stack; a thrown non-error prints
    // as console.log would print it.
    describeError(e, compiling) {
      if (isError(e)) {
        let stack = '';
        try { stack = cleanStack(e.stack); } catch (_) { /* getter */ }
        if (compiling) {
          const hint = moduleSyntaxHint(e, stack);
          if (hint) return 'SyntaxError: ' + hint + stack;
        }
        if (!wrapped && e instanceof SyntaxError) {
          // A kept session's global code declaring again what an earlier
          // run declared (docs/sessions.md).
          const m = /^redeclaration of '(.*)'$/.exec(String(e.message));
          if (m) {
            return 'SyntaxError: redeclaration of \'' + m[1] + '\': an earlier run of this session declared it (a class, or a let or const inside a block), ' +
              'and it keeps that declaration; assign to it instead (' + m[1] + ' = ...), or sb.reset() to start fresh' + stack;
          }
        }
        // The cause, as Node shows it: fetch's "fetch failed" says why
        // only there.
        let cause = '';
        try {
          const c = e.cause;
          if (c !== undefined) cause = '\n  [cause]: ' + (isError(c) ? errorHead(c) : formatArg(c));
        } catch (_) { /* getter */ }
        return errorHead(e) + stack + cause;
      }
      try { return formatArg(e); } catch (_) { return safeString(e); }
    },
    // resultText is how the script's resolved value prints: a string raw,
    // anything else as JSON.stringify gives it; what JSON cannot express
    // (a bigint, a cycle) prints as console.log would. undefined prints
    // nothing.
    resultText(v) {
      if (v === undefined) return undefined;
      if (typeof v === 'string') return v;
      try {
        const s = JSONStringify(v);
        if (s !== undefined) return s;
      } catch (e) {
        if (e instanceof RangeError) throw e;
      }
      return formatArg(v);
    },
    // exitCode is process.exitCode when a script set it.
    exitCode() {
      const d = Object.getOwnPropertyDescriptor(G, 'process');
      const p = d && 'value' in d ? d.value : undefined;
      return p && typeof p.exitCode === 'number' ? p.exitCode : undefined;
    },
  };
})
