"""Issue 28.1: the Python data guest (numpy and pandas) against the
sandbox's limits. Huge arrays end in MemoryLimitError with the host's RSS
bounded, np.empty(2**40) is an ordinary MemoryError, ctypes and mmap (which
pandas imports) import but refuse use, numpy's C code cannot outrun the
timeout, and the sandbox works afterwards. Skipped where the data guest
was not built (AMLA_SANDBOX_DATA=1)."""

from __future__ import annotations

import functools

import pytest

from _hostile import run_isolated
from amla_sandbox import _wasm

MIB = 1024 * 1024

pytestmark = pytest.mark.skipif(
    not _wasm.get_py_data_wasm_path().is_file(),
    reason="the Python data guest is not built (AMLA_SANDBOX_DATA=1 at install)",
)

@functools.cache
def _has_pandas() -> bool:
    from amla_sandbox import Sandbox

    with Sandbox(python_data=True) as sb:
        return sb.python("import sys\nprint('pandas._libs.lib' in sys.builtin_module_names)") == "True\n"


BOMBS = {
    # Arrays of 32 MiB kept until the limit.
    "arrays_kept": "import numpy as np\nkeep = []\nwhile True:\n    keep.append(np.ones(4 * 1024 * 1024))",
    # One array that doubles until it cannot.
    "array_doubling": "import numpy as np\na = np.ones(1024)\nwhile True:\n    a = np.concatenate([a, a])",
    # pandas growing a frame row block by row block.
    "frame_growth": (
        "import pandas as pd\nimport numpy as np\ndf = pd.DataFrame({'a': np.arange(1 << 16)})\n"
        "while True:\n    df = pd.concat([df, df], ignore_index=True)"
    ),
    # Past what wasm32 addresses (numpy refuses the shape) and 1 GiB under a
    # 128 MiB limit (the one request is refused), each as one request.
    "np_empty_2_40": "import numpy as np\nx = np.empty(2**40)\nprint('allocated', x.nbytes)",
    "np_ones_1gib": "import numpy as np\nx = np.ones(2**27)\nprint('allocated', x.nbytes)",
}


@pytest.mark.parametrize("name", list(BOMBS))
def test_huge_arrays_stop_at_the_memory_limit(name: str) -> None:
    if "pandas" in BOMBS[name] and not _has_pandas():
        pytest.skip("this data guest was built without pandas (AMLA_SANDBOX_DATA=numpy)")
    child = run_isolated(
        f"""
sb = Sandbox(python_data=True, memory_limit=128 * 1024 * 1024, timeout=60)
sb.python("1")  # instantiate the guest before measuring
emit(first=measure_rss(lambda: sb.python({BOMBS[name]!r})))
emit(stderr=sb.last_stderr[-1500:])
emit(after=attempt(lambda: sb.python("import numpy as np\\nprint(int(np.arange(4).sum()))")))
""",
        240,
    )
    first = child["first"]
    if name == "np_empty_2_40":
        # A shape past wasm32's 32-bit sizes: numpy's ValueError, a failed run.
        assert first["ok"] and first["value"] == "", first
        assert "ValueError: Maximum allowed dimension exceeded" in child["stderr"], child["stderr"]
    elif name == "np_ones_1gib":
        # One request larger than the limit: MemoryError, the run fails (or,
        # if memory had already been refused, the limit).
        assert first["type"] in ("amla_sandbox.MemoryLimitError", None), first
        assert first["type"] is not None or "MemoryError" in child["stderr"], child["stderr"]
        assert "allocated" not in str(first.get("value"))
    else:
        assert first["type"] == "amla_sandbox.MemoryLimitError", (first, child["stderr"])
    assert first["rss_growth"] < 256 * MIB, f"host RSS grew {first['rss_growth'] >> 20} MiB"
    assert child["after"]["ok"] and child["after"]["value"] == "6\n", child["after"]


REFUSALS = {
    "ctypes_call": "import ctypes\nctypes.CDLL('libc.so.6')",
    "ctypes_memmove": "import ctypes\nctypes.memmove(0, 0, 8)",
    "ctypes_cast": "from ctypes import c_void_p, cast\ncast(0, c_void_p)",
    "mmap_file": "import mmap\nf = open('/workspace/x', 'wb+')\nf.write(b'x' * 4096)\nf.flush()\nmmap.mmap(f.fileno(), 0)",
    "numpy_ctypes_pointer": "import numpy as np\na = np.ones(4)\na.ctypes.data_as(object)",
}


@pytest.mark.parametrize("name", list(REFUSALS))
def test_ctypes_and_mmap_stand_ins_refuse_use(name: str) -> None:
    child = run_isolated(
        f"""
sb = Sandbox(python_data=True, timeout=30)
emit(imports=attempt(lambda: sb.python("import ctypes, mmap, numpy\\nprint(isinstance(1, mmap.mmap))")))
emit(use=attempt(lambda: sb.python({REFUSALS[name]!r})))
emit(stderr=sb.last_stderr[-1500:])
emit(after=attempt(lambda: sb.python("print('alive')")))
""",
        120,
    )
    assert child["imports"]["ok"] and child["imports"]["value"] == "False\n", child["imports"]
    use = child["use"]
    assert use["type"] != "amla_sandbox.MemoryLimitError", use
    assert "not available in the sandbox" in child["stderr"] or "not available in the sandbox" in str(use), child["stderr"]
    assert child["after"]["ok"] and child["after"]["value"] == "alive\n"


def test_a_long_computation_in_numpy_c_code_stops_at_the_timeout() -> None:
    child = run_isolated(
        """
import time
sb = Sandbox(python_data=True, timeout=1.0)
sb.python("1")
start = time.monotonic()
# One C call that runs for minutes: the epoch deadline stops it inside numpy.
emit(r=attempt(lambda: sb.python("import numpy as np\\na = np.ones((1500, 1500))\\nfor _ in range(1000): a = a @ a")))
emit(seconds=time.monotonic() - start)
emit(after=attempt(lambda: sb.python("import numpy as np\\nprint(np.ones(2).sum())")))
""",
        120,
    )
    assert child["r"]["type"] == "amla_sandbox.TimeoutError", child["r"]
    assert child["seconds"] < 10, child["seconds"]
    assert child["after"]["ok"] and child["after"]["value"] == "2.0\n"


# numpy C functions cast into a slot of another type (a getter or METH_NOARGS
# method taking one parameter, a setter taking two): each call was a wasm
# trap, "indirect call type mismatch", until the build added the missing
# parameter (build_data.SIGNATURE_FIXES). Script -> what it prints.
SIGNATURE_TRAPS = {
    "ndarray_dtype_setter": (
        "import numpy as np, warnings\nwarnings.simplefilter('ignore')\n"
        "a = np.zeros(3, [('a', 'u1'), ('b', 'u1')]).view(np.recarray)\na.dtype = np.dtype([('a', 'u1'), ('b', 'u1')])\n"
        "print(a.dtype.type.__name__)",
        "record\n",
    ),
    "scalar_copy": ("import copy, numpy as np\nprint(repr(copy.copy(np.float64(1.5))))", "np.float64(1.5)\n"),
    "array_converter_scalar_input": (
        "from numpy._core._multiarray_umath import _array_converter\nprint(_array_converter(1.0, [2.0]).scalar_input)",
        "(True, False)\n",
    ),
    "boundarraymethod_supports_unaligned": (
        "import numpy as np\nfrom numpy._core._multiarray_umath import _get_castingimpl\n"
        "print(_get_castingimpl(type(np.dtype('f8')), type(np.dtype('i8')))._supports_unaligned)",
        "True\n",
    ),
    "sfloat_reduce": (
        "from numpy._core._multiarray_umath import _get_sfloat_dtype\nprint(_get_sfloat_dtype()(2.0).__reduce__()[1])",
        "(2.0,)\n",
    ),
}


@pytest.mark.parametrize("name", list(SIGNATURE_TRAPS))
def test_numpy_functions_called_through_a_slot_of_another_type_do_not_trap(name: str) -> None:
    from amla_sandbox import Sandbox

    script, expected = SIGNATURE_TRAPS[name]
    with Sandbox(python_data=True, timeout=30) as sb:
        out = sb.python(script)
        assert out == expected, sb.last_stderr
        assert sb.python("print('alive')") == "alive\n"
