/*
 * driver.c: the Python guest's entry points.
 *
 * amla_init() starts CPython in two phases. The core phase needs nothing
 * from files; then the archive's bootstrap code (archive.py, marshalled at
 * build time) puts the importer of the embedded archive on sys.meta_path,
 * and the main phase imports the codecs, io and the rest from there. Last
 * it imports the prelude (_amla_guest), which installs the output streams,
 * the event loop and the refusals, imports the modules most scripts use,
 * and freezes what exists so far out of the collector's sight. Set-up reads
 * no run input and calls no host function, so a host may snapshot it.
 *
 * amla_run() calls _amla_guest.run(), which reads the run's wire.Input,
 * runs the script and returns its exit status; the status is recorded with
 * exit_status and returned. CPython is never finalised: an instance runs
 * one script and is then reset to the snapshot or dropped.
 *
 * The configuration is fixed here, not read from the environment: no
 * site, no user site, no bytecode writing, no signal handlers, hash
 * randomisation off (a snapshot would freeze one secret for every run
 * anyway; docs/python.md says so), UTF-8 everywhere.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <wasi/api.h>

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <marshal.h>

#include "host.h"

#define EXPORT(name) __attribute__((export_name(name)))

int amla_running;

static int initialised;
static PyObject *run_fn; /* _amla_guest.run */

/* Archive header (mkarchive.py): magic, then little-endian u32 fields. */
#define ARCHIVE_MAGIC "AMLAPYAR"
#define ARCHIVE_BOOT_OFF 12
#define ARCHIVE_BOOT_LEN 16

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* say writes a line on stderr: through the host while a run is on,
 * otherwise to WASI's stderr (the host's guest log). */
static void say(const char *a, const char *b)
{
    char line[512];
    int n = snprintf(line, sizeof line, "amla python: %s%s\n", a, b ? b : "");
    if (n < 0)
        return;
    if (n >= (int)sizeof line)
        n = (int)sizeof line - 1;
    if (amla_running)
        amla_output(2, line, n);
    else
        (void)!write(2, line, (size_t)n);
}

static int32_t init_failed(const char *what, PyStatus *st)
{
    say("cannot start the Python runtime: ", what);
    if (st && st->err_msg)
        say("  ", st->err_msg);
    if (PyErr_Occurred())
        PyErr_Print();
    return 1;
}

static PyStatus configure(PyConfig *c)
{
    PyConfig_InitIsolatedConfig(c);
    c->_init_main = 0;
    c->use_hash_seed = 1;
    c->hash_seed = 0;
    c->site_import = 0;
    c->user_site_directory = 0;
    c->write_bytecode = 0;
    c->install_signal_handlers = 0;
    c->configure_c_stdio = 0;
    c->buffered_stdio = 0;
    c->pathconfig_warnings = 0;
    c->use_frozen_modules = 1;
    c->safe_path = 1;
    c->parse_argv = 0;
    c->module_search_paths_set = 1; /* empty: the archive's importer serves the stdlib */
    PyStatus st;
    struct { wchar_t **field; const wchar_t *value; } strings[] = {
        {&c->program_name, L"python3"},
        {&c->executable, L"/usr/bin/python3"},
        {&c->base_executable, L"/usr/bin/python3"},
        {&c->prefix, L"/usr"},
        {&c->base_prefix, L"/usr"},
        {&c->exec_prefix, L"/usr"},
        {&c->base_exec_prefix, L"/usr"},
        {&c->stdlib_dir, L"/usr/lib/python3.13"},
        {&c->filesystem_encoding, L"utf-8"},
        {&c->filesystem_errors, L"surrogateescape"},
        {&c->stdio_encoding, L"utf-8"},
        {&c->stdio_errors, L"backslashreplace"},
    };
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++) {
        st = PyConfig_SetString(c, strings[i].field, strings[i].value);
        if (PyStatus_Exception(st))
            return st;
    }
    static wchar_t *argv[] = {L"python3"};
    return PyConfig_SetArgv(c, 1, argv);
}

/* run_bootstrap executes the archive's bootstrap code, which installs its
 * importer on sys.meta_path. */
static int run_bootstrap(void)
{
    if (memcmp(amla_stdlib, ARCHIVE_MAGIC, 8) != 0) {
        say("the embedded module archive is damaged", NULL);
        return -1;
    }
    uint32_t off = le32(amla_stdlib + ARCHIVE_BOOT_OFF), len = le32(amla_stdlib + ARCHIVE_BOOT_LEN);
    if ((size_t)off + len > amla_stdlib_size()) {
        say("the embedded module archive is damaged", NULL);
        return -1;
    }
    PyObject *code = PyMarshal_ReadObjectFromString((const char *)amla_stdlib + off, (Py_ssize_t)len);
    if (!code)
        return -1;
    PyObject *globals = PyDict_New();
    PyObject *name = PyUnicode_FromString("_amla_bootstrap");
    if (!globals || !name || PyDict_SetItemString(globals, "__name__", name) < 0 ||
        PyDict_SetItemString(globals, "__builtins__", PyEval_GetBuiltins()) < 0) {
        Py_XDECREF(name);
        Py_XDECREF(globals);
        Py_DECREF(code);
        return -1;
    }
    Py_DECREF(name);
    PyObject *r = PyEval_EvalCode(code, globals, globals);
    Py_DECREF(code);
    Py_DECREF(globals);
    if (!r)
        return -1;
    Py_DECREF(r);
    return 0;
}

/* The data guest's extension modules (numpy, pandas): data/build_data.py
 * generates this function, which registers each under its dotted name. The
 * Python guest does not define it. */
int amla_data_inittab(void) __attribute__((weak));

/* amla_init starts CPython and imports the prelude. It reads no input and
 * may be called once; later calls do nothing. 0 on success. */
EXPORT("amla_init") int32_t amla_init(void)
{
    if (initialised)
        return 0;
    if (PyImport_AppendInittab("_amla", amla_hostmod_init) < 0)
        return init_failed("registering _amla", NULL);
    if (amla_data_inittab && amla_data_inittab() < 0)
        return init_failed("registering the data modules", NULL);
    amla_oom_install();
    amla_install_arenas();
    PyConfig config;
    PyStatus st = configure(&config);
    if (PyStatus_Exception(st)) {
        PyConfig_Clear(&config);
        return init_failed("configuring", &st);
    }
    st = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    if (PyStatus_Exception(st))
        return init_failed("core initialisation", &st);
    if (run_bootstrap() < 0)
        return init_failed("installing the archive importer", NULL);
    st = _Py_InitializeMain();
    if (PyStatus_Exception(st))
        return init_failed("main initialisation", &st);
    PyObject *prelude = PyImport_ImportModule("_amla_guest");
    if (!prelude)
        return init_failed("importing the prelude", NULL);
    run_fn = PyObject_GetAttrString(prelude, "run");
    Py_DECREF(prelude);
    if (!run_fn)
        return init_failed("the prelude has no run()", NULL);
    if (chdir("/workspace") != 0)
        return init_failed("cannot enter /workspace", NULL);
    amla_oom_take_reserve();
    initialised = 1;
    return 0;
}

/* wasi-libc's table of preopened directories: read at start-up, which a
 * snapshot records, so directories the host mounts past the three every
 * instance has (Sandbox(python_packages=...)) are only seen once the table
 * is read again. */
void __wasilibc_reset_preopens(void);
void __wasilibc_populate_preopens(void);

/* The descriptor after /, /workspace and /tmp (fds 3, 4, 5). */
#define FIRST_MOUNT_FD 6

static void find_mounts(void)
{
    __wasi_prestat_t st;
    if (__wasi_fd_prestat_get(FIRST_MOUNT_FD, &st) != 0)
        return;
    __wasilibc_reset_preopens();
    __wasilibc_populate_preopens();
}

/* amla_run runs the one script of this instance and returns its exit
 * status (also recorded with exit_status). */
EXPORT("amla_run") int32_t amla_run(void)
{
    amla_running = 1;
    if (!initialised && amla_init() != 0) {
        amla_exit_status(1);
        return 1;
    }
    find_mounts();
    amla_oom_begin_run();
    int32_t code = 1;
    PyObject *r = PyObject_CallNoArgs(run_fn);
    if (!r) {
        if (PyErr_ExceptionMatches(PyExc_MemoryError)) {
            /* Printing needs memory there is none of. */
            PyErr_Clear();
            say("MemoryError (out of memory after the script ended)", NULL);
            if (amla_oom_refused() > 0) {
                /* As the prelude does for the memory limit (oom.c). */
                amla_oom_claim_rest();
                code = 137;
            }
        } else {
            say("internal error: the prelude's run() failed:", NULL);
            PyErr_Print();
        }
    } else {
        int c = PyLong_AsInt(r);
        Py_DECREF(r);
        if (c == -1 && PyErr_Occurred())
            PyErr_Clear();
        else
            code = c;
    }
    amla_exit_status(code);
    return code;
}
