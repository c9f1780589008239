// Threads with a stack big enough for a guest's wasm stack (workers.go).
//
// wasmtime runs wasm on the stack of the thread that calls it. Threads the
// Go runtime creates get the C library's default stack (8 MiB with a usual
// `ulimit -s`, 2 MiB when it is unlimited), which a guest's wasm stack plus
// the host frames around it can overrun: that is a crash of the whole
// process, not a trap. So the host runs every guest on a thread it creates
// here, with a stack of its own choosing.

#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "_cgo_export.h"

// amla_bigstack_main is the thread's body: it enters Go, which serves
// guest runs on this thread for the life of the process. arg is the
// worker's id (workers.go), passed by value in the pointer.
static void *amla_bigstack_main(void *arg) {
	amlaBigStackWorker((uint64_t)(uintptr_t)arg);
	return NULL;
}

// amla_bigstack_start starts one detached worker thread with a stack of
// stack_bytes, for worker id. Returns 0 or an errno value.
int amla_bigstack_start(size_t stack_bytes, uint64_t id) {
	pthread_attr_t attr;
	pthread_t thread;
	int err = pthread_attr_init(&attr);
	if (err != 0)
		return err;
	err = pthread_attr_setstacksize(&attr, stack_bytes);
	if (err == 0)
		err = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (err == 0)
		err = pthread_create(&thread, &attr, amla_bigstack_main, (void *)(uintptr_t)id);
	pthread_attr_destroy(&attr);
	return err;
}

// amla_thread_stack returns the size of the calling thread's stack, or 0
// when it cannot be told (for tests of the workers).
size_t amla_thread_stack(void) {
#if defined(__APPLE__)
	return pthread_get_stacksize_np(pthread_self());
#elif defined(__linux__)
	pthread_attr_t attr;
	void *addr;
	size_t size = 0;
	if (pthread_getattr_np(pthread_self(), &attr) != 0)
		return 0;
	if (pthread_attr_getstack(&attr, &addr, &size) != 0)
		size = 0;
	pthread_attr_destroy(&attr);
	return size;
#else
	return 0;
#endif
}

// amla_thread_id identifies the calling thread (for tests of the workers).
size_t amla_thread_id(void) { return (size_t)pthread_self(); }

#if defined(__linux__)
// stack_low returns the lowest address of the calling thread's stack, or 0.
static uintptr_t stack_low(void) {
	static __thread uintptr_t low;
	if (low == 0) {
		pthread_attr_t attr;
		void *addr;
		size_t size;
		if (pthread_getattr_np(pthread_self(), &attr) != 0)
			return 0;
		if (pthread_attr_getstack(&attr, &addr, &size) == 0)
			low = (uintptr_t)addr;
		pthread_attr_destroy(&attr);
	}
	return low;
}
#endif

// amla_stack_trim gives the kernel back the pages of the calling thread's
// stack that lie more than keep_bytes below the current frame. Nothing
// lives below the stack pointer, so the memory reads as zeros if it is
// touched again. Linux only; elsewhere it does nothing.
void amla_stack_trim(size_t keep_bytes) {
#if defined(__linux__)
	uintptr_t low = stack_low();
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	if (low == 0 || sp - low <= keep_bytes + page)
		return;
	uintptr_t start = (low + page - 1) & ~(page - 1);
	uintptr_t end = (sp - keep_bytes) & ~(page - 1);
	if (end > start)
		madvise((void *)start, end - start, MADV_DONTNEED);
#else
	(void)keep_bytes;
#endif
}

// amla_stack_resident counts resident pages from from_bytes to to_bytes
// below the current frame (for tests); (size_t)-1 if it cannot be told.
size_t amla_stack_resident(size_t from_bytes, size_t to_bytes) {
#if defined(__linux__)
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = (sp - to_bytes) & ~(page - 1);
	uintptr_t end = (sp - from_bytes) & ~(page - 1);
	size_t n = (end - start) / page, count = 0;
	unsigned char vec[4096];
	if (n > sizeof vec || mincore((void *)start, end - start, vec) != 0)
		return (size_t)-1;
	for (size_t i = 0; i < n; i++)
		count += vec[i] & 1;
	return count;
#else
	(void)from_bytes;
	(void)to_bytes;
	return (size_t)-1;
#endif
}

// amla_stack_touch writes bytes of stack below its frame (for tests).
void amla_stack_touch(size_t bytes) {
	volatile char *buf = __builtin_alloca(bytes);
	for (size_t i = 0; i < bytes; i += 4096)
		buf[i] = 1;
}

// amla_malloc_trim returns the C heap's free memory to the kernel, in all
// of glibc's arenas (which otherwise keep what was freed for reuse, one
// arena per thread that allocated). Elsewhere it does nothing.
void amla_malloc_trim(void) {
#if defined(__GLIBC__)
	malloc_trim(0);
#endif
}
