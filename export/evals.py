"""The eval results a release ships: found, checked to be of the released model, and named for it.

    paths = eval_paths(cfg, source)                     # the run folder's eval*.json and eval/**.json, then --evals
    evals = checked_evals(paths, source, digest, say)   # {path: parsed JSON}; ExportError for another model's
    columns = labelled_runs(toolcall_runs(evals), "tiny-agent")   # one column per model and decoding mode

An eval result (eval/results.py) records the digest of the weights it scored (`model.weights_sha256`,
nanoagent/weights_digest.py). A result whose digest is not the released model's is refused with both models named,
whether it was given with --evals or found in the run folder: a card must not show another model's figures as this
one's. A result without a digest (made before digests were recorded, or of an endpoint) can't be checked: it is
shipped with a note saying so. A file that is not an eval result is shipped as it is.

Column labels are short and say which model and how it was decoded ("tiny-agent, Q8_0 GGUF", "tiny-agent, MLX,
constrained"), never the machine's paths; runs of one model and mode over different suites become one column.

Left out: results of the base model beside the fine-tune's (the card shows published anchors instead).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from export.source import ExportError, Source

QUANT = re.compile(r"\b(Q8_0|Q4_[01K]\w*|Q[2-6]_K\w*|F16|BF16|F32)\b", re.IGNORECASE)


def eval_paths(cfg, source: Source) -> list[tuple[Path, bool]]:
    """(path, given with --evals) for each eval file: the run folder's own, then those given."""
    found = []
    if source.run_dir:
        run = source.run_dir
        found = sorted(run.glob("eval*.json")) + sorted((run / "eval").rglob("*.json"))
    return [(p, False) for p in found if p.is_file()] + [(Path(p), True) for p in cfg.evals]


def _read(path: Path, say):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as e:
        say(f"note: {path} is not readable JSON ({type(e).__name__}); shipped as a file but left out of the card")
        return None


def checked_evals(paths: list[tuple[Path, bool]], source: Source, digest: str | None, say=print) -> dict:
    """{path: parsed JSON or None} for the files to ship; ExportError when one is of another model."""
    out = {}
    for path, given in paths:
        if given and not path.is_file():
            raise ExportError(f"--evals {path}: no such file")
        data = out[path] = _read(path, say)
        model = data.get("model") if isinstance(data, dict) else None
        if not isinstance(model, dict):
            continue
        theirs = model.get("weights_sha256")
        if not theirs or not digest:
            say(f"note: {path} records no weights digest (made before digests were recorded, or of an endpoint): "
                "it can't be checked to be of the released model")
        elif theirs != digest:
            where = "--evals" if given else "the run folder's"
            raise ExportError(
                f"{where} {path} holds results of model {model.get('spec')!r} (weights {theirs[:12]}), not of the "
                f"model being released, {source.folder} (weights {digest[:12]}). Evaluate this model (python -m "
                f"eval.toolcall --model {source.spec}) or leave that file out")
    return out


def toolcall_runs(evals: dict) -> list[dict]:
    """The eval.toolcall results among `evals` (name -> parsed JSON)."""
    return [r for r in evals.values() if isinstance(r, dict) and r.get("kind") == "toolcall" and r.get("suites")]


def mode_label(run: dict) -> str:
    """How a run decoded: the backend kind (with a GGUF's quantization) and the decoding rules it applied."""
    backend = str((run.get("model") or {}).get("backend") or "")
    settings = run.get("settings") or {}
    if backend.startswith("llama-cpp"):
        quant = QUANT.search(backend)
        parts = [f"{quant.group(1).upper()} GGUF" if quant else "GGUF"]
    elif backend.startswith("MLX"):
        parts = ["MLX"]
    elif backend.startswith("OpenAI"):
        parts = ["served"]
    else:
        parts = []
    if settings.get("constrain"):
        parts.append("constrained")
    if settings.get("call_threshold") is not None:
        parts.append(f"call threshold {settings['call_threshold']:g}")
    if settings.get("stop_repeats"):
        parts.append("stops at a repeated call")
    return ", ".join(parts)


def labelled_runs(runs: list[dict], model_name: str) -> list[dict]:
    """The runs as the card's columns: labelled "MODEL, MODE"; runs with one label and no suite in common merged."""
    columns: list[dict] = []
    by_label: dict[str, list[dict]] = {}
    for run in runs:
        mode = mode_label(run)
        label = f"{model_name}, {mode}" if mode else model_name
        same = by_label.setdefault(label, [])
        free = next((c for c in same if not set(c["suites"]) & set(run["suites"])), None)
        if free is not None:
            free["suites"] = {**free["suites"], **run["suites"]}
            continue
        column = {**run, "label": f"{label} ({len(same) + 1})" if same else label}
        same.append(column)
        columns.append(column)
    return columns
