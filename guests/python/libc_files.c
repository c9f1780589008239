/*
 * libc_files.c: the libc functions through which CPython (and SQLite, and
 * zlib) write files, replaced so every write is charged to the sandbox's
 * disk quota first, and so writes to fd 1 and 2 reach the run's output.
 *
 * Each function here replaces the wasi-libc function of the same name:
 * the linker takes a definition from an object file before it looks in
 * libc.a, and each of these libc functions is alone in its archive member,
 * so the member is never loaded. What each does after the quota check is
 * the plain WASI call the libc would make.
 *
 * The quota (gocore/host/disk.go) charges what a file grows by, in whole
 * AMLA_DISK_ENTRY_COST units as the host measures files, and
 * AMLA_DISK_ENTRY_COST per file or directory created; a write it refuses
 * fails with ENOSPC before anything is written, so a file keeps what it
 * held. Refusals of the read-only directories (WASI's ENOTCAPABLE or
 * EPERM) become EACCES, which Python raises as PermissionError naming the
 * path, as every other system does.
 *
 * Before amla_running is set (set-up, possibly in a snapshot) nothing is
 * charged and fds 1 and 2 are WASI's own: the host functions do not exist
 * then.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <wasi/api.h>

#include "host.h"

/* charge asks the quota for n bytes; -1 with errno ENOSPC when refused. */
static int charge(int64_t n)
{
    if (!amla_running || n <= 0)
        return 0;
    if (amla_disk_reserve(n) != 0) {
        errno = ENOSPC;
        return -1;
    }
    return 0;
}

/* The host measures a file as its size rounded up to whole
 * AMLA_DISK_ENTRY_COST units (gocore/host/disk.go diskUsage). */
static int64_t measured(int64_t size)
{
    return (size + AMLA_DISK_ENTRY_COST - 1) / AMLA_DISK_ENTRY_COST * AMLA_DISK_ENTRY_COST;
}

/* charge_write asks the quota for what writing n bytes to fd at offset
 * (-1: at its position, or at its end when it appends) adds to the file
 * as the host measures it, so the quota's estimate and its measure of the
 * directory agree. A descriptor that is not a regular file is charged n. */
static int charge_write(int fd, int64_t offset, int64_t n)
{
    if (!amla_running || n <= 0)
        return 0;
    __wasi_filestat_t st;
    if (__wasi_fd_filestat_get(fd, &st) != 0 || st.filetype != __WASI_FILETYPE_REGULAR_FILE)
        return charge(n);
    int64_t size = (int64_t)st.size, at = offset;
    if (at < 0) {
        __wasi_fdstat_t fs;
        __wasi_filesize_t pos;
        if (__wasi_fd_fdstat_get(fd, &fs) == 0 && (fs.fs_flags & __WASI_FDFLAGS_APPEND))
            at = size;
        else if (__wasi_fd_tell(fd, &pos) == 0)
            at = (int64_t)pos;
        else
            at = size;
    }
    int64_t end = at + n > size ? at + n : size;
    return charge(measured(end) - measured(size));
}

/* is_output: fd is the script's stdout or stderr, which go to the host. */
static int is_output(int fd)
{
    return amla_running && (fd == 1 || fd == 2);
}

/* fs_errno turns a WASI error into errno: the capability refusals of the
 * read-only directories are "permission denied". */
static int fs_errno(__wasi_errno_t e)
{
    if (e == __WASI_ERRNO_NOTCAPABLE || e == __WASI_ERRNO_PERM)
        return EACCES;
    return e;
}

ssize_t write(int fd, const void *buf, size_t n)
{
    if (is_output(fd)) {
        if (n > INT32_MAX)
            n = INT32_MAX;
        amla_output(fd, buf, (int32_t)n);
        return (ssize_t)n;
    }
    if (fd > 2 && charge_write(fd, -1, (int64_t)n) < 0)
        return -1;
    __wasi_ciovec_t iov = {.buf = buf, .buf_len = n};
    size_t done;
    __wasi_errno_t e = __wasi_fd_write(fd, &iov, 1, &done);
    if (e != 0) {
        errno = e == __WASI_ERRNO_NOTCAPABLE ? EBADF : e;
        return -1;
    }
    return (ssize_t)done;
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
    if (n < 0) {
        errno = EINVAL;
        return -1;
    }
    int64_t total = 0;
    for (int i = 0; i < n; i++)
        total += (int64_t)iov[i].iov_len;
    if (is_output(fd)) {
        for (int i = 0; i < n; i++)
            if (iov[i].iov_len)
                amla_output(fd, iov[i].iov_base, (int32_t)iov[i].iov_len);
        return (ssize_t)total;
    }
    if (fd > 2 && charge_write(fd, -1, total) < 0)
        return -1;
    size_t done;
    /* struct iovec and __wasi_ciovec_t have the same layout (wasi-libc
     * asserts it). */
    __wasi_errno_t e = __wasi_fd_write(fd, (const __wasi_ciovec_t *)iov, (size_t)n, &done);
    if (e != 0) {
        errno = e;
        return -1;
    }
    return (ssize_t)done;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t offset)
{
    if (offset < 0) {
        errno = EINVAL;
        return -1;
    }
    if (charge_write(fd, (int64_t)offset, (int64_t)n) < 0)
        return -1;
    __wasi_ciovec_t iov = {.buf = buf, .buf_len = n};
    size_t done;
    __wasi_errno_t e = __wasi_fd_pwrite(fd, &iov, 1, (__wasi_filesize_t)offset, &done);
    if (e != 0) {
        errno = e == __WASI_ERRNO_NOTCAPABLE ? EBADF : e;
        return -1;
    }
    return (ssize_t)done;
}

/* ftruncate charges what the file grows by, as the host measures it. */
int ftruncate(int fd, off_t length)
{
    if (length < 0) {
        errno = EINVAL;
        return -1;
    }
    __wasi_filestat_t st;
    if (amla_running && __wasi_fd_filestat_get(fd, &st) == 0 && (__wasi_filesize_t)length > st.size &&
        charge(measured((int64_t)length) - measured((int64_t)st.size)) < 0)
        return -1;
    __wasi_errno_t e = __wasi_fd_filestat_set_size(fd, (__wasi_filesize_t)length);
    if (e != 0) {
        errno = e;
        return -1;
    }
    return 0;
}

/* Every open(), fopen(), openat() and creat() ends here (with the path
 * relative to a preopened directory). A file about to be created is
 * charged its entry first. */
int __wasilibc_nocwd_openat_nomode(int dirfd, const char *path, int oflag)
{
    __wasi_rights_t max = ~(__WASI_RIGHTS_FD_DATASYNC | __WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_WRITE |
                            __WASI_RIGHTS_FD_ALLOCATE | __WASI_RIGHTS_FD_READDIR |
                            __WASI_RIGHTS_FD_FILESTAT_SET_SIZE);
    switch (oflag & O_ACCMODE) {
    case O_RDONLY:
    case O_RDWR:
    case O_WRONLY:
        if (oflag & O_RDONLY)
            max |= __WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_READDIR;
        if (oflag & O_WRONLY)
            max |= __WASI_RIGHTS_FD_DATASYNC | __WASI_RIGHTS_FD_WRITE | __WASI_RIGHTS_FD_ALLOCATE |
                   __WASI_RIGHTS_FD_FILESTAT_SET_SIZE;
        break;
    case O_EXEC:
    case O_SEARCH:
        break;
    default:
        errno = EINVAL;
        return -1;
    }
    __wasi_fdstat_t dir;
    __wasi_errno_t e = __wasi_fd_fdstat_get(dirfd, &dir);
    if (e != 0) {
        errno = e;
        return -1;
    }
    __wasi_lookupflags_t lookup = (oflag & O_NOFOLLOW) ? 0 : __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW;
    if ((oflag & O_CREAT) && amla_running) {
        __wasi_filestat_t st;
        if (__wasi_path_filestat_get(dirfd, lookup, path, &st) == __WASI_ERRNO_NOENT &&
            charge(AMLA_DISK_ENTRY_COST) < 0)
            return -1;
    }
    __wasi_fd_t fd;
    e = __wasi_path_open(dirfd, lookup, path, (__wasi_oflags_t)((oflag >> 12) & 0xfff),
                         max & dir.fs_rights_inheriting, dir.fs_rights_inheriting,
                         (__wasi_fdflags_t)(oflag & 0xfff), &fd);
    if (e != 0) {
        errno = fs_errno(e);
        return -1;
    }
    return (int)fd;
}

int __wasilibc_nocwd_mkdirat_nomode(int dirfd, const char *path)
{
    if (charge(AMLA_DISK_ENTRY_COST) < 0)
        return -1;
    __wasi_errno_t e = __wasi_path_create_directory(dirfd, path);
    if (e != 0) {
        errno = fs_errno(e);
        return -1;
    }
    return 0;
}

int __wasilibc_nocwd_symlinkat(const char *target, int dirfd, const char *path)
{
    if (charge(AMLA_DISK_ENTRY_COST) < 0)
        return -1;
    __wasi_errno_t e = __wasi_path_symlink(target, dirfd, path);
    if (e != 0) {
        errno = fs_errno(e);
        return -1;
    }
    return 0;
}

int __wasilibc_nocwd_linkat(int fd1, const char *path1, int fd2, const char *path2, int flag)
{
    if (charge(AMLA_DISK_ENTRY_COST) < 0)
        return -1;
    __wasi_lookupflags_t lookup = (flag & AT_SYMLINK_FOLLOW) ? __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW : 0;
    __wasi_errno_t e = __wasi_path_link(fd1, lookup, path1, fd2, path2);
    if (e != 0) {
        errno = fs_errno(e);
        return -1;
    }
    return 0;
}
