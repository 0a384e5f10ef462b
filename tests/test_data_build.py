"""End-to-end builds on the fixtures: outputs, stats, determinism (same seed, same bytes), the worker pool,
and the offline fallback that says so once.

Run: .venv/bin/python -m pytest tests/test_data_build.py -q
"""

import json
from pathlib import Path

import pytest
import yaml

import data_recipes.build as build_mod
from data_recipes.build import build
from data_recipes.recipe import RECIPES
from nanoagent.record import Record

FIXTURES = RECIPES / "fixtures.yaml"


def run(tmp_path, tok, name, **kw):
    return build(FIXTURES, tokenizer=tok, out=str(tmp_path / name), quiet=True, **kw)


def test_fixture_build_writes_canonical_records_and_stats(tmp_path, tiny_tok):
    out = run(tmp_path, tiny_tok, "a")
    for name in ("train.jsonl", "valid.jsonl", "stats.json", "recipe.resolved.yaml"):
        assert (out / name).is_file()
    train = [json.loads(x) for x in (out / "train.jsonl").read_text().splitlines()]
    valid = [json.loads(x) for x in (out / "valid.jsonl").read_text().splitlines()]
    assert train and valid
    for r in train + valid:
        assert Record.from_dict(r).to_dict() == r
    stats = json.loads((out / "stats.json").read_text())
    xlam = stats["sources"]["xlam"]
    assert xlam["raw"] == 11 and xlam["exact_dups"] == 1 and xlam["near_dups"] == 1
    assert xlam["dropped"] == {"calls_unknown_tool": 1, "missing_query": 1, "unparseable_answers": 1}
    assert xlam["filtered"] == {"arguments_off_schema": 1}
    assert stats["sources"]["smoltalk_magpie"]["exact_dups"] == 1
    assert stats["outputs"]["train"] == len(train)
    assert sum(s["train"] for s in stats["sources"].values()) == len(train)
    from nanoagent.provenance import code_digest
    root = Path(__file__).parents[1]
    assert "data_recipes" in stats["code"]["paths"]
    assert stats["code"]["digest"] == code_digest(root, stats["code"]["paths"])  # what train.dft checks
    resolved = yaml.safe_load((out / "recipe.resolved.yaml").read_text())
    assert resolved["out"] == str(out) and resolved["filters"]["max_tokens"] == 2048
    # no think traces, no trailing user turns survive
    for r in train:
        assert r["messages"][-1]["role"] == "assistant"
        assert all("<think>" not in (m.get("content") or "") for m in r["messages"])


def test_same_seed_same_bytes_other_seed_other_order(tmp_path, tiny_tok):
    a, b = run(tmp_path, tiny_tok, "a"), run(tmp_path, tiny_tok, "b")
    c = run(tmp_path, tiny_tok, "c", seed=1)
    for name in ("train.jsonl", "valid.jsonl"):
        assert (a / name).read_bytes() == (b / name).read_bytes()
    assert (a / "train.jsonl").read_bytes() != (c / "train.jsonl").read_bytes()


def test_worker_pool_gives_the_same_bytes_as_one_process(tmp_path, tiny_tok, monkeypatch):
    one = run(tmp_path, tiny_tok, "one", num_proc=1)
    monkeypatch.setattr(build_mod, "POOL_MIN_ROWS", 1)
    monkeypatch.setattr(build_mod, "CHUNK", 5)
    two = run(tmp_path, tiny_tok, "two", num_proc=2)
    assert (one / "train.jsonl").read_bytes() == (two / "train.jsonl").read_bytes()


def test_weights_and_caps(tmp_path, tiny_tok):
    out = run(tmp_path, tiny_tok, "w", valid_fraction=0.0,
              **{"sources.xlam.weight": 2.0, "sources.orca_agentinstruct.rows": 1})
    stats = json.loads((out / "stats.json").read_text())["sources"]
    assert stats["xlam"]["train"] == 2 * stats["xlam"]["available"]
    assert stats["orca_agentinstruct"]["train"] == 1


def test_unreachable_hub_falls_back_to_fixtures_and_says_so_once(tmp_path, tiny_tok, monkeypatch, capsys):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    recipe = tmp_path / "hub.yaml"
    recipe.write_text(yaml.safe_dump({"hub": "auto", "num_proc": 1, "sources": [
        {"id": "xlam"}, {"id": "hermes_v1"}, {"id": "chatml_fc"}]}))
    out = build(recipe, tokenizer=tiny_tok, out=str(tmp_path / "h"), quiet=False)
    err = capsys.readouterr().err
    assert err.count("Hub not reachable") == 1 and "HF_HUB_OFFLINE" in err
    stats = json.loads((out / "stats.json").read_text())
    assert stats["hub"]["reachable"] is False
    assert {s["origin"] for s in stats["sources"].values()} == {"fixture"}


def test_local_file_source_goes_through_the_same_adapter(tmp_path, tiny_tok):
    rows = [{"id": i, "query": f"What is the weather in city number {i} today, please?",
             "tools": json.dumps([{"name": "w", "description": "", "parameters": {"city": {"type": "str"}}}]),
             "answers": json.dumps([{"name": "w", "arguments": {"city": f"c{i}"}}])} for i in range(6)]
    rows.append({"id": 99, "query": "broken", "tools": "[", "answers": "[]"})
    data = tmp_path / "mine.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    recipe = tmp_path / "local.yaml"
    recipe.write_text(yaml.safe_dump({"hub": "offline", "valid_fraction": 0.0,
                                      "sources": [{"id": "xlam", "path": str(data)}]}))
    out = build(recipe, tokenizer=tiny_tok, out=str(tmp_path / "l"), quiet=True)
    stats = json.loads((out / "stats.json").read_text())["sources"]["xlam"]
    assert stats["origin"] == "file" and stats["raw"] == 7 and stats["train"] == 6
    assert stats["dropped"] == {"unparseable_tools": 1}


def test_bfcl_prompt_copied_into_training_data_is_removed(tmp_path, tiny_tok):
    pytest.importorskip("nanoagent.bfcl_data")
    from nanoagent.bfcl_data import load

    q = load("simple_python", limit=1)[0].user_texts()[0]
    rows = [{"id": 0, "query": q, "tools": json.dumps([{"name": "t", "description": "", "parameters": {}}]),
             "answers": json.dumps([{"name": "t", "arguments": {}}])},
            {"id": 1, "query": "A question that no benchmark asks about purple elephants dancing tonight",
             "tools": json.dumps([{"name": "t", "description": "", "parameters": {}}]),
             "answers": json.dumps([{"name": "t", "arguments": {}}])}]
    data = tmp_path / "c.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    recipe = tmp_path / "c.yaml"
    recipe.write_text(yaml.safe_dump({"hub": "offline", "valid_fraction": 0.0,
                                      "sources": [{"id": "xlam", "path": str(data)}]}))
    out = build(recipe, tokenizer=tiny_tok, out=str(tmp_path / "c"), quiet=True)
    stats = json.loads((out / "stats.json").read_text())["sources"]["xlam"]
    assert stats["contaminated"] == {"bfcl:simple_python": 1} and stats["train"] == 1


@pytest.mark.slow
def test_default_recipe_builds_offline_with_the_real_tokenizer(tmp_path, embedded_tokenizer, monkeypatch, capsys):
    """The shipped default recipe, offline (as on a fresh clone here), with fewer synthetic rows to stay fast."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    out = build(None, tokenizer=embedded_tokenizer, out=str(tmp_path / "default"), **{"sources.synthetic.rows": 200})
    err = capsys.readouterr().err
    assert "recipe default" in err and "total" in err  # the summary table
    stats = json.loads((out / "stats.json").read_text())
    origins = {name: s["origin"] for name, s in stats["sources"].items()}
    assert set(origins.values()) <= {"fixture", "generated", "unavailable"}
    assert stats["outputs"]["train"] > 0 and stats["outputs"]["valid"] > 0
    if origins.get("synthetic") == "generated":
        assert stats["sources"]["synthetic"]["train"] > 0


def test_rows_offering_a_bfcl_function_name_are_dropped_and_counted(tmp_path, tiny_tok):
    out = run(tmp_path, tiny_tok, "names", **{"decontam.function_names": True})
    stats = json.loads((out / "stats.json").read_text())
    hits = sum(s["contaminated"].get("bfcl:function_name", 0) for s in stats["sources"].values())
    assert hits > 0, "the fixtures offer get_weather-style tools that BFCL's functions are also named"
    names = [t["function"]["name"] for line in (out / "train.jsonl").read_text().splitlines()
             for t in json.loads(line)["tools"]]
    from data_recipes.decontam import bfcl_function_names
    from data_recipes.recipe import DecontamConfig
    assert not set(names) & bfcl_function_names(DecontamConfig().bfcl)


def test_asking_synthetic_for_more_distinct_rows_than_it_can_make_is_an_error(tmp_path, tiny_tok):
    # no_tool rows draw a third of their questions from small chit-chat pools: 3,000 of them repeat over 25%.
    from data_recipes.recipe import RecipeError

    recipe = tmp_path / "r.yaml"
    recipe.write_text(yaml.safe_dump({"name": "r", "hub": "offline", "num_proc": 1,
                                      "sources": [{"id": "synthetic", "rows": 3000, "kinds": ["no_tool"]}]}))
    with pytest.raises(RecipeError, match=r"can make only about [\d,]+ distinct ones.*Ask for at most") as err:
        build(recipe, tokenizer=tiny_tok, out=str(tmp_path / "out"), quiet=True)
    assert "3,000" in str(err.value)
    assert not (tmp_path / "out" / "train.jsonl").exists()
    build(recipe, tokenizer=tiny_tok, out=str(tmp_path / "ok"), quiet=True, **{"sources.synthetic.rows": 600})


def test_a_build_that_dies_while_writing_leaves_the_previous_output_whole(tmp_path, tiny_tok, monkeypatch):
    import data_recipes.report as report

    out = run(tmp_path, tiny_tok, "a")
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def die(*a, **k):
        raise KeyboardInterrupt  # as if killed while writing the outputs

    monkeypatch.setattr(report, "save_resolved", die)
    with pytest.raises(KeyboardInterrupt):
        run(tmp_path, tiny_tok, "a", seed=5)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # the last whole build, untouched


def test_out_naming_a_file_is_an_error_before_any_work(tmp_path, tiny_tok):
    from data_recipes.recipe import RecipeError

    (tmp_path / "f").write_text("x")
    with pytest.raises(RecipeError, match="is a file"):
        build(FIXTURES, tokenizer=tiny_tok, out=str(tmp_path / "f"), quiet=True)


def test_the_trainer_refuses_an_unfinished_build(tmp_path, tiny_tok):
    from train.dft import DataError, resolve_data
    from train.config import DFTConfig

    out = run(tmp_path, tiny_tok, "a")
    assert resolve_data(DFTConfig(data=str(out)))[0] == out / "train.jsonl"
    (out / "stats.json").unlink()
    with pytest.raises(DataError, match="unfinished data build"):
        resolve_data(DFTConfig(data=str(out)))
    staged = out.rename(out.with_name(f".{out.name}.partial"))  # what a killed build leaves, stats.json or not
    (staged / "stats.json").write_text("{}")
    for given in (staged, staged / "train.jsonl"):
        with pytest.raises(DataError, match="staging folder of a data build that did not finish"):
            resolve_data(DFTConfig(data=str(given)))
    from nanoagent.tasks import TaskError
    from train.grpo_toolcall import source_path

    with pytest.raises(TaskError, match="staging folder"):  # GRPO's tool-call tasks read the same folders
        source_path(str(staged))


def test_sigkill_during_builds_leaves_the_folder_absent_or_whole(tmp_path):
    """A process rebuilding the same output folder in a loop is SIGKILLed at several moments after its first build
    finished: the folder is always a whole build (stats.json present and its row counts equal to the files'
    lines), never half. Waiting for the first build keeps the test meaningful on a slow or loaded machine."""
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "data"
    code = ("import sys, nanoagent\nfrom data_recipes.build import build\nfrom data_recipes.recipe import RECIPES\n"
            "from nanoagent.testing import tiny_tokenizer\ntok = tiny_tokenizer()\n"
            "for i in range(100):\n"
            f"    build(RECIPES / 'fixtures.yaml', tokenizer=tok, out={str(out)!r}, quiet=True, seed=i)\n"
            "    print(i, flush=True)\n")
    for delay in (0.4, 1.3, 2.6):  # into the second build: reading, deduplicating, writing
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True)
        assert proc.stdout.readline().strip() == "0"  # the first build is whole
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        if not out.exists():  # killed between publish's two renames: the last whole build waits beside it
            assert (tmp_path / ".data.old" / "stats.json").is_file()
            continue
        stats = json.loads((out / "stats.json").read_text())
        for split in ("train", "valid"):
            lines = (out / f"{split}.jsonl").read_text().splitlines()
            assert len(lines) == stats["outputs"][split]
            json.loads(lines[-1])  # the last line is whole
