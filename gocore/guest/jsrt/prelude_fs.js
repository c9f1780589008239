// Section 'fs' of prelude.js, compiled on first use (see section() there):
// the body of a function evaluated in the prelude's scope.
    const nfs = native.fs;
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
      const list = (dir, rel) => {
        const out = [];
        for (const e of nfs.readdir(dir, true)) {
          const [name, isFile, isDir, isLink] = e;
          const relName = rel ? joinPath(rel, name) : name;
          out.push(opts.withFileTypes ? new Dirent(name, dir, [isFile, isDir, isLink]) : relName);
          if (opts.recursive && isDir) out.push(...list(joinPath(dir, name), relName));
        }
        return out;
      };
      if (!opts.recursive && !opts.withFileTypes) return nfs.readdir(path, false);
      return list(path, '');
    }

    function stat(path) {
      const s = nfs.stat(path);
      const t = new Date(s.mtimeMs);
      s.atimeMs = s.ctimeMs = s.birthtimeMs = s.mtimeMs;
      s.mtime = t;
      s.atime = new Date(s.mtimeMs);
      s.ctime = new Date(s.mtimeMs);
      s.birthtime = new Date(s.mtimeMs);
      return s;
    }

    const fsImpl = {
      readFile: (path, options) => nfs.readFile(path, options),
      writeFile: (path, data, options) => nfs.writeFile(path, data, options),
      appendFile: (path, data, options) => nfs.appendFile(path, data, options),
      mkdir: (path, options) => nfs.mkdir(path, !!(options && options.recursive)),
      readdir,
      stat,
      lstat: stat,
      exists: (path) => nfs.exists(path),
      access: (path) => { nfs.stat(path); },
      unlink: (path) => nfs.unlink(path),
      rm: (path, options) => nfs.rm(path, !!(options && options.recursive), !!(options && options.force)),
      rmdir: (path, options) => nfs.rmdir(path, !!(options && options.recursive)),
      rename: (from, to) => nfs.rename(from, to),
      copyFile: (from, to) => nfs.copyFile(from, to),
      cp: (from, to) => nfs.copyFile(from, to),
      realpath: (path) => nfs.realpath(path),
    };
    const syncHints = {
      readFile: 'path', writeFile: 'path, data', appendFile: 'path, data', mkdir: 'path, { recursive: true }',
      readdir: 'path', stat: 'path', lstat: 'path', exists: 'path', access: 'path', unlink: 'path', rm: 'path',
      rmdir: 'path', rename: 'oldPath, newPath', copyFile: 'src, dest', cp: 'src, dest', realpath: 'path',
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
      fs[name + 'Sync'] = named(name + 'Sync', function () {
        throw new ErrorCtor('fs.' + name + 'Sync is not available: use await fs.' + name + '(' + syncHints[name] + ')');
      });
    }
    define(fs, 'promises', fs);
    fs.constants = { F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1 };
    return fs;
