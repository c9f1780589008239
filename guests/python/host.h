/*
 * host.h: what the C files of the Python guest share.
 *
 * The guest is a WASI reactor. The host calls _initialize (wasi-libc's
 * constructors), then amla_init() once (possibly at build time, before a
 * snapshot), and amla_run() once per instance. Everything the guest asks of
 * the host goes through the imports below (module "amla"; the names, the
 * signatures and the JSON shapes are gocore/wire/wire.go's, and a Go test
 * checks these names against it) or through WASI.
 *
 * Ownership across the imports: the guest owns every buffer it passes; the
 * host copies what it keeps before the call returns. input_read,
 * tool_take and spawn_take copy into a buffer the guest allocated with the
 * length the previous call announced.
 */
#ifndef AMLA_PY_HOST_H
#define AMLA_PY_HOST_H

#include <stddef.h>
#include <stdint.h>

#define AMLA_IMPORT(name) __attribute__((import_module("amla"), import_name(name)))

/* The run's wire.Input JSON: its length, then a copy of it. */
AMLA_IMPORT("input_len") int32_t amla_input_len(void);
AMLA_IMPORT("input_read") void amla_input_read(void *ptr);
/* Writes stdout (fd 1) or stderr (fd 2); the host caps and streams it. */
AMLA_IMPORT("output") void amla_output(int32_t fd, const void *ptr, int32_t len);
/* Queues a wire.ToolRequest JSON; returns its id (> 0). The capability
 * check happens here, in the host: a denied call is answered at once. */
AMLA_IMPORT("tool_submit") int64_t amla_tool_submit(const void *ptr, int32_t len);
/* Waits for an answer to one of this process's requests: its length, 0
 * when timeout_ms (>= 0) passed first, -1 when nothing is pending and
 * timeout_ms < 0. */
AMLA_IMPORT("tool_wait") int32_t amla_tool_wait(int64_t timeout_ms);
/* Copies the answer tool_wait announced: AnswerHeader JSON, "\n", result. */
AMLA_IMPORT("tool_take") void amla_tool_take(void *ptr);
/* Records the script's exit status (0..255). */
AMLA_IMPORT("exit_status") void amla_exit_status(int32_t code);
/* Sleeps in the host, where the run's deadline and cancellation apply. */
AMLA_IMPORT("sleep") void amla_sleep(int64_t ms);
/* Runs a wire.SpawnRequest as a child process and waits for it; returns
 * the length of its wire.SpawnResult JSON, which spawn_take copies. */
AMLA_IMPORT("spawn") int32_t amla_spawn(const void *ptr, int32_t len);
AMLA_IMPORT("spawn_take") void amla_spawn_take(void *ptr);
/* Asks for room for bytes more of files under the disk quota before they
 * are written: 0 granted, 1 refused (the write fails with ENOSPC). */
AMLA_IMPORT("disk_reserve") int32_t amla_disk_reserve(int64_t bytes);
/* Records the script's value (its final expression) as JSON text. */
AMLA_IMPORT("return_value") void amla_return_value(const void *ptr, int32_t len);

/* What the quota charges for each new file or directory (wire.DiskEntryCost). */
#define AMLA_DISK_ENTRY_COST 4096

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
