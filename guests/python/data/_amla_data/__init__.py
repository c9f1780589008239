"""The data guest's set-up: numpy and pandas, imported once in the snapshot.

The prelude (_amla_guest) imports this package during set-up when numpy's
extension modules are built into the program (guests/python/data/). It

- serves stand-ins for ctypes and mmap, which pandas imports at load time
  and neither of which can work in WebAssembly: they import, and using
  them raises an error saying so (standins.py);
- gives zoneinfo the IANA database of the tzdata package, which the module
  archive holds as data (_amla_tzdata) instead of files;
- imports numpy and pandas and the parts of them most scripts reach, and
  runs a little of each so that their lazy imports and caches are in the
  snapshot, not paid by every run;
- reseeds numpy's global random state at the start of every run (the
  snapshot would otherwise give each run the same numbers).
"""

from __future__ import annotations

import io
import sys

from . import standins

standins.install()


def _load_tzdata(key: str):
    import _amla_tzdata

    data = _amla_tzdata.ZONES.get(key)
    if data is None:
        raise ModuleNotFoundError(f"No time zone named {key!r} in the tzdata package", name="tzdata")
    return io.BytesIO(data)


def _install_tzdata() -> None:
    import zoneinfo._common
    import zoneinfo._tzpath

    def available() -> set[str]:
        import _amla_tzdata

        return set(_amla_tzdata.ZONES) - {"Factory", "localtime", "posixrules"}

    zoneinfo._common.load_tzdata = _load_tzdata
    zoneinfo._tzpath.available_timezones = available
    zoneinfo.available_timezones = available
    _install_dateutil_tzdata()


def _install_dateutil_tzdata() -> None:
    """dateutil (dateutil.tz.gettz, which pandas uses for zone names)
    reads the tzdata package's files through importlib.resources: the same
    zones from the embedded data (without this gettz("America/Chicago")
    is None, found by pandas' test_reindex_timestamp_with_fold)."""
    from dateutil import _tzdata_impl

    def load(key: str):
        import _amla_tzdata

        data = _amla_tzdata.ZONES.get(key)
        if data is None or key in ("Factory", "localtime", "posixrules"):
            raise _tzdata_impl.TZFileNotFound("Time zone not found: %s", zone_key=key)
        return io.BytesIO(data)

    def keys() -> list[str]:
        import _amla_tzdata

        return sorted(set(_amla_tzdata.ZONES) - {"Factory", "localtime", "posixrules"})

    _tzdata_impl._load_tzdata = load
    _tzdata_impl._load_tzdata_keys = keys


_install_tzdata()

import numpy  # noqa: E402
import numpy.fft  # noqa: E402,F401
import numpy.linalg  # noqa: E402,F401
import numpy.random  # noqa: E402

# A build of numpy alone (build_data.py --without-pandas) has no pandas.
HAVE_PANDAS = "pandas._libs.lib" in sys.builtin_module_names
if HAVE_PANDAS:
    import pandas
    import pandas.core.groupby  # noqa: F401
    import pandas.core.window  # noqa: F401
    import pandas.io.json  # noqa: F401
    import pandas.io.parsers  # noqa: F401


def _warm_up() -> None:
    """A little of what data scripts do: their lazy imports and caches
    then belong to the snapshot."""
    np = numpy
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    (a @ a.T).sum()
    np.sort(np.unique(a))
    np.linalg.solve(np.eye(3) * 2.0, np.ones(3))
    np.fft.fft(np.ones(8))
    np.datetime64("2024-01-01") + np.timedelta64(1, "D")
    str(a)
    if not HAVE_PANDAS:
        return
    pd = pandas
    df = pd.DataFrame({"k": ["a", "b", "a"], "v": [1.0, 2.0, 3.0], "d": pd.date_range("2024-01-01", periods=3, tz="UTC")})
    df.groupby("k")["v"].agg(["mean", "sum"])
    df.pivot_table(index="k", values="v", aggfunc="sum")
    df.merge(df, on="k")
    df["v"].rolling(2).mean()
    df.describe()
    df.to_json(orient="records")
    pd.read_csv(io.StringIO("a,b\n1,2024-01-02\n"), parse_dates=["b"])
    str(df)


_warm_up()


def reseed() -> None:
    """numpy's global random state from fresh entropy (WASI random_get)."""
    numpy.random.seed()


# Imported by the prelude, whose run() calls each of its reseeds.
_prelude = sys.modules.get("_amla_guest")
if _prelude is not None and hasattr(_prelude, "reseeds"):
    _prelude.reseeds.append(reseed)
