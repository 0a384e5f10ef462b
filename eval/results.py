"""Eval results as versioned JSON files in one folder (eval/results/ by default), and reading them back.

    path = save_run(run_dict, out_dir="eval/results", name="toolcall_embedded-gguf")
    runs = load_runs("eval/results")     # every *.json in it (recursively) that is an eval result

A run file holds {"format": "nanoagent-eval", "version": 1, "kind": "toolcall" | "coding", "label", "created",
"model": {"spec", "backend", "weights_sha256"}, "settings", "machine", "suites": {name: {"metrics", "dropped",
"items"}}, "throughput"}. `machine` is nanoagent.machine.machine_info() (platform, CPU, cores, python, package
versions). `weights_sha256` names the weights evaluated (nanoagent/weights_digest.py; null for an endpoint): the Hub
release (export.hub) refuses results of another model by it.
Files that are not eval results are reported by `load_runs` as skipped (with the reason), never silently ignored.
A tool-call run whose suites carry `at_threshold` figures (a model with a stored call threshold, run without it:
eval/toolcall.py) comes back as two runs: its own, and `LABEL@thresholdT` with the figures at threshold T (metrics
only: the per-item replies stay in the first, and the derived run has no timings).

Left out: migrating older format versions (there is only version 1).
"""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path

FORMAT = "nanoagent-eval"
VERSION = 1
DEFAULT_DIR = Path(__file__).parent / "results"


def machine() -> dict:
    from nanoagent.machine import machine_info

    info = machine_info()
    try:
        from importlib import metadata

        info["packages"]["nanoagent"] = metadata.version("nanoagent")
    except Exception:  # not installed as a package: the checkout is what ran
        pass
    return info


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def label_for(spec: str) -> str:
    """A file-name-safe label for a model spec: the folder or file name (a GGUF's without `.gguf`), or the URL's
    host."""
    spec = spec.rstrip("/")
    if spec.startswith(("http://", "https://")):
        spec = spec.split("://", 1)[1].split("/", 1)[0]
    else:
        spec = Path(spec).name or spec
        spec = spec[:-len(".gguf")] if spec.lower().endswith(".gguf") and len(spec) > 5 else spec
    return re.sub(r"[^A-Za-z0-9._-]+", "-", spec).strip("-") or "model"


def new_run(kind: str, spec: str, backend_desc: str, settings: dict, label: str | None = None) -> dict:
    from nanoagent.weights_digest import weights_digest

    model = {"spec": spec, "backend": backend_desc, "weights_sha256": weights_digest(spec)}
    return {"format": FORMAT, "version": VERSION, "kind": kind, "label": label or label_for(spec), "created": now(),
            "model": model, "settings": settings, "machine": machine(),
            "suites": {}, "throughput": {}}


def save_run(run: dict, out_dir: str | Path | None = None, name: str | None = None) -> Path:
    out = Path(out_dir or DEFAULT_DIR)
    out.mkdir(parents=True, exist_ok=True)
    stamp = run["created"].replace(":", "").replace("-", "")[:15]
    path = out / f"{name or run['kind'] + '_' + run['label'] + '_' + stamp}.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(run, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def load_runs(folder: str | Path | None = None) -> tuple[list[dict], list[str]]:
    """(runs sorted by creation time, "PATH (why)" for each JSON file that is not a readable eval result)."""
    folder = Path(folder or DEFAULT_DIR)
    if not folder.is_dir():
        raise FileNotFoundError(f"results folder {folder} does not exist: run `python -m eval.toolcall` first")
    runs, skipped = [], []
    for path in sorted(folder.rglob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as e:
            skipped.append(f"{path} (not JSON: {e})")
            continue
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            skipped.append(f"{path} (not a {FORMAT} file)")
            continue
        if data.get("version") != VERSION:
            skipped.append(f"{path} (format version {data.get('version')}, this code reads {VERSION})")
            continue
        data["_path"] = str(path)
        runs.append(data)
        view = threshold_view(data)
        if view is not None:
            runs.append(view)
    runs.sort(key=lambda r: r.get("created", ""))
    return runs, skipped


def threshold_view(run: dict) -> dict | None:
    """The run as its model's stored call threshold would have made it (`LABEL@threshold`), from each suite's
    `at_threshold` metrics; None when no suite has them."""
    views = {name: s["at_threshold"] for name, s in run.get("suites", {}).items()
             if (s.get("at_threshold") or {}).get("metrics")}
    if not views:
        return None
    threshold = next(iter(views.values()))["threshold"]
    suites = {name: {"metrics": v["metrics"], "dropped": run["suites"][name].get("dropped", {}),
                     "declined": v.get("declined", [])} for name, v in views.items()}
    return {**run, "label": f"{run['label']}@threshold{threshold:.3g}", "suites": suites, "throughput": None,
            "settings": {**run.get("settings", {}), "call_threshold": threshold, "derived": "at_threshold"}}
