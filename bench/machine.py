"""Machine details recorded with every benchmark result, and a helper that writes the result file.

Usage (in a benchmark):
    from bench.machine import write_result
    write_result("blas", {"mlx_openblas_gflops": ...})      # -> bench/results/blas.json
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import sys
from importlib import metadata
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
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


def write_result(name: str, result: dict) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    payload = {"benchmark": name, "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               "machine": machine_info(), "load_average_at_write": list(os.getloadavg()), **result}
    path.write_text(json.dumps(payload, indent=2) + "\n")
    return path
