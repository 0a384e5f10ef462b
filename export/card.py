"""The Hub model card (README.md) of a release: YAML front matter the Hub reads, then what the model is and how to run it.

`front_matter(cfg, source, runs)` gives the metadata (license, base_model, base_model_relation, datasets, tags,
pipeline_tag, library_name); `model_card(...)` renders the whole card with the training config and eval results
found in the run folder, the GGUF parity figures, and usage for llama.cpp, MLX and the nanoagent laptop agent.
`read_front_matter(text)` parses a card back and `missing_keys(meta)` says what a card lacks. The metadata is
built by huggingface_hub's `ModelCardData` (the Hub's field names; it checks the `model-index` it writes: each
result an `EvalResult` with its required fields, and a model name beside them); the BFCL results go into that
`model-index` (one per suite of each run of this model, base-model runs left out), which the Hub shows as the
model's evaluation results. The release test reads the card back with huggingface_hub's `ModelCard`.

Usage:
    text = model_card(cfg, source, gguf_name="x-Q8_0.gguf", training={...}, evals={...}, parity={...})

The card opens its results with a BFCL table built from eval.toolcall result files (accuracy and schema-valid rate
per suite and per run label, with published anchors beside), shows the training loss plot and the data the run
trained on, and its usage section walks one tool call end to end through `nanoagent serve` and llama.cpp's server.

Left out: the Hub's server-side card validation (`ModelCard.validate` needs the network; the release never does).
"""

from __future__ import annotations

import yaml

from nanoagent.bfcl_table import bfcl_table

REQUIRED_KEYS = ("license", "base_model", "base_model_relation", "datasets", "tags", "pipeline_tag", "library_name")


BFCL_DATASET = "gorilla-llm/Berkeley-Function-Calling-Leaderboard"


def eval_results(runs: list[dict]) -> list:
    """huggingface_hub EvalResults (accuracy in %) for every suite of every eval.toolcall run of this model; runs
    labelled base* measure the base model and are left out."""
    from huggingface_hub import EvalResult

    out = []
    for run in runs:
        label = str(run.get("label", "model"))
        if label.startswith("base"):
            continue
        for suite, res in run["suites"].items():
            m = res.get("metrics") or {}
            if "accuracy" in m:
                out.append(EvalResult(task_type="text-generation", task_name="tool calling",
                                      dataset_type=BFCL_DATASET, dataset_name=f"BFCL {suite}", dataset_config=suite,
                                      metric_type="accuracy", metric_name=f"AST accuracy, {label}",
                                      metric_value=round(100 * m["accuracy"], 1)))
    return out


def front_matter(cfg, source, runs: list[dict] | None = None) -> dict:
    """Hub metadata, built (and checked) by huggingface_hub's ModelCardData. A model out of a training run is a
    fine-tune of the base; the embedded model re-exported is a quantization of it."""
    from huggingface_hub import ModelCardData

    results = eval_results(runs or [])
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


def toolcall_runs(evals: dict) -> list[dict]:
    """The eval.toolcall result files among `evals` (file name -> parsed JSON)."""
    return [r for r in evals.values() if isinstance(r, dict) and r.get("kind") == "toolcall" and r.get("suites")]


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
    runs = toolcall_runs(evals)
    meta = yaml.safe_dump(front_matter(cfg, source, runs), sort_keys=False).strip()
    origin = (f"fine-tuned with nanoagent from `{cfg.base_model}` (run folder `{source.run_dir.name}`)"
              if source.run_dir else f"`{cfg.base_model}` re-exported by nanoagent")
    parts = [f"---\n{meta}\n---\n", f"# {repo.split('/')[-1]}\n",
             f"A tool-calling model {origin}. This repository holds the same weights twice: `{gguf_name}` (8-bit "
             "GGUF for llama.cpp and the nanoagent laptop agent) and the MLX / Hugging Face safetensors with "
             "`config.json` and the tokenizer. The chat template (in the tokenizer and in the GGUF metadata) lists "
             "tools as JSON inside `<tools></tools>` in the system turn; the model answers a call as "
             "`<tool_call>\\n{\"name\": ..., \"arguments\": {...}}\\n</tool_call>`.\n"]
    if runs:
        parts.append("## Results (BFCL, offline, greedy)\n\nAccuracy in % with the schema-valid rate in brackets, per "
                     "suite, scored by nanoagent's BFCL checker (`python -m eval.toolcall`); the published figures "
                     "of larger models beside. Per-item outcomes ship in `eval/`.\n\n" + bfcl_table(runs) + "\n")
    parts.append("## Usage\n\n### A tool call, end to end\n\nServe the GGUF with nanoagent (tool calls decoded under "
                 "the request's tools' schemas) or with llama.cpp's server, and use any OpenAI client:\n\n```bash\n"
                 f"huggingface-cli download {repo} {gguf_name} --local-dir .\n"
                 f"nanoagent serve {gguf_name} --port 8080          # or: llama-server -m {gguf_name} --jinja --port 8080\n"
                 "```\n\n```python\nfrom openai import OpenAI\n"
                 "client = OpenAI(base_url=\"http://127.0.0.1:8080/v1\", api_key=\"none\")\n"
                 "tools = [{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"description\": "
                 "\"Current weather in a city\",\n          \"parameters\": {\"type\": \"object\", \"properties\": "
                 "{\"city\": {\"type\": \"string\"}}, \"required\": [\"city\"]}}}]\n"
                 "reply = client.chat.completions.create(model=\"model\", tools=tools,\n"
                 "    messages=[{\"role\": \"user\", \"content\": \"What's the weather in Lisbon?\"}])\n"
                 "print(reply.choices[0].message.tool_calls)\n"
                 "# [ChatCompletionMessageToolCall(function=Function(name='get_weather', arguments='{\"city\": "
                 "\"Lisbon\"}'), ...)]\n```\n\n"
                 "### llama.cpp\n\n```python\nfrom llama_cpp import Llama\n"
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
    other = {name: res for name, res in evals.items() if not (isinstance(res, dict) and res.get("kind") == "toolcall")}
    if other:
        parts.append("## Other evaluation files\n\nFull JSON in `eval/`:\n\n" + _table(
            [(f"{name}: {k}", v) for name, res in other.items() for k, v in _flat(res)][:60]) + "\n")
    if training:
        cfg_text = training.get("config.yaml")
        summary = training.get("summary.json")
        parts.append("## Training\n\nThe run's resolved config, summary, metrics and loss plot ship in `training/`.\n")
        if training.get("loss.png"):
            parts.append("![training and validation loss](training/loss.png)\n")
        stats = training.get("data_stats.json")
        if isinstance(stats, dict) and isinstance(stats.get("train"), dict):
            t = stats["train"]
            parts.append(f"Trained on `{t.get('path')}`: {t.get('kept', 0):,} of {t.get('records', 0):,} records kept, "
                         f"{t.get('tokens', 0):,} tokens ({t.get('supervised_tokens', 0):,} supervised: the assistant "
                         "turns).\n")
        if isinstance(summary, dict):
            parts.append(_table(_flat(summary)) + "\n")
        if isinstance(cfg_text, str):
            parts.append(f"```yaml\n{cfg_text.strip()}\n```\n")
    parts.append("## Limitations\n\nA 135M-parameter model: it follows the tool-call format it was trained on, "
                 "but its answers and argument values need checking. The agent runs its shell tool in a sandbox; "
                 "keep it that way.\n")
    return "\n".join(parts)

