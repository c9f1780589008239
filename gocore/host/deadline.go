package host

/*
#include <stdint.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <time.h>

// The few wasmtime C API declarations this file needs; wasmtime-go links
// the library, and its headers are not on our include path.
typedef struct wasmtime_store wasmtime_store_t;
typedef struct wasmtime_context wasmtime_context_t;
typedef struct wasmtime_error wasmtime_error_t;
typedef uint8_t wasmtime_update_deadline_kind_t;
extern wasmtime_error_t *wasmtime_error_new(const char *);
extern void wasmtime_store_epoch_deadline_callback(
    wasmtime_store_t *store,
    wasmtime_error_t *(*func)(wasmtime_context_t *, void *, uint64_t *, wasmtime_update_deadline_kind_t *),
    void *data, void (*finalizer)(void *));

// amla_ctl is one run's stop switch, shared by every store of the run (the
// script and its child processes). Go writes it from any goroutine; the
// epoch callback reads it on the thread running wasm.
typedef struct {
	_Atomic int64_t deadline_ns; // CLOCK_MONOTONIC; 0 = no deadline
	_Atomic int32_t stop;        // 0 running, else an amla_stop_* reason
} amla_ctl;

enum { amla_stop_none = 0, amla_stop_cancel = 1, amla_stop_timeout = 2, amla_stop_limit = 3 };

static int64_t amla_now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// amla_epoch_cb runs at every epoch tick a store's wasm code reaches. It
// ends the guest when the run was stopped or its deadline passed, else lets
// it run one more tick. Returning an error makes the wasm call fail; the
// reason stays in ctl->stop, which is how Go classifies the end.
static wasmtime_error_t *amla_epoch_cb(wasmtime_context_t *cx, void *data, uint64_t *delta,
                                       wasmtime_update_deadline_kind_t *kind) {
	(void)cx;
	amla_ctl *c = (amla_ctl *)data;
	int32_t stop = atomic_load(&c->stop);
	if (stop == amla_stop_none) {
		int64_t dl = atomic_load(&c->deadline_ns);
		if (dl > 0 && amla_now_ns() >= dl) {
			int32_t none = amla_stop_none;
			atomic_compare_exchange_strong(&c->stop, &none, amla_stop_timeout);
			stop = atomic_load(&c->stop);
		}
	}
	if (stop != amla_stop_none) {
		return wasmtime_error_new("amla: run stopped");
	}
	*delta = 1;
	*kind = 0; // WASMTIME_UPDATE_DEADLINE_CONTINUE
	return NULL;
}

static amla_ctl *amla_ctl_new(void) {
	amla_ctl *c = calloc(1, sizeof(amla_ctl));
	return c;
}

static void amla_ctl_attach(amla_ctl *c, void *store) {
	// No finalizer: the run frees ctl after every store using it is closed.
	wasmtime_store_epoch_deadline_callback((wasmtime_store_t *)store, amla_epoch_cb, c, NULL);
}

static void amla_ctl_set_deadline(amla_ctl *c, int64_t ns) { atomic_store(&c->deadline_ns, ns); }
static int64_t amla_ctl_deadline(amla_ctl *c) { return atomic_load(&c->deadline_ns); }
static int32_t amla_ctl_stop(amla_ctl *c, int32_t reason) {
	int32_t none = amla_stop_none;
	atomic_compare_exchange_strong(&c->stop, &none, reason);
	return atomic_load(&c->stop);
}
static int32_t amla_ctl_reason(amla_ctl *c) { return atomic_load(&c->stop); }
*/
import "C"

import (
	"runtime"
	"time"
	"unsafe"

	"github.com/bytecodealliance/wasmtime-go/v39"
)

// stopReason says why a run was stopped from outside its guest.
type stopReason int32

const (
	stopNone    stopReason = C.amla_stop_none
	stopCancel  stopReason = C.amla_stop_cancel
	stopTimeout stopReason = C.amla_stop_timeout
	stopLimit   stopReason = C.amla_stop_limit // a host-side limit (tool calls per run)
)

// deadline is a run's stop switch: a monotonic deadline and a stop reason,
// checked by wasmtime at every epoch tick (every epochTick) of every store
// attached to it, and by the host functions that block. It stops a
// computing guest within about two ticks of a cancel or of the deadline,
// which wasmtime-go's SetEpochDeadline alone cannot do (it cannot be moved
// while the guest runs).
type deadline struct {
	c *C.amla_ctl
}

func newDeadline() *deadline {
	d := &deadline{c: C.amla_ctl_new()}
	// Freed when the run (and so every store that used it, each closed
	// when its process ended) is unreachable; Cancel may come at any time
	// before that.
	runtime.SetFinalizer(d, func(d *deadline) { C.free(unsafe.Pointer(d.c)) })
	return d
}

// parked is the stop switch of instances between runs: a spare that was
// reset keeps an epoch callback, which would otherwise point at the last
// run's switch, freed once that run is collected. It is stopped, so wasm
// run by mistake in a parked instance ends at its first epoch check; it is
// never freed.
var parked = func() *deadline {
	d := &deadline{c: C.amla_ctl_new()}
	C.amla_ctl_stop(d.c, C.int32_t(stopCancel))
	return d
}()

// monoNow is the clock the deadline is measured on.
func monoNow() int64 { return int64(C.amla_now_ns()) }

// attach makes store check this deadline at every epoch tick.
func (d *deadline) attach(store *wasmtime.Store) {
	// wasmtime-go keeps the C store pointer as the first field of Store
	// and does not export it; the callback API is not wrapped by it.
	ptr := *(*unsafe.Pointer)(unsafe.Pointer(store))
	C.amla_ctl_attach(d.c, ptr)
	store.SetEpochDeadline(1)
}

// setIn puts the deadline dur from now.
func (d *deadline) setIn(dur time.Duration) {
	C.amla_ctl_set_deadline(d.c, C.int64_t(monoNow()+int64(dur)))
}

// extend moves the deadline later by dur (time the guest spent blocked on
// Python's tool handlers, which does not count).
func (d *deadline) extend(dur time.Duration) {
	if dur <= 0 {
		return
	}
	cur := int64(C.amla_ctl_deadline(d.c))
	if cur > 0 {
		C.amla_ctl_set_deadline(d.c, C.int64_t(cur+int64(dur)))
	}
}

// remaining is the time left before the deadline (negative when past).
func (d *deadline) remaining() time.Duration {
	return time.Duration(int64(C.amla_ctl_deadline(d.c)) - monoNow())
}

// stop records reason unless a reason is already recorded, and returns the
// reason in force. Running guests stop at their next epoch tick.
func (d *deadline) stop(reason stopReason) stopReason {
	return stopReason(C.amla_ctl_stop(d.c, C.int32_t(reason)))
}

// reason is why the run was stopped, or stopNone.
func (d *deadline) reason() stopReason { return stopReason(C.amla_ctl_reason(d.c)) }
