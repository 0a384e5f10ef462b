"""The specialist's data: any JSON-Schema tool drawn from (data_recipes/synthetic/from_schema.py), rows over one tool
set (specialist.py), and the data stage with examples (data_recipes/specialize.py).

Run: .venv/bin/python -m pytest tests/test_specialize_data.py -q
"""

import json
import random
import re

import jsonschema
import pytest

from data_recipes.specialize import SpecializeDataError, build, main, multiply, read_examples
from data_recipes.synthetic.from_schema import (SchemaToolError, described_examples, pattern_sampler, reshaped,
                                                tool_from_spec)
from data_recipes.synthetic.specialist import KINDS, SpecialistSource
from nanoagent.record import Record

TOOLS = [
    {"type": "function", "function": {
        "name": "start_print_job", "description": "Start a print job on one printer.",
        "parameters": {"type": "object", "required": ["file_name", "printer_id", "material"], "properties": {
            "file_name": {"type": "string", "description": "Model file, e.g. \"bracket_v2.stl\"."},
            "printer_id": {"type": "string", "pattern": "^P[0-9]{2}$", "description": "Printer, e.g. P07."},
            "material": {"type": "string", "enum": ["PLA", "PETG", "ABS"]},
            "copies": {"type": "integer", "minimum": 1, "maximum": 50, "default": 1},
            "supports": {"type": "boolean", "default": False}}}}},
    {"type": "function", "function": {
        "name": "schedule_maintenance", "description": "Book a maintenance window.",
        "parameters": {"type": "object", "required": ["printer_id", "date", "duration_minutes"], "properties": {
            "printer_id": {"type": "string", "pattern": "^P[0-9]{2}$"},
            "date": {"type": "string", "format": "date"},
            "start_time": {"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$"},
            "duration_minutes": {"type": "integer", "minimum": 15, "maximum": 240},
            "notify_email": {"type": "string", "format": "email"},
            "tasks": {"type": "array", "items": {"type": "string", "enum": ["nozzle_swap", "bed_leveling"]}}}}}},
    {"type": "function", "function": {
        "name": "get_printer_status", "description": "Status of one printer.",
        "parameters": {"type": "object", "required": ["printer_id"],
                       "properties": {"printer_id": {"type": "string", "pattern": "^P[0-9]{2}$"}}}}},
]


def schema_of(name):
    return next(t["function"]["parameters"] for t in TOOLS if t["function"]["name"] == name)


def test_values_fit_their_schemas():
    rng = random.Random(0)
    for spec in TOOLS:
        tool = tool_from_spec(spec)
        for param, _ in tool.params:
            for _ in range(30):
                v = param.sample(rng)
                jsonschema.validate(v.value, param.schema)
    assert pattern_sampler(r"^[A-Z]{3}-\d{4}$")(rng).value[3] == "-"
    assert pattern_sampler(r"^(a|b)$") is None  # groups: the name cues draw instead, filtered by the pattern


def test_cues_and_described_examples():
    rng = random.Random(1)
    tool = tool_from_spec(TOOLS[0])
    files = [tool.params[0][0].sample(rng).value for _ in range(200)]
    assert all(re.fullmatch(r"[a-z]+_v\d\.stl", f) for f in files)  # the shape of the description's example
    assert len(set(files)) > 100 and 5 <= files.count("bracket_v2.stl") <= 40  # the example itself now and then
    assert reshaped("NGC 7000", rng)[:4] == "NGC " and reshaped("Mill Lane", rng) != "Mill Lane"
    assert described_examples('Target, e.g. "M31", "NGC 7000".') == ["M31", "NGC 7000"]
    minutes = dict((p.name, p) for p, _ in tool_from_spec(TOOLS[1]).params)["duration_minutes"]
    said = {minutes.sample(rng).surface(rng, normalise=True) for _ in range(200)}
    assert any("hour" in s for s in said)  # 60 or 90 minutes said as people say them


def test_a_pattern_nothing_can_draw_is_named():
    bad = {"type": "function", "function": {"name": "f", "description": "", "parameters": {
        "type": "object", "properties": {"code": {"type": "string", "pattern": "^(x|y)[0-9]{3}(z|w)$"}}}}}
    with pytest.raises(SchemaToolError, match="'f'.*'code'"):
        SpecialistSource([bad])


def test_rows_offer_every_tool_and_their_calls_fit():
    src = SpecialistSource(TOOLS)
    kinds = set()
    for i in range(300):
        rec = src.row(i, seed=0)
        assert rec["tools"] == TOOLS  # the same prompt for every row: one prefix to share
        Record.from_dict(rec)
        kinds.add(rec["meta"]["kind"])
        for m in rec["messages"]:
            for c in m.get("tool_calls") or []:
                jsonschema.validate(c["function"]["arguments"], schema_of(c["function"]["name"]))
        if rec["meta"]["kind"] in ("near_miss", "no_tool"):
            assert not any(m.get("tool_calls") for m in rec["messages"])
    assert kinds == set(KINDS)
    assert src.row(7, 0) == SpecialistSource(TOOLS).row(7, 0)  # deterministic


def test_requests_state_few_optional_arguments():
    src, optional = SpecialistSource(TOOLS), {}
    for spec in TOOLS:
        fn = spec["function"]
        optional[fn["name"]] = set(fn["parameters"]["properties"]) - set(fn["parameters"].get("required", []))
    counts = []
    for i in range(400):
        rec = src.row(i, seed=1)
        if rec["meta"]["kind"] == "single":
            (call,) = rec["messages"][-1]["tool_calls"]
            counts.append(len(set(call["function"]["arguments"]) & optional[call["function"]["name"]]))
    assert max(counts) <= 3 and 0.3 < counts.count(0) / len(counts) < 0.75  # 0.45, more for tools with few


def example(user, calls=None, text=None):
    msg = {"role": "assistant", "content": text}
    if calls:
        msg["tool_calls"] = [{"id": f"c{i}", "type": "function",
                              "function": {"name": n, "arguments": json.dumps(a)}} for i, (n, a) in enumerate(calls)]
    return json.dumps({"messages": [{"role": "user", "content": user}, msg]})


def test_examples_are_checked_by_line(tmp_path):
    f = tmp_path / "ex.jsonl"
    f.write_text(example("status of P03", [("get_printer_status", {"printer_id": "P03"})]) + "\n"
                 + example("reboot P03", [("reboot", {"printer_id": "P03"})]) + "\n")
    with pytest.raises(SpecializeDataError, match=r"ex.jsonl:2.*'reboot'"):
        read_examples(f, TOOLS)
    f.write_text(example("status of P3", [("get_printer_status", {"printer_id": "P3"})]) + "\n")
    with pytest.raises(SpecializeDataError, match=r"ex.jsonl:1.*printer_id"):
        read_examples(f, TOOLS)


def test_examples_multiply_by_swapping_the_stated_values(tmp_path):
    f = tmp_path / "ex.jsonl"
    f.write_text(example("print gear_v1.stl on P03 in PETG", [("start_print_job", {
        "file_name": "gear_v1.stl", "printer_id": "P03", "material": "PETG"})]) + "\n")
    ex = read_examples(f, TOOLS)[0]
    copies = multiply(ex, SpecialistSource(TOOLS), random.Random(0), 10)
    assert len(copies) == 10
    for c in copies:
        args = c["messages"][-1]["tool_calls"][0]["function"]["arguments"]
        text = c["messages"][0]["content"]
        assert re.search(re.escape(args["printer_id"]), text) and args["material"].lower() in text.lower()
        jsonschema.validate(args, schema_of("start_print_job"))


def test_build_writes_splits_and_holds_out_examples(tmp_path):
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS))
    ex = tmp_path / "ex.jsonl"
    ex.write_text("\n".join([example(f"status of P0{i}", [("get_printer_status", {"printer_id": f"P0{i}"})])
                             for i in range(1, 8)] + [example("hello", text="Hi! How can I help?")]) + "\n")
    stats = build(str(tools), str(tmp_path / "data"), str(ex), rows=120, valid_rows=40, seed=3, say=lambda *_: None)
    out = tmp_path / "data"
    assert stats["examples"] == {"given": 8, "held_out": 2, "trained": 6, "rows_from_them": stats["examples"]
                                 ["rows_from_them"]} and stats["examples"]["rows_from_them"] > 6
    assert len((out / "heldout_examples.jsonl").read_text().splitlines()) == 2
    requests = [json.loads(x) for x in (out / "heldout_requests.jsonl").read_text().splitlines()]
    assert requests and {r["kind"] for r in requests} <= {"single", "parallel", "parallel_multiple", "no_call",
                                                            "clarify"}
    assert not (tmp_path / "data.partial").exists() and (out / "stats.json").is_file()


def test_examples_make_up_to_a_quarter_of_the_rows(tmp_path):
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS))
    ex = tmp_path / "ex.jsonl"
    ex.write_text("\n".join(example(f"status of P0{i}", [("get_printer_status", {"printer_id": f"P0{i}"})])
                            for i in range(1, 9)) + "\n")
    stats = build(str(tools), str(tmp_path / "data"), str(ex), rows=1600, valid_rows=10, seed=1, say=lambda *_: None)
    share = stats["sources"]["examples"] / stats["outputs"]["train"]
    assert 0.12 < share <= 0.25 and stats["sources"]["examples"] > 6 * 24  # more than the minimum copies each
    rows = [json.loads(x) for x in (tmp_path / "data" / "train.jsonl").read_text().splitlines()]
    own = [r for r in rows if r["tools"] == TOOLS]  # the specialist's rows and the examples' copies
    answered = sum(not any(m.get("tool_calls") for m in r["messages"]) for r in own) / len(own)
    assert 0.18 < answered < 0.28  # the examples' calls are balanced by rows answered in text (about 0.22)


def test_one_example_is_held_out_and_training_goes_on(tmp_path, capsys):
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps({"tools": [{"name": t["function"]["name"], "description": "",
                                            "inputSchema": t["function"]["parameters"]} for t in TOOLS]}))
    ex = tmp_path / "ex.jsonl"
    ex.write_text(example("status of P01", [("get_printer_status", {"printer_id": "P01"})]) + "\n")
    assert main(["--tools", str(tools), "--out", str(tmp_path / "d"), "--examples", str(ex), "--rows", "20",
                 "--valid-rows", "5"]) == 0
    assert "no examples left for training" in capsys.readouterr().out
    assert main(["--tools", str(tmp_path / "missing.json"), "--out", str(tmp_path / "e")]) == 2
