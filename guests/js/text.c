/*
 * text.c: byte and text conversions that would be slow in JavaScript, for
 * TextEncoder/TextDecoder, Buffer and fs encodings, plus random bytes.
 *
 *   utf8Encode(string) -> Uint8Array      lone surrogates become U+FFFD
 *   utf8Decode(bytes, fatal) -> string    invalid bytes become U+FFFD, or
 *                                         a TypeError when fatal
 *   encode(bytes, enc) -> string          enc: utf8 hex base64 base64url latin1
 *   decode(string, enc) -> Uint8Array     the inverse (base64 is forgiving)
 *   randomFill(bytes) -> bytes            WASI random_get
 *   jsonTooDeep(text) -> bool             nesting deeper than AMLA_JSON_MAX_DEPTH
 *
 * Encoding names arrive lower-cased and checked by the prelude.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "amla.h"

uint8_t *amla_bytes(JSContext *ctx, JSValueConst v, size_t *len)
{
    static uint8_t empty[1];
    uint8_t *p = JS_GetUint8Array(ctx, len, v);
    if (!p && *len == 0 && !JS_HasException(ctx))
        return empty;
    return p;
}

JSValue amla_new_bytes(JSContext *ctx, const uint8_t *buf, size_t len)
{
    return JS_NewUint8ArrayCopy(ctx, buf, len);
}

/* utf8_valid_len returns the length of the valid UTF-8 sequence at p (1-4)
 * or 0 when the bytes there do not start one. */
static size_t utf8_valid_len(const uint8_t *p, size_t n)
{
    uint8_t c = p[0];
    if (c < 0x80)
        return 1;
    size_t need;
    uint32_t min;
    if (c >= 0xC2 && c <= 0xDF) {
        need = 2;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 3;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < need)
        return 0;
    uint32_t cp = c & (0xFF >> (need + 1));
    for (size_t i = 1; i < need; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return need;
}

/* utf8_to_string decodes UTF-8 as TextDecoder does: each maximal invalid
 * subsequence becomes U+FFFD. With fatal, invalid input throws. */
static JSValue utf8_to_string(JSContext *ctx, const uint8_t *p, size_t n, int fatal)
{
    size_t i = 0, bad = 0;
    while (i < n) {
        size_t l = utf8_valid_len(p + i, n - i);
        if (!l) {
            bad++;
            i++;
        } else {
            i += l;
        }
    }
    if (!bad)
        return JS_NewStringLen(ctx, (const char *)p, n);
    if (fatal)
        return JS_ThrowTypeError(ctx, "The encoded data was not valid for encoding utf-8");
    uint8_t *out = malloc(n + bad * 2 + 1);
    if (!out)
        return JS_ThrowOutOfMemory(ctx);
    size_t o = 0;
    for (i = 0; i < n;) {
        size_t l = utf8_valid_len(p + i, n - i);
        if (!l) {
            out[o++] = 0xEF;
            out[o++] = 0xBF;
            out[o++] = 0xBD;
            i++;
        } else {
            memcpy(out + o, p + i, l);
            o += l;
            i += l;
        }
    }
    JSValue s = JS_NewStringLen(ctx, (const char *)out, o);
    free(out);
    return s;
}

static JSValue js_utf8_encode(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    size_t len;
    const char *s = JS_ToCStringLen(ctx, &len, argv[0]);
    if (!s)
        return JS_EXCEPTION;
    JSValue r;
    if (memchr(s, 0xED, len)) {
        char *copy = malloc(len ? len : 1);
        if (!copy) {
            JS_FreeCString(ctx, s);
            return JS_ThrowOutOfMemory(ctx);
        }
        memcpy(copy, s, len);
        amla_utf8_fix(copy, len);
        r = amla_new_bytes(ctx, (const uint8_t *)copy, len);
        free(copy);
    } else {
        r = amla_new_bytes(ctx, (const uint8_t *)s, len);
    }
    JS_FreeCString(ctx, s);
    return r;
}

static JSValue js_utf8_decode(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    size_t len;
    uint8_t *p = amla_bytes(ctx, argv[0], &len);
    if (!p)
        return JS_EXCEPTION;
    return utf8_to_string(ctx, p, len, JS_ToBool(ctx, argv[1]));
}

static const char b64std[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char b64url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
static const char hexdigits[] = "0123456789abcdef";

static JSValue js_encode(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    size_t n;
    uint8_t *p = amla_bytes(ctx, argv[0], &n);
    if (!p)
        return JS_EXCEPTION;
    const char *enc = JS_ToCString(ctx, argv[1]);
    if (!enc)
        return JS_EXCEPTION;
    JSValue r;
    char *out = NULL;
    size_t o = 0;
    if (!strcmp(enc, "utf8")) {
        JS_FreeCString(ctx, enc);
        return utf8_to_string(ctx, p, n, 0);
    } else if (!strcmp(enc, "hex")) {
        out = malloc(n * 2 + 1);
        if (out)
            for (size_t i = 0; i < n; i++) {
                out[o++] = hexdigits[p[i] >> 4];
                out[o++] = hexdigits[p[i] & 15];
            }
    } else if (!strcmp(enc, "base64") || !strcmp(enc, "base64url")) {
        int url = enc[6] != 0;
        const char *tab = url ? b64url : b64std;
        out = malloc((n + 2) / 3 * 4 + 1);
        if (out) {
            size_t i = 0;
            for (; i + 2 < n; i += 3) {
                uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
                out[o++] = tab[v >> 18];
                out[o++] = tab[(v >> 12) & 63];
                out[o++] = tab[(v >> 6) & 63];
                out[o++] = tab[v & 63];
            }
            if (i < n) {
                uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
                out[o++] = tab[v >> 18];
                out[o++] = tab[(v >> 12) & 63];
                if (i + 1 < n)
                    out[o++] = tab[(v >> 6) & 63];
                else if (!url)
                    out[o++] = '=';
                if (!url)
                    out[o++] = '=';
            }
        }
    } else if (!strcmp(enc, "latin1")) {
        out = malloc(n * 2 + 1);
        if (out)
            for (size_t i = 0; i < n; i++) {
                if (p[i] < 0x80) {
                    out[o++] = (char)p[i];
                } else {
                    out[o++] = (char)(0xC0 | p[i] >> 6);
                    out[o++] = (char)(0x80 | (p[i] & 0x3F));
                }
            }
    } else {
        r = JS_ThrowTypeError(ctx, "Unknown encoding: %s", enc);
        JS_FreeCString(ctx, enc);
        return r;
    }
    JS_FreeCString(ctx, enc);
    if (!out)
        return JS_ThrowOutOfMemory(ctx);
    r = JS_NewStringLen(ctx, out, o);
    free(out);
    return r;
}

static int b64_value(int c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

static int hex_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static JSValue js_decode(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    const char *enc = JS_ToCString(ctx, argv[1]);
    if (!enc)
        return JS_EXCEPTION;
    JSValue r;
    if (!strcmp(enc, "latin1")) {
        JS_FreeCString(ctx, enc);
        size_t n;
        const uint16_t *u = JS_ToCStringLenUTF16(ctx, &n, argv[0]);
        if (!u)
            return JS_EXCEPTION;
        uint8_t *out = malloc(n ? n : 1);
        if (!out) {
            JS_FreeCStringUTF16(ctx, u);
            return JS_ThrowOutOfMemory(ctx);
        }
        for (size_t i = 0; i < n; i++)
            out[i] = (uint8_t)u[i];
        JS_FreeCStringUTF16(ctx, u);
        r = amla_new_bytes(ctx, out, n);
        free(out);
        return r;
    }
    size_t n;
    const char *s = JS_ToCStringLen(ctx, &n, argv[0]);
    if (!s) {
        JS_FreeCString(ctx, enc);
        return JS_EXCEPTION;
    }
    uint8_t *out = NULL;
    size_t o = 0;
    if (!strcmp(enc, "utf8")) {
        if (memchr(s, 0xED, n)) {
            char *copy = malloc(n ? n : 1);
            if (copy) {
                memcpy(copy, s, n);
                amla_utf8_fix(copy, n);
            }
            out = (uint8_t *)copy;
        } else {
            out = malloc(n ? n : 1);
            if (out)
                memcpy(out, s, n);
        }
        o = n;
    } else if (!strcmp(enc, "hex")) {
        /* Node stops at the first pair that is not hex. */
        out = malloc(n / 2 + 1);
        if (out)
            for (size_t i = 0; i + 1 < n; i += 2) {
                int a = hex_value((unsigned char)s[i]), b = hex_value((unsigned char)s[i + 1]);
                if (a < 0 || b < 0)
                    break;
                out[o++] = (uint8_t)(a << 4 | b);
            }
    } else if (!strcmp(enc, "base64") || !strcmp(enc, "base64url")) {
        /* Forgiving: either alphabet, padding optional, whitespace and
         * other characters skipped, as Node's Buffer.from does. */
        out = malloc(n * 3 / 4 + 3);
        if (out) {
            uint32_t acc = 0;
            int bits = 0;
            for (size_t i = 0; i < n; i++) {
                if (s[i] == '=')
                    break;
                int v = b64_value((unsigned char)s[i]);
                if (v < 0)
                    continue;
                acc = acc << 6 | (uint32_t)v;
                bits += 6;
                if (bits >= 8) {
                    bits -= 8;
                    out[o++] = (uint8_t)(acc >> bits);
                }
            }
        }
    } else {
        r = JS_ThrowTypeError(ctx, "Unknown encoding: %s", enc);
        JS_FreeCString(ctx, enc);
        JS_FreeCString(ctx, s);
        return r;
    }
    JS_FreeCString(ctx, enc);
    JS_FreeCString(ctx, s);
    if (!out)
        return JS_ThrowOutOfMemory(ctx);
    r = amla_new_bytes(ctx, out, o);
    free(out);
    return r;
}

static JSValue js_random_fill(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    size_t n;
    uint8_t *p = amla_bytes(ctx, argv[0], &n);
    if (!p)
        return JS_EXCEPTION;
    for (size_t i = 0; i < n; i += 256) {
        size_t chunk = n - i < 256 ? n - i : 256;
        if (getentropy(p + i, chunk) != 0)
            return JS_ThrowInternalError(ctx, "no random numbers available");
    }
    return JS_DupValue(ctx, argv[0]);
}

int amla_json_too_deep(const char *s, size_t n)
{
    int depth = 0, in_string = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = 0;
        } else if (c == '"') {
            in_string = 1;
        } else if (c == '[' || c == '{') {
            if (++depth > AMLA_JSON_MAX_DEPTH)
                return 1;
        } else if (c == ']' || c == '}') {
            depth--;
        }
    }
    return 0;
}

static JSValue js_json_too_deep(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    size_t n;
    const char *s = JS_ToCStringLen(ctx, &n, argv[0]);
    if (!s)
        return JS_EXCEPTION;
    int deep = amla_json_too_deep(s, n);
    JS_FreeCString(ctx, s);
    return JS_NewBool(ctx, deep);
}

int amla_add_text_natives(JSContext *ctx, JSValueConst native)
{
    if (amla_set_func(ctx, native, "utf8Encode", js_utf8_encode, 1) ||
        amla_set_func(ctx, native, "utf8Decode", js_utf8_decode, 2) ||
        amla_set_func(ctx, native, "encode", js_encode, 2) ||
        amla_set_func(ctx, native, "decode", js_decode, 2) ||
        amla_set_func(ctx, native, "randomFill", js_random_fill, 1) ||
        amla_set_func(ctx, native, "jsonTooDeep", js_json_too_deep, 1))
        return -1;
    return 0;
}
