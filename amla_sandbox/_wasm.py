"""Where the bundled WASM guest lives (internal)."""

from __future__ import annotations

import os
from pathlib import Path

WASM_FILENAME = "amla_sandbox.wasm"
# The JavaScript guest (QuickJS-NG), built from guests/js/.
JS_WASM_FILENAME = "amla_js.wasm"
# The Python guest (CPython), built from guests/python/.
PY_WASM_FILENAME = "amla_python.wasm"
# The Python guest with numpy and pandas (guests/python/data/): built only on
# request (AMLA_SANDBOX_DATA=1 at install), used by Sandbox(python_data=True).
PY_DATA_WASM_FILENAME = "amla_python_data.wasm"
# How to get it, for the errors that find it missing.
PY_DATA_HOW = (
    "install amla-sandbox with the data guest: AMLA_SANDBOX_DATA=1 pip install --no-binary amla-sandbox "
    "amla-sandbox (from a checkout: AMLA_SANDBOX_DATA=1 pip install .; docs/python.md, \"numpy and pandas\"), "
    "or set AMLA_PY_DATA_WASM_PATH"
)


def get_wasm_path() -> Path:
    """The guest to run: `$AMLA_WASM_PATH` if set, else the bundled file."""
    env = os.environ.get("AMLA_WASM_PATH")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent / WASM_FILENAME


def get_js_wasm_path() -> Path:
    """The JavaScript guest: `$AMLA_JS_WASM_PATH` if set, else the bundled file."""
    env = os.environ.get("AMLA_JS_WASM_PATH")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent / JS_WASM_FILENAME


def get_py_wasm_path() -> Path:
    """The Python guest: `$AMLA_PY_WASM_PATH` if set, else the bundled file."""
    env = os.environ.get("AMLA_PY_WASM_PATH")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent / PY_WASM_FILENAME


def get_py_data_wasm_path() -> Path:
    """The Python data guest: `$AMLA_PY_DATA_WASM_PATH` if set, else the bundled file."""
    env = os.environ.get("AMLA_PY_DATA_WASM_PATH")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent / PY_DATA_WASM_FILENAME


def bundled_guests() -> list[Path]:
    """The guest modules this installation uses (that exist)."""
    guests = (get_wasm_path(), get_js_wasm_path(), get_py_wasm_path(), get_py_data_wasm_path())
    return [g for g in guests if g.is_file()]


def is_wasm_available() -> bool:
    return get_wasm_path().is_file()


def get_wasm_bytes() -> bytes:
    path = get_wasm_path()
    if not path.is_file():
        raise FileNotFoundError(
            f"WASM runtime not found at {path}. Reinstall amla-sandbox "
            "(`pip install --force-reinstall amla-sandbox`) or set AMLA_WASM_PATH."
        )
    return path.read_bytes()
