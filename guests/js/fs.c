/*
 * fs.c: the synchronous filesystem natives the prelude's async `fs` wraps.
 *
 * They work on guest paths through wasi-libc, which resolves them against
 * the WASI preopens (/workspace and /tmp read-write, / read-only). Nothing
 * here decides what may be touched: WASI does. This file only names the
 * failures as Node does ("ENOENT: no such file or directory, open 'x'"),
 * with errno, code, syscall and path properties on the Error. Writing
 * under the read-only "/" fails with EPERM (or ENOTCAPABLE) in wasmtime;
 * Node and our docs say EACCES, so those become EACCES.
 *
 * Paths arrive already made absolute and normalised by the prelude.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "amla.h"

struct errno_info {
    int err;
    const char *code, *text;
    int node_errno;
};

static const struct errno_info errno_table[] = {
    {ENOENT, "ENOENT", "no such file or directory", -2},
    {EEXIST, "EEXIST", "file already exists", -17},
    {ENOTEMPTY, "ENOTEMPTY", "directory not empty", -39},
    {EPERM, "EACCES", "permission denied", -13},
    {EROFS, "EACCES", "permission denied", -13},
    {EACCES, "EACCES", "permission denied", -13},
#ifdef ENOTCAPABLE
    {ENOTCAPABLE, "EACCES", "permission denied", -13},
#endif
    {ENOTDIR, "ENOTDIR", "not a directory", -20},
    {EISDIR, "EISDIR", "illegal operation on a directory", -21},
    {EINVAL, "EINVAL", "invalid argument", -22},
    {ELOOP, "ELOOP", "too many symbolic links encountered", -40},
    {ENAMETOOLONG, "ENAMETOOLONG", "name too long", -36},
    {EXDEV, "EXDEV", "cross-device link not permitted", -18},
    {ENOSPC, "ENOSPC", "no space left on device", -28},
    {EDQUOT, "ENOSPC", "no space left on device", -28},
    {EBUSY, "EBUSY", "resource busy or locked", -16},
    {EMFILE, "EMFILE", "too many open files", -24},
    {EBADF, "EBADF", "bad file descriptor", -9},
    {EIO, "EIO", "i/o error", -5},
    {ENOMEM, "ENOMEM", "not enough memory", -12},
    {EFBIG, "EFBIG", "file too large", -27},
};

/* fs_throw raises Node's error for a failed call: "<CODE>: <text>,
 * <syscall> '<path>'" (with " -> '<dest>'" for two-path calls); fs_throw_as
 * with the code and text given. */
static JSValue fs_throw_as(JSContext *ctx, const struct errno_info *info, const char *syscall, const char *path,
                           const char *dest)
{
    size_t n = strlen(info->code) + strlen(info->text) + strlen(syscall) + strlen(path) +
               (dest ? strlen(dest) : 0) + 32;
    char *msg = malloc(n);
    if (!msg)
        return JS_ThrowOutOfMemory(ctx);
    if (dest)
        snprintf(msg, n, "%s: %s, %s '%s' -> '%s'", info->code, info->text, syscall, path, dest);
    else
        snprintf(msg, n, "%s: %s, %s '%s'", info->code, info->text, syscall, path);
    JSValue e = JS_NewError(ctx);
    JS_SetPropertyStr(ctx, e, "message", JS_NewString(ctx, msg));
    free(msg);
    JS_SetPropertyStr(ctx, e, "errno", JS_NewInt32(ctx, info->node_errno));
    JS_SetPropertyStr(ctx, e, "code", JS_NewString(ctx, info->code));
    JS_SetPropertyStr(ctx, e, "syscall", JS_NewString(ctx, syscall));
    JS_SetPropertyStr(ctx, e, "path", JS_NewString(ctx, path));
    if (dest)
        JS_SetPropertyStr(ctx, e, "dest", JS_NewString(ctx, dest));
    return JS_Throw(ctx, e);
}

static JSValue fs_throw(JSContext *ctx, int err, const char *syscall, const char *path, const char *dest)
{
    const struct errno_info *info = NULL;
    for (size_t i = 0; i < sizeof errno_table / sizeof errno_table[0]; i++) {
        if (errno_table[i].err == err) {
            info = &errno_table[i];
            break;
        }
    }
    struct errno_info unknown = {err, "UNKNOWN", strerror(err), -4094};
    return fs_throw_as(ctx, info ? info : &unknown, syscall, path, dest);
}

/* ---- read/write -------------------------------------------------------- */

static JSValue fs_read_file(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    const char *path = JS_ToCString(ctx, argv[0]);
    if (!path)
        return JS_EXCEPTION;
    JSValue ret;
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        ret = fs_throw(ctx, errno, "open", path, NULL);
        goto done;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        ret = fs_throw(ctx, EISDIR, "read", path, NULL);
        goto done;
    }
    size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096, len = 0;
    uint8_t *buf = malloc(cap);
    if (!buf) {
        close(fd);
        ret = JS_ThrowRangeError(ctx, "out of memory reading '%s'", path);
        goto done;
    }
    for (;;) {
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                close(fd);
                ret = JS_ThrowRangeError(ctx, "out of memory reading '%s'", path);
                goto done;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0) {
            int e = errno;
            free(buf);
            close(fd);
            ret = fs_throw(ctx, e == EBADF ? EISDIR : e, "read", path, NULL);
            goto done;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    ret = amla_new_bytes(ctx, buf, len);
    free(buf);
done:
    JS_FreeCString(ctx, path);
    return ret;
}

/* reserve asks the host for n bytes of the disk quota; -1 with errno
 * ENOSPC when they do not fit (nothing is written then, so what a file
 * already holds stays intact). */
static int reserve(int64_t n)
{
    if (n > 0 && amla_disk_reserve(n) != 0) {
        errno = ENOSPC;
        return -1;
    }
    return 0;
}

/* reserve_new charges a new file's entry when path does not exist yet. */
static int reserve_new(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0)
        return 0;
    return reserve(AMLA_DISK_ENTRY_COST);
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    if (reserve((int64_t)n) < 0)
        return -1;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* writeFile(path, data, append): data is a string (written as UTF-8) or
 * a Uint8Array. */
static JSValue fs_write_file(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    int append = JS_ToBool(ctx, argv[2]);
    const char *path = JS_ToCString(ctx, argv[0]);
    if (!path)
        return JS_EXCEPTION;
    const uint8_t *data;
    size_t len;
    const char *str = NULL;
    if (JS_IsString(argv[1])) {
        str = JS_ToCStringLen(ctx, &len, argv[1]);
        if (!str) {
            JS_FreeCString(ctx, path);
            return JS_EXCEPTION;
        }
        amla_utf8_fix((char *)str, len); /* a copy: non-ASCII strings are converted */
        data = (const uint8_t *)str;
    } else {
        data = amla_bytes(ctx, argv[1], &len);
        if (!data) {
            JS_FreeCString(ctx, path);
            return JS_EXCEPTION;
        }
    }
    JSValue ret = JS_UNDEFINED;
    int fd = reserve_new(path) < 0 ? -1 : open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);
    if (fd < 0) {
        ret = fs_throw(ctx, errno, "open", path, NULL);
    } else {
        if (write_all(fd, data, len) < 0)
            ret = fs_throw(ctx, errno, "write", path, NULL);
        close(fd);
    }
    if (str)
        JS_FreeCString(ctx, str);
    JS_FreeCString(ctx, path);
    return ret;
}

static int copy_file(const char *from, const char *to, const char **failed_call)
{
    *failed_call = "copyfile";
    int in = open(from, O_RDONLY);
    if (in < 0)
        return -1;
    struct stat st;
    if (fstat(in, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(in);
        errno = EISDIR;
        return -1;
    }
    int out = reserve_new(to) < 0 ? -1 : open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0) {
        int e = errno;
        close(in);
        errno = e;
        return -1;
    }
    uint8_t buf[65536];
    int rc = 0;
    for (;;) {
        ssize_t r = read(in, buf, sizeof buf);
        if (r < 0) {
            rc = -1;
            break;
        }
        if (r == 0)
            break;
        if (write_all(out, buf, (size_t)r) < 0) {
            rc = -1;
            break;
        }
    }
    int e = errno;
    close(in);
    close(out);
    errno = e;
    return rc;
}

static JSValue fs_copy_file(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    const char *from = JS_ToCString(ctx, argv[0]);
    const char *to = from ? JS_ToCString(ctx, argv[1]) : NULL;
    JSValue ret = JS_UNDEFINED;
    const char *call;
    if (!from || !to)
        ret = JS_EXCEPTION;
    else if (copy_file(from, to, &call) < 0)
        ret = fs_throw(ctx, errno, call, from, to);
    JS_FreeCString(ctx, from);
    JS_FreeCString(ctx, to);
    return ret;
}

/* ---- directories ------------------------------------------------------- */

/* mkdir_p creates path and its missing parents. */
static int mkdir_p(char *path)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return 0;
        errno = EEXIST;
        return -1;
    }
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        int r = reserve_new(path) < 0 ? -1 : mkdir(path, 0755);
        int e = errno;
        *p = '/';
        if (r < 0 && e != EEXIST) {
            errno = e;
            return -1;
        }
    }
    if (reserve_new(path) < 0 || (mkdir(path, 0755) < 0 && errno != EEXIST))
        return -1;
    return 0;
}

static JSValue fs_mkdir(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    int recursive = JS_ToBool(ctx, argv[1]);
    const char *path = JS_ToCString(ctx, argv[0]);
    if (!path)
        return JS_EXCEPTION;
    JSValue ret = JS_UNDEFINED;
    if (recursive) {
        char *copy = strdup(path);
        if (!copy)
            ret = JS_ThrowOutOfMemory(ctx);
        else if (mkdir_p(copy) < 0)
            ret = fs_throw(ctx, errno, "mkdir", path, NULL);
        free(copy);
    } else if (reserve_new(path) < 0 || mkdir(path, 0755) < 0) {
        ret = fs_throw(ctx, errno, "mkdir", path, NULL);
    }
    JS_FreeCString(ctx, path);
    return ret;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* readdir(path, withTypes): the entry names, sorted, or [name, isFile,
 * isDirectory, isSymbolicLink] tuples the prelude turns into Dirents. */
static JSValue fs_readdir(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    int typed = JS_ToBool(ctx, argv[1]);
    const char *path = JS_ToCString(ctx, argv[0]);
    if (!path)
        return JS_EXCEPTION;
    JSValue ret;
    DIR *d = opendir(path);
    if (!d) {
        int e = errno;
        struct stat st;
        if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode))
            e = ENOTDIR;
        ret = fs_throw(ctx, e, "scandir", path, NULL);
        JS_FreeCString(ctx, path);
        return ret;
    }
    size_t n = 0, cap = 16;
    char **names = malloc(cap * sizeof(char *));
    struct dirent *ent;
    int oom = !names;
    while (!oom && (ent = readdir(d)) != NULL) {
        if (!strcmp(ent->d_name, ".") || !strcmp(ent->d_name, ".."))
            continue;
        if (n == cap) {
            char **nn = realloc(names, cap * 2 * sizeof(char *));
            if (!nn) {
                oom = 1;
                break;
            }
            names = nn;
            cap *= 2;
        }
        /* The name is copied with one byte in front holding d_type, so
         * sorting the names keeps each type with its name. */
        size_t l = strlen(ent->d_name);
        char *copy = malloc(l + 2);
        if (!copy) {
            oom = 1;
            break;
        }
        copy[0] = (char)ent->d_type;
        memcpy(copy + 1, ent->d_name, l + 1);
        names[n++] = copy + 1;
    }
    closedir(d);
    if (oom) {
        for (size_t i = 0; i < n; i++)
            free(names[i] - 1);
        free(names);
        JS_FreeCString(ctx, path);
        return JS_ThrowOutOfMemory(ctx);
    }
    qsort(names, n, sizeof(char *), cmp_names);
    ret = JS_NewArray(ctx);
    for (size_t i = 0; i < n; i++) {
        JSValue name = JS_NewString(ctx, names[i]);
        if (typed) {
            unsigned char t = (unsigned char)names[i][-1];
            JSValue tuple = JS_NewArray(ctx);
            JS_SetPropertyUint32(ctx, tuple, 0, name);
            JS_SetPropertyUint32(ctx, tuple, 1, JS_NewBool(ctx, t == DT_REG));
            JS_SetPropertyUint32(ctx, tuple, 2, JS_NewBool(ctx, t == DT_DIR));
            JS_SetPropertyUint32(ctx, tuple, 3, JS_NewBool(ctx, t == DT_LNK));
            JS_SetPropertyUint32(ctx, ret, (uint32_t)i, tuple);
        } else {
            JS_SetPropertyUint32(ctx, ret, (uint32_t)i, name);
        }
        free(names[i] - 1);
    }
    free(names);
    JS_FreeCString(ctx, path);
    return ret;
}

/* stat(path, noFollow): the fields of a Stats object; a symbolic link is
 * followed when its target exists, unless noFollow (lstat). */
static JSValue fs_stat(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    int no_follow = argc > 1 && JS_ToBool(ctx, argv[1]);
    const char *path = JS_ToCString(ctx, argv[0]);
    if (!path)
        return JS_EXCEPTION;
    struct stat st, target;
    if (lstat(path, &st) < 0) {
        JSValue e = fs_throw(ctx, errno, no_follow ? "lstat" : "stat", path, NULL);
        JS_FreeCString(ctx, path);
        return e;
    }
    int link = S_ISLNK(st.st_mode);
    if (link && !no_follow && stat(path, &target) == 0)
        st = target;
    JS_FreeCString(ctx, path);
    JSValue o = JS_NewObject(ctx);
    double mtime = (double)st.st_mtim.tv_sec * 1e3 + (double)st.st_mtim.tv_nsec / 1e6;
    uint32_t type = S_ISDIR(st.st_mode) ? 0040000 : S_ISLNK(st.st_mode) ? 0120000 : 0100000;
    JS_SetPropertyStr(ctx, o, "isFile", JS_NewBool(ctx, S_ISREG(st.st_mode)));
    JS_SetPropertyStr(ctx, o, "isDirectory", JS_NewBool(ctx, S_ISDIR(st.st_mode)));
    JS_SetPropertyStr(ctx, o, "isSymbolicLink", JS_NewBool(ctx, link));
    JS_SetPropertyStr(ctx, o, "size", JS_NewInt64(ctx, (int64_t)st.st_size));
    /* WASI reports no permission bits; files are rw-r--r--, dirs rwxr-xr-x. */
    JS_SetPropertyStr(ctx, o, "mode", JS_NewInt64(ctx, type | (S_ISDIR(st.st_mode) ? 0755 : 0644)));
    JS_SetPropertyStr(ctx, o, "mtimeMs", JS_NewFloat64(ctx, mtime));
    return o;
}

static JSValue fs_exists(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    const char *path = JS_ToCString(ctx, argv[0]);
    if (!path)
        return JS_EXCEPTION;
    struct stat st;
    int ok = stat(path, &st) == 0;
    JS_FreeCString(ctx, path);
    return JS_NewBool(ctx, ok);
}

static JSValue fs_unlink(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    const char *path = JS_ToCString(ctx, argv[0]);
    if (!path)
        return JS_EXCEPTION;
    JSValue ret = JS_UNDEFINED;
    struct stat st;
    if (lstat(path, &st) < 0)
        ret = fs_throw(ctx, errno, "unlink", path, NULL);
    else if (S_ISDIR(st.st_mode))
        ret = fs_throw(ctx, EISDIR, "unlink", path, NULL);
    else if (unlink(path) < 0)
        ret = fs_throw(ctx, errno, "unlink", path, NULL);
    JS_FreeCString(ctx, path);
    return ret;
}

/* remove_tree removes path and, when it is a directory, everything in
 * it. Symbolic links are removed, never followed. */
static int remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return -1;
    if (!S_ISDIR(st.st_mode))
        return unlink(path);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    struct dirent *ent;
    int rc = 0;
    size_t plen = strlen(path);
    while ((ent = readdir(d)) != NULL) {
        if (!strcmp(ent->d_name, ".") || !strcmp(ent->d_name, ".."))
            continue;
        size_t l = plen + strlen(ent->d_name) + 2;
        char *child = malloc(l);
        if (!child) {
            errno = ENOMEM;
            rc = -1;
            break;
        }
        snprintf(child, l, "%s/%s", path, ent->d_name);
        rc = remove_tree(child);
        free(child);
        if (rc < 0)
            break;
    }
    int e = errno;
    closedir(d);
    if (rc < 0) {
        errno = e;
        return -1;
    }
    return rmdir(path);
}

/* rm(path, recursive, force). */
static JSValue fs_rm(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    int recursive = JS_ToBool(ctx, argv[1]), force = JS_ToBool(ctx, argv[2]);
    const char *path = JS_ToCString(ctx, argv[0]);
    if (!path)
        return JS_EXCEPTION;
    JSValue ret = JS_UNDEFINED;
    struct stat st;
    if (lstat(path, &st) < 0) {
        if (!(force && errno == ENOENT))
            ret = fs_throw(ctx, errno, "lstat", path, NULL);
    } else if (S_ISDIR(st.st_mode)) {
        if (!recursive)
            ret = fs_throw(ctx, EISDIR, "rm", path, NULL);
        else if (remove_tree(path) < 0)
            ret = fs_throw(ctx, errno, "rm", path, NULL);
    } else if (unlink(path) < 0) {
        ret = fs_throw(ctx, errno, "rm", path, NULL);
    }
    JS_FreeCString(ctx, path);
    return ret;
}

/* rmdir(path, recursive). */
static JSValue fs_rmdir(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    int recursive = JS_ToBool(ctx, argv[1]);
    const char *path = JS_ToCString(ctx, argv[0]);
    if (!path)
        return JS_EXCEPTION;
    JSValue ret = JS_UNDEFINED;
    struct stat st;
    if (lstat(path, &st) < 0)
        ret = fs_throw(ctx, errno, "rmdir", path, NULL);
    else if (!S_ISDIR(st.st_mode))
        ret = fs_throw(ctx, ENOTDIR, "rmdir", path, NULL);
    else if ((recursive ? remove_tree(path) : rmdir(path)) < 0)
        ret = fs_throw(ctx, errno, "rmdir", path, NULL);
    JS_FreeCString(ctx, path);
    return ret;
}

static JSValue fs_rename(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    const char *from = JS_ToCString(ctx, argv[0]);
    const char *to = from ? JS_ToCString(ctx, argv[1]) : NULL;
    JSValue ret = JS_UNDEFINED;
    if (!from || !to)
        ret = JS_EXCEPTION;
    else if (rename(from, to) < 0)
        ret = fs_throw(ctx, errno, "rename", from, to);
    JS_FreeCString(ctx, from);
    JS_FreeCString(ctx, to);
    return ret;
}

/* symlink(target, path) and link(existing, path) ask WASI to make a
 * link, which the host always refuses with EPERM (a sandbox's files are
 * directories and regular files); they are here so a script gets the
 * error Node gives where links are not permitted ("EPERM: operation not
 * permitted, symlink 'a' -> 'b'"), not "not a function". */
static JSValue fs_link2(JSContext *ctx, JSValueConst *argv, int symbolic)
{
    static const struct errno_info eperm = {EPERM, "EPERM", "operation not permitted", -1};
    const char *from = JS_ToCString(ctx, argv[0]);
    const char *to = from ? JS_ToCString(ctx, argv[1]) : NULL;
    const char *syscall = symbolic ? "symlink" : "link";
    JSValue ret = JS_UNDEFINED;
    if (!from || !to)
        ret = JS_EXCEPTION;
    else if ((symbolic ? symlink(from, to) : link(from, to)) < 0)
        ret = errno == EPERM ? fs_throw_as(ctx, &eperm, syscall, from, to) : fs_throw(ctx, errno, syscall, from, to);
    JS_FreeCString(ctx, from);
    JS_FreeCString(ctx, to);
    return ret;
}

static JSValue fs_symlink(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    return fs_link2(ctx, argv, 1);
}

static JSValue fs_link(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    return fs_link2(ctx, argv, 0);
}

/* realpath(path) checks that path exists; the prelude already made it
 * absolute and normal. */
static JSValue fs_realpath(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    const char *path = JS_ToCString(ctx, argv[0]);
    if (!path)
        return JS_EXCEPTION;
    struct stat st;
    JSValue ret = stat(path, &st) < 0 ? fs_throw(ctx, errno, "realpath", path, NULL)
                                      : JS_NewString(ctx, path);
    JS_FreeCString(ctx, path);
    return ret;
}

int amla_add_fs_natives(JSContext *ctx, JSValueConst native)
{
    JSValue fs = JS_NewObject(ctx);
    if (JS_IsException(fs))
        return -1;
    if (amla_set_func(ctx, fs, "readFile", fs_read_file, 1) ||
        amla_set_func(ctx, fs, "writeFile", fs_write_file, 3) ||
        amla_set_func(ctx, fs, "copyFile", fs_copy_file, 2) ||
        amla_set_func(ctx, fs, "mkdir", fs_mkdir, 2) ||
        amla_set_func(ctx, fs, "readdir", fs_readdir, 2) ||
        amla_set_func(ctx, fs, "stat", fs_stat, 2) ||
        amla_set_func(ctx, fs, "exists", fs_exists, 1) ||
        amla_set_func(ctx, fs, "unlink", fs_unlink, 1) ||
        amla_set_func(ctx, fs, "rm", fs_rm, 3) ||
        amla_set_func(ctx, fs, "rmdir", fs_rmdir, 2) ||
        amla_set_func(ctx, fs, "rename", fs_rename, 2) ||
        amla_set_func(ctx, fs, "symlink", fs_symlink, 2) ||
        amla_set_func(ctx, fs, "link", fs_link, 2) ||
        amla_set_func(ctx, fs, "realpath", fs_realpath, 1)) {
        JS_FreeValue(ctx, fs);
        return -1;
    }
    return JS_SetPropertyStr(ctx, native, "fs", fs) < 0 ? -1 : 0;
}
