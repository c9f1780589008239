/*
 * host.h: what the C files of the Python guest share.
 *
 * The guest is a WASI reactor. The host calls _initialize (wasi-libc's
 * constructors), then amla_init() once (possibly at build time, before a
 * snapshot), and amla_run() once per instance. Everything the guest asks of
 * the host goes through the imports of amla_host.h (guests/include, shared
 * with the JavaScript guest and checked against gocore/wire) or through
 * WASI.
 */
#ifndef AMLA_PY_HOST_H
#define AMLA_PY_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "amla_host.h" /* the host imports, shared with the JavaScript guest */

/* Set by amla_run before it runs anything of the script. The libc
 * overrides (libc_files.c, libc_wait.c) call the host only while it is
 * set: during set-up, which a snapshot may record, the host functions are
 * not there (amla-snapshot makes them trap). */
extern int amla_running;

/* The standard library and the guest's own Python modules, as the archive
 * mkarchive.py writes (stdlib.c embeds it). */
extern const unsigned char amla_stdlib[];
size_t amla_stdlib_size(void);

/* The builtin module the prelude uses to reach the host (hostmod.c). */
struct _object;
struct _object *amla_hostmod_init(void);

/* Arena allocation for pymalloc straight from linear memory (arena.c). */
void amla_install_arenas(void);

/* oom.c: the memory reserve, refused requests, claiming the rest. */
void *amla_oom_grow(size_t pages);
void amla_oom_install(void);
void amla_oom_take_reserve(void);
void amla_oom_open_reserve(void);
void amla_oom_begin_run(void);
size_t amla_oom_refused(void);
void amla_oom_claim_rest(void);

#endif
