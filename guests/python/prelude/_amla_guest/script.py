"""Running the script: compile, execute, show the final expression, report
an uncaught exception.

The script is compiled as a module that may use top-level await. When its
last statement is a bare expression, its value is printed after everything
else, the way the JavaScript guest prints a returned value: a str as it
is, None not at all, anything else as compact JSON, or repr() when it is
not JSON. An uncaught exception prints Python's traceback (without the
sandbox's own frames) on stderr and fails the run with exit status 1; one
caused by running out of memory exits 137, which the host reads, with the
memory the guest holds, as the memory limit.
"""

from __future__ import annotations

import ast
import gc
import json
import linecache
import opcode
import re
import sys
import traceback

import _amla

from . import calls, loop

# json's functions as they were when the guest started: a script that replaces
# json.dumps or json.loads (in a kept session it stays replaced) does not change
# how the guest encodes tool calls, requests and results.
_json_dumps, _json_loads = json.dumps, json.loads

CO_COROUTINE = 0x80
LAST = "__amla_last_value__"
EXIT_OUT_OF_MEMORY = 137

# Frames of these files are the sandbox's plumbing, not the script's.
_PLUMBING = ("/usr/lib/python3.13/_amla_guest/", "/usr/lib/python3.13/asyncio/")


_FLAGS = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
_POP_TOP = opcode.opmap["POP_TOP"]
_RETURN_CONST = opcode.opmap["RETURN_CONST"]
_RETURN_VALUE = opcode.opmap["RETURN_VALUE"]
_RETURN_CONST_BYTE = bytes((_RETURN_CONST,))
_RETURN_VALUE_BYTE = bytes((_RETURN_VALUE,))
# The first words of statements that are no expression, and of those
# that may be either.
_STATEMENT = re.compile(r"(?:for|while|with|if|try|import|from|async|del|assert|raise|class|def|global|nonlocal|pass|break|continue|return)\b|@")
_SOFT_KEYWORD = re.compile(r"(?:match|type|case)\b")
# Lines that start no statement: blank, indented, or a comment.
_NOT_CODE = re.compile(r"[ \t\f\r#]|$")
_CLOSERS = ")]}"

# How the script's code hands over its final expression's value.
STORED, RETURNED = 1, 2


def _compile(source: str, filename: str):
    """The script's code and how its final expression's value comes out:
    0 (the last statement is no bare expression), RETURNED (the code
    returns it) or STORED (the code assigns it to LAST).

    The script is compiled as it is. Where the text shows what its last
    statement is (_last_statement), that is all: a script ending in a bare
    expression compiles to its value, POP_TOP and the module's one exit,
    `return None`, and turning that POP_TOP into RETURN_VALUE returns the
    value (_returning). Otherwise the syntax tree is built (as Python
    objects), its last expression made an assignment and the tree
    compiled, which costs about as much again as compiling the text."""
    try:
        code = compile(source, filename, "exec", _FLAGS, dont_inherit=True)
    except UnicodeEncodeError:
        # Compiling text fails on a lone surrogate in a string constant,
        # compiling its tree does not.
        code = None
    if code is not None:
        kind = _last_statement(source)
        if kind == _STATEMENT_END:
            return code, 0
        if kind == _EXPRESSION_END:
            returning = _returning(code)
            if returning is not None:
                return returning, RETURNED
    tree = compile(source, filename, "exec", ast.PyCF_ONLY_AST | _FLAGS, dont_inherit=True)
    if not (tree.body and isinstance(tree.body[-1], ast.Expr)):
        return code or compile(tree, filename, "exec", _FLAGS, dont_inherit=True), 0
    expr = tree.body[-1]
    assign = ast.Assign(targets=[ast.Name(LAST, ast.Store())], value=expr.value)
    ast.copy_location(assign, expr)
    assign.targets[0].lineno, assign.targets[0].col_offset = expr.lineno, expr.col_offset
    assign.targets[0].end_lineno, assign.targets[0].end_col_offset = expr.end_lineno, expr.end_col_offset
    tree.body[-1] = assign
    return compile(tree, filename, "exec", _FLAGS, dont_inherit=True), STORED


def _returning(code):
    """code with its final POP_TOP made RETURN_VALUE, when it has one exit
    (`return None`) right after a POP_TOP; else None. (The compiler copies
    a short exit into branches that reach it, as for `a if c else b`:
    such code is left to the syntax tree.)"""
    raw = code.co_code
    ops = raw[::2]
    if ops.count(_RETURN_CONST_BYTE) != 1 or _RETURN_VALUE_BYTE in ops:
        return None
    at = ops.index(_RETURN_CONST_BYTE)
    if at == 0 or ops[at - 1] != _POP_TOP or code.co_consts[raw[2 * at + 1]] is not None:
        return None
    return code.replace(co_code=raw[:2 * at - 2] + bytes((_RETURN_VALUE, 0)) + raw[2 * at:])


# What _last_statement finds at the end of a script.
_UNKNOWN, _EXPRESSION_END, _STATEMENT_END = 0, 1, 2


def _last_statement(source: str) -> int:
    """What the script's last statement is, told from its text:
    _EXPRESSION_END for a bare expression that is not a constant (which
    compiles to a POP_TOP), _STATEMENT_END for a statement that is no bare
    expression, _UNKNOWN when the text does not show it.

    The last statement starts at the last line that begins in column 0
    with code, unless that line continues another (the line before ends in
    a backslash, or it closes a bracket). Such a line can also lie inside
    a string or brackets opened above it; then the text from it on closes
    what it did not open, and compiles neither as an expression nor as
    statements. A text that compiles is therefore the whole last
    statement, except where a semicolon may join two statements."""
    lines = source.split("\n")
    at = len(lines) - 1
    while at >= 0 and _NOT_CODE.match(lines[at]):
        at -= 1
    if at < 0 or (at > 0 and lines[at - 1].rstrip("\r").endswith("\\")) or lines[at][:1] in _CLOSERS:
        return _UNKNOWN
    text = "\n".join(lines[at:]) if at < len(lines) - 1 else lines[at]
    if ";" in text:
        return _UNKNOWN
    keyword = _STATEMENT.match(text)
    if at == 0:
        # The whole script (which compiled) is this one statement.
        if keyword:
            return _STATEMENT_END
        if not _SOFT_KEYWORD.match(text):
            # An expression, or an assignment, which compiles to no
            # POP_TOP (_returning finds none).
            return _EXPRESSION_END
    if not keyword:
        try:
            tree = compile(text, "<last>", "eval", _FLAGS | ast.PyCF_ONLY_AST, dont_inherit=True)
        except (SyntaxError, ValueError):
            pass
        else:
            # A constant compiles to nothing in a module.
            return _UNKNOWN if isinstance(tree.body, ast.Constant) else _EXPRESSION_END
    if text[:1] == "*":
        return _UNKNOWN  # `*a, b` is an expression statement, no expression
    try:
        compile(text, "<last>", "exec", _FLAGS | ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError):
        return _UNKNOWN
    return _STATEMENT_END


def show(value) -> str | None:
    """How the final expression's value prints."""
    value = calls.resolve(value)
    if value is None:
        return None
    if isinstance(value, str):
        return value
    try:
        return _json_dumps(value, ensure_ascii=False, separators=(",", ":"), default=_json_default)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


# Whether record() hands values to the host: not while the set-up warms
# up (__init__._warm_up), which runs before the snapshot, with no host.
recording = True


def record(value) -> None:
    """Hands the host the final expression's value as JSON (the run's
    return value). None, and a value JSON cannot express (a set, NaN, a
    cycle, an object), give none."""
    if value is None or not recording:
        return
    try:
        text = _json_dumps(value, separators=(",", ":"), default=_json_default, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return
    _amla.return_value(text.encode("ascii"))


def _json_default(o):
    if type(o) is calls.ToolCall:
        return o.result()
    raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")


def _user_traceback(tb):
    """tb without the sandbox's own frames (the runner, asyncio's, the tool
    functions'): the traceback shows only the script's code and the
    libraries it called."""
    kept = []
    while tb is not None:
        if not tb.tb_frame.f_code.co_filename.startswith(_PLUMBING):
            kept.append(tb)
        tb = tb.tb_next
    for a, b in zip(kept, kept[1:]):
        a.tb_next = b
    if kept:
        kept[-1].tb_next = None
        return kept[0]
    return None


def _strip(exc: BaseException | None) -> None:
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        exc.__traceback__ = _user_traceback(exc.__traceback__)
        if isinstance(exc, BaseExceptionGroup):
            for sub in exc.exceptions:
                _strip(sub)
        exc = exc.__cause__ or exc.__context__


def report(exc: BaseException) -> None:
    """Prints exc and its chain as Python does, without the sandbox's frames."""
    _strip(exc)
    try:
        text = "".join(traceback.format_exception(exc))
    except RecursionError:
        text = f"{type(exc).__name__}: {exc}\n"
    sys.stderr.write(text)


# The run's memory limit in bytes (set by run(); 0 = unknown).
memory_limit = 0

# Whether the script's top-level await runs on the kept session's event
# loop (set by run(); docs/sessions.md).
keep_loop = False


def _out_of_memory(exc: BaseException | None) -> bool:
    """Whether exc comes from the memory limit: a MemoryError in its chain
    while the guest holds nearly all the memory it may (the host's rule,
    gocore/host/proc.go), or after linear memory refused to grow, which
    only the limit makes it do (a dict, list or string growing by
    megabytes at once fails well below the limit: the allocators round big
    requests up). A MemoryError for other reasons (the parser's stack, a
    size no allocator is even asked for) is an ordinary error."""
    seen = 0
    while exc is not None and seen < 100:
        if isinstance(exc, MemoryError):
            if memory_limit <= 0:
                return False
            return _amla.refused() > 0 or _amla.memory_size() >= memory_limit - memory_limit // 8
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


def _exit_status(e: SystemExit) -> int:
    code = e.code
    if code is None:
        return 0
    if isinstance(code, bool):
        return int(code)
    if isinstance(code, int):
        return code & 0xFF
    sys.stderr.write(f"{code}\n")
    return 1


def execute(source: str, filename: str, namespace: dict) -> int:
    """Runs source in namespace; returns the exit status."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    try:
        code, last = _compile(source, filename)
    except (SyntaxError, ValueError, OverflowError, MemoryError, RecursionError) as e:
        _amla.release_reserve()
        sys.stderr.write("".join(traceback.format_exception_only(e)))
        if _out_of_memory(e):
            _amla.claim_rest()
            return EXIT_OUT_OF_MEMORY
        return 1
    try:
        result = eval(code, namespace)
        if code.co_flags & CO_COROUTINE:
            result = loop.run_main(result, keep=keep_loop)
        if last:
            value = calls.resolve(result if last == RETURNED else namespace.pop(LAST, None))
            record(value)
            text = show(value)
            if text is not None:
                sys.stdout.write(text + "\n")
    except SystemExit as e:
        return _exit_status(e)
    except BaseException as e:  # noqa: BLE001  (everything the script raises is reported)
        # First, before anything here needs memory (the call below needs
        # a frame): the script may have used up all there is.
        _amla.release_reserve()
        return _failed(e, namespace)
    return 0


def _failed(e: BaseException, namespace: dict) -> int:
    """Reports the script's uncaught exception; returns the exit status."""
    oom = _is_memory_error(e)
    if oom:
        # The memory is most likely still held by the script's objects:
        # let them go (the run is over), so the report can be made.
        out_of_memory = _out_of_memory(e)
        traceback.clear_frames(e.__traceback__)
        namespace.clear()
        gc.collect()
    try:
        report(e)
    except BaseException:  # noqa: BLE001  (reporting itself ran out of memory)
        _amla.write(2, b"MemoryError (the traceback could not be shown: no memory left)\n")
    if oom and out_of_memory:
        # The host calls exit 137 the memory limit when the guest holds
        # nearly all it may: after a refused request of megabytes it may
        # not yet, so it takes the rest (pages it never touches).
        _amla.claim_rest()
        return EXIT_OUT_OF_MEMORY
    return 1


def _is_memory_error(exc: BaseException | None) -> bool:
    for _ in range(100):
        if exc is None:
            return False
        if isinstance(exc, MemoryError):
            return True
        exc = exc.__cause__ or exc.__context__
    return False
