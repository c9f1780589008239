/*
 * stdlib.c: the module archive (the standard library and the prelude as
 * marshalled code objects, written by mkarchive.py at build time) as data
 * in the module's memory. Importing from memory, not from a file on a
 * preopened directory, keeps the snapshot independent of the run's
 * directories and costs no file system calls.
 *
 * The bytes are included by the assembler (.incbin) from the file
 * AMLA_ARCHIVE names (build.py passes it; the path holds a hash of the
 * archive's inputs, so a changed archive is a changed command line for
 * zig's compile cache). C23's #embed would be neater, but zig cc's
 * dependency tracking fails on it.
 */
#include <stddef.h>
#include <stdint.h>

#include "host.h"

#ifndef AMLA_ARCHIVE
#error "build.py defines AMLA_ARCHIVE, the path of the module archive"
#endif

__asm__(".section .rodata.amla_stdlib,\"\",@\n"
        ".globl amla_stdlib\n"
        ".type amla_stdlib,@object\n"
        ".p2align 4\n"
        "amla_stdlib:\n"
        ".incbin \"" AMLA_ARCHIVE "\"\n"
        ".size amla_stdlib, . - amla_stdlib\n");

/* The archive's length is in its own header: the index comes last. */
size_t amla_stdlib_size(void)
{
    const unsigned char *h = amla_stdlib;
    uint32_t off = (uint32_t)h[20] | (uint32_t)h[21] << 8 | (uint32_t)h[22] << 16 | (uint32_t)h[23] << 24;
    uint32_t len = (uint32_t)h[24] | (uint32_t)h[25] << 8 | (uint32_t)h[26] << 16 | (uint32_t)h[27] << 24;
    return (size_t)off + len;
}
