"""Specialist eval: a model on hand-written requests for one tool set, every tool offered in every prompt.

    python -m eval.specialist --model x.gguf --tools TOOLS.json --requests REQUESTS.jsonl --out RESULT.json
        [--label NAME] [--examples EXAMPLES.jsonl] [--constrain] [--max-tokens 160] [--system TEXT]

A request line is {"id", "kind", "question", "answer"}: kind single | parallel | parallel_multiple | no_call |
clarify, answer BFCL's possible answers ([] where the right reply makes no call), optionally "near_miss" and
"missing". `--examples` (OpenAI chat conversations: the first assistant turn's exact calls, or no call) is scored as
a separate part. Greedy replies, scored by nanoagent.scoring: per part accuracy with a bootstrap interval, the
schema-valid share of call items, no-call accuracy, splits by kind, by tool and near misses, every reply whole.
Bad input is exit code 2, naming file, line and field, before the model loads. In-process: `score_file(backend,
tools, requests_path, examples_path)`.

Left out: judging a clarifying question's wording (no call is right), multi-turn requests, executing the calls.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import nanoagent  # noqa: F401  (OpenBLAS before mlx)
from eval.config import ConfigError, load_eval_backend
from eval.results import label_for, machine, now
from nanoagent import config as layered
from nanoagent.atomic import write_json
from nanoagent.checker import OMITTABLE, type_matches
from nanoagent.record import Record, RecordError, jsonl_lines
from nanoagent.scoring import generate, score_generated, summarize
from nanoagent.stats import BOOTSTRAP_SAMPLES, bootstrap_ci, mean
from nanoagent.suites import EvalItem, record_item

FORMAT, VERSION = "nanoagent-specialist", 1
KINDS = ("single", "parallel", "parallel_multiple", "no_call", "clarify")
NO_CALL_KINDS = ("no_call", "clarify")


class SpecialistError(ValueError):
    """Bad input: the message names the file, the line and the field."""


@dataclass
class SpecialistItem(EvalItem):
    kind: str = "single"
    question: str = ""
    near_miss: bool = False
    missing: list | None = None


@dataclass
class SpecialistConfig:
    model: str | None = field(default=None, metadata={"help": "embedded | embedded-gguf | MLX folder | .gguf"})
    tools: str | None = field(default=None, metadata={"help": "the tool set: OpenAI tools list, MCP tools/list "
                                                              "result or OpenAPI 3 file (nanoagent/toolsets.py)"})
    requests: str | None = field(default=None, metadata={"help": "JSONL of hand-written requests"})
    out: str | None = field(default=None, metadata={"help": "result JSON file"})
    label: str | None = field(default=None, metadata={"help": "name of this run (default: from --model)"})
    examples: str | None = field(default=None, metadata={"help": "JSONL of OpenAI chat examples, scored apart"})
    constrain: bool = field(default=False, metadata={"help": "decode calls under the tools' grammar"})
    stop_repeats: bool = field(default=False, metadata={"help": "stop a reply at its first repeated call"})
    call_threshold: str | None = field(default=None, metadata={"help": "P, 'model' or 'off' (default: off)"})
    max_tokens: int = field(default=160, metadata={"help": "new tokens per reply"})
    system: str | None = field(default=None, metadata={"help": "system message before every request"})
    prompt_format: str | None = field(default=None, metadata={"help": "standard | compact (default: the model's)"})
    threads: int | None = field(default=None, metadata={"help": "CPU threads for llama.cpp (default: all cores)"})
    bootstrap_samples: int = field(default=BOOTSTRAP_SAMPLES, metadata={"help": "resamples of the bootstrap 95% "
                                                                              "confidence intervals"})


def load_tools(path) -> list[dict]:
    from nanoagent.toolsets import ToolSetError, load_toolset

    try:
        return load_toolset(path).tools
    except ToolSetError as e:
        raise SpecialistError(str(e)) from None


def _lines(path: Path, what: str):
    """(line number, parsed JSON object) for each non-blank line, or a SpecialistError naming the line."""
    if not path.is_file():
        raise SpecialistError(f"{what} file {path} does not exist")
    try:
        for n, line in jsonl_lines(path):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as e:
                raise SpecialistError(f"{path}:{n}: not JSON ({e.msg} at column {e.colno})") from None
            if not isinstance(data, dict):
                raise SpecialistError(f"{path}:{n}: a line must be a JSON object, got {type(data).__name__}")
            yield n, data
    except RecordError as e:
        raise SpecialistError(str(e)) from None


def check_answer(answer, specs: dict[str, dict], where: str) -> str | None:
    """A problem with one possible-answer list against the tool set (`where` prefixes the field), or None."""
    if not isinstance(answer, list):
        return f"{where}: must be a list of {{tool: {{argument: [allowed values]}}}}, got {type(answer).__name__}"
    for i, call in enumerate(answer):
        if not isinstance(call, dict) or len(call) != 1 or not isinstance(next(iter(call.values())), dict):
            return f"{where}[{i}]: must be one {{tool: {{argument: [allowed values]}}}}, got {call!r}"
        (name, args), = call.items()
        if name not in specs:
            return f"{where}[{i}]: tool {name!r} is not in the tool set ({', '.join(specs)})"
        props = specs[name].get("properties") or {}
        for arg, allowed in args.items():
            if arg not in props:
                return (f"{where}[{i}].{name}.{arg}: not a parameter of {name} "
                        f"({', '.join(props) or 'it takes none'})")
            if not isinstance(allowed, list) or not allowed:
                return f"{where}[{i}].{name}.{arg}: must be a non-empty list of allowed values, got {allowed!r}"
            bad = [v for v in allowed if v != OMITTABLE and not isinstance(v, dict) and not type_matches(v, props[arg])]
            if bad:
                return f"{where}[{i}].{name}.{arg}: {bad[0]!r} is not of type {props[arg].get('type')!r}"
        lacking = [r for r in specs[name].get("required") or [] if r not in args]
        if lacking:
            return f"{where}[{i}].{name}: lacks required argument {lacking[0]!r}"
    return None


def kind_of(answer: list[dict]) -> str:
    """The kind of request an answer list makes: no_call, single, parallel (one tool) or parallel_multiple."""
    names = {next(iter(a)) for a in answer}
    return "no_call" if not answer else "single" if len(answer) == 1 else "parallel" if len(names) == 1 \
        else "parallel_multiple"


def _prompt(system: str | None, messages: list[dict]) -> list[dict]:
    if system is None or (messages and messages[0]["role"] == "system"):
        return messages
    return [{"role": "system", "content": system}, *messages]


def load_requests(path, tools: list[dict], system: str | None = None) -> list[SpecialistItem]:
    path = Path(path)
    specs = {t["function"]["name"]: t["function"]["parameters"] for t in tools}
    items, seen = [], set()
    for n, row in _lines(path, "requests"):
        at = f"{path}:{n}"
        rid = row.get("id", f"{path.stem}-{n}")
        if not isinstance(rid, (str, int)) or isinstance(rid, bool) or str(rid) in seen:
            raise SpecialistError(f"{at}: id: {rid!r} must be a string or number used once in the file")
        question, kind, answer = row.get("question"), row.get("kind"), row.get("answer")
        if not isinstance(question, str) or not question.strip():
            raise SpecialistError(f"{at}: question: missing or empty; give the user's request as a string")
        if kind not in KINDS:
            raise SpecialistError(f"{at}: kind: {kind!r} is not one of {', '.join(KINDS)}")
        problem = check_answer(answer, specs, "answer")
        if problem:
            raise SpecialistError(f"{at}: {problem}")
        implied = kind_of(answer)
        if implied != kind and not (kind == "clarify" and implied == "no_call"):
            raise SpecialistError(f"{at}: answer: its {len(answer)} call(s) make a {implied} request, "
                                  f"not {kind} (no_call and clarify expect [])")
        if not isinstance(row.get("near_miss", False), bool):
            raise SpecialistError(f"{at}: near_miss: must be true or false, got {row['near_miss']!r}")
        if not isinstance(row.get("missing", []), list):
            raise SpecialistError(f"{at}: missing: must be a list, got {row['missing']!r}")
        seen.add(str(rid))
        items.append(SpecialistItem(
            id=str(rid), suite="requests", messages=_prompt(system, [{"role": "user", "content": question}]),
            tools=tools, answers=answer, functions=tools, expect="calls" if answer else "no_call", kind=kind,
            question=question, near_miss=row.get("near_miss", False), missing=row.get("missing")))
    if not items:
        raise SpecialistError(f"{path}: no requests in the file")
    return items


def load_examples(path, tools: list[dict], system: str | None = None) -> list[SpecialistItem]:
    """Each conversation's first assistant turn as an item: its exact calls (one-element lists), or no call."""
    path = Path(path)
    specs = {t["function"]["name"]: t["function"]["parameters"] for t in tools}
    items = []
    for n, row in _lines(path, "examples"):
        at = f"{path}:{n}"
        try:  # the tool set is offered, whatever tools the line names
            rec = Record.from_dict({**row, "tools": tools})
            made = record_item(rec, str(rec.meta.get("id", f"{path.stem}-{n}")), "examples")
        except RecordError as e:
            raise SpecialistError(f"{at}: {e}") from None
        if isinstance(made, str):
            raise SpecialistError(f"{at}: messages: {made}")
        problem = check_answer(made.answers, specs, "tool_calls")
        if problem:
            raise SpecialistError(f"{at}: {problem}")
        question = next(m["content"] for m in reversed(made.messages) if m["role"] == "user")
        items.append(SpecialistItem(**{**vars(made), "messages": _prompt(system, made.messages)},
                                    kind=kind_of(made.answers), question=question))
    if not items:
        raise SpecialistError(f"{path}: no examples in the file")
    return items


def _share(rows: list[dict]) -> dict:
    return {"n": len(rows), "accuracy": mean(r["correct"] for r in rows)}


def score_part(items: list[SpecialistItem], replies: list[dict], seconds: float, tools: list[dict],
               samples: int = BOOTSTRAP_SAMPLES) -> dict:
    """One part's figures and per-item outcomes from its replies (nanoagent.scoring.generate's)."""
    rows = []
    for item, rep in zip(items, replies):
        o = score_generated(rep, item)
        row = {"id": item.id, "kind": item.kind, "question": item.question, "answer": item.answers,
               "reply": rep.get("text"), "correct": o["correct"], "valid": o["valid"], "has_call": o["has_call"],
               "failure": None if o["correct"] else o["kind"], "message": o["message"], "calls": o["calls"]}
        if "schema_error" in o:
            row["schema_error"] = o["schema_error"]
        row.update({k: rep[k] for k in ("completion_tokens", "finish_reason", "p_call") if rep.get(k) is not None})
        if item.near_miss:
            row["near_miss"] = True
        if item.missing is not None:
            row["missing"] = item.missing
        rows.append(row)
    outcomes = [{**r, "kind": r["failure"] or "ok"} for r in rows]  # summarize counts failure kinds under "kind"
    metrics = summarize(outcomes, seconds, samples)
    metrics["failures"] = metrics.pop("kinds")  # "kind" is the request's kind here
    metrics["valid_rate"] = mean(r["valid"] for r in rows if r["answer"])  # among the items that expect a call
    metrics["no_call_accuracy"] = mean(r["correct"] for r in rows if r["kind"] in NO_CALL_KINDS)
    by_kind = {}
    for kind in KINDS:
        got = [r["correct"] for r in rows if r["kind"] == kind]
        if got:
            ci = bootstrap_ci(got, samples=samples)
            by_kind[kind] = {"n": len(got), "accuracy": mean(got), "ci95": list(ci)}
    by_tool = {name: _share([r for r in rows if name in {next(iter(a)) for a in r["answer"]}])
               for name in (t["function"]["name"] for t in tools)}
    return {"metrics": metrics, "by_kind": by_kind, "by_tool": by_tool,
            "near_miss": _share([r for r in rows if r.get("near_miss")]), "items": rows}


def read_inputs(tools, requests_path, examples_path=None, system: str | None = None) -> dict:
    """The tool set and every part's items, checked: {"tools": specs, "parts": {name: items}}."""
    specs = load_tools(tools) if isinstance(tools, (str, Path)) else list(getattr(tools, "tools", tools))
    parts = {"requests": load_requests(requests_path, specs, system)}
    if examples_path is not None:
        parts["examples"] = load_examples(examples_path, specs, system)
    return {"tools": specs, "parts": parts}


def score_parts(backend, inputs: dict, *, max_tokens: int = 160, samples: int = BOOTSTRAP_SAMPLES,
                progress: bool = True) -> dict:
    """Greedy replies, one at a time, for every part of `read_inputs`' result, each part scored on its own."""
    from tqdm import tqdm

    out = {}
    total = sum(len(items) for items in inputs["parts"].values())
    with tqdm(total=total, desc="specialist eval", unit="item", file=sys.stderr, disable=not progress) as bar:
        for name, items in inputs["parts"].items():
            bar.set_postfix_str(name)
            t0 = time.perf_counter()
            replies = generate(backend, items, max_tokens=max_tokens, temperature=0.0, seed=0, progress=bar.update)
            out[name] = score_part(items, replies, time.perf_counter() - t0, inputs["tools"], samples)
    return out


def score_file(backend, tools, requests_path, examples_path=None, *, system: str | None = None,
               max_tokens: int = 160, samples: int = BOOTSTRAP_SAMPLES, progress: bool = True) -> dict:
    """Score `backend` on a requests file (and an examples file): {"tools", "requests", "examples", "parts"}.
    `tools` is a tool set file or a list of canonical specs; bad input raises SpecialistError."""
    inputs = read_inputs(tools, requests_path, examples_path, system)
    return {"tools": str(tools) if isinstance(tools, (str, Path)) else None, "requests": str(requests_path),
            "examples": str(examples_path) if examples_path is not None else None,
            "parts": score_parts(backend, inputs, max_tokens=max_tokens, samples=samples, progress=progress)}


def _print_table(result: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{result['label']} on {Path(result['requests']).name}")
    for col in ("part", "kind", "n", "accuracy", "95% CI", "valid", "no-call acc."):
        table.add_column(col)
    fmt = lambda x: "-" if x is None else f"{x:.3f}"  # noqa: E731
    for part, p in result["parts"].items():
        m, ci = p["metrics"], p["metrics"]["accuracy_ci95"]
        table.add_row(part, "all", str(m["n"]), fmt(m["accuracy"]), f"{ci[0]:.2f}-{ci[1]:.2f}",
                      fmt(m["valid_rate"]), fmt(m["no_call_accuracy"]))
        for kind, k in p["by_kind"].items():
            table.add_row("", kind, str(k["n"]), fmt(k["accuracy"]), f"{k['ci95'][0]:.2f}-{k['ci95'][1]:.2f}", "", "")
    Console(stderr=True).print(table)


def main(argv=None) -> int:
    try:
        cfg = layered.load(SpecialistConfig, argv, description=__doc__.splitlines()[0])
        for key in ("model", "tools", "requests", "out"):
            if not getattr(cfg, key):
                raise ConfigError(f"--{key} is required")
        inputs = read_inputs(cfg.tools, cfg.requests, cfg.examples, cfg.system)  # before the model loads
        backend = load_eval_backend(cfg)
    except (ConfigError, SpecialistError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    label = cfg.label or (label_for(cfg.model) + ("-constrained" if cfg.constrain else "")
                          + (f"-threshold{cfg.call_threshold:g}" if cfg.call_threshold is not None else "")
                          + ("-stoprepeats" if cfg.stop_repeats else ""))
    settings = {"temperature": 0.0, "max_tokens": cfg.max_tokens, "constrain": cfg.constrain,
                "stop_repeats": cfg.stop_repeats, "call_threshold": cfg.call_threshold, "system": cfg.system,
                "prompt_format": cfg.prompt_format, "threads": cfg.threads, "bootstrap_samples": cfg.bootstrap_samples}
    desc = backend.describe() if hasattr(backend, "describe") else type(backend).__name__
    parts = score_parts(backend, inputs, max_tokens=cfg.max_tokens, samples=cfg.bootstrap_samples)
    result = {"format": FORMAT, "version": VERSION, "kind": "specialist", "label": label, "created": now(),
              "model": {"spec": cfg.model, "backend": desc}, "settings": settings, "machine": machine(),
              "tools": cfg.tools, "requests": cfg.requests, "examples": cfg.examples, "parts": parts}
    write_json(cfg.out, result, indent=1, ensure_ascii=False)
    _print_table(result)
    print(cfg.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
