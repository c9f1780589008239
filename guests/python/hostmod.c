/*
 * hostmod.c: the builtin module `_amla`, through which the prelude (the
 * Python package _amla_guest) reaches the host functions of amla_host.h.
 *
 * Each function is a thin, checked call of one import; the protocol (JSON
 * shapes, framing, which request an answer belongs to) is the prelude's.
 * Scripts may import this module too: everything it can do goes through
 * the host, where capabilities, budgets and limits are checked, so calling
 * it directly gains nothing a tool function does not already give.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "host.h"

/* bytes_arg returns the bytes of a bytes-like argument; -1 with TypeError
 * set otherwise. view must be released with PyBuffer_Release. */
static int bytes_arg(PyObject *o, Py_buffer *view, const char *fn)
{
    if (PyObject_GetBuffer(o, view, PyBUF_SIMPLE) < 0) {
        PyErr_Format(PyExc_TypeError, "_amla.%s() takes bytes, not %.100s", fn, Py_TYPE(o)->tp_name);
        return -1;
    }
    if (view->len > INT32_MAX) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_OverflowError, "_amla.%s(): more than 2 GiB in one call", fn);
        return -1;
    }
    return 0;
}

/* take_bytes makes a bytes object of n bytes and fills it with take(). */
static PyObject *take_bytes(int32_t n, void (*take)(void *))
{
    PyObject *b = PyBytes_FromStringAndSize(NULL, n);
    if (!b)
        return NULL;
    take(PyBytes_AS_STRING(b));
    return b;
}

/* write(fd, data): one output call (stdout 1, stderr 2). */
static PyObject *hm_write(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "_amla.write() takes (fd, data)");
        return NULL;
    }
    int fd = PyLong_AsInt(args[0]);
    if (fd == -1 && PyErr_Occurred())
        return NULL;
    Py_buffer v;
    if (bytes_arg(args[1], &v, "write") < 0)
        return NULL;
    if (v.len > 0)
        amla_output(fd == 2 ? 2 : 1, v.buf, (int32_t)v.len);
    PyBuffer_Release(&v);
    Py_RETURN_NONE;
}

/* return_value(json): records the script's value as JSON text. */
static PyObject *hm_return_value(PyObject *self, PyObject *arg)
{
    Py_buffer v;
    if (bytes_arg(arg, &v, "return_value") < 0)
        return NULL;
    amla_return_value(v.buf, (int32_t)v.len);
    PyBuffer_Release(&v);
    Py_RETURN_NONE;
}

/* input() -> bytes: the run's wire.Input JSON. */
static PyObject *hm_input(PyObject *self, PyObject *unused)
{
    return take_bytes(amla_input_len(), amla_input_read);
}

/* submit(request) -> id: queues a wire.ToolRequest JSON. */
static PyObject *hm_submit(PyObject *self, PyObject *arg)
{
    Py_buffer v;
    if (bytes_arg(arg, &v, "submit") < 0)
        return NULL;
    int64_t id = amla_tool_submit(v.buf, (int32_t)v.len);
    PyBuffer_Release(&v);
    return PyLong_FromLongLong(id);
}

/* wait(timeout_ms) -> bytes | None: the next answer (header, "\n",
 * result), or None when timeout_ms (>= 0) passed first. RuntimeError when
 * no request is pending and timeout_ms < 0: that wait could never end. */
static PyObject *hm_wait(PyObject *self, PyObject *arg)
{
    long long ms = PyLong_AsLongLong(arg);
    if (ms == -1 && PyErr_Occurred())
        return NULL;
    int32_t n = amla_tool_wait(ms);
    if (n == 0)
        Py_RETURN_NONE;
    if (n < 0) {
        PyErr_SetString(PyExc_RuntimeError, "_amla.wait(): no tool call is pending");
        return NULL;
    }
    return take_bytes(n, amla_tool_take);
}

/* sleep(ms): sleeps in the host (the run's deadline applies). */
static PyObject *hm_sleep(PyObject *self, PyObject *arg)
{
    long long ms = PyLong_AsLongLong(arg);
    if (ms == -1 && PyErr_Occurred())
        return NULL;
    amla_sleep(ms < 0 ? 0 : ms);
    Py_RETURN_NONE;
}

/* spawn(request) -> bytes: runs a wire.SpawnRequest JSON, returns the
 * wire.SpawnResult JSON. */
static PyObject *hm_spawn(PyObject *self, PyObject *arg)
{
    Py_buffer v;
    if (bytes_arg(arg, &v, "spawn") < 0)
        return NULL;
    int32_t n = amla_spawn(v.buf, (int32_t)v.len);
    PyBuffer_Release(&v);
    if (n < 0) {
        PyErr_SetString(PyExc_RuntimeError, "the host could not start the child process");
        return NULL;
    }
    return take_bytes(n, amla_spawn_take);
}

/* disk_reserve(n) -> bool: whether n more bytes fit the disk quota. */
static PyObject *hm_disk_reserve(PyObject *self, PyObject *arg)
{
    long long n = PyLong_AsLongLong(arg);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    return PyBool_FromLong(n <= 0 || amla_disk_reserve(n) == 0);
}

/* release_reserve(): lets allocations draw on the memory reserve (oom.c);
 * the prelude calls it when a script has ended in an exception. */
static PyObject *hm_release_reserve(PyObject *self, PyObject *unused)
{
    amla_oom_open_reserve();
    Py_RETURN_NONE;
}

/* refused() -> int: bytes of the last request the memory refused (0: none). */
static PyObject *hm_refused(PyObject *self, PyObject *unused)
{
    return PyLong_FromSize_t(amla_oom_refused());
}

/* claim_rest(): grows memory until the limit refuses (oom.c). */
static PyObject *hm_claim_rest(PyObject *self, PyObject *unused)
{
    amla_oom_claim_rest();
    Py_RETURN_NONE;
}

/* exit_status(code): records the script's exit status. */
static PyObject *hm_exit_status(PyObject *self, PyObject *arg)
{
    int code = PyLong_AsInt(arg);
    if (code == -1 && PyErr_Occurred())
        return NULL;
    amla_exit_status(code);
    Py_RETURN_NONE;
}

/* memory_size() -> int: bytes of linear memory the instance holds (what
 * the host compares with the memory limit). */
static PyObject *hm_memory_size(PyObject *self, PyObject *unused)
{
    return PyLong_FromSize_t(__builtin_wasm_memory_size(0) * (size_t)65536);
}

/* Makes op immortal: its reference count is never written again, and the
 * collector stops tracking it (CPython's internal API; the guest links
 * CPython statically). */
extern void _Py_SetImmortal(PyObject *op);

/* immortalize(objects): see _amla_guest.immortal. Only for set-up: an
 * immortal object is never freed. */
static PyObject *hm_immortalize(PyObject *self, PyObject *arg)
{
    if (amla_running) {
        PyErr_SetString(PyExc_RuntimeError, "_amla.immortalize() is for the guest's set-up");
        return NULL;
    }
    PyObject *it = PyObject_GetIter(arg);
    if (!it)
        return NULL;
    PyObject *o;
    while ((o = PyIter_Next(it)) != NULL) {
        /* Our own reference, taken by PyIter_Next, is never given back:
         * the count no longer matters. */
        _Py_SetImmortal(o);
    }
    Py_DECREF(it);
    if (PyErr_Occurred())
        return NULL;
    Py_RETURN_NONE;
}

/* archive() -> memoryview: the embedded archive, read-only, not copied. */
static PyObject *hm_archive(PyObject *self, PyObject *unused)
{
    return PyMemoryView_FromMemory((char *)amla_stdlib, (Py_ssize_t)amla_stdlib_size(), PyBUF_READ);
}

static PyMethodDef hm_methods[] = {
    {"write", (PyCFunction)(void (*)(void))hm_write, METH_FASTCALL, "write(fd, data): output to stdout (1) or stderr (2)"},
    {"input", hm_input, METH_NOARGS, "input() -> bytes: the run's input JSON"},
    {"submit", hm_submit, METH_O, "submit(request) -> id: queue a tool request"},
    {"wait", hm_wait, METH_O, "wait(timeout_ms) -> bytes | None: the next tool answer"},
    {"sleep", hm_sleep, METH_O, "sleep(ms): sleep in the host"},
    {"spawn", hm_spawn, METH_O, "spawn(request) -> bytes: run a child process"},
    {"disk_reserve", hm_disk_reserve, METH_O, "disk_reserve(n) -> bool: room for n bytes of files"},
    {"exit_status", hm_exit_status, METH_O, "exit_status(code): record the exit status"},
    {"return_value", hm_return_value, METH_O, "return_value(json): record the script's value"},
    {"release_reserve", hm_release_reserve, METH_NOARGS, "release_reserve(): open the memory reserve"},
    {"refused", hm_refused, METH_NOARGS, "refused() -> int: bytes of the last refused request"},
    {"claim_rest", hm_claim_rest, METH_NOARGS, "claim_rest(): grow memory up to the limit"},
    {"memory_size", hm_memory_size, METH_NOARGS, "memory_size() -> int: bytes of linear memory"},
    {"immortalize", hm_immortalize, METH_O, "immortalize(objects): set-up only"},
    {"archive", hm_archive, METH_NOARGS, "archive() -> memoryview: the embedded module archive"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef hm_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_amla",
    .m_doc = "The sandbox host's functions (internal to the Python guest).",
    .m_size = 0,
    .m_methods = hm_methods,
};

PyObject *amla_hostmod_init(void)
{
    return PyModule_Create(&hm_def);
}
