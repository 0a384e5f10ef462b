"""The converted embedded model against the original GGUF run by llama.cpp: weights, tokenizer and logits.

These use the real embedded SmolLM2-135M (only it proves the conversion). llama.cpp multiplies Q4_1 weights with
activations quantized to 8 bits, MLX with float32 activations, so logits differ by a little noise; the tests bound
that noise and require every top-1 disagreement to be a near tie.
"""

import numpy as np
import pytest

pytestmark = pytest.mark.slow

TEXTS = [
    "The quick brown fox jumps over the lazy dog. In 1969, Apollo 11 landed on the Moon; π ≈ 3.14159.",
    "def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n\n\nprint([fib(i) for i in range(10)])\n",
    "    indented    with\ttabs and   runs of spaces\n\n\n\nand blank lines  \r\n",
    "Ünïcödé: naïve café, 東京タワー, Москва, مرحبا, emoji 😀🎉👩‍💻, math ∑∫√",
    '{"name": "get_weather", "arguments": {"city": "Paris", "days": 3, "units": ["c", "f"], "ok": true}}',
    "<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n<tool_call>\n{}\n</tool_call><|im_end|>",
    "URLs like https://example.com/a?b=1&c=2#frag and emails a.b@c.org; numbers 1234567890 0.5e-10 -42",
    "<repo_name>nanoagent<file_sep>src/main.py\nimport os\nos.environ['HOME']  # <filename> token text",
]


@pytest.fixture(scope="module")
def llama(embedded_gguf):
    llama_cpp = pytest.importorskip("llama_cpp")
    return llama_cpp.Llama(model_path=str(embedded_gguf), logits_all=True, n_ctx=2048, n_threads=2, verbose=False)


@pytest.fixture(scope="module")
def mlx_model():
    from nanoagent.models import load
    return load("embedded")


def test_tokenizer_matches_llama_cpp(llama, embedded_tokenizer):
    from nanoagent.render import backend_tokenizer
    ours = backend_tokenizer(embedded_tokenizer)
    for text in TEXTS:
        theirs = llama.tokenize(text.encode("utf-8"), add_bos=False, special=True)
        assert ours.encode(text, add_special_tokens=False).ids == theirs, text
        assert ours.decode(theirs, skip_special_tokens=False) == text


def test_dequantized_weights_are_exact(embedded_gguf):
    """Our float weights against two independent decodings of the stored blocks: MLX's (exact for Q4_1, whose
    scale and min are float16 in the file) and a hand-written Q8_0 decoder for the 8-bit embedding."""
    import gguf
    import mlx.core as mx
    from nanoagent.gguf_import import _unpermute
    from nanoagent.models import resolve_model_path

    ours = mx.load(str(resolve_model_path("embedded") / "model.safetensors"))
    raw = mx.load(str(embedded_gguf))  # MLX's GGUF reader: (weight, scales, biases) triples, group size 32
    for gname, hname, n_head in [("blk.3.attn_q", "model.layers.3.self_attn.q_proj", 9),
                                 ("blk.3.attn_k", "model.layers.3.self_attn.k_proj", 3),
                                 ("blk.29.ffn_down", "model.layers.29.mlp.down_proj", None)]:
        ref = mx.dequantize(raw[f"{gname}.weight"], raw[f"{gname}.scales"].astype(mx.float32),
                            raw[f"{gname}.biases"].astype(mx.float32), group_size=32, bits=4)
        if n_head:
            ref = _unpermute(ref, n_head)
        np.testing.assert_allclose(np.array(ours[f"{hname}.weight"]), np.array(ref), rtol=0, atol=1e-6)

    reader = gguf.GGUFReader(str(embedded_gguf))
    emb = next(t for t in reader.tensors if t.name == "token_embd.weight")
    assert emb.tensor_type.name == "Q8_0"
    blocks = np.asarray(emb.data[:64]).reshape(64, -1, 34)  # 64 rows; each block: float16 scale + 32 int8
    scale = blocks[..., :2].copy().view(np.float16).astype(np.float32)
    quants = blocks[..., 2:].copy().view(np.int8).astype(np.float32)
    expected = (scale * quants).reshape(64, -1)
    np.testing.assert_array_equal(np.array(ours["model.embed_tokens.weight"][:64]), expected)
    np.testing.assert_array_equal(np.array(ours["model.norm.weight"]),
                                  np.asarray(next(t for t in reader.tensors if t.name == "output_norm.weight").data))


def test_logits_agree_with_llama_cpp(llama, mlx_model):
    import mlx.core as mx
    from nanoagent.record import DEMO_RECORD
    from nanoagent.render import render_prompt

    model, tok = mlx_model
    prompts = [render_prompt(DEMO_RECORD["messages"], DEMO_RECORD["tools"], tok)]
    prompts += [list(tok.encode(t)) for t in TEXTS]
    agree = total = 0
    abs_diffs, bad_margins = [], []
    for ids in prompts:
        llama.reset()
        llama.eval(ids)
        ref = np.asarray(llama.scores[: len(ids)], dtype=np.float32)
        ours = np.asarray(model(mx.array([ids]))[0].astype(mx.float32))
        top_ref, top_ours = ref.argmax(-1), ours.argmax(-1)
        agree += int((top_ref == top_ours).sum())
        total += len(ids)
        abs_diffs.append(np.abs(ref - ours).mean(-1))
        for p in np.where(top_ref != top_ours)[0]:
            bad_margins.append(float(np.sort(ours[p])[-1] - np.sort(ours[p])[-2]))
    rate, mean_abs = agree / total, float(np.concatenate(abs_diffs).mean())
    print(f"top-1 agreement {agree}/{total} = {rate:.4f}; mean |logit diff| {mean_abs:.3f}; "
          f"disagreement margins {sorted(round(m, 3) for m in bad_margins)}")
    assert mean_abs < 0.35  # logits themselves are O(10); measured ~0.18
    assert all(m < 0.5 for m in bad_margins), "a top-1 disagreement that is not a near tie means a real bug"
    # The rate depends on the machine: llama.cpp's CPU kernels round differently by instruction set. 0.98 held on
    # earlier machines; an AMD EPYC without AVX-512 (llama-cpp-python 0.3.36) gave 604/622 = 0.971, every one of the
    # 18 disagreements a near tie (margins <= 0.27). The margin check above is the one that catches a real bug.
    assert rate >= 0.95
