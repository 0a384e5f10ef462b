"""Assemble and validate a Hub release folder: Q8_0 GGUF, MLX safetensors + config + tokenizer, card, run files.

Layout of `releases/NAME/` (built in a temporary sibling and renamed into place when complete):
    README.md                 model card with YAML front matter (export.card)
    NAME-Q8_0.gguf            written by export.gguf, with NAME-Q8_0.export.json (its parity report)
    config.json, *.safetensors, tokenizer.json, tokenizer_config.json, ...   the MLX model folder's files, with
                              the weights stored as bfloat16 (the GGUF is made from the float32 source)
    training/                 config.yaml, summary.json, validity.json, data_stats.json, metrics.jsonl and loss.png
                              from the run folder (the plot drawn from metrics.jsonl when the run has none)
    eval/                     eval results found in the run folder (eval*.json, eval/**/*.json) and given by --evals,
                              each checked to be of this model (export/evals.py), and bfcl.png, their bar chart
    release.json              every file with its size and sha256, and the weights' digest

The bfloat16 safetensors carry the digest of the weights they were made from in their header, as the GGUF does in
its metadata (nanoagent/weights_digest.py): an eval of any of them is known to be of this model.

`validate(folder)` checks that the files are present, the card's front matter is complete and the GGUF loads
(gguf reader, then llama.cpp when installed), returning a list of problems.

Left out: uploading (export.hub).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import yaml

from export.source import ExportError, Source
from nanoagent.models import sha256_file

MODEL_SKIP = ("nanoagent-manifest.json",)  # cache bookkeeping, not part of the model
TRAINING_FILES = ("config.yaml", "summary.json", "validity.json", "data_stats.json", "metrics.jsonl", "loss.png")
MARKER = "release.json"


def check_out_folder(out: Path) -> Path:
    """The release folder may be new, or an earlier release (it is replaced); anything else is refused."""
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MARKER).is_file())):
        raise ExportError(f"--out {out} exists and is not an earlier release folder (no {MARKER}); choose a new "
                          "folder or remove it")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ExportError(f"--out {out}: cannot create {out.parent} ({e.strerror})") from None
    if not os.access(out.parent, os.W_OK):
        raise ExportError(f"--out {out}: {out.parent} is not writable")
    return out


def to_bfloat16(src: Path, dst: Path, source_weights: str | None = None) -> None:
    """Copy a safetensors file with its float32 tensors stored as bfloat16 (other dtypes as they are), its header
    naming the weights it was made from (nanoagent/weights_digest.py)."""
    import mlx.core as mx

    from nanoagent.weights_digest import KEY

    tensors = mx.load(str(src))
    metadata = {"format": "mlx", **({KEY: source_weights} if source_weights else {})}
    mx.save_safetensors(str(dst), {k: v.astype(mx.bfloat16) if v.dtype == mx.float32 else v
                                   for k, v in tensors.items()}, metadata=metadata)


def read_json_files(paths: list[Path], say) -> dict:
    out = {}
    for p in paths:
        try:
            out[p.name] = json.loads(p.read_text())
        except (OSError, ValueError) as e:
            say(f"note: {p} is not readable JSON ({type(e).__name__}); shipped as a file but left out of the card")
    return out


def copy_model(source: Source, tmp: Path, digest: str | None) -> list[str]:
    """The model folder's files into the release: weights as bfloat16, config.json saying so, the rest as they are."""
    copied = []
    for f in sorted(source.folder.iterdir()):
        if f.is_file() and f.name not in MODEL_SKIP and f.name != "README.md":
            if f.suffix == ".safetensors":
                to_bfloat16(f, tmp / f.name, digest)  # as Hub models of this size ship: half the bytes of float32
            elif f.name == "config.json":
                config = json.loads(f.read_text())
                config["torch_dtype"] = "bfloat16"
                (tmp / f.name).write_text(json.dumps(config, indent=2) + "\n")
            else:
                shutil.copy2(f, tmp / f.name)
            copied.append(f.name)
    return copied


def copy_training(run_dir: Path, tmp: Path, say) -> tuple[dict, dict]:
    """The run's records into training/: ({"config", "summary", "data_stats" parsed, "files"}, figures). The loss
    plot is the run's own, or drawn from its metrics.jsonl when the run made none."""
    from export.figures import loss_figure

    (tmp / "training").mkdir()
    shipped = []
    for fname in TRAINING_FILES:
        if (run_dir / fname).is_file():
            shutil.copy2(run_dir / fname, tmp / "training" / fname)
            shipped.append(fname)
    training = {"files": shipped}
    for key, fname in (("summary", "summary.json"), ("data_stats", "data_stats.json")):
        if fname in shipped:
            training[key] = read_json_files([run_dir / fname], say).get(fname)
    if "config.yaml" in shipped:
        try:
            training["config"] = yaml.safe_load((run_dir / "config.yaml").read_text())
        except yaml.YAMLError:
            say(f"note: {run_dir / 'config.yaml'} is not readable YAML; shipped, left out of the card's summary")
    figures = {}
    if "loss.png" in shipped or loss_figure(run_dir / "metrics.jsonl", tmp / "training" / "loss.png"):
        figures["loss"] = "training/loss.png"
        training["files"] = list(dict.fromkeys(shipped + ["loss.png"]))
    return training, figures


def copy_evals(evals: dict, run_dir: Path | None, tmp: Path) -> dict:
    """The eval files into eval/ (the run folder's eval/ tree kept); {name under eval/: parsed JSON}."""
    shipped = {}
    if evals:
        (tmp / "eval").mkdir()
    for path, data in evals.items():
        inside = run_dir is not None and path.is_relative_to(run_dir / "eval")
        rel = path.relative_to(run_dir / "eval") if inside else Path(path.name)
        (tmp / "eval" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, tmp / "eval" / rel)
        shipped[rel.as_posix()] = data
    return shipped


def assemble(cfg, source: Source, out: Path, export_gguf, say=print, evals: dict | None = None,
             digest: str | None = None) -> dict:
    """Build the release folder; `export_gguf(path)` writes the GGUF there and returns its export record.
    `evals` ({path: parsed JSON}, checked to be of this model by export.evals) and `digest` (the model's weights
    digest) are worked out here when not given."""
    from export.card import card_columns, model_card
    from export.evals import checked_evals, eval_paths
    from export.figures import bfcl_figure
    from nanoagent.weights_digest import folder_digest

    digest = digest or folder_digest(source.folder)
    evals = checked_evals(eval_paths(cfg, source), source, digest, say) if evals is None else evals
    name = cfg.repo_id.split("/")[-1]
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        gguf_name = f"{name}-Q8_0.gguf"
        record = export_gguf(tmp / gguf_name)
        report = tmp / f"{Path(gguf_name).stem}.export.json"
        if report.is_file():  # it names the temporary folder; name the release folder instead
            report.write_text(report.read_text().replace(str(tmp), str(out)))
        copied = copy_model(source, tmp, digest)
        training, figures = copy_training(source.run_dir, tmp, say) if source.run_dir else ({}, {})
        if not source.run_dir:
            say("no run folder: the release has no training records (the model is not a fine-tune)")
        shipped = copy_evals(evals, source.run_dir, tmp)
        if bfcl_figure(card_columns(shipped, cfg.repo_id), tmp / "eval" / "bfcl.png"):
            figures["bfcl"] = "eval/bfcl.png"
        say(f"release: {len(training.get('files', []))} training files, {len(shipped)} eval result files, "
            f"figures: {', '.join(figures.values()) or 'none'}")
        card = model_card(cfg, source, gguf_name, training, shipped, record.get("parity"), figures)
        (tmp / "README.md").write_text(card)
        files = {str(p.relative_to(tmp)): {"bytes": p.stat().st_size, "sha256": sha256_file(p)}
                 for p in sorted(tmp.rglob("*")) if p.is_file()}
        manifest = {"repo_id": cfg.repo_id, "source": str(source.folder), "weights_sha256": digest,
                    "gguf": gguf_name, "model_files": copied, "files": files}
        (tmp / MARKER).write_text(json.dumps(manifest, indent=2) + "\n")
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o777 & ~mask)  # mkdtemp makes 0700
        if out.exists():
            shutil.rmtree(out)
        os.replace(tmp, out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return manifest


REQUIRED_MODEL_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json")


def validate(folder: Path, load_with_llama_cpp: bool = True) -> list[str]:
    """Problems with a release folder (empty when it is complete)."""
    from export.card import missing_keys, read_front_matter

    problems = []
    try:
        manifest = json.loads((folder / MARKER).read_text())
    except (OSError, ValueError):
        return [f"{folder / MARKER} is missing or unreadable: not a release folder"]
    for f in ("README.md", manifest.get("gguf", "?"), *REQUIRED_MODEL_FILES):
        if not (folder / f).is_file():
            problems.append(f"missing file {f}")
    if not list(folder.glob("*.safetensors")):
        problems.append("missing the MLX weights (*.safetensors)")
    for rel, info in manifest.get("files", {}).items():
        p = folder / rel
        if not p.is_file() or p.stat().st_size != info["bytes"]:
            problems.append(f"{rel} is missing or changed since the release was assembled")
    if (folder / "README.md").is_file():
        missing = missing_keys(read_front_matter((folder / "README.md").read_text()))
        if missing:
            problems.append(f"model card front matter lacks {', '.join(missing)}")
    gguf_path = folder / manifest.get("gguf", "?")
    if gguf_path.is_file():
        problems += _gguf_problems(gguf_path, load_with_llama_cpp)
    return problems


def _gguf_problems(path: Path, load_with_llama_cpp: bool) -> list[str]:
    from nanoagent.gguf_import import GGUFImportError, open_gguf, read_metadata

    try:
        reader = open_gguf(path)
    except GGUFImportError as e:
        return [str(e)]
    meta = read_metadata(reader)
    problems = [f"GGUF lacks {k}" for k in ("general.architecture", "tokenizer.ggml.tokens", "tokenizer.chat_template")
                if k not in meta]
    if load_with_llama_cpp and not problems:
        try:
            from llama_cpp import Llama
        except ImportError:
            return problems
        try:
            Llama(model_path=str(path), n_ctx=256, verbose=False).close()
        except Exception as e:  # llama.cpp reports load failures as ValueError / RuntimeError without detail
            problems.append(f"llama.cpp cannot load {path.name} ({type(e).__name__}: {e})")
    return problems
