"""Keep freed memory inside the process on Linux, so MLX's CPU arrays stop paying the kernel to zero fresh pages.

MLX's CPU allocator hands every array to glibc's malloc and frees it straight back (no buffer cache, unlike
Metal's). glibc serves each block over its mmap threshold (at most 32 MB) with a fresh mmap and unmaps it on free,
so every attention score matrix of a training step (a (2, 9, 1024, 1024) float32 block is 75 MB) comes back as
pages the kernel must zero: `perf` put 13% of a packed 2 x 1024 LoRA step in `clear_page_erms` alone. With mmap
turned off for malloc, one arena for all threads and no trimming, freed blocks are reused in place. Measured at
packed 4 x 1024 LoRA with the dense mask (bench/results/train_speed_real.json, 2-core AMD EPYC): 67.6 -> 81.0
tokens/s, same peak. Beside packed attention's smaller blocks it adds little (105.7 -> 106.9).

MLX 0.32's own CPU buffer cache (`mx.set_cache_limit`, 32 MB by default) is the other way in; it made `x * 2` on
9.4M floats 7x faster in a micro-benchmark but is not measured at training scale, and it keeps freed buffers by
size without releasing them under pressure, so a large limit could hold memory on top of the peak.

The price: the process keeps its peak heap instead of returning it to the system between steps, which a training
run or a model server reaches again on every step or request anyway.

`nanoagent/__init__.py` calls `keep_freed_memory()` before anything imports mlx: glibc gives a thread its arena at
the thread's first malloc, so MLX's threads (started later) share the one arena. OpenBLAS's threads start just
before (nanoagent/blas.py) and allocate little. Linux with glibc only; elsewhere (macOS, musl) it does nothing.

Settings (environment):
    NANOAGENT_MALLOC=default    leave glibc's defaults alone (bench/train_speed.py measures both this way)

Usage:
    from nanoagent.cpu_memory import keep_freed_memory, state
    keep_freed_memory()          # True when the settings took; state["status"] says what happened
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

# mallopt parameters, from glibc's malloc.h
M_TRIM_THRESHOLD = -1
M_MMAP_MAX = -4
M_ARENA_MAX = -8
NEVER = -1  # mallopt takes an int and glibc stores the trim threshold as size_t: -1 is the largest, never trim

state = {"status": "not tried"}


def keep_freed_memory() -> bool:
    """Tell glibc's malloc to keep and reuse freed blocks (see the module docstring). Idempotent."""
    if state["status"] == "on":
        return True
    if os.environ.get("NANOAGENT_MALLOC", "") == "default":
        state["status"] = "off (NANOAGENT_MALLOC=default)"
        return False
    if not sys.platform.startswith("linux"):
        state["status"] = f"off ({sys.platform}: glibc only)"
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        state["status"] = "off (no glibc mallopt)"
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    settings = {"M_MMAP_MAX": (M_MMAP_MAX, 0), "M_TRIM_THRESHOLD": (M_TRIM_THRESHOLD, NEVER),
                "M_ARENA_MAX": (M_ARENA_MAX, 1)}
    refused = [name for name, (param, value) in settings.items() if mallopt(param, value) != 1]
    state["status"] = "on" if not refused else f"partly (mallopt refused {', '.join(refused)})"
    return not refused
