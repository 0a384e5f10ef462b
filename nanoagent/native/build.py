"""Compile nanoagent/native/ops.cpp against the installed MLX: `python -m nanoagent.native.build`.

Needs a C++20 compiler, CMake >= 3.24 and nanobind of the ABI MLX was built with (3.x for MLX 0.32); the last two
are the project's own dependencies on x86-64 Linux (pyproject.toml), and scripts/setup.sh runs this there. Writes
nanoagent/native/_ops*.so and build_info.json (the MLX version it was built for; `nanoagent.native.load` checks it),
then checks that the module's softmax matches MLX's on a random array. About 30 s on 2 cores. A failed build
leaves an earlier one in place.

    python -m nanoagent.native.build            # build (again)
    python -m nanoagent.native.build --check    # only check an existing build
    python -m nanoagent.native.build --if-needed   # build unless a usable build for this MLX exists (setup.sh)
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from nanoagent import native


def fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def build() -> int:
    if not native.supported_platform():
        return fail("the native ops are for x86-64 Linux (MLX's exp is vectorised already elsewhere); nothing built")
    cmake = shutil.which("cmake", path=str(Path(sys.executable).parent)) or shutil.which("cmake")
    if cmake is None:
        return fail('cmake not found: pip install "cmake>=3.24"')
    try:
        import nanobind
    except ImportError:
        return fail('nanobind not found: pip install "nanobind>=3,<4"')
    with tempfile.TemporaryDirectory(prefix="nanoagent-native-") as tmp:
        steps = [[cmake, "-S", str(native.HERE), "-B", tmp, "-DCMAKE_BUILD_TYPE=Release",
                  f"-DPython_EXECUTABLE={sys.executable}"],
                 [cmake, "--build", tmp, "-j2"]]
        for cmd in steps:
            run = subprocess.run(cmd, capture_output=True, text=True)
            if run.returncode != 0:
                sys.stderr.write(run.stdout[-4000:] + run.stderr[-4000:])
                return fail(f"`{' '.join(cmd[:2])} ...` failed (output above); MLX's own ops stay in use")
        built = sorted(Path(tmp).glob("_ops*.so"))
        if not built:
            return fail(f"the build wrote no _ops module in {tmp}")
        for old in native.HERE.glob("_ops*.so"):  # only now that a new one exists
            old.unlink()
        native.INFO.unlink(missing_ok=True)
        shutil.copy2(built[0], native.HERE / built[0].name)
    native.INFO.write_text(json.dumps({"mlx": native.mlx_version(), "nanobind": nanobind.__version__}) + "\n")
    native.load.cache_clear()
    return check()


def check() -> int:
    import mlx.core as mx

    ops = native.load()
    if ops is None:
        return fail("no usable build (see the warning above)")
    x = mx.random.normal((64, 1000), key=mx.random.key(0)) * 8
    err = mx.abs(ops.softmax(x) - mx.softmax(x, axis=-1, precise=True)).max().item()  # load() ran a smaller one
    if not err < 1e-6:
        return fail(f"the built softmax differs from MLX's by {err:.2e}: remove nanoagent/native/_ops*.so")
    print(f"nanoagent native ops: built for MLX {native.mlx_version()}, softmax within {err:.1e} of MLX's")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Compile nanoagent's native exp-family ops against the installed MLX")
    ap.add_argument("--check", action="store_true", help="only check the existing build")
    ap.add_argument("--if-needed", action="store_true", help="build only when no usable build for this MLX exists")
    args = ap.parse_args(argv)
    if args.check:
        return check()
    if args.if_needed and native.usable():
        print(f"nanoagent native ops: already built for MLX {native.mlx_version()}")
        return 0
    return build()


if __name__ == "__main__":
    sys.exit(main())
