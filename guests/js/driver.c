/*
 * driver.c: the JavaScript guest's entry points and event loop.
 *
 * amla_init() creates the QuickJS runtime and context and runs the
 * precompiled prelude (the prelude directory, bytecode made at build time), which
 * installs the globals scripts see and returns the helpers used here. It
 * reads no input, so a host may snapshot the initialised instance.
 *
 * amla_run() reads the run's wire.Input, evaluates the user's code wrapped
 * as `(async () => { <code> })()` and drives the loop:
 *
 *   1. run every pending promise job (JS_ExecutePendingJob);
 *   2. print the script's result or error once its promise settles;
 *   3. a timer that is due fires (then back to 1, so promise jobs run
 *      between two timer callbacks, as in Node);
 *   4. with tool calls pending, wait for the next answer with tool_wait,
 *      bounded by the time until the next timer; tool calls were submitted
 *      the moment the script made them, so calls made in one tick (a
 *      Promise.all) all reach the host before this first wait;
 *   5. with only timers left, sleep in the host (where the run's deadline
 *      applies) until the next one is due;
 *   6. with nothing left, stop.
 *
 * Then rejections nobody handled are reported and the exit status is
 * recorded with exit_status and returned.
 */
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wasi/api.h>

#include "amla.h"

#define EXPORT(name) __attribute__((export_name(name)))

/*
 * JS_SetMaxStackSize bounds the C stack (a region of linear memory) that
 * QuickJS's recursion uses. Deep JavaScript recursion also uses the wasm
 * engine's own stack (wasmtime's max_wasm_stack, 6 MiB in our host), which
 * cannot be caught when it overflows; the JS limit must make QuickJS throw
 * its catchable RangeError first. AMLA_JS_STACK is the C stack the linker
 * reserves (build.py passes -z stack-size); the JS limit leaves headroom
 * for the C frames that run after the check (natives, JSON, regexp).
 */
#ifndef AMLA_JS_STACK
#define AMLA_JS_STACK (4 * 1024 * 1024)
#endif
#ifndef AMLA_JS_STACK_LIMIT
#define AMLA_JS_STACK_LIMIT (2 * 1024 * 1024)
#endif

static JSRuntime *rt;
static JSContext *ctx;
static JSValue helpers; /* what the prelude returned */
static int initialised;

/* State of the one run. */
static double run_start_ms;
static int pending_tools;    /* submitted, not yet answered */
static int exit_requested;   /* process.exit() was called */
static int exit_code_req;
static int exit_code;        /* 1 once an error was reported */
static JSValue main_promise;
static int main_reported;
/* main_boxed: the script ran as global code (a kept session), whose
 * promise resolves to {value: <completion value>}. */
static int main_boxed;

/* Set when an allocation failed: QuickJS then throws an "out of memory"
 * error, or null when even that error could not be allocated. */
static int allocation_failed;

/* Promises rejected while nothing handled them; reported at the end if
 * still unhandled (a script may attach its handler late). */
static JSValue *rejected;
static size_t n_rejected, cap_rejected;

static double monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- output ------------------------------------------------------------ */

void amla_utf8_fix(char *s, size_t len)
{
    for (size_t i = 0; i + 2 < len; i++) {
        unsigned char c = (unsigned char)s[i], d = (unsigned char)s[i + 1];
        if (c == 0xED && d >= 0xA0 && d <= 0xBF) {
            s[i] = (char)0xEF;
            s[i + 1] = (char)0xBF;
            s[i + 2] = (char)0xBD;
            i += 2;
        }
    }
}

static void write_raw(int fd, const char *s, size_t len)
{
    amla_output(fd, s, (int32_t)len);
}

static void write_str(int fd, const char *s)
{
    write_raw(fd, s, strlen(s));
}

/* write_value prints a JS value's string form plus a newline, as one
 * output call. */
static void write_value_line(int fd, const char *prefix, JSValueConst v)
{
    size_t len;
    const char *s = JS_ToCStringLen(ctx, &len, v);
    if (!s) {
        JS_FreeValue(ctx, JS_GetException(ctx));
        write_str(fd, prefix);
        write_str(fd, "(a value that cannot be shown)\n");
        return;
    }
    size_t plen = strlen(prefix);
    char *buf = malloc(plen + len + 1);
    if (!buf) {
        write_str(fd, prefix);
        write_raw(fd, s, len);
        write_str(fd, "\n");
    } else {
        memcpy(buf, prefix, plen);
        memcpy(buf + plen, s, len);
        buf[plen + len] = '\n';
        amla_utf8_fix(buf, plen + len);
        write_raw(fd, buf, plen + len + 1);
        free(buf);
    }
    JS_FreeCString(ctx, s);
}

/* ---- helpers from the prelude ----------------------------------------- */

static JSValue call_helper(const char *name, int argc, JSValueConst *argv)
{
    JSValue fn = JS_GetPropertyStr(ctx, helpers, name);
    if (JS_IsException(fn))
        return fn;
    JSValue r = JS_Call(ctx, fn, JS_UNDEFINED, argc, argv);
    JS_FreeValue(ctx, fn);
    return r;
}

/* compile_failed is set while the script's own syntax error is reported. */
static int compile_failed;

/* import_builtin is what the module loader (modules.c) asks for a name:
 * the prelude's importModule(name). */
static JSValue import_builtin(JSContext *c, const char *name)
{
    JSValue arg = JS_NewString(c, name);
    if (JS_IsException(arg))
        return arg;
    JSValue r = call_helper("importModule", 1, &arg);
    JS_FreeValue(c, arg);
    return r;
}

/* report_error prints an uncaught error on stderr the way docs/javascript.md
 * says ("<Name>: <message>" and the stack) and marks the run failed. */
static void report_error(JSValueConst err, const char *prefix)
{
    exit_code = 1;
    if (exit_requested)
        return;
    if (JS_IsNull(err) && allocation_failed) {
        write_str(2, prefix);
        write_str(2, "InternalError: out of memory (the script reached the sandbox's memory limit)\n");
        return;
    }
    /* The second argument tells the prelude the error stopped the script
     * from compiling (an import statement is explained then). */
    JSValueConst args[2] = {err, JS_NewBool(ctx, compile_failed)};
    JSValue text = call_helper("describeError", 2, args);
    if (JS_IsException(text)) {
        JS_FreeValue(ctx, JS_GetException(ctx));
        write_value_line(2, prefix, err);
        return;
    }
    write_value_line(2, prefix, text);
    JS_FreeValue(ctx, text);
}

/* report_exception takes the pending exception and reports it, unless it
 * is the uncatchable one process.exit() throws. */
static void report_exception(const char *prefix)
{
    JSValue e = JS_GetException(ctx);
    if (!exit_requested)
        report_error(e, prefix);
    JS_FreeValue(ctx, e);
}

/* ---- natives ----------------------------------------------------------- */

int amla_set_func(JSContext *c, JSValueConst obj, const char *name, JSCFunction *fn, int length)
{
    JSValue f = JS_NewCFunction(c, fn, name, length);
    if (JS_IsException(f))
        return -1;
    return JS_SetPropertyStr(c, obj, name, f) < 0 ? -1 : 0;
}

/* write(fd, data): one output call, so the host can stream it. data is
 * text (written as UTF-8) or a Uint8Array, whose bytes go as they are: the
 * host makes output text, and keeps a character split between two writes
 * whole. */
static JSValue js_write(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    int32_t fd;
    if (JS_ToInt32(c, &fd, argv[0]))
        return JS_EXCEPTION;
    if (exit_requested)
        return JS_UNDEFINED;
    size_t len;
    if (!JS_IsString(argv[1])) {
        const uint8_t *b = amla_bytes(c, argv[1], &len);
        if (!b)
            return JS_EXCEPTION;
        write_raw(fd == 2 ? 2 : 1, (const char *)b, len);
        return JS_UNDEFINED;
    }
    const char *s = JS_ToCStringLen(c, &len, argv[1]);
    if (!s)
        return JS_EXCEPTION;
    if (memchr(s, 0xED, len)) {
        char *copy = malloc(len ? len : 1);
        if (!copy) {
            JS_FreeCString(c, s);
            return JS_ThrowOutOfMemory(c);
        }
        memcpy(copy, s, len);
        amla_utf8_fix(copy, len);
        write_raw(fd == 2 ? 2 : 1, copy, len);
        free(copy);
    } else {
        write_raw(fd == 2 ? 2 : 1, s, len);
    }
    JS_FreeCString(c, s);
    return JS_UNDEFINED;
}

/* submit(requestJSON) queues a wire.ToolRequest at once and returns its
 * id; the prelude keeps the promise of the answer. */
static JSValue js_submit(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    size_t len;
    const char *s = JS_ToCStringLen(c, &len, argv[0]);
    if (!s)
        return JS_EXCEPTION;
    int64_t id = amla_tool_submit(s, (int32_t)len);
    JS_FreeCString(c, s);
    pending_tools++;
    return JS_NewInt64(c, id);
}

/* spawn(requestJSON) runs a wire.SpawnRequest (with output_apart) as a
 * child process and returns [resultJSON, stdout, stderr]: the host's
 * wire.SpawnFrame, whose output follows the JSON byte for byte. */
static JSValue js_spawn(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    size_t len;
    const char *s = JS_ToCStringLen(c, &len, argv[0]);
    if (!s)
        return JS_EXCEPTION;
    int32_t n = amla_spawn(s, (int32_t)len);
    JS_FreeCString(c, s);
    if (n < 0)
        return JS_ThrowInternalError(c, "the host could not start the child process");
    char *buf = malloc((size_t)n + 1);
    if (!buf)
        return JS_ThrowOutOfMemory(c);
    amla_spawn_take(buf);
    uint32_t lens[2] = {0, 0};
    if (n >= 8)
        memcpy(lens, buf, 8); /* two little-endian uint32s; wasm is little-endian */
    if (n < 8 || (uint64_t)lens[0] + lens[1] > (uint64_t)n - 8) {
        free(buf);
        return JS_ThrowInternalError(c, "the host's spawn result is malformed");
    }
    size_t head = (size_t)n - 8 - lens[0] - lens[1];
    const char *parts[3] = {buf + 8, buf + 8 + head, buf + 8 + head + lens[0]};
    size_t sizes[3] = {head, lens[0], lens[1]};
    JSValue r = JS_NewArray(c);
    for (uint32_t i = 0; i < 3 && !JS_IsException(r); i++) {
        JSValue v = JS_NewStringLen(c, parts[i], sizes[i]);
        if (JS_IsException(v) || JS_SetPropertyUint32(c, r, i, v) < 0) {
            JS_FreeValue(c, r);
            r = JS_EXCEPTION;
        }
    }
    free(buf);
    return r;
}

/* exit(code) is process.exit: it records the code and throws an error no
 * script can catch, which unwinds to the loop. */
static JSValue js_exit(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    int32_t code = 0;
    if (!JS_IsUndefined(argv[0]) && JS_ToInt32(c, &code, argv[0]))
        return JS_EXCEPTION;
    exit_requested = 1;
    exit_code_req = code;
    JSValue e = JS_NewError(c);
    JS_SetPropertyStr(c, e, "message", JS_NewString(c, "process.exit()"));
    JS_SetUncatchableError(c, e);
    return JS_Throw(c, e);
}

/* now() is milliseconds since the run started (monotonic). */
static JSValue js_now(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    return JS_NewFloat64(c, monotonic_ms() - run_start_ms);
}

static JSValue js_time_origin(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    return JS_NewFloat64(c, wall_ms() - (monotonic_ms() - run_start_ms));
}

/* ---- tool globals ----------------------------------------------------- */

/* The prototype of globalThis that a run's tools are found on (prelude.js,
 * "Tools"). A name that neither globalThis nor this object has is handed
 * to the prelude's resolver, which reads the run's tool list the first
 * time and defines the tools on this object; the name then resolves, or
 * falls through to a ReferenceError as any unknown name does. Only a
 * get_own_property hook: QuickJS keeps ReferenceError for names it does
 * not find (a Proxy's get trap would turn them into undefined), and an
 * assignment finds a writable property here and defines the script's own
 * global on globalThis, shadowing the tool. */
static JSClassID tool_globals_class;
static JSValue tool_resolver = JS_UNDEFINED;
static int tool_resolving;

static int tool_globals_get_own(JSContext *c, JSPropertyDescriptor *desc, JSValueConst obj, JSAtom prop)
{
    if (tool_resolving || JS_IsUndefined(tool_resolver))
        return 0;
    JSValue name = JS_AtomToValue(c, prop);
    if (JS_IsException(name))
        return -1;
    if (!JS_IsString(name)) { /* a symbol */
        JS_FreeValue(c, name);
        return 0;
    }
    tool_resolving = 1;
    JSValue found = JS_Call(c, tool_resolver, JS_UNDEFINED, 1, (JSValueConst *)&name);
    tool_resolving = 0;
    JS_FreeValue(c, name);
    if (JS_IsException(found))
        return -1;
    int ok = JS_ToBool(c, found);
    JS_FreeValue(c, found);
    if (!ok)
        return 0;
    if (desc) {
        /* The resolver defined prop on obj, where this finds it. */
        desc->value = JS_GetProperty(c, obj, prop);
        if (JS_IsException(desc->value))
            return -1;
        desc->getter = JS_UNDEFINED;
        desc->setter = JS_UNDEFINED;
        desc->flags = JS_PROP_WRITABLE | JS_PROP_CONFIGURABLE | JS_PROP_ENUMERABLE;
    }
    return 1;
}

static const JSClassExoticMethods tool_globals_exotic = { .get_own_property = tool_globals_get_own };

/* native.toolGlobals(resolver) makes the object; resolver(name) returns
 * true when it defined name on it. Called once, by the prelude. */
static JSValue js_tool_globals(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    if (argc < 1 || !JS_IsFunction(c, argv[0]))
        return JS_ThrowTypeError(c, "toolGlobals takes a function");
    if (!JS_IsUndefined(tool_resolver))
        return JS_ThrowTypeError(c, "toolGlobals is made once");
    if (tool_globals_class == 0) {
        JS_NewClassID(JS_GetRuntime(c), &tool_globals_class);
        JSClassDef def = { .class_name = "Object", .exotic = (JSClassExoticMethods *)&tool_globals_exotic };
        if (JS_NewClass(JS_GetRuntime(c), tool_globals_class, &def) < 0)
            return JS_EXCEPTION;
    }
    JSValue obj = JS_NewObjectClass(c, (int)tool_globals_class);
    if (JS_IsException(obj))
        return obj;
    tool_resolver = JS_DupValue(c, argv[0]);
    return obj;
}

static JSValue make_natives(void)
{
    JSValue n = JS_NewObject(ctx);
    if (JS_IsException(n))
        return n;
    if (amla_set_func(ctx, n, "write", js_write, 2) ||
        amla_set_func(ctx, n, "submit", js_submit, 1) ||
        amla_set_func(ctx, n, "spawn", js_spawn, 1) ||
        amla_set_func(ctx, n, "exit", js_exit, 1) ||
        amla_set_func(ctx, n, "now", js_now, 0) ||
        amla_set_func(ctx, n, "timeOrigin", js_time_origin, 0) ||
        amla_set_func(ctx, n, "toolGlobals", js_tool_globals, 1) ||
        amla_add_fs_natives(ctx, n) ||
        amla_add_text_natives(ctx, n) ||
        amla_add_hash_natives(ctx, n)) {
        JS_FreeValue(ctx, n);
        return JS_EXCEPTION;
    }
    return n;
}

/* ---- rejection tracking ------------------------------------------------ */

static void track_rejection(JSContext *c, JSValueConst promise, JSValueConst reason,
                            bool is_handled, void *opaque)
{
    (void)reason;
    (void)opaque;
    if (!is_handled) {
        if (n_rejected == cap_rejected) {
            size_t cap = cap_rejected ? cap_rejected * 2 : 16;
            JSValue *p = realloc(rejected, cap * sizeof(JSValue));
            if (!p)
                return; /* out of memory: this one goes unreported */
            rejected = p;
            cap_rejected = cap;
        }
        rejected[n_rejected++] = JS_DupValue(c, promise);
        return;
    }
    for (size_t i = 0; i < n_rejected; i++) {
        if (JS_VALUE_GET_PTR(rejected[i]) == JS_VALUE_GET_PTR(promise)) {
            JS_FreeValue(c, rejected[i]);
            rejected[i] = rejected[--n_rejected];
            return;
        }
    }
}

/* ---- memory ------------------------------------------------------------ */

/*
 * Collector pacing. QuickJS frees most garbage at once by reference
 * counting; its collector exists for cycles, and each collection walks
 * every live object. After a collection it sets the next threshold to 1.5
 * times the heap it kept, so a script that builds a large structure walks
 * it again and again (10% of a 5 MB JSON round trip). The host tells each
 * run its memory limit; the threshold is raised to the kept heap plus a
 * quarter of that limit, which collects a heap of any size at most a few
 * times and still leaves three quarters of the limit to live data. A
 * threshold QuickJS sets that is already higher is kept.
 */
static size_t gc_allowance;   /* a quarter of the run's memory limit; 0 = QuickJS's pacing */
static size_t gc_seen;        /* the threshold as this code last left it */

static void pace_gc(void)
{
    if (!gc_allowance || !rt)
        return;
    size_t t = JS_GetGCThreshold(rt);
    if (t == gc_seen)
        return;
    /* QuickJS has just collected and set t to 1.5 x the heap it kept. */
    size_t want = t / 3 * 2 + gc_allowance;
    if (want > t) {
        JS_SetGCThreshold(rt, want);
        t = want;
    }
    gc_seen = t;
}

/* QuickJS allocates through wasi-libc's malloc; these wrappers note a
 * failure, so an error that could not even be allocated is still reported
 * as running out of memory, and pace the collector (QuickJS's arenas call
 * them once per arena, not per object). */
static void *amla_calloc(void *opaque, size_t count, size_t size)
{
    pace_gc();
    void *p = calloc(count, size);
    if (!p && count && size)
        allocation_failed = 1;
    return p;
}

static void *amla_malloc(void *opaque, size_t size)
{
    pace_gc();
    void *p = malloc(size);
    if (!p && size)
        allocation_failed = 1;
    return p;
}

static void amla_free(void *opaque, void *ptr)
{
    free(ptr);
}

static void *amla_realloc(void *opaque, void *ptr, size_t size)
{
    pace_gc();
    void *p = realloc(ptr, size);
    if (!p && size)
        allocation_failed = 1;
    return p;
}

static size_t amla_usable_size(const void *ptr)
{
    return malloc_usable_size((void *)ptr);
}

static const JSMallocFunctions amla_mf = {amla_calloc, amla_malloc, amla_free, amla_realloc, amla_usable_size};

/* ---- init -------------------------------------------------------------- */

static int32_t init_failed(const char *what)
{
    write_str(2, "amla js: cannot start the JavaScript runtime: ");
    write_str(2, what);
    write_str(2, "\n");
    if (ctx) {
        JSValue e = JS_GetException(ctx);
        if (!JS_IsUndefined(e) && !JS_IsNull(e))
            write_value_line(2, "", e);
        JS_FreeValue(ctx, e);
    }
    return 1;
}

/*
 * reserve_heap leaves the allocator free 64 KiB pages in the snapshot.
 * Without them a small run's first allocations grow the linear memory, and
 * a host can only reuse an instance for the next run (resetting it to the
 * snapshot) while its memory has not grown.
 *
 * The libc's allocator (Zig's WasmAllocator) carves small blocks out of
 * whole 64 KiB pages and keeps freed large blocks by their page count, so
 * the headroom is AMLA_HEAP_HEADROOM_PAGES blocks of exactly one page each:
 * malloc adds a 16-byte header and the allocator 4 bytes of its own, and
 * rounds a block up to whole pages from 65,532 bytes. Free pages are mostly
 * zero bytes, which the snapshot does not store and a run that never
 * touches them never maps.
 */
#define AMLA_HEAP_HEADROOM_PAGES 16
#define AMLA_WASM_PAGE 65536
#define AMLA_MALLOC_OVERHEAD 24

static void reserve_heap(void)
{
    /* volatile: a compiler may drop a malloc whose block is only freed. */
    void *volatile blocks[AMLA_HEAP_HEADROOM_PAGES];
    for (int i = 0; i < AMLA_HEAP_HEADROOM_PAGES; i++)
        blocks[i] = malloc(AMLA_WASM_PAGE - AMLA_MALLOC_OVERHEAD);
    for (int i = 0; i < AMLA_HEAP_HEADROOM_PAGES; i++)
        free(blocks[i]);
}

/* amla_init creates the runtime and runs the prelude. It reads no input
 * and may be called once; later calls do nothing. 0 on success. */
EXPORT("amla_init") int32_t amla_init(void)
{
    if (initialised)
        return 0;
    rt = JS_NewRuntime2(&amla_mf, NULL);
    if (!rt)
        return init_failed("out of memory");
    JS_SetMaxStackSize(rt, AMLA_JS_STACK_LIMIT);
    JS_SetHostPromiseRejectionTracker(rt, track_rejection, NULL);
    ctx = JS_NewContext(rt);
    if (!ctx)
        return init_failed("out of memory");
    if (amla_install_random(ctx) < 0)
        return init_failed("installing Math.random");
    if (amla_install_json(ctx) < 0)
        return init_failed("installing JSON.stringify");

    JSValue fn = JS_ReadObject(ctx, amla_prelude_bytecode, amla_prelude_bytecode_len,
                               JS_READ_OBJ_BYTECODE);
    if (JS_IsException(fn))
        return init_failed("loading the prelude bytecode");
    JSValue setup = JS_EvalFunction(ctx, fn);
    if (JS_IsException(setup))
        return init_failed("evaluating the prelude");
    JSValue native = make_natives();
    if (JS_IsException(native))
        return init_failed("creating the natives");
    helpers = JS_Call(ctx, setup, JS_UNDEFINED, 1, (JSValueConst *)&native);
    JS_FreeValue(ctx, native);
    JS_FreeValue(ctx, setup);
    if (JS_IsException(helpers))
        return init_failed("running the prelude");
    amla_install_module_loader(rt, import_builtin);
    /* Rejections during init are the prelude's own business. */
    while (n_rejected)
        JS_FreeValue(ctx, rejected[--n_rejected]);
    reserve_heap();
    initialised = 1;
    return 0;
}

/* ---- the loop ---------------------------------------------------------- */

static void drain_jobs(void)
{
    for (;;) {
        if (exit_requested)
            return;
        JSContext *c;
        int r = JS_ExecutePendingJob(rt, &c);
        if (r == 0)
            return;
        if (r < 0)
            report_exception("Uncaught ");
    }
}

/* record_return_value hands the host the script's returned value as
 * JSON.stringify gives it. undefined (no value), and a value JSON cannot
 * express (a bigint, a cycle: JSON.stringify throws) or that stringifies
 * to undefined (a function), give none: the host's value is then null. */
static void record_return_value(JSValueConst v)
{
    if (JS_IsUndefined(v))
        return;
    JSValue json = JS_JSONStringify(ctx, v, JS_UNDEFINED, JS_UNDEFINED);
    if (JS_IsException(json)) {
        JS_FreeValue(ctx, JS_GetException(ctx));
        return;
    }
    if (JS_IsString(json)) {
        size_t n;
        const char *s = JS_ToCStringLen(ctx, &n, json);
        if (s) {
            if (n <= INT32_MAX)
                amla_return_value(s, (int32_t)n);
            JS_FreeCString(ctx, s);
        } else {
            JS_FreeValue(ctx, JS_GetException(ctx));
        }
    }
    JS_FreeValue(ctx, json);
}

/* observe_main prints the script's result or error once it settled. */
static void observe_main(void)
{
    if (main_reported || exit_requested)
        return;
    if (!JS_IsPromise(main_promise)) {
        main_reported = 1;
        return;
    }
    switch (JS_PromiseState(ctx, main_promise)) {
    case JS_PROMISE_FULFILLED: {
        main_reported = 1;
        JSValue v = JS_PromiseResult(ctx, main_promise);
        if (main_boxed && JS_IsObject(v)) {
            JSValue inner = JS_GetPropertyStr(ctx, v, "value");
            JS_FreeValue(ctx, v);
            v = inner;
            if (JS_IsException(v)) {
                report_exception("");
                return;
            }
            if (JS_IsPromise(v)) {
                /* A promise as the completion value is awaited, as an
                 * async function's returned promise is: its outcome is
                 * the script's. */
                JS_FreeValue(ctx, main_promise);
                main_promise = v;
                main_boxed = 0;
                main_reported = 0;
                observe_main();
                return;
            }
        }
        record_return_value(v);
        JSValue text = call_helper("resultText", 1, (JSValueConst *)&v);
        JS_FreeValue(ctx, v);
        if (JS_IsException(text)) {
            report_exception("");
            return;
        }
        if (JS_IsString(text))
            write_value_line(1, "", text);
        JS_FreeValue(ctx, text);
        break;
    }
    case JS_PROMISE_REJECTED: {
        main_reported = 1;
        JSValue e = JS_PromiseResult(ctx, main_promise);
        report_error(e, "");
        JS_FreeValue(ctx, e);
        break;
    }
    default:
        break;
    }
}

/* timer_delay asks the prelude how long until the next timer is due: -1
 * when none matters (after the script settled and with no tool call
 * pending, only ref'd timeouts keep the run alive), 0 when one is due. */
static double timer_delay(void)
{
    JSValue args[2];
    args[0] = JS_NewBool(ctx, main_reported || !JS_IsPromise(main_promise) ||
                                  JS_PromiseState(ctx, main_promise) != JS_PROMISE_PENDING);
    args[1] = JS_NewBool(ctx, pending_tools > 0);
    JSValue r = call_helper("timerDelay", 2, (JSValueConst *)args);
    double d = -1;
    if (JS_IsException(r)) {
        report_exception("");
        return -1;
    }
    if (JS_ToFloat64(ctx, &d, r))
        d = -1;
    JS_FreeValue(ctx, r);
    return d;
}

static void fire_timer(void)
{
    JSValue r = call_helper("fireTimer", 0, NULL);
    if (JS_IsException(r))
        report_exception("Uncaught ");
    JS_FreeValue(ctx, r);
}

/* take_answer fetches the answer tool_wait announced and settles its
 * promise: header JSON, "\n", result JSON. */
static void take_answer(int32_t n)
{
    pending_tools--;
    char *buf = malloc((size_t)n + 1);
    if (!buf) {
        /* Cannot even hold the answer: the script cannot go on. */
        write_str(2, "RangeError: out of memory receiving a tool result\n");
        exit_code = 1;
        exit_requested = 1;
        exit_code_req = 1;
        return;
    }
    amla_tool_take(buf);
    buf[n] = 0;
    char *nl = memchr(buf, '\n', (size_t)n);
    size_t hlen = nl ? (size_t)(nl - buf) : (size_t)n;
    if (nl)
        *nl = 0;
    JSValue args[3];
    args[0] = JS_ParseJSON(ctx, buf, hlen, "<tool answer>");
    args[1] = JS_UNDEFINED;
    args[2] = JS_UNDEFINED;
    if (JS_IsException(args[0])) {
        JS_FreeValue(ctx, JS_GetException(ctx));
        write_str(2, "amla js: internal error: malformed tool answer header\n");
        free(buf);
        exit_code = 1;
        return;
    }
    if (nl && (size_t)n > hlen + 1) {
        if (amla_json_too_deep(nl + 1, (size_t)n - hlen - 1))
            args[1] = JS_ThrowRangeError(ctx, "Maximum call stack size exceeded (JSON nested deeper than %d levels)",
                                         AMLA_JSON_MAX_DEPTH);
        else
            args[1] = JS_ParseJSON(ctx, nl + 1, (size_t)n - hlen - 1, "<tool result>");
        if (JS_IsException(args[1])) {
            args[1] = JS_UNDEFINED;
            args[2] = JS_GetException(ctx);
        }
    }
    free(buf);
    JSValue r = call_helper("settle", 3, (JSValueConst *)args);
    if (JS_IsException(r))
        report_exception("Uncaught ");
    JS_FreeValue(ctx, r);
    for (int i = 0; i < 3; i++)
        JS_FreeValue(ctx, args[i]);
}

static void run_loop(void)
{
    for (;;) {
        drain_jobs();
        if (exit_requested)
            return;
        observe_main();
        double delay = timer_delay();
        if (exit_requested)
            return;
        if (delay == 0) {
            fire_timer();
            continue;
        }
        if (pending_tools > 0) {
            int64_t t = delay < 0 ? -1 : (int64_t)ceil(delay);
            int32_t n = amla_tool_wait(t);
            if (n > 0) {
                take_answer(n);
                continue;
            }
            if (n == 0)
                continue; /* a timer is due */
            pending_tools = 0; /* the host has nothing pending for us */
        }
        if (delay < 0)
            return;
        amla_sleep((int64_t)ceil(delay));
    }
}

/* report_leftovers prints what the run leaves behind: rejections nobody
 * handled, and a script still waiting on a promise nothing can settle. */
static void report_leftovers(void)
{
    for (size_t i = 0; i < n_rejected && !exit_requested; i++) {
        JSValue p = rejected[i];
        if (JS_VALUE_GET_PTR(p) == JS_VALUE_GET_PTR(main_promise))
            continue;
        if (JS_PromiseState(ctx, p) != JS_PROMISE_REJECTED)
            continue;
        JSValue e = JS_PromiseResult(ctx, p);
        report_error(e, "Uncaught (in promise) ");
        JS_FreeValue(ctx, e);
    }
    if (!exit_requested && JS_IsPromise(main_promise) &&
        JS_PromiseState(ctx, main_promise) == JS_PROMISE_PENDING) {
        write_str(2, "Error: the script ended while still awaiting something that can never finish "
                     "(a promise nothing resolves)\n");
        exit_code = 1;
    }
}

/* The exit status of a script that failed after an allocation failed: the
 * host reads it (with the memory the guest holds) as "memory limit
 * reached", as it reads a Go guest's out-of-memory exit. */
#define EXIT_OUT_OF_MEMORY 137

static int32_t finish(void)
{
    int32_t code = exit_requested ? exit_code_req : exit_code;
    if (!exit_requested && code != 0 && allocation_failed)
        code = EXIT_OUT_OF_MEMORY;
    if (!exit_requested) {
        JSValue r = call_helper("exitCode", 0, NULL);
        int32_t c;
        if (JS_IsException(r))
            JS_FreeValue(ctx, JS_GetException(ctx));
        else if (!JS_IsUndefined(r) && !JS_ToInt32(ctx, &c, r) && code == 0)
            code = c;
        JS_FreeValue(ctx, r);
    }
    amla_exit_status(code);
    return code;
}

/* wasi-libc reads its table of preopened directories at start-up, which
 * the snapshot records; the sandbox's tool files (wire.ToolInfoMount) are
 * mounted after it, at the descriptor after /, /workspace and /tmp, so the
 * table is read again when that descriptor is there. */
void __wasilibc_reset_preopens(void);
void __wasilibc_populate_preopens(void);
#define FIRST_MOUNT_FD 6

static void find_mounts(void)
{
    __wasi_prestat_t st;
    if (__wasi_fd_prestat_get(FIRST_MOUNT_FD, &st) != 0)
        return;
    __wasilibc_reset_preopens();
    __wasilibc_populate_preopens();
}

/* begin_run clears what a run before this one in the same instance left
 * in the run's state: a kept session's instance runs script after script
 * (docs/sessions.md); an instance in the snapshot's state has it clear. */
static void begin_run(void)
{
    JS_FreeValue(ctx, main_promise);
    main_promise = JS_UNDEFINED;
    while (n_rejected)
        JS_FreeValue(ctx, rejected[--n_rejected]);
    pending_tools = 0;
    exit_requested = exit_code_req = exit_code = 0;
    main_reported = main_boxed = compile_failed = 0;
}

/* is_return_outside_function tells the syntax error QuickJS gives a
 * top-level `return` in global code, taking (and freeing) the pending
 * exception only when it is that error. */
static int is_return_outside_function(void)
{
    JSValue e = JS_GetException(ctx);
    int found = 0;
    if (JS_IsError(e)) {
        JSValue m = JS_GetPropertyStr(ctx, e, "message");
        const char *s = JS_ToCString(ctx, m);
        found = s && strcmp(s, "return not in a function") == 0;
        if (s)
            JS_FreeCString(ctx, s);
        JS_FreeValue(ctx, m);
    }
    if (found)
        JS_FreeValue(ctx, e);
    else
        JS_Throw(ctx, e);
    return found;
}

/* eval_script evaluates the prepared source. In a kept session it runs as
 * global code with top-level await (QuickJS's JS_EVAL_FLAG_ASYNC), so its
 * top-level declarations are the context's and outlive the run, as in a
 * REPL; a script with a top-level `return` cannot be global code, and runs
 * as the body of an async function instead (its declarations stay its
 * own; what it assigns to globalThis is kept). */
static JSValue eval_script(const char *s, size_t slen, int keep_state)
{
    if (!keep_state)
        return JS_Eval(ctx, s, slen, "script.js", JS_EVAL_TYPE_GLOBAL);
    JSValue p = JS_Eval(ctx, s, slen, "script.js", JS_EVAL_TYPE_GLOBAL | JS_EVAL_FLAG_ASYNC);
    if (!JS_IsException(p)) {
        main_boxed = 1;
        return p;
    }
    if (!is_return_outside_function())
        return p;
    JSValue src = call_helper("wrapKept", 0, NULL);
    if (JS_IsException(src))
        return src;
    size_t n;
    const char *w = JS_ToCStringLen(ctx, &n, src);
    JS_FreeValue(ctx, src);
    if (!w)
        return JS_EXCEPTION;
    p = JS_Eval(ctx, w, n, "script.js", JS_EVAL_TYPE_GLOBAL);
    JS_FreeCString(ctx, w);
    return p;
}

/* amla_run runs the one script of this instance and returns its exit
 * status (also recorded with exit_status). */
EXPORT("amla_run") int32_t amla_run(void)
{
    if (!initialised && amla_init() != 0) {
        amla_exit_status(1);
        return 1;
    }
    find_mounts();
    JS_UpdateStackTop(rt);
    amla_random_seed(); /* not in amla_init: a snapshot would freeze it */
    run_start_ms = monotonic_ms();
    begin_run();

    int32_t n = amla_input_len();
    char *buf = malloc((size_t)n + 1);
    if (!buf) {
        write_str(2, "amla js: out of memory reading the run input\n");
        amla_exit_status(1);
        return 1;
    }
    amla_input_read(buf);
    buf[n] = 0;
    JSValue input = JS_ParseJSON(ctx, buf, (size_t)n, "<input>");
    free(buf);
    if (JS_IsException(input)) {
        write_str(2, "amla js: internal error: the run input is not valid JSON\n");
        JS_FreeValue(ctx, JS_GetException(ctx));
        amla_exit_status(1);
        return 1;
    }
    int64_t limit = 0;
    JSValue lv = JS_GetPropertyStr(ctx, input, "memory_limit");
    if (JS_IsNumber(lv) && JS_ToInt64(ctx, &limit, lv) == 0 && limit > 0) {
        gc_allowance = (size_t)(limit / 4);
        pace_gc();
    }
    JS_FreeValue(ctx, lv);
    JSValue kv = JS_GetPropertyStr(ctx, input, "keep_state");
    int keep_state = JS_ToBool(ctx, kv) > 0;
    JS_FreeValue(ctx, kv);
    /* prepare installs the tools and returns the source: wrapped, unless
     * the session is kept. */
    JSValue src = call_helper("prepare", 1, (JSValueConst *)&input);
    JS_FreeValue(ctx, input);
    if (JS_IsException(src)) {
        report_exception("amla js: internal error: ");
        return finish();
    }
    size_t slen;
    const char *s = JS_ToCStringLen(ctx, &slen, src);
    JS_FreeValue(ctx, src);
    if (!s) {
        report_exception("");
        return finish();
    }
    main_promise = eval_script(s, slen, keep_state);
    JS_FreeCString(ctx, s);
    if (JS_IsException(main_promise)) {
        main_promise = JS_UNDEFINED;
        main_reported = 1;
        compile_failed = 1;
        report_exception("");
        compile_failed = 0;
        return finish();
    }
    run_loop();
    if (!exit_requested)
        observe_main();
    report_leftovers();
    return finish();
}
