"""The export stage's configs (one dataclass per command) and their one precedence: defaults < YAML < CLI flags.

    ExportConfig   python -m export.gguf
    HubConfig      python -m export.hub

Each command reads its config with nanoagent/config.py (`load`: defaults < YAML < the flags actually given); an
unknown key or a bad value is its ConfigError, which names it, and the command exits with code 2 as for any bad
input. Each command saves the resolved config inside its report (`"config"` in FILE.export.json, NAME.hub.json).

Left out: dotted overrides of nested settings (the configs are flat).
"""

from __future__ import annotations

from dataclasses import dataclass, field


# Greedy next-token agreement that `export.gguf` requires of each type (llama.cpp on the file vs MLX on the source).
# Q8_0 is below the 0.98: llama.cpp multiplies Q8_0 weights with activations quantized to 8 bits, and on the
# embedded model that alone costs ~3% of positions, all near-ties (measured 0.9716, largest margin 0.45; keeping
# token_embd in F16 only reached 0.9742). Fine-tuned models sit lower: the 15 committed Q8_0 parity checks of
# trained models (train/results/*/*.export.json, bench/results/export_embedding_parallel_ab_two.json) agree on
# 0.960-0.979 of 1,126 positions (a pipeline-built model 0.9565), every disagreement a near tie (margin <= 0.56).
# A bar of 0.965 failed two of those correct exports, so it is 0.95, and the checks that
# catch real bugs are the margin (every disagreement a near tie: top-2 margin under MAX_DISAGREEMENT_MARGIN) and
# perplexity within MAX_PPL_DIFF. F16 measured 0.9991 and F32 1.0.
MIN_AGREEMENT = {"q8_0": 0.95, "f16": 0.995, "f32": 0.998}
MAX_DISAGREEMENT_MARGIN = 1.0  # logits; a wrong tensor, permutation or tokenizer gives margins of several logits
MAX_PPL_DIFF = 0.01  # relative perplexity difference on the held-out text


@dataclass
class ExportConfig:
    model: str = field(default="embedded", metadata={"help": "run folder, MLX/HF model folder, .gguf, Hub id or "
                                                            "`embedded`"})
    out: str | None = field(default=None, metadata={"help": "the .gguf to write (default: "
                                                            "exports/<model>-<TYPE>.gguf)"})
    type: str = field(default="q8_0", metadata={"help": "q8_0, f16 or f32 (default: q8_0)"})
    embedding_type: str | None = field(default=None, metadata={"help": "type of the token embedding, which a tied "
                                                                       "model also uses as its output layer: q8_0, "
                                                                       "f16 or f32 (default: --type)"})
    name: str | None = field(default=None, metadata={"help": "general.name written into the GGUF (default: the "
                                                             "model's name)"})
    check: bool = field(default=True, metadata={"help": "run the parity report (llama.cpp on the file vs MLX on "
                                                         "the source) after writing (default: on)"})
    tool_tokens: int = field(default=64, metadata={"help": "greedy tokens per tool-calling prompt in the report"})
    min_agreement: float | None = field(default=None, metadata={"help": "required next-token agreement (default: "
                                                                         "by type, MIN_AGREEMENT)"})
    max_ppl_diff: float = field(default=MAX_PPL_DIFF, metadata={"help": "allowed relative perplexity difference"})


@dataclass
class HubConfig:
    model: str = field(default="embedded", metadata={"help": "run folder, MLX/HF model folder or `embedded`"})
    repo_id: str | None = field(default=None, metadata={"help": "USER/NAME on the Hugging Face Hub"})
    out: str | None = field(default=None, metadata={"help": "release folder (default: releases/NAME)"})
    dry_run: bool = field(default=False, metadata={"help": "assemble and validate only; no network"})
    private: bool = field(default=False, metadata={"help": "create the repo as private"})
    token: str | None = field(default=None, metadata={"help": "Hub write token (default: $HF_TOKEN or the saved "
                                                              "login)"})
    endpoint: str | None = field(default=None, metadata={"help": "Hub API endpoint (default: huggingface_hub's)"})
    license: str = field(default="apache-2.0", metadata={"help": "license in the model card's metadata"})
    base_model: str = field(default="HuggingFaceTB/SmolLM2-135M-Instruct",
                            metadata={"help": "Hub id of the base model, in the model card"})
    datasets: list[str] = field(default_factory=list, metadata={"help": "Hub ids of the training data"})
    tags: list[str] = field(default_factory=lambda: ["nanoagent", "tool-calling", "function-calling", "gguf", "mlx",
                                                     "llama", "smollm2"],
                            metadata={"help": "tags in the model card's metadata, comma-separated"})
    commit_message: str = field(default="nanoagent release", metadata={"help": "commit message of the upload"})
    check: bool = field(default=True, metadata={"help": "run the GGUF parity report while building the release "
                                                         "(default: on; slow for the 135M model)"})
    evals: list[str] = field(default_factory=list, metadata={"help": "eval result JSON files (eval.toolcall's) to "
                                                                      "ship in eval/ and tabulate in the card, beside "
                                                                      "those found in the run folder"})
