"""Assemble and validate a Hub release folder: Q8_0 GGUF, MLX safetensors + config + tokenizer, card, run files.

Layout of `releases/NAME/` (built in a temporary sibling and renamed into place when complete):
    README.md                 model card with YAML front matter (export.card)
    NAME-Q8_0.gguf            written by export.gguf, with NAME-Q8_0.export.json (its parity report)
    config.json, *.safetensors, tokenizer.json, tokenizer_config.json, ...   the MLX model folder's files, with
                              the weights stored as bfloat16 (the GGUF is made from the float32 source)
    training/                 config.yaml, summary.json, validity.json, data_stats.json ... from the run folder
    eval/                     eval results found in the run folder (eval*.json, eval/**/*.json) and given by --evals
    release.json              every file with its size and sha256

`validate(folder)` checks that the files are present, the card's front matter is complete and the GGUF loads
(gguf reader, then llama.cpp when installed), returning a list of problems.

Left out: uploading (export.hub) and model-index eval metadata.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

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


def to_bfloat16(src: Path, dst: Path) -> None:
    """Copy a safetensors file with its float32 tensors stored as bfloat16 (other dtypes as they are)."""
    import mlx.core as mx

    tensors = mx.load(str(src))
    mx.save_safetensors(str(dst), {k: v.astype(mx.bfloat16) if v.dtype == mx.float32 else v
                                   for k, v in tensors.items()}, metadata={"format": "mlx"})


def eval_files(run_dir: Path) -> list[Path]:
    found = sorted(run_dir.glob("eval*.json")) + sorted((run_dir / "eval").rglob("*.json"))
    return [p for p in found if p.is_file()]


def read_json_files(paths: list[Path], say) -> dict:
    out = {}
    for p in paths:
        try:
            out[p.name] = json.loads(p.read_text())
        except (OSError, ValueError) as e:
            say(f"note: {p} is not readable JSON ({type(e).__name__}); shipped as a file but left out of the card")
    return out


def assemble(cfg, source: Source, out: Path, export_gguf, say=print) -> dict:
    """Build the release folder; `export_gguf(path)` writes the GGUF there and returns its export record."""
    from export.card import model_card

    name = cfg.repo_id.split("/")[-1]
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        gguf_name = f"{name}-Q8_0.gguf"
        record = export_gguf(tmp / gguf_name)
        report = tmp / f"{Path(gguf_name).stem}.export.json"
        if report.is_file():  # it names the temporary folder; name the release folder instead
            report.write_text(report.read_text().replace(str(tmp), str(out)))
        copied = []
        for f in sorted(source.folder.iterdir()):
            if f.is_file() and f.name not in MODEL_SKIP and f.name != "README.md":
                if f.suffix == ".safetensors":
                    to_bfloat16(f, tmp / f.name)  # as Hub models of this size ship: half the bytes of float32
                elif f.name == "config.json":
                    config = json.loads(f.read_text())
                    config["torch_dtype"] = "bfloat16"
                    (tmp / f.name).write_text(json.dumps(config, indent=2) + "\n")
                else:
                    shutil.copy2(f, tmp / f.name)
                copied.append(f.name)
        training, evals = {}, {}
        if source.run_dir:
            (tmp / "training").mkdir()
            for fname in TRAINING_FILES:
                src = source.run_dir / fname
                if src.is_file():
                    shutil.copy2(src, tmp / "training" / fname)
                    if fname == "config.yaml":
                        training[fname] = src.read_text()
            training.update(read_json_files([source.run_dir / f for f in ("summary.json", "validity.json",
                                                                          "data_stats.json")
                                             if (source.run_dir / f).is_file()], say))
            training["loss.png"] = (source.run_dir / "loss.png").is_file()
            found = eval_files(source.run_dir) + [Path(p) for p in cfg.evals]
            if found:
                (tmp / "eval").mkdir()
                for p in found:
                    rel = (p.relative_to(source.run_dir / "eval") if p.is_relative_to(source.run_dir / "eval")
                           else p.name)
                    (tmp / "eval" / rel).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(p, tmp / "eval" / rel)
                evals = read_json_files(found, say)
            say(f"run folder {source.run_dir}: {len(training)} training files, {len(found)} eval result files")
        else:
            say("no run folder: the release has no training config or eval results (the model is not a fine-tune)")
        card = model_card(cfg, source, gguf_name, training, evals, record.get("parity"))
        (tmp / "README.md").write_text(card)
        files = {str(p.relative_to(tmp)): {"bytes": p.stat().st_size, "sha256": sha256_file(p)}
                 for p in sorted(tmp.rglob("*")) if p.is_file()}
        manifest = {"repo_id": cfg.repo_id, "source": str(source.folder), "gguf": gguf_name,
                    "model_files": copied, "files": files}
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
