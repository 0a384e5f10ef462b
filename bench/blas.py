"""MLX float32 matmul speed on this CPU with and without the OpenBLAS preload, against numpy, in one run.

    python -m bench.blas [--repeats 5] [--name blas]

Each MLX variant runs in its own subprocess (the BLAS library is chosen when MLX is first imported):
`NANOAGENT_OPENBLAS=off` gives MLX's bundled reference BLAS, the default gives nanoagent's OpenBLAS preload.
The shape is the LM head of SmolLM2-135M at a 1024-token batch (1024x576 @ 576x49152). Writes
bench/results/blas.json; target: MLX with the fix at >= 50% of numpy's rate.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

M, K, N = 1024, 576, 49152

WORKER = r"""
import json, sys, time
import nanoagent, nanoagent.blas
import mlx.core as mx
M, K, N, repeats = (int(x) for x in sys.argv[1:5])
a = mx.random.normal((M, K)); b = mx.random.normal((K, N)); mx.eval(a, b)
mx.eval(a @ b)
times = []
for _ in range(repeats):
    t = time.perf_counter(); mx.eval(a @ b); times.append(time.perf_counter() - t)
print(json.dumps({"seconds": sorted(times), "blas": nanoagent.blas.state}))
"""


def mlx_rate(openblas: bool, repeats: int) -> dict:
    env = dict(os.environ)
    if not openblas:
        env["NANOAGENT_OPENBLAS"] = "off"
    out = subprocess.run([sys.executable, "-c", WORKER, str(M), str(K), str(N), str(repeats)], env=env,
                         capture_output=True, text=True, check=True)
    res = json.loads(out.stdout.strip().splitlines()[-1])
    best = min(res["seconds"])
    return {"gflops": round(2 * M * K * N / best / 1e9, 1), "best_s": round(best, 4), "blas": res["blas"]}


def numpy_rate(repeats: int) -> dict:
    import time

    import numpy as np

    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((M, K), dtype=np.float32), rng.standard_normal((K, N), dtype=np.float32)
    a @ b
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        a @ b
        times.append(time.perf_counter() - t)
    best = min(times)
    return {"gflops": round(2 * M * K * N / best / 1e9, 1), "best_s": round(best, 4)}


def main(argv=None) -> int:
    from bench.machine import write_result

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--name", default="blas", help="result file: bench/results/NAME.json (default blas)")
    args = parser.parse_args(argv)
    numpy_res = numpy_rate(args.repeats)
    fixed = mlx_rate(True, args.repeats)
    reference = mlx_rate(False, max(1, args.repeats // 2))  # slow: fewer repeats
    result = {"shape": [M, K, N], "dtype": "float32", "numpy": numpy_res, "mlx_openblas": fixed,
              "mlx_reference_blas": reference,
              "ratio_mlx_openblas_to_numpy": round(fixed["gflops"] / numpy_res["gflops"], 3),
              "ratio_mlx_reference_to_numpy": round(reference["gflops"] / numpy_res["gflops"], 3),
              "speedup_from_fix": round(fixed["gflops"] / reference["gflops"], 1), "target_ratio": 0.5}
    path = write_result(args.name, result)
    print(f"numpy {numpy_res['gflops']} GFLOP/s | MLX+OpenBLAS {fixed['gflops']} | MLX reference BLAS "
          f"{reference['gflops']} | ratio to numpy {result['ratio_mlx_openblas_to_numpy']} -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
