"""GRPO's tool-call task family: single-turn tasks from our own data, one sampled reply per group member.

    tasks = load_toolcall_tasks("valid")                    # data/default/valid.jsonl, checked
    completions, error = rollout_toolcall_group(backend, tasks[0], cfg, seed)
    scored = score_toolcall_group(completions, tasks[0], cfg.toolcall_rewards)
    group = toolcall_group(backend, tasks[0], cfg, seed)   # all of it, as a train.grpo_rollout.Group
    train, val = hold_out(tasks, 100, seed=0)              # a seeded validation sample, out of the pool
    result = validate(backend, val, cfg)                   # greedy replies scored as eval scores them

A task is an eval item (nanoagent.suites.EvalItem), made from a canonical record by the same conversion the `valid` eval
suite uses: the messages before the record's first assistant turn, the tools it offered, and that turn's calls as
the expected answer (none when it answered in text: the task rewards declining; several: parallel calls). Sources
(`toolcall_tasks`, comma-separated for several):
    valid   data/default/valid.jsonl, the validation split of the data build; missing, it is built the way
            train.dft builds its default data (train.dft.resolve_data)
    PATH    a JSONL file of records (another build's valid.jsonl, or a synthetic sample written by
            `python -m data_recipes.synthetic --out FILE`); a folder means its valid.jsonl
Never BFCL or another eval set. Every expected call is checked against its own tool's JSON Schema on load
(nanoagent.toolcall.check_arguments): a task whose answer its own tools would refuse is an error naming it, raised
before any model loads.

The rollout renders the prompt as eval does (the backend's render_prompt of messages and tools) and samples the
group in one batch with the MLX backend's complete_batch, which keeps the exact sampled ids and raw log-probs; each
reply becomes one loss sample (train.grpo_loss.completion_sample). Rewards: nanoagent.tasks.toolcall_rewards.

Validation (`val_n`) answers held-out tasks greedily, one reply each, and scores them with eval's checker
(nanoagent.scoring.run_suite). Its score is the balanced accuracy: the mean of the accuracy on tasks that expect
calls and on tasks that expect none, so a policy cannot climb it by calling on everything (or on nothing).

Left out: multi-turn tool-call tasks (tool results fed back to the model), constrained decoding during rollouts.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from nanoagent.suites import DEFAULT_VALID_PATH, EvalItem, SuiteError, load_valid
from nanoagent.checker import OMITTABLE
from nanoagent.scoring import score_reply
from nanoagent.tasks.spec import TaskError
from nanoagent.tasks.toolcall_rewards import combine, no_call_expected
from nanoagent.toolcall import check_arguments
from train.grpo_rollout import Group

SOURCE_HELP = ("'valid' (data/default/valid.jsonl) or a JSONL file of records: a data build's valid.jsonl, or a "
               "synthetic sample from `python -m data_recipes.synthetic --out FILE`")


def default_valid() -> Path:
    """data/default/valid.jsonl, built from the default recipe first when the data folder is missing (train.dft's
    resolve_data does the same for its default data)."""
    path = Path(DEFAULT_VALID_PATH)
    if path.is_file():
        return path
    from train.dft import resolve_data

    print(f"{path} is missing: building the default data first, as train.dft does "
          "(`python -m data_recipes.build --offline` builds it by hand)", flush=True)
    _, valid = resolve_data(SimpleNamespace(data=None, recipe=None))
    if valid is None or not valid.is_file():
        raise TaskError("tool-call task source 'valid'", f"{path} does not exist (the data folder has no validation "
                        "split): rebuild it with `python -m data_recipes.build --offline`, or give --toolcall-tasks "
                        "FILE")
    return valid


def source_path(source: str) -> Path:
    if source == "valid":
        return default_valid()
    path = Path(source).expanduser()
    if path.is_dir():
        path = path / "valid.jsonl"
    if not path.is_file():
        raise TaskError(f"tool-call task source {source!r}", f"{path} does not exist; give {SOURCE_HELP}")
    from train.data import DataError, unfinished

    try:
        unfinished(path.parent)
    except DataError as e:
        raise TaskError(f"tool-call task source {source!r}", str(e)) from None
    return path


def expected_arguments(allowed: dict) -> dict:
    """The arguments of an expected call: each argument's first allowed value; one that may only be left out is."""
    return {k: next(v for v in values if v != OMITTABLE) for k, values in allowed.items()
            if any(v != OMITTABLE for v in values)}


def check_task(task: EvalItem, source: Path) -> None:
    """TaskError naming the task when an expected call does not fit the tools the task itself offers."""
    specs = {t["function"]["name"]: t["function"].get("parameters") or {} for t in task.tools}
    where = f"tool-call task {task.id} ({source})"
    for n, answer in enumerate(task.answers, 1):
        (name, allowed), = answer.items()
        if name not in specs:
            raise TaskError(where, f"expected call {n} names {name!r}, which its own tools do not offer "
                            f"({', '.join(sorted(specs))}); fix or drop this record")
        args = expected_arguments(allowed)
        problems = check_arguments(args, specs[name])
        if problems:
            raise TaskError(where, f"expected call {n}, {name}({json.dumps(args, ensure_ascii=False)[:200]}), does "
                            f"not fit its own tool's schema: {'; '.join(problems[:3])}; fix or drop this record")


def load_toolcall_tasks(source: str = "valid") -> list[EvalItem]:
    """The tool-call tasks `source` names (see the module docstring), each checked; TaskError names the file or the
    task that is wrong, and an empty result is an error too."""
    if not isinstance(source, str) or not source.strip():
        raise TaskError("tool-call task source", f"{source!r} is empty: give {SOURCE_HELP}")
    tasks = []
    for part in (p.strip() for p in source.split(",")):
        if not part:
            continue
        path = source_path(part)
        try:
            items, dropped = load_valid(path, suite=f"toolcall:{path}")
        except SuiteError as e:
            raise TaskError(f"tool-call task source {part!r}", str(e)) from None
        if not items:
            why = ", ".join(f"{n} {reason}" for reason, n in dropped.items()) or "the file is empty"
            raise TaskError(f"tool-call task source {part!r}", f"{path} holds no usable tasks ({why}); give "
                            f"{SOURCE_HELP}")
        for task in items:
            check_task(task, path)
        tasks += items
    if not tasks:
        raise TaskError("tool-call task source", f"{source!r} names no file: give {SOURCE_HELP}")
    return tasks


def hold_out(tasks: list[EvalItem], n: int, seed: int) -> tuple[list[EvalItem], list[EvalItem]]:
    """(training tasks, n validation tasks): a seeded random sample leaves the pool, and so does every copy of a
    held-out task (same messages and tools) so none is trained on; TaskError when too few remain."""
    import random

    if n <= 0:
        return tasks, []
    if n > len(tasks) - 1:
        raise TaskError("tool-call validation (val_n)", f"{n} held-out tasks leave none of the {len(tasks)} tool-call "
                        "tasks to train on: lower val_n or give more tasks (--toolcall-tasks)")

    def key(t):
        return json.dumps([t.messages, t.tools], sort_keys=True, ensure_ascii=False)

    picked = sorted(random.Random(seed).sample(range(len(tasks)), n))
    held = {key(tasks[i]) for i in picked}
    train = [t for t in tasks if key(t) not in held]
    if not train:
        raise TaskError("tool-call validation (val_n)", f"the {n} held-out tasks and their copies are all of the "
                        f"{len(tasks)} tool-call tasks: lower val_n or give more tasks (--toolcall-tasks)")
    return train, [tasks[i] for i in picked]


def validate(backend, tasks: list[EvalItem], cfg) -> dict:
    """Greedy replies to the held-out tasks, scored by eval's checker: {"metrics": {val_score (balanced accuracy),
    val_accuracy, val_call_accuracy, val_no_call_accuracy, val_valid_rate, val_seconds, val_n}, "items": [...]}."""
    from nanoagent.scoring import run_suite
    from nanoagent.stats import mean

    result = run_suite(backend, tasks, max_tokens=cfg.toolcall_max_tokens, temperature=0.0, seed=cfg.seed)
    items = result["items"]
    call_acc = mean(o["correct"] for o in items if o["expect"] != "no_call")
    no_call_acc = mean(o["correct"] for o in items if o["expect"] == "no_call")
    m = result["metrics"]
    return {"metrics": {"val_score": mean(x for x in (call_acc, no_call_acc) if x is not None),
                        "val_accuracy": m["accuracy"], "val_call_accuracy": call_acc,
                        "val_no_call_accuracy": no_call_acc, "val_valid_rate": m["valid_rate"],
                        "val_seconds": m["seconds"], "val_n": len(items)},
            "items": items}


def rollout_toolcall_group(backend, task: EvalItem, cfg, seed: int, n: int | None = None, greedy: bool = False):
    """n (default cfg.group_size) replies to one task's prompt, sampled as one batch where the backend can; returns
    (completions or Nones, error text or '')."""
    n = n or cfg.group_size
    kw = {"max_tokens": cfg.toolcall_max_tokens, "temperature": 0.0 if greedy else cfg.temperature}
    try:
        batch = getattr(backend, "complete_batch", None)
        if batch is not None:
            return batch([task.messages] * n, task.tools, seed=seed, **kw), ""
        return [backend.complete(task.messages, task.tools, seed=seed + i, **kw) for i in range(n)], ""
    except Exception as e:  # never let one group end the run
        return [None] * n, f"{type(e).__name__}: {e}"


def score_toolcall_group(completions, task: EvalItem, weights: dict) -> dict:
    """Totals with the configured part weights, every part for the logs, and how many rollouts crashed."""
    texts = [c.text if c is not None else None for c in completions]
    totals, parts = combine(texts, [task] * len(texts), weights)
    return {"totals": totals, "parts": parts, "crashed": sum(1 for c in completions if c is None)}


def toolcall_group(backend, task: EvalItem, cfg, seed: int, first_rollout: int = 0) -> Group:
    """Roll out, score and turn one tool-call task's group into log records and loss samples."""
    from train.grpo_loss import completion_sample, group_advantages

    completions, error = rollout_toolcall_group(backend, task, cfg, seed)
    scored = score_toolcall_group(completions, task, cfg.toolcall_rewards)
    adv, zero = group_advantages(scored["totals"], scale_std=cfg.loss == "grpo")
    g = Group("toolcall", scored["totals"], scored["parts"], zero, crashed=scored["crashed"],
              errors=int(bool(error)), no_call=no_call_expected(task))
    for i, c in enumerate(completions):
        rec = {"family": "toolcall", "task": task.id, "rollout": i, "reward": scored["totals"][i],
               "advantage": adv[i], "parts": {n: v[i] for n, v in scored["parts"].items()}, "error": error,
               "expected": task.answers}
        if c is not None:
            g.tokens += c.completion_tokens
            verdict = score_reply(c.text, task)
            rec.update(reply=c.text, finish_reason=c.finish_reason, completion_tokens=c.completion_tokens,
                       kind=verdict["kind"],
                       # the viewer (eval.html trajectories) shows this as a chat
                       trajectory={"task": task.id, "messages": task.messages + [{"role": "assistant",
                                                                                 "content": c.text}],
                                   "exit_status": "answered" if c.finish_reason == "stop" else c.finish_reason})
            if not zero and adv[i] != 0.0 and c.completion_ids:
                if c.prompt_ids is None or c.logprobs is None:
                    rec["error"] = rec["error"] or ("the backend returned no token ids or log-probs: GRPO needs a "
                                                    "backend that keeps them (the MLX backend)")
                    g.errors += 1
                else:
                    g.keep([completion_sample(c.prompt_ids, c.completion_ids, c.logprobs, adv[i],
                                              c.finish_reason == "length", first_rollout + i)], cfg.mask_truncated)
        g.records.append(rec)
    return g
