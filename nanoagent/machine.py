"""The machine a measurement ran on: platform, CPU, cores, memory, Python and the versions of the packages that
decide speed. Recorded with every benchmark result (bench/machine.py) and every eval result (eval/results.py).

    from nanoagent.machine import machine_info
    machine_info()   # {"platform": ..., "cpu": ..., "cores": 2, "memory_gb": 23.4, "python": "3.11.9", ...}
"""

from __future__ import annotations

import os
import platform
import sys
from importlib import metadata
from pathlib import Path

PACKAGES = ("mlx", "mlx-lm", "numpy", "llama_cpp_python", "transformers", "tokenizers", "datasets", "datasketch",
            "gguf")


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_info() -> dict:
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    mem_gb = None
    try:
        mem_gb = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (ValueError, OSError, AttributeError):
        pass
    return {"platform": platform.platform(), "machine": platform.machine(), "cpu": cpu_model(),
            "cores": os.cpu_count(), "memory_gb": mem_gb, "python": sys.version.split()[0], "packages": versions}
