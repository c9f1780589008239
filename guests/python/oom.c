/*
 * oom.c: what the guest knows when memory runs out.
 *
 * When the host's memory limit refuses to grow linear memory, CPython
 * raises MemoryError with almost nothing left: reporting it (a traceback,
 * the frames of the prelude's code) needs memory too, and a guest that
 * cannot get any may spin in CPython's failure paths until the run's
 * timeout. Three things keep that short and tell the limit apart from
 * other MemoryErrors:
 *
 *   - a reserve of RESERVE_PAGES of linear memory, taken at set-up (so it
 *     is in the snapshot, and every run starts with it whole). The arena
 *     allocator (arena.c) and CPython's raw allocator (below) draw on it
 *     once the raw allocator has refused a small request (that request
 *     still fails: the script gets its MemoryError). The
 *     need is real: CPython's exception unwinding boxes the instruction
 *     offset of a handler as an int (any offset past 256 is a new object),
 *     and when that allocation fails it unwinds to the same handler again,
 *     forever; with the reserve open the handler runs and the report is
 *     made. The prelude opens it too when a script ends in an exception;
 *   - the size of the last allocation the memory refused, from the arena
 *     allocator and from a wrapper around CPython's raw allocator (which
 *     every large block passes through), so the prelude can tell a
 *     MemoryError of the limit from others (the parser's, or a size too
 *     big to ask for);
 *   - amla_oom_claim_rest(), which grows memory until the limit refuses,
 *     so a guest that ran out by the limit holds what the host checks
 *     (gocore/host/proc.go: exit 137 near the limit is the memory limit).
 */
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "host.h"

#define WASM_PAGE 65536
/* 2 MiB: enough to format a traceback and run the prelude's end of run. */
#define RESERVE_PAGES 32

static char *reserve_start, *reserve_next, *reserve_end;
static int reserve_open;
static size_t refused;

#define RESERVE_BYTES ((size_t)RESERVE_PAGES * WASM_PAGE)

/* raw_refused is a refused request of the raw allocator, the last resort
 * of CPython's allocators (pymalloc falls back to it when it gets no
 * arena): its NULL becomes a MemoryError. A small one means memory is
 * used up, so the reserve opens for what comes after; the request itself
 * still fails (served from the reserve, the script would go on and use
 * the reserve up). A big one may leave plenty of room and opens nothing. */
static void raw_refused(size_t n)
{
    refused = n;
    if (n <= RESERVE_BYTES / 8)
        reserve_open = 1;
}

/* reserve_take bump-allocates n bytes aligned to align (a power of two)
 * from the open reserve; NULL when closed or too small. Blocks taken are
 * never given back: the run is ending. */
static void *reserve_take(size_t n, size_t align)
{
    if (!reserve_open || !reserve_next)
        return NULL;
    uintptr_t p = ((uintptr_t)reserve_next + align - 1) & ~(uintptr_t)(align - 1);
    if (p > (uintptr_t)reserve_end || n > (uintptr_t)reserve_end - p)
        return NULL;
    reserve_next = (char *)(p + n);
    return (void *)p;
}

static int in_reserve(const void *p)
{
    return reserve_start && (const char *)p >= reserve_start && (const char *)p < reserve_end;
}

void *amla_oom_grow(size_t pages)
{
    size_t old = __builtin_wasm_memory_grow(0, pages);
    if (old != (size_t)-1)
        return (void *)(old * WASM_PAGE);
    /* pymalloc falls back to the raw allocator when this fails. */
    refused = pages * WASM_PAGE;
    return reserve_take(pages * WASM_PAGE, WASM_PAGE);
}

void amla_oom_take_reserve(void)
{
    size_t old = __builtin_wasm_memory_grow(0, RESERVE_PAGES);
    if (old == (size_t)-1)
        return;
    reserve_start = reserve_next = (char *)(old * WASM_PAGE);
    reserve_end = reserve_start + RESERVE_PAGES * WASM_PAGE;
}

void amla_oom_open_reserve(void) { reserve_open = 1; }

void amla_oom_begin_run(void)
{
    /* Set-up's warm-up scripts end in exceptions too (the prelude opened
     * the reserve then): each run starts closed, with nothing refused. */
    reserve_open = 0;
    refused = 0;
}

size_t amla_oom_refused(void) { return refused; }

void amla_oom_claim_rest(void)
{
    for (size_t n = 1 << 15; n > 0;) {
        if (__builtin_wasm_memory_grow(0, n) == (size_t)-1)
            n >>= 1;
    }
}

/* The raw allocator CPython had before ours. Ours records failures and,
 * once the reserve is open, serves what the libc's allocator cannot from
 * it (CPython's own bookkeeping, such as its arena map, allocates here):
 * such a block carries its size in a header in front, for realloc. */
static PyMemAllocatorEx raw_base;

#define RAW_HEADER 16

static void *raw_from_reserve(size_t n)
{
    if (n > SIZE_MAX - RAW_HEADER)
        return NULL;
    char *b = reserve_take(n + RAW_HEADER, RAW_HEADER);
    if (!b)
        return NULL;
    *(size_t *)b = n;
    return b + RAW_HEADER;
}

static void *raw_malloc(void *ctx, size_t n)
{
    void *p = raw_base.malloc(raw_base.ctx, n);
    if (!p && n) {
        if (!reserve_open) {
            raw_refused(n);
            return NULL;
        }
        refused = n;
        p = raw_from_reserve(n);
    }
    return p;
}

static void *raw_calloc(void *ctx, size_t nelem, size_t elsize)
{
    void *p = raw_base.calloc(raw_base.ctx, nelem, elsize);
    if (!p && nelem && elsize) {
        if (nelem > SIZE_MAX / elsize) {
            refused = SIZE_MAX;
            return NULL;
        }
        if (!reserve_open) {
            raw_refused(nelem * elsize);
            return NULL;
        }
        refused = nelem * elsize;
        p = raw_from_reserve(nelem * elsize);
        if (p)
            memset(p, 0, nelem * elsize);
    }
    return p;
}

static void *raw_realloc(void *ctx, void *ptr, size_t n)
{
    if (ptr && in_reserve(ptr)) {
        size_t old = *(size_t *)((char *)ptr - RAW_HEADER);
        void *p = raw_malloc(ctx, n);
        if (p)
            memcpy(p, ptr, old < n ? old : n);
        return p;
    }
    void *p = raw_base.realloc(raw_base.ctx, ptr, n);
    if (!p && n) {
        if (!reserve_open) {
            raw_refused(n);
            return NULL;
        }
        refused = n;
        p = raw_from_reserve(n);
        if (p && ptr) {
            /* The old block's size is unknown here; the libc knows it. */
            size_t old = malloc_usable_size(ptr);
            memcpy(p, ptr, old < n ? old : n);
            raw_base.free(raw_base.ctx, ptr);
        }
    }
    return p;
}

static void raw_free(void *ctx, void *ptr)
{
    if (ptr && in_reserve(ptr))
        return;
    raw_base.free(raw_base.ctx, ptr);
}

/* Installs the raw allocator wrapper: before CPython starts (the raw
 * domain must not change while it holds blocks of the old allocator, and
 * the wrapper frees through the same allocator, so either way is safe). */
void amla_oom_install(void)
{
    PyMem_GetAllocator(PYMEM_DOMAIN_RAW, &raw_base);
    PyMemAllocatorEx a = {NULL, raw_malloc, raw_calloc, raw_realloc, raw_free};
    PyMem_SetAllocator(PYMEM_DOMAIN_RAW, &a);
}
