"""Stop a reply at the first tool call that repeats an earlier call of the same reply: the `stop_repeats` option of
the in-process backends (MLX, llama.cpp).

A small model that writes the same call twice under greedy decoding loops: every later call is another copy, until
the token cap. Stopping there and cutting the copy off keeps the calls it made before. Measured offline on the
stored replies of quality-gpu-300-obj (train/results/quality-gpu-300-obj/repeat_rescore.py): BFCL parallel 17.5 ->
19.5, parallel_multiple 12.5 -> 14.5, no item lost on any suite, about a tenth of the completion tokens saved.

The check runs only after a token whose text holds ">" (a call can only close there), on the reply decoded so far
(nanoagent.toolcall.first_repeat). The cut falls on a token boundary: the reply keeps the ids whose text is
everything before the repeat (trailing whitespace aside). Where one token spans that boundary (SmolLM2 has "><"
for calls written with nothing between them) no cut would leave both calls whole, so the reply stops with the copy
kept. The ids, their log-probs and the text are cut together, and the reply's finish reason is "repeat".

    stop = RepeatStop(tokenizer)           # once per backend
    keep = stop.cut(ids)                   # after each sampled token: None, or how many ids the reply keeps

A reply that means to repeat a call (an agent reading a file again after patching it, all in one reply) is cut
there too, with every call after it; `--no-stop-repeats` keeps such replies whole.

Left out: repeats that differ only in whitespace inside a string value (they are different calls here).
"""

from __future__ import annotations

from nanoagent.agent.backends.reply_rules import ids_holding
from nanoagent.toolcall import CLOSE, first_repeat

FINISH = "repeat"  # the finish reason of a reply stopped here


class RepeatStop:
    """The stop-at-repeat rule for one tokenizer (the set of ids after which a call can close)."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer
        self.closing = frozenset(ids_holding(tokenizer, ">").tolist())

    def text(self, ids) -> str:
        return self.tokenizer.decode(list(ids), skip_special_tokens=False)

    def cut(self, ids: list[int]) -> int | None:
        """How many of the reply's ids to keep when its last id closed a call that repeats an earlier one (all of
        them when no token boundary falls before the copy); None otherwise (go on)."""
        if not ids or ids[-1] not in self.closing or CLOSE not in self.text(ids[-len(CLOSE):]):  # cheap first
            return None
        text = self.text(ids)
        start = first_repeat(text)
        if start is None:
            return None
        before = text[:start].rstrip()
        keep = len(ids)
        while keep > 0 and len(self.text(ids[:keep - 1]).rstrip()) >= len(before):
            keep -= 1
        return keep if self.text(ids[:keep]).rstrip() == before else len(ids)
