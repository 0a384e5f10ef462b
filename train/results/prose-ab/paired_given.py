"""Paired count of the stated optional arguments each prose-ab arm gave, item by item, with a two-sided sign test.

    python train/results/prose-ab/paired_given.py

Reads targeted_ctl.json and targeted_prose.json beside it (targeted_items.py). An argument counts as given when any
call of the expected function holds it (eval.optional_args pairs the n-th expected call with the n-th call).
"""

import json
from math import comb
from pathlib import Path

from nanoagent.checker import stated_optional
from nanoagent.suites import load_bfcl

HERE = Path(__file__).resolve().parent


def gave(reply: dict, fn: str, key: str) -> bool:
    return any(c.get("name") == fn and key in (c.get("arguments") or {}) for c in reply.get("calls") or [])


def sign_test(a: int, b: int) -> float:
    n = a + b
    return min(1.0, 2 * sum(comb(n, i) for i in range(min(a, b) + 1)) / 2 ** n) if n else 1.0


def main() -> None:
    ctl, prose = (json.loads((HERE / f"targeted_{arm}.json").read_text()) for arm in ("ctl", "prose"))
    for suite in ("simple_python", "multiple", "live_simple"):
        a = {r["id"]: r for r in ctl["suites"][suite]["items"]}
        b = {r["id"]: r for r in prose["suites"][suite]["items"]}
        both = only_ctl = only_prose = 0
        for item in load_bfcl(suite)[0]:
            if item.id not in a:
                continue
            functions = {f["name"]: f for f in item.functions}
            for answer in item.answers:
                fn, wanted = stated_optional(answer, functions)
                for key in wanted:
                    x, y = gave(a[item.id], fn, key), gave(b[item.id], fn, key)
                    both += x and y
                    only_ctl += x and not y
                    only_prose += y and not x
        print(f"{suite}: given by both {both}, only ctl {only_ctl}, only prose {only_prose}, "
              f"two-sided sign test p={sign_test(only_ctl, only_prose):.4f}")


if __name__ == "__main__":
    main()
