"""The one place nanoagent replaces anything inside mlx-lm, and the mlx-lm versions that is known to work with.

Two speed-ups swap mlx-lm's own code for ours while a `with` block runs: nanoagent.numpy_ops replaces the
module-level `scaled_dot_product_attention` and `swiglu` that `mlx_lm.models.llama` calls, and
nanoagent.agent.backends.shared_prefix replaces each llama layer's `self_attn`. Both go through `replaced`, which
first checks that every symbol it replaces is there and raises `MlxLmMismatch` naming the symbol, the installed
mlx-lm version and SUPPORTED when one is not (a renamed internal would otherwise be patched in name only, or fail
deep inside a forward pass), and puts the originals back on exit, after an error too. `original` gives what was
there before any replacement still in force (our attention falls back to mlx-lm's own for cases it leaves out).

Usage:
    with replaced(llama(), scaled_dot_product_attention=attention, swiglu=swiglu):
        logits = model(tokens)
    original(llama(), "swiglu")     # mlx-lm's own, even inside the block

Left out: checking call signatures (tests/test_numpy_ops.py and tests/test_shared_prefix.py compare logits with
mlx-lm's own on a tiny llama, which is where a changed signature shows).
"""

from __future__ import annotations

import importlib.metadata
import warnings
from contextlib import contextmanager
from functools import lru_cache

# `swiglu` is imported into mlx_lm.models.llama from 0.31.0; `sinks` joined scaled_dot_product_attention in 0.28.
SUPPORTED = ((0, 31), (0, 33))  # from, up to (not included); tested on 0.32.2
LLAMA_SYMBOLS = ("scaled_dot_product_attention", "swiglu")


class MlxLmMismatch(RuntimeError):
    """The installed mlx-lm lacks an internal nanoagent replaces."""


@lru_cache(maxsize=1)
def installed_version() -> str:
    try:
        return importlib.metadata.version("mlx-lm")
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _supported_text() -> str:
    (a, b), (c, d) = SUPPORTED
    return f">={a}.{b},<{c}.{d}"


def _in_range(version: str) -> bool:
    try:
        parts = tuple(int(p) for p in version.split(".")[:2])
    except ValueError:
        return False
    return SUPPORTED[0] <= parts < SUPPORTED[1]


def require(target, names) -> None:
    """Raise MlxLmMismatch unless `target` (an mlx-lm module or object) has every attribute in `names`."""
    where = getattr(target, "__name__", type(target).__name__)
    for name in names:
        if not hasattr(target, name):
            raise MlxLmMismatch(f"{where}.{name} is missing from the installed mlx-lm {installed_version()}; "
                                f"nanoagent replaces it and supports mlx-lm {_supported_text()}: install a "
                                f'supported version (pip install "mlx-lm{_supported_text()}")')
    _warn_if_untested()


@lru_cache(maxsize=1)
def _warn_if_untested() -> None:
    if not _in_range(installed_version()):
        warnings.warn(f"mlx-lm {installed_version()} is outside the range nanoagent was tested with "
                      f"({_supported_text()})")


_SAVED: dict[tuple[int, str], list] = {}  # (id(target), name) -> values in force before each open replacement


def llama():
    """mlx_lm.models.llama, checked to have every symbol numpy_ops replaces there."""
    from mlx_lm.models import llama as module

    require(module, LLAMA_SYMBOLS)
    return module


@contextmanager
def replaced(target, **new):
    """`target.name = value` for each keyword while inside; the previous values come back on exit."""
    require(target, new)
    keys = [(id(target), name) for name in new]
    for key, name in zip(keys, new):
        _SAVED.setdefault(key, []).append(getattr(target, name))
    try:
        for name, value in new.items():
            setattr(target, name, value)
        yield target
    finally:
        for key, name in zip(keys, new):
            setattr(target, name, _SAVED[key].pop())
            if not _SAVED[key]:
                del _SAVED[key]


def original(target, name: str):
    """`target.name` as it was before any replacement still in force."""
    stack = _SAVED.get((id(target), name))
    return stack[0] if stack else getattr(target, name)
