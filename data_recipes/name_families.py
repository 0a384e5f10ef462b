"""How often the tools offered together share a family name: BFCL's suites against the synthetic kinds.

    python -m data_recipes.name_families > train/results/quality-cpu-siblings-seed2/name_families.txt

For every offered tool list with two or more tools, over its pairs of names: the share whose first word (split at
'.' and '_') is the same (`circle.calculate_area`, `circle.calculate_circumference`), the share of lists holding at
least one such pair, and the mean difflib similarity of the two names; and how many BFCL parallel_multiple items,
and how many assistant turns of each synthetic kind, call two functions of one first word; and, for each run
given (`--results`: result files of `python -m eval.toolcall` holding parallel_multiple; b46-seed2's and
settings-seed2's by default), how many of its replies name a tool not offered that is close to an offered name, and
how many items it gets right among those that call two functions of one first word and among the rest. BFCL from
the bfcl-eval wheel; the synthetic kinds from 4,000 rows of the default mix (seed 0) and 1,500 of sibling_multiple
(seed 11). A proxy for "tools of one family offered and called together": a shared verb (`get_...`) counts too.
"""

import argparse
import itertools
import json
import re
import statistics
from difflib import SequenceMatcher, get_close_matches
from pathlib import Path

from data_recipes.synthetic import DEFAULT_KINDS, example
from nanoagent.config import HelpFormatter
from nanoagent.suites import load_suite


def first_word(name: str) -> str:
    return re.split(r"[._]", name.lower())[0]


def families(lists: list[list[str]]) -> str:
    pairs = [p for names in lists for p in itertools.combinations(names, 2)]
    same = sum(first_word(a) == first_word(b) for a, b in pairs) / len(pairs)
    held = sum(any(first_word(a) == first_word(b) for a, b in itertools.combinations(names, 2))
               for names in lists) / len(lists)
    similar = statistics.mean(SequenceMatcher(None, a, b).ratio() for a, b in pairs)
    return (f"{len(lists)} lists, {len(pairs)} pairs: one first word {same:.1%} of pairs, in {held:.1%} of lists; "
            f"mean name similarity {similar:.2f}")


def calls_one_family(called: list[list[str]]) -> int:
    """How many of these lists of called function names hold two with one first word."""
    return sum(any(first_word(a) == first_word(b) for a, b in itertools.combinations(sorted(set(c)), 2))
               for c in called)


def result_items(path: str) -> list[dict]:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))["suites"]["parallel_multiple"]["items"]
    except (OSError, ValueError, KeyError) as e:
        raise SystemExit(f"name_families: {path} is not a result file of eval.toolcall holding parallel_multiple ({e})")


def one_family_right(items: list[dict], family_ids: set[str]) -> str:
    """Items right among those whose answer calls two functions of one first word, and among the rest."""
    fam = [i for i in items if i["id"] in family_ids]
    rest = [i for i in items if i["id"] not in family_ids]
    right_fam, right_rest = (sum(i["correct"] is True for i in group) for group in (fam, rest))
    return (f"right on {right_fam} of {len(fam)} items calling two functions of one first word, "
            f"{right_rest} of {len(rest)} of the rest")


def unknown_tools(items: list[dict]) -> str:
    """Replies that name a tool not offered, and how many of those names are close to an offered one (difflib ratio
    >= 0.8: `circle.calculate_perimeter` among `circle.calculate_area`, ...)."""
    near, shown = 0, []
    unknown = [i for i in items if i["kind"] == "unknown_tool"]
    for item in unknown:
        m = re.search(r"Unknown tool '(.*?)'\. Available tools: (.*)\.$", item["message"], re.S)
        if m and get_close_matches(m.group(1), [a.strip() for a in m.group(2).split(",")], 1, 0.8):
            near += 1
            shown.append(m.group(1))
    return f"{len(unknown)} replies name a tool not offered, {near} close to an offered name ({', '.join(shown[:3])})"


def names(tools) -> list[str]:
    return [t["function"]["name"] if "function" in t else t["name"] for t in tools or []]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m data_recipes.name_families", description=__doc__.split("\n")[0],
                                 formatter_class=HelpFormatter)
    ap.add_argument("--results", nargs="+", metavar="FILE", default=[
        f"eval/results/quality/toolcall_quality-cpu-{arm}-q8_0-parallel_multiple.json"
        for arm in ("b46-seed2", "settings-seed2")], help="result files holding parallel_multiple (default: %(default)s)")
    args = ap.parse_args(argv)
    arms = {path: result_items(path) for path in args.results}
    for suite in ("multiple", "parallel_multiple", "live_multiple"):
        lists = [n for n in (names(item.tools) for item in load_suite(suite)[0]) if len(n) > 1]
        print(f"BFCL {suite}: {families(lists)}")
    items = load_suite("parallel_multiple")[0]
    called = [[next(iter(call)) for call in item.answers] for item in items]
    family_ids = {item.id for item, c in zip(items, called) if calls_one_family([c])}
    print(f"BFCL parallel_multiple: {calls_one_family(called)} of {len(items)} items call two functions with one "
          "first word")
    by_kind: dict[str, list[list[str]]] = {}
    calls: dict[str, list[list[str]]] = {}
    rows = [example(i, 0, DEFAULT_KINDS) for i in range(4000)]
    rows += [example(i, 11, {"sibling_multiple": 1.0}) for i in range(1500)]
    for row, info in rows:
        if len(names(row.get("tools"))) > 1:
            by_kind.setdefault(info["kind"], []).append(names(row["tools"]))
        turns = [[c["function"]["name"] for c in m["tool_calls"]] for m in row["messages"] if m.get("tool_calls")]
        calls.setdefault(info["kind"], []).extend(turns)
    for kind in ("single", "distractor", "parallel", "parallel_multiple", "multi_turn", "sibling_multiple"):
        print(f"synthetic {kind}: {families(by_kind[kind])}; turns calling two functions with one first word "
              f"{calls_one_family(calls[kind])} of {len(calls[kind])}")
    for path, arm_items in arms.items():
        print(f"{path}: {unknown_tools(arm_items)}; {one_family_right(arm_items, family_ids)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
