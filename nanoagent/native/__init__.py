"""Vectorised exp-family ops (softmax, causal softmax, logsumexp, SwiGLU, sigmoid) for MLX on an x86 CPU.

MLX's CPU backend computes exp one element at a time on x86 (bench/results/mlx_cpu_ops.json: 33x numpy), and the
attention softmax, the MLP's SiLU gate and the loss's logsumexp are a large share of a training step. `ops.cpp`
defines them as MLX primitives with a vectorised exp, so they stay in MLX's lazy graph (no early evaluation, no
copies, memory as with MLX's own ops); nanoagent/numpy_ops.py gives them their gradients and swaps them into
mlx-lm's llama model.

They are compiled on the machine that uses them, against its MLX:

    python -m nanoagent.native.build         # about 30 s; scripts/setup.sh runs it on x86-64 Linux

    from nanoagent import native
    ops = native.load()                        # the compiled module, or None (not built, other MLX, not x86 Linux)
    y = ops.softmax(x)                         # forward only; numpy_ops adds the vjp

`load()` returns None, after one warning that names the command to run, when the module is missing or was built
for another MLX version; callers then fall back to MLX's own ops. NANOAGENT_NATIVE_OPS=0 turns them off.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import platform
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
INFO = HERE / "build_info.json"
BUILD_COMMAND = "python -m nanoagent.native.build"


def supported_platform() -> bool:
    """x86-64 Linux: where MLX's CPU exp is scalar (Apple silicon's is vectorised already, and Macs train on Metal)."""
    return sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64")


def mlx_version() -> str:
    import mlx.core as mx

    return mx.__version__


@functools.lru_cache(maxsize=1)
def load():
    """The compiled module, or None (with one warning naming why) when it can't be used here."""
    if os.environ.get("NANOAGENT_NATIVE_OPS", "1") == "0" or not supported_platform():
        return None
    if not INFO.exists():
        warnings.warn(f"nanoagent's native exp-family ops are not built: run `{BUILD_COMMAND}` (about a minute) "
                      "for faster CPU training; MLX's own ops are used meanwhile", stacklevel=2)
        return None
    built_for = json.loads(INFO.read_text()).get("mlx")
    if built_for != mlx_version():
        warnings.warn(f"nanoagent's native ops were built for MLX {built_for}, and MLX {mlx_version()} is installed: "
                      f"run `{BUILD_COMMAND}` again; MLX's own ops are used meanwhile", stacklevel=2)
        return None
    import mlx.core as mx  # loads libmlx, which the module links against

    try:
        ops = importlib.import_module("nanoagent.native._ops")
        mx.eval(ops.softmax(mx.zeros((1, 2))))  # MLX's arrays pass only where nanobind's ABI is MLX's own
    except (ImportError, TypeError, RuntimeError) as e:
        warnings.warn(f"nanoagent's native ops could not be used ({type(e).__name__}: {e}); run `{BUILD_COMMAND}` "
                      "again; MLX's own ops are used meanwhile", stacklevel=2)
        return None
    return ops


def usable() -> bool:
    """Whether `load()` gives the compiled module, without its warning when it does not."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load() is not None
