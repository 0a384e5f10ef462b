"""What an export reads: a model spec (run folder, model folder, `embedded`, .gguf, Hub id) checked and resolved.

`resolve_source(spec)` finds the MLX / Hugging Face folder and, for a trainer run folder (`RUN/model/` beside
`RUN/config.yaml`), the run folder too, and checks cheaply, before any weight is read, that the folder is a
llama-architecture model the GGUF writer supports. `load_source(source)` then loads it with
`nanoagent.models.load` (exactly what mlx_lm.load does) and returns float32 numpy weights under Hugging Face names.

Usage:
    src = resolve_source("runs/dft-1")            # or "embedded", "path/to/model", "file.gguf"
    model, tokenizer, weights = load_source(src)

Left out: architectures other than llama (SmolLM2 is one), rope scaling, attention/MLP biases, and unfused LoRA
adapter folders (fuse them first; the trainer's final `model/` folder is already fused).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import nanoagent  # noqa: F401  (OpenBLAS before mlx)
from nanoagent.gguf_vocab import ExportError  # bad input for an export; the writer raises it too


@dataclass
class Source:
    spec: str
    folder: Path  # the HF / MLX model folder
    config: dict  # its config.json
    run_dir: Path | None = None  # the training run folder, when the model came out of one

    @property
    def name(self) -> str:
        if self.spec == "embedded":
            return "SmolLM2-135M-Instruct"
        base = self.run_dir or self.folder
        return base.name if base.name not in ("model", "") else base.parent.name


RUN_FILES = ("config.yaml", "summary.json", "metrics.jsonl")


def _run_dir_of(folder: Path) -> Path | None:
    parent = folder.parent
    return parent if folder.name == "model" and any((parent / f).is_file() for f in RUN_FILES) else None


def resolve_source(spec: str | Path) -> Source:
    """The model folder for a spec, checked for a supported architecture; ExportError otherwise."""
    from nanoagent.models import ModelLoadError, classify, resolve_model_path

    spec = str(spec)
    try:
        found = classify(spec)
        folder = resolve_model_path(spec)
    except ModelLoadError as e:
        raise ExportError(str(e)) from None
    run_dir = found.run_dir or _run_dir_of(folder)
    try:
        config = json.loads((folder / "config.json").read_text())
    except (OSError, ValueError) as e:
        raise ExportError(f"{folder / 'config.json'} is not readable JSON ({e}); the model folder is damaged") from None
    check_config(config, folder)
    if not any(folder.glob("*.safetensors")):
        raise ExportError(f"{folder} has a config.json but no *.safetensors weights; it is not a complete model")
    return Source(spec=spec, folder=folder, config=config, run_dir=run_dir)


def check_config(cfg: dict, where: Path | str) -> None:
    """Refuse what the writer can't express, before any work."""
    arch = cfg.get("model_type")
    if arch != "llama":
        raise ExportError(f"{where}: model_type {arch!r} is not supported; the GGUF export writes llama-architecture "
                          "models (SmolLM2 and its fine-tunes). Export other architectures with llama.cpp's "
                          "convert_hf_to_gguf.py.")
    if cfg.get("rope_scaling"):
        raise ExportError(f"{where}: rope_scaling {cfg['rope_scaling']!r} is not supported by this exporter")
    for key in ("attention_bias", "mlp_bias"):
        if cfg.get(key):
            raise ExportError(f"{where}: {key}=true is not supported by this exporter (SmolLM2 has no biases)")
    for key in ("hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "vocab_size"):
        if not isinstance(cfg.get(key), int) or cfg[key] <= 0:
            raise ExportError(f"{where}: config.json lacks a positive integer {key!r}; the model folder is incomplete")


def load_source(source: Source):
    """(mlx-lm model, tokenizer wrapper, {hf_name: float32 numpy array}) for a resolved source."""
    from nanoagent.gguf_writer import model_weights
    from nanoagent.models import ModelLoadError, load

    try:
        model, tokenizer = load(str(source.folder))
    except ModelLoadError as e:
        raise ExportError(str(e)) from None
    if source.config.get("quantization") or source.config.get("quantization_config"):
        from mlx_lm.utils import dequantize_model

        model = dequantize_model(model)
    return model, tokenizer, model_weights(model)
