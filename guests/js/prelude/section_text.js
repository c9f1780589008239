// Section 'text' of prelude.js (run on first use): TextEncoder and
// TextDecoder (UTF-8), and the part of Node's Buffer scripts use most.
// The conversions themselves are natives (text.c).
    function bytesOf(v) {
      if (v === undefined) return new Uint8Array(0);
      if (v instanceof Uint8Array) return v;
      if (v instanceof ArrayBuffer) return new Uint8Array(v);
      if (isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
      throw new TypeError('The "input" argument must be an instance of ArrayBuffer or ArrayBufferView');
    }
    function encodingName(e) {
      if (e === undefined || e === null) return 'utf8';
      const n = String(e).toLowerCase();
      switch (n) {
        case 'utf8': case 'utf-8': return 'utf8';
        case 'hex': case 'base64': case 'base64url': return n;
        case 'latin1': case 'binary': case 'ascii': return 'latin1';
        case 'ucs2': case 'ucs-2': case 'utf16le': case 'utf-16le':
          throw new TypeError('Unknown encoding: ' + e + ' (the sandbox supports utf8, hex, base64, base64url, latin1)');
      }
      throw new TypeError('Unknown encoding: ' + e);
    }

    class TextEncoder {
      get encoding() { return 'utf-8'; }
      encode(input = '') { return native.utf8Encode(String(input)); }
      encodeInto(src, dest) {
        const bytes = native.utf8Encode(String(src));
        // Stop at a whole character that still fits.
        let n = Math.min(bytes.length, dest.length);
        while (n > 0 && n < bytes.length && (bytes[n] & 0xc0) === 0x80) n--;
        dest.set(bytes.subarray(0, n));
        const read = native.utf8Decode(bytes.subarray(0, n), false).length;
        return { read, written: n };
      }
    }

    class TextDecoder {
      #fatal;
      #ignoreBOM;
      constructor(label = 'utf-8', options = {}) {
        const l = String(label).toLowerCase();
        if (l !== 'utf-8' && l !== 'utf8' && l !== 'unicode-1-1-utf-8') {
          throw new RangeError('The "' + label + '" encoding is not supported (only utf-8 is)');
        }
        this.#fatal = !!(options && options.fatal);
        this.#ignoreBOM = !!(options && options.ignoreBOM);
      }
      get encoding() { return 'utf-8'; }
      get fatal() { return this.#fatal; }
      get ignoreBOM() { return this.#ignoreBOM; }
      decode(input) {
        let b = bytesOf(input);
        if (!this.#ignoreBOM && b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) b = b.subarray(3);
        return native.utf8Decode(b, this.#fatal);
      }
    }

    class Buffer extends Uint8Array {
      static from(value, encodingOrOffset, length) {
        if (typeof value === 'string') return toBuffer(native.decode(value, encodingName(encodingOrOffset)));
        if (value instanceof ArrayBuffer) {
          const off = encodingOrOffset || 0;
          return new Buffer(value, off, length === undefined ? value.byteLength - off : length);
        }
        if (isView(value)) return toBuffer(new Uint8Array(new Uint8Array(value.buffer, value.byteOffset, value.byteLength)));
        if (value && value.type === 'Buffer' && ArrayIsArray(value.data)) return toBuffer(Uint8Array.from(value.data));
        if (value !== null && typeof value === 'object') return toBuffer(Uint8Array.from(value));
        throw new TypeError('The first argument must be of type string or an instance of Buffer, ArrayBuffer, or Array or an Array-like Object.');
      }
      static alloc(size, fill, encoding) {
        const b = new Buffer(size);
        if (fill !== undefined) b.fill(typeof fill === 'string' ? Buffer.from(fill, encoding)[0] : fill);
        return b;
      }
      static allocUnsafe(size) { return new Buffer(size); }
      static isBuffer(b) { return b instanceof Buffer; }
      static isEncoding(e) {
        return ['utf8', 'utf-8', 'hex', 'base64', 'base64url', 'latin1', 'binary', 'ascii'].includes(String(e).toLowerCase());
      }
      static byteLength(v, encoding) {
        if (typeof v !== 'string') return v.byteLength;
        return native.decode(v, encodingName(encoding)).length;
      }
      static concat(list, totalLength) {
        const total = totalLength === undefined ? list.reduce((n, b) => n + b.length, 0) : totalLength;
        const out = Buffer.alloc(total);
        let off = 0;
        for (const b of list) {
          if (off >= total) break;
          out.set(b.subarray(0, total - off), off);
          off += b.length;
        }
        return out;
      }
      static compare(a, b) { return a.compare(b); }
      toString(encoding, start = 0, end = this.length) {
        return native.encode(Uint8Array.prototype.subarray.call(this, start, end), encodingName(encoding));
      }
      toJSON() { return { type: 'Buffer', data: ArrayFrom(this) }; }
      equals(other) { return this.compare(other) === 0; }
      compare(other) {
        const n = Math.min(this.length, other.length);
        for (let i = 0; i < n; i++) if (this[i] !== other[i]) return this[i] < other[i] ? -1 : 1;
        return this.length === other.length ? 0 : this.length < other.length ? -1 : 1;
      }
      write(string, offset = 0, encoding) {
        const bytes = native.decode(string, encodingName(encoding));
        const n = Math.min(bytes.length, this.length - offset);
        this.set(bytes.subarray(0, n), offset);
        return n;
      }
      slice(start, end) { return this.subarray(start, end); }
      subarray(start, end) {
        const u = Uint8Array.prototype.subarray.call(this, start, end);
        return new Buffer(u.buffer, u.byteOffset, u.length);
      }
      readUInt8(o = 0) { return this[o]; }
      toLocaleString(encoding) { return this.toString(encoding); }
    }
    function toBuffer(u8) { return new Buffer(u8.buffer, u8.byteOffset, u8.length); }
    return { TextEncoder, TextDecoder, Buffer, toBuffer };
