"""The export stage's configs (one dataclass per command) and their one precedence: defaults < YAML < CLI flags.

    ExportConfig   python -m export.gguf
    HubConfig      python -m export.hub

`resolve(cls, yaml_path, flags)` builds a config from the dataclass defaults, then the YAML file's keys, then the
flags the user actually gave (argparse defaults are SUPPRESS, so "not given" never overrides anything), with
values coerced to the field types by nanoagent/config.py; unknown keys and bad values are an ExportError that names
them. `write_resolved(cfg, path)` saves it beside the outputs.

Left out: dotted overrides of nested settings (the configs are flat).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path

from export.source import ExportError
from nanoagent import config as layered

# Greedy next-token agreement that `export.gguf` requires of each type (llama.cpp on the file vs MLX on the source).
# Q8_0 is below the 0.98: llama.cpp multiplies Q8_0 weights with activations quantized to 8 bits, and on the
# embedded model that alone costs ~3% of positions, all near-ties (measured 0.9716, largest margin 0.45; keeping
# token_embd in F16 only reached 0.9742). F16 measured 0.9991 and F32 1.0. So the Q8_0 bar is 0.965 plus the check
# that catches real bugs: every disagreement must be a near tie (top-2 margin under MAX_DISAGREEMENT_MARGIN).
MIN_AGREEMENT = {"q8_0": 0.965, "f16": 0.995, "f32": 0.998}
MAX_DISAGREEMENT_MARGIN = 1.0  # logits; a wrong tensor, permutation or tokenizer gives margins of several logits
MAX_PPL_DIFF = 0.01  # relative perplexity difference on the held-out text


@dataclass
class ExportConfig:
    model: str = "embedded"  # run folder, MLX/HF model folder, .gguf, Hub id, or "embedded"
    out: str | None = None  # the .gguf to write; default exports/<model name>-<TYPE>.gguf
    type: str = "q8_0"  # q8_0 | f16 | f32
    name: str | None = None  # general.name in the GGUF; default: the model's name
    check: bool = True  # run the parity report (llama.cpp on the file vs MLX on the source) after writing
    tool_tokens: int = 64  # greedy tokens per tool-calling prompt in the parity report
    min_agreement: float | None = None  # default: MIN_AGREEMENT[type]
    max_ppl_diff: float = MAX_PPL_DIFF


@dataclass
class HubConfig:
    model: str = "embedded"  # what to release: run folder, model folder or "embedded"
    repo_id: str | None = None  # USER/NAME on the Hub
    out: str | None = None  # the release folder; default releases/<NAME>
    dry_run: bool = False  # assemble and validate only; never touches the network
    private: bool = False
    token: str | None = None  # default: $HF_TOKEN or the token saved by `hf auth login`
    endpoint: str | None = None  # default: huggingface_hub's (https://huggingface.co or $HF_ENDPOINT)
    license: str = "apache-2.0"
    base_model: str = "HuggingFaceTB/SmolLM2-135M-Instruct"
    datasets: list[str] = field(default_factory=list)  # Hub ids of training data, when there are any
    tags: list[str] = field(default_factory=lambda: ["nanoagent", "tool-calling", "function-calling", "gguf", "mlx",
                                                     "llama", "smollm2"])
    commit_message: str = "nanoagent release"
    check: bool = True  # run the GGUF parity report while building the release (slow for the 135M model)
    evals: list[str] = field(default_factory=list)  # eval result JSON files to ship and tabulate (eval.toolcall's)


def resolve(cls, yaml_path: str | None = None, flags: dict | None = None):
    flags = {k: v for k, v in (flags or {}).items() if k != "config"}
    try:
        return layered.resolve(cls, yaml_path, flags)
    except layered.ConfigError as e:  # the export commands report ExportError
        raise ExportError(str(e)) from None


def write_resolved(cfg, path: str | Path, extra: dict | None = None) -> Path:
    path = Path(path)
    path.write_text(json.dumps({"config": dataclasses.asdict(cfg), **(extra or {})}, indent=2, ensure_ascii=False,
                               default=str) + "\n")
    return path
