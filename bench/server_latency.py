"""Benchmark: `nanoagent serve` on the embedded GGUF: requests per second and p50/p95 latency for 1 and 4
concurrent clients (the official `openai` client, loopback).

Run by hand (never as a test), on a quiet machine:
    .venv/bin/python -m bench.server_latency                       # 16 requests per client count
    .venv/bin/python -m bench.server_latency --model exports/x.gguf --requests 32 --max-tokens 48

The server runs in this process on a free port (constrained tool calls on, as `nanoagent serve` defaults); each
request is one BFCL simple_python prompt of a seeded sample with its tools, greedy, `--max-tokens` at most.
The server decodes one request at a time, so 4 clients mostly queue: their p50 shows the wait, their
requests/s how well the server keeps the model busy (the peer is 1 client in the same run).
Written to bench/results/server_latency.json with the machine's details.
Left out: streaming time-to-first-token, other models than one GGUF.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import nanoagent  # noqa: F401  (OpenBLAS before mlx)
from bench.machine import write_result
from nanoagent.suites import load_suite
from nanoagent.agent.backends import load_backend
from nanoagent.server import serve


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def main(argv=None) -> None:
    import openai

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="embedded-gguf")
    p.add_argument("--requests", type=int, default=16, help="requests per client-count setting")
    p.add_argument("--max-tokens", type=int, default=48)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--out-name", default="server_latency")
    args = p.parse_args(argv)
    items, _ = load_suite("simple_python", limit=args.requests, sample="random", seed=0)
    backend = load_backend(args.model, constrain=True, **({"n_threads": args.threads} if args.threads else {}))
    found = {}
    httpd = serve(backend, "model", port=0, ready=lambda u: found.setdefault("url", u))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    client = openai.OpenAI(base_url=found["url"], api_key="unused", max_retries=0, timeout=600)

    def one(it) -> float:
        t = time.perf_counter()
        client.chat.completions.create(model="model", messages=it.messages, tools=it.tools,
                                       max_tokens=args.max_tokens, temperature=0)
        return time.perf_counter() - t

    one(items[0])  # warm-up
    results = {}
    for clients in (1, 4):
        t = time.perf_counter()
        with ThreadPoolExecutor(clients) as pool:
            latencies = list(pool.map(one, items))
        wall = time.perf_counter() - t
        results[f"{clients}_clients"] = {
            "requests": len(items), "wall_seconds": round(wall, 2), "requests_per_s": round(len(items) / wall, 3),
            "p50_s": round(statistics.median(latencies), 3), "p95_s": round(percentile(latencies, 0.95), 3)}
        print(clients, results[f"{clients}_clients"], flush=True)
    results["ratio_rps_4_over_1"] = round(results["4_clients"]["requests_per_s"] / results["1_clients"]["requests_per_s"], 3)
    httpd.shutdown()
    path = write_result(args.out_name, {"command": "python -m bench.server_latency " + " ".join(sys.argv[1:]),
                                        "settings": vars(args), "results": results})
    print("wrote", path)


if __name__ == "__main__":
    main()
