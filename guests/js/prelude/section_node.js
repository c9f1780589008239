// Section 'node' of prelude.js (run on first use): path, process, util,
// crypto, os, and the module table require() serves.
    const path = (() => {
      const normalizeParts = (parts, absolute) => {
        const out = [];
        for (const p of parts) {
          if (p === '' || p === '.') continue;
          if (p === '..') {
            if (out.length && out[out.length - 1] !== '..') out.pop();
            else if (!absolute) out.push('..');
          } else out.push(p);
        }
        return out;
      };
      const normalize = (p) => {
        p = String(p);
        if (p === '') return '.';
        const abs = p.startsWith('/');
        const trailing = p.endsWith('/');
        let s = normalizeParts(p.split('/'), abs).join('/');
        if (!s && !abs) s = '.';
        if (s && trailing) s += '/';
        return (abs ? '/' : '') + s;
      };
      const join = (...parts) => {
        const s = parts.map(String).filter((x) => x !== '').join('/');
        return s === '' ? '.' : normalize(s);
      };
      const resolve = (...parts) => {
        let r = '';
        for (let i = parts.length - 1; i >= 0 && !r.startsWith('/'); i--) {
          const p = String(parts[i]);
          if (p) r = r ? p + '/' + r : p;
        }
        if (!r.startsWith('/')) r = WORKDIR + (r ? '/' + r : '');
        const s = '/' + normalizeParts(r.split('/'), true).join('/');
        return s;
      };
      const dirname = (p) => {
        p = String(p);
        if (p === '') return '.';
        const s = p.replace(/\/+$/, '');
        if (s === '') return '/';
        const i = s.lastIndexOf('/');
        if (i < 0) return '.';
        if (i === 0) return '/';
        return s.slice(0, i).replace(/\/+$/, '') || '/';
      };
      const basename = (p, ext) => {
        let b = String(p).replace(/\/+$/, '');
        b = b.slice(b.lastIndexOf('/') + 1);
        if (ext && b.endsWith(ext) && b !== ext) b = b.slice(0, -ext.length);
        return b;
      };
      const extname = (p) => {
        const b = basename(p);
        const i = b.lastIndexOf('.');
        return i <= 0 ? '' : b.slice(i);
      };
      const relative = (from, to) => {
        const f = resolve(from).split('/').filter(Boolean);
        const t = resolve(to).split('/').filter(Boolean);
        let i = 0;
        while (i < f.length && i < t.length && f[i] === t[i]) i++;
        return [...f.slice(i).map(() => '..'), ...t.slice(i)].join('/');
      };
      const parse = (p) => {
        const base = basename(p);
        const ext = extname(p);
        const dir = dirname(p);
        return { root: String(p).startsWith('/') ? '/' : '', dir: dir === '.' && !String(p).includes('/') ? '' : dir, base, ext, name: ext ? base.slice(0, -ext.length) : base };
      };
      const fmt = (o) => {
        const dir = o.dir || o.root || '';
        const base = o.base || (o.name || '') + (o.ext || '');
        return dir ? (dir.endsWith('/') ? dir + base : dir + '/' + base) : base;
      };
      const mod = { sep: '/', delimiter: ':', normalize, join, resolve, dirname, basename, extname, relative, parse, format: fmt, isAbsolute: (p) => String(p).startsWith('/') };
      mod.posix = mod;
      return mod;
    })();

    const crypto = {
      randomUUID: named('randomUUID', function () {
        const b = native.randomFill(new Uint8Array(16));
        b[6] = (b[6] & 0x0f) | 0x40;
        b[8] = (b[8] & 0x3f) | 0x80;
        const h = native.encode(b, 'hex');
        return h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20);
      }),
      getRandomValues: named('getRandomValues', function (array) {
        if (!isView(array) || array instanceof Float32Array || array instanceof Float64Array || array instanceof DataView) {
          throw new TypeError('The data argument must be an integer-type TypedArray');
        }
        if (array.byteLength > 65536) {
          const e = new ErrorCtor("The ArrayBufferView's byte length (" + array.byteLength + ') exceeds the number of bytes of entropy available via this API (65536)');
          e.name = 'QuotaExceededError';
          throw e;
        }
        native.randomFill(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
        return array;
      }),
    };
    const cryptoModule = Object.assign({}, crypto, {
      randomBytes: (n) => getText().toBuffer(native.randomFill(new Uint8Array(n))),
      webcrypto: crypto,
    });

    const process = {
      env: {},
      argv: ['node', 'script.js'],
      execArgv: [],
      platform: 'linux',
      arch: 'wasm32',
      pid: 1,
      version: 'v20.0.0',
      versions: { node: '20.0.0' },
      exitCode: undefined,
      cwd: () => WORKDIR,
      chdir: () => { throw new ErrorCtor('process.chdir() is not supported in the sandbox'); },
      exit: (code) => native.exit(code === undefined ? process.exitCode : code),
      nextTick: (fn, ...args) => queueMicrotask(() => fn(...args)),
      uptime: () => native.now() / 1000,
      hrtime: Object.assign((prev) => {
        const ns = Math.round(native.now() * 1e6);
        let s = Math.floor(ns / 1e9), n = ns % 1e9;
        if (prev) { s -= prev[0]; n -= prev[1]; if (n < 0) { s--; n += 1e9; } }
        return [s, n];
      }, { bigint: () => BigInt(Math.round(native.now() * 1e6)) }),
      memoryUsage: () => ({ rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 }),
      stdout: { write: (s) => { native.write(1, typeof s === 'string' ? s : BufferClass && s instanceof BufferClass ? s.toString() : String(s)); return true; }, isTTY: false },
      stderr: { write: (s) => { native.write(2, typeof s === 'string' ? s : BufferClass && s instanceof BufferClass ? s.toString() : String(s)); return true; }, isTTY: false },
      on: () => process,
      once: () => process,
      off: () => process,
      emitWarning: (w) => emit(2, 'Warning: ' + (w && w.message ? w.message : String(w))),
    };

    const util = {
      inspect: (v) => formatArg(v),
      format,
      promisify: (fn) => (...args) => new PromiseCtor((resolve, reject) => fn(...args, (err, v) => (err ? reject(err) : resolve(v)))),
      isDeepStrictEqual: (a, b) => {
        try { return JSONStringify(a) === JSONStringify(b); } catch (_) { return false; }
      },
      types: { isPromise: (v) => v instanceof PromiseCtor, isDate: (v) => v instanceof Date, isRegExp: (v) => v instanceof RegExp },
      isArray: ArrayIsArray,
      get TextEncoder() { return getText().TextEncoder; },
      get TextDecoder() { return getText().TextDecoder; },
    };
    util.inspect.custom = Symbol.for('nodejs.util.inspect.custom');

    const modules = {
      fs: getFs(), 'fs/promises': getFs(), path, 'path/posix': path, util, crypto: cryptoModule,
      buffer: { get Buffer() { return getText().Buffer; } }, timers: { setTimeout, setInterval, setImmediate, clearTimeout: clearTimer, clearInterval: clearTimer },
      'timers/promises': { setTimeout: (ms, v) => new PromiseCtor((r) => setTimeout(() => r(v), ms)) },
      process, console, os: { EOL: '\n', platform: () => 'linux', tmpdir: () => '/tmp', homedir: () => WORKDIR, cpus: () => [], hostname: () => 'sandbox' },
    };
    return { path, crypto, cryptoModule, process, util, modules };
