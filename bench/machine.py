"""Writes a benchmark's result file with the machine's details (nanoagent.machine) and the load at writing.

Usage (in a benchmark):
    from bench.machine import write_result
    write_result("blas", {"mlx_openblas_gflops": ...})      # -> bench/results/blas.json
"""

from __future__ import annotations

import datetime
import os
from pathlib import Path

from nanoagent.atomic import write_json
from nanoagent.machine import machine_info

RESULTS = Path(__file__).parent / "results"


def write_result(name: str, result: dict) -> Path:
    payload = {"benchmark": name, "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               "machine": machine_info(), "load_average_at_write": list(os.getloadavg()), **result}
    return write_json(RESULTS / f"{name}.json", payload)
