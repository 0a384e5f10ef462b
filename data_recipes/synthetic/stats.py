"""Statistics of a batch of synthetic records: kinds mix, tool variety, calls, and tokens under a tokenizer.

`summarize(records, tokenizer=None)` returns a JSON-able dict; with a tokenizer it renders every record with
nanoagent.render and adds mean/median/max tokens per record and the supervised (assistant) share, and where the
unsupervised tokens go: the share of all tokens in the tool specs (each spec line tokenized alone, so within a few
tokens of the rendered count), in the fixed tool instructions around them (the standard render.PromptFormat's text),
the share compact JSON specs (no spaces after ',' and ':') would save, and the share the whole `compact` prompt
format saves (every record rendered in both). These say how many more rows a step of a fixed token budget reads
in the compact format.

Run: used by `python -m data_recipes.synthetic` and bench/data_synthetic_stats.py.
Left out: anything about model quality (eval measures what training on these rows does).
"""

from __future__ import annotations

import collections
import statistics

from data_recipes.synthetic.catalogue import by_name


def summarize(records: list[dict], tokenizer=None) -> dict:
    kinds = collections.Counter(r["meta"]["kind"] for r in records)
    offered, called, domains = set(), collections.Counter(), set()
    calls_per_row, turns = [], []
    names = by_name()
    for r in records:
        offered |= {t["function"]["name"] for t in r["tools"]}
        n = 0
        for m in r["messages"]:
            for c in m.get("tool_calls") or []:
                called[c["function"]["name"]] += 1
                n += 1
                if c["function"]["name"] in names:
                    domains.add(names[c["function"]["name"]].domain)
        calls_per_row.append(n)
        turns.append(len(r["messages"]))
    out = {
        "rows": len(records),
        "kinds": dict(sorted(kinds.items())),
        "distinct_tools_offered": len(offered),
        "distinct_tools_called": len(called),
        "domains_called": len(domains),
        "calls_per_row_mean": round(statistics.fmean(calls_per_row), 3) if records else 0,
        "messages_per_row_mean": round(statistics.fmean(turns), 3) if records else 0,
        "rows_without_call": sum(1 for n in calls_per_row if n == 0),
    }
    if tokenizer is not None and records:
        from nanoagent.render import FORMATS, render

        lengths, supervised, compact_lengths = [], [], []
        spec_tokens, compact_tokens, format_tokens = prompt_tokens(records, tokenizer)
        for r in records:
            ids, mask = render(r, tokenizer)
            lengths.append(len(ids))
            supervised.append(sum(mask))
            compact_lengths.append(len(render(r, tokenizer, FORMATS["compact"])[0]))
        out["tokens"] = {
            "mean": round(statistics.fmean(lengths), 1), "median": statistics.median(lengths),
            "max": max(lengths), "total": sum(lengths),
            "supervised_mean": round(statistics.fmean(supervised), 1),
            "supervised_share": round(sum(supervised) / sum(lengths), 4),
            "tool_specs_share": round(spec_tokens / sum(lengths), 4),
            "tool_instructions_share": round(format_tokens / sum(lengths), 4),
            "compact_specs_saving_share": round((spec_tokens - compact_tokens) / sum(lengths), 4),
            "compact_format_saving_share": round(1 - sum(compact_lengths) / sum(lengths), 4),
            "by_kind_mean": {k: round(statistics.fmean([n for n, r in zip(lengths, records)
                                                        if r["meta"]["kind"] == k]), 1) for k in sorted(kinds)},
        }
    return out


def prompt_tokens(records: list[dict], tokenizer) -> tuple[int, int, int]:
    """Tokens of the records' tool specs as rendered (the standard format), of the same specs as compact JSON, and
    of the fixed tool instructions (the text before and after the specs, once per record that offers tools)."""
    from nanoagent.render import DEFAULT_FORMAT, FORMATS, backend_tokenizer, tool_json

    tok = backend_tokenizer(tokenizer)
    count = lambda text: len(tok.encode(text, add_special_tokens=False).ids)  # noqa: E731
    instructions = count(DEFAULT_FORMAT.before) + count(DEFAULT_FORMAT.after)
    specs = compact = fixed = 0
    for r in records:
        tools = r.get("tools") or []
        fixed += instructions if tools else 0
        for t in tools:
            specs += count(tool_json(t))
            compact += count(tool_json(t, FORMATS["compact"].separators))
    return specs, compact, fixed
