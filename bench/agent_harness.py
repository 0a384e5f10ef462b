"""Benchmark: the agent harness's own cost per step (sandbox, tool run, bookkeeping) with a scripted model.

    .venv/bin/python bench/agent_harness.py [--steps 40] [--repeats 15] [--out bench/results/agent_harness.json]

Measures, in one run on examples/sample_repo:
- workspace setup (copy twice + cgroup + bubblewrap probe) and teardown, median ms;
- per loop step with a scripted model (model time ~0): total, tool and harness (parse, bookkeeping, diff, atomic
  trajectory save) median ms, over a mix of `cat`, `ls`, `python -c pass` and apply_patch steps;
- the peer: the same shell commands through a bare `subprocess.run(["bash", "-c", cmd])`, and through the
  sandbox without bubblewrap, so the ratios say what the sandbox costs.
Writes JSON with the machine's details (platform, CPU, cores, load average, python, package versions).

Left out: the model's time per step (bench/generation.py measures the backends; divide its seconds per step by
this harness median for the share of a step the harness takes). Never run as a test.
"""

from __future__ import annotations

import nanoagent  # noqa: F401

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from nanoagent.agent.backend import ScriptedBackend
from nanoagent.agent.loop import AgentConfig, run_agent
from nanoagent.agent.sandbox import Workspace
from nanoagent.toolcall import format_tool_call
from nanoagent.atomic import write_json  # noqa: E402
from nanoagent.machine import machine_info  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "sample_repo"
COMMANDS = ["cat calc.py", "ls -la", "python -c pass"]


def machine() -> dict:
    bwrap = shutil.which("bwrap")
    bwrap_version = subprocess.run([bwrap, "--version"], capture_output=True, text=True).stdout.strip() if bwrap else None
    return {**machine_info(), "bubblewrap": bwrap_version, "euid": os.geteuid(),
            "load_average_start": os.getloadavg()}


def ms(values):
    return round(statistics.median(values) * 1000, 3)


def script(steps: int) -> list[str]:
    replies = []
    for i in range(steps):
        if i % 4 == 3:
            old, new = ("return a - b", "return a + b") if (i // 4) % 2 == 0 else ("return a + b", "return a - b")
            replies.append(format_tool_call("apply_patch", {"file": "calc.py", "search": old, "replace": new}))
        else:
            replies.append(format_tool_call("shell", {"cmd": COMMANDS[i % 4]}))
    return replies + ["done"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "agent_harness.json"))
    args = ap.parse_args(argv)
    info = machine()

    setup = []
    for _ in range(args.repeats):
        t = time.perf_counter()
        Workspace(SAMPLE).close()
        setup.append(time.perf_counter() - t)

    ws = Workspace(SAMPLE)
    protections = ws.protections()
    traj = run_agent(ScriptedBackend(script(args.steps)), ws, "benchmark", AgentConfig(max_turns=args.steps + 2))
    ws.close()
    steps = traj.steps[:-1]
    shell_steps = [s for s in steps if s.tool_calls[0]["function"]["name"] == "shell"]
    patch_steps = [s for s in steps if s.tool_calls[0]["function"]["name"] == "apply_patch"]

    bare, no_bwrap, sandboxed = {}, {}, {}
    plain = Workspace(SAMPLE, use_bwrap=False)
    full = Workspace(SAMPLE)
    for cmd in COMMANDS:
        b, n, f = [], [], []
        for _ in range(args.repeats):
            t = time.perf_counter()
            subprocess.run(["bash", "-c", cmd], cwd=plain.root, env=plain._env(), capture_output=True)
            b.append(time.perf_counter() - t)
            t = time.perf_counter()
            plain.run(cmd)
            n.append(time.perf_counter() - t)
            t = time.perf_counter()
            full.run(cmd)
            f.append(time.perf_counter() - t)
        bare[cmd], no_bwrap[cmd], sandboxed[cmd] = ms(b), ms(n), ms(f)
    plain.close()
    full.close()

    result = {
        "benchmark": "agent harness overhead per step (scripted model)",
        "command": "python bench/agent_harness.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "machine": {**info, "load_average_end": os.getloadavg()},
        "sandbox": protections,
        "workspace_setup_and_close_ms_median": ms(setup),
        "steps": len(steps),
        "step_total_ms_median": ms([s.timings["total_s"] for s in steps]),
        "step_harness_ms_median": ms([s.timings["harness_s"] for s in steps]),
        "shell_step_total_ms_median": ms([s.timings["total_s"] for s in shell_steps]),
        "shell_step_tool_ms_median": ms([s.timings["tools_s"] for s in shell_steps]),
        "apply_patch_step_total_ms_median": ms([s.timings["total_s"] for s in patch_steps]),
        "command_ms_median": {"bare_subprocess": bare, "sandbox_without_bwrap": no_bwrap, "sandbox_full": sandboxed},
        "ratio_sandbox_full_over_bare": {c: round(sandboxed[c] / bare[c], 2) for c in COMMANDS},
        "ratio_sandbox_without_bwrap_over_bare": {c: round(no_bwrap[c] / bare[c], 2) for c in COMMANDS},
        "exit_status": traj.exit_status,
    }
    write_json(args.out, result)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
