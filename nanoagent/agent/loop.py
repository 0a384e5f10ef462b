"""The agent loop: one linear message list, one model call per turn, at most one tool call run per turn.

    traj = run_agent(backend, workspace, "make the tests pass", AgentConfig(max_turns=10))

Each turn: the backend completes the conversation; nanoagent.toolcall.parse reads the reply; a final answer (no
tool call) ends the run; otherwise the call runs in the sandboxed workspace and its result is appended as a `tool`
turn. A malformed call gets the parser's error message as its tool result and the loop goes on. Budgets end the run
too: turns, tokens (as counted by the backend with the model's tokenizer: the context of the latest call and the
sum of generated tokens), wall time, and consecutive malformed calls. When the model runs the same shell command
`repeat_warning` times in a row, that result (and each further repeat's) ends with a note telling it so and to try
something else (tools.REPEAT_NOTE); any other executed call breaks the streak. The trajectory (with the diff so far) is
saved after every step; the exit status is one of ExitStatus.

`run_agents(backend, workspaces, task, config)` runs several rollouts of one task in lockstep, using the backend's
`complete_batch` when it has one (GRPO groups), else one call after another.

Left out: retries on backend errors (the run ends with status backend_error), summarising long histories,
human-in-the-loop confirmation (the sandbox is the safety net).
"""

from __future__ import annotations

import enum
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from nanoagent.agent.diff import diff_stats
from nanoagent.agent.sandbox import Workspace
from nanoagent.agent.tools import REPEAT_NOTE, TOOLS, call_tool
from nanoagent.agent.trajectory import Step, Trajectory
from nanoagent.config import option
from nanoagent.toolcall import ToolCallError, parse

SYSTEM_PROMPT = (
    "You are a coding agent working in a copy of a software repository; the shell starts in its root folder. "
    "Read files and run tests with the shell tool, and edit files with apply_patch. Make one tool call per turn. "
    "When the task is done, reply with a short summary and no tool call."
)


class ExitStatus(str, enum.Enum):
    ANSWERED = "answered"            # the model replied without a tool call
    MAX_TURNS = "max_turns"
    MAX_TOKENS = "max_tokens"        # context limit or generated-token budget
    TIMEOUT = "timeout"              # wall time
    FORMAT_ERRORS = "format_errors"  # too many malformed tool calls in a row
    BACKEND_ERROR = "backend_error"  # the model call raised
    INTERRUPTED = "interrupted"      # Ctrl-C


@dataclass
class AgentConfig:
    max_turns: int = option(20, "model calls per run")
    max_tokens_per_turn: int = option(512, "new tokens per model call")
    # SmolLM2's context is 8192 tokens
    context_limit: int = option(8192, "stop when prompt + reply of a call reach this many tokens")
    token_budget: int = option(32768, "stop when the run's generated tokens reach this")
    wall_time: float = option(600.0, "seconds for the whole run")
    command_timeout: float = option(30.0, "seconds per shell command")
    max_format_errors: int = option(3, "stop after this many malformed tool calls in a row")
    repeat_warning: int = option(3, "identical shell commands in a row before the result warns; 0: never")
    parallel_tool_calls: bool = option(False, "run every call of a turn, not only the first")
    temperature: float = option(0.0, "sampling temperature; 0: greedy")
    seed: int | None = option(0, "sampling seed; step i uses seed + i")
    system_prompt: str = SYSTEM_PROMPT
    diff_every_step: bool = option(True, "keep the saved trajectory's diff current after each step")
    trajectory_path: str | None = None   # where to save; None: keep in memory only


class Episode:
    """One rollout's state. `run_agent` drives it; a batched driver can drive many."""

    def __init__(self, workspace: Workspace, task: str, config: AgentConfig, meta: dict | None = None,
                 path: str | Path | None = None):
        if not task.strip():
            raise ValueError("the task is empty: say what the agent should do")
        self.ws, self.config, self.path = workspace, config, path or config.trajectory_path
        messages = [{"role": "system", "content": config.system_prompt}, {"role": "user", "content": task}]
        self.traj = Trajectory(task=task, messages=messages, tools=TOOLS, config=asdict(config),
                               sandbox=workspace.protections(), meta=dict(meta or {}))
        self.traj.meta.setdefault("started_at", time.strftime("%Y-%m-%dT%H:%M:%S%z"))
        if workspace.skipped:
            self.traj.meta["not_copied"] = list(workspace.skipped)
        self.start = time.monotonic()
        self.format_errors = 0
        self.last_command, self.repeats = None, 0   # the streak of identical shell commands
        self.done = False
        self.save()

    @property
    def messages(self) -> list[dict]:
        return self.traj.messages

    def remaining(self) -> float:
        return self.config.wall_time - (time.monotonic() - self.start)

    def request(self) -> dict:
        """Keyword arguments for the next backend call."""
        seed = None if self.config.seed is None else self.config.seed + len(self.traj.steps)
        return {"max_tokens": self.config.max_tokens_per_turn, "temperature": self.config.temperature, "seed": seed}

    def observe(self, completion, model_s: float) -> Step:
        """Take the model's reply: run its tool call, append the turns, check budgets, save."""
        t0 = time.perf_counter()
        cfg, traj = self.config, self.traj
        ids = completion.completion_ids
        step = Step(index=len(traj.steps), reply=completion.text, finish_reason=completion.finish_reason,
                    prompt_tokens=completion.prompt_tokens, completion_tokens=completion.completion_tokens,
                    prompt_ids=completion.prompt_ids, completion_ids=ids, logprobs=completion.logprobs,
                    sampling_logprobs=getattr(completion, "sampling_logprobs", None),
                    mask=[1] * len(ids) if ids is not None else None)
        traj.steps.append(step)
        traj.tokens["prompt"] += completion.prompt_tokens
        traj.tokens["completion"] += completion.completion_tokens
        traj.tokens["context"] = completion.prompt_tokens + completion.completion_tokens
        tools_s = 0.0
        try:
            reply = parse(completion.text, TOOLS)
        except ToolCallError as e:
            self.format_errors += 1
            step.error = {"kind": e.kind, "message": str(e)}
            self.messages.append({"role": "assistant", "content": completion.text})
            self.messages.append({"role": "tool", "content": f"Error: {e}"})
            self._count("malformed", False, 0.0)
            if self.format_errors >= cfg.max_format_errors:
                self.finish(ExitStatus.FORMAT_ERRORS, f"{self.format_errors} malformed tool calls in a row")
        else:
            self.format_errors = 0
            message = {"role": "assistant", "content": reply.content}
            if reply.tool_calls:
                message["tool_calls"] = reply.tool_calls
            self.messages.append(message)
            step.tool_calls = reply.tool_calls
            if not reply.tool_calls:
                cut = "; its reply was cut at max_tokens_per_turn" if completion.finish_reason == "length" else ""
                self.finish(ExitStatus.ANSWERED, "the model answered without a tool call" + cut)
            to_run = reply.tool_calls if cfg.parallel_tool_calls else reply.tool_calls[:1]
            for call in to_run:
                name = call["function"]["name"]
                timeout = max(1.0, min(cfg.command_timeout, self.remaining()))
                t = time.perf_counter()
                text, ok, details = call_tool(self.ws, call, timeout=timeout)
                seconds = time.perf_counter() - t
                tools_s += seconds
                if self._repeated(call):
                    text += REPEAT_NOTE.format(n=self.repeats)
                    details = {**details, "repeated": self.repeats}
                if len(to_run) < len(reply.tool_calls):
                    text += (f"\n[Only the first of {len(reply.tool_calls)} tool calls was run: "
                             "make one tool call per turn.]")
                self._count(name, ok, seconds)
                step.results.append({"name": name, "ok": ok, "text": text, "seconds": round(seconds, 4), **details})
                self.messages.append({"role": "tool", "name": name, "content": text})
        if not self.done:
            self._check_budgets()
        step.timings = {"model_s": round(model_s, 4), "tools_s": round(tools_s, 4)}
        self.save(step, t0)
        return step

    def _repeated(self, call: dict) -> bool:
        """Count this executed call into the streak of identical shell commands; True once it reaches the limit."""
        fn = call["function"]
        cmd = fn["arguments"].get("cmd") if fn["name"] == "shell" else None
        cmd = cmd.strip() if isinstance(cmd, str) else None
        self.repeats = (self.repeats + 1 if cmd == self.last_command else 1) if cmd is not None else 0
        self.last_command = cmd
        return bool(self.config.repeat_warning) and self.repeats >= self.config.repeat_warning

    def _check_budgets(self):
        cfg, traj = self.config, self.traj
        if len(traj.steps) >= cfg.max_turns:
            self.finish(ExitStatus.MAX_TURNS, f"reached {cfg.max_turns} turns")
        elif traj.tokens["context"] >= cfg.context_limit:
            self.finish(ExitStatus.MAX_TOKENS, f"the conversation reached {traj.tokens['context']} tokens "
                                               f"(context limit {cfg.context_limit})")
        elif traj.tokens["completion"] >= cfg.token_budget:
            self.finish(ExitStatus.MAX_TOKENS, f"generated {traj.tokens['completion']} tokens "
                                               f"(budget {cfg.token_budget})")
        elif self.remaining() <= 0:
            self.finish(ExitStatus.TIMEOUT, f"ran past the wall-time budget of {cfg.wall_time:g} s")

    def _count(self, name: str, ok: bool, seconds: float):
        s = self.traj.tool_stats.setdefault(name, {"calls": 0, "errors": 0, "seconds": 0.0})
        s["calls"] += 1
        s["errors"] += not ok
        s["seconds"] = round(s["seconds"] + seconds, 4)

    def finish(self, status: ExitStatus, message: str):
        self.done = True
        self.traj.exit_status, self.traj.exit_message = status.value, message

    def save(self, step: Step | None = None, t0: float | None = None):
        traj = self.traj
        if self.done or (self.config.diff_every_step and step is not None):
            traj.diff = self.ws.diff()
            traj.diff_stats = diff_stats(traj.diff)
        traj.seconds = round(time.monotonic() - self.start, 4)
        if step is not None:
            step.timings["harness_s"] = round(time.perf_counter() - t0 - step.timings["tools_s"], 4)
            step.timings["total_s"] = round(step.timings["model_s"] + time.perf_counter() - t0, 4)
        if self.path:
            traj.save(self.path)


def run_agent(backend, workspace: Workspace, task: str, config: AgentConfig | None = None, *,
              on_step: Callable[[Step, Trajectory], None] | None = None, meta: dict | None = None) -> Trajectory:
    """Run the agent on `task` in `workspace` until it answers or a budget ends it; returns the trajectory."""
    config = config or AgentConfig()
    ep = Episode(workspace, task, config, meta)
    try:
        while not ep.done:
            if ep.remaining() <= 0:
                ep.finish(ExitStatus.TIMEOUT, f"ran past the wall-time budget of {config.wall_time:g} s")
                break
            t = time.perf_counter()
            try:
                completion = backend.complete(ep.messages, TOOLS, **ep.request())
            except Exception as e:  # any model failure ends the run with a recorded reason, never a crash
                ep.finish(ExitStatus.BACKEND_ERROR, f"{type(e).__name__}: {e}")
                break
            step = ep.observe(completion, time.perf_counter() - t)
            if on_step:
                on_step(step, ep.traj)
    except KeyboardInterrupt:
        ep.finish(ExitStatus.INTERRUPTED, "interrupted by the user")
    ep.save()
    return ep.traj


def run_agents(backend, workspaces: list[Workspace], task: str, config: AgentConfig | None = None, *,
               paths: list[str | Path] | None = None, meta: dict | None = None) -> list[Trajectory]:
    """Several rollouts of one task in lockstep (one fresh workspace each); batched when the backend can."""
    config = config or AgentConfig()
    paths = paths or [None] * len(workspaces)
    eps = [Episode(ws, task, config, {**(meta or {}), "rollout": i}, p)
           for i, (ws, p) in enumerate(zip(workspaces, paths))]
    batch = getattr(backend, "complete_batch", None)
    while True:
        for ep in eps:
            if not ep.done and ep.remaining() <= 0:
                ep.finish(ExitStatus.TIMEOUT, f"ran past the wall-time budget of {config.wall_time:g} s")
        active = [ep for ep in eps if not ep.done]
        if not active:
            break
        t = time.perf_counter()
        try:
            if batch is not None:
                completions = batch([ep.messages for ep in active], TOOLS, **active[0].request())
            else:
                completions = [backend.complete(ep.messages, TOOLS, **ep.request()) for ep in active]
        except Exception as e:  # see run_agent
            for ep in active:
                ep.finish(ExitStatus.BACKEND_ERROR, f"{type(e).__name__}: {e}")
            break
        model_s = (time.perf_counter() - t) / len(active)
        for ep, completion in zip(active, completions):
            ep.observe(completion, model_s)
    for ep in eps:
        ep.save()
    return [ep.traj for ep in eps]
