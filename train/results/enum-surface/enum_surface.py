"""How a data build states enum values that carry underscores: verbatim in the user's text ("gluten_free"), in
natural form ("gluten free"), or otherwise. Counts every tool-call argument whose tool's schema gives the parameter
an enum and whose value holds an underscore.

    python train/results/enum-surface/enum_surface.py data/default/train.jsonl > train/results/enum-surface/default.json
"""

import collections
import json
import sys


def main(path: str) -> dict:
    counts, verbatim = collections.Counter(), collections.Counter()
    for line in open(path, encoding="utf-8"):
        row = json.loads(line)
        tools = {(t.get("function") or t)["name"]: (t.get("function") or t) for t in row.get("tools") or []}
        user = " ".join(m["content"] or "" for m in row["messages"] if m["role"] == "user")
        for message in row["messages"]:
            for call in message.get("tool_calls") or []:
                f = call.get("function", call)
                props = ((tools.get(f["name"]) or {}).get("parameters") or {}).get("properties") or {}
                args = f.get("arguments") or {}
                args = json.loads(args) if isinstance(args, str) else args
                for key, value in args.items():
                    if "enum" in (props.get(key) or {}) and isinstance(value, str) and "_" in value:
                        way = ("verbatim" if value in user else
                               "natural" if value.replace("_", " ").lower() in user.lower() else "otherwise")
                        counts[way] += 1
                        verbatim[value] += way == "verbatim"
    return {"build": path, "enum_arguments_with_underscores": sum(counts.values()), **counts,
            "most_common_verbatim": dict(verbatim.most_common(20))}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1]), indent=2))
