// Section 'web' of prelude.js (run on first use of any of its globals):
// the web platform pieces scripts written for Node or browsers expect and
// QuickJS-NG lacks: URL and URLSearchParams (the WHATWG URL Standard),
// Event, EventTarget, AbortController and AbortSignal, Headers, Request,
// Response and fetch (the Fetch Standard as Node has it, with whole
// bodies instead of streams). docs/javascript.md says what is left out.
//
// fetch hands every HTTP request to http() below, the one place a request
// leaves the guest; it follows redirects itself, so the host never does.
    const hasOwn = Object.prototype.hasOwnProperty;
    const INTERNAL = {}; // the key of constructors scripts may not call

    // ---------------------------------------------------------------
    // Percent-encoding (URL Standard §1.3) and UTF-8 helpers.
    // ---------------------------------------------------------------

    const HEX = '0123456789ABCDEF';
    // The percent-encode sets, as predicates on an ASCII code; every
    // non-ASCII code point is in all of them.
    const C0_SET = (c) => c < 0x20 || c === 0x7f;
    const FRAGMENT_SET = (c) => C0_SET(c) || c === 0x20 || c === 0x22 || c === 0x3c || c === 0x3e || c === 0x60;
    const QUERY_SET = (c) => C0_SET(c) || c === 0x20 || c === 0x22 || c === 0x23 || c === 0x3c || c === 0x3e;
    const SPECIAL_QUERY_SET = (c) => QUERY_SET(c) || c === 0x27;
    const PATH_SET = (c) => QUERY_SET(c) || c === 0x3f || c === 0x60 || c === 0x7b || c === 0x7d;
    const USERINFO_SET = (c) => PATH_SET(c) || c === 0x2f || c === 0x3a || c === 0x3b || c === 0x3d || c === 0x40 ||
      (c >= 0x5b && c <= 0x5e) || c === 0x7c;

    function utf8(s) { return native.utf8Encode(s); }
    function pctByte(b) { return '%' + HEX[b >> 4] + HEX[b & 15]; }
    // pctEncode encodes the code points of s that are in set (non-ASCII
    // ones as their UTF-8 bytes; a lone surrogate as U+FFFD's).
    function pctEncode(s, set) {
      let out = '';
      for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c < 0x80) {
          out += set(c) ? pctByte(c) : s[i];
          continue;
        }
        let j = i + 1;
        while (j < s.length && s.charCodeAt(j) >= 0x80) j++;
        for (const b of utf8(s.slice(i, j))) out += pctByte(b);
        i = j - 1;
      }
      return out;
    }
    // pctDecode turns %XX escapes of s into bytes (other characters as
    // their UTF-8) and decodes the whole as UTF-8.
    function pctDecode(s) {
      if (!s.includes('%')) return s;
      const bytes = utf8(s);
      const out = new Uint8Array(bytes.length);
      let n = 0;
      for (let i = 0; i < bytes.length; i++) {
        const b = bytes[i];
        if (b === 0x25 && i + 2 < bytes.length && isHexByte(bytes[i + 1]) && isHexByte(bytes[i + 2])) {
          out[n++] = parseInt(String.fromCharCode(bytes[i + 1], bytes[i + 2]), 16);
          i += 2;
        } else {
          out[n++] = b;
        }
      }
      return native.utf8Decode(out.subarray(0, n), false);
    }
    function isHexByte(b) { return (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66); }

    // ---------------------------------------------------------------
    // The URL parser (URL Standard §4.4, "basic URL parser"). A URL record
    // is { scheme, username, password, host, port, path, opaque, query,
    // fragment }: host is the serialised host or null, path an array of
    // segments (or a string when opaque), query and fragment null or text.
    // Left out: UTS 46's full mapping and validity checks (domainToASCII).
    // ---------------------------------------------------------------

    const DEFAULT_PORTS = { ftp: 21, file: null, http: 80, https: 443, ws: 80, wss: 443 };
    const isSpecialScheme = (s) => hasOwn.call(DEFAULT_PORTS, s);
    const ALPHA = /^[A-Za-z]$/;
    const SCHEME_CHAR = /^[A-Za-z0-9+\-.]$/;
    const DIGIT = /^[0-9]$/;

    function isWindowsDriveLetter(s, normalized) {
      return s.length === 2 && ALPHA.test(s[0]) && (s[1] === ':' || (!normalized && s[1] === '|'));
    }
    function startsWithDriveLetter(cs, p) {
      if (cs.length - p < 2 || !isWindowsDriveLetter(cs[p] + cs[p + 1], false)) return false;
      if (cs.length - p === 2) return true;
      const c = cs[p + 2];
      return c === '/' || c === '\\' || c === '?' || c === '#';
    }
    function shortenPath(u) {
      if (u.scheme === 'file' && u.path.length === 1 && isWindowsDriveLetter(u.path[0], true)) return;
      u.path.pop();
    }
    const isSingleDot = (s) => s === '.' || s.toLowerCase() === '%2e';
    const isDoubleDot = (s) => {
      const l = s.toLowerCase();
      return l === '..' || l === '.%2e' || l === '%2e.' || l === '%2e%2e';
    };

    function basicParse(input, base, given, pathOnly) {
      let url = given;
      if (url === undefined) {
        url = { scheme: '', username: '', password: '', host: null, port: null, path: [], opaque: false, query: null, fragment: null };
        input = input.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
      }
      const cs = ArrayFrom(input.replace(/[\t\n\r]/g, ''));
      const special = () => isSpecialScheme(url.scheme);
      const endsHost = (c) => c === undefined || c === '/' || c === '?' || c === '#' || (c === '\\' && special());
      let state = pathOnly ? 'pathStart' : 'schemeStart';
      let buf = '';
      let atSign = false;
      let brackets = false;
      let passwordToken = false;
      for (let p = 0; p <= cs.length; p++) {
        const c = cs[p];
        switch (state) {
          case 'schemeStart':
            if (c !== undefined && ALPHA.test(c)) { buf += c.toLowerCase(); state = 'scheme'; } else { state = 'noScheme'; p--; }
            break;
          case 'scheme':
            if (c !== undefined && SCHEME_CHAR.test(c)) {
              buf += c.toLowerCase();
            } else if (c === ':') {
              url.scheme = buf;
              buf = '';
              if (url.scheme === 'file') state = 'file';
              else if (special() && base && base.scheme === url.scheme) state = 'specialRelativeOrAuthority';
              else if (special()) state = 'specialAuthoritySlashes';
              else if (cs[p + 1] === '/') { state = 'pathOrAuthority'; p++; }
              else { url.opaque = true; url.path = ''; state = 'opaquePath'; }
            } else {
              buf = '';
              state = 'noScheme';
              p = -1;
            }
            break;
          case 'noScheme':
            if (!base || (base.opaque && c !== '#')) return null;
            if (base.opaque) {
              url.scheme = base.scheme; url.path = base.path; url.opaque = true; url.query = base.query;
              url.fragment = '';
              state = 'fragment';
            } else {
              state = base.scheme === 'file' ? 'file' : 'relative';
              p--;
            }
            break;
          case 'specialRelativeOrAuthority':
            if (c === '/' && cs[p + 1] === '/') { state = 'specialAuthorityIgnoreSlashes'; p++; } else { state = 'relative'; p--; }
            break;
          case 'pathOrAuthority':
            if (c === '/') state = 'authority'; else { state = 'path'; p--; }
            break;
          case 'relative':
            url.scheme = base.scheme;
            if (c === '/' || (c === '\\' && special())) {
              state = 'relativeSlash';
            } else {
              url.username = base.username; url.password = base.password; url.host = base.host; url.port = base.port;
              url.path = base.path.slice(); url.query = base.query;
              if (c === '?') { url.query = ''; state = 'query'; }
              else if (c === '#') { url.fragment = ''; state = 'fragment'; }
              else if (c !== undefined) { url.query = null; shortenPath(url); state = 'path'; p--; }
            }
            break;
          case 'relativeSlash':
            if (special() && (c === '/' || c === '\\')) state = 'specialAuthorityIgnoreSlashes';
            else if (c === '/') state = 'authority';
            else {
              url.username = base.username; url.password = base.password; url.host = base.host; url.port = base.port;
              state = 'path';
              p--;
            }
            break;
          case 'specialAuthoritySlashes':
            state = 'specialAuthorityIgnoreSlashes';
            if (c === '/' && cs[p + 1] === '/') p++; else p--;
            break;
          case 'specialAuthorityIgnoreSlashes':
            if (c !== '/' && c !== '\\') { state = 'authority'; p--; }
            break;
          case 'authority':
            if (c === '@') {
              if (atSign) buf = '%40' + buf;
              atSign = true;
              for (const ch of buf) {
                if (ch === ':' && !passwordToken) { passwordToken = true; continue; }
                const enc = pctEncode(ch, USERINFO_SET);
                if (passwordToken) url.password += enc; else url.username += enc;
              }
              buf = '';
            } else if (endsHost(c)) {
              if (atSign && buf === '') return null;
              p -= ArrayFrom(buf).length + 1;
              buf = '';
              state = 'host';
            } else {
              buf += c;
            }
            break;
          case 'host':
            if (c === ':' && !brackets) {
              if (buf === '') return null;
              const h = parseHost(buf, !special());
              if (h === null) return null;
              url.host = h; buf = ''; state = 'port';
            } else if (endsHost(c)) {
              p--;
              if (special() && buf === '') return null;
              const h = parseHost(buf, !special());
              if (h === null) return null;
              url.host = h; buf = ''; state = 'pathStart';
            } else {
              if (c === '[') brackets = true;
              if (c === ']') brackets = false;
              buf += c;
            }
            break;
          case 'port':
            if (c !== undefined && DIGIT.test(c)) {
              buf += c;
            } else if (endsHost(c)) {
              if (buf !== '') {
                const port = parseInt(buf, 10);
                if (port > 65535) return null;
                url.port = DEFAULT_PORTS[url.scheme] === port ? null : port;
                buf = '';
              }
              state = 'pathStart';
              p--;
            } else {
              return null;
            }
            break;
          case 'file':
            url.scheme = 'file';
            url.host = '';
            if (c === '/' || c === '\\') {
              state = 'fileSlash';
            } else if (base && base.scheme === 'file') {
              url.host = base.host; url.path = base.path.slice(); url.query = base.query;
              if (c === '?') { url.query = ''; state = 'query'; }
              else if (c === '#') { url.fragment = ''; state = 'fragment'; }
              else if (c !== undefined) {
                url.query = null;
                if (!startsWithDriveLetter(cs, p)) shortenPath(url); else url.path = [];
                state = 'path';
                p--;
              }
            } else {
              state = 'path';
              p--;
            }
            break;
          case 'fileSlash':
            if (c === '/' || c === '\\') {
              state = 'fileHost';
            } else {
              if (base && base.scheme === 'file') {
                url.host = base.host;
                if (!startsWithDriveLetter(cs, p) && base.path.length && isWindowsDriveLetter(base.path[0], true)) url.path.push(base.path[0]);
              }
              state = 'path';
              p--;
            }
            break;
          case 'fileHost':
            if (c === undefined || c === '/' || c === '\\' || c === '?' || c === '#') {
              p--;
              if (isWindowsDriveLetter(buf, false)) {
                state = 'path'; // the buffer becomes the first segment
              } else if (buf === '') {
                url.host = ''; state = 'pathStart';
              } else {
                let h = parseHost(buf, false);
                if (h === null) return null;
                if (h === 'localhost') h = '';
                url.host = h; buf = ''; state = 'pathStart';
              }
            } else {
              buf += c;
            }
            break;
          case 'pathStart':
            if (special()) {
              state = 'path';
              if (c !== '/' && c !== '\\') p--;
            } else if (!pathOnly && c === '?') {
              url.query = ''; state = 'query';
            } else if (!pathOnly && c === '#') {
              url.fragment = ''; state = 'fragment';
            } else if (c !== undefined) {
              state = 'path';
              if (c !== '/') p--;
            } else if (pathOnly && url.host === null) {
              url.path.push('');
            }
            break;
          case 'path':
            if (c === undefined || c === '/' || (c === '\\' && special()) || (!pathOnly && (c === '?' || c === '#'))) {
              const slash = c === '/' || (c === '\\' && special());
              if (isDoubleDot(buf)) {
                shortenPath(url);
                if (!slash) url.path.push('');
              } else if (isSingleDot(buf)) {
                if (!slash) url.path.push('');
              } else {
                if (url.scheme === 'file' && url.path.length === 0 && isWindowsDriveLetter(buf, false)) buf = buf[0] + ':';
                url.path.push(buf);
              }
              buf = '';
              if (c === '?') { url.query = ''; state = 'query'; }
              if (c === '#') { url.fragment = ''; state = 'fragment'; }
            } else {
              buf += pctEncode(c, PATH_SET);
            }
            break;
          case 'opaquePath':
            if (c === '?') { url.query = ''; state = 'query'; }
            else if (c === '#') { url.fragment = ''; state = 'fragment'; }
            else if (c !== undefined) url.path += pctEncode(c, C0_SET);
            break;
          case 'query':
            if (c === '#' || c === undefined) {
              url.query += pctEncode(buf, special() ? SPECIAL_QUERY_SET : QUERY_SET);
              buf = '';
              if (c === '#') { url.fragment = ''; state = 'fragment'; }
            } else {
              buf += c;
            }
            break;
          case 'fragment':
            if (c !== undefined) url.fragment += pctEncode(c, FRAGMENT_SET);
            break;
        }
      }
      return url;
    }

    // parseHost returns a host's serialisation, or null when it is not one.
    function parseHost(input, opaque) {
      if (input[0] === '[') {
        if (input[input.length - 1] !== ']') return null;
        const a = parseIPv6(input.slice(1, -1));
        return a === null ? null : '[' + serializeIPv6(a) + ']';
      }
      if (opaque) {
        if (/[\u0000\t\n\r #/:<>?@[\\\]^|]/.test(input)) return null;
        return pctEncode(input, C0_SET);
      }
      const ascii = domainToASCII(pctDecode(input));
      if (ascii === '' || /[\u0000-\u0020#%/:<>?@[\\\]^|\u007f]/.test(ascii)) return null;
      if (endsInNumber(ascii)) {
        const v4 = parseIPv4(ascii);
        if (v4 === null) return null;
        const parts = [];
        for (let n = v4, i = 0; i < 4; i++, n = Math.floor(n / 256)) parts.unshift(n % 256);
        return parts.join('.');
      }
      return ascii;
    }
    // domainToASCII lower-cases a domain and turns its non-ASCII labels
    // into Punycode (xn--). It approximates UTS 46's mapping with NFKC and
    // lower-casing and does not check the labels' validity (the Bidi and
    // joiner rules): what it gets wrong is a name that does not resolve.
    function domainToASCII(domain) {
      if (!/[^\u0000-\u007f]/.test(domain)) return domain.toLowerCase();
      const mapped = domain.replace(/\u00ad/g, '').normalize('NFKC').toLowerCase().replace(/[\u3002\uff0e\uff61]/g, '.');
      return mapped.split('.').map((l) => (/[^\u0000-\u007f]/.test(l) ? 'xn--' + punycode(l) : l)).join('.');
    }
    // punycode is RFC 3492's encoding of one label.
    function punycode(label) {
      const cps = ArrayFrom(label, (c) => c.codePointAt(0));
      const digit = (d) => String.fromCharCode(d < 26 ? 97 + d : 22 + d);
      const adapt = (d, points, first) => {
        d = first ? Math.floor(d / 700) : d >> 1;
        d += Math.floor(d / points);
        let k = 0;
        while (d > 455) { d = Math.floor(d / 35); k += 36; }
        return k + Math.floor((36 * d) / (d + 38));
      };
      let out = '';
      for (const c of cps) if (c < 0x80) out += String.fromCharCode(c);
      const basic = out.length;
      if (basic > 0) out += '-';
      let n = 0x80;
      let delta = 0;
      let bias = 72;
      for (let h = basic; h < cps.length;) {
        let m = Infinity;
        for (const c of cps) if (c >= n && c < m) m = c;
        delta += (m - n) * (h + 1);
        n = m;
        for (const c of cps) {
          if (c < n) delta++;
          if (c !== n) continue;
          let q = delta;
          for (let k = 36; ; k += 36) {
            const t = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;
            if (q < t) break;
            out += digit(t + ((q - t) % (36 - t)));
            q = Math.floor((q - t) / (36 - t));
          }
          out += digit(q);
          bias = adapt(delta, h + 1, h === basic);
          delta = 0;
          h++;
        }
        delta++;
        n++;
      }
      return out;
    }
    function ipv4Parts(s) {
      const parts = s.split('.');
      if (parts[parts.length - 1] === '' && parts.length > 1) parts.pop();
      return parts;
    }
    function endsInNumber(s) {
      const last = ipv4Parts(s).pop();
      return /^[0-9]+$/.test(last) || /^0[xX][0-9A-Fa-f]*$/.test(last);
    }
    function ipv4Number(s) {
      if (s === '') return NaN;
      if (/^0[xX]/.test(s)) return /^0[xX][0-9A-Fa-f]*$/.test(s) ? (s.length === 2 ? 0 : parseInt(s.slice(2), 16)) : NaN;
      if (s.length > 1 && s[0] === '0') return /^[0-7]+$/.test(s) ? parseInt(s, 8) : NaN;
      return /^[0-9]+$/.test(s) ? parseInt(s, 10) : NaN;
    }
    function parseIPv4(s) {
      const parts = ipv4Parts(s);
      if (parts.length > 4) return null;
      const nums = parts.map(ipv4Number);
      if (nums.some((n) => n !== n)) return null;
      for (let i = 0; i < nums.length - 1; i++) if (nums[i] > 255) return null;
      const last = nums[nums.length - 1];
      if (last >= 256 ** (5 - nums.length)) return null;
      let v = last;
      for (let i = 0; i < nums.length - 1; i++) v += nums[i] * 256 ** (3 - i);
      return v;
    }
    function parseIPv6(s) {
      const a = [0, 0, 0, 0, 0, 0, 0, 0];
      const isHex = (ch) => ch !== undefined && /^[0-9A-Fa-f]$/.test(ch);
      const isDigit = (ch) => ch !== undefined && DIGIT.test(ch);
      let piece = 0;
      let compress = null;
      let p = 0;
      if (s[0] === ':') {
        if (s[1] !== ':') return null;
        p = 2;
        compress = ++piece;
      }
      while (p < s.length) {
        if (piece === 8) return null;
        if (s[p] === ':') {
          if (compress !== null) return null;
          p++;
          compress = ++piece;
          continue;
        }
        let value = 0;
        let length = 0;
        while (length < 4 && isHex(s[p])) { value = value * 16 + parseInt(s[p], 16); p++; length++; }
        if (s[p] === '.') {
          if (length === 0 || piece > 6) return null;
          p -= length;
          let seen = 0;
          while (p < s.length) {
            let v4 = null;
            if (seen > 0) {
              if (s[p] === '.' && seen < 4) p++;
              else return null;
            }
            if (!isDigit(s[p])) return null;
            while (isDigit(s[p])) {
              const n = Number(s[p]);
              if (v4 === null) v4 = n;
              else if (v4 === 0) return null;
              else v4 = v4 * 10 + n;
              if (v4 > 255) return null;
              p++;
            }
            a[piece] = a[piece] * 256 + v4;
            seen++;
            if (seen === 2 || seen === 4) piece++;
          }
          if (seen !== 4) return null;
          break;
        } else if (s[p] === ':') {
          p++;
          if (p >= s.length) return null;
        } else if (p < s.length) {
          return null;
        }
        a[piece++] = value;
      }
      if (compress !== null) {
        let swaps = piece - compress;
        piece = 7;
        while (piece !== 0 && swaps > 0) {
          const t = a[compress + swaps - 1];
          a[compress + swaps - 1] = a[piece];
          a[piece] = t;
          piece--;
          swaps--;
        }
      } else if (piece !== 8) {
        return null;
      }
      return a;
    }
    function serializeIPv6(a) {
      let best = -1;
      let bestLen = 1;
      for (let i = 0; i < 8;) {
        if (a[i] !== 0) { i++; continue; }
        let j = i;
        while (j < 8 && a[j] === 0) j++;
        if (j - i > bestLen) { best = i; bestLen = j - i; }
        i = j;
      }
      let out = '';
      for (let i = 0; i < 8; i++) {
        if (i === best) {
          out += i === 0 ? '::' : ':';
          i += bestLen - 1;
          continue;
        }
        out += a[i].toString(16);
        if (i !== 7) out += ':';
      }
      return out;
    }

    function pathText(u) {
      return u.opaque ? u.path : u.path.map((s) => '/' + s).join('');
    }
    function serializeURL(u, excludeFragment) {
      let out = u.scheme + ':';
      if (u.host !== null) {
        out += '//';
        if (u.username !== '' || u.password !== '') {
          out += u.username;
          if (u.password !== '') out += ':' + u.password;
          out += '@';
        }
        out += u.host;
        if (u.port !== null) out += ':' + u.port;
      } else if (!u.opaque && u.path.length > 1 && u.path[0] === '') {
        out += '/.';
      }
      out += pathText(u);
      if (u.query !== null) out += '?' + u.query;
      if (!excludeFragment && u.fragment !== null) out += '#' + u.fragment;
      return out;
    }
    function originOf(u) {
      if (u.scheme === 'blob' && u.opaque) {
        const inner = basicParse(u.path);
        if (inner && (inner.scheme === 'http' || inner.scheme === 'https')) return originOf(inner);
        return 'null';
      }
      if (!isSpecialScheme(u.scheme) || u.scheme === 'file') return 'null';
      return u.scheme + '://' + u.host + (u.port !== null ? ':' + u.port : '');
    }
    function invalidURL(input, base) {
      const e = new TypeError('Invalid URL');
      e.code = 'ERR_INVALID_URL';
      e.input = input;
      if (base !== undefined) e.base = base;
      return e;
    }
    // parseWithBase parses text against an optional base text; null on failure.
    function parseWithBase(text, base) {
      let b;
      if (base !== undefined) {
        b = basicParse(String(base));
        if (b === null) return null;
      }
      return basicParse(String(text), b);
    }

    // ---------------------------------------------------------------
    // URLSearchParams (URL Standard §6) and URL (§6.1).
    // ---------------------------------------------------------------

    function formDecode(s) {
      return pctDecode(s.includes('+') ? s.replace(/\+/g, ' ') : s);
    }
    function formParse(query) {
      const list = [];
      for (const part of query.split('&')) {
        if (part === '') continue;
        const eq = part.indexOf('=');
        const name = eq < 0 ? part : part.slice(0, eq);
        const value = eq < 0 ? '' : part.slice(eq + 1);
        list.push([formDecode(name), formDecode(value)]);
      }
      return list;
    }
    function formEncode(s) {
      let out = '';
      for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c === 0x20) out += '+';
        else if ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) ||
          c === 0x2a || c === 0x2d || c === 0x2e || c === 0x5f) out += s[i];
        else if (c < 0x80) out += pctByte(c);
        else {
          let j = i + 1;
          while (j < s.length && s.charCodeAt(j) >= 0x80) j++;
          for (const b of utf8(s.slice(i, j))) out += pctByte(b);
          i = j - 1;
        }
      }
      return out;
    }
    // USVString conversion: lone surrogates become U+FFFD.
    function usv(v) {
      const s = String(v);
      return /[\ud800-\udfff]/.test(s) ? s.toWellFormed() : s;
    }
    function needArgs(what, n, got) {
      if (got < n) throw new TypeError(what + ': ' + n + ' argument' + (n > 1 ? 's' : '') + ' required, but only ' + got + ' present.');
    }

    let searchParamsReset; // (params, query) replaces the list from a query
    let searchParamsOf; // (url record, URL) makes a URL's searchParams
    class URLSearchParams {
      #list = [];
      #url = null; // the URL object this belongs to, whose query it updates
      #record = null;
      constructor(init = '') {
        if (init !== null && typeof init === 'object') {
          if (typeof init[Symbol.iterator] === 'function') {
            for (const pair of init) {
              const p = ArrayFrom(pair);
              if (p.length !== 2) throw new TypeError('Each query pair must be an iterable [name, value] tuple');
              this.#list.push([usv(p[0]), usv(p[1])]);
            }
          } else {
            for (const k of Reflect.ownKeys(init)) {
              const d = Object.getOwnPropertyDescriptor(init, k);
              if (typeof k === 'string' && d && d.enumerable) this.#list.push([usv(k), usv(init[k])]);
            }
          }
        } else {
          const s = usv(init);
          this.#list = formParse(s[0] === '?' ? s.slice(1) : s);
        }
      }
      #update() {
        if (this.#record === null) return;
        const q = this.toString();
        this.#record.query = q === '' ? null : q;
      }
      get size() { return this.#list.length; }
      append(name, value) {
        needArgs("Failed to execute 'append' on 'URLSearchParams'", 2, arguments.length);
        this.#list.push([usv(name), usv(value)]);
        this.#update();
      }
      delete(name, value) {
        needArgs("Failed to execute 'delete' on 'URLSearchParams'", 1, arguments.length);
        const n = usv(name);
        const v = value === undefined ? undefined : usv(value);
        this.#list = this.#list.filter(([k, x]) => !(k === n && (v === undefined || x === v)));
        this.#update();
      }
      get(name) {
        needArgs("Failed to execute 'get' on 'URLSearchParams'", 1, arguments.length);
        const n = usv(name);
        const e = this.#list.find(([k]) => k === n);
        return e ? e[1] : null;
      }
      getAll(name) {
        needArgs("Failed to execute 'getAll' on 'URLSearchParams'", 1, arguments.length);
        const n = usv(name);
        return this.#list.filter(([k]) => k === n).map(([, v]) => v);
      }
      has(name, value) {
        needArgs("Failed to execute 'has' on 'URLSearchParams'", 1, arguments.length);
        const n = usv(name);
        const v = value === undefined ? undefined : usv(value);
        return this.#list.some(([k, x]) => k === n && (v === undefined || x === v));
      }
      set(name, value) {
        needArgs("Failed to execute 'set' on 'URLSearchParams'", 2, arguments.length);
        const n = usv(name);
        const v = usv(value);
        const i = this.#list.findIndex(([k]) => k === n);
        if (i < 0) this.#list.push([n, v]);
        else {
          this.#list[i] = [n, v];
          this.#list = this.#list.filter(([k], j) => j <= i || k !== n);
        }
        this.#update();
      }
      sort() {
        // Stable, by UTF-16 code units of the names.
        const idx = this.#list.map((e, i) => [e, i]);
        idx.sort((a, b) => (a[0][0] < b[0][0] ? -1 : a[0][0] > b[0][0] ? 1 : a[1] - b[1]));
        this.#list = idx.map(([e]) => e);
        this.#update();
      }
      forEach(fn, thisArg) {
        if (typeof fn !== 'function') throw new TypeError('The "callback" argument must be of type function');
        for (let i = 0; i < this.#list.length; i++) fn.call(thisArg, this.#list[i][1], this.#list[i][0], this);
      }
      *entries() { for (let i = 0; i < this.#list.length; i++) yield [this.#list[i][0], this.#list[i][1]]; }
      *keys() { for (let i = 0; i < this.#list.length; i++) yield this.#list[i][0]; }
      *values() { for (let i = 0; i < this.#list.length; i++) yield this.#list[i][1]; }
      [Symbol.iterator]() { return this.entries(); }
      toString() { return this.#list.map(([k, v]) => formEncode(k) + '=' + formEncode(v)).join('&'); }
      get [Symbol.toStringTag]() { return 'URLSearchParams'; }
      static {
        searchParamsReset = (sp, query) => { sp.#list = query === null ? [] : formParse(query); };
        searchParamsOf = (record, url) => {
          const sp = new URLSearchParams();
          sp.#url = url;
          sp.#record = record;
          searchParamsReset(sp, record.query);
          return sp;
        };
      }
    }

    let recordOf; // (URL) → its record
    class URL {
      #u;
      #params = null;
      constructor(url, base) {
        needArgs("Failed to construct 'URL'", 1, arguments.length);
        const text = usv(url);
        const u = parseWithBase(text, base === undefined ? undefined : usv(base));
        if (u === null) throw invalidURL(text, base === undefined ? undefined : String(base));
        this.#u = u;
      }
      static canParse(url, base) { return parseWithBase(usv(url), base === undefined ? undefined : usv(base)) !== null; }
      static parse(url, base) {
        try { return new URL(url, base); } catch (_) { return null; }
      }
      #reset() { if (this.#params !== null) searchParamsReset(this.#params, this.#u.query); }
      get href() { return serializeURL(this.#u, false); }
      set href(v) {
        const text = usv(v);
        const u = basicParse(text);
        if (u === null) throw invalidURL(text);
        Object.assign(this.#u, u);
        this.#reset();
      }
      get origin() { return originOf(this.#u); }
      get protocol() { return this.#u.scheme + ':'; }
      set protocol(v) {
        const m = /^([A-Za-z][A-Za-z0-9+\-.]*)(:|$)/.exec(usv(v).replace(/[\t\n\r]/g, ''));
        if (!m) return;
        const u = this.#u;
        const scheme = m[1].toLowerCase();
        if (isSpecialScheme(u.scheme) !== isSpecialScheme(scheme)) return;
        if (scheme === 'file' && (u.username !== '' || u.password !== '' || u.port !== null)) return;
        if (u.scheme === 'file' && u.host === '') return;
        u.scheme = scheme;
        if (u.port === DEFAULT_PORTS[scheme]) u.port = null;
      }
      get username() { return this.#u.username; }
      set username(v) {
        const u = this.#u;
        if (u.host === null || u.host === '' || u.scheme === 'file') return;
        u.username = pctEncode(usv(v), USERINFO_SET);
      }
      get password() { return this.#u.password; }
      set password(v) {
        const u = this.#u;
        if (u.host === null || u.host === '' || u.scheme === 'file') return;
        u.password = pctEncode(usv(v), USERINFO_SET);
      }
      get host() {
        const u = this.#u;
        if (u.host === null) return '';
        return u.port === null ? u.host : u.host + ':' + u.port;
      }
      set host(v) { this.#setHost(usv(v), true); }
      get hostname() { return this.#u.host === null ? '' : this.#u.host; }
      set hostname(v) { this.#setHost(usv(v), false); }
      #setHost(v, withPort) {
        const u = this.#u;
        if (u.opaque) return;
        const special = isSpecialScheme(u.scheme);
        const s = v.replace(/[\t\n\r]/g, '');
        let end = 0;
        let brackets = false;
        let colon = -1;
        for (; end < s.length; end++) {
          const c = s[end];
          if (c === '/' || c === '?' || c === '#' || (c === '\\' && special)) break;
          if (c === '[') brackets = true;
          if (c === ']') brackets = false;
          if (c === ':' && !brackets && colon < 0) colon = end;
        }
        if (u.scheme === 'file') {
          // A file URL's host has no port: a colon makes it invalid.
          let h = s.slice(0, end) === '' ? '' : parseHost(s.slice(0, end), false);
          if (h === null) return;
          u.host = h === 'localhost' ? '' : h;
          return;
        }
        if (colon >= 0 && !withPort) return;
        const hostText = s.slice(0, colon >= 0 ? colon : end);
        if (hostText === '') {
          if (special) return;
          if (u.username !== '' || u.password !== '' || u.port !== null) return;
        }
        const h = hostText === '' ? '' : parseHost(hostText, !special);
        if (h === null) return;
        u.host = h;
        if (colon >= 0) {
          const digits = /^[0-9]*/.exec(s.slice(colon + 1, end))[0];
          if (digits !== '') {
            const port = parseInt(digits, 10);
            if (port <= 65535) u.port = DEFAULT_PORTS[u.scheme] === port ? null : port;
          }
        }
      }
      get port() { return this.#u.port === null ? '' : String(this.#u.port); }
      set port(v) {
        const u = this.#u;
        if (u.host === null || u.host === '' || u.scheme === 'file') return;
        const s = usv(v).replace(/[\t\n\r]/g, '');
        if (s === '') { u.port = null; return; }
        const digits = /^[0-9]*/.exec(s)[0];
        if (digits === '') return;
        const port = parseInt(digits, 10);
        if (port > 65535) return;
        u.port = DEFAULT_PORTS[u.scheme] === port ? null : port;
      }
      get pathname() { return pathText(this.#u); }
      set pathname(v) {
        const u = this.#u;
        if (u.opaque) return;
        u.path = [];
        basicParse(usv(v), undefined, u, true);
      }
      get search() { const q = this.#u.query; return q === null || q === '' ? '' : '?' + q; }
      set search(v) {
        const u = this.#u;
        let s = usv(v).replace(/[\t\n\r]/g, '');
        if (s === '') {
          u.query = null;
        } else {
          if (s[0] === '?') s = s.slice(1);
          u.query = pctEncode(s, isSpecialScheme(u.scheme) ? SPECIAL_QUERY_SET : QUERY_SET);
        }
        this.#reset();
      }
      get searchParams() {
        if (this.#params === null) this.#params = searchParamsOf(this.#u, this);
        return this.#params;
      }
      get hash() { const f = this.#u.fragment; return f === null || f === '' ? '' : '#' + f; }
      set hash(v) {
        const u = this.#u;
        let s = usv(v).replace(/[\t\n\r]/g, '');
        if (s === '') { u.fragment = null; return; }
        if (s[0] === '#') s = s.slice(1);
        u.fragment = pctEncode(s, FRAGMENT_SET);
      }
      toString() { return this.href; }
      toJSON() { return this.href; }
      get [Symbol.toStringTag]() { return 'URL'; }
      static { recordOf = (url) => url.#u; }
    }

    // ---------------------------------------------------------------
    // Event, EventTarget, AbortSignal, AbortController (DOM Standard).
    // ---------------------------------------------------------------

    class Event {
      #type;
      #cancelable;
      #canceled = false;
      #stop = false;
      #target = null;
      #time = native.now();
      constructor(type, init) {
        needArgs("Failed to construct 'Event'", 1, arguments.length);
        this.#type = String(type);
        this.#cancelable = !!(init && init.cancelable);
        this.bubbles = !!(init && init.bubbles);
        this.composed = !!(init && init.composed);
      }
      get type() { return this.#type; }
      get target() { return this.#target; }
      get currentTarget() { return this.#target; }
      get srcElement() { return this.#target; }
      get cancelable() { return this.#cancelable; }
      get defaultPrevented() { return this.#canceled; }
      get timeStamp() { return this.#time; }
      get eventPhase() { return this.#target === null ? 0 : 2; }
      get isTrusted() { return false; }
      preventDefault() { if (this.#cancelable) this.#canceled = true; }
      stopImmediatePropagation() { this.#stop = true; }
      stopPropagation() {}
      composedPath() { return this.#target === null ? [] : [this.#target]; }
      get [Symbol.toStringTag]() { return 'Event'; }
      static dispatching(e, target) { e.#target = target; e.#stop = false; }
      static stopped(e) { return e.#stop; }
    }
    const eventDispatching = Event.dispatching;
    const eventStopped = Event.stopped;
    delete Event.dispatching;
    delete Event.stopped;

    // reportLater reports an error thrown by a listener as uncaught (the
    // run prints it and exits 1), after the dispatch, as Node does.
    function reportLater(e) { setTimeout(() => { throw e; }, 0); }

    class EventTarget {
      #listeners = new MapCtor(); // type -> [{ fn, capture, once }]
      addEventListener(type, fn, options) {
        needArgs("Failed to execute 'addEventListener' on 'EventTarget'", 2, arguments.length);
        if (fn === null || fn === undefined) return;
        const capture = typeof options === 'boolean' ? options : !!(options && options.capture);
        const once = !!(options && typeof options === 'object' && options.once);
        const signal = options && typeof options === 'object' ? options.signal : undefined;
        if (signal !== undefined && signal.aborted) return;
        const t = String(type);
        let list = this.#listeners.get(t);
        if (list === undefined) this.#listeners.set(t, (list = []));
        if (list.some((l) => l.fn === fn && l.capture === capture)) return;
        const rec = { fn, capture, once };
        list.push(rec);
        if (signal !== undefined) signal.addEventListener('abort', () => this.removeEventListener(t, fn, { capture }));
      }
      removeEventListener(type, fn, options) {
        const capture = typeof options === 'boolean' ? options : !!(options && options.capture);
        const list = this.#listeners.get(String(type));
        if (!list) return;
        const i = list.findIndex((l) => l.fn === fn && l.capture === capture);
        if (i >= 0) list.splice(i, 1)[0].removed = true;
      }
      dispatchEvent(event) {
        if (!(event instanceof Event)) throw new TypeError('The "event" argument must be an instance of Event. Received ' + formatArg(event));
        eventDispatching(event, this);
        const list = (this.#listeners.get(event.type) || []).slice();
        const handler = this['on' + event.type];
        for (const l of list) {
          if (l.removed) continue;
          if (l.once) this.removeEventListener(event.type, l.fn, { capture: l.capture });
          try {
            if (typeof l.fn === 'function') l.fn.call(this, event);
            else if (l.fn && typeof l.fn.handleEvent === 'function') l.fn.handleEvent(event);
          } catch (e) {
            reportLater(e);
          }
          if (eventStopped(event)) break;
        }
        if (typeof handler === 'function' && !eventStopped(event) && (event.type === 'abort' && this instanceof AbortSignal)) {
          try { handler.call(this, event); } catch (e) { reportLater(e); }
        }
        return !event.defaultPrevented;
      }
      get [Symbol.toStringTag]() { return 'EventTarget'; }
    }

    function abortError() { return new DOMException('This operation was aborted', 'AbortError'); }

    let signalAbort; // (signal, reason) aborts it
    let signalOnAbort; // (signal, fn) runs fn when it aborts, before its event
    class AbortSignal extends EventTarget {
      #aborted = false;
      #reason = undefined;
      #algorithms = [];
      constructor(key) {
        if (key !== INTERNAL) throw new TypeError('Illegal constructor');
        super();
        this.onabort = null;
      }
      get aborted() { return this.#aborted; }
      get reason() { return this.#reason; }
      throwIfAborted() { if (this.#aborted) throw this.#reason; }
      static abort(reason) {
        const s = new AbortSignal(INTERNAL);
        s.#aborted = true;
        s.#reason = reason === undefined ? abortError() : reason;
        return s;
      }
      static timeout(ms) {
        const n = Number(ms);
        if (!Number.isInteger(n) || n < 0 || n > 4294967295) {
          throw new RangeError('The value of "delay" is out of range. It must be >= 0 && <= 4294967295. Received ' + formatArg(ms));
        }
        const s = new AbortSignal(INTERNAL);
        // Like Node's, the timer does not keep the run alive on its own.
        setTimeout(() => signalAbort(s, new DOMException('The operation was aborted due to timeout', 'TimeoutError')), n).unref();
        return s;
      }
      static any(signals) {
        const list = ArrayFrom(signals);
        for (const x of list) {
          if (!(x instanceof AbortSignal)) throw new TypeError('The "signals[' + list.indexOf(x) + ']" argument must be an instance of AbortSignal.');
        }
        const s = new AbortSignal(INTERNAL);
        const done = list.find((x) => x.aborted);
        if (done) {
          s.#aborted = true;
          s.#reason = done.reason;
          return s;
        }
        for (const x of list) signalOnAbort(x, () => signalAbort(s, x.reason));
        return s;
      }
      get [Symbol.toStringTag]() { return 'AbortSignal'; }
      static {
        signalAbort = (s, reason) => {
          if (s.#aborted) return;
          s.#aborted = true;
          s.#reason = reason === undefined ? abortError() : reason;
          const algorithms = s.#algorithms;
          s.#algorithms = [];
          for (const fn of algorithms) fn();
          s.dispatchEvent(new Event('abort'));
        };
        signalOnAbort = (s, fn) => { if (!s.#aborted) s.#algorithms.push(fn); };
      }
    }

    class AbortController {
      #signal = new AbortSignal(INTERNAL);
      get signal() { return this.#signal; }
      abort(reason) { signalAbort(this.#signal, reason); }
      get [Symbol.toStringTag]() { return 'AbortController'; }
    }

    // ---------------------------------------------------------------
    // Headers (Fetch Standard §5.2): names are case-insensitive and kept
    // lower-case; get() joins repeated fields with ", "; iteration is
    // sorted by name, with each Set-Cookie on its own.
    // ---------------------------------------------------------------

    const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
    function headerName(name, where) {
      const n = String(name);
      if (!TOKEN.test(n)) throw new TypeError(where + ': "' + n + '" is an invalid header name.');
      return n.toLowerCase();
    }
    function headerValue(value, name, where) {
      const v = String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
      if (/[\0\r\n]/.test(v)) throw new TypeError(where + ': "' + v + '" is an invalid header value.');
      if (/[^\u0000-\u00ff]/.test(v)) throw new TypeError(where + ': "' + name + '" has a value with characters outside Latin-1 (encode it first).');
      return v;
    }

    let headersList; // (Headers) → its [[name, value]] list
    let headersGuard; // (Headers, 'none' | 'immutable') sets its guard
    class Headers {
      #list = []; // [[lower-case name, value]] in insertion order
      #guard = 'none';
      constructor(init) {
        if (init === undefined || init === null) {
          if (init === null) throw new TypeError("Headers constructor: Expected init to be a sequence or record, got null.");
          return;
        }
        if (typeof init !== 'object' && typeof init !== 'function') {
          throw new TypeError('Headers constructor: Expected init to be a sequence or record.');
        }
        if (init instanceof Headers) {
          this.#list = init.#list.map(([k, v]) => [k, v]);
        } else if (typeof init[Symbol.iterator] === 'function') {
          for (const pair of init) {
            if (pair === null || typeof pair !== 'object' || typeof pair[Symbol.iterator] !== 'function') {
              throw new TypeError('Headers constructor: expected name/value pair to be an iterable.');
            }
            const p = ArrayFrom(pair);
            if (p.length !== 2) throw new TypeError('Headers constructor: expected name/value pair to be length 2, found ' + p.length + '.');
            this.append(p[0], p[1]);
          }
        } else {
          for (const k of Reflect.ownKeys(init)) {
            const d = Object.getOwnPropertyDescriptor(init, k);
            if (typeof k === 'string' && d && d.enumerable) this.append(k, init[k]);
          }
        }
      }
      #check() { if (this.#guard === 'immutable') throw new TypeError('immutable'); }
      append(name, value) {
        needArgs('Headers.append', 2, arguments.length);
        const n = headerName(name, 'Headers.append');
        const v = headerValue(value, name, 'Headers.append');
        this.#check();
        this.#list.push([n, v]);
      }
      delete(name) {
        needArgs('Headers.delete', 1, arguments.length);
        const n = headerName(name, 'Headers.delete');
        this.#check();
        this.#list = this.#list.filter(([k]) => k !== n);
      }
      get(name) {
        needArgs('Headers.get', 1, arguments.length);
        const n = headerName(name, 'Headers.get');
        const vs = this.#list.filter(([k]) => k === n).map(([, v]) => v);
        return vs.length ? vs.join(', ') : null;
      }
      getSetCookie() { return this.#list.filter(([k]) => k === 'set-cookie').map(([, v]) => v); }
      has(name) {
        needArgs('Headers.has', 1, arguments.length);
        const n = headerName(name, 'Headers.has');
        return this.#list.some(([k]) => k === n);
      }
      set(name, value) {
        needArgs('Headers.set', 2, arguments.length);
        const n = headerName(name, 'Headers.set');
        const v = headerValue(value, name, 'Headers.set');
        this.#check();
        const i = this.#list.findIndex(([k]) => k === n);
        if (i < 0) this.#list.push([n, v]);
        else this.#list = this.#list.filter(([k], j) => j < i || k !== n).toSpliced(i, 0, [n, v]);
      }
      // #sorted is the sort-and-combine list iteration yields.
      #sorted() {
        const byName = new MapCtor();
        for (const [k, v] of this.#list) {
          const vs = byName.get(k);
          if (vs === undefined) byName.set(k, [v]); else vs.push(v);
        }
        const out = [];
        for (const n of ArrayFrom(byName.keys()).sort()) {
          if (n === 'set-cookie') for (const v of byName.get(n)) out.push([n, v]);
          else out.push([n, byName.get(n).join(', ')]);
        }
        return out;
      }
      forEach(fn, thisArg) {
        if (typeof fn !== 'function') throw new TypeError("Headers.forEach: Expected callback to be a function.");
        for (const [k, v] of this.#sorted()) fn.call(thisArg, v, k, this);
      }
      *entries() { yield* this.#sorted(); }
      *keys() { for (const [k] of this.#sorted()) yield k; }
      *values() { for (const [, v] of this.#sorted()) yield v; }
      [Symbol.iterator]() { return this.entries(); }
      get [Symbol.toStringTag]() { return 'Headers'; }
      static {
        headersList = (h) => h.#list;
        headersGuard = (h, g) => { h.#guard = g; };
      }
    }

    // ---------------------------------------------------------------
    // Bodies (Fetch Standard §5.3), shared by Request and Response. A body
    // is whole bytes (or null); reading it once marks it used.
    // ---------------------------------------------------------------

    const bodies = new WeakMap(); // Request | Response -> { bytes, used }

    // extractBody turns a body init into bytes and the Content-Type it
    // implies. Blob, FormData and streams do not exist here; any other
    // object becomes its string, as in Node.
    function extractBody(init) {
      if (init === undefined || init === null) return { bytes: null, type: null };
      if (init instanceof ArrayBuffer) return { bytes: new Uint8Array(init.slice(0)), type: null };
      if (isView(init)) return { bytes: new Uint8Array(init.buffer.slice(init.byteOffset, init.byteOffset + init.byteLength)), type: null };
      if (init instanceof URLSearchParams) return { bytes: utf8(init.toString()), type: 'application/x-www-form-urlencoded;charset=UTF-8' };
      return { bytes: utf8(usv(init)), type: 'text/plain;charset=UTF-8' };
    }
    function bodyUnusable() { return new TypeError('Body is unusable: Body has already been read'); }
    function consume(obj, finish) {
      const b = bodies.get(obj);
      if (b === undefined) return PromiseReject(new TypeError('Illegal invocation'));
      if (b.used) return PromiseReject(bodyUnusable());
      if (b.bytes !== null) b.used = true;
      const bytes = b.bytes === null ? new Uint8Array(0) : b.bytes;
      try {
        return PromiseResolve(finish(bytes));
      } catch (e) {
        return PromiseReject(e);
      }
    }
    const decodeText = (bytes) => {
      const s = native.utf8Decode(bytes, false);
      return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
    };
    // body is a one-chunk stand-in for a ReadableStream: a reader, and
    // async iteration (for await (const chunk of res.body)).
    function bodyStream(obj) {
      const b = bodies.get(obj);
      if (b === undefined || b.bytes === null) return null;
      if (b.stream) return b.stream;
      const take = () => {
        if (b.used) return null;
        b.used = true;
        return b.bytes.slice();
      };
      const reader = () => {
        let done = false;
        return {
          read() {
            if (done) return PromiseResolve({ value: undefined, done: true });
            done = true;
            const chunk = take();
            if (chunk === null) return PromiseReject(bodyUnusable());
            return PromiseResolve(chunk.length ? { value: chunk, done: false } : { value: undefined, done: true });
          },
          releaseLock() {},
          cancel() { done = true; b.used = true; return PromiseResolve(); },
          get closed() { return PromiseResolve(); },
        };
      };
      b.stream = {
        get locked() { return false; },
        getReader: reader,
        cancel() { b.used = true; return PromiseResolve(); },
        [Symbol.asyncIterator]() {
          const r = reader();
          return { next: () => r.read(), return: () => PromiseResolve({ value: undefined, done: true }), [Symbol.asyncIterator]() { return this; } };
        },
        get [Symbol.toStringTag]() { return 'ReadableStream'; },
      };
      return b.stream;
    }
    function bodyMethods(proto) {
      const methods = {
        text() { return consume(this, decodeText); },
        json() { return consume(this, (bytes) => JSONParse(decodeText(bytes))); },
        arrayBuffer() { return consume(this, (bytes) => bytes.slice().buffer); },
        bytes() { return consume(this, (bytes) => bytes.slice()); },
        blob() { return PromiseReject(new TypeError('blob() is not available in the sandbox (there is no Blob); use arrayBuffer() or bytes()')); },
        formData() { return PromiseReject(new TypeError('formData() is not available in the sandbox (there is no FormData); use text() with URLSearchParams')); },
      };
      for (const k of ObjectKeys(methods)) define(proto, k, methods[k]);
      ObjectDefineProperty(proto, 'bodyUsed', { configurable: true, get() { const b = bodies.get(this); return !!(b && b.used); } });
      ObjectDefineProperty(proto, 'body', { configurable: true, get() { return bodyStream(this); } });
    }

    // ---------------------------------------------------------------
    // Request and Response (Fetch Standard §5.4, §5.5).
    // ---------------------------------------------------------------

    const NORMAL_METHODS = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'];
    const REDIRECT_MODES = ['follow', 'error', 'manual'];
    const requests = new WeakMap(); // Request -> { url, method, headers, signal, redirect, ... }

    function parseRequestURL(input) {
      const text = usv(input);
      const u = basicParse(text);
      if (u === null) {
        const e = new TypeError('Failed to parse URL from ' + text);
        e.cause = invalidURL(text);
        throw e;
      }
      if (u.username !== '' || u.password !== '') throw new TypeError('Request cannot be constructed from a URL that includes credentials: ' + text);
      return u;
    }

    class Request {
      constructor(input, init = {}) {
        needArgs("Failed to construct 'Request'", 1, arguments.length);
        if (init === null || (typeof init !== 'object' && typeof init !== 'function')) init = {};
        let st;
        let body = null;
        if (input instanceof Request) {
          const src = requests.get(input);
          const srcBody = bodies.get(input);
          if (srcBody.used) throw new TypeError('Cannot construct a Request with a Request object that has already been used.');
          st = { ...src, url: { ...src.url, path: src.url.opaque ? src.url.path : src.url.path.slice() }, headers: new Headers(src.headers) };
          body = srcBody.bytes;
        } else {
          st = {
            url: parseRequestURL(input), method: 'GET', headers: new Headers(), signal: null, redirect: 'follow',
            credentials: 'same-origin', mode: 'cors', cache: 'default', referrer: 'about:client', referrerPolicy: '',
            integrity: '', keepalive: false,
          };
        }
        if (init.method !== undefined) {
          const m = String(init.method);
          if (!TOKEN.test(m)) throw new TypeError("'" + m + "' is not a valid HTTP method.");
          const upper = m.toUpperCase();
          if (upper === 'CONNECT' || upper === 'TRACE' || upper === 'TRACK') throw new TypeError("'" + m + "' HTTP method is unsupported.");
          st.method = NORMAL_METHODS.includes(upper) ? upper : m;
        }
        if (init.redirect !== undefined) {
          const r = String(init.redirect);
          if (!REDIRECT_MODES.includes(r)) throw new TypeError('Request constructor: ' + r + ' is not an accepted type. Expected one of follow, manual, error.');
          st.redirect = r;
        }
        for (const k of ['credentials', 'mode', 'cache', 'referrerPolicy', 'integrity']) if (init[k] !== undefined) st[k] = String(init[k]);
        if (init.keepalive !== undefined) st.keepalive = !!init.keepalive;
        if (init.referrer !== undefined) st.referrer = String(init.referrer) === '' ? '' : 'about:client';
        if (init.signal !== undefined && init.signal !== null && !(init.signal instanceof AbortSignal)) {
          throw new TypeError("Failed to construct 'Request': member signal is not of type AbortSignal.");
        }
        const given = init.signal !== undefined ? init.signal : (input instanceof Request ? input.signal : null);
        st.signal = given ? AbortSignal.any([given]) : new AbortSignal(INTERNAL);
        if (init.headers !== undefined) st.headers = new Headers(init.headers);
        const hasInitBody = init.body !== undefined && init.body !== null;
        if ((hasInitBody || (init.body === undefined && body !== null)) && (st.method === 'GET' || st.method === 'HEAD')) {
          throw new TypeError('Request with GET/HEAD method cannot have body.');
        }
        if (init.body !== undefined) {
          const ex = extractBody(init.body);
          body = ex.bytes;
          if (ex.type !== null && !st.headers.has('content-type')) st.headers.append('content-type', ex.type);
        } else if (input instanceof Request && body !== null) {
          bodies.get(input).used = true; // the body moves to the new request
        }
        requests.set(this, st);
        bodies.set(this, { bytes: body, used: false });
      }
      get method() { return requests.get(this).method; }
      get url() { return serializeURL(requests.get(this).url, false); }
      get headers() { return requests.get(this).headers; }
      get signal() { return requests.get(this).signal; }
      get redirect() { return requests.get(this).redirect; }
      get credentials() { return requests.get(this).credentials; }
      get mode() { return requests.get(this).mode; }
      get cache() { return requests.get(this).cache; }
      get referrer() { return requests.get(this).referrer; }
      get referrerPolicy() { return requests.get(this).referrerPolicy; }
      get integrity() { return requests.get(this).integrity; }
      get keepalive() { return requests.get(this).keepalive; }
      get destination() { return ''; }
      get duplex() { return 'half'; }
      clone() {
        const b = bodies.get(this);
        if (b.used) throw new TypeError('Request.clone: Body has already been consumed.');
        const st = requests.get(this);
        const r = new Request(this, { body: b.bytes === null ? undefined : b.bytes, headers: st.headers, signal: st.signal });
        requests.get(r).headers = new Headers(st.headers);
        return r;
      }
      get [Symbol.toStringTag]() { return 'Request'; }
    }
    bodyMethods(Request.prototype);

    const NULL_BODY_STATUS = [101, 103, 204, 205, 304];
    const REDIRECT_STATUS = [301, 302, 303, 307, 308];
    const responses = new WeakMap(); // Response -> { status, statusText, headers, url, redirected, type }

    // makeResponse builds a Response without the constructor's checks (for
    // fetch and the static factories).
    function makeResponse(st, bytes) {
      const r = ObjectCreate(Response.prototype);
      responses.set(r, st);
      bodies.set(r, { bytes, used: false });
      return r;
    }
    function checkStatusText(t) {
      if (!/^[\t\u0020-\u007e\u0080-\u00ff]*$/.test(t)) throw new TypeError('Invalid statusText');
    }

    class Response {
      constructor(body = null, init = {}) {
        if (init === null || (typeof init !== 'object' && typeof init !== 'function')) init = {};
        const status = init.status === undefined ? 200 : Number(init.status);
        if (!Number.isInteger(status) || status < 200 || status > 599) {
          throw new RangeError('init["status"] must be in the range of 200 to 599, inclusive.');
        }
        const statusText = init.statusText === undefined ? '' : String(init.statusText);
        checkStatusText(statusText);
        const headers = new Headers(init.headers);
        const ex = extractBody(body);
        if (ex.bytes !== null && NULL_BODY_STATUS.includes(status)) {
          throw new TypeError('Response constructor: Invalid response status code ' + status);
        }
        if (ex.type !== null && !headers.has('content-type')) headers.append('content-type', ex.type);
        responses.set(this, { status, statusText, headers, url: '', redirected: false, type: 'default' });
        bodies.set(this, { bytes: ex.bytes, used: false });
      }
      static error() {
        const headers = new Headers();
        headersGuard(headers, 'immutable');
        return makeResponse({ status: 0, statusText: '', headers, url: '', redirected: false, type: 'error', immutable: true }, null);
      }
      static json(data, init = {}) {
        const text = JSONStringify(data);
        if (text === undefined) throw new TypeError('Value is not JSON serializable');
        const headers = new Headers(init && init.headers);
        if (!headers.has('content-type')) headers.append('content-type', 'application/json');
        return new Response(text, { ...(init || {}), headers });
      }
      static redirect(url, status = 302) {
        const u = parseRequestURL(url);
        const s = Number(status);
        if (!REDIRECT_STATUS.includes(s)) throw new RangeError('Invalid status code ' + status);
        const headers = new Headers([['location', serializeURL(u, false)]]);
        headersGuard(headers, 'immutable');
        return makeResponse({ status: s, statusText: '', headers, url: '', redirected: false, type: 'default', immutable: true }, null);
      }
      get type() { return responses.get(this).type; }
      get url() { return responses.get(this).url; }
      get redirected() { return responses.get(this).redirected; }
      get status() { return responses.get(this).status; }
      get ok() { const s = responses.get(this).status; return s >= 200 && s <= 299; }
      get statusText() { return responses.get(this).statusText; }
      get headers() { return responses.get(this).headers; }
      clone() {
        const b = bodies.get(this);
        if (b === undefined) throw new TypeError('Illegal invocation');
        if (b.used) throw new TypeError('Response.clone: Body has already been consumed.');
        const st = responses.get(this);
        const headers = new Headers(st.headers);
        headersGuard(headers, st.immutable ? 'immutable' : 'none');
        return makeResponse({ ...st, headers }, b.bytes === null ? null : b.bytes.slice());
      }
      get [Symbol.toStringTag]() { return 'Response'; }
    }
    bodyMethods(Response.prototype);

    // ---------------------------------------------------------------
    // fetch (Fetch Standard §5.6, as Node has it).
    // ---------------------------------------------------------------

    // http makes one HTTP request through the host: the whole request in
    // ({ method, url, headers: [[name, value]], body: Uint8Array | null },
    // wire.HTTPRequest's fields), a promise of the whole response out
    // ({ status, status_text, headers: [[name, value]], body: Uint8Array },
    // wire.HTTPResponse's), or a rejection with an Error whose message
    // says why (wire.HTTPRefusal's message, which names the check and the
    // rule; its check and rule are the error's own properties). It is a
    // tool request of method "http" (wire.MethodHTTP), so requests made
    // together are in flight together. A redirect comes back as a
    // response: fetchHTTP follows it, and each hop is a new call the host
    // checks.
    //
    // inflight.id is the request's id while it is in flight, so that an
    // aborted fetch can stop it in the host (cancelHTTP).
    function http(request, inflight) {
      const params = { method: request.method, url: request.url, headers: request.headers };
      if (request.body != null && request.body.length > 0) params.body = native.encode(request.body, 'base64');
      const sent = callMethod('http', params, true);
      inflight.id = sent.requestId;
      return sent.then((answer) => {
        inflight.id = null;
        const b = answer.body;
        if (typeof b === 'string' && b.length > 0) {
          const bytes = native.decode(b, 'base64');
          answer.body = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
        } else {
          answer.body = new Uint8Array(0);
        }
        return answer;
      }, (e) => {
        inflight.id = null;
        throw e;
      });
    }

    // cancelHTTP tells the host that nobody waits for request id any more
    // (wire.MethodHTTPCancel): it stops the request and answers it at once,
    // so an aborted fetch does not keep the run waiting for its response.
    function cancelHTTP(id) {
      callMethod('http_cancel', { id }, true).then(() => {}, () => {});
    }

    function fetchFailed(cause) {
      const e = new TypeError('fetch failed');
      e.cause = cause;
      return e;
    }

    // dataResponse answers a data: URL in the guest, as Node does.
    function dataResponse(u) {
      const text = serializeURL(u, true).slice(5);
      const comma = text.indexOf(',');
      if (comma < 0) throw fetchFailed(new TypeError('invalid data: URL'));
      let mime = text.slice(0, comma).trim();
      let payload = pctDecodeBytes(text.slice(comma + 1));
      if (/;[\u0020]*base64$/i.test(mime)) {
        mime = mime.replace(/;[\u0020]*base64$/i, '');
        let b64 = '';
        for (const b of payload) b64 += String.fromCharCode(b);
        b64 = b64.replace(/[\t\n\f\r ]/g, '');
        let raw;
        try { raw = atob(b64); } catch (e) { throw fetchFailed(new TypeError('invalid base64 in data: URL')); }
        payload = new Uint8Array(raw.length);
        for (let i = 0; i < raw.length; i++) payload[i] = raw.charCodeAt(i);
      }
      if (mime.startsWith(';')) mime = 'text/plain' + mime;
      if (mime === '') mime = 'text/plain;charset=US-ASCII';
      const headers = new Headers([['content-type', mime]]);
      headersGuard(headers, 'immutable');
      return makeResponse({ status: 200, statusText: 'OK', headers, url: serializeURL(u, true), redirected: false, type: 'basic', immutable: true }, payload);
    }
    function pctDecodeBytes(s) {
      const bytes = utf8(s);
      const out = [];
      for (let i = 0; i < bytes.length; i++) {
        if (bytes[i] === 0x25 && i + 2 < bytes.length && isHexByte(bytes[i + 1]) && isHexByte(bytes[i + 2])) {
          out.push(parseInt(String.fromCharCode(bytes[i + 1], bytes[i + 2]), 16));
          i += 2;
        } else {
          out.push(bytes[i]);
        }
      }
      return new Uint8Array(out);
    }

    function answerBytes(body) {
      if (body === undefined || body === null) return null;
      if (typeof body === 'string') return utf8(body);
      if (body instanceof Uint8Array) return body;
      if (body instanceof ArrayBuffer) return new Uint8Array(body);
      throw new TypeError('the host answered with a body of type ' + typeof body);
    }

    const MAX_REDIRECTS = 20;
    const REFERENCE_HEADERS = ['content-encoding', 'content-language', 'content-location', 'content-type', 'content-length'];
    const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie'];

    // fetchHTTP sends the request through http() and follows redirects
    // itself, per the request's redirect mode: "follow" (at most 20 hops;
    // a 303, or a 301/302 after a POST, turns into a GET without a body;
    // Authorization, Proxy-Authorization and Cookie are dropped when a hop
    // leaves the origin), "manual" (the redirect is the response) or
    // "error" (a redirect fails the fetch). Every hop goes back to the
    // host, which checks it against the policy.
    async function fetchHTTP(st, body, isAborted, inflight) {
      let url = st.url;
      let method = st.method;
      const headers = new Headers(st.headers);
      let redirected = false;
      for (let hops = 0; ; hops++) {
        if (url.scheme !== 'http' && url.scheme !== 'https') {
          throw fetchFailed(new TypeError('URL scheme must be a HTTP(S) scheme'));
        }
        let answer;
        try {
          answer = await http({ method, url: serializeURL(url, true), headers: headersList(headers).map(([k, v]) => [k, v]), body }, inflight);
        } catch (e) {
          throw fetchFailed(e);
        }
        if (isAborted()) return null;
        const status = answer && answer.status;
        if (!Number.isInteger(status) || status < 200 || status > 599) {
          throw fetchFailed(new TypeError('the host answered with an invalid status: ' + formatArg(status)));
        }
        const rh = new Headers(answer.headers || []);
        const location = rh.get('location');
        if (REDIRECT_STATUS.includes(status) && location !== null && st.redirect !== 'manual') {
          if (st.redirect === 'error') throw fetchFailed(new TypeError('unexpected redirect'));
          if (hops >= MAX_REDIRECTS) throw fetchFailed(new TypeError('redirect count exceeded'));
          const next = basicParse(location, url);
          if (next === null) throw fetchFailed(invalidURL(location));
          if (next.scheme !== 'http' && next.scheme !== 'https') throw fetchFailed(new TypeError('URL scheme must be a HTTP(S) scheme'));
          if (next.username !== '' || next.password !== '') throw fetchFailed(new TypeError('redirect location includes credentials'));
          if (((status === 301 || status === 302) && method === 'POST') || (status === 303 && method !== 'GET' && method !== 'HEAD')) {
            method = 'GET';
            body = null;
            for (const h of REFERENCE_HEADERS) headers.delete(h);
          }
          if (originOf(next) !== originOf(url)) for (const h of CREDENTIAL_HEADERS) headers.delete(h);
          if (next.fragment === null && url.fragment !== null) next.fragment = url.fragment;
          url = next;
          redirected = true;
          continue;
        }
        const bytes = method === 'HEAD' || NULL_BODY_STATUS.includes(status) ? null : answerBytes(answer.body);
        headersGuard(rh, 'immutable');
        return makeResponse({
          status, statusText: String(answer.status_text ?? ''), headers: rh, url: serializeURL(url, true),
          redirected, type: 'basic', immutable: true,
        }, bytes);
      }
    }

    const fetch = named('fetch', function fetch(input, init) {
      let request;
      try {
        if (arguments.length === 0) throw new TypeError("Failed to execute 'fetch': 1 argument required, but only 0 present.");
        request = new Request(input, init);
      } catch (e) {
        return PromiseReject(e);
      }
      const st = requests.get(request);
      const signal = st.signal;
      if (signal.aborted) return PromiseReject(signal.reason);
      const bytes = bodies.get(request).bytes;
      if (st.url.scheme === 'data') {
        try { return PromiseResolve(dataResponse(st.url)); } catch (e) { return PromiseReject(e); }
      }
      if (st.url.scheme !== 'http' && st.url.scheme !== 'https') {
        return PromiseReject(fetchFailed(new TypeError('fetch of ' + st.url.scheme + ': URLs is not supported (only http:, https: and data:)')));
      }
      return new PromiseCtor((resolve, reject) => {
        let done = false;
        const inflight = { id: null };
        signalOnAbort(signal, () => {
          if (done) return;
          done = true;
          if (inflight.id !== null) cancelHTTP(inflight.id);
          reject(signal.reason);
        });
        fetchHTTP(st, bytes, () => done, inflight).then(
          (r) => { if (!done) { done = true; resolve(r); } },
          (e) => { if (!done) { done = true; reject(e); } },
        );
      });
    });

    return { URL, URLSearchParams, Event, EventTarget, AbortController, AbortSignal, Headers, Request, Response, fetch };
