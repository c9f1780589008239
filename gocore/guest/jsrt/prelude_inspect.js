// Section 'inspect' of prelude.js, compiled on first use (see section() there):
// how console.log and uncaught errors show values other than plain primitives.
  const identRe = /^[A-Za-z_$][\w$]*$/;
  const needsEscapeRe = /[\\'"`\x00-\x1f\x7f]/;
  const escapes = { '\n': '\\n', '\t': '\\t', '\r': '\\r', '\b': '\\b', '\f': '\\f', '\v': '\\v', '\\': '\\\\' };

  function quote(s) {
    let q = "'";
    if (s.includes("'")) {
      if (!s.includes('"')) q = '"';
      else if (!s.includes('`') && !s.includes('${')) q = '`';
    }
    if (!needsEscapeRe.test(s)) return q + s + q;
    let out = '';
    for (let i = 0; i < s.length; i++) {
      const ch = s[i];
      if (ch === q) out += '\\' + q;
      else if (escapes[ch]) out += escapes[ch];
      else if (ch < ' ' || ch === '\x7f') out += '\\x' + ch.charCodeAt(0).toString(16).padStart(2, '0');
      else out += ch;
    }
    return q + out + q;
  }

  function formatKey(k) {
    if (typeof k === 'symbol') return '[' + k.toString() + ']';
    return identRe.test(k) ? k : quote(k);
  }

  function formatPrimitive(v) {
    switch (typeof v) {
      case 'string': return quote(v);
      case 'number': return ObjectIs(v, -0) ? '-0' : String(v);
      case 'bigint': return String(v) + 'n';
      case 'symbol': return v.toString();
      default: return String(v);
    }
  }

  function functionBase(f) {
    let src = '';
    try { src = FunctionToString.call(f); } catch (_) { /* proxies */ }
    let name = '';
    try { name = typeof f.name === 'string' ? f.name : ''; } catch (_) { /* getter */ }
    if (src.startsWith('class')) return '[class ' + (name || '(anonymous)') + ']';
    let kind = 'Function';
    const proto = ObjectGetPrototypeOf(f);
    if (proto === AsyncFunctionPrototype) kind = 'AsyncFunction';
    else if (proto === GeneratorFunctionPrototype) kind = 'GeneratorFunction';
    return name ? '[' + kind + ': ' + name + ']' : '[' + kind + ' (anonymous)]';
  }

  function constructorName(o) {
    let proto;
    try { proto = ObjectGetPrototypeOf(o); } catch (_) { return ''; }
    if (proto === null) return null;
    let ctor;
    try {
      const d = ObjectGetOwnPropertyDescriptor(proto, 'constructor');
      ctor = d && d.value;
    } catch (_) { return ''; }
    return typeof ctor === 'function' && typeof ctor.name === 'string' ? ctor.name : '';
  }

  function errorHead(e) {
    let name, message;
    try { name = e.name; } catch (_) { /* getter */ }
    try { message = e.message; } catch (_) { /* getter */ }
    const msg = message === undefined ? safeString(e) : safeString(message);
    if (typeof name === 'string' && name !== '') return msg === '' ? name : name + ': ' + msg;
    return msg;
  }

  function safeString(v) {
    try { return String(v); } catch (_) { return Object.prototype.toString.call(v); }
  }

  function isError(v) {
    return v instanceof ErrorCtor || (v !== null && typeof v === 'object' && typeof v.stack === 'string' &&
      typeof v.message === 'string');
  }

  function errorWithStack(e) {
    let stack = '';
    try { if (typeof e.stack === 'string') stack = native.cleanStack(e.stack); } catch (_) { /* getter */ }
    return errorHead(e) + stack;
  }

  function reduceToSingle(output, open, close, prefix, level) {
    const base = prefix ? prefix + ' ' : '';
    if (output.length === 0) return base + open + close;
    let total = output.length + level * 2 + open.length + base.length + 10;
    let multiline = false;
    for (const s of output) {
      total += s.length;
      if (s.includes('\n')) multiline = true;
    }
    if (!multiline && total <= 80) return base + open + ' ' + output.join(', ') + ' ' + close;
    const ind = '\n' + ' '.repeat(level * 2);
    return base + open + ind + '  ' + output.join(',' + ind + '  ') + ind + close;
  }

  function inspect(value, options) {
    const ctx = { depth: 2, seen: [] };
    if (options && typeof options === 'object' && options.depth !== undefined) {
      ctx.depth = options.depth === null ? Infinity : options.depth;
    }
    try {
      return formatValue(ctx, value, 0);
    } catch (_) {
      return safeString(value);
    }
  }

  function formatValue(ctx, v, level) {
    if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return formatPrimitive(v);
    if (ctx.seen.includes(v)) return '[Circular]';
    ctx.seen.push(v);
    try {
      return formatObject(ctx, v, level);
    } finally {
      ctx.seen.pop();
    }
  }

  function ownEntries(ctx, o, level, skipIndices) {
    const out = [];
    for (const k of ObjectKeys(o)) {
      if (skipIndices && /^(0|[1-9]\d*)$/.test(k)) continue;
      out.push(formatProperty(ctx, o, k, level));
    }
    for (const s of ObjectGetOwnPropertySymbols(o)) {
      const d = ObjectGetOwnPropertyDescriptor(o, s);
      if (d && d.enumerable) out.push(formatProperty(ctx, o, s, level));
    }
    return out;
  }

  function formatProperty(ctx, o, k, level) {
    const d = ObjectGetOwnPropertyDescriptor(o, k);
    let val;
    if (d && (d.get || d.set)) val = d.get && d.set ? '[Getter/Setter]' : d.get ? '[Getter]' : '[Setter]';
    else val = formatValue(ctx, d ? d.value : o[k], level + 1);
    return formatKey(k) + ': ' + val;
  }

  function formatObject(ctx, v, level) {
    if (typeof v === 'function') {
      const base = functionBase(v);
      const props = ObjectKeys(v);
      if (props.length === 0 || level > ctx.depth) return base;
      return reduceToSingle(ownEntries(ctx, v, level), '{', '}', base, level);
    }
    const ctor = constructorName(v);
    if (isError(v)) {
      if (level > 0) return '[' + errorHead(v) + ']';
      const extra = ObjectKeys(v).filter((k) => k !== 'stack' && k !== 'message');
      const text = errorWithStack(v);
      if (extra.length === 0) return text;
      return text + ' ' + reduceToSingle(extra.map((k) => formatProperty(ctx, v, k, level)), '{', '}', '', level);
    }
    if (ArrayIsArray(v)) {
      if (level > ctx.depth) return '[Array]';
      const out = [];
      const len = v.length;
      const shown = Math.min(len, 100);
      let holes = 0;
      const flushHoles = () => {
        if (holes > 0) out.push('<' + holes + ' empty item' + (holes > 1 ? 's' : '') + '>');
        holes = 0;
      };
      for (let i = 0; i < shown; i++) {
        if (!(i in v)) { holes++; continue; }
        flushHoles();
        out.push(formatValue(ctx, v[i], level + 1));
      }
      flushHoles();
      if (len > shown) out.push('... ' + (len - shown) + ' more item' + (len - shown > 1 ? 's' : ''));
      out.push(...ownEntries(ctx, v, level, true));
      const prefix = ctor && ctor !== 'Array' ? ctor + '(' + len + ')' : '';
      return reduceToSingle(out, '[', ']', prefix, level);
    }
    if (BufferClass && v instanceof BufferClass) {
      const hex = [];
      for (let i = 0; i < Math.min(v.length, 50); i++) hex.push(v[i].toString(16).padStart(2, '0'));
      return '<Buffer' + (hex.length ? ' ' + hex.join(' ') : '') + (v.length > 50 ? ' ... ' + (v.length - 50) + ' more bytes' : '') + '>';
    }
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
      if (level > ctx.depth) return '[' + ctor + ']';
      const out = [];
      const shown = Math.min(v.length, 100);
      for (let i = 0; i < shown; i++) out.push(formatPrimitive(v[i]));
      if (v.length > shown) out.push('... ' + (v.length - shown) + ' more items');
      return reduceToSingle(out, '[', ']', ctor + '(' + v.length + ')', level);
    }
    if (v instanceof ArrayBuffer) {
      const bytes = new Uint8Array(v, 0, Math.min(v.byteLength, 50));
      const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' ');
      return 'ArrayBuffer { [Uint8Contents]: <' + hex + (v.byteLength > 50 ? ' ...' : '') + '>, byteLength: ' + v.byteLength + ' }';
    }
    if (v instanceof Date) return isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString();
    if (v instanceof RegExp) return String(v);
    if (v instanceof Map) {
      if (level > ctx.depth) return '[Map]';
      const out = [];
      let n = 0;
      for (const [k, val] of v) {
        if (n++ === 100) { out.push('... ' + (v.size - 100) + ' more items'); break; }
        out.push(formatValue(ctx, k, level + 1) + ' => ' + formatValue(ctx, val, level + 1));
      }
      return reduceToSingle(out, '{', '}', (ctor || 'Map') + '(' + v.size + ')', level);
    }
    if (v instanceof Set) {
      if (level > ctx.depth) return '[Set]';
      const out = [];
      let n = 0;
      for (const val of v) {
        if (n++ === 100) { out.push('... ' + (v.size - 100) + ' more items'); break; }
        out.push(formatValue(ctx, val, level + 1));
      }
      return reduceToSingle(out, '{', '}', (ctor || 'Set') + '(' + v.size + ')', level);
    }
    if (v instanceof WeakMap || v instanceof WeakSet) return (ctor || 'WeakMap') + ' { <items unknown> }';
    if (v instanceof PromiseCtor) {
      const st = native.promiseState(v);
      let inner = '<pending>';
      if (st && st[0] === 'fulfilled') inner = formatValue(ctx, st[1], level + 1);
      else if (st && st[0] === 'rejected') inner = '<rejected> ' + formatValue(ctx, st[1], level + 1);
      return 'Promise { ' + inner + ' }';
    }
    if (v instanceof Number || v instanceof String || v instanceof Boolean) {
      const t = v instanceof Number ? 'Number' : v instanceof String ? 'String' : 'Boolean';
      return '[' + t + ': ' + formatPrimitive(v.valueOf()) + ']';
    }
    if (level > ctx.depth) return '[' + (ctor || 'Object') + ']';
    let prefix = '';
    if (ctor === null) prefix = '[Object: null prototype]';
    else if (ctor && ctor !== 'Object') prefix = ctor;
    return reduceToSingle(ownEntries(ctx, v, level), '{', '}', prefix, level);
  }

  // format is util.format: printf-style placeholders in a first string
  // argument, then the remaining arguments joined by spaces (strings raw,
  // everything else inspected).

  return { quote, formatKey, formatPrimitive, functionBase, constructorName, errorHead, safeString, isError, errorWithStack, reduceToSingle, inspect, formatValue, ownEntries, formatProperty, formatObject };
