"""The Hub model card (README.md) of a release: YAML front matter the Hub reads, then what the model is and how to run it.

`front_matter(cfg, source)` gives the metadata (license, base_model, base_model_relation, datasets, tags,
pipeline_tag, library_name); `model_card(...)` renders the whole card with the training config and eval results
found in the run folder, the GGUF parity figures, and usage for llama.cpp, MLX and the nanoagent laptop agent.
`read_front_matter(text)` parses a card back and `missing_keys(meta)` says what a card lacks.

Usage:
    text = model_card(cfg, source, gguf_name="x-Q8_0.gguf", training={...}, evals={...}, parity={...})

Left out: the Hub's model-index eval schema (results are shown as a table and shipped as JSON files instead).
"""

from __future__ import annotations

import yaml

REQUIRED_KEYS = ("license", "base_model", "base_model_relation", "datasets", "tags", "pipeline_tag", "library_name")


def front_matter(cfg, source) -> dict:
    """Hub metadata. A model out of a training run is a fine-tune of the base; the embedded model re-exported is a
    quantization of it."""
    return {
        "license": cfg.license,
        "base_model": cfg.base_model,
        "base_model_relation": "finetune" if source.run_dir else "quantized",
        "datasets": list(cfg.datasets),
        "tags": list(cfg.tags),
        "pipeline_tag": "text-generation",
        "library_name": "mlx",
        "language": ["en"],
    }


def read_front_matter(text: str) -> dict | None:
    """The YAML mapping between the leading `---` lines of a card, or None when there is none."""
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---\n", 4)
    if end < 0:
        return None
    try:
        meta = yaml.safe_load(text[4:end])
    except yaml.YAMLError:
        return None
    return meta if isinstance(meta, dict) else None


def missing_keys(meta: dict | None) -> list[str]:
    """Required keys that are absent or empty (an empty `datasets` list is allowed: data made offline has no Hub id)."""
    if meta is None:
        return list(REQUIRED_KEYS)
    return [k for k in REQUIRED_KEYS if k not in meta or (k != "datasets" and not meta[k])]


def _table(rows: list[tuple[str, str]]) -> str:
    return "\n".join(["| | |", "|---|---|", *[f"| {k} | {v} |" for k, v in rows]])


def _flat(d: dict, prefix: str = "") -> list[tuple[str, str]]:
    rows = []
    for k, v in d.items():
        if isinstance(v, dict):
            rows += _flat(v, f"{prefix}{k}.")
        elif isinstance(v, float):
            rows.append((f"{prefix}{k}", f"{v:.4g}"))
        elif isinstance(v, (int, str, bool)) or v is None:
            rows.append((f"{prefix}{k}", str(v)))
    return rows


def model_card(cfg, source, gguf_name: str, training: dict, evals: dict, parity: dict | None) -> str:
    repo = cfg.repo_id
    meta = yaml.safe_dump(front_matter(cfg, source), sort_keys=False).strip()
    origin = (f"fine-tuned with nanoagent from `{cfg.base_model}` (run folder `{source.run_dir.name}`)"
              if source.run_dir else f"`{cfg.base_model}` re-exported by nanoagent")
    parts = [f"---\n{meta}\n---\n", f"# {repo.split('/')[-1]}\n",
             f"A tool-calling model {origin}. This repository holds the same weights twice: `{gguf_name}` (8-bit "
             "GGUF for llama.cpp and the nanoagent laptop agent) and the MLX / Hugging Face safetensors with "
             "`config.json` and the tokenizer. The chat template (in the tokenizer and in the GGUF metadata) lists "
             "tools as JSON inside `<tools></tools>` in the system turn; the model answers a call as "
             "`<tool_call>\\n{\"name\": ..., \"arguments\": {...}}\\n</tool_call>`.\n"]
    parts.append("## Usage\n\n### llama.cpp\n\n```bash\n"
                 f"huggingface-cli download {repo} {gguf_name} --local-dir .\n"
                 f"llama-cli -m {gguf_name} -cnv --jinja\n```\n\n"
                 "```python\nfrom llama_cpp import Llama\n"
                 f"llm = Llama(model_path=\"{gguf_name}\")\n"
                 "llm.create_chat_completion(messages=[{\"role\": \"user\", \"content\": \"Hi\"}], tools=[...])\n```\n\n"
                 "### MLX\n\n```bash\n"
                 f"mlx_lm.generate --model {repo} --prompt \"What is the capital of France?\"\n```\n\n"
                 "### The nanoagent laptop agent\n\n```bash\n"
                 f"nanoagent run --model {gguf_name} --repo PATH/TO/REPO \"fix the failing test\"\n```\n")
    if parity:
        nt, pp, tc = parity["next_token"], parity["perplexity"], parity["tool_calls"]
        parts.append("## GGUF parity with the MLX weights\n\nMeasured by `python -m export.gguf` when this file was "
                     "written (llama.cpp on the GGUF against MLX on the safetensors, same token ids):\n\n" + _table([
                         ("greedy next-token agreement", f"{nt['agree']}/{nt['positions']} = {nt['rate']:.4f}"),
                         ("perplexity, held-out text (MLX / llama.cpp)",
                          f"{pp['mlx']:.3f} / {pp['llama_cpp']:.3f} ({pp['relative_diff']:.3%} apart)"),
                         ("greedy tool-call prompts parsed the same", f"{tc['same_parse']}/{tc['total']}"),
                     ]) + "\n")
    if evals:
        parts.append("## Evaluation\n\nFrom the run folder (full JSON in `eval/`):\n\n" + _table(
            [(f"{name}: {k}", v) for name, res in evals.items() for k, v in _flat(res)][:60]) + "\n")
    if training:
        cfg_text = training.get("config.yaml")
        summary = training.get("summary.json")
        parts.append("## Training\n\nThe run's resolved config and summary ship in `training/`.\n")
        if isinstance(summary, dict):
            parts.append(_table(_flat(summary)) + "\n")
        if isinstance(cfg_text, str):
            parts.append(f"```yaml\n{cfg_text.strip()}\n```\n")
    parts.append("## Limitations\n\nA 135M-parameter model: it follows the tool-call format it was trained on, "
                 "but its answers and argument values need checking. The agent runs its shell tool in a sandbox; "
                 "keep it that way.\n")
    return "\n".join(parts)

