// Section 'text' of prelude.js, compiled on first use (see section() there):
// the body of a function evaluated in the prelude's scope.
    class TextEncoder {
      get encoding() { return 'utf-8'; }
      encode(input = '') { return native.utf8Encode(String(input)); }
      encodeInto(src, dest) {
        const bytes = native.utf8Encode(String(src));
        // Stop at a whole character that still fits.
        let n = Math.min(bytes.length, dest.length);
        while (n > 0 && n < bytes.length && (bytes[n] & 0xc0) === 0x80) n--;
        dest.set(bytes.subarray(0, n));
        const read = native.utf8Decode(bytes.subarray(0, n), false, true).length;
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
        return native.utf8Decode(input, this.#fatal, this.#ignoreBOM);
      }
    }

    class Buffer extends Uint8Array {
      static from(value, encodingOrOffset, length) {
        if (typeof value === 'string') return toBuffer(native.decode(value, encodingOrOffset));
        if (value instanceof ArrayBuffer) {
          return new Buffer(value, encodingOrOffset || 0, length === undefined ? value.byteLength - (encodingOrOffset || 0) : length);
        }
        if (ArrayBuffer.isView(value)) return toBuffer(new Uint8Array(new Uint8Array(value.buffer, value.byteOffset, value.byteLength)));
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
        return native.decode(v, encoding).length;
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
        return native.encode(this.subarray(start, end), encoding);
      }
      toJSON() { return { type: 'Buffer', data: Array.from(this) }; }
      equals(other) { return this.compare(other) === 0; }
      compare(other) {
        const n = Math.min(this.length, other.length);
        for (let i = 0; i < n; i++) if (this[i] !== other[i]) return this[i] < other[i] ? -1 : 1;
        return this.length === other.length ? 0 : this.length < other.length ? -1 : 1;
      }
      write(string, offset = 0, encoding) {
        const bytes = native.decode(string, encoding);
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
    define(Buffer, 'name', 'Buffer');
    BufferClass = Buffer;
    return { TextEncoder, TextDecoder, Buffer, toBuffer };
