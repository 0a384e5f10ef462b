"""A model's prompt format (nanoagent.render.PromptFormat): stored with the model by the trainer, read back by every
stage that renders a prompt for it.

A model answers best in the tool-block format it was trained on, so the format travels with the weights the way the
call threshold does (nanoagent/call_threshold.py): `prompt_format.json` beside a model folder's config.json, and
the `nanoagent.prompt_format` key in a GGUF's metadata (with the matching Jinja chat template). A model with no
record (the base model, anything trained before formats were recorded) is in the standard format. A Hub model's
record is read from the local Hugging Face cache, where loading the model put it.

    save_format("runs/x/model", FORMATS["compact"])   # -> runs/x/model/prompt_format.json, chat_template.jinja
    stored_format("runs/x")                           # PromptFormat from a model or run folder, or a .gguf
    format_for("compact", "runs/x")                   # an explicit name wins; None -> stored_format(spec)

Left out: formats defined in a file (a format is code in nanoagent/render.py, so that the template, the renderer
and the token counts cannot disagree).
"""

from __future__ import annotations

import json
from pathlib import Path

from nanoagent.render import DEFAULT_FORMAT, FORMATS, PromptFormat, PromptFormatError, format_named

FILE = "prompt_format.json"
GGUF_KEY = "nanoagent.prompt_format"
TEMPLATE_FILE = "chat_template.jinja"  # where transformers keeps a tokenizer's chat template


def save_format(model_dir: str | Path, fmt: PromptFormat | str) -> Path:
    """Record `fmt` beside the weights in `model_dir` (a folder with config.json), and make the folder's tokenizer
    carry its chat template (chat_template.jinja, and tokenizer_config.json's copy when it has one), so that
    `apply_chat_template` and mlx-lm render as we do."""
    from nanoagent.atomic import write_json
    from nanoagent.render import chat_template

    fmt = format_named(fmt)
    folder = Path(model_dir)
    if not (folder / "config.json").is_file():
        raise PromptFormatError(f"{folder} is not a model folder (no config.json): save the prompt format beside "
                                "the weights of an MLX model or a run's model/ folder")
    template = chat_template(fmt)
    (folder / TEMPLATE_FILE).write_text(template)
    tok_cfg = folder / "tokenizer_config.json"
    if tok_cfg.is_file():
        settings = json.loads(tok_cfg.read_text())
        if "chat_template" in settings:
            write_json(tok_cfg, {**settings, "chat_template": template}, ensure_ascii=False)
    return write_json(folder / FILE, {"prompt_format": fmt.name})


def stored_format(spec: str | Path) -> PromptFormat:
    """The format stored with a model (a model or run folder's prompt_format.json, or a GGUF's metadata); the
    standard format when it has none. A record naming no known format is a PromptFormatError naming the file."""
    from nanoagent.models import DamagedRecord, stored_record

    try:
        found = stored_record(spec, FILE, "prompt_format", GGUF_KEY)
    except DamagedRecord as e:
        raise PromptFormatError(f"{e}: not a prompt-format file; write "
                                f'{{"prompt_format": "<one of {", ".join(FORMATS)}>"}} into it or delete it '
                                "(the standard format)") from None
    return DEFAULT_FORMAT if found is None else _named(*found)


def format_for(name: str | None, spec: str | Path) -> PromptFormat:
    """An explicit format name (a `--prompt-format` value), else the one stored with the model `spec`."""
    return format_named(name) if name else stored_format(spec)


def _named(name, where: str) -> PromptFormat:
    try:
        return format_named(name if isinstance(name, str) else repr(name))
    except PromptFormatError as e:
        raise PromptFormatError(f"{where}: {e}. The model was saved by a newer nanoagent, or the record is "
                                "damaged.") from None
