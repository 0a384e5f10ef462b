"""Why argument values are wrong: the `wrong_value` replies of an eval.toolcall result, sorted by what went wrong.

    python -m eval.values eval/results/quality/toolcall_quality-cpu-one-q8_0-whole.json
    python -m eval.values RESULT.json --suites simple_python,multiple --examples 5

A reply is `wrong_value` when it calls the right tool with the right argument names but a value BFCL does not
accept (nanoagent/checker.py names the first such argument). Each one is put in the first class that fits:

    percent for fraction      a number 100 times an accepted one (5 for 0.05)
    another argument's value  the value is the one the same call gave another argument (room_type='Chicago'
                              beside location='Chicago'): the model bound a prompt span to the wrong slot
    partial surface form      the value and an accepted string contain one another ('New York' for
                              'New York, NY', 'US' for 'USA'): the right thing in another form
    another span of the prompt the value stands in the user's words (as a whole token) but is not accepted
    zeros miscounted          a number that is not in the user's words and is an accepted one times a power of
                              ten (500 or 50000 for 5000, 0.6 for 0.06): a run of zeros copied with one too few
                              or too many (each digit is a token)
    invented                  the value is not in the user's words (an accepted one may or may not be)

The classes are heuristics on strings, meant to tell the data work which failure dominates and to show whether a
change moved it; read the examples before trusting a count. Replies whose checker message does not name one
argument are counted as `unclassified`. With several calls of one tool (parallel suites), the call that gave the
wrong value is the one compared.
Left out: wrong values in calls past the first, and the reasons behind `wrong_count` or `missing_required`.

`--train data/default/train.jsonl` asks another question of the same result: is a string value the request states
right more often when some training call carried it? Every required string argument of an expected call whose
accepted value stands in the user's words is counted once, where the reply calls that function: right, wrong or
left out, split by whether any call in the training file gave that string (compared as BFCL's checker compares
strings). A gap says the model copies the strings it has seen better than new ones (data); no gap says it does not
matter which strings the data holds.
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import re
import sys
from collections import Counter
from pathlib import Path

from nanoagent.checker import normalize_string
from nanoagent.config import HelpFormatter
from nanoagent.suites import SuiteError, load_suite

MESSAGE = re.compile(r"^(?:expected call \d+: )?(?P<fn>[^:]+): (?P<key>[^=\s]+)=(?P<value>.*) is not among (?P<allowed>.*)$", re.S)
CLASSES = ("percent for fraction", "another argument's value", "partial surface form", "another span of the prompt",
           "zeros miscounted", "invented", "unclassified")


def _literal(text: str):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _text(value) -> str:
    return str(value).strip().lower()


def _in_words(text: str, words: str) -> bool:
    """`text` stands in `words` as a whole token ('5' is not in '$15000'; 'Boston' is in 'Boston, MA')."""
    return bool(re.search(rf"(?<![\w.]){re.escape(text)}(?![\w])", words))


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _zeros_apart(value, accepted) -> bool:
    """`value` is `accepted` times 10**k for a k of 1 to 9 either way (500 for 5000; not 5 for 5000.5)."""
    if not (_is_number(value) and _is_number(accepted)) or value == 0 or accepted == 0 or value == accepted:
        return False
    try:
        k = math.log10(abs(value / accepted))
    except (OverflowError, ValueError):  # a reply's 1e999 or a huge integer
        return False
    if not math.isfinite(k):
        return False
    return (value > 0) == (accepted > 0) and abs(k - round(k)) < 1e-9 and 1 <= abs(round(k)) <= 9


def classify(value, allowed: list, other_args: dict, prompt: str) -> str:
    """The class of one wrong value (see the module docstring); `prompt` is the user's words. Booleans and null
    never count as another argument's value (too many arguments share them by chance)."""
    v = _text(value)
    if _is_number(value) and any(_is_number(a) and abs(a * 100 - value) < 1e-9 * max(1.0, abs(value))
                                 for a in allowed):
        return "percent for fraction"
    if v and value is not None and not isinstance(value, bool) and any(
            _text(x) == v for x in other_args.values() if x is not None and not isinstance(x, bool)):
        return "another argument's value"
    strings = [_text(a) for a in allowed if isinstance(a, str) and a.strip()]
    if isinstance(value, str) and len(v) >= 2 and any(len(s) >= 2 and (v in s or s in v) for s in strings):
        return "partial surface form"
    if v and _in_words(v, prompt.lower()):
        return "another span of the prompt"
    if any(_zeros_apart(value, a) for a in allowed):
        return "zeros miscounted"
    return "invented"


def classify_result(result: dict, suites: list[str] | None = None, examples: int = 3) -> dict:
    """{suite: {"wrong_value": n, "classes": {class: count}, "examples": {class: [..]}}} for a result's suites."""
    out = {}
    for suite, data in result.get("suites", {}).items():
        if suites and suite not in suites:
            continue
        wrong = [r for r in data.get("items", []) if r.get("kind", "").startswith("wrong_value")]
        if not wrong:
            continue
        try:
            prompts = {it.id: " ".join(m.get("content") or "" for m in it.messages if m.get("role") == "user")
                       for it in load_suite(suite)[0]}
        except SuiteError:
            prompts = {}
        counts, shown = Counter(), {}
        for r in wrong:
            m = MESSAGE.match(r.get("message", ""))
            calls = r.get("calls") or []
            if not m or not calls or r["id"] not in prompts:
                cls = "unclassified"
            else:
                value, allowed = _literal(m["value"]), _literal(m["allowed"])
                named = [c.get("arguments") or {} for c in calls if c.get("name") == m["fn"]]
                # with several calls of one tool (parallel), the one that gave this value
                args = next((a for a in named if a.get(m["key"]) == value), named[0] if named else {})
                others = {k: v for k, v in args.items() if k != m["key"]}
                cls = classify(value, allowed if isinstance(allowed, list) else [allowed], others,
                               prompts[r["id"]])
            counts[cls] += 1
            if len(shown.setdefault(cls, [])) < examples:
                shown[cls].append(f"{r['id']}: {r.get('message', '')[:160]}")
        out[suite] = {"wrong_value": len(wrong), "classes": {c: counts[c] for c in CLASSES if counts[c]},
                      "examples": shown}
    return out


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, (list, dict)):
        for v in value.values() if isinstance(value, dict) else value:
            yield from _strings(v)


def training_values(path: Path) -> set[str]:
    """Every string a training row's tool calls give as an argument value (inside lists and objects too),
    normalised as BFCL's checker compares strings."""
    seen = set()
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            try:
                row = json.loads(line)
            except ValueError as e:
                raise ValueError(f"{path}:{n} is not JSON ({e})") from None
            for msg in row.get("messages") or []:
                for call in msg.get("tool_calls") or []:
                    args = (call.get("function") or call).get("arguments")
                    if isinstance(args, str):
                        try:
                            args = json.loads(args)
                        except ValueError:
                            continue
                    seen.update(normalize_string(s) for s in _strings(args))
    return seen


def seen_split(result: dict, seen: set[str], suites: list[str] | None = None) -> dict:
    """{suite: {"seen" | "unseen": {"right": n, "wrong": n, "left out": n}}}: the required string values the
    requests state, where the reply calls their function, by whether `seen` (training_values) holds one of the
    accepted strings."""
    out = {}
    for suite, data in result.get("suites", {}).items():
        if suites and suite not in suites:
            continue
        try:
            items = {it.id: it for it in load_suite(suite)[0]}
        except SuiteError:
            continue
        counts = {"seen": Counter(), "unseen": Counter()}
        for r in data.get("items", []):
            item = items.get(r.get("id"))
            if item is None or item.expect != "calls":
                continue
            words = normalize_string(" ".join(m.get("content") or "" for m in item.messages if m.get("role") == "user"))
            for answer in item.answers:
                for fn, expected in answer.items():
                    given = [c.get("arguments") or {} for c in r.get("calls") or [] if c.get("name") == fn]
                    for key, allowed in (expected.items() if given else ()):
                        accepted = {normalize_string(a) for a in allowed if isinstance(a, str) and a.strip()}
                        if "" in allowed or not accepted or not any(a in words for a in accepted):
                            continue  # optional, not a string, or not stated in the request
                        values = [normalize_string(a[key]) for a in given if isinstance(a.get(key), str)]
                        outcome = ("right" if accepted & set(values) else
                                   "wrong" if any(key in a for a in given) else "left out")
                        counts["seen" if accepted & seen else "unseen"][outcome] += 1
        out[suite] = {k: {o: c[o] for o in ("right", "wrong", "left out")} for k, c in counts.items()}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.values", description=__doc__.split("\n\n")[0],
                                 formatter_class=HelpFormatter)
    ap.add_argument("result", help="an eval.toolcall result JSON (eval/results/...)")
    ap.add_argument("--suites", help="comma-separated suites (default: every suite in the file)")
    ap.add_argument("--examples", type=int, default=3, help="examples shown per class (default: 3)")
    ap.add_argument("--json", action="store_true", help="print the classes as JSON")
    ap.add_argument("--train", help="a training file (train.jsonl): instead of the classes, split the stated string "
                                    "values by whether a training call carried them")
    args = ap.parse_args(argv)
    path = Path(args.result)
    try:
        result = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(result, dict) or not isinstance(result.get("suites"), dict):
            raise ValueError("it has no 'suites' mapping")
    except (OSError, UnicodeDecodeError, ValueError) as e:
        print(f"error: {path} is not an eval.toolcall result file ({e}); give one from eval/results/", file=sys.stderr)
        return 2
    suites = [s.strip() for s in args.suites.split(",")] if args.suites else None
    if args.train:
        try:
            seen = training_values(Path(args.train))
        except (OSError, UnicodeDecodeError, ValueError) as e:
            print(f"error: cannot read the training file {args.train} ({e}); give a data build's train.jsonl",
                  file=sys.stderr)
            return 2
        split = seen_split(result, seen, suites)
        if args.json:
            print(json.dumps(split, indent=2))
            return 0
        print(f"{path}: stated string values by whether {args.train}'s calls carried them "
              f"({len(seen):,} distinct strings there)")
        for suite, by in split.items():
            for k, c in by.items():
                n = sum(c.values())
                if n:
                    print(f"  {suite:18s} {k:7s} {n:4d}  " + "  ".join(f"{o} {v / n:4.0%}" for o, v in c.items()))
        return 0
    table = classify_result(result, suites, args.examples)
    if args.json:
        print(json.dumps(table, indent=2))
        return 0
    if not table:
        print(f"{path}: no wrong_value replies in the suites asked for")
        return 0
    for suite, t in table.items():
        print(f"{suite}: {t['wrong_value']} wrong values")
        for cls, n in t["classes"].items():
            print(f"  {n:4d}  {cls}")
            for line in t["examples"].get(cls, []):
                print(f"          {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
