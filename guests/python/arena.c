/*
 * arena.c: where CPython's arenas come from.
 *
 * CPython asks its arena allocator for big blocks it gives back whole:
 * pymalloc's arenas for small objects (256 KiB on wasm32) and the chunks
 * of the stack that holds Python frames (16 KiB, doubling for frames that
 * need more). The libc's malloc rounds every block up to a power of two
 * with a header in front, so a 256 KiB arena would take 512 KiB. Here:
 *
 *   - a block of at least 64 KiB is whole 64 KiB pages of linear memory
 *     (memory.grow; the host's memory limit can refuse it, and then
 *     CPython sees NULL and raises MemoryError; oom.c records that);
 *   - a smaller block is a power-of-two share (at least 4 KiB) of such a
 *     page, so sixteen 16 KiB frame-stack chunks take one page, not four;
 *   - a block given back is kept on a list of its size and handed out
 *     again. Wasm memory cannot shrink, so nothing is lost by never
 *     returning it.
 */
#include <stddef.h>
#include <stdint.h>

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "host.h"

#define WASM_PAGE 65536
#define MIN_SHARE 4096

/* A free block, linked through its first words. */
struct free_block {
    struct free_block *next;
    size_t size;
};

/* Free shares of a page by size (4, 8, 16, 32 KiB) and free whole-page
 * blocks of any size. */
static struct free_block *shares[4];
static struct free_block *big;

/* share_class is the index in shares of a block of size bytes, for
 * size < WASM_PAGE / 2 (larger blocks take a whole page). */
static int share_class(size_t size)
{
    int c = 0;
    for (size_t s = MIN_SHARE; s < size; s <<= 1)
        c++;
    return c;
}

/* grow takes whole pages of new memory (oom.c: it records a refusal and
 * draws on the reserve once the prelude opened it). */
static void *grow(size_t pages) { return amla_oom_grow(pages); }

static void *arena_alloc(void *ctx, size_t size)
{
    (void)ctx;
    if (size == 0)
        return NULL;
    if (size <= WASM_PAGE / 2) {
        int c = share_class(size);
        size_t share = (size_t)MIN_SHARE << c;
        if (!shares[c]) {
            char *page = grow(1);
            if (!page)
                return NULL;
            for (size_t off = 0; off < WASM_PAGE; off += share) {
                struct free_block *b = (struct free_block *)(page + off);
                b->size = share;
                b->next = shares[c];
                shares[c] = b;
            }
        }
        struct free_block *b = shares[c];
        shares[c] = b->next;
        return b;
    }
    size_t rounded = (size + WASM_PAGE - 1) / WASM_PAGE * WASM_PAGE;
    for (struct free_block **p = &big; *p; p = &(*p)->next) {
        if ((*p)->size == rounded) {
            struct free_block *b = *p;
            *p = b->next;
            return b;
        }
    }
    return grow(rounded / WASM_PAGE);
}

static void arena_free(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    if (!ptr || size == 0)
        return;
    struct free_block *b = ptr;
    if (size <= WASM_PAGE / 2) {
        int c = share_class(size);
        b->size = (size_t)MIN_SHARE << c;
        b->next = shares[c];
        shares[c] = b;
        return;
    }
    b->size = (size + WASM_PAGE - 1) / WASM_PAGE * WASM_PAGE;
    b->next = big;
    big = b;
}

void amla_install_arenas(void)
{
    PyObjectArenaAllocator a = {NULL, arena_alloc, arena_free};
    PyObject_SetArenaAllocator(&a);
}
