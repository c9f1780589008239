/*
 * amla_host.h: the host functions the C guests (JavaScript, guests/js;
 * Python, guests/python) import, and the constants of the contract they
 * copy. One header for both, so their declarations cannot differ.
 *
 * The names, the signatures and the JSON shapes are gocore/wire's: a Go
 * test there checks this header against package wire (import module,
 * names, constants), and one in gocore/host against the functions the
 * host defines (wasm signatures), so neither side can drift.
 *
 * Ownership across the imports: the guest owns every buffer it passes; the
 * host copies what it keeps before the call returns. input_read,
 * tool_take and spawn_take copy into a buffer the guest allocated with the
 * length the previous call announced.
 */
#ifndef AMLA_HOST_H
#define AMLA_HOST_H

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
/* Records the script's value as JSON text (wire.FnReturnValue): what a
 * JavaScript script returns, a Python script's final expression. */
AMLA_IMPORT("return_value") void amla_return_value(const void *ptr, int32_t len);

/* What the quota charges for each new file or directory (wire.DiskEntryCost). */
#define AMLA_DISK_ENTRY_COST 4096

#endif
