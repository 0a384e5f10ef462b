"""What the reply-length cap cost a run: the replies it cut off, generated again with a larger cap and scored.
`python -m eval.token_cap RESULT.json --model MODEL.gguf --max-tokens 512`

    python -m eval.token_cap eval/results/quality/toolcall_quality-cpu-b46-seed2-q8_0-parallel_multiple.json \\
        --model exports/quality-cpu-b46-seed2-q8_0.gguf --max-tokens 512 --out eval/results/token_cap/b46.json

The quality runs score every reply at 256 new tokens. A reply that reaches the cap ends mid-call (`unclosed_tag`)
and counts as wrong whatever it held, so a four-call parallel_multiple reply that needed 270 tokens is lost to the
cap, not to the model. Under greedy decoding a reply that stopped before the cap is the same at any larger cap, so
generating only the cut-off replies again gives, exactly, the suite as it would have scored with the larger cap.
This prints per suite: the replies cut off, those still cut off at the new cap, those now right, and the accuracy
as scored and with the larger cap; `--out` keeps the per-item outcomes (before and after) as JSON. Each new reply is
checked to begin as the stored one did (`diverged` counts those that do not, with a warning).

The model must be the one the result was made with (its `model.spec` is checked by file name unless `--force`), and
the result must be greedy (temperature 0); otherwise the figure would not be exact and this stops with an error. The
replies are decoded as the result's were (its `constrain`, `stop_repeats` and `call_threshold` settings).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from eval.compare import CompareError, read_result
from eval.config import ConfigError, EvalConfig, load_eval_backend
from nanoagent.config import HelpFormatter
from nanoagent.suites import SuiteError, load_suite


class CapError(ValueError):
    """A result or model that cannot give an exact figure; the message says what to give instead."""


def cut_ids(result: dict, suites: list[str] | None = None) -> dict[str, list[str]]:
    """{suite: [ids of replies that ended at the cap]} for the chosen suites of a result."""
    out = {}
    for suite, data in result["suites"].items():
        if suites and suite not in suites:
            continue
        out[suite] = [r["id"] for r in data.get("items", []) if r.get("finish_reason") == "length"]
    return out


def check_exact(result: dict, model: str, max_tokens: int, force: bool = False) -> int:
    """The result's cap, after checking that rescoring its cut-off replies with `model` at `max_tokens` is exact."""
    settings = result.get("settings") or {}
    cap = settings.get("max_tokens")
    if not isinstance(cap, int):
        raise CapError("the result does not say its max_tokens (settings.max_tokens): give an eval.toolcall result")
    if max_tokens <= cap:
        raise CapError(f"--max-tokens {max_tokens} is not above the result's cap ({cap}): give a larger one")
    if float(settings.get("temperature") or 0.0) != 0.0:
        raise CapError(f"the result was sampled (temperature {settings['temperature']}): only greedy replies "
                       "regenerate exactly")
    spec = str((result.get("model") or {}).get("spec") or "")
    if not force and Path(spec).name != Path(model).name:
        raise CapError(f"the result was made with {spec or 'an unnamed model'}, not {model}: give that model "
                       "(or --force if it is the same file under another name)")
    return cap


def same_start(stored: str | None, new: str | None) -> bool:
    """Does the new reply begin with the stored one, as far as the result kept it (replies are stored cut to a few
    hundred characters)? If not, the backend does not reproduce the result's decoding and the figure is not exact."""
    stored, new = stored or "", new or ""
    n = min(len(stored), len(new))
    return new[:n] == stored[:n]


def rescore(backend, result: dict, max_tokens: int, suites: list[str] | None = None, progress=None) -> dict:
    """{suite: {"n", "correct_before", "cut", "still_cut", "now_right", "correct_after", "items": [...]}}: the
    result's cut-off replies generated again at `max_tokens` and scored; every other reply keeps its outcome."""
    from nanoagent.scoring import run_suite

    out = {}
    for suite, ids in cut_ids(result, suites).items():
        stored = {r["id"]: r for r in result["suites"][suite].get("items", [])}
        before = sum(bool(r.get("correct")) for r in stored.values())
        wanted = set(ids)
        items = [it for it in load_suite(suite)[0] if it.id in wanted] if wanted else []
        after = run_suite(backend, items, max_tokens=max_tokens, progress=progress)["items"] if items else []
        rows = [{"id": a["id"], "before": stored[a["id"]].get("kind"), "after": a.get("kind"),
                 "correct": bool(a.get("correct")), "finish_reason": a.get("finish_reason"),
                 "completion_tokens": a.get("completion_tokens"), "reply": a.get("reply"),
                 "same_start": same_start(stored[a["id"]].get("reply"), a.get("reply"))} for a in after]
        now_right = sum(r["correct"] for r in rows)
        was_right = sum(bool(stored[r["id"]].get("correct")) for r in rows)
        out[suite] = {"n": len(stored), "correct_before": before, "cut": len(ids),
                      "still_cut": sum(r["finish_reason"] == "length" for r in rows), "now_right": now_right,
                      "diverged": sum(not r["same_start"] for r in rows),
                      "correct_after": before - was_right + now_right, "items": rows}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.token_cap", description=__doc__.split("\n\n")[0],
                                 formatter_class=HelpFormatter)
    ap.add_argument("result", help="an eval.toolcall result JSON file (eval/results/...)")
    ap.add_argument("--model", required=True, help="the model the result was made with (a .gguf or an MLX folder)")
    ap.add_argument("--max-tokens", type=int, default=512, help="the larger cap (default: 512)")
    ap.add_argument("--suites", help="comma-separated suites (default: every suite in the file)")
    ap.add_argument("--threads", type=int, help="CPU threads for llama.cpp (default: all cores)")
    ap.add_argument("--out", help="write the per-item outcomes here as JSON")
    ap.add_argument("--force", action="store_true", help="skip the check that --model is the result's model")
    args = ap.parse_args(argv)
    suites = [s.strip() for s in args.suites.split(",")] if args.suites else None
    try:
        result = read_result(args.result)
        cap = check_exact(result, args.model, args.max_tokens, args.force)
        unknown = sorted(set(suites or []) - set(result["suites"]))
        if unknown:
            raise CapError(f"{args.result} holds no suite {', '.join(unknown)} (it has {', '.join(result['suites'])})")
        settings = result.get("settings") or {}
        backend = load_eval_backend(EvalConfig(  # decoded as the result was: grammar, repeat stop, call threshold
            model=args.model, threads=args.threads, constrain=bool(settings.get("constrain")),
            stop_repeats=bool(settings.get("stop_repeats")), call_threshold=settings.get("call_threshold"),
            prompt_format=settings.get("prompt_format")))
    except (CompareError, CapError, SuiteError, ConfigError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    from tqdm import tqdm

    todo = sum(len(v) for v in cut_ids(result, suites).values())
    with tqdm(total=todo, desc=f"replies cut at {cap}, again at {args.max_tokens}", unit="item",
              file=sys.stderr) as bar:
        table = rescore(backend, result, args.max_tokens, suites, progress=bar.update)
    for suite, t in table.items():
        print(f"{suite}: {t['cut']} of {t['n']} replies cut at {cap} tokens; at {args.max_tokens}: "
              f"{t['still_cut']} still cut, {t['now_right']} right; accuracy {100 * t['correct_before'] / t['n']:.1f}"
              f" -> {100 * t['correct_after'] / t['n']:.1f}")
        if t["diverged"]:
            print(f"  warning: {t['diverged']} regenerated replies do not begin as the stored ones did: this backend "
                  "does not decode as the result's did, so the figure is not exact", file=sys.stderr)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps({"result": args.result, "model": args.model, "cap_before": cap,
                                              "cap_after": args.max_tokens, "suites": table}, indent=1) + "\n")
        print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
