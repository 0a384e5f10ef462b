"""The data for a specialist: a user's tool set (and examples, if any) -> train/valid JSONL and held-out eval sets.

    python -m data_recipes.specialize --tools tools.json --out runs/spec/data [--examples ex.jsonl] [--rows 3000]

Rows come from the schema-driven generator (data_recipes/synthetic/specialist.py), every one offering all the tools;
a share of the general default mix (`--general-share`) keeps the model's manners outside the domain. Examples (OpenAI
chat JSONL: a user turn, then an assistant turn with `tool_calls`, arguments as a JSON string or an object, or with
text) are checked against the tools (an unknown tool or arguments that break its schema: an error naming the line),
a slice is held out for eval, and the rest are trained on and multiplied: the argument values found in the request
text are swapped for new values of the same parameter, in the text and the call alike, until the copies make up to a
quarter of the training rows (EXAMPLE_SHARE; at least MIN_VARIANTS copies of each).

Writes OUT/train.jsonl, valid.jsonl (generated rows held out), heldout_requests.jsonl (the single-turn held-out rows in
eval.specialist's request format), heldout_examples.jsonl, and stats.json last (a folder without it is unfinished).
Left out: tool results (no row shows one), and examples of more than one user turn (refused, by line).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
from collections import Counter
from pathlib import Path

import jsonschema

from data_recipes.synthetic.from_schema import SchemaToolError
from data_recipes.synthetic.generate import generate
from data_recipes.synthetic.specialist import KINDS, NO_CALL_KINDS, SpecialistSource
from nanoagent.config import HelpFormatter
from nanoagent.provenance import code_digest
from nanoagent.record import Record, RecordError, jsonl_lines
from nanoagent.toolsets import ToolSetError, load_toolset

CHECKOUT = Path(__file__).resolve().parents[1]
ROW_CODE = ("data_recipes", "nanoagent/record.py", "nanoagent/render.py", "nanoagent/toolsets.py")  # train.dft checks
EXAMPLE_SHARE = 0.25  # the share of the training rows made from the user's examples (value-swapped copies)
MIN_VARIANTS = 24  # value-swapped copies of each call example, at least
GENERAL_MAX_CHARS = 1600  # about 450 tokens of JSON
TEXT_EXAMPLE_COPIES = 4    # copies of an example answered in text (nothing in it to swap)


class SpecializeDataError(ValueError):
    pass


# --- examples ------------------------------------------------------------------------------------------------------
def read_examples(path: Path, tools: list[dict]) -> list[dict]:
    """The examples as canonical records over `tools`; SpecializeDataError names the line of a bad one."""
    specs = {t["function"]["name"]: t["function"].get("parameters") or {} for t in tools}
    out = []
    try:
        lines = list(jsonl_lines(path))
    except (OSError, RecordError) as e:
        raise SpecializeDataError(f"--examples {path}: cannot read it ({e})") from None
    for n, line in lines:
        if not line.strip():
            continue
        where = f"--examples {path}:{n}"
        try:
            row = json.loads(line)
            rec = Record.from_dict({"messages": row["messages"] if isinstance(row, dict) else row, "tools": tools})
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise SpecializeDataError(f"{where}: not a chat example ({type(e).__name__}: {e}); give "
                                      '{"messages": [{"role": "user", ...}, {"role": "assistant", ...}]}') from None
        except RecordError as e:
            raise SpecializeDataError(f"{where}: {e}") from None
        roles = [m["role"] for m in rec.messages if m["role"] != "system"]
        if roles != ["user", "assistant"]:
            raise SpecializeDataError(f"{where}: an example is one user turn and one assistant turn, got roles "
                                      f"{roles}")
        for k, c in enumerate(rec.messages[-1].get("tool_calls") or []):
            name, args = c["function"]["name"], c["function"]["arguments"]
            if name not in specs:
                raise SpecializeDataError(f"{where}: tool_calls[{k}] calls {name!r}, which is not in the tool set "
                                          f"({', '.join(specs)})")
            try:
                jsonschema.validate(args, specs[name])
            except jsonschema.ValidationError as e:
                field = ".".join(str(p) for p in e.absolute_path) or "arguments"
                raise SpecializeDataError(f"{where}: tool_calls[{k}] ({name}) breaks the tool's schema at "
                                          f"{field}: {e.message}") from None
        out.append({"messages": rec.messages, "tools": tools})
    return out


def _found(text: str, value) -> re.Match | None:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)) or value == "":
        return None
    said = str(value)
    return re.search(r"(?<![\w.])" + re.escape(said) + r"(?![\w])", text, flags=re.IGNORECASE)


def multiply(example: dict, source: SpecialistSource, rng: random.Random, n: int) -> list[dict]:
    """Up to n copies of a call example with the values its request states swapped for new ones of the same
    parameter (the call changed to match); none when no value is found in the request."""
    user = next(m for m in example["messages"] if m["role"] == "user")
    calls = example["messages"][-1].get("tool_calls") or []
    tools = {t.name: t for t in source.tools}
    slots = []  # (call index, argument, parameter)
    for i, c in enumerate(calls):
        tool = tools[c["function"]["name"]]
        params = {p.name: p for p, _ in tool.params}
        for arg, value in c["function"]["arguments"].items():
            if arg in params and _found(user["content"], value):
                slots.append((i, arg, params[arg]))
    out, seen = [], set()
    for _ in range(3 * n):
        text, new_calls = user["content"], json.loads(json.dumps(calls))
        for i, arg, param in slots:
            old = new_calls[i]["function"]["arguments"][arg]
            m = _found(text, old)
            if m is None:
                continue
            v = param.sample(rng)
            if isinstance(v.value, (list, dict)) or not v.text or "{" in v.text:
                continue
            text = text[:m.start()] + v.text.strip('"') + text[m.end():]
            new_calls[i]["function"]["arguments"][arg] = v.value
        key = (text, json.dumps(new_calls, sort_keys=True))
        if text != user["content"] and key not in seen:
            seen.add(key)
            msgs = [dict(m) for m in example["messages"]]
            msgs[msgs.index(user)] = {**user, "content": text}
            msgs[-1] = {**msgs[-1], "tool_calls": new_calls}
            out.append({"messages": msgs, "tools": example["tools"]})
        if len(out) >= n:
            break
    return out


# --- held-out requests -----------------------------------------------------------------------------------------
KIND_OF = {"single": "single", "normalize": "single", "parallel": "parallel",
           "parallel_multiple": "parallel_multiple", "near_miss": "no_call", "no_tool": "no_call",
           "clarify": "clarify"}


def as_request(rec: dict, rid: str) -> dict | None:
    """A single-turn record as an eval.specialist request (BFCL possible-answer form); None for other records."""
    msgs = [m for m in rec["messages"] if m["role"] != "system"]
    kind = KIND_OF.get(rec.get("meta", {}).get("kind", ""))
    if len(msgs) < 2 or msgs[0]["role"] != "user" or kind is None:
        return None
    reply = msgs[1]
    if kind == "clarify":
        if len(msgs) != 2:  # the question and then the call: the request file keeps the question-only rows
            return None
        answer = []
    else:
        if len(msgs) != 2:
            return None
        answer = [{c["function"]["name"]: {k: [v] for k, v in c["function"]["arguments"].items()}}
                  for c in reply.get("tool_calls") or []]
    return {"id": rid, "kind": kind, "question": msgs[0]["content"], "answer": answer,
            **({"near_miss": True} if rec["meta"]["kind"] == "near_miss" else {})}


def example_request(rec: dict, rid: str) -> dict:
    calls = rec["messages"][-1].get("tool_calls") or []
    kind = "no_call" if not calls else "single" if len(calls) == 1 else "parallel"
    user = next(m for m in rec["messages"] if m["role"] == "user")
    return {"id": rid, "kind": kind, "question": user["content"],
            "answer": [{c["function"]["name"]: {k: [v] for k, v in c["function"]["arguments"].items()}}
                       for c in calls]}


def no_call_balance(source: SpecialistSource, example_calls: int, seed: int) -> list[dict]:
    """Generated rows answered without a call, as many as keep the generator's no-call share (near misses and small
    talk) once `example_calls` rows with calls (the examples' copies) join the mix: without them a model trained on
    many call examples calls on every request."""
    share = sum(KINDS[k] for k in NO_CALL_KINDS) / sum(KINDS.values())
    balance = SpecialistSource(source.specs, system=source.system, kinds={k: KINDS[k] for k in NO_CALL_KINDS})
    return [balance.row(i, seed + 2_000_003) for i in range(round(example_calls * share / (1 - share)))]


# --- the build -------------------------------------------------------------------------------------------------
def build(tools_path: str, out: str, examples_path: str | None = None, rows: int = 3000, valid_rows: int = 120,
          general_share: float = 0.15, heldout_share: float = 0.25, seed: int = 0, system: str | None = None,
          say=print) -> dict:
    toolset = load_toolset(tools_path)
    for line in toolset.dropped:
        say(f"note: {line}")
    source = SpecialistSource(toolset.tools, system=system)
    rng = random.Random(f"specialize:{seed}")
    examples = read_examples(Path(examples_path), toolset.tools) if examples_path else []
    order = list(range(len(examples)))
    rng.shuffle(order)
    held_n = min(len(examples), max(1, round(len(examples) * heldout_share))) if examples else 0
    held = [examples[i] for i in sorted(order[:held_n])]
    used = [examples[i] for i in sorted(order[held_n:])]
    notes = []
    if examples and not used:
        notes.append(f"no examples left for training after holding out {held_n} for eval: training on the tool "
                     "schemas alone")
    from_examples, unswappable = [], 0
    calling = sum(1 for ex in used if ex["messages"][-1].get("tool_calls"))
    variants = max(MIN_VARIANTS, round(EXAMPLE_SHARE * rows / max(1, calling)))  # examples are the best rows there are
    for ex in used:
        calls = ex["messages"][-1].get("tool_calls")
        copies = multiply(ex, source, rng, variants) if calls else []
        unswappable += bool(calls) and not copies
        from_examples += [ex] * (1 if calls else TEXT_EXAMPLE_COPIES) + copies
    if unswappable:
        notes.append(f"{unswappable} example(s) state no argument value the generator could find in the request "
                     "text: used as they are, not multiplied")
    n_general = round(rows * general_share)
    generated = [source.row(i, seed) for i in range(rows - n_general)]
    generated += no_call_balance(source, sum(1 for r in from_examples if r["messages"][-1].get("tool_calls")), seed)
    valid = [source.row(i, seed + 1_000_003) for i in range(valid_rows)]
    # short rows of the general mix: a long one cannot share the tool list, and a batch of them would set the
    # memory (and the micro-batch) of every step
    general = [r for r in generate(4 * n_general, seed=seed) if len(json.dumps(r)) <= GENERAL_MAX_CHARS][:n_general]
    train = generated + general + from_examples
    random.Random(seed).shuffle(train)
    seen_valid = {json.dumps(r["messages"], sort_keys=True) for r in valid}
    before = len(train)
    train = [r for r in train if json.dumps(r["messages"], sort_keys=True) not in seen_valid]
    requests = [r for i, rec in enumerate(valid) if (r := as_request(rec, f"generated-{i:04d}"))]
    held_requests = [example_request(rec, f"example-{i:02d}") for i, rec in enumerate(held)]

    folder = Path(out)
    staged = folder.with_name(folder.name + ".partial")
    if staged.exists():
        shutil.rmtree(staged)
    staged.mkdir(parents=True)
    for name, rows_ in (("train.jsonl", train), ("valid.jsonl", valid), ("heldout_requests.jsonl", requests),
                        ("heldout_examples.jsonl", held)):
        with open(staged / name, "w", encoding="utf-8") as fh:
            for r in rows_:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    with open(staged / "heldout_example_requests.jsonl", "w", encoding="utf-8") as fh:
        for r in held_requests:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    stats = {"tools": {"path": str(tools_path), "format": toolset.format, "count": len(toolset.tools),
                       "names": toolset.names(), "dropped": toolset.dropped},
             "kinds": dict(Counter(r["meta"]["kind"] for r in generated)),
             "outputs": {"train": len(train), "valid": len(valid), "heldout_requests": len(requests),
                         "heldout_examples": len(held)},
             "sources": {"specialist": len(generated), "general": len(general), "examples": len(from_examples)},
             "examples": {"given": len(examples), "held_out": len(held), "trained": len(used),
                          "rows_from_them": len(from_examples)},
             "removed_overlapping_valid": before - len(train), "notes": notes, "seed": seed,
             "code": {"paths": list(ROW_CODE), "digest": code_digest(CHECKOUT, ROW_CODE)},
             "settings": {"rows": rows, "valid_rows": valid_rows, "general_share": general_share,
                          "heldout_share": heldout_share, "system": system}}
    (staged / "stats.json").write_text(json.dumps(stats, indent=2, ensure_ascii=False) + "\n")
    if folder.exists():
        shutil.rmtree(folder)
    staged.rename(folder)
    for note in notes:
        say(f"note: {note}")
    say(f"data: {len(train)} training rows ({len(generated)} generated, {len(general)} general, "
        f"{len(from_examples)} from {len(used)} examples), {len(valid)} held out ({len(requests)} as single-turn "
        f"requests), {len(held)} examples held out -> {folder}")
    return stats


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m data_recipes.specialize", description=__doc__.splitlines()[0],
                                formatter_class=HelpFormatter)
    p.add_argument("--tools", required=True, help="the tool set: an OpenAI tools list, an MCP tools/list result or "
                                                  "an OpenAPI 3 document (JSON or YAML)")
    p.add_argument("--out", required=True, help="folder to write (replaced when it exists)")
    p.add_argument("--examples", help="JSONL of OpenAI chat examples for these tools (optional)")
    p.add_argument("--rows", type=int, default=3000, help="training rows to generate (default 3000)")
    p.add_argument("--valid-rows", type=int, default=120, help="generated rows held out for eval (default 120)")
    p.add_argument("--general-share", type=float, default=0.15,
                   help="share of the rows drawn from the general default mix (default 0.15)")
    p.add_argument("--heldout-share", type=float, default=0.25, help="share of the examples held out (default 0.25)")
    p.add_argument("--system", help="the system prompt the app sends (default: none)")
    p.add_argument("--seed", type=int, default=0, help="seed of the generated rows (default 0)")
    args = p.parse_args(argv)
    if args.rows < 1 or args.valid_rows < 1:
        p.error("--rows and --valid-rows must be at least 1")
    if not 0 <= args.general_share < 1 or not 0 <= args.heldout_share < 1:
        p.error("--general-share and --heldout-share are shares in [0, 1)")
    try:
        build(args.tools, args.out, args.examples, args.rows, args.valid_rows, args.general_share,
              args.heldout_share, args.seed, args.system)
    except (ToolSetError, SpecializeDataError, SchemaToolError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
