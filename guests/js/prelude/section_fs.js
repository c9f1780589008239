// Section 'fs' of prelude.js (the body of a function in the prelude's
// scope, run the first time a script touches fs): Promise-returning calls
// over the synchronous natives of fs.c (a trailing callback is honoured
// Node-style), and Node's *Sync functions, which call the same natives
// directly: WASI's calls are synchronous, so nothing is emulated.
    const nfs = native.fs;

    // guestPath makes p absolute (relative to /workspace) and normal, so
    // the natives and WASI see one spelling. "" stays "" (ENOENT).
    function guestPath(p, what) {
      if (typeof p !== 'string') {
        if (p instanceof Uint8Array) p = native.utf8Decode(p, false);
        else throw new TypeError('The "' + what + '" argument must be of type string. Received ' + (p === null ? 'null' : typeof p === 'object' ? 'an instance of ' + ((p.constructor && p.constructor.name) || 'Object') : 'type ' + typeof p + ' (' + formatArg(p) + ')'));
      }
      if (p === '') return '';
      const parts = [];
      for (const s of (p.startsWith('/') ? p : WORKDIR + '/' + p).split('/')) {
        if (s === '' || s === '.') continue;
        if (s === '..') parts.pop();
        else parts.push(s);
      }
      return '/' + parts.join('/');
    }

    // call runs a native on normalised paths; its errors name the paths as
    // the script wrote them, as Node's do.
    function call(fn, paths, ...rest) {
      const norm = paths.map((p, i) => guestPath(p, i === 0 ? 'path' : 'dest'));
      try {
        return fn(...norm, ...rest);
      } catch (e) {
        if (e && typeof e.message === 'string') {
          for (let i = 0; i < paths.length; i++) {
            if (norm[i] !== paths[i]) e.message = e.message.split("'" + norm[i] + "'").join("'" + paths[i] + "'");
          }
          if (e.path === norm[0]) e.path = paths[0];
          if (e.dest !== undefined && e.dest === norm[1]) e.dest = paths[1];
        }
        throw e;
      }
    }

    function encodingOf(options) {
      if (options === undefined || options === null) return undefined;
      const e = typeof options === 'object' ? options.encoding : options;
      if (e === undefined) return undefined;
      if (e === null || e === 'buffer') return 'buffer';
      const n = String(e).toLowerCase();
      switch (n) {
        case 'utf8': case 'utf-8': return 'utf8';
        case 'hex': case 'base64': case 'base64url': return n;
        case 'latin1': case 'binary': case 'ascii': return 'latin1';
      }
      throw new TypeError("The argument 'encoding' is invalid encoding. Received '" + e + "'");
    }

    // dataBytes is what writeFile writes: a string (UTF-8 unless another
    // encoding is given) or the bytes of an ArrayBuffer or view. Numbers
    // and booleans are written as their text; other objects are a
    // TypeError (writing "[object Object]" is never what was meant).
    function dataOf(data, enc) {
      if (typeof data === 'string') return enc === undefined || enc === 'utf8' || enc === 'buffer' ? data : native.decode(data, enc);
      if (data instanceof ArrayBuffer) return new Uint8Array(data);
      if (isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      if (typeof data === 'number' || typeof data === 'boolean' || typeof data === 'bigint') return String(data);
      throw new TypeError('The "data" argument must be of type string or an instance of Buffer, TypedArray, or DataView. Received ' +
        (data === null ? 'null' : data === undefined ? 'undefined' : 'an instance of ' + ((data.constructor && data.constructor.name) || 'Object')));
    }

    function readFile(path, options) {
      const bytes = call(nfs.readFile, [path]);
      const enc = encodingOf(options);
      if (enc === 'buffer') return getText().toBuffer(bytes);
      return native.encode(bytes, enc || 'utf8');
    }

    class Dirent {
      #kind;
      constructor(name, dir, kind) {
        this.name = name;
        this.parentPath = dir;
        this.path = dir;
        this.#kind = kind;
      }
      isFile() { return this.#kind[0]; }
      isDirectory() { return this.#kind[1]; }
      isSymbolicLink() { return this.#kind[2]; }
      isBlockDevice() { return false; }
      isCharacterDevice() { return false; }
      isFIFO() { return false; }
      isSocket() { return false; }
    }
    function joinPath(dir, name) { return dir.endsWith('/') ? dir + name : dir + '/' + name; }

    function readdir(path, options) {
      const opts = typeof options === 'object' && options !== null ? options : {};
      if (!opts.recursive && !opts.withFileTypes) return call(nfs.readdir, [path], false);
      const list = (dir, rel) => {
        const out = [];
        for (const [name, isFile, isDir, isLink] of call(nfs.readdir, [dir], true)) {
          const relName = rel ? joinPath(rel, name) : name;
          out.push(opts.withFileTypes ? new Dirent(name, dir, [isFile, isDir, isLink]) : relName);
          if (opts.recursive && isDir) out.push(...list(joinPath(dir, name), relName));
        }
        return out;
      };
      return list(path, '');
    }

    function stat(path) {
      const s = call(nfs.stat, [path], false);
      s.atimeMs = s.ctimeMs = s.birthtimeMs = s.mtimeMs;
      s.mtime = new Date(s.mtimeMs);
      s.atime = new Date(s.mtimeMs);
      s.ctime = new Date(s.mtimeMs);
      s.birthtime = new Date(s.mtimeMs);
      return s;
    }

    const fsImpl = {
      readFile,
      writeFile: (path, data, options) => { call(nfs.writeFile, [path], dataOf(data, encodingOf(options)), false); },
      appendFile: (path, data, options) => { call(nfs.writeFile, [path], dataOf(data, encodingOf(options)), true); },
      mkdir: (path, options) => { call(nfs.mkdir, [path], !!(options && options.recursive)); },
      readdir,
      stat,
      lstat: stat,
      exists: (path) => typeof path === 'string' && path !== '' && nfs.exists(guestPath(path, 'path')),
      access: (path) => { call(nfs.stat, [path]); },
      unlink: (path) => { call(nfs.unlink, [path]); },
      rm: (path, options) => { call(nfs.rm, [path], !!(options && options.recursive), !!(options && options.force)); },
      rmdir: (path, options) => { call(nfs.rmdir, [path], !!(options && options.recursive)); },
      rename: (from, to) => { call(nfs.rename, [from, to]); },
      // Refused by the host (EPERM): a sandbox holds no links.
      symlink: (target, path) => { call(nfs.symlink, [target, path]); },
      link: (from, to) => { call(nfs.link, [from, to]); },
      copyFile: (from, to) => { call(nfs.copyFile, [from, to]); },
      cp: (from, to) => { call(nfs.copyFile, [from, to]); },
      realpath: (path) => call(nfs.realpath, [path]),
    };
    // Stats is what statSync and lstatSync return: Node's methods
    // (isFile(), isDirectory(), ...) over the native's fields. The async
    // stat keeps the sandbox's documented shape (isFile, isDirectory as
    // booleans).
    class Stats {
      #kind;
      constructor(s) {
        this.#kind = [s.isFile, s.isDirectory, s.isSymbolicLink];
        this.dev = 0;
        this.mode = s.mode;
        this.nlink = 1;
        this.uid = 0;
        this.gid = 0;
        this.rdev = 0;
        this.blksize = 4096;
        this.ino = 0;
        this.size = s.size;
        this.blocks = Math.ceil(s.size / 512);
        this.atimeMs = this.mtimeMs = this.ctimeMs = this.birthtimeMs = s.mtimeMs;
        this.atime = new Date(s.mtimeMs);
        this.mtime = new Date(s.mtimeMs);
        this.ctime = new Date(s.mtimeMs);
        this.birthtime = new Date(s.mtimeMs);
      }
      isFile() { return this.#kind[0]; }
      isDirectory() { return this.#kind[1]; }
      isSymbolicLink() { return this.#kind[2]; }
      isBlockDevice() { return false; }
      isCharacterDevice() { return false; }
      isFIFO() { return false; }
      isSocket() { return false; }
    }
    function statSync(path, options, noFollow) {
      try {
        return new Stats(call(nfs.stat, [path], !!noFollow));
      } catch (e) {
        if (options && options.throwIfNoEntry === false && e && e.code === 'ENOENT') return undefined;
        throw e;
      }
    }
    // mkdirSync returns what Node's does: with recursive, the first
    // directory it created (undefined when there was none to create).
    function mkdirSync(path, options) {
      const recursive = !!(options && (options === true || options.recursive));
      if (!recursive) {
        call(nfs.mkdir, [path], false);
        return undefined;
      }
      let first;
      let p = guestPath(path, 'path');
      while (p !== '/' && p !== '' && !nfs.exists(p)) {
        first = p;
        p = p.slice(0, p.lastIndexOf('/')) || '/';
      }
      call(nfs.mkdir, [path], true);
      return first;
    }
    const syncImpl = {
      // Node's readFileSync gives a Buffer unless an encoding is named.
      readFileSync: (path, options) => {
        const bytes = call(nfs.readFile, [path]);
        const enc = encodingOf(options);
        if (enc === undefined || enc === 'buffer') return getText().toBuffer(bytes);
        return native.encode(bytes, enc);
      },
      writeFileSync: fsImpl.writeFile,
      appendFileSync: fsImpl.appendFile,
      mkdirSync,
      readdirSync: fsImpl.readdir,
      statSync: (path, options) => statSync(path, options, false),
      lstatSync: (path, options) => statSync(path, options, true),
      existsSync: (path) => {
        try {
          return fsImpl.exists(path);
        } catch (_) {
          return false;
        }
      },
      accessSync: fsImpl.access,
      unlinkSync: fsImpl.unlink,
      rmSync: fsImpl.rm,
      rmdirSync: fsImpl.rmdir,
      renameSync: fsImpl.rename,
      symlinkSync: fsImpl.symlink,
      linkSync: fsImpl.link,
      copyFileSync: fsImpl.copyFile,
      cpSync: fsImpl.cp,
      realpathSync: fsImpl.realpath,
    };

    const fs = {};
    for (const name of ObjectKeys(fsImpl)) {
      const impl = fsImpl[name];
      fs[name] = named(name, function (...args) {
        let cb;
        if (args.length && typeof args[args.length - 1] === 'function') cb = args.pop();
        let p;
        try {
          p = PromiseResolve(impl(...args));
        } catch (e) {
          p = PromiseReject(e);
        }
        if (!cb) return p;
        p.then((v) => (name === 'exists' ? cb(v) : cb(null, v)), (e) => cb(e));
        return undefined;
      });
    }
    for (const name of ObjectKeys(syncImpl)) fs[name] = named(name, syncImpl[name]);
    fs.Stats = Stats;
    fs.Dirent = Dirent;
    define(fs, 'promises', fs);
    fs.constants = { F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1 };
    return fs;
