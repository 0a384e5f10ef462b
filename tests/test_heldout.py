"""Held-out prose perplexity (nanoagent/heldout.py) against a NumPy reference on a tiny random llama.

Run: .venv/bin/python -m pytest tests/test_heldout.py -q
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import mlx.core as mx
import numpy as np
import pytest

from nanoagent.heldout import HELDOUT_TEXT, prose_perplexity
from nanoagent.testing import tiny_llama, tiny_tokenizer, tok_vocab_size


def test_perplexity_is_exp_of_the_mean_next_token_nll():
    tok = tiny_tokenizer()
    model = tiny_llama(tok_vocab_size(tok), seed=3)
    ids = list(tok.encode(HELDOUT_TEXT, add_special_tokens=False))
    logits = np.array(model(mx.array([ids]))[0].astype(mx.float32), dtype=np.float64)[:-1]
    lse = np.log(np.exp(logits - logits.max(-1, keepdims=True)).sum(-1)) + logits.max(-1)
    nll = lse - logits[np.arange(len(ids) - 1), ids[1:]]
    assert prose_perplexity(model, tok) == pytest.approx(float(np.exp(nll.mean())), rel=1e-4)


def test_a_text_too_short_to_score_is_refused():
    tok = tiny_tokenizer()
    with pytest.raises(ValueError, match="at least 2 tokens"):
        prose_perplexity(tiny_llama(tok_vocab_size(tok)), tok, text="")
