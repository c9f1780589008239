/*
 * cxxabi_stubs.c: C++ exceptions in the data guest end the program.
 *
 * The packages' C++ is compiled with -fignore-exceptions: a throw calls
 * these functions and no handler is ever found. numpy's C++ (sorting,
 * unique, pocketfft) throws only on an internal error or when memory runs
 * out, pandas' never. Reaching a throw is reported and traps, which the
 * host reports as a crash of the run, never as a wrong result.
 */
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

static void die(const char *why)
{
    static const char prefix[] = "amla python: C++ exception in the data packages: ";
    (void)!write(2, prefix, sizeof prefix - 1);
    size_t n = 0;
    while (why[n])
        n++;
    (void)!write(2, why, n);
    (void)!write(2, "\n", 1);
    __builtin_trap();
}

void *__cxa_allocate_exception(size_t size)
{
    (void)size;
    die("thrown (out of memory or an internal error)");
    return NULL;
}

void __cxa_free_exception(void *p)
{
    (void)p;
}

void __cxa_throw(void *obj, void *type, void (*dest)(void *))
{
    (void)obj;
    (void)type;
    (void)dest;
    die("thrown (out of memory or an internal error)");
}
