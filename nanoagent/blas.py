"""Make MLX use OpenBLAS on Linux CPU before MLX is first imported.

The Linux `mlx[cpu]` wheel bundles the reference BLAS, which ran a 1024x576 @ 576x49152 float32 matmul at about
4 GFLOP/s here against about 140 GFLOP/s once OpenBLAS was loaded first (shared/DESIGN.md). Loading
`libopenblas.so.0` with RTLD_GLOBAL before `import mlx` makes MLX's BLAS calls resolve to OpenBLAS.
`nanoagent/__init__.py` calls `use_openblas()`, so `import nanoagent` before `import mlx` is all a module needs.

Settings (environment):
    NANOAGENT_OPENBLAS=/path/libopenblas.so.0   use this library
    NANOAGENT_OPENBLAS=off                       don't (bench/blas.py measures the difference this way)

macOS never needs this (MLX uses Metal and Accelerate). Left out: other BLAS libraries (MKL, BLIS).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
import platform
import sys
import warnings

CANDIDATES = [
    "/usr/lib/{arch}-linux-gnu/openblas-pthread/libopenblas.so.0",
    "/usr/lib/{arch}-linux-gnu/libopenblas.so.0",
    "/usr/lib64/libopenblas.so.0",
    "/usr/lib/libopenblas.so.0",
    "/usr/local/lib/libopenblas.so.0",
]
INSTALL_HINT = ("install OpenBLAS (Debian/Ubuntu: `apt-get install libopenblas0-pthread`; scripts/setup.sh does it) "
                "or set NANOAGENT_OPENBLAS=/path/to/libopenblas.so.0")

state = {"path": None, "status": "not tried"}  # what happened, for reports and benchmarks


def find_openblas() -> str | None:
    arch = platform.machine()
    for pattern in CANDIDATES:
        for path in glob.glob(pattern.format(arch=arch)):
            if os.path.exists(path):
                return path
    found = ctypes.util.find_library("openblas")
    return found


def use_openblas() -> dict:
    """Load OpenBLAS globally if on Linux and MLX isn't imported yet. Returns `state`; warns once if it can't."""
    if state["status"] != "not tried":
        return state
    setting = os.environ.get("NANOAGENT_OPENBLAS", "").strip()
    if not sys.platform.startswith("linux"):
        state["status"] = "not needed (not Linux)"
        return state
    if setting.lower() in ("off", "0", "false", "no"):
        state["status"] = "disabled by NANOAGENT_OPENBLAS"
        return state
    if "mlx.core" in sys.modules:
        state["status"] = "too late: mlx was imported before nanoagent"
        warnings.warn("nanoagent: mlx was imported before nanoagent, so MLX may use its slow reference BLAS; "
                      "import nanoagent first.", RuntimeWarning, stacklevel=3)
        return state
    path = setting or find_openblas()
    if not path:
        state["status"] = "not found"
        warnings.warn("nanoagent: OpenBLAS not found; MLX on this Linux CPU will use its reference BLAS and run "
                      "matmuls roughly 40x slower (a 135M training step: minutes instead of seconds). "
                      f"To fix: {INSTALL_HINT}.", RuntimeWarning, stacklevel=3)
        return state
    try:
        ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    except OSError as e:
        state["status"] = f"failed to load {path}: {e}"
        warnings.warn(f"nanoagent: could not load OpenBLAS from {path} ({e}); MLX will be slow. {INSTALL_HINT}.",
                      RuntimeWarning, stacklevel=3)
        return state
    state.update(path=path, status="loaded")
    return state
