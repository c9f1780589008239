"""numpy and pandas in the Python data guest (issue 28.1, docs/python.md
"numpy and pandas"), through the public API: Sandbox(python_data=True).

The data guest is built only on request (AMLA_SANDBOX_DATA=1 at install);
the tests that run it are skipped, saying so, where it was not built. The
default guest's refusal of `import numpy` is tested everywhere.
"""

from __future__ import annotations

import json
import time

import pytest

import amla_sandbox
from amla_sandbox import Sandbox, _wasm

HAVE_DATA = _wasm.get_py_data_wasm_path().is_file()
needs_data = pytest.mark.skipif(
    not HAVE_DATA,
    reason=f"the Python data guest is not built ({_wasm.get_py_data_wasm_path()}): "
    "build with AMLA_SANDBOX_DATA=1 (setup.py build_go --inplace or pip install)",
)


@pytest.fixture(scope="module")
def sb():
    if not HAVE_DATA:
        pytest.skip("the Python data guest is not built")
    with Sandbox(python_data=True, timeout=60) as s:
        yield s


@pytest.fixture(scope="module")
def pd_sb(sb: Sandbox) -> Sandbox:
    """The data sandbox, where its guest has pandas (AMLA_SANDBOX_DATA=numpy
    builds numpy alone)."""
    if sb.python("import sys\nprint('pandas._libs.lib' in sys.builtin_module_names)") != "True\n":
        pytest.skip("this data guest was built without pandas (AMLA_SANDBOX_DATA=numpy)")
    return sb


# -- without the data guest ---------------------------------------------------------


@pytest.mark.parametrize("module", ["numpy", "pandas", "numpy.linalg"])
def test_the_default_guest_says_how_to_get_numpy_and_pandas(module: str) -> None:
    with Sandbox() as s:
        out = s.python(
            f"try:\n    import {module}\nexcept ImportError as e:\n    print(type(e).__name__, '|', e)\nelse:\n    print('imported')"
        )
    assert out.startswith("ModuleNotFoundError | "), out
    assert "Sandbox(python_data=True)" in out and "AMLA_SANDBOX_DATA=1" in out, out


@pytest.mark.skipif(HAVE_DATA, reason="the Python data guest is built here")
def test_asking_for_a_data_guest_that_was_not_built_says_how_to_build_it() -> None:
    with pytest.raises(FileNotFoundError, match="AMLA_SANDBOX_DATA=1"):
        Sandbox(python_data=True)


def test_python_data_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="python_data"):
        Sandbox(python_data="yes")  # type: ignore[arg-type]


# -- numpy ------------------------------------------------------------------------------


@needs_data
def test_numpy_arithmetic_sort_unique_and_datetime64(sb: Sandbox) -> None:
    out = sb.python(
        """
import numpy as np
a = np.arange(10, dtype=np.float64)
print((a * 2 + 1).sum(), a.mean(), a.reshape(2, 5).T.shape)
print(np.sort(np.array([3, 1, 2, 3, 1])).tolist(), np.unique(np.array([3, 1, 2, 3, 1])).tolist())
d = np.datetime64("2024-02-28") + np.arange(3).astype("timedelta64[D]")
print([str(x) for x in d], (d[-1] - d[0]).astype(int))
print(np.int_ is np.int32, np.arange(3).dtype)
"""
    )
    lines = out.splitlines()
    assert lines[0] == "100.0 4.5 (5, 2)"
    assert lines[1] == "[1, 1, 2, 3, 3] [1, 2, 3]"
    assert lines[2] == "['2024-02-28', '2024-02-29', '2024-03-01'] 2"
    # wasm32: numpy's default integer is 32 bits (docs/python.md).
    assert lines[3] == "True int32"


@needs_data
def test_numpy_linalg_and_fft(sb: Sandbox) -> None:
    out = sb.python(
        """
import numpy as np
m = np.array([[1.0, 2.0], [3.0, 4.0]])
print(round(float(np.linalg.det(m)), 9), np.linalg.solve(m, np.array([5.0, 6.0])).round(9).tolist())
print(np.allclose(m @ np.linalg.inv(m), np.eye(2)))
print([complex(x) for x in np.fft.fft([1, 2, 3, 4])])
"""
    )
    assert out.splitlines() == [
        "-2.0 [-4.0, 4.5]",
        "True",
        "[(10+0j), (-2+2j), (-2+0j), (-2-2j)]",
    ]


@needs_data
def test_random_state_1_gives_the_native_numbers(sb: Sandbox) -> None:
    # The values native numpy 2.5.5 gives on x86-64 for the same calls.
    out = sb.python(
        """
import json
import numpy as np
r = np.random.RandomState(1)
json.dumps([r.random_sample(3).tolist(), r.standard_normal(3).tolist(), r.randint(0, 100, 5, dtype=np.int64).tolist(),
            np.random.default_rng(1).random(3).tolist()])
"""
    )
    got = json.loads(out)
    assert got == [
        [0.417022004702574, 0.7203244934421581, 0.00011437481734488664],
        [-0.8021728386486427, -0.4488778077207725, -1.1059350760083153],
        [50, 20, 18, 84, 11],
        [0.5118216247002567, 0.9504636963259353, 0.14415961271963373],
    ]


@needs_data
def test_numpy_random_is_reseeded_every_run(sb: Sandbox) -> None:
    code = "import numpy as np\nprint(np.random.random(), np.random.randint(1 << 30), np.random.default_rng().random())"
    outs = {sb.python(code) for _ in range(3)}
    assert len(outs) == 3, outs


# -- pandas ------------------------------------------------------------------------------


@needs_data
def test_pandas_groupby_pivot_merge_rolling_describe(pd_sb: Sandbox) -> None:
    sb = pd_sb
    out = sb.python(
        """
import pandas as pd
df = pd.DataFrame({"k": ["a", "b", "a", "b", "c"], "v": [1.0, 2.0, 3.0, 4.0, 5.0], "w": [10, 20, 30, 40, 50]})
g = df.groupby("k").agg(v_mean=("v", "mean"), w_sum=("w", "sum"))
print(g.to_dict())
p = df.pivot_table(index="k", values="w", aggfunc="sum")
print(p["w"].to_dict())
m = df.merge(pd.DataFrame({"k": ["a", "b"], "name": ["A", "B"]}), on="k", how="inner")
print(sorted(m["name"].tolist()))
print(df["v"].rolling(2).mean().tolist()[1:])
d = df["v"].describe()
print(d["count"], d["mean"], d["max"])
"""
    )
    lines = out.splitlines()
    assert lines[0] == "{'v_mean': {'a': 2.0, 'b': 3.0, 'c': 5.0}, 'w_sum': {'a': 40, 'b': 60, 'c': 50}}"
    assert lines[1] == "{'a': 40, 'b': 60, 'c': 50}"
    assert lines[2] == "['A', 'A', 'B', 'B']"
    assert lines[3] == "[1.5, 2.5, 3.5, 4.5]"
    assert lines[4] == "5.0 3.0 5.0"


@needs_data
def test_pandas_tz_aware_date_range(pd_sb: Sandbox) -> None:
    sb = pd_sb
    out = sb.python(
        """
import pandas as pd
r = pd.date_range("2024-03-30", periods=3, freq="D", tz="Europe/Paris")
print([t.isoformat() for t in r])
print(r.tz_convert("America/New_York")[0].isoformat())
"""
    )
    # Paris moves to summer time on 31 March 2024 (tzdata's rules).
    assert out.splitlines() == [
        "['2024-03-30T00:00:00+01:00', '2024-03-31T00:00:00+01:00', '2024-04-01T00:00:00+02:00']",
        "2024-03-29T19:00:00-04:00",
    ]


@needs_data
def test_read_csv_of_a_file_the_shell_wrote(pd_sb: Sandbox) -> None:
    sb = pd_sb
    sb.shell("printf 'day,city,temp\\n2024-01-01,Oslo,-3.5\\n2024-01-02,Oslo,-1\\n2024-01-01,Rome,9\\n' > /workspace/t.csv")
    out = sb.python(
        """
import pandas as pd
df = pd.read_csv("/workspace/t.csv", parse_dates=["day"])
print(df["day"].dtype, df.groupby("city")["temp"].mean().to_dict())
print(df["day"].dt.day.tolist())
"""
    )
    first, second = out.splitlines()
    assert first.startswith("datetime64[") and first.endswith("{'Oslo': -2.25, 'Rome': 9.0}"), first
    assert second == "[1, 2, 1]"


@needs_data
def test_a_dataframe_returned_as_json(pd_sb: Sandbox) -> None:
    sb = pd_sb
    sb.python(
        """
import json
import pandas as pd
df = pd.DataFrame({"name": ["x", "y"], "n": [1, 2], "f": [0.5, None]})
json.loads(df.to_json(orient="records"))
"""
    )
    assert sb.last_result.return_value == [{"name": "x", "n": 1, "f": 0.5}, {"name": "y", "n": 2, "f": None}]


# -- limits ------------------------------------------------------------------------------


@needs_data
def test_memory_limit_stops_huge_numpy_allocations() -> None:
    with Sandbox(python_data=True, memory_limit=256 * 1024 * 1024, timeout=60) as s:
        # Past what wasm32 addresses: numpy refuses the shape, nothing is allocated.
        out = s.python("import numpy as np\ntry:\n    np.empty(2**40)\nexcept ValueError as e:\n    print(e)")
        assert out == "Maximum allowed dimension exceeded\n"
        # 1 GiB under a 256 MiB limit: one request bigger than what is left
        # fails alone, catchably.
        out = s.python("import numpy as np\ntry:\n    np.ones(2**27)\nexcept MemoryError:\n    print('MemoryError')")
        assert out == "MemoryError\n"
        # Arrays filling the memory limit: the limit.
        with pytest.raises(amla_sandbox.MemoryLimitError):
            s.python("import numpy as np\nkeep = []\nwhile True:\n    keep.append(np.ones(4 * 1024 * 1024))")
        assert s.python("import numpy as np\nprint(np.ones(3).sum())") == "3.0\n"


@needs_data
def test_a_memory_limit_below_the_data_guests_own_memory_is_named() -> None:
    # The data guest starts with about 100 MiB of memory: under 64 MiB no
    # instance can be made, and the error says which setting to raise.
    with Sandbox(python_data=True, memory_limit=64 * 1024 * 1024, timeout=60) as s:
        with pytest.raises(amla_sandbox.RuntimeError, match=r"memory_limit is 64 MiB, below the \d+ MiB of memory "
                           r"the python guest \(amla_python_data\.wasm\) starts with: give the sandbox a memory_limit above"):
            s.python("print(1)")
        # JavaScript is not held to the Python guest's size.
        assert s.execute("console.log(1)") == "1\n"


@needs_data
def test_timeout_stops_a_long_numpy_loop() -> None:
    with Sandbox(python_data=True, timeout=1.0) as s:
        start = time.monotonic()
        with pytest.raises(amla_sandbox.TimeoutError):
            s.python("import numpy as np\na = np.random.random(1_000_000)\nwhile True:\n    a = np.sort(a[::-1])")
        assert time.monotonic() - start < 10
        assert s.python("import numpy as np\nprint(np.ones(2).sum())") == "2.0\n"


@needs_data
def test_dateutil_finds_the_embedded_time_zones(pd_sb: Sandbox) -> None:
    # dateutil.tz.gettz reads the tzdata package through importlib.resources,
    # which the embedded database is not: it found no zone (pandas'
    # test_reindex_timestamp_with_fold, tests/test_python_data_suites.py).
    out = pd_sb.python(
        """
from dateutil.tz import gettz
import pandas as pd
tz = gettz("America/Chicago")
print(tz is not None, gettz("Nowhere/Else"))
print(pd.Timestamp(2013, 11, 3, 1, fold=0, tzinfo=tz).utcoffset(), pd.Timestamp(2013, 11, 3, 1, fold=1, tzinfo=tz).utcoffset())
"""
    )
    assert out == "True None\n-1 day, 19:00:00 -1 day, 18:00:00\n", pd_sb.last_stderr
