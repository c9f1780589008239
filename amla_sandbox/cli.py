"""`amla-precompile`: compile the guest module into the cache ahead of time."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def precompile_main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="amla-precompile", description="Compile the amla-sandbox WASM guest into the on-disk cache."
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="say what is done and how long it took")
    parser.add_argument("--wasm-path", type=Path, default=None, help="guest to compile (default: bundled)")
    args = parser.parse_args(argv)
    try:
        from .runtime.runtime import (
            resolve_wasm,
            get_cache_dir,
            get_precompiled_path,
            precompile_module,
        )

        wasm = resolve_wasm(args.wasm_path)
        target = get_precompiled_path(wasm)
        if target.exists():
            size = f" ({target.stat().st_size / 1e6:.1f}MB)" if args.verbose else ""
            print(f"Already precompiled: {target}{size}")
            return 0
        if args.verbose:
            print(f"WASM source: {wasm}")
            print(f"Cache directory: {get_cache_dir()}")
            print("Precompiling WASM module...")
        start = time.perf_counter()
        out = precompile_module(wasm)
        if args.verbose:
            print(f"Precompiled in {(time.perf_counter() - start) * 1000:.0f}ms")
            print(f"Output: {out} ({out.stat().st_size / 1e6:.1f}MB)")
        else:
            print(f"Precompiled: {out}")
        return 0
    except Exception as e:  # the CLI reports every failure the same way
        print(f"Error: {e}", file=sys.stderr)
        return 1


def main() -> int:
    return precompile_main()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
