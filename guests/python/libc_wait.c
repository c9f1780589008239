/*
 * libc_wait.c: the libc functions that wait, replaced so waiting happens
 * in the host's sleep, where the run's deadline and cancellation apply.
 *
 * WASI's poll_oneoff blocks inside the engine, where the epoch deadline
 * that stops a computing guest cannot reach it: time.sleep(3600) would
 * outlive any timeout. time.sleep() ends in clock_nanosleep, and
 * select.select() and select.poll() in poll; both are replaced here (each
 * is alone in its libc archive member, so the libc's own never loads).
 * Before amla_running is set (set-up) the plain WASI call is made.
 *
 * Descriptors are polled without waiting: in the sandbox every descriptor
 * is a file, which is always ready (sockets cannot be created), so only
 * the timeout is ever waited for.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <time.h>
#include <wasi/api.h>

#include "host.h"

/* wasi_sleep is the libc's way, for set-up. */
static int wasi_sleep(__wasi_clockid_t clock, int abs, __wasi_timestamp_t t)
{
    __wasi_subscription_t sub = {
        .u.tag = __WASI_EVENTTYPE_CLOCK,
        .u.u.clock.id = clock,
        .u.u.clock.timeout = t,
        .u.u.clock.flags = abs ? __WASI_SUBCLOCKFLAGS_SUBSCRIPTION_CLOCK_ABSTIME : 0,
    };
    __wasi_event_t ev;
    __wasi_size_t n;
    __wasi_errno_t e = __wasi_poll_oneoff(&sub, &ev, 1, &n);
    return e == 0 && ev.error == 0 ? 0 : ENOTSUP;
}

/* host_sleep_ns sleeps ns in the host, rounded up to whole milliseconds
 * (a sleep never ends early). */
static void host_sleep_ns(uint64_t ns)
{
    amla_sleep((int64_t)((ns + 999999) / 1000000));
}

int clock_nanosleep(clockid_t clock, int flags, const struct timespec *req, struct timespec *rem)
{
    (void)rem; /* never interrupted: there are no signals */
    if ((flags & ~TIMER_ABSTIME) != 0 || req->tv_sec < 0 || req->tv_nsec < 0 || req->tv_nsec >= 1000000000)
        return EINVAL;
    uint64_t t = (uint64_t)req->tv_sec * 1000000000u + (uint64_t)req->tv_nsec;
    if (!amla_running)
        return wasi_sleep(clock == CLOCK_MONOTONIC ? __WASI_CLOCKID_MONOTONIC : __WASI_CLOCKID_REALTIME,
                          flags & TIMER_ABSTIME, t);
    if (flags & TIMER_ABSTIME) {
        struct timespec now;
        if (clock_gettime(clock, &now) != 0)
            return errno;
        uint64_t n = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
        t = t > n ? t - n : 0;
    }
    host_sleep_ns(t);
    return 0;
}

/* nanosleep in the libc calls this name too. */
int __clock_nanosleep(clockid_t clock, int flags, const struct timespec *req, struct timespec *rem)
{
    return clock_nanosleep(clock, flags, req, rem);
}

/* poll_now asks WASI, without waiting, which descriptors are ready; the
 * number of descriptors with events, or -1 with errno set. */
static int poll_now(struct pollfd *fds, nfds_t nfds)
{
    __wasi_subscription_t subs[2 * nfds + 1];
    size_t n = 0;
    for (nfds_t i = 0; i < nfds; i++) {
        fds[i].revents = 0;
        if (fds[i].fd < 0)
            continue;
        if (!(fds[i].events & (POLLRDNORM | POLLWRNORM))) {
            errno = ENOSYS; /* as the libc: only readiness can be asked */
            return -1;
        }
        if (fds[i].events & POLLRDNORM)
            subs[n++] = (__wasi_subscription_t){.userdata = i, .u.tag = __WASI_EVENTTYPE_FD_READ,
                                                .u.u.fd_read.file_descriptor = (__wasi_fd_t)fds[i].fd};
        if (fds[i].events & POLLWRNORM)
            subs[n++] = (__wasi_subscription_t){.userdata = i, .u.tag = __WASI_EVENTTYPE_FD_WRITE,
                                                .u.u.fd_write.file_descriptor = (__wasi_fd_t)fds[i].fd};
    }
    if (n == 0)
        return 0;
    subs[n++] = (__wasi_subscription_t){.userdata = UINT64_MAX, .u.tag = __WASI_EVENTTYPE_CLOCK,
                                        .u.u.clock.id = __WASI_CLOCKID_MONOTONIC, .u.u.clock.timeout = 0};
    __wasi_event_t evs[n];
    __wasi_size_t got;
    __wasi_errno_t e = __wasi_poll_oneoff(subs, evs, n, &got);
    if (e != 0) {
        errno = e;
        return -1;
    }
    for (__wasi_size_t k = 0; k < got; k++) {
        if (evs[k].userdata == UINT64_MAX)
            continue;
        struct pollfd *p = &fds[evs[k].userdata];
        if (evs[k].error == __WASI_ERRNO_BADF)
            p->revents |= POLLNVAL;
        else if (evs[k].error != 0)
            p->revents |= POLLERR;
        else
            p->revents |= evs[k].type == __WASI_EVENTTYPE_FD_READ ? POLLRDNORM : POLLWRNORM;
    }
    int ready = 0;
    for (nfds_t i = 0; i < nfds; i++)
        ready += fds[i].revents != 0;
    return ready;
}

int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
    int ready = poll_now(fds, nfds);
    if (ready != 0 || timeout == 0)
        return ready;
    if (!amla_running) {
        /* Set-up never waits on descriptors; a plain timeout is a sleep. */
        return timeout > 0 ? wasi_sleep(__WASI_CLOCKID_MONOTONIC, 0, (uint64_t)timeout * 1000000u) : 0;
    }
    /* Nothing can become ready later: wait out the timeout (forever, when
     * negative: the host's deadline ends it). */
    amla_sleep(timeout < 0 ? INT64_MAX / 2 : timeout);
    return 0;
}
