"""Two eval.toolcall results compared item by item: on the items both scored, how far apart they are and where.

    python -m eval.compare eval/results/quality/toolcall_quality-cpu-one-q8_0-whole.json \\
        eval/results/quality/toolcall_quality-cpu-one-mlx-seeded100.json --margin 2
    python -m eval.compare A.json B.json --suites simple_python,parallel --json

Two runs rarely hold the same items (a whole suite against a seeded sample, two samples of different sizes), and
a difference of suite accuracies then mixes the models with the items. This compares only the items whose ids
both files hold, per suite: each run's accuracy and schema-valid share there, the difference B - A with a paired
bootstrap interval (items resampled together, nanoagent/stats.py), and how many items only A or only B got right.
With `--margin M` each suite says whether the difference is within M points (issue 15 asks the Q8_0 export to
stay within 2 points of MLX).

BFCL ids name the same item in every run. The validation split's ids (`synthetic-0-15714`) name a row of one data
build, so compare `valid` only between runs scored on the same build; an id whose expected outcome differs between
the files is counted as `mismatched` and left out.
Runs of several seeds: give each arm as comma-joined files, one or more per run. Files with the same label are one
run (a run scored suite by suite), files with different labels are that arm's runs (its seeds):

    python -m eval.compare A_seed0.json,A_seed1.json B_seed0.json,B_seed1_simple.json,B_seed1_irrelevance.json

Then each suite gives every run's accuracy on the items all runs hold, each arm's mean, and the difference of means
with an interval that redraws each arm's runs as well as the items (`runs_bootstrap_ci`): one training run reads a
few hundred rows, and which rows moved BFCL irrelevance by 13-15 points between two seeds of one recipe
(train/results/steps-gpu/), more than the items' doubt that the two-file interval shows.
Left out: a run's figures at a call threshold (`LABEL@threshold`): the derived view keeps no per-item outcomes.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from nanoagent.config import HelpFormatter
from nanoagent.stats import mean, paired_bootstrap_ci, runs_bootstrap_ci


class CompareError(ValueError):
    """A file that is not a tool-call result, or two results with nothing in common."""


def read_result(path: str | Path) -> dict:
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CompareError(f"{path} does not exist: give an eval.toolcall result file (eval/results/...)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CompareError(f"{path} is not a readable JSON file ({e}); give an eval.toolcall result") from None
    if not isinstance(data, dict) or data.get("kind") != "toolcall" or not isinstance(data.get("suites"), dict):
        raise CompareError(f"{path} is not an eval.toolcall result (no kind 'toolcall' with a 'suites' mapping)")
    return data


def read_arm(spec: str) -> list[dict]:
    """An arm's runs from comma-joined result files: files that share a label are one run, their suites merged."""
    return read_runs([p.strip() for p in spec.split(",") if p.strip()], spec)


def read_runs(paths: list[str], spec: str = "") -> list[dict]:
    """Result files as runs: files that share a label are one run (a run scored suite by suite), their suites
    merged and their files in `paths`; a suite two files of one run both hold is a CompareError."""
    runs: dict[str, dict] = {}
    for path in paths:
        data = read_result(path)
        label = data.get("label") or path
        run = runs.setdefault(label, {"label": label, "kind": "toolcall", "suites": {}, "paths": []})
        twice = sorted(set(run["suites"]) & set(data["suites"]))
        if twice:
            raise CompareError(f"{path} and {', '.join(run['paths'])} are both run {label!r} and both hold "
                               f"{', '.join(twice)}: give each suite of a run once")
        run["suites"].update(data["suites"])
        run["paths"].append(path)
    if not runs:
        raise CompareError(f"no result file in {spec or paths!r}")
    return list(runs.values())


def _by_id(suite: dict) -> dict[str, dict]:
    return {o["id"]: o for o in suite.get("items", []) if isinstance(o, dict) and "id" in o}


def compare_suite(a: dict, b: dict, margin: float | None = None, seed: int = 0) -> dict:
    """Paired figures of one suite's two results (`{"items": [...]}` each) on the ids both hold, in A's order."""
    ia, ib = _by_id(a), _by_id(b)
    both = [i for i in ia if i in ib]
    shared = [i for i in both if ia[i].get("expect") == ib[i].get("expect")]
    out = {"n_a": len(ia), "n_b": len(ib), "n": len(shared), "mismatched": len(both) - len(shared)}
    if not shared:
        return out
    ca = [bool(ia[i]["correct"]) for i in shared]
    cb = [bool(ib[i]["correct"]) for i in shared]
    acc_a, acc_b = mean(ca), mean(cb)
    ci = paired_bootstrap_ci(ca, cb, seed=seed)
    out.update(accuracy_a=acc_a, accuracy_b=acc_b, difference=acc_b - acc_a, difference_ci95=list(ci),
               valid_a=mean(bool(ia[i]["valid"]) for i in shared), valid_b=mean(bool(ib[i]["valid"]) for i in shared),
               only_a=[i for i, x, y in zip(shared, ca, cb) if x and not y],
               only_b=[i for i, x, y in zip(shared, ca, cb) if y and not x])
    if margin is not None:
        out["within_margin"] = round(abs(acc_b - acc_a) * 100, 9) <= margin  # 26/50 - 25/50 is 2.0000000000000018
    return out


def compare(a: dict, b: dict, suites: list[str] | None = None, margin: float | None = None, seed: int = 0) -> dict:
    """{suite: compare_suite(...)} for the suites asked for (default: those both results hold)."""
    names = suites or [s for s in a["suites"] if s in b["suites"]]
    missing = {s: [w for w, r in (("A", a), ("B", b)) if s not in r["suites"]] for s in names}
    missing = {s: w for s, w in missing.items() if w}
    if missing:
        said = "; ".join(f"{s} not in {' or '.join(w)}" for s, w in missing.items())
        raise CompareError(f"suite(s) missing: {said}; A has {sorted(a['suites'])}, B has {sorted(b['suites'])}")
    if not names:
        raise CompareError(f"the results share no suite: A has {sorted(a['suites'])}, B has {sorted(b['suites'])}")
    return {s: compare_suite(a["suites"][s], b["suites"][s], margin, seed) for s in names}


def compare_arms(a_runs: list[dict], b_runs: list[dict], suites: list[str] | None = None, seed: int = 0) -> dict:
    """{suite: figures} for two arms of runs, on the ids every run holds with one expected outcome."""
    runs = a_runs + b_runs
    names = suites or [s for s in runs[0]["suites"] if all(s in r["suites"] for r in runs)]
    missing = {s: [r["label"] for r in runs if s not in r["suites"]] for s in names}
    missing = {s: w for s, w in missing.items() if w}
    if missing:
        said = "; ".join(f"{s} not in {', '.join(w)}" for s, w in missing.items())
        raise CompareError(f"suite(s) missing: {said}")
    if not names:
        raise CompareError("the runs share no suite: " + "; ".join(f"{r['label']} has {sorted(r['suites'])}"
                                                                     for r in runs))
    out = {}
    for name in names:
        by_id = [_by_id(r["suites"][name]) for r in runs]
        every = [i for i in by_id[0] if all(i in b for b in by_id[1:])]
        shared = [i for i in every if len({b[i].get("expect") for b in by_id}) == 1]
        row = {"n": len(shared), "mismatched": len(every) - len(shared), "runs_a": [r["label"] for r in a_runs],
               "runs_b": [r["label"] for r in b_runs]}
        if shared:
            correct = [[bool(b[i]["correct"]) for i in shared] for b in by_id]
            acc = [mean(c) for c in correct]
            valid = [mean(bool(b[i]["valid"]) for i in shared) for b in by_id]
            na = len(a_runs)
            row.update(accuracy_runs_a=acc[:na], accuracy_runs_b=acc[na:], accuracy_a=mean(acc[:na]),
                       accuracy_b=mean(acc[na:]), valid_a=mean(valid[:na]), valid_b=mean(valid[na:]))
            row["difference"] = row["accuracy_b"] - row["accuracy_a"]
            row["difference_ci95"] = list(runs_bootstrap_ci(correct[:na], correct[na:], seed=seed))
        out[name] = row
    return out


def arms_table(rows: dict) -> str:
    head = ["suite", "shared items", "A: mean (runs)", "B: mean (runs)", "B - A (95% CI, runs and items)", "valid A",
            "valid B"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for suite, r in rows.items():
        if not r["n"]:
            lines.append("| " + " | ".join([suite, "0"] + ["-"] * (len(head) - 2)) + " |")
            continue
        lo, hi = r["difference_ci95"]
        runs = {side: ", ".join(_pct(x) for x in r[f"accuracy_runs_{side}"]) for side in "ab"}
        cells = [suite, str(r["n"]), f"{_pct(r['accuracy_a'])} ({runs['a']})", f"{_pct(r['accuracy_b'])} ({runs['b']})",
                 f"{100 * r['difference']:+.1f} ({100 * lo:+.1f} to {100 * hi:+.1f})", f"{_pct(r['valid_a'])}%",
                 f"{_pct(r['valid_b'])}%"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _pct(x) -> str:
    return f"{100 * x:.1f}"


def table(rows: dict, label_a: str, label_b: str, margin: float | None = None) -> str:
    head = ["suite", "shared items", label_a, label_b, "B - A (95% CI)", "only A right", "only B right",
            f"valid {label_a}", f"valid {label_b}"]
    if margin is not None:
        head.append(f"within {margin:g} points")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for suite, r in rows.items():
        if not r["n"]:
            cells = [suite, f"0 (A {r['n_a']}, B {r['n_b']})"] + ["-"] * (len(head) - 2)
        else:
            lo, hi = r["difference_ci95"]
            cells = [suite, f"{r['n']} (A {r['n_a']}, B {r['n_b']})", _pct(r["accuracy_a"]), _pct(r["accuracy_b"]),
                     f"{100 * r['difference']:+.1f} ({100 * lo:+.1f} to {100 * hi:+.1f})", str(len(r["only_a"])),
                     str(len(r["only_b"])), f"{_pct(r['valid_a'])}%", f"{_pct(r['valid_b'])}%"]
            if margin is not None:
                cells.append("yes" if r["within_margin"] else "no")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.compare", description=__doc__.split("\n\n")[0],
                                 formatter_class=HelpFormatter)
    ap.add_argument("a", help="result A (eval.toolcall JSON), e.g. the MLX run; or an arm's runs, comma-joined")
    ap.add_argument("b", help="result B, e.g. the Q8_0 run of the same model; or the other arm's runs")
    ap.add_argument("--suites", help="comma-separated suites (default: every suite both hold)")
    ap.add_argument("--margin", type=float, default=None, help="points: say per suite whether |B - A| is within it")
    ap.add_argument("--json", action="store_true", help="print the comparison as JSON (with the differing ids)")
    args = ap.parse_args(argv)
    suites = [s.strip() for s in args.suites.split(",") if s.strip()] if args.suites else None
    try:
        arm_a, arm_b = read_arm(args.a), read_arm(args.b)
        if len(arm_a) > 1 or len(arm_b) > 1:
            if args.margin is not None:
                raise CompareError("--margin compares two single runs (an MLX model and its export); "
                                   f"A has {len(arm_a)} run(s), B has {len(arm_b)}")
            return _print_arms(args, arm_a, arm_b, compare_arms(arm_a, arm_b, suites))
        a, b = arm_a[0], arm_b[0]
        rows = compare(a, b, suites, args.margin)
    except CompareError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"a": {"label": a.get("label"), "path": args.a}, "b": {"label": b.get("label"), "path": args.b},
                          "margin": args.margin, "suites": rows}, indent=1))
        return 0
    print(f"A = {a.get('label')} ({args.a})\nB = {b.get('label')} ({args.b})\n")
    print(table(rows, a.get("label") or "A", b.get("label") or "B", args.margin))
    for s, r in rows.items():
        if r["mismatched"]:
            print(f"\n{s}: {r['mismatched']} shared id(s) expect different outcomes in the two files (another data "
                  f"build?); left out")
    empty = [s for s, r in rows.items() if not r["n"]]
    if empty:
        print(f"\nno shared items in: {', '.join(empty)} (the runs scored different items there)")
    return 0


def _print_arms(args, arm_a: list[dict], arm_b: list[dict], rows: dict) -> int:
    if args.json:
        arms = {side: [{"label": r["label"], "paths": r["paths"]} for r in arm] for side, arm in (("a", arm_a),
                                                                                                    ("b", arm_b))}
        print(json.dumps({**arms, "suites": rows}, indent=1))
        return 0
    for side, arm in (("A", arm_a), ("B", arm_b)):
        print(f"{side} = {len(arm)} run(s): " + "; ".join(f"{r['label']} ({', '.join(r['paths'])})" for r in arm))
    print()
    print(arms_table(rows))
    for s, r in rows.items():
        if r["mismatched"]:
            print(f"\n{s}: {r['mismatched']} id(s) every run holds expect different outcomes (another data build?); "
                  "left out")
    if any(len(arm) == 2 for arm in (arm_a, arm_b)):
        print("\nan arm of two runs: the interval sees half their spread; take it as the least doubt there is")
    return 0


if __name__ == "__main__":
    sys.exit(main())
