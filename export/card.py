"""The Hub model card (README.md) of a release: front matter the Hub reads, then what the model is and how to use it.

`front_matter(cfg, source, columns)` gives the metadata (license, base_model, base_model_relation, datasets, tags,
pipeline_tag, library_name), built (and checked) by huggingface_hub's `ModelCardData`; the BFCL results go into its
`model-index` (one result per suite of each column), which the Hub shows as the model's evaluation results.
`read_front_matter(text)` parses a card back and `missing_keys(meta)` says what a card lacks.

`model_card(...)` renders the card, in this order:
- results: a BFCL table whose columns are this model's eval.toolcall runs, each named for the model and how it was
  decoded (export/evals.py; results of another model never get this far), with published anchors beside, and the
  bar chart of the same figures (export/figures.py) when the release has it;
- training: a few lines (base model, method, steps, rows, tokens, time, final validation loss) and the loss plot,
  with a link to the full resolved config shipped in training/;
- usage blocks that work as written (export/usage.py); the GGUF parity figures; links to other eval files.

Usage:
    text = model_card(cfg, source, "x-Q8_0.gguf", training={...}, evals={...}, parity={...}, figures={...})

Left out: the Hub's server-side card validation (`ModelCard.validate` needs the network; the release never does).
"""

from __future__ import annotations

import yaml

from export.evals import labelled_runs, toolcall_runs
from export.usage import usage_section
from nanoagent.bfcl_table import bfcl_table

REQUIRED_KEYS = ("license", "base_model", "base_model_relation", "datasets", "tags", "pipeline_tag", "library_name")


BFCL_DATASET = "gorilla-llm/Berkeley-Function-Calling-Leaderboard"


def eval_results(columns: list[dict]) -> list:
    """huggingface_hub EvalResults (accuracy in %) for every suite of every card column."""
    from huggingface_hub import EvalResult

    out = []
    for column in columns:
        for suite, res in column["suites"].items():
            m = res.get("metrics") or {}
            if "accuracy" in m:
                out.append(EvalResult(task_type="text-generation", task_name="tool calling",
                                      dataset_type=BFCL_DATASET, dataset_name=f"BFCL {suite}", dataset_config=suite,
                                      metric_type="accuracy", metric_name=f"AST accuracy, {column['label']}",
                                      metric_value=round(100 * m["accuracy"], 1)))
    return out


def front_matter(cfg, source, columns: list[dict] | None = None) -> dict:
    """Hub metadata, built (and checked) by huggingface_hub's ModelCardData. A model out of a training run is a
    fine-tune of the base; the embedded model re-exported is a quantization of it."""
    from huggingface_hub import ModelCardData

    results = eval_results(columns or [])
    data = ModelCardData(
        license=cfg.license, base_model=cfg.base_model,
        base_model_relation="finetune" if source.run_dir else "quantized",
        datasets=list(cfg.datasets), tags=list(cfg.tags), pipeline_tag="text-generation", library_name="mlx",
        language=["en"], model_name=cfg.repo_id.split("/")[-1] if results else None, eval_results=results or None)
    return data.to_dict()


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


def card_columns(evals: dict, repo_id: str) -> list[dict]:
    """The BFCL columns of the card: this model's eval.toolcall runs, named for it (export/evals.py)."""
    return labelled_runs(toolcall_runs(evals), repo_id.split("/")[-1])


def _table(rows: list[tuple[str, str]]) -> str:
    return "\n".join(["| | |", "|---|---|", *[f"| {k} | {v} |" for k, v in rows]])


def _duration(seconds: float) -> str:
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{max(minutes, 1)} min"


def _method(config: dict) -> str | None:
    if "group_size" in config:
        return f"GRPO (reinforcement learning, {config['group_size']} rollouts per task)"
    loss = {"sft": "SFT (cross-entropy on the assistant turns)", "dft": "DFT (dynamic fine-tuning)"}.get(
        config.get("loss"), config.get("loss"))
    if config.get("fine_tune") == "full":
        how = "full fine-tuning"
    elif config.get("fine_tune") == "lora" or "lora_rank" in config:
        layers = config.get("lora_layers")
        how = f"LoRA rank {config.get('lora_rank')} on {'all' if layers in (-1, None) else layers} layers"
    else:
        how = None
    return ", ".join(x for x in (loss, how) if x) or None


def training_summary(cfg, training: dict) -> list[str]:
    """A few lines: base model, method, steps, rows, tokens, time, final validation loss (each only when known)."""
    config, summary = training.get("config") or {}, training.get("summary") or {}
    data = (training.get("data_stats") or {}).get("train") or {}
    lines = [("Base model", f"[{cfg.base_model}](https://huggingface.co/{cfg.base_model})"),
             ("Method", _method(config))]
    steps = summary.get("steps", config.get("steps"))
    if steps is not None:
        batch = config.get("batch_size")
        shape = (f" (batches of {batch * (config.get('grad_accum') or 1)} x {config['max_length']} tokens"
                 f"{', packed' if config.get('pack') else ''})") if batch and config.get("max_length") else ""
        lines.append(("Steps", f"{steps:,}{shape}"))
    if data.get("kept") is not None:
        lines.append(("Rows", f"{data['kept']:,} training rows" + (f" (`{data['path']}`)" if data.get("path") else "")))
    if summary.get("input_tokens") is not None:
        supervised = summary.get("supervised_tokens")
        lines.append(("Tokens", f"{summary['input_tokens']:,} trained on" +
                      (f", {supervised:,} of them supervised (the assistant turns)" if supervised is not None else "")))
    if summary.get("train_seconds") is not None:
        speed = summary.get("tokens_per_s")
        lines.append(("Time", _duration(summary["train_seconds"]) + (f" ({speed:,.0f} tokens/s)" if speed else "")))
    if summary.get("val_loss_last") is not None:
        first = summary.get("val_loss_first")
        lines.append(("Final validation loss", (f"{first:.3f} -> " if first is not None else "")
                      + f"{summary['val_loss_last']:.3f}"))
    return [f"- **{k}**: {v}" for k, v in lines if v is not None]


def _results(columns: list[dict], figures: dict) -> list[str]:
    parts = ["## Results (BFCL, offline, greedy)\n",
             "Accuracy in % with the schema-valid rate in brackets, per suite, scored by nanoagent's BFCL checker "
             "(`python -m eval.toolcall`); each column is this model decoded one way (the GGUF through llama.cpp, or "
             "the MLX weights; constrained: calls decoded under the tools' schemas). The published figures of larger "
             "small models are beside it. Per-item outcomes ship in `eval/`.\n",
             bfcl_table(columns, heads=[c["label"] for c in columns]) + "\n"]
    if figures.get("bfcl"):
        parts.append(f"![BFCL accuracy per suite, against published small models]({figures['bfcl']})\n")
    return parts


def _training(cfg, training: dict, figures: dict) -> list[str]:
    parts = ["## Training\n", "\n".join(training_summary(cfg, training)) + "\n"]
    if figures.get("loss"):
        parts.append(f"![training and validation loss]({figures['loss']})\n")
    shipped = training.get("files") or []
    links = [f"[{name}](training/{name})" for name in shipped if name not in ("loss.png", "config.yaml")]
    if "config.yaml" in shipped:
        parts.append("The full resolved training config: [training/config.yaml](training/config.yaml).\n")
    if links:
        parts.append(f"The run's other records: {', '.join(links)}.\n")
    return parts


def _parity(parity: dict) -> str:
    nt, pp, tc = parity["next_token"], parity["perplexity"], parity["tool_calls"]
    return ("## GGUF parity with the MLX weights\n\nMeasured by `python -m export.gguf` when this file was written "
            "(llama.cpp on the GGUF against MLX on the safetensors, same token ids):\n\n" + _table([
                ("greedy next-token agreement", f"{nt['agree']}/{nt['positions']} = {nt['rate']:.4f}"),
                ("perplexity, held-out text (MLX / llama.cpp)",
                 f"{pp['mlx']:.3f} / {pp['llama_cpp']:.3f} ({pp['relative_diff']:.3%} apart)"),
                ("greedy tool-call prompts parsed the same", f"{tc['same_parse']}/{tc['total']}"),
            ]) + "\n")


def model_card(cfg, source, gguf_name: str, training: dict, evals: dict, parity: dict | None,
               figures: dict | None = None) -> str:
    """The card's markdown. `training`: {"config", "summary", "data_stats"} parsed, "files" shipped in training/;
    `evals`: release path under eval/ -> parsed JSON; `figures`: {"loss", "bfcl"} -> their paths in the release."""
    repo, figures = cfg.repo_id, figures or {}
    columns = card_columns(evals, repo)
    meta = yaml.safe_dump(front_matter(cfg, source, columns), sort_keys=False).strip()
    origin = (f"fine-tuned with nanoagent from `{cfg.base_model}`" if source.run_dir
              else f"`{cfg.base_model}` re-exported by nanoagent")
    parts = [f"---\n{meta}\n---\n", f"# {repo.split('/')[-1]}\n",
             f"A tool-calling model {origin}. This repository holds the same weights twice: `{gguf_name}` (8-bit "
             "GGUF for llama.cpp and the nanoagent laptop agent) and the MLX / Hugging Face safetensors with "
             "`config.json` and the tokenizer. The chat template (in the tokenizer and in the GGUF metadata) lists "
             "tools as JSON inside `<tools></tools>` in the system turn; the model answers a call as "
             "`<tool_call>\\n{\"name\": ..., \"arguments\": {...}}\\n</tool_call>`.\n"]
    if columns:
        parts += _results(columns, figures)
    if training:
        parts += _training(cfg, training, figures)
    parts.append(usage_section(repo, gguf_name))
    if parity:
        parts.append(_parity(parity))
    other = sorted(name for name, res in evals.items() if not (isinstance(res, dict) and res.get("kind") == "toolcall"))
    if other:
        parts.append("## Other evaluation files\n\n" + ", ".join(f"[{n}](eval/{n})" for n in other) + "\n")
    parts.append("## Limitations\n\nA 135M-parameter model: it follows the tool-call format it was trained on, "
                 "but its answers and argument values need checking. The agent runs its shell tool in a sandbox; "
                 "keep it that way.\n")
    return "\n".join(parts)
