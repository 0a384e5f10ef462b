"""Several conversations generated together in one llama.cpp context: the GGUF backend's `complete_batch`.

llama-cpp-python's high-level `Llama` runs one sequence. Here a second context over the same loaded weights holds
up to G sequences in one unified KV cache (llama.cpp's own multi-sequence batching, `llama_batch` with a sequence
id per token): the prefix every prompt shares (a GRPO group's whole prompt) is prefilled once on sequence 0 and
shared with the others (`llama_memory_seq_cp` tags the same cells, no copy), each row's own remaining prompt ids go
in with their positions, and every decoding step feeds one token per row still generating, in one `llama_decode`.
A decoding step reads the weights once for the whole group, which is where the speed-up over one stream comes from
on a CPU (bench/grpo_rollouts.py measures it).

Sampling, the per-reply rules (call threshold, grammar) and the stop at a repeated call are the single-stream
path's (sampling.py, reply_rules.py, repeat_stop.py), on each row's logits, with one seeded generator for the batch; each Completion carries the exact
ids, the model's own log-probs and the sampled distribution's, like the other backends.

    rows = generate_rows(backend, prompts, rules, max_tokens=128, temperature=1.0, seed=0)
    # -> [(ids, raw_logprobs, sampling_logprobs, finish, call_probability), ...] in prompt order

The batch context is sized for each call's prompts and `max_tokens` and rebuilt larger when a call needs more.
Left out: reusing the single-stream context's cache (the batch context is cleared per call), a cap at the model's
trained context length (the caller's prompts and max_tokens decide the size).
"""

from __future__ import annotations

import numpy as np

from nanoagent.agent.backends.common import BackendError, common_prefix
from nanoagent.agent.backends.repeat_stop import FINISH as REPEAT
from nanoagent.agent.backends.reply_rules import call_probability
from nanoagent.agent.backends.sampling import log_softmax_numpy, sample_numpy


class SequenceBatch:
    """A llama.cpp context for up to `n_seq` sequences over an already loaded `Llama`'s weights."""

    def __init__(self, llm, n_seq: int, n_ctx: int):
        import llama_cpp
        from llama_cpp import _internals

        params = llama_cpp.llama_context_params()
        ctypes_copy(llm.context_params, params)  # the single-stream context's settings: threads, attention, types
        params.n_ctx, params.n_seq_max, params.kv_unified = n_ctx, n_seq, True
        # flash attention off, as llama-cpp-python's own context has it, whatever that context was given: a group of
        # 8 x 128 tokens decoded 9% faster without it on a 2-core EPYC (246-255 against 228-234 tokens/s with it,
        # three paired rounds each, the 135M model), the unified cache holding every row
        params.flash_attn_type = llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED
        self.n_batch = max(int(params.n_batch), n_seq)
        params.n_batch = params.n_ubatch = self.n_batch
        self.lib, self.n_seq, self.n_ctx = llama_cpp, n_seq, n_ctx
        self.ctx = _internals.LlamaContext(model=llm._model, params=params, verbose=False)
        self.n_vocab = llm.n_vocab()
        self.batch = llama_cpp.llama_batch_init(self.n_batch, 0, n_seq)

    def close(self) -> None:
        if self.batch is not None:
            self.lib.llama_batch_free(self.batch)
            self.batch = None
        self.ctx.close()

    def clear(self) -> None:
        self.lib.llama_memory_clear(self.lib.llama_get_memory(self.ctx.ctx), True)

    def share(self, src: int, dst: int) -> None:
        self.lib.llama_memory_seq_cp(self.lib.llama_get_memory(self.ctx.ctx), src, dst, -1, -1)

    def decode(self, entries: list[tuple[int, int, int, bool]]) -> dict[int, np.ndarray]:
        """Feed (token, position, sequence, want_logits) entries, in chunks of n_batch; returns the logits of the
        entries that asked for them, by entry index."""
        out = {}
        for start in range(0, len(entries), self.n_batch):
            chunk = entries[start:start + self.n_batch]
            b = self.batch
            b.n_tokens = len(chunk)
            wanted = []
            for i, (token, pos, seq, want) in enumerate(chunk):
                b.token[i], b.pos[i], b.n_seq_id[i], b.logits[i] = token, pos, 1, want
                b.seq_id[i][0] = seq
                if want:
                    wanted.append(i)
            rc = self.lib.llama_decode(self.ctx.ctx, b)
            if rc != 0:
                raise BackendError(f"llama.cpp could not decode a batch of {len(chunk)} tokens (llama_decode "
                                   f"returned {rc}); the batch context holds {self.n_ctx} positions")
            for i in wanted:
                ptr = self.lib.llama_get_logits_ith(self.ctx.ctx, i)
                out[start + i] = np.ctypeslib.as_array(ptr, shape=(self.n_vocab,)).astype(np.float64)
        return out


def ctypes_copy(src, dst) -> None:
    for name, _ in type(src)._fields_:
        setattr(dst, name, getattr(src, name))


def context_size(prompts: list[list[int]], shared: int, max_tokens: int) -> int:
    """Positions the unified cache needs: the shared prefix once, each row's own prompt ids and new tokens."""
    need = shared + sum(len(p) - shared + max_tokens for p in prompts)
    return 256 * ((need + 255) // 256)


def generate_rows(backend, prompts: list[list[int]], rules: list, *, max_tokens: int, temperature: float,
                  seed: int | None) -> list[tuple[list[int], list[float], list[float], str, float]]:
    """Generate one reply per prompt together; `rules` holds a ReplyRules or None per row. Per row: (ids, raw
    log-probs, sampling log-probs, finish, the first token's call probability)."""
    n = len(prompts)
    shared = min(common_prefix(prompts[0], p) for p in prompts) if n > 1 else len(prompts[0]) - 1
    shared = min(shared, min(len(p) for p in prompts) - 1)  # every row feeds at least its last prompt id
    engine = backend.sequence_batch(n, context_size(prompts, shared, max_tokens))
    engine.clear()
    rng = np.random.default_rng(seed)
    if shared:
        engine.decode([(t, i, 0, False) for i, t in enumerate(prompts[0][:shared])])
        for row in range(1, n):
            engine.share(0, row)
    entries, last = [], {}
    for row, p in enumerate(prompts):
        for pos in range(shared, len(p)):
            entries.append((p[pos], pos, row, pos == len(p) - 1))
        last[row] = len(entries) - 1
    got = engine.decode(entries)
    logits = {row: got[last[row]] for row in range(n)}
    out = [([], [], [], "length") for _ in range(n)]
    p_call = [call_probability(logits[row], backend.open_id) for row in range(n)]
    active = list(range(n))
    for step in range(max_tokens):
        feed = []
        for row in active:
            lg, r = logits[row], rules[row]
            if r is None:
                token, raw, sampled = sample_numpy(lg, temperature, backend.top_p, rng)
            else:  # within the rules; the model's own log-prob of the token
                token, _, sampled = sample_numpy(r.mask(lg), temperature, backend.top_p, rng)
                raw = float(log_softmax_numpy(lg)[token])
                r.advance(token)
            ids, raws, samples, _ = out[row]
            ids.append(token), raws.append(raw), samples.append(sampled)
            if token in backend.stop_ids:
                out[row] = (ids, raws, samples, "stop")
            elif backend.repeat_stop and (keep := backend.repeat_stop.cut(ids)) is not None:
                del ids[keep:], raws[keep:], samples[keep:]
                out[row] = (ids, raws, samples, REPEAT)
            elif step + 1 < max_tokens:
                feed.append(row)
        if not feed:
            break
        got = engine.decode([(out[row][0][-1], len(prompts[row]) + step, row, True) for row in feed])
        logits = {row: got[i] for i, row in enumerate(feed)}
        active = feed
    return [(*row, p) for row, p in zip(out, p_call)]
