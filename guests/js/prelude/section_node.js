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
    // Hashes and HMACs: the digests are computed in C (hash.c); a hash's
    // running state is a Uint8Array the natives update in place.
    const hashNames = { md5: 'md5', sha1: 'sha1', sha256: 'sha256', sha512: 'sha512' };
    const hashBlock = { md5: 64, sha1: 64, sha256: 64, sha512: 128 };
    function hashAlgorithm(name) {
      const key = typeof name === 'string' ? name.toLowerCase().replace(/^rsa-/, '').replace('-', '') : '';
      if (!Object.prototype.hasOwnProperty.call(hashNames, key)) {
        if (typeof name !== 'string') {
          throw new TypeError('The "algorithm" argument must be of type string. Received ' + formatArg(name));
        }
        const e = new ErrorCtor('Digest method not supported: ' + JSONStringify(name) + ' (the sandbox has md5, sha1, sha256, sha512)');
        e.code = 'ERR_CRYPTO_INVALID_DIGEST';
        throw e;
      }
      return hashNames[key];
    }
    // hashInput is the bytes update() hashes: a string in inputEncoding
    // (UTF-8 by default) or the bytes of a Buffer, TypedArray or DataView.
    function hashInput(data, inputEncoding) {
      if (typeof data === 'string') {
        const enc = inputEncoding === undefined || inputEncoding === null ? 'utf8' : String(inputEncoding).toLowerCase();
        switch (enc) {
          case 'utf8': case 'utf-8': return native.utf8Encode(data);
          case 'hex': case 'base64': case 'base64url': return native.decode(data, enc);
          case 'latin1': case 'binary': case 'ascii': return native.decode(data, 'latin1');
        }
        throw new TypeError('Unknown encoding: ' + inputEncoding);
      }
      if (data instanceof ArrayBuffer) return new Uint8Array(data);
      if (isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      const e = new TypeError('The "data" argument must be of type string or an instance of Buffer, TypedArray, or DataView. Received ' +
        (data === null ? 'null' : data === undefined ? 'undefined' : typeof data === 'object' ? 'an instance of ' + ((data.constructor && data.constructor.name) || 'Object') : 'type ' + typeof data + ' (' + formatArg(data) + ')'));
      e.code = 'ERR_INVALID_ARG_TYPE';
      throw e;
    }
    function digestOutput(bytes, encoding) {
      if (encoding === undefined || encoding === 'buffer') return getText().toBuffer(bytes);
      const enc = String(encoding).toLowerCase();
      switch (enc) {
        case 'hex': case 'base64': case 'base64url': return native.encode(bytes, enc);
        case 'latin1': case 'binary': return native.encode(bytes, 'latin1');
      }
      throw new TypeError('Unknown encoding: ' + encoding + ' (digest gives hex, base64, base64url, latin1, or a Buffer)');
    }
    function finalized() {
      const e = new ErrorCtor('Digest already called');
      e.code = 'ERR_CRYPTO_HASH_FINALIZED';
      return e;
    }
    class Hash {
      #state;
      #done = false;
      constructor(algorithm, state) {
        this.#state = state || native.hashInit(hashAlgorithm(algorithm));
      }
      update(data, inputEncoding) {
        if (this.#done) throw finalized();
        native.hashUpdate(this.#state, hashInput(data, inputEncoding));
        return this;
      }
      digest(encoding) {
        if (this.#done) throw finalized();
        this.#done = true;
        return digestOutput(native.hashFinal(this.#state), encoding);
      }
      copy() {
        if (this.#done) throw finalized();
        return new Hash(undefined, this.#state.slice());
      }
    }
    class Hmac {
      #inner;
      #outer;
      #done = false;
      constructor(algorithm, key) {
        const alg = hashAlgorithm(algorithm);
        let k = key !== null && typeof key === 'object' && !isView(key) && !(key instanceof ArrayBuffer) && key.type === 'secret' && key.export
          ? new Uint8Array(key.export()) : hashInput(key, 'utf8');
        const block = hashBlock[alg];
        if (k.length > block) {
          const st = native.hashInit(alg);
          native.hashUpdate(st, k);
          k = native.hashFinal(st);
        }
        const ipad = new Uint8Array(block).fill(0x36);
        const opad = new Uint8Array(block).fill(0x5c);
        for (let i = 0; i < k.length; i++) {
          ipad[i] ^= k[i];
          opad[i] ^= k[i];
        }
        this.#inner = native.hashInit(alg);
        native.hashUpdate(this.#inner, ipad);
        this.#outer = native.hashInit(alg);
        native.hashUpdate(this.#outer, opad);
      }
      update(data, inputEncoding) {
        if (this.#done) throw finalized();
        native.hashUpdate(this.#inner, hashInput(data, inputEncoding));
        return this;
      }
      digest(encoding) {
        if (this.#done) throw finalized();
        this.#done = true;
        native.hashUpdate(this.#outer, native.hashFinal(this.#inner));
        return digestOutput(native.hashFinal(this.#outer), encoding);
      }
    }
    const randomBytes = named('randomBytes', function (n, cb) {
      if (!Number.isInteger(n) || n < 0 || n > 2147483647) {
        throw new RangeError('The value of "size" is out of range. It must be >= 0 && <= 2147483647. Received ' + formatArg(n));
      }
      const b = getText().toBuffer(native.randomFill(new Uint8Array(n)));
      if (typeof cb === 'function') {
        queueMicrotask(() => cb(null, b));
        return undefined;
      }
      return b;
    });
    const cryptoModule = Object.assign({}, crypto, {
      createHash: named('createHash', (algorithm) => new Hash(algorithm)),
      createHmac: named('createHmac', (algorithm, key) => new Hmac(algorithm, key)),
      hash: named('hash', (algorithm, data, outputEncoding = 'hex') => new Hash(algorithm).update(data).digest(outputEncoding)),
      getHashes: () => ['md5', 'sha1', 'sha256', 'sha512'],
      timingSafeEqual: named('timingSafeEqual', function (a, b) {
        const x = hashInput(a), y = hashInput(b);
        if (x.length !== y.length) throw new RangeError('Input buffers must have the same byte length');
        let d = 0;
        for (let i = 0; i < x.length; i++) d |= x[i] ^ y[i];
        return d === 0;
      }),
      randomBytes,
      randomInt: named('randomInt', function (min, max, cb) {
        if (max === undefined || typeof max === 'function') { cb = max; max = min; min = 0; }
        if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || max <= min) {
          throw new RangeError('The value of "max" is out of range. It must be greater than the value of "min" (' + min + '). Received ' + max);
        }
        const range = max - min;
        const buf = new Uint8Array(6);
        // Rejection sampling over 48 bits keeps every value equally likely.
        const limit = 2 ** 48 - (2 ** 48 % range);
        let x;
        do {
          native.randomFill(buf);
          x = buf.reduce((acc, byte) => acc * 256 + byte, 0);
        } while (x >= limit);
        const v = min + (x % range);
        if (typeof cb === 'function') { queueMicrotask(() => cb(null, v)); return undefined; }
        return v;
      }),
      Hash, Hmac,
      webcrypto: crypto,
    });

    const process = {
      get env() { return runEnv; },
      set env(v) { runEnv = v; },
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
      stdout: { write: (s) => { native.write(1, typeof s === 'string' || s instanceof Uint8Array ? s : String(s)); return true; }, isTTY: false },
      stderr: { write: (s) => { native.write(2, typeof s === 'string' || s instanceof Uint8Array ? s : String(s)); return true; }, isTTY: false },
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
