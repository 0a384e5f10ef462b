"""How often the tools offered together share a family name: BFCL's suites against the synthetic kinds.

    python train/results/quality-cpu-siblings-seed2/name_families.py            # from the checkout's root

For every offered tool list with two or more tools, over its pairs of names: the share whose first word (split at
'.' and '_') is the same (`circle.calculate_area`, `circle.calculate_circumference`), the share of lists holding at
least one such pair, and the mean difflib similarity of the two names; and how many BFCL parallel_multiple items
call two functions of one first word. BFCL from the bfcl-eval wheel; the synthetic
kinds from 4,000 rows of the default mix (seed 0) and 1,500 of sibling_multiple (seed 11). A proxy for "tools of
one family offered and called together": a shared verb (`get_...`) counts too.
"""

import itertools
import re
import statistics
from difflib import SequenceMatcher

from data_recipes.synthetic import DEFAULT_KINDS, example
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


def names(tools) -> list[str]:
    return [t["function"]["name"] if "function" in t else t["name"] for t in tools or []]


def main() -> None:
    for suite in ("multiple", "parallel_multiple", "live_multiple"):
        lists = [n for n in (names(item.tools) for item in load_suite(suite)[0]) if len(n) > 1]
        print(f"BFCL {suite}: {families(lists)}")
    items = load_suite("parallel_multiple")[0]
    called = [sorted({next(iter(call)) for call in item.answers}) for item in items]
    both = sum(any(first_word(a) == first_word(b) for a, b in itertools.combinations(c, 2)) for c in called)
    print(f"BFCL parallel_multiple: {both} of {len(items)} items call two functions with one first word")
    by_kind: dict[str, list[list[str]]] = {}
    for i in range(4000):
        row, info = example(i, 0, DEFAULT_KINDS)
        if len(names(row.get("tools"))) > 1:
            by_kind.setdefault(info["kind"], []).append(names(row["tools"]))
    for i in range(1500):
        row, info = example(i, 11, {"sibling_multiple": 1.0})
        by_kind.setdefault(info["kind"], []).append(names(row["tools"]))
    for kind in ("single", "distractor", "parallel", "parallel_multiple", "multi_turn", "sibling_multiple"):
        print(f"synthetic {kind}: {families(by_kind[kind])}")


if __name__ == "__main__":
    main()
