"""What an in-process backend does to one reply's logits before sampling: the call threshold, then the grammar.

Two rules, each optional, shared by the MLX and llama.cpp backends so both decode the same way:
- the call threshold (`CallGate`): at the reply's first token, if the model gives the call opening (`<` of
  `<tool_call>`) less than the threshold's probability, the reply is declined and stays text to the end: no token
  holding "<" may be sampled, so it can't open a call on a later line either. eval.decision measures why this
  helps (the model ranks prompts well but puts the opening first on nearly all of them) and the threshold is
  chosen on the validation split, never on an eval set;
- the offered tools' grammar (nanoagent.constrain.Constraint).

    gate = CallGate(tokenizer, 0.7)
    rules = ReplyRules(gate.reply(), constraint)     # one per reply (rules_for builds it in a backend)
    logits = rules.mask(logits)                      # numpy, last axis = vocabulary
    rules.advance(token)                             # after sampling
    processor = rules.mlx_processor(raw_logits)      # the same as an mlx-lm logits processor

Left out: thresholds for later calls in a reply (only the first token decides).
"""

from __future__ import annotations

import numpy as np

from nanoagent.agent.backends.common import BackendError
from nanoagent.render import backend_tokenizer
from nanoagent.toolcall import OPEN


def call_probability(logits: np.ndarray, open_id: int) -> float:
    """The probability the logits give the call-opening token."""
    z = np.asarray(logits, dtype=np.float64).reshape(-1)
    z = z - z.max()
    return float(np.exp(z[open_id]) / np.exp(z).sum())


def open_call_id(tokenizer) -> int:
    """The id of the call opening's first token (`<` of `<tool_call>`): the token a reply that calls starts with."""
    return backend_tokenizer(tokenizer).encode(OPEN, add_special_tokens=False).ids[0]


def ids_holding(tokenizer, char: str) -> np.ndarray:
    """Ids of every token whose text holds `char`, special tokens aside (decode skips them)."""
    tok = backend_tokenizer(tokenizer)
    return np.array([i for i in range(tok.get_vocab_size()) if char in tok.decode([i])], dtype=np.int64)


def angle_ids(tokenizer) -> np.ndarray:
    """Ids of every token whose text holds "<" (<|im_end|> still ends a reply): a declined reply never writes one,
    so it cannot open a call later (a model trained on "One moment." before its calls would otherwise open one on
    the next line)."""
    return ids_holding(tokenizer, "<")


class CallGate:
    """A model's call threshold: the call-opening token and the tokens a declined reply may not write."""

    def __init__(self, tokenizer, threshold: float):
        from nanoagent.call_threshold import ThresholdError, check_threshold

        try:
            self.threshold = check_threshold(threshold, "call_threshold")
        except ThresholdError as e:  # the backends report bad settings as BackendError
            raise BackendError(str(e)) from None
        self.open_id = open_call_id(tokenizer)
        self.banned = angle_ids(tokenizer)

    def reply(self) -> "ReplyGate":
        return ReplyGate(self)


class ReplyGate:
    """One reply's state: undecided until its first token's logits are seen, then declined or not."""

    def __init__(self, gate: CallGate):
        self.gate = gate
        self.declined: bool | None = None

    def mask(self, logits: np.ndarray) -> np.ndarray:
        if self.declined is None:
            self.declined = call_probability(logits, self.gate.open_id) < self.gate.threshold
        if not self.declined:
            return logits
        out = np.array(logits, dtype=np.float32, copy=True)
        out[..., self.gate.banned[self.gate.banned < out.shape[-1]]] = -np.inf
        return out

    def advance(self, token: int) -> bool:
        return True


class ReplyRules:
    """The rules of one reply, applied in order (the gate first, then the grammar); None parts are skipped."""

    def __init__(self, *parts):
        self.parts = [p for p in parts if p is not None]

    def __bool__(self) -> bool:
        return bool(self.parts)

    def mask(self, logits: np.ndarray) -> np.ndarray:
        for p in self.parts:
            logits = p.mask(logits)
        return logits

    def advance(self, token: int) -> bool:
        return all([p.advance(int(token)) for p in self.parts])

    def mlx_processor(self, raw_logits: list):
        """An mlx-lm logits processor (`(tokens, logits) -> logits`) for one reply: it advances the rules by the
        token sampled since its last call and masks the logits; each step's unmasked logits go to `raw_logits`, so
        the caller can report the model's own log-probs."""
        import mlx.core as mx

        calls = [0]

        def process(tokens, logits):
            if calls[0]:
                self.advance(int(tokens[-1].item()))
            calls[0] += 1
            raw_logits.append(logits)
            allowed = np.isfinite(self.mask(np.array(logits.astype(mx.float32))))
            return mx.where(mx.array(allowed), logits, mx.array(-float("inf"), dtype=logits.dtype))

        return process


def rules_for(gate: CallGate | None, grammars, tools, require_call: bool = False) -> ReplyRules | None:
    """One reply's rules in a backend with an optional call gate and grammars (nanoagent.constrain.Grammars), or
    None when neither applies. A reply that must call (tool_choice "required", or grammars that always require a
    call) gets no threshold: it would ban the very token the grammar demands."""
    required = require_call or (grammars is not None and grammars.require_call)
    rules = ReplyRules(gate.reply() if gate and tools and not required else None,
                       grammars.constraint(tools, require_call or None) if grammars else None)
    return rules or None
