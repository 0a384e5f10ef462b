"""What one agent run did, in the shared trajectory format: saved as JSON after every step, read back by GRPO/eval.

A Trajectory holds the message list exactly as the model saw it (system, user task, then assistant / tool turns),
the tool specs, one Step per model call (raw reply, parsed calls, tool results, timings, token counts and, from
backends that give them, the exact prompt ids, sampled ids, their log-probs and a loss mask that is 1 only on
sampled tokens), tool stats, the final diff and the exit status.

    traj.save(path)                       # atomic JSON write; the loop calls it after every step
    Trajectory.load(path)
    traj.to_record()                      # canonical {"messages", "tools", "meta"} dict for SFT data and eval
    ids, mask, logprobs = traj.token_sequence()   # the whole conversation as sampled, for RL

A malformed tool call is kept as the model wrote it: an assistant turn with the raw text and no parsed calls,
followed by the `tool` turn carrying the parser's error. `Record.from_dict` currently refuses that pair (a tool turn
must follow parsed calls), so `to_record()` of such a run is a plain dict that does not validate yet.

Left out: storing the workspace itself (the diff is enough to rebuild it from the repo).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from nanoagent.atomic import write_json

FORMAT_VERSION = 1


@dataclass
class Step:
    index: int
    reply: str                                   # raw model text
    tool_calls: list[dict] = field(default_factory=list)   # parsed canonical calls (empty on a final answer)
    results: list[dict] = field(default_factory=list)      # per executed call: {name, ok, text, seconds, ...}
    error: dict | None = None                    # {"kind", "message"} when the reply's tool call was malformed
    finish_reason: str = "stop"  # "stop", "length" or "repeat" (the backend cut the reply at a repeated call)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    timings: dict = field(default_factory=dict)  # model_s, tools_s, harness_s, total_s
    prompt_ids: list[int] | None = None
    completion_ids: list[int] | None = None
    logprobs: list[float] | None = None          # raw (temperature 1) log-probs of the sampled ids
    sampling_logprobs: list[float] | None = None  # under the distribution they were drawn from, where given
    mask: list[int] | None = None                # 1 per completion id (the model's own tokens)


@dataclass
class Trajectory:
    task: str
    messages: list[dict]
    tools: list[dict]
    steps: list[Step] = field(default_factory=list)
    tool_stats: dict = field(default_factory=dict)   # name -> {calls, errors, seconds}
    diff: str = ""
    diff_stats: dict = field(default_factory=dict)
    exit_status: str = "running"
    exit_message: str = ""
    seconds: float = 0.0
    tokens: dict = field(default_factory=lambda: {"prompt": 0, "completion": 0, "context": 0})
    sandbox: dict = field(default_factory=dict)      # protections active for this run
    config: dict = field(default_factory=dict)
    meta: dict = field(default_factory=dict)         # backend, model, repo, started_at, ...
    version: int = FORMAT_VERSION

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "Trajectory":
        if not isinstance(data, dict) or "messages" not in data:
            raise ValueError("not a trajectory: expected an object with 'messages'")
        known = {f for f in cls.__dataclass_fields__}
        fields = {k: v for k, v in data.items() if k in known}
        fields["steps"] = [Step(**s) for s in data.get("steps", [])]
        return cls(**fields)

    def save(self, path: str | Path) -> Path:
        """Write atomically (temp file + rename) so a reader never sees half a trajectory."""
        return write_json(path, self.to_dict(), indent=None, ensure_ascii=False)

    @classmethod
    def load(cls, path: str | Path) -> "Trajectory":
        return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))

    def to_record(self) -> dict:
        """The conversation as a canonical record dict (nanoagent.record) with the run's outcome in meta."""
        meta = {"source": "agent", "task": self.task, "exit_status": self.exit_status, "diff": self.diff,
                "steps": len(self.steps), **self.meta}
        return {"messages": [dict(m) for m in self.messages], "tools": self.tools, "meta": meta}

    def token_sequence(self) -> tuple[list[int], list[int], list[float | None]]:
        """The whole conversation as token ids with mask 1 on sampled tokens only (prompt and tool turns 0).

        Needs ids from the backend on every step. Each step's prompt must extend the previous prompt + sampled
        tokens (true when the renderer reproduces the model's own text); otherwise ValueError says which step.
        """
        ids: list[int] = []
        mask: list[int] = []
        logprobs: list[float | None] = []
        for step in self.steps:
            if step.prompt_ids is None or step.completion_ids is None:
                raise ValueError(f"step {step.index} has no token ids (the backend did not return them)")
            if step.prompt_ids[:len(ids)] != ids:
                raise ValueError(f"step {step.index}: its prompt does not extend the previous turn's tokens "
                                 "(the reply was re-rendered differently); use the per-step ids instead")
            new = step.prompt_ids[len(ids):]
            ids += new
            mask += [0] * len(new)
            logprobs += [None] * len(new)
            ids += step.completion_ids
            mask += [1] * len(step.completion_ids)
            logprobs += step.logprobs if step.logprobs is not None else [None] * len(step.completion_ids)
        return ids, mask, logprobs
