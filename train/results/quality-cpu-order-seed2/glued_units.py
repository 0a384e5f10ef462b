"""Counts a run's unparsable calls that carry a number with a unit or magnitude typed against it, as the request
wrote it ("temp": 298K, "population": 1.267 billion, "charge": 4C): JSON has no such value, so the reply is lost.

    python train/results/quality-cpu-order-seed2/glued_units.py RUN.json[,MORE.json] [RUN...] \
        > train/results/quality-cpu-order-seed2/glued_units.json

Each argument is one run: comma-joined files are its per-suite files (one label, each suite once). A reply counts
when its kind is not_json and some argument value is a bare number followed by a unit symbol, %, °, an ordinal
suffix ("19th") or a magnitude word ("million", "billion"). Prints JSON: per run the count, by suite, and each
reply's id and matched text.
"""

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "quality-cpu-citystate"))
from location_items import load_run  # noqa: E402  (one run's items by id from its per-suite files)

GLUED = re.compile(r'":\s*\[?-?\d[\d,.]*(?:[A-Za-z°%²³µΩ/]+|\s(?:million|billion|thousand)\b)')


def main(runs: list[str]) -> dict:
    report = {}
    for files in runs:
        hits = []
        for item_id, item in load_run(files).items():
            if item["kind"] == "not_json" and (m := GLUED.search(item.get("reply") or "")):
                hits.append({"id": item_id, "text": m.group(0)})
        by_suite = {}
        for h in hits:
            suite = h["id"].rsplit("_", 1)[0]
            by_suite[suite] = by_suite.get(suite, 0) + 1
        report[files] = {"replies": len(hits), "by_suite": by_suite, "per_reply": hits}
    return report


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print(json.dumps(main(sys.argv[1:]), indent=1, ensure_ascii=False))
