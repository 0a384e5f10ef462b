"""The one place nanoagent replaces anything inside mlx-lm, and the mlx-lm versions that is known to work with.

numpy_ops swaps the `scaled_dot_product_attention` and `swiglu` that `mlx_lm.models.llama` calls, shared_prefix each
llama layer's `self_attn`, both with `replaced`: it checks every symbol is there (else MlxLmMismatch names it, the
installed mlx-lm version and SUPPORTED) and puts the originals back on exit, after an error too.

Usage:
    with replaced(llama(), scaled_dot_product_attention=attention, swiglu=swiglu):
        logits = model(tokens)      # own_attention() is still mlx-lm's own here

Left out: call signatures (tests/test_numpy_ops.py, test_shared_prefix.py compare logits with mlx-lm's own).
"""

from __future__ import annotations

import importlib.metadata
from contextlib import contextmanager

SUPPORTED = ((0, 31), (0, 33))  # [from, to): llama imports `swiglu` from 0.31.0; tested on 0.32.2
SUPPORTED_TEXT = "mlx-lm>=0.31,<0.33"


class MlxLmMismatch(RuntimeError):
    """The installed mlx-lm lacks an internal nanoagent replaces."""


def installed_version() -> str:
    try:
        return importlib.metadata.version("mlx-lm")
    except importlib.metadata.PackageNotFoundError:
        return "(not installed)"


def supported(version: str) -> bool:
    try:
        return SUPPORTED[0] <= tuple(int(p) for p in version.split(".")[:2]) < SUPPORTED[1]
    except ValueError:
        return False


def require(target, names) -> None:
    """Raise MlxLmMismatch unless `target` (an mlx-lm module or object) has every attribute in `names`."""
    for name in names:
        if not hasattr(target, name):
            where, version = getattr(target, "__name__", type(target).__name__), installed_version()
            raise MlxLmMismatch(f"{where}.{name} is missing from the installed mlx-lm {version} ("
                                f"{'inside' if supported(version) else 'outside'} the supported range); nanoagent "
                                f'replaces it and supports {SUPPORTED_TEXT} (pip install "{SUPPORTED_TEXT}")')


def llama():
    """mlx_lm.models.llama, checked to have what numpy_ops replaces there."""
    from mlx_lm.models import llama as module

    require(module, ("scaled_dot_product_attention", "swiglu", "MLP"))
    return module


def own_attention():
    """mlx-lm's own attention, from where llama imports it (never replaced)."""
    from mlx_lm.models import base

    require(base, ("scaled_dot_product_attention",))
    return base.scaled_dot_product_attention


@contextmanager
def replaced(target, **new):
    """`target.name = value` for each keyword while inside; the previous values come back on exit."""
    require(target, new)
    saved = {name: getattr(target, name) for name in new}
    try:
        for name, value in new.items():
            setattr(target, name, value)
        yield target
    finally:
        for name, value in saved.items():
            setattr(target, name, value)
