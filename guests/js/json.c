/*
 * json.c: JSON.stringify, written over QuickJS's public API.
 *
 * Why: QuickJS-NG's own JSON.stringify builds every key as a JS string,
 * keeps its cycle stack in a JS array and quotes strings one character at
 * a time; on a 5 MB document it took twice the reference's time, and it
 * recursed on the wasm stack without a depth check, so a value nested
 * about 100,000 deep ended the run with a trap instead of an error.
 *
 * This is the algorithm of ECMA-262's JSON.stringify (SerializeJSONProperty,
 * SerializeJSONObject, SerializeJSONArray, QuoteJSONString) step by step,
 * replacer functions, property lists and gaps included, writing UTF-8 into
 * one malloc'd buffer that becomes a JS string at the end. Nesting deeper
 * than AMLA_JSON_MAX_DEPTH (the limit JSON.parse has here too) throws a
 * RangeError.
 *
 * Ownership: every JSValue a function receives as "JSValue v" (not
 * JSValueConst) is owned by it and freed on every path.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amla.h"

/* Looked up in amla_install_json (before any user code runs) and kept for
 * the life of the runtime, so scripts that replace them change nothing. */
static JSClassID class_number, class_string, class_boolean, class_bigint, class_rawjson;
static JSValue boolean_value_of = JS_UNDEFINED; /* Boolean.prototype.valueOf */
static JSValue array_is_array = JS_UNDEFINED;   /* Array.isArray (sees through proxies) */
static JSValue string_concat = JS_UNDEFINED;    /* (a, b) => a + b: `+` keeps long strings as a rope */
static JSAtom atom_to_json, atom_raw_json;

/* ---- output buffer ----------------------------------------------------- */

/* Output is UTF-8 in p. Past FLUSH_AT bytes it is moved, at a point where
 * nothing written may still be taken back, into text: a JS string built
 * by concatenation, which QuickJS keeps as a rope, so a long result needs
 * about its own size once rather than a buffer and a copy of it. */
typedef struct {
    char *p;
    size_t len, cap;
    JSValue text; /* what was flushed so far, or undefined */
} Buf;

enum { FLUSH_AT = 8 << 20 };

static int buf_reserve(JSContext *ctx, Buf *b, size_t more)
{
    if (b->cap - b->len >= more)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < more) {
        if (cap > SIZE_MAX / 2) {
            JS_ThrowOutOfMemory(ctx);
            return -1;
        }
        cap *= 2;
    }
    char *p = realloc(b->p, cap);
    if (!p) {
        JS_ThrowOutOfMemory(ctx);
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

static int buf_put(JSContext *ctx, Buf *b, const char *s, size_t n)
{
    if (buf_reserve(ctx, b, n))
        return -1;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    return 0;
}

static int buf_putc(JSContext *ctx, Buf *b, char c)
{
    if (b->len == b->cap && buf_reserve(ctx, b, 1))
        return -1;
    b->p[b->len++] = c;
    return 0;
}

/* buf_flush moves the buffer's bytes (whole UTF-8 sequences) into text. */
static int buf_flush(JSContext *ctx, Buf *b)
{
    if (b->len == 0)
        return 0;
    JSValue part = JS_NewStringLen(ctx, b->p, b->len);
    if (JS_IsException(part))
        return -1;
    b->len = 0;
    if (JS_IsUndefined(b->text)) {
        b->text = part;
        return 0;
    }
    JSValueConst args[2] = {b->text, part};
    JSValue joined = JS_Call(ctx, string_concat, JS_UNDEFINED, 2, args);
    JS_FreeValue(ctx, part);
    JS_FreeValue(ctx, b->text);
    b->text = JS_UNDEFINED;
    if (JS_IsException(joined))
        return -1;
    b->text = joined;
    return 0;
}

static int buf_maybe_flush(JSContext *ctx, Buf *b)
{
    return b->len >= FLUSH_AT ? buf_flush(ctx, b) : 0;
}

/* ---- state of one call ------------------------------------------------- */

typedef struct {
    JSContext *ctx;
    Buf out;
    JSValueConst replacer; /* a function, or undefined */
    JSAtom *props;         /* the property list of an array replacer */
    uint32_t n_props;
    int has_props;
    char gap[48]; /* at most 10 UTF-16 code units, as UTF-8 */
    size_t gap_len;
    void **stack; /* the objects being serialized, outermost first */
    int depth, stack_cap;
} Ctx;

/* A property key: an atom (object members) or an index (array elements). */
typedef struct {
    JSAtom atom;
    int64_t index;
    int is_index;
} Key;

static JSValue key_value(JSContext *ctx, Key k)
{
    if (!k.is_index)
        return JS_AtomToString(ctx, k.atom);
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%lld", (long long)k.index);
    return JS_NewStringLen(ctx, digits, (size_t)n);
}

/* ---- primitives -------------------------------------------------------- */

static const char hex[] = "0123456789abcdef";

/* quote_utf8 appends s (UTF-8 from JS_ToCStringLen, where a lone surrogate
 * is the three bytes ED A0..BF xx) as a JSON string: QuoteJSONString. It
 * reserves room a chunk at a time (at most 6 output bytes per input byte),
 * and with may_flush (a value, not a key) flushes between chunks, so a long
 * string needs little more than its own size. */
static int quote_utf8(JSContext *ctx, Buf *b, const unsigned char *s, size_t n, int may_flush)
{
    enum { CHUNK = 4096 };
    if (buf_putc(ctx, b, '"'))
        return -1;
    size_t i = 0;
    while (i < n) {
        size_t stop = n - i < CHUNK ? n : i + CHUNK;
        while (stop < n && (s[stop] & 0xC0) == 0x80)
            stop++; /* end the chunk on a whole character */
        if (may_flush && buf_maybe_flush(ctx, b))
            return -1;
        if (buf_reserve(ctx, b, (stop - i) * 6 + 6))
            return -1;
        char *q = b->p + b->len;
        for (; i < stop; i++) {
            unsigned char c = s[i];
            if (c >= 0x20 && c != '"' && c != '\\' && c != 0xED) {
                *q++ = (char)c;
                continue;
            }
            switch (c) {
            case '"': *q++ = '\\'; *q++ = '"'; break;
            case '\\': *q++ = '\\'; *q++ = '\\'; break;
            case '\b': *q++ = '\\'; *q++ = 'b'; break;
            case '\f': *q++ = '\\'; *q++ = 'f'; break;
            case '\n': *q++ = '\\'; *q++ = 'n'; break;
            case '\r': *q++ = '\\'; *q++ = 'r'; break;
            case '\t': *q++ = '\\'; *q++ = 't'; break;
            case 0xED:
                if (i + 2 < n && s[i + 1] >= 0xA0) {
                    /* A lone surrogate U+D800..U+DFFF: escaped, as the spec
                     * says. Three input bytes, six output bytes. */
                    unsigned u = 0xD000 | ((unsigned)(s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F);
                    *q++ = '\\'; *q++ = 'u';
                    *q++ = hex[u >> 12]; *q++ = hex[(u >> 8) & 15];
                    *q++ = hex[(u >> 4) & 15]; *q++ = hex[u & 15];
                    i += 2;
                } else {
                    *q++ = (char)c;
                }
                break;
            default: /* other control characters */
                *q++ = '\\'; *q++ = 'u'; *q++ = '0'; *q++ = '0';
                *q++ = hex[c >> 4]; *q++ = hex[c & 15];
                break;
            }
        }
        b->len = (size_t)(q - b->p);
    }
    return buf_putc(ctx, b, '"');
}

static int put_quoted(Ctx *c, JSValueConst str)
{
    size_t n;
    const char *s = JS_ToCStringLen2(c->ctx, &n, str, false);
    if (!s)
        return -1;
    int r = quote_utf8(c->ctx, &c->out, (const unsigned char *)s, n, 1);
    JS_FreeCString(c->ctx, s);
    return r;
}

static int put_quoted_atom(Ctx *c, JSAtom atom)
{
    size_t n;
    const char *s = JS_AtomToCStringLen(c->ctx, &n, atom);
    if (!s)
        return -1;
    int r = quote_utf8(c->ctx, &c->out, (const unsigned char *)s, n, 0);
    JS_FreeCString(c->ctx, s);
    return r;
}

static int put_int(Ctx *c, int64_t v)
{
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%lld", (long long)v);
    return buf_put(c->ctx, &c->out, digits, (size_t)n);
}

/* put_number appends Number::toString(d), or null when d is not finite. */
static int put_number(Ctx *c, double d)
{
    if (!isfinite(d))
        return buf_put(c->ctx, &c->out, "null", 4);
    if (d == 0)
        return buf_putc(c->ctx, &c->out, '0'); /* -0 too */
    if (d == trunc(d) && fabs(d) < 9007199254740992.0)
        return put_int(c, (int64_t)d);
    /* Shortest round-trip digits: QuickJS's own Number::toString. */
    JSValue num = JS_NewFloat64(c->ctx, d);
    size_t n;
    const char *s = JS_ToCStringLen(c->ctx, &n, num);
    JS_FreeValue(c->ctx, num);
    if (!s)
        return -1;
    int r = buf_put(c->ctx, &c->out, s, n);
    JS_FreeCString(c->ctx, s);
    return r;
}

static int put_newline_indent(Ctx *c, int levels)
{
    if (buf_reserve(c->ctx, &c->out, 1 + (size_t)levels * c->gap_len))
        return -1;
    c->out.p[c->out.len++] = '\n';
    for (int i = 0; i < levels; i++) {
        memcpy(c->out.p + c->out.len, c->gap, c->gap_len);
        c->out.len += c->gap_len;
    }
    return 0;
}

/* ---- structure --------------------------------------------------------- */

static int ser_property(Ctx *c, JSValueConst holder, Key key, JSValue v);

/* enter pushes obj on the stack: a TypeError if it is already there (a
 * cycle), a RangeError past AMLA_JSON_MAX_DEPTH. */
static int enter(Ctx *c, JSValueConst obj)
{
    void *p = JS_VALUE_GET_PTR(obj);
    for (int i = 0; i < c->depth; i++) {
        if (c->stack[i] == p) {
            JS_ThrowTypeError(c->ctx, "circular reference");
            return -1;
        }
    }
    if (c->depth >= AMLA_JSON_MAX_DEPTH) {
        JS_ThrowRangeError(c->ctx, "Maximum call stack size exceeded (JSON nested too deeply)");
        return -1;
    }
    if (c->depth == c->stack_cap) {
        int cap = c->stack_cap ? c->stack_cap * 2 : 32;
        void **s = realloc(c->stack, (size_t)cap * sizeof *s);
        if (!s) {
            JS_ThrowOutOfMemory(c->ctx);
            return -1;
        }
        c->stack = s;
        c->stack_cap = cap;
    }
    c->stack[c->depth++] = p;
    return 0;
}

/* own_enumerable_keys lists obj's own enumerable string keys in order
 * (EnumerableOwnProperties). A proxy's traps decide both the keys and
 * whether each is enumerable. */
static int own_enumerable_keys(JSContext *ctx, JSValueConst obj, JSPropertyEnum **ptab, uint32_t *plen)
{
    if (!JS_IsProxy(obj))
        return JS_GetOwnPropertyNames(ctx, ptab, plen, obj, JS_GPN_STRING_MASK | JS_GPN_ENUM_ONLY);
    JSPropertyEnum *tab;
    uint32_t len, kept = 0;
    if (JS_GetOwnPropertyNames(ctx, &tab, &len, obj, JS_GPN_STRING_MASK) < 0)
        return -1;
    for (uint32_t i = 0; i < len; i++) {
        JSPropertyDescriptor desc;
        int r = JS_GetOwnProperty(ctx, &desc, obj, tab[i].atom);
        if (r < 0) {
            JS_FreePropertyEnum(ctx, tab, len);
            return -1;
        }
        int keep = r && (desc.flags & JS_PROP_ENUMERABLE);
        if (r) {
            JS_FreeValue(ctx, desc.value);
            JS_FreeValue(ctx, desc.getter);
            JS_FreeValue(ctx, desc.setter);
        }
        if (keep) {
            JSPropertyEnum e = tab[kept];
            tab[kept++] = tab[i];
            tab[i] = e;
        }
    }
    /* JS_FreePropertyEnum frees every atom: hand back the kept ones and
     * free the rest here. */
    for (uint32_t i = kept; i < len; i++) {
        JS_FreeAtom(ctx, tab[i].atom);
        tab[i].atom = JS_ATOM_NULL;
    }
    *ptab = tab;
    *plen = kept;
    return 0;
}

static int ser_object(Ctx *c, JSValueConst obj)
{
    JSContext *ctx = c->ctx;
    JSPropertyEnum *tab = NULL;
    uint32_t len = 0;
    int r = -1, any = 0;

    if (enter(c, obj))
        return -1;
    if (!c->has_props && own_enumerable_keys(ctx, obj, &tab, &len))
        goto done;
    uint32_t n = c->has_props ? c->n_props : len;
    if (buf_putc(ctx, &c->out, '{'))
        goto done;
    for (uint32_t i = 0; i < n; i++) {
        JSAtom atom = c->has_props ? c->props[i] : tab[i].atom;
        /* Flush here, never after mark: until its value starts to be
         * written, the member may still be taken back. */
        if (buf_maybe_flush(ctx, &c->out))
            goto done;
        size_t mark = c->out.len;
        if (any && buf_putc(ctx, &c->out, ','))
            goto done;
        if (c->gap_len && put_newline_indent(c, c->depth))
            goto done;
        if (put_quoted_atom(c, atom) || buf_putc(ctx, &c->out, ':'))
            goto done;
        if (c->gap_len && buf_putc(ctx, &c->out, ' '))
            goto done;
        JSValue v = JS_GetProperty(ctx, obj, atom);
        if (JS_IsException(v))
            goto done;
        int w = ser_property(c, obj, (Key){atom, 0, 0}, v);
        if (w < 0)
            goto done;
        if (w == 0)
            c->out.len = mark; /* undefined, a function or a symbol: left out */
        else
            any = 1;
    }
    if (any && c->gap_len && put_newline_indent(c, c->depth - 1))
        goto done;
    r = buf_putc(ctx, &c->out, '}');
done:
    if (tab)
        JS_FreePropertyEnum(ctx, tab, len);
    c->depth--;
    return r;
}

static int ser_array(Ctx *c, JSValueConst arr)
{
    JSContext *ctx = c->ctx;
    int64_t len;
    int r = -1;

    if (enter(c, arr))
        return -1;
    if (JS_GetLength(ctx, arr, &len) || buf_putc(ctx, &c->out, '['))
        goto done;
    for (int64_t i = 0; i < len; i++) {
        if (buf_maybe_flush(ctx, &c->out) || (i > 0 && buf_putc(ctx, &c->out, ',')))
            goto done;
        if (c->gap_len && put_newline_indent(c, c->depth))
            goto done;
        JSValue v = JS_GetPropertyInt64(ctx, arr, i);
        if (JS_IsException(v))
            goto done;
        int w = ser_property(c, arr, (Key){JS_ATOM_NULL, i, 1}, v);
        if (w < 0)
            goto done;
        if (w == 0 && buf_put(ctx, &c->out, "null", 4))
            goto done;
    }
    if (len > 0 && c->gap_len && put_newline_indent(c, c->depth - 1))
        goto done;
    r = buf_putc(ctx, &c->out, ']');
done:
    c->depth--;
    return r;
}

/* is_array is IsArray: true for arrays and for proxies of arrays. */
static int is_array(JSContext *ctx, JSValueConst v)
{
    if (!JS_IsProxy(v))
        return JS_IsArray(v);
    JSValue r = JS_Call(ctx, array_is_array, JS_UNDEFINED, 1, &v);
    if (JS_IsException(r))
        return -1;
    return JS_ToBool(ctx, r); /* r is a boolean: nothing to free */
}

/* call_with_key calls fn on this_val with the key as a string, and v as
 * a second argument when with_value is set. The caller keeps v. */
static JSValue call_with_key(JSContext *ctx, JSValueConst fn, JSValueConst this_val, Key key,
                             JSValueConst v, int with_value)
{
    JSValue args[2];
    args[0] = key_value(ctx, key);
    if (JS_IsException(args[0]))
        return JS_EXCEPTION;
    args[1] = JS_DupValue(ctx, v);
    JSValue r = JS_Call(ctx, fn, this_val, with_value ? 2 : 1, (JSValueConst *)args);
    JS_FreeValue(ctx, args[0]);
    JS_FreeValue(ctx, args[1]);
    return r;
}

/* ser_property is SerializeJSONProperty for the value v of holder[key]:
 * 1 if it wrote a value, 0 if the value is not serializable (undefined, a
 * function, a symbol), -1 with an exception pending. Consumes v. */
static int ser_property(Ctx *c, JSValueConst holder, Key key, JSValue v)
{
    JSContext *ctx = c->ctx;
    int r = -1;

    if (JS_IsObject(v) || JS_IsBigInt(v)) {
        JSValue f = JS_GetProperty(ctx, v, atom_to_json);
        if (JS_IsException(f))
            goto done;
        if (JS_IsFunction(ctx, f)) {
            JSValue nv = call_with_key(ctx, f, v, key, JS_UNDEFINED, 0);
            JS_FreeValue(ctx, f);
            JS_FreeValue(ctx, v);
            v = nv;
            if (JS_IsException(v))
                return -1;
        } else {
            JS_FreeValue(ctx, f);
        }
    }
    if (!JS_IsUndefined(c->replacer)) {
        JSValue nv = call_with_key(ctx, c->replacer, holder, key, v, 1);
        JS_FreeValue(ctx, v);
        v = nv;
        if (JS_IsException(v))
            return -1;
    }
    if (JS_IsObject(v)) {
        JSClassID id = JS_GetClassID(v);
        JSValue nv = JS_UNINITIALIZED;
        if (id == class_number) {
            double d;
            if (JS_ToFloat64(ctx, &d, v))
                goto done;
            nv = JS_NewFloat64(ctx, d);
        } else if (id == class_string) {
            nv = JS_ToString(ctx, v);
        } else if (id == class_boolean) {
            nv = JS_Call(ctx, boolean_value_of, v, 0, NULL);
        } else if (id == class_bigint) {
            JS_ThrowTypeError(ctx, "BigInt are forbidden in JSON.stringify");
            goto done;
        } else if (id == class_rawjson) {
            JSValue raw = JS_GetProperty(ctx, v, atom_raw_json);
            if (JS_IsException(raw))
                goto done;
            size_t n;
            const char *s = JS_ToCStringLen(ctx, &n, raw);
            JS_FreeValue(ctx, raw);
            if (!s)
                goto done;
            r = buf_put(ctx, &c->out, s, n) ? -1 : 1;
            JS_FreeCString(ctx, s);
            goto done;
        }
        if (!JS_IsUninitialized(nv)) {
            JS_FreeValue(ctx, v);
            v = nv;
            if (JS_IsException(v))
                return -1;
        }
    }

    switch (JS_VALUE_GET_NORM_TAG(v)) {
    case JS_TAG_NULL:
        r = buf_put(ctx, &c->out, "null", 4) ? -1 : 1;
        break;
    case JS_TAG_BOOL:
        r = (JS_VALUE_GET_BOOL(v) ? buf_put(ctx, &c->out, "true", 4)
                                  : buf_put(ctx, &c->out, "false", 5)) ? -1 : 1;
        break;
    case JS_TAG_INT:
        r = put_int(c, JS_VALUE_GET_INT(v)) ? -1 : 1;
        break;
    case JS_TAG_FLOAT64:
        r = put_number(c, JS_VALUE_GET_FLOAT64(v)) ? -1 : 1;
        break;
    case JS_TAG_STRING:
    case JS_TAG_STRING_ROPE:
        r = put_quoted(c, v) ? -1 : 1;
        break;
    case JS_TAG_OBJECT: {
        if (JS_IsFunction(ctx, v)) {
            r = 0;
            break;
        }
        int a = is_array(ctx, v);
        if (a < 0)
            break;
        r = (a ? ser_array(c, v) : ser_object(c, v)) ? -1 : 1;
        break;
    }
    default:
        if (JS_IsBigInt(v)) {
            JS_ThrowTypeError(ctx, "BigInt are forbidden in JSON.stringify");
            break;
        }
        r = 0; /* undefined, symbol */
        break;
    }
done:
    JS_FreeValue(ctx, v);
    return r;
}

/* ---- JSON.stringify(value, replacer, space) ---------------------------- */

/* add_prop appends the atom of v to the property list unless it is there. */
static int add_prop(Ctx *c, JSValueConst v, uint32_t *cap)
{
    JSAtom a = JS_ValueToAtom(c->ctx, v);
    if (a == JS_ATOM_NULL)
        return -1;
    for (uint32_t i = 0; i < c->n_props; i++) {
        if (c->props[i] == a) {
            JS_FreeAtom(c->ctx, a);
            return 0;
        }
    }
    if (c->n_props == *cap) {
        uint32_t ncap = *cap ? *cap * 2 : 8;
        JSAtom *p = realloc(c->props, ncap * sizeof *p);
        if (!p) {
            JS_FreeAtom(c->ctx, a);
            JS_ThrowOutOfMemory(c->ctx);
            return -1;
        }
        c->props = p;
        *cap = ncap;
    }
    c->props[c->n_props++] = a;
    return 0;
}

/* property_list reads an array replacer into c->props. */
static int property_list(Ctx *c, JSValueConst replacer)
{
    JSContext *ctx = c->ctx;
    int64_t len;
    uint32_t cap = 0;
    c->has_props = 1;
    if (JS_GetLength(ctx, replacer, &len))
        return -1;
    for (int64_t i = 0; i < len; i++) {
        JSValue v = JS_GetPropertyInt64(ctx, replacer, i);
        if (JS_IsException(v))
            return -1;
        JSValue item = JS_UNDEFINED;
        if (JS_IsString(v)) {
            item = JS_DupValue(ctx, v);
        } else if (JS_IsNumber(v)) {
            item = JS_ToString(ctx, v);
        } else if (JS_IsObject(v)) {
            JSClassID id = JS_GetClassID(v);
            if (id == class_string || id == class_number)
                item = JS_ToString(ctx, v);
        }
        JS_FreeValue(ctx, v);
        if (JS_IsException(item))
            return -1;
        if (JS_IsUndefined(item))
            continue;
        int r = add_prop(c, item, &cap);
        JS_FreeValue(ctx, item);
        if (r)
            return -1;
    }
    return 0;
}

/* set_gap computes the gap from the space argument. */
static int set_gap(Ctx *c, JSValueConst space0)
{
    JSContext *ctx = c->ctx;
    JSValue space = JS_DupValue(ctx, space0);
    if (JS_IsObject(space)) {
        JSClassID id = JS_GetClassID(space);
        JSValue nv = JS_UNINITIALIZED;
        if (id == class_number) {
            double d;
            if (JS_ToFloat64(ctx, &d, space)) {
                JS_FreeValue(ctx, space);
                return -1;
            }
            nv = JS_NewFloat64(ctx, d);
        } else if (id == class_string) {
            nv = JS_ToString(ctx, space);
        }
        if (!JS_IsUninitialized(nv)) {
            JS_FreeValue(ctx, space);
            space = nv;
            if (JS_IsException(space))
                return -1;
        }
    }
    int r = 0;
    if (JS_IsNumber(space)) {
        double d; /* ToIntegerOrInfinity, clamped to 0..10 */
        r = JS_ToFloat64(ctx, &d, space);
        if (!r) {
            int n = isnan(d) || d < 1 ? 0 : d >= 10 ? 10 : (int)d;
            memset(c->gap, ' ', (size_t)n);
            c->gap_len = (size_t)n;
        }
    } else if (JS_IsString(space)) {
        /* The first 10 UTF-16 code units, kept as UTF-8. */
        size_t n;
        const unsigned char *s = (const unsigned char *)JS_ToCStringLen2(ctx, &n, space, false);
        if (!s) {
            r = -1;
        } else {
            size_t i = 0;
            int units = 0;
            while (i < n && units < 10) {
                unsigned char b = s[i];
                size_t len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
                int u = len == 4 ? 2 : 1;
                if (units + u > 10 || i + len > n)
                    break; /* would split a surrogate pair */
                units += u;
                i += len;
            }
            memcpy(c->gap, s, i);
            c->gap_len = i;
            JS_FreeCString(ctx, (const char *)s);
        }
    }
    JS_FreeValue(ctx, space);
    return r;
}

static JSValue js_stringify(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    JSValueConst value = argc > 0 ? argv[0] : JS_UNDEFINED;
    JSValueConst replacer = argc > 1 ? argv[1] : JS_UNDEFINED;
    JSValueConst space = argc > 2 ? argv[2] : JS_UNDEFINED;
    Ctx c = {.ctx = ctx, .replacer = JS_UNDEFINED, .out = {.text = JS_UNDEFINED}};
    JSValue holder = JS_UNDEFINED, ret = JS_EXCEPTION;

    if (JS_IsFunction(ctx, replacer)) {
        c.replacer = replacer;
    } else if (JS_IsObject(replacer)) {
        int a = is_array(ctx, replacer);
        if (a < 0 || (a && property_list(&c, replacer)))
            goto done;
    }
    if (set_gap(&c, space))
        goto done;
    /* The holder {"": value} is only observable by a replacer function. */
    if (!JS_IsUndefined(c.replacer)) {
        holder = JS_NewObject(ctx);
        if (JS_IsException(holder) ||
            JS_DefinePropertyValueStr(ctx, holder, "", JS_DupValue(ctx, value), JS_PROP_C_W_E) < 0)
            goto done;
    }
    JSAtom empty = JS_NewAtom(ctx, "");
    if (empty == JS_ATOM_NULL)
        goto done;
    int w = ser_property(&c, holder, (Key){empty, 0, 0}, JS_DupValue(ctx, value));
    JS_FreeAtom(ctx, empty);
    if (w < 0)
        goto done;
    if (w == 0) {
        ret = JS_UNDEFINED;
    } else if (JS_IsUndefined(c.out.text)) {
        /* Give back the doubling slack before the text is copied. */
        char *p = c.out.len ? realloc(c.out.p, c.out.len) : NULL;
        if (p)
            c.out.p = p;
        ret = JS_NewStringLen(ctx, c.out.p, c.out.len);
    } else if (buf_flush(ctx, &c.out) == 0) {
        ret = c.out.text;
        c.out.text = JS_UNDEFINED;
    }
done:
    JS_FreeValue(ctx, holder);
    for (uint32_t i = 0; i < c.n_props; i++)
        JS_FreeAtom(ctx, c.props[i]);
    free(c.props);
    free(c.stack);
    free(c.out.p);
    JS_FreeValue(ctx, c.out.text);
    return ret;
}

/* class_of evaluates src and returns the class of the object it gives. */
static int class_of(JSContext *ctx, const char *src, JSClassID *id)
{
    JSValue v = JS_Eval(ctx, src, strlen(src), "<json init>", JS_EVAL_TYPE_GLOBAL);
    if (JS_IsException(v))
        return -1;
    *id = JS_GetClassID(v);
    JS_FreeValue(ctx, v);
    return 0;
}

static JSValue get_path(JSContext *ctx, const char *src)
{
    return JS_Eval(ctx, src, strlen(src), "<json init>", JS_EVAL_TYPE_GLOBAL);
}

/* amla_install_json replaces JSON.stringify; called in amla_init before
 * the prelude, so the prelude's saved copy is this one. -1 on failure. */
int amla_install_json(JSContext *ctx)
{
    if (class_of(ctx, "new Number(0)", &class_number) ||
        class_of(ctx, "new String('')", &class_string) ||
        class_of(ctx, "new Boolean(false)", &class_boolean) ||
        class_of(ctx, "Object(0n)", &class_bigint) ||
        class_of(ctx, "JSON.rawJSON('0')", &class_rawjson))
        return -1;
    boolean_value_of = get_path(ctx, "Boolean.prototype.valueOf");
    array_is_array = get_path(ctx, "Array.isArray");
    /* Not String.prototype.concat: it copies two flat strings into a
     * third, which made flushing quadratic. */
    string_concat = get_path(ctx, "(a, b) => a + b");
    if (!JS_IsFunction(ctx, boolean_value_of) || !JS_IsFunction(ctx, array_is_array) ||
        !JS_IsFunction(ctx, string_concat))
        return -1;
    atom_to_json = JS_NewAtom(ctx, "toJSON");
    atom_raw_json = JS_NewAtom(ctx, "rawJSON");
    if (atom_to_json == JS_ATOM_NULL || atom_raw_json == JS_ATOM_NULL)
        return -1;
    JSValue json = get_path(ctx, "JSON");
    if (JS_IsException(json))
        return -1;
    int r = amla_set_func(ctx, json, "stringify", js_stringify, 3);
    JS_FreeValue(ctx, json);
    return r;
}
