/*
 * random.c: Math.random for the guest.
 *
 * QuickJS seeds its own generator when the context is created, which is in
 * amla_init. The host may snapshot the instance after amla_init and start
 * every run from that snapshot, so a seed chosen there would repeat in
 * every run. Instead Math.random draws from this generator, reseeded at the
 * start of each run (amla_run) from WASI's random_get.
 */
#include <stdint.h>
#include <unistd.h>

#include "amla.h"

/* xorshift64* state; never 0 while in use. */
static uint64_t state = 0x9E3779B97F4A7C15ULL;

void amla_random_seed(void)
{
    uint64_t seed = 0;
    if (getentropy(&seed, sizeof seed) != 0 || seed == 0)
        seed ^= 0x9E3779B97F4A7C15ULL ^ (uint64_t)(uintptr_t)&seed;
    state = seed ? seed : 1;
}

static uint64_t next(void)
{
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 0x2545F4914F6CDD1DULL;
}

static JSValue math_random(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    /* 53 random bits scaled into [0, 1). */
    return JS_NewFloat64(ctx, (double)(next() >> 11) * (1.0 / 9007199254740992.0));
}

int amla_install_random(JSContext *ctx)
{
    JSValue global = JS_GetGlobalObject(ctx);
    JSValue math = JS_GetPropertyStr(ctx, global, "Math");
    JS_FreeValue(ctx, global);
    if (JS_IsException(math))
        return -1;
    int r = amla_set_func(ctx, math, "random", math_random, 0);
    JS_FreeValue(ctx, math);
    return r;
}
