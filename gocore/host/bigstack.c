// Threads with a stack big enough for a guest's wasm stack (bigstack.go).
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

#include "_cgo_export.h"

// amla_bigstack_main is the thread's body: it enters Go, which serves
// guest runs on this thread until it has been idle for a while.
static void *amla_bigstack_main(void *arg) {
	(void)arg;
	amlaBigStackWorker();
	return NULL;
}

// amla_bigstack_start starts one detached worker thread with a stack of
// stack_bytes. Returns 0 or an errno value.
int amla_bigstack_start(size_t stack_bytes) {
	pthread_attr_t attr;
	pthread_t thread;
	int err = pthread_attr_init(&attr);
	if (err != 0)
		return err;
	err = pthread_attr_setstacksize(&attr, stack_bytes);
	if (err == 0)
		err = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (err == 0)
		err = pthread_create(&thread, &attr, amla_bigstack_main, NULL);
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
