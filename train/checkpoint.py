"""Checkpoints that a killed run resumes from exactly: trainable weights, optimizer state, step, and a fingerprint.

    save_checkpoint(run_dir, model, optimizer, {"step": 120, ...}, fingerprint)
    state = load_checkpoint(run_dir, model, optimizer, fingerprint)   # None when the folder has none

A checkpoint is `run_dir/checkpoints/step_0000120/` with `trainable.safetensors` (LoRA adapters, or every weight
in full fine-tuning), `optimizer.safetensors` (AdamW moments, its step counter and so the schedule) and
`state.json` (step, tokens seen, the fingerprint), and last `manifest.json` (size and SHA-256 of each file). It is
written to a temporary folder and renamed into place, so a kill mid-save leaves the previous checkpoint intact;
a checkpoint damaged afterwards (truncated, overwritten) fails its manifest check, and resume falls back to the
previous good one, saying so, or stops with a message naming the folder (`verify`, `usable_checkpoint`). The data order needs no state: batches are a pure function
of (seed, batch number), so the trainer restarts the stream at `step * grad_accum`.

The fingerprint (model config, trainable parameter names and shapes, method) must match on resume; a checkpoint
from another model or another method is refused with a message saying which part differs.
The best weights by validation cross-entropy are kept apart in `run_dir/best/` (`save_best`, `load_best`), so the
run's final model is the best one it saw, not the last one, and a resumed run still knows the best so far.
Left out: checkpoints across different numbers of data-parallel processes with packing (padding is fine).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

import mlx.core as mx
from mlx.utils import tree_flatten, tree_unflatten

from nanoagent.models import sha256_file

PREFIX = "step_"


class CheckpointError(RuntimeError):
    pass


def fingerprint(model, method: dict) -> dict:
    """What a checkpoint must agree on with the model it is loaded into."""
    args = getattr(model, "args", None)
    model_cfg = {k: v for k, v in sorted(vars(args).items()) if isinstance(v, (int, float, str, bool))} if args else {}
    shapes = {k: list(v.shape) for k, v in tree_flatten(model.trainable_parameters())}
    digest = hashlib.sha256(json.dumps(shapes, sort_keys=True).encode()).hexdigest()[:16]
    return {"model_config": model_cfg, "trainable": digest, "n_trainable_tensors": len(shapes), "method": method,
            "base_weights": base_checksum(model)}


def base_checksum(model) -> str:
    """A cheap signature of the starting weights (first rows of the first few tensors), so a checkpoint made on
    another base model of the same shape (another fine-tune, other random init) is refused too."""
    params = sorted((k, v) for k, v in tree_flatten(model.parameters()) if ".lora_" not in k)[:4]
    total = sum(float(mx.abs(v.reshape(-1)[:4096].astype(mx.float32)).sum()) for _, v in params)
    return f"{total:.6e}"


def checkpoints(run_dir: str | Path) -> list[Path]:
    folder = Path(run_dir) / "checkpoints"
    if not folder.is_dir():
        return []
    found = [p for p in folder.iterdir() if p.name.startswith(PREFIX) and (p / "state.json").is_file()]
    return sorted(found, key=lambda p: int(p.name[len(PREFIX):]))


def save_checkpoint(run_dir, model, optimizer, state: dict, fp: dict, keep: int = 2) -> Path:
    folder = Path(run_dir) / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / f"{PREFIX}{state['step']:07d}"
    tmp = folder / f".tmp_{final.name}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    mx.save_safetensors(str(tmp / "trainable.safetensors"), dict(tree_flatten(model.trainable_parameters())))
    mx.save_safetensors(str(tmp / "optimizer.safetensors"), dict(tree_flatten(optimizer.state)))
    (tmp / "state.json").write_text(json.dumps({**state, "fingerprint": fp}, indent=2))
    write_manifest(tmp)
    shutil.rmtree(final, ignore_errors=True)
    os.replace(tmp, final)
    for old in checkpoints(run_dir)[:-keep] if keep > 0 else []:
        shutil.rmtree(old, ignore_errors=True)
    return final


FILES = ("trainable.safetensors", "optimizer.safetensors", "state.json")


def write_manifest(folder: Path) -> None:
    files = {name: {"bytes": (folder / name).stat().st_size, "sha256": sha256_file(folder / name)} for name in FILES}
    (folder / "manifest.json").write_text(json.dumps({"files": files}, indent=2))


def verify(path: Path) -> str | None:
    """None when the checkpoint at `path` is whole; otherwise what is wrong with it, in a few words."""
    path = Path(path)
    missing = [n for n in FILES if not (path / n).is_file()]
    if missing:
        return f"missing {', '.join(missing)}"
    manifest = path / "manifest.json"
    if not manifest.is_file():  # written before manifests existed: check that the files read
        try:
            json.loads((path / "state.json").read_text())
            mx.load(str(path / "trainable.safetensors"))
            mx.load(str(path / "optimizer.safetensors"))
        except Exception as e:  # noqa: BLE001  (any read failure means damaged)
            return f"unreadable ({type(e).__name__}: {str(e)[:120]})"
        return None
    try:
        files = json.loads(manifest.read_text())["files"]
    except (json.JSONDecodeError, KeyError, TypeError):
        return "manifest.json is damaged"
    for name, want in files.items():
        size = (path / name).stat().st_size
        if size != want["bytes"]:
            return f"{name} has {size} bytes, the manifest says {want['bytes']}"
        if sha256_file(path / name) != want["sha256"]:
            return f"{name} does not match its checksum"
    return None


def usable_checkpoint(run_dir, say=lambda msg: print(msg, file=sys.stderr)) -> Path | None:
    """The newest checkpoint of `run_dir` that verifies (None when the run has none). Damaged newer ones are
    reported through `say`; when every checkpoint is damaged, CheckpointError names them and the ways out."""
    found = checkpoints(run_dir)
    damaged = []
    for path in reversed(found):
        problem = verify(path)
        if problem is None:
            if damaged:
                say(f"warning: checkpoint {damaged[0][0]} is damaged ({damaged[0][1]}); resuming from {path.name}")
            return path
        damaged.append((path.name, problem))
    if damaged:
        listed = "; ".join(f"{n}: {p}" for n, p in damaged)
        raise CheckpointError(f"every checkpoint in {Path(run_dir) / 'checkpoints'} is damaged ({listed}). "
                              "Start the run over with --no-resume (or another --run-dir).")
    return None


def _diff(saved: dict, current: dict) -> str:
    parts = []
    for key in ("method", "trainable", "n_trainable_tensors", "base_weights"):
        if saved.get(key) != current.get(key):
            parts.append(f"{key}: checkpoint {saved.get(key)!r} vs now {current.get(key)!r}")
    a, b = saved.get("model_config", {}), current.get("model_config", {})
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            parts.append(f"model {k}: checkpoint {a.get(k)!r} vs now {b.get(k)!r}")
    return "; ".join(parts[:6])


def load_checkpoint(run_dir, model, optimizer, fp: dict) -> dict | None:
    """Restore the newest whole checkpoint in `run_dir` into model and optimizer; returns its state dict or None."""
    path = usable_checkpoint(run_dir)
    if path is None:
        return None
    state = json.loads((path / "state.json").read_text())
    saved_fp = state.pop("fingerprint", {})
    if saved_fp != json.loads(json.dumps(fp)):
        raise CheckpointError(f"{path} was made for a different model or method ({_diff(saved_fp, fp)}). "
                              "Use another --run-dir, or --no-resume to start over in this one.")
    weights = mx.load(str(path / "trainable.safetensors"))
    current = dict(tree_flatten(model.trainable_parameters()))
    if set(weights) != set(current):
        raise CheckpointError(f"{path}: trainable weights do not match the model's "
                              f"({len(set(weights) ^ set(current))} names differ)")
    model.load_weights(list(weights.items()), strict=False)
    opt = mx.load(str(path / "optimizer.safetensors"))
    optimizer.state = tree_unflatten(list(opt.items()))
    mx.eval(model.parameters(), optimizer.state)
    state["path"] = str(path)
    return state


BEST = "best"


def best_state(run_dir) -> dict | None:
    """`{"step", "val_ce", ...}` of the best weights saved in `run_dir/best/`, or None."""
    path = Path(run_dir) / BEST / "state.json"
    return json.loads(path.read_text()) if path.is_file() else None


def save_best(run_dir, model, state: dict) -> Path:
    """Write the trainable weights and `state` (step, val_ce) to `run_dir/best/`, atomically."""
    final = Path(run_dir) / BEST
    tmp = Path(run_dir) / f".tmp_{BEST}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    mx.save_safetensors(str(tmp / "trainable.safetensors"), dict(tree_flatten(model.trainable_parameters())))
    (tmp / "state.json").write_text(json.dumps(state, indent=2))
    shutil.rmtree(final, ignore_errors=True)
    os.replace(tmp, final)
    return final


def load_best(run_dir, model) -> dict | None:
    """Load the best trainable weights of `run_dir` into `model`; returns their state, or None if there are none."""
    state = best_state(run_dir)
    if state is None:
        return None
    weights = mx.load(str(Path(run_dir) / BEST / "trainable.safetensors"))
    current = dict(tree_flatten(model.trainable_parameters()))
    if set(weights) != set(current):
        raise CheckpointError(f"{Path(run_dir) / BEST}: trainable weights do not match the model's "
                              f"({len(set(weights) ^ set(current))} names differ)")
    model.load_weights(list(weights.items()), strict=False)
    mx.eval(model.parameters())
    return state
