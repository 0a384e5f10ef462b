"""How runs fill the date arguments of BFCL's calling suites ("April 25th 2023" -> `"date": "2023-04-25"`): per
argument, right, left out of a call of its function, the right date with the day wrong (year and month right), the
right date in another format, another value, or no call of that function; and per item, how many are right.

    python train/results/quality-cpu-b46-seed2/date_items.py RUN.json[,MORE.json] [RUN...] \
        > train/results/quality-cpu-b46-seed2/date_items.json

Each argument is one run: comma-joined files are its per-suite files. An answer argument counts when its first
accepted value is an ISO date (YYYY-MM-DD). "said" splits them by how the request writes the date: "ordinal" (a day
like "25th"), "iso" (the request holds the ISO date itself), "other" (words, slashes, relative dates).
"""

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "quality-cpu-choices-seed2"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "quality-cpu-round-seed2"))
from choice_items import answer_arguments, tally  # noqa: E402  (answer arguments by schema; per-run outcomes)
from round_numbers import argument_outcome  # noqa: E402  (no call / right / the named miss / another value)

from nanoagent.suites import load_suite  # noqa: E402

ISO = re.compile(r"^(\d{4})-(\d\d)-(\d\d)$")
ORDINAL = re.compile(r"\b\d{1,2}(?:st|nd|rd|th)\b")


def targets() -> list[tuple[str, str, str, str, list]]:
    """(suite, item id, function, parameter, accepted values) for every ISO-date answer argument."""
    return answer_arguments(lambda spec, golds: isinstance(golds[0], str) and bool(ISO.match(golds[0])))


def day_wrong(value, gold: str) -> bool:
    hit = ISO.match(value) if isinstance(value, str) else None
    return bool(hit) and value[:7] == gold[:7] and value != gold


def outcome_of(got: dict, fn: str, name: str, golds: list) -> tuple[str, list]:
    calls = [c for c in got.get("calls") or [] if c.get("name") == fn and isinstance(c.get("arguments"), dict)]
    if calls and all(name not in c["arguments"] for c in calls):
        return "left out", []
    outcome, values = argument_outcome(got, fn, name, golds, "day wrong", day_wrong)
    if outcome == "other value" and any(isinstance(v, str) and not ISO.match(v) and re.search(r"\d", v)
                                        for v in values):
        return "other format", values
    return outcome, values


def said_as(item_id: str, gold: str, requests: dict[str, str]) -> str:
    text = requests[item_id]
    return "iso" if gold in text else "ordinal" if ORDINAL.search(text) else "other"


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    wanted = targets()
    requests = {item.id: " ".join(m["content"] or "" for m in item.messages if m["role"] == "user")
                for suite in {w[0] for w in wanted} for item in load_suite(suite)[0]}
    report = tally(sys.argv[1:], wanted, outcome_of)
    report["said"] = {}
    for files, run in report["runs"].items():
        by = {}
        for a in run["per_argument"]:
            key = said_as(a["id"], a["gold"], requests)
            by.setdefault(key, {}).setdefault(a["outcome"], 0)
            by[key][a["outcome"]] += 1
        report["said"][files] = by
    print(json.dumps(report, indent=1, ensure_ascii=False))
