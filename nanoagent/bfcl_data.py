"""Reader of the Berkeley Function Calling Leaderboard data files shipped inside the `bfcl-eval` wheel.

The wheel (`pip install --no-deps bfcl-eval`; its own dependencies pin numpy 1.26, which clashes with gguf) carries
`bfcl_eval/data/BFCL_v4_<category>.json` (one JSON object per line: `id`, `question` = list of turns, each a list
of `{"role", "content"}` messages, `function` = list of specs with BFCL's type names like "dict"/"float") and
`bfcl_eval/data/possible_answer/BFCL_v4_<category>.json` (`id`, `ground_truth`: for single-turn categories a list
of `{tool_name: {param: [acceptable values...]}}`, for multi-turn ones a list of call strings per turn).
Multi-turn and agentic categories list `involved_classes` instead of `function`; their specs live in
`data/multi_turn_func_doc/*.json`, which `load` reads in (minus `excluded_function`).

We locate the package with `importlib.util.find_spec` and read its files; we never import its code.

Usage:
    from nanoagent.bfcl_data import load, categories
    for item in load("simple_python", limit=5):
        item.id, item.messages(), item.tools(), item.answers

Left out: scoring (the eval stage owns it) and the `format_sensitivity` index file (it lists ids, not items).
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from nanoagent.typenames import BFCL_NAMES

PACKAGE = "bfcl_eval"
PREFIX = "BFCL_v4_"
INSTALL_HINT = "pip install --no-deps bfcl-eval"

# Class names in `involved_classes` -> the function-doc file that describes their methods.
CLASS_DOCS = {
    "GorillaFileSystem": "gorilla_file_system.json", "MathAPI": "math_api.json", "MessageAPI": "message_api.json",
    "TwitterAPI": "posting_api.json", "TicketAPI": "ticket_api.json", "TradingBot": "trading_bot.json",
    "TravelAPI": "travel_booking.json", "VehicleControlAPI": "vehicle_control.json",
    "WebSearchAPI": "web_search.json", "MemoryAPI_kv": "memory_kv.json", "MemoryAPI_vector": "memory_vector.json",
    "MemoryAPI_rec_sum": "memory_rec_sum.json",
}
NOT_ITEMS = {"format_sensitivity"}


class BFCLDataMissing(ImportError):
    pass


@lru_cache(maxsize=1)
def data_dir() -> Path:
    """The wheel's data folder; raises BFCLDataMissing with the install command if the wheel is absent."""
    spec = importlib.util.find_spec(PACKAGE)  # locates the package without running it
    if spec is None or not spec.submodule_search_locations:
        raise BFCLDataMissing(f"the BFCL data files come from the bfcl-eval wheel: run `{INSTALL_HINT}`")
    folder = Path(list(spec.submodule_search_locations)[0]) / "data"
    if not folder.is_dir():
        raise BFCLDataMissing(f"{folder} is missing from the installed bfcl-eval; reinstall: `{INSTALL_HINT}`")
    return folder


def categories() -> list[str]:
    """Every category with an items file, e.g. simple_python, parallel, irrelevance, live_simple, multi_turn_base."""
    names = (p.name[len(PREFIX):-len(".json")] for p in data_dir().glob(f"{PREFIX}*.json"))
    return sorted(n for n in names if n not in NOT_ITEMS)


def to_json_schema(schema):
    """A BFCL parameter schema with standard JSON Schema type names (recursively)."""
    if isinstance(schema, list):
        return [to_json_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, str):
            if value == "any":
                continue
            out[key] = BFCL_NAMES.get(value, value)  # BFCL's Python/Java type names -> JSON Schema
        elif key in ("properties",) and isinstance(value, dict):
            out[key] = {k: to_json_schema(v) for k, v in value.items()}
        elif key in ("items", "additionalProperties", "anyOf", "oneOf", "allOf"):
            out[key] = to_json_schema(value)
        else:
            out[key] = value
    return out


@dataclass
class BFCLItem:
    id: str
    category: str
    question: list            # turns; each turn is a list of {"role", "content"} messages
    functions: list           # specs as BFCL writes them
    answers: list | None      # ground truth from possible_answer/, None where the category has none
    extra: dict = field(default_factory=dict)  # everything else in the row (initial_config, involved_classes, ...)

    def messages(self, turn: int = 0) -> list[dict]:
        return list(self.question[turn]) if self.question else []

    def user_texts(self) -> list[str]:
        return [m["content"] for turn in self.question for m in turn
                if m.get("role") == "user" and isinstance(m.get("content"), str)]

    def tools(self) -> list[dict]:
        """Canonical tool specs (`{"type": "function", "function": {...}}`) with JSON Schema parameters."""
        out = []
        for f in self.functions:
            params = to_json_schema(f.get("parameters") or {"type": "object", "properties": {}})
            out.append({"type": "function", "function": {
                "name": f["name"], "description": f.get("description", ""), "parameters": params}})
        return out


def _read_lines(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@lru_cache(maxsize=None)
def _class_functions(doc: str) -> tuple:
    return tuple(_read_lines(data_dir() / "multi_turn_func_doc" / doc))


def _functions_for(row: dict) -> list[dict]:
    if row.get("function"):
        return row["function"]
    excluded = set(row.get("excluded_function") or [])
    funcs = []
    for cls in row.get("involved_classes") or []:
        doc = CLASS_DOCS.get(cls) or CLASS_DOCS.get(f"{cls}_kv")
        if doc and (data_dir() / "multi_turn_func_doc" / doc).exists():
            funcs.extend(f for f in _class_functions(doc) if f["name"] not in excluded)
    return funcs


def load(category: str, limit: int | None = None) -> list[BFCLItem]:
    """Items of one category (see `categories()`), in file order, with their possible answers when shipped."""
    path = data_dir() / f"{PREFIX}{category}.json"
    if category in NOT_ITEMS or not path.exists():
        raise ValueError(f"unknown BFCL category {category!r}; known: {', '.join(categories())}")
    rows = _read_lines(path)[:limit]
    answer_path = data_dir() / "possible_answer" / f"{PREFIX}{category}.json"
    answers = {a["id"]: a.get("ground_truth") for a in _read_lines(answer_path)} if answer_path.exists() else {}
    items = []
    for row in rows:
        extra = {k: v for k, v in row.items() if k not in ("id", "question", "function")}
        items.append(BFCLItem(id=row["id"], category=category, question=row.get("question") or [],
                              functions=_functions_for(row), answers=answers.get(row["id"]), extra=extra))
    return items
