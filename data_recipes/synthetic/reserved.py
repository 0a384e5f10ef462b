"""Tool names the synthetic source must not use: every function name in the BFCL eval sets.

The synthetic catalogue composes names such as `get_current_weather` or `calculate_factorial` that BFCL's test
functions also carry; decontamination by function name means no training row offers or calls one. The names are
committed in reserved_names.txt (so the stream is the same on every machine, with or without the bfcl-eval
wheel), and `free_name` turns a colliding name into one that is neither reserved nor taken. The build's
decontamination stage still drops any row whose tools carry a BFCL name (for other sources, and in case BFCL
changes): see data_recipes/decontam.py.

Refresh the list after a bfcl-eval upgrade:
    python -m data_recipes.synthetic.reserved --write
Left out: near-identical names (`calc_factorial`): name decontamination is exact; prompts are checked by n-grams.
"""

from __future__ import annotations

import argparse
import sys
from functools import lru_cache
from pathlib import Path

LIST = Path(__file__).with_name("reserved_names.txt")
SWAPS = {"calculate": "compute", "compute": "calculate", "get": "fetch", "find": "lookup", "convert": "transform",
         "solve": "solver", "check": "verify", "count": "tally", "generate": "make", "estimate": "approximate"}


@lru_cache(maxsize=1)
def reserved() -> frozenset[str]:
    return frozenset(n.strip() for n in LIST.read_text(encoding="utf-8").splitlines() if n.strip())


def free_name(name: str, taken: set[str] | frozenset[str] = frozenset()) -> str:
    """`name` itself when allowed; else its verb swapped (`calculate_x` -> `compute_x`), or a suffixed form."""
    blocked = reserved() | set(taken)
    if name not in blocked:
        return name
    head, dot, tail = name.rpartition(".")
    stem = tail if dot else name
    for sep in ("_", ""):
        for verb, other in SWAPS.items():
            if stem.startswith(verb + sep) or (sep == "" and stem.startswith(verb) and stem[len(verb):][:1].isupper()):
                cand = other + stem[len(verb):]
                cand = f"{head}.{cand}" if dot else cand
                if cand not in blocked:
                    return cand
    for suffix in ("_tool", "_calc", "_v2", "_v3"):
        cand = name + suffix
        if cand not in blocked:
            return cand
    raise ValueError(f"no free name for {name!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m data_recipes.synthetic.reserved",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", required=True,
                        help="rewrite reserved_names.txt from the BFCL files in bfcl-eval")
    parser.parse_args(argv)
    from nanoagent.bfcl_data import load
    from nanoagent.suites import BFCL_SUITES

    names = {f["name"] for suite in BFCL_SUITES for item in load(suite) for f in item.functions}
    LIST.write_text("\n".join(sorted(names)) + "\n", encoding="utf-8")
    print(f"wrote {len(names)} names to {LIST}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
