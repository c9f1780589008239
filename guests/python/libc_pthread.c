/*
 * libc_pthread.c: pthread_key_delete for a libc built without threads.
 *
 * The libc's version walks the list of threads from the current one until
 * it comes back round, but without threads that list is never closed, so
 * the walk never ends (CPython calls it when it finalises, and the prelude
 * may). With one thread, deleting a key only has to clear this thread's
 * value. This replaces the libc's weak definition; it must be linked as an
 * object file, not from an archive, which the linker would search after
 * the libc.
 */
#include <pthread.h>

int pthread_key_delete(pthread_key_t key)
{
    return pthread_setspecific(key, NULL);
}
