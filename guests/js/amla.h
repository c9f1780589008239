/*
 * amla.h: what the C files of the JavaScript guest share.
 *
 * The guest is a WASI reactor. The host calls _initialize (wasi-libc's
 * constructors), then amla_init() once, and amla_run() once per instance.
 * Everything the guest asks of the host goes through the imports of
 * amla_host.h (guests/include, shared with the Python guest and checked
 * against gocore/wire) or WASI.
 */
#ifndef AMLA_H
#define AMLA_H

#include <stddef.h>
#include <stdint.h>

#include "quickjs.h"

#include "amla_host.h" /* the host imports, shared with the Python guest */

/* The precompiled prelude (generated at build time, prelude_bytecode.c). */
extern const uint8_t amla_prelude_bytecode[];
extern const size_t amla_prelude_bytecode_len;

/* Adds the natives of each C file to the object handed to the prelude. */
int amla_add_fs_natives(JSContext *ctx, JSValueConst native);
int amla_add_text_natives(JSContext *ctx, JSValueConst native);
/* hash.c: hashInit, hashUpdate, hashFinal (MD5, SHA-1, SHA-256, SHA-512). */
int amla_add_hash_natives(JSContext *ctx, JSValueConst native);

/*
 * JSON nesting deeper than this is refused with a RangeError before
 * QuickJS parses it. QuickJS's JSON recursion uses about 200 bytes of the
 * wasm engine's stack per level but almost none of the C stack its
 * overflow check watches, so without this a deep text would exhaust the
 * wasm stack (an uncatchable trap) instead of throwing.
 */
#define AMLA_JSON_MAX_DEPTH 5000

/* amla_json_too_deep reports whether JSON text nests deeper than
 * AMLA_JSON_MAX_DEPTH (brackets outside strings; the text need not be
 * valid). */
int amla_json_too_deep(const char *s, size_t n);

/* The loader import('fs') goes through (modules.c); import returns the
 * module object for a name, or JS_EXCEPTION with the error thrown. */
void amla_install_module_loader(JSRuntime *rt, JSValue (*import)(JSContext *ctx, const char *name));

/* JSON.stringify in C (json.c): installed before the prelude runs. */
int amla_install_json(JSContext *ctx);

/* Math.random from a generator reseeded every run (random.c). */
int amla_install_random(JSContext *ctx);
void amla_random_seed(void);

/* Helpers shared by the natives. */

/* amla_set_func defines obj[name] as a C function; -1 on failure. */
int amla_set_func(JSContext *ctx, JSValueConst obj, const char *name, JSCFunction *fn, int length);

/* amla_utf8_fix replaces the 3-byte encodings of lone surrogates that
 * JS_ToCStringLen produces (ED A0..BF xx) with U+FFFD in place: both are
 * three bytes, so the length does not change. */
void amla_utf8_fix(char *s, size_t len);

/* amla_bytes returns the bytes a Uint8Array views (the prelude turns every
 * other buffer kind into one first); NULL with a TypeError thrown when v is
 * not a Uint8Array. An empty array gives a non-NULL pointer. */
uint8_t *amla_bytes(JSContext *ctx, JSValueConst v, size_t *len);

/* amla_new_bytes copies buf into a new Uint8Array. */
JSValue amla_new_bytes(JSContext *ctx, const uint8_t *buf, size_t len);

#endif
