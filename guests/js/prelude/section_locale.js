// Section 'locale' of prelude.js (run on first use): enough of Intl for
// reports, and honest about the rest. QuickJS-NG has no Intl and the
// sandbox no locale or time zone data, so:
//   - numbers: en (the default) and the languages whose separators are
//     known here (NUMBER_LOCALES); any other locale is a RangeError;
//   - dates: en-US forms only, in UTC (the sandbox's local time is UTC);
//     another locale, or a timeZone other than UTC, is a RangeError that
//     says so, rather than a silently different answer.
// docs/javascript.md lists what is supported.
    const currencySymbols = { USD: '$', EUR: '€', GBP: '£', JPY: '¥', INR: '₹', CNY: 'CN¥', CAD: 'CA$', AUD: 'A$', KRW: '₩', BRL: 'R$', MXN: 'MX$', CHF: 'CHF', ILS: '₪', NZD: 'NZ$', HKD: 'HK$' };
    const zeroDigitCurrencies = ['JPY', 'KRW', 'VND', 'CLP', 'ISK'];

    // Languages by their number separators.
    const EN_LIKE = ['en', 'ja', 'zh', 'ko', 'he', 'th'];
    const DOT_GROUP = ['de', 'es', 'it', 'nl', 'pt', 'da', 'id', 'tr'];
    const SPACE_GROUP = ['fr', 'ru', 'pl', 'cs', 'sv', 'fi', 'nb', 'uk'];
    const NUMBER_LOCALES = [...EN_LIKE, ...DOT_GROUP, ...SPACE_GROUP];
    // Date forms are en-US only: en-GB, en-IN and others order the parts
    // differently, so they are refused rather than answered wrongly.
    const DATE_LOCALES = ['en', 'en-us'];
    const UTC_ZONES = ['utc', 'etc/utc', 'gmt', 'etc/gmt', 'z', 'zulu', 'universal', 'etc/universal'];

    function firstLocale(locales) {
      const l = ArrayIsArray(locales) ? locales[0] : locales;
      if (l === undefined || l === null) return undefined;
      if (typeof l !== 'string' && !(l instanceof String)) throw new TypeError('Incorrect locale information provided');
      const s = String(l);
      if (!/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/.test(s)) throw new RangeError('Incorrect locale information provided: ' + s);
      return s;
    }
    function numberLocale(locales) {
      const l = firstLocale(locales);
      const lang = l === undefined ? 'en' : l.toLowerCase().split(/[-_]/)[0];
      if (!NUMBER_LOCALES.includes(lang)) {
        throw new RangeError('Locale ' + JSONStringify(l) + ' is not supported for numbers in the sandbox (no locale data); ' +
          'supported languages: ' + NUMBER_LOCALES.join(', '));
      }
      if (DOT_GROUP.includes(lang)) return { tag: l, group: '.', decimal: ',', after: true };
      if (SPACE_GROUP.includes(lang)) return { tag: l, group: '\u202f', decimal: ',', after: true };
      return { tag: l || 'en-US', group: ',', decimal: '.', after: false };
    }
    function dateLocale(locales) {
      const l = firstLocale(locales);
      if (l !== undefined && !DATE_LOCALES.includes(l.toLowerCase().replace('_', '-'))) {
        throw new RangeError('Locale ' + JSONStringify(l) + ' is not supported for dates in the sandbox (no locale data): ' +
          'dates format in en-US style only; use "en-US", toISOString(), or build the string from getUTCFullYear() and friends');
      }
      return 'en-US';
    }
    function pluralLocale(locales) {
      const l = firstLocale(locales);
      if (l !== undefined && l.toLowerCase().split(/[-_]/)[0] !== 'en') {
        throw new RangeError('Locale ' + JSONStringify(l) + ' is not supported by Intl.PluralRules in the sandbox: English plural rules only');
      }
      return 'en';
    }
    function checkTimeZone(tz) {
      if (tz === undefined) return 'UTC';
      if (!UTC_ZONES.includes(String(tz).toLowerCase())) {
        throw new RangeError('Time zone ' + JSONStringify(String(tz)) + ' is not supported in the sandbox (no time zone data): only "UTC" is; ' +
          'local time is UTC too. Add the offset yourself if you need another zone.');
      }
      return 'UTC';
    }

    function groupDigits(int, sep) {
      let out = '';
      for (let i = 0; i < int.length; i++) {
        if (i > 0 && (int.length - i) % 3 === 0) out += sep;
        out += int[i];
      }
      return out;
    }

    function formatNumber(x, locales, options) {
      const o = options || {};
      const loc = numberLocale(locales);
      const style = o.style || 'decimal';
      if (typeof x === 'bigint') {
        const s = x < 0n ? String(-x) : String(x);
        return (x < 0n ? '-' : '') + (o.useGrouping === false ? s : groupDigits(s, loc.group));
      }
      let n = Number(x);
      const cur = style === 'currency' ? String(o.currency || '').toUpperCase() : '';
      if (style === 'currency' && !cur) throw new TypeError('Currency code is required with currency style.');
      if (!isFinite(n)) return isNaN(n) ? 'NaN' : (n < 0 ? '-' : '') + '∞';
      if (style === 'percent') n *= 100;
      let suffix = '';
      if (o.notation === 'compact') {
        const abs = Math.abs(n);
        for (const [limit, s] of [[1e12, 'T'], [1e9, 'B'], [1e6, 'M'], [1e3, 'K']]) {
          if (abs >= limit) { n /= limit; suffix = s; break; }
        }
      }
      const curDigits = zeroDigitCurrencies.includes(cur) ? 0 : 2;
      const defMin = style === 'currency' ? curDigits : 0;
      const defMax = style === 'currency' ? curDigits : style === 'percent' ? 0 : o.notation === 'compact' ? (Math.abs(n) < 100 ? 1 : 0) : 3;
      let minFD = o.minimumFractionDigits;
      let maxFD = o.maximumFractionDigits;
      if (minFD === undefined) minFD = maxFD === undefined ? defMin : Math.min(defMin, maxFD);
      if (maxFD === undefined) maxFD = Math.max(minFD, defMax);
      if (minFD < 0 || maxFD > 100 || maxFD < minFD) throw new RangeError('maximumFractionDigits value is out of range.');
      let s;
      if (o.maximumSignificantDigits !== undefined || o.minimumSignificantDigits !== undefined) {
        s = String(Number(Math.abs(n).toPrecision(o.maximumSignificantDigits || 21)));
        if (o.minimumSignificantDigits) {
          const digits = s.replace('.', '').replace(/^0+/, '').length;
          if (digits < o.minimumSignificantDigits) {
            s = Math.abs(n).toPrecision(o.minimumSignificantDigits);
          }
        }
      } else {
        s = Math.abs(n).toFixed(maxFD);
      }
      let [int, frac = ''] = s.split('.');
      if (o.maximumSignificantDigits === undefined && o.minimumSignificantDigits === undefined) {
        while (frac.length > minFD && frac.endsWith('0')) frac = frac.slice(0, -1);
      }
      if (o.minimumIntegerDigits) int = int.padStart(o.minimumIntegerDigits, '0');
      if (o.useGrouping !== false && !(o.notation === 'compact' && int.length <= 4)) int = groupDigits(int, loc.group);
      const body = (frac ? int + loc.decimal + frac : int) + suffix;
      const isZero = Number(s) === 0;
      const neg = n < 0 && !isZero;
      let sign = neg ? '-' : '';
      if (o.signDisplay === 'always' && !neg) sign = '+';
      else if (o.signDisplay === 'exceptZero' && !neg && !isZero) sign = '+';
      else if (o.signDisplay === 'never') sign = '';
      if (style === 'percent') return sign + body + (loc.after ? '\u00a0%' : '%');
      if (style === 'currency') {
        const sym = o.currencyDisplay === 'code' ? cur : o.currencyDisplay === 'name' ? null : currencySymbols[cur] || cur;
        if (sym === null) return sign + body + ' ' + cur;
        if (loc.after) return sign + body + '\u00a0' + sym;
        return sign + sym + (/^[A-Z]+$/.test(sym) ? '\u00a0' : '') + body;
      }
      if (style === 'unit' && o.unit) return sign + body + ' ' + o.unit;
      return sign + body;
    }

    const monthNames = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
    const dayNames = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

    function formatDate(d, locales, options, defaults) {
      dateLocale(locales);
      const o = Object.assign({}, options || {});
      checkTimeZone(o.timeZone);
      const t = d instanceof Date ? d.getTime() : new Date(d === undefined ? Date.now() : d).getTime();
      if (isNaN(t)) return 'Invalid Date';
      const date = new Date(t);
      // Local time is UTC in the sandbox, and UTC is the only zone.
      const utc = true;
      const get = (what) => (utc ? date['getUTC' + what]() : date['get' + what]());
      const styleMap = {
        full: { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' },
        long: { year: 'numeric', month: 'long', day: 'numeric' },
        medium: { year: 'numeric', month: 'short', day: 'numeric' },
        short: { year: '2-digit', month: 'numeric', day: 'numeric' },
      };
      if (o.dateStyle) Object.assign(o, styleMap[o.dateStyle] || {});
      if (o.timeStyle) Object.assign(o, o.timeStyle === 'short' ? { hour: 'numeric', minute: '2-digit' } : { hour: 'numeric', minute: '2-digit', second: '2-digit' });
      const dateKeys = ['weekday', 'year', 'month', 'day'];
      const timeKeys = ['hour', 'minute', 'second'];
      const any = [...dateKeys, ...timeKeys].some((k) => o[k] !== undefined);
      if (!any) {
        if (defaults !== 'time') Object.assign(o, { year: 'numeric', month: 'numeric', day: 'numeric' });
        if (defaults !== 'date') Object.assign(o, { hour: 'numeric', minute: '2-digit', second: '2-digit' });
      }
      const pad = (n) => String(n).padStart(2, '0');
      const year = get('FullYear');
      const month = get('Month');
      const day = get('Date');
      let datePart = '';
      const y = o.year === '2-digit' ? pad(year % 100) : String(year);
      const dd = o.day === '2-digit' ? pad(day) : String(day);
      if (o.month === 'long' || o.month === 'short' || o.month === 'narrow') {
        const m = o.month === 'long' ? monthNames[month] : o.month === 'short' ? monthNames[month].slice(0, 3) : monthNames[month][0];
        datePart = m;
        if (o.day) datePart += ' ' + dd;
        if (o.year) datePart += (o.day ? ', ' : ' ') + y;
      } else {
        const parts = [];
        if (o.month) parts.push(o.month === '2-digit' ? pad(month + 1) : String(month + 1));
        if (o.day) parts.push(dd);
        if (o.year) parts.push(y);
        datePart = parts.join('/');
      }
      if (o.weekday) {
        const w = dayNames[get('Day')];
        const wd = o.weekday === 'long' ? w : o.weekday === 'short' ? w.slice(0, 3) : w[0];
        datePart = datePart ? wd + ', ' + datePart : wd;
      }
      let timePart = '';
      if (o.hour || o.minute || o.second) {
        const h = get('Hours');
        const h12 = o.hour12 !== undefined ? o.hour12 : !(o.hourCycle === 'h23' || o.hourCycle === 'h24');
        let hs = h12 ? String(h % 12 === 0 ? 12 : h % 12) : pad(h);
        if (h12 && o.hour === '2-digit') hs = pad(Number(hs));
        const parts = [];
        if (o.hour) parts.push(hs);
        if (o.minute) parts.push(o.hour ? pad(get('Minutes')) : String(get('Minutes')));
        if (o.second) parts.push(pad(get('Seconds')));
        timePart = parts.join(':');
        if (o.fractionalSecondDigits) timePart += '.' + String(get('Milliseconds')).padStart(3, '0').slice(0, o.fractionalSecondDigits);
        if (h12 && o.hour) timePart += ' ' + (h < 12 ? 'AM' : 'PM');
        if (o.timeZoneName) timePart += ' ' + (utc ? 'UTC' : 'GMT');
      }
      return datePart && timePart ? datePart + ', ' + timePart : datePart || timePart;
    }

    // Intl constructors may be called without new.
    function callableClass(C) {
      const f = named(C.name, function (...args) { return new C(...args); });
      f.prototype = C.prototype;
      f.supportedLocalesOf = (l) => [].concat(l || []).filter((x) => {
        try { (C.name === 'DateTimeFormat' ? dateLocale : C.name === 'PluralRules' ? pluralLocale : numberLocale)(x); return true; } catch (_) { return false; }
      });
      return f;
    }
    function makeIntl() {
      const Intl = {
        NumberFormat: class NumberFormat {
          #locales; #options;
          constructor(locales, options) {
            this.#locales = numberLocale(locales).tag;
            this.#options = Object.assign({}, options);
            formatNumber(0, this.#locales, this.#options); // bad options fail here, as in V8
          }
          format(n) { return formatNumber(n, this.#locales, this.#options); }
          formatToParts(n) { return [{ type: 'literal', value: this.format(n) }]; }
          resolvedOptions() { return Object.assign({ locale: this.#locales, numberingSystem: 'latn', style: 'decimal' }, this.#options); }
        },
        DateTimeFormat: class DateTimeFormat {
          #options;
          constructor(locales, options) {
            dateLocale(locales);
            this.#options = Object.assign({}, options);
            checkTimeZone(this.#options.timeZone);
          }
          format(d) { return formatDate(d === undefined ? new Date() : d, undefined, this.#options, 'date'); }
          formatToParts(d) { return [{ type: 'literal', value: this.format(d) }]; }
          resolvedOptions() { return Object.assign({ locale: 'en-US', calendar: 'gregory', numberingSystem: 'latn' }, this.#options, { timeZone: 'UTC' }); }
        },
        Collator: class Collator {
          #options;
          constructor(locales, options) { numberLocale(locales); this.#options = Object.assign({}, options); }
          compare = (a, b) => {
            let x = String(a), y = String(b);
            if (this.#options.sensitivity === 'base' || this.#options.sensitivity === 'accent') { x = x.toLowerCase(); y = y.toLowerCase(); }
            if (this.#options.numeric) {
              const re = /(\d+)|(\D+)/g;
              const xs = x.match(re) || [], ys = y.match(re) || [];
              for (let i = 0; i < Math.min(xs.length, ys.length); i++) {
                const nx = /^\d/.test(xs[i]) && /^\d/.test(ys[i]);
                const c = nx ? Number(xs[i]) - Number(ys[i]) : xs[i].localeCompare(ys[i]);
                if (c !== 0) return c < 0 ? -1 : 1;
              }
              return xs.length - ys.length < 0 ? -1 : xs.length > ys.length ? 1 : 0;
            }
            return x.localeCompare(y);
          };
          resolvedOptions() { return Object.assign({ locale: 'en-US' }, this.#options); }
        },
        PluralRules: class PluralRules {
          #options;
          constructor(locales, options) { pluralLocale(locales); this.#options = Object.assign({}, options); }
          select(n) {
            if (this.#options.type === 'ordinal') {
              const m10 = n % 10, m100 = n % 100;
              if (m10 === 1 && m100 !== 11) return 'one';
              if (m10 === 2 && m100 !== 12) return 'two';
              if (m10 === 3 && m100 !== 13) return 'few';
              return 'other';
            }
            return n === 1 ? 'one' : 'other';
          }
        },
        getCanonicalLocales: (l) => [].concat(l || []).map((x) => firstLocale(x)),
      };
      for (const k of ['NumberFormat', 'DateTimeFormat', 'Collator', 'PluralRules']) Intl[k] = callableClass(Intl[k]);
      return Intl;
    }
    return { formatNumber, formatDate, makeIntl };
