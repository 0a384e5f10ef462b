"""Layered config for the eval commands: a dataclass's defaults < a YAML file (--config) < command-line flags.

    cfg = layered.load(ToolcallConfig, argv, description="...")      # nanoagent.config, as every stage

Every dataclass field becomes a flag (`--max-tokens 64`; booleans as `--flag/--no-flag`; lists comma-separated).
A flag left off never overrides the YAML ("not given" is not "false"). An unknown YAML key is an error naming the
closest valid key. Field help comes from `field(metadata={"help": ...})`. The layering is nanoagent/config.py;
this module adds the model loading the eval commands share.

Left out: nested keys (the eval configs are flat).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nanoagent.config import ConfigError
from nanoagent.stats import BOOTSTRAP_SAMPLES

__all__ = ["ConfigError", "EvalConfig", "load_eval_backend", "prompt_format_used"]


@dataclass
class EvalConfig:
    """What both eval commands share: the model, a seeded sample, decoding, and where the result goes."""
    model: str = field(default="embedded", metadata={"help": "embedded | embedded-gguf | folder | run | .gguf | URL"})
    limit: int | None = field(default=None, metadata={"help": "N items of each suite, or N tasks (default: all)"})
    sample: str = field(default="random", metadata={"help": "random: a seeded random sample of --limit; first: "
                                                            "the first --limit"})
    sample_seed: int = field(default=0, metadata={"help": "seed of the random sample"})
    temperature: float = field(default=0.0, metadata={"help": "sampling temperature; 0: greedy"})
    seed: int = field(default=0, metadata={"help": "seed of the sampling and of the bootstrap intervals"})
    threads: int | None = field(default=None, metadata={"help": "CPU threads for llama.cpp (default: all cores)"})
    constrain: bool = field(default=False, metadata={"help": "decode tool calls under the offered tools' grammar "
                                                            "(nanoagent.constrain); off: the model's own ability"})
    call_threshold: str | None = field(default=None, metadata={"help": "P: answer in text when the model gives "
                                                                        "opening a call less than P; 'model': the "
                                                                        "threshold stored with the model "
                                                                        "(eval.decision --save-threshold); 'off'. "
                                                                        "Default: off (the model's own decisions)"})
    stop_repeats: bool = field(default=False, metadata={"help": "stop a reply at its first call that repeats an "
                                                                  "earlier one, the copy cut off (in-process "
                                                                  "backends); off: the model's own replies"})
    prompt_format: str | None = field(default=None, metadata={"help": "how the prompt lists the tools: standard | "
                                                                        "compact (nanoagent/render.py); default: "
                                                                        "the format stored with the model"})
    label: str | None = field(default=None, metadata={"help": "name of this run in reports (default: from model)"})
    out_dir: str | None = field(default=None, metadata={"help": "results folder (default eval/results)"})
    name: str | None = field(default=None, metadata={"help": "result file name without .json"})
    bootstrap_samples: int = field(default=BOOTSTRAP_SAMPLES, metadata={"help": "resamples of the bootstrap 95% "
                                                                              "confidence intervals"})


def prompt_format_used(cfg) -> str | None:
    """The name of the prompt format `load_eval_backend(cfg)` prompts in, without loading the model: the asked one,
    else the model's stored one; None for an endpoint in chat mode (its server's template renders the prompt)."""
    from nanoagent.agent.backends import backend_kind
    from nanoagent.prompt_format import format_for

    if backend_kind(cfg.model) == "openai":
        return cfg.prompt_format or None
    return format_for(cfg.prompt_format, cfg.model).name


def load_eval_backend(cfg):
    """The backend for `cfg.model` (`cfg.threads` goes to llama.cpp, `cfg.constrain` to the in-process backends);
    a ConfigError that names the model if it fails."""
    from nanoagent.agent.backends import BackendError, backend_kind, load_backend
    from nanoagent.call_threshold import ThresholdError, resolve_threshold
    from nanoagent.gguf_import import GGUFImportError
    from nanoagent.models import ModelLoadError

    try:
        kind = backend_kind(cfg.model)
        options = {"n_threads": cfg.threads} if cfg.threads and kind == "llamacpp" else {}
        if getattr(cfg, "constrain", False):
            if kind == "openai":
                raise ConfigError(f"--constrain needs an in-process model (a .gguf file or an MLX model); "
                                  f"{cfg.model} decodes on the server's side: run it with --no-constrain")
            options["constrain"] = True
        if getattr(cfg, "stop_repeats", False):
            if kind == "openai":
                raise ConfigError(f"--stop-repeats needs an in-process model (a .gguf file or an MLX model); "
                                  f"{cfg.model} decodes on the server's side: run it with --no-stop-repeats")
            options["stop_repeats"] = True
        if getattr(cfg, "call_threshold", None) not in (None, False, "off"):  # YAML reads `off` as False
            if kind == "openai":
                raise ConfigError(f"--call-threshold needs an in-process model (a .gguf file or an MLX model); "
                                  f"{cfg.model} decodes on the server's side")
            asked = cfg.call_threshold
            cfg.call_threshold = resolve_threshold(asked, cfg.model)  # the number goes into the result's settings
            if cfg.call_threshold is None:
                how = ("choose one on the MLX model it was exported from (`python -m eval.decision --model RUN "
                       "--suites valid --save-threshold`) and export again" if kind == "llamacpp" else
                       f"choose one with `python -m eval.decision --model {cfg.model} --suites valid --save-threshold`")
                raise ConfigError(f"--call-threshold model: {cfg.model} has no stored threshold; {how}, or give a "
                                  "number")
            options["call_threshold"] = cfg.call_threshold
        else:
            cfg.call_threshold = None
        if getattr(cfg, "prompt_format", None):  # an endpoint takes one in completions mode only (it says so)
            options["prompt_format"] = cfg.prompt_format
        backend = load_backend(cfg.model, **options)
        if hasattr(cfg, "prompt_format"):  # the format used goes into the result's settings
            cfg.prompt_format = getattr(getattr(backend, "fmt", None), "name", None)
        return backend
    except ThresholdError as e:
        raise ConfigError(str(e)) from None
    except (BackendError, ModelLoadError, GGUFImportError, OSError, ValueError) as e:
        raise ConfigError(f"could not load model {cfg.model!r}: {e}") from None
