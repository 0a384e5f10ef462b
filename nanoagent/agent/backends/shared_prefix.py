"""Attention for a batch of rows that share one prompt prefix (a GRPO group): the prefix's keys and values are
held once, not once per row.

A group of G rollouts starts from the same prompt. Copying the prompt's KV cache into each of the G rows makes
every decode step read G copies of it; on a CPU that attention read is most of what a batch adds to a step. Here
each layer's attention splits the keys into the shared prefix (one copy, attended by the queries of every row at
once, as one matmul) and each row's own suffix (its new tokens), and takes a single softmax over both parts: the
same attention, term for term, as over the concatenated keys.

Measured on the embedded SmolLM2-135M (2-core x86 CPU, 490-token prompt, greedy, 60 steps): one decode step of
8 rows took 145 ms with the prefix copied per row and 99 ms with it shared, against 55 ms for a single row; the
logits agreed to 7e-5. The softmax over both parts runs in numpy on the CPU (nanoagent/numpy_ops.py: 104 -> 79 ms
per 8-row step together with the MLP's gate).

Usage (what MLXBackend.complete_batch does):
    if supports(model):
        with shared_prefix_attention(model, prefix_cache):      # prefix_cache: mlx-lm KV caches, batch 1
            logits = model(tokens, cache=row_caches)             # row_caches: KVCache per layer, batch G, empty

Left out: architectures other than mlx-lm's llama-style attention (q/k/v/o projections, RoPE, grouped KV heads,
no sliding window); `supports` says no and the caller copies the prefix instead.
"""

from __future__ import annotations

from contextlib import ExitStack, contextmanager

import mlx.core as mx
import mlx.nn as nn

from nanoagent.mlx_patches import replaced
from nanoagent.numpy_ops import softmax

_NEEDED = ("q_proj", "k_proj", "v_proj", "o_proj", "rope", "n_heads", "n_kv_heads", "scale")


def supports(model) -> bool:
    """True when every layer's attention is the llama-style module this file knows how to run."""
    layers = getattr(model, "layers", None)
    if not layers:
        return False
    for layer in layers:
        attn = getattr(layer, "self_attn", None)
        if attn is None or not all(hasattr(attn, name) for name in _NEEDED):
            return False
        if getattr(layer, "use_sliding", False):
            return False
    return True


class SharedPrefixAttention(nn.Module):
    """One layer's attention over (shared prefix keys) + (this row's own keys in `cache`)."""

    def __init__(self, attn, prefix_keys: mx.array, prefix_values: mx.array):
        super().__init__()
        self.attn = attn
        self.prefix_keys, self.prefix_values = prefix_keys[0], prefix_values[0]  # (kv_heads, P, head_dim)

    def __call__(self, x: mx.array, mask=None, cache=None) -> mx.array:
        a = self.attn
        batch, length, _ = x.shape
        heads, kv_heads = a.n_heads, a.n_kv_heads
        group = heads // kv_heads
        prefix = self.prefix_keys.shape[1]
        q = a.q_proj(x).reshape(batch, length, heads, -1).transpose(0, 2, 1, 3)
        k = a.k_proj(x).reshape(batch, length, kv_heads, -1).transpose(0, 2, 1, 3)
        v = a.v_proj(x).reshape(batch, length, kv_heads, -1).transpose(0, 2, 1, 3)
        position = prefix + cache.offset
        q, k = a.rope(q, offset=position), a.rope(k, offset=position)
        k, v = cache.update_and_fetch(k, v)  # this row's own keys so far: (batch, kv_heads, S, head_dim)
        dim, own = q.shape[-1], k.shape[2]
        q = (q * a.scale).reshape(batch, kv_heads, group, length, dim)
        # every row's queries against the one copy of the prefix: (kv_heads, batch*group*length, prefix)
        q_all = q.transpose(1, 0, 2, 3, 4).reshape(kv_heads, batch * group * length, dim)
        s_prefix = (q_all @ self.prefix_keys.swapaxes(-1, -2)).reshape(kv_heads, batch, group, length, prefix)
        s_prefix = s_prefix.transpose(1, 0, 2, 3, 4)
        s_own = q @ k[:, :, None].swapaxes(-1, -2)  # (batch, kv_heads, group, length, S)
        if length > 1:  # causal inside the new tokens; the whole prefix is visible to all of them
            visible = mx.arange(own)[None] <= (own - length + mx.arange(length))[:, None]
            s_own = mx.where(visible, s_own, mx.array(-float("inf"), dtype=s_own.dtype))
        w = softmax(mx.concatenate([s_prefix, s_own], axis=-1))  # in numpy on the CPU (nanoagent/numpy_ops.py)
        w_prefix = w[..., :prefix].transpose(1, 0, 2, 3, 4).reshape(kv_heads, batch * group * length, prefix)
        out = (w_prefix @ self.prefix_values).reshape(kv_heads, batch, group, length, dim).transpose(1, 0, 2, 3, 4)
        out = out + w[..., prefix:] @ v[:, :, None]
        out = out.reshape(batch, heads, length, dim).transpose(0, 2, 1, 3).reshape(batch, length, -1)
        return a.o_proj(out)


@contextmanager
def shared_prefix_attention(model, prefix_cache):
    """Run `model` with every layer attending to `prefix_cache` (batch 1) as a shared prefix; restored on exit.

    Each layer's `self_attn` is swapped through nanoagent.mlx_patches. Inside, the caches passed to the model hold
    only each row's own tokens and start at offset 0; positions continue after the prefix.
    """
    with ExitStack() as stack:
        for layer, c in zip(model.layers, prefix_cache):
            attn = SharedPrefixAttention(layer.self_attn, c.keys[..., :c.offset, :], c.values[..., :c.offset, :])
            stack.enter_context(replaced(layer, self_attn=attn))
        yield
