"""GRPO's tool-call family: reward parts on hand-made replies, task loading and its schema check, the task mix in the
config and in each step's picks, one group through a fake backend, validation on held-out tasks, and tiny `train.grpo`
runs (two families; validation choosing the final model).

Run: .venv/bin/python -m pytest -q tests/test_grpo_toolcall.py
"""

import nanoagent  # noqa: F401

import json
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

import train.grpo_toolcall as toolcall_mod
from nanoagent.suites import EvalItem
from nanoagent.agent.backend import Completion
from nanoagent.scoring import score_reply
from nanoagent.tasks import load_tasks
from nanoagent.tasks.spec import TaskError
from nanoagent.tasks.toolcall_rewards import PARTS, combine, reply_parts
from nanoagent.toolcall import format_tool_call
from train.config import ConfigError
from train.grpo import main, pick_groups, run
from train.grpo_config import load_grpo_config
from train.grpo_loss import completion_sample
from train.grpo_toolcall import hold_out, load_toolcall_tasks, toolcall_group, validate

FIXTURE = Path(__file__).parent / "fixtures" / "toolcall_tasks.jsonl"


@pytest.fixture(scope="module")
def tasks():
    return {t.id: t for t in load_toolcall_tasks(str(FIXTURE))}


def call(name, **args):
    return format_tool_call(name, args)


def parts_of(text, task):
    return tuple(reply_parts(text, task)[p] for p in PARTS)


# (format, tool_name, arg_names, arg_values, call_count, correct) on the fixture's tasks
RIGHT, ZERO = (1.0,) * 6, (0.0,) * 6
CASES = [
    ("tc-weather", call("get_weather", city="Paris", unit="celsius"), RIGHT),
    ("tc-weather", call("get_weather", city="paris", unit="Celsius"), RIGHT),  # eval's string normalisation
    ("tc-weather", call("set_timer", seconds=60), (1, 0, 0, 0, 1, 0)),  # wrong name
    ("tc-weather", call("get_weather", city="Paris"), (1, 1, 0.5, 0.5, 1, 0)),  # missing arg
    ("tc-weather", call("get_weather", city="Paris", unit="celsius", days=2), (1, 1, 2 / 3, 1, 1, 0)),  # extra arg
    ("tc-weather", call("get_weather", city="Lyon", unit="celsius"), (1, 1, 1, 0.5, 1, 0)),  # wrong value
    ("tc-weather", call("get_weather", city="Paris", unit="celsius") * 2, (1, 1, 1, 1, 0, 0)),  # one call too many
    ("tc-weather", "It is sunny in Paris.", ZERO),  # text where a call is expected
    ("tc-weather", '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}\n</tool_call>', ZERO),  # JSON
    ("tc-weather", '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}', ZERO),  # unclosed
    ("tc-weather", call("get_weather", city="Paris", unit="celsius").replace("\n{", "\n {"),
     (0, 1, 1, 1, 1, 1)),  # parses and is right, but not the way calls are written: no format credit
    ("tc-weather", "I can't do that.\n" + call("get_weather", city="Paris", unit="celsius"),
     (0, 1, 1, 1, 1, 1)),  # a sentence before the call
    ("tc-timer", call("set_timer", seconds=150), RIGHT),
    ("tc-timer", call("set_timer", seconds=150.0), (1, 1, 1, 0, 1, 0)),  # eval's types: a float is no integer
    ("tc-timer", call("set_timer", seconds="150"), (1, 1, 1, 0, 1, 0)),  # a string is not the number
    ("tc-parallel", call("convert_currency", amount=5, from_code="GBP", to_code="JPY")
     + call("convert_currency", amount=20, from_code="USD", to_code="EUR"), RIGHT),  # any order
    ("tc-parallel", call("convert_currency", amount=20, from_code="USD", to_code="EUR"),
     (1, 0.5, 0.5, 0.5, 0, 0)),  # wrong count: one of two calls
    ("tc-parallel", call("convert_currency", amount=20, from_code="USD", to_code="EUR")
     + call("convert_currency", amount=5, from_code="GBP", to_code="USD"), (1, 1, 1, (1 + 2 / 3) / 2, 1, 0)),
    ("tc-no-call", "Waves roll in,\nand out again.", RIGHT),  # text on a no-call task
    ("tc-no-call", call("get_weather", city="Paris"), ZERO),  # a call on a no-call task
    ("tc-no-call", "<tool_call>\n{oops}\n</tool_call>", ZERO),  # a broken call is still an attempt
]


@pytest.mark.parametrize("task_id,text,want", CASES)
def test_reward_parts(tasks, task_id, text, want):
    got = parts_of(text, tasks[task_id])
    assert got == pytest.approx(want)
    # `correct` is eval's own verdict, from the scorer eval uses
    assert got[-1] == float(score_reply(text, tasks[task_id])["correct"])


def test_optional_arguments_and_a_crashed_rollout():
    task = EvalItem(id="opt", suite="t", messages=[{"role": "user", "content": "x"}], tools=[], functions=[],
                    answers=[{"f": {"a": [1], "b": ["x", ""]}}])
    assert parts_of(call("f", a=1), task)[:5] == (1, 1, 1, 1, 1)  # an optional argument may be left out
    assert parts_of(call("f", a=1, b="y"), task)[:5] == pytest.approx((1, 1, 1, 0.5, 1))
    assert parts_of(call("f", b="x"), task)[:5] == pytest.approx((1, 1, 0.5, 0.5, 1))
    assert parts_of(None, task) == ZERO


def test_combine_weights_the_parts(tasks):
    t = tasks["tc-weather"]
    texts = [call("get_weather", city="Paris"), "no idea", None]
    totals, parts = combine(texts, [t] * 3, {"format": 1.0, "arg_values": 2.0})
    assert totals == pytest.approx([1.0 + 2 * 0.5, 0.0, 0.0])
    assert set(parts) == set(PARTS) and parts["arg_names"] == [0.5, 0.0, 0.0]  # unweighted parts still logged
    with pytest.raises(ValueError, match="unknown tool-call reward part 'style'"):
        combine(texts, [t] * 3, {"style": 1.0})


# ------------------------------------------------------------------------------------------------------ loading

def test_loading_the_fixture(tasks):
    assert list(tasks) == ["tc-weather", "tc-parallel", "tc-no-call", "tc-timer"]  # the record without tools: dropped
    assert [t.expect for t in tasks.values()] == ["calls", "calls", "no_call", "calls"]
    assert len(tasks["tc-parallel"].answers) == 2 and tasks["tc-parallel"].messages[-1]["role"] == "user"
    assert len(load_toolcall_tasks(f"{FIXTURE},{FIXTURE}")) == 8


def write_records(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def fixture_rows():
    return [json.loads(x) for x in FIXTURE.read_text().splitlines()]


def test_bad_sources_name_the_file(tmp_path):
    with pytest.raises(TaskError, match="nothing.jsonl does not exist"):
        load_toolcall_tasks(str(tmp_path / "nothing.jsonl"))
    (tmp_path / "broken.jsonl").write_text(FIXTURE.read_text().splitlines()[0] + "\n{not json\n")
    with pytest.raises(TaskError, match=r"broken.jsonl:2 is not JSON"):
        load_toolcall_tasks(str(tmp_path / "broken.jsonl"))
    write_records(tmp_path / "none.jsonl", [fixture_rows()[-1]])
    with pytest.raises(TaskError, match="none.jsonl holds no usable tasks .1 no tools offered"):
        load_toolcall_tasks(str(tmp_path / "none.jsonl"))
    with pytest.raises(TaskError, match="is empty"):
        load_toolcall_tasks(" ")


def bad_schema_file(tmp_path):
    rows = fixture_rows()
    rows[3]["messages"][1]["tool_calls"][0]["function"]["arguments"] = {"seconds": "two and a half minutes"}
    rows[3]["meta"]["id"] = "tc-bad-timer"
    return write_records(tmp_path / "bad.jsonl", rows)


def test_expected_call_outside_its_own_schema_is_named_before_any_rollout(tmp_path, monkeypatch, capsys):
    bad = bad_schema_file(tmp_path)
    with pytest.raises(TaskError, match=r"tool-call task tc-bad-timer \(.*bad.jsonl\): expected call 1, set_timer"
                                        r".* does not fit its own tool's schema: seconds: .* is not of type 'integer'"):
        load_toolcall_tasks(str(bad))

    def boom(*a, **k):
        raise AssertionError("a rollout or a model load started before the tasks were checked")
    monkeypatch.setattr(toolcall_mod, "rollout_toolcall_group", boom)
    monkeypatch.setattr("nanoagent.models.load", boom)
    assert main(["--toolcall-tasks", str(bad), "--model", str(tmp_path / "no-model"), "--no-progress",
                 "--run-dir", str(tmp_path / "r")]) == 2
    assert "tc-bad-timer" in capsys.readouterr().err


def test_default_source_builds_the_data_like_train_dft(tmp_path, monkeypatch):
    import train.dft

    monkeypatch.chdir(tmp_path)
    built = []

    def fake_build(cmd):  # stands in for the real (minutes-long) `python -m data_recipes.build`
        out = tmp_path / cmd[cmd.index("--out") + 1]
        out.mkdir(parents=True)
        (out / "train.jsonl").write_text(FIXTURE.read_text())
        (out / "valid.jsonl").write_text(FIXTURE.read_text())
        built.append(cmd[2])
        return 0
    monkeypatch.setattr(train.dft.subprocess, "call", fake_build)
    assert len(load_toolcall_tasks("valid")) == 4 and built == ["data_recipes.build"]
    assert len(load_toolcall_tasks("valid")) == 4 and built == ["data_recipes.build"]  # built once
    (tmp_path / "data" / "default" / "valid.jsonl").unlink()  # a data folder without its validation split
    with pytest.raises(TaskError, match="python -m data_recipes.build --offline"):
        load_toolcall_tasks("valid")


# ------------------------------------------------------------------------------------------------------ the mix

@pytest.mark.parametrize("argv,match", [
    (["--task-mix", "toolcall=1,chat=1"], "unknown task family 'chat'"),
    (["--task-mix", "toolcall=lots"], "'lots' for 'toolcall' is not a number"),
    (["--task-mix", "toolcall=0,coding=0"], "every task family weight is 0"),
    (["--task-mix", "toolcall=-1,coding=1"], "at least 0"),
    (["--task-mix", "toolcall"], "must be name=weight"),
    (["--toolcall-rewards", "format=1,style=2"], "unknown tool-call reward part 'style'"),
    (["--toolcall-rewards", "format=0"], "every tool-call reward part weight is 0"),
    (["--toolcall-max-tokens", "0"], "must be positive"),
])
def test_mix_and_reward_config_errors(argv, match):
    with pytest.raises(ConfigError, match=match):
        load_grpo_config(argv)


def test_mix_from_yaml_and_defaults(tmp_path):
    cfg = load_grpo_config([])
    assert set(cfg.task_mix) == {"toolcall", "coding"} and cfg.task_mix["toolcall"] > cfg.task_mix["coding"]
    assert cfg.toolcall_tasks == "valid" and set(cfg.toolcall_rewards) <= set(PARTS)
    p = tmp_path / "g.yaml"
    p.write_text("task_mix: {toolcall: 2}\ntoolcall_rewards: {format: 1, correct: 1}\n")
    cfg = load_grpo_config(["--config", str(p)])
    assert cfg.task_mix == {"toolcall": 2.0} and cfg.toolcall_rewards == {"format": 1.0, "correct": 1.0}
    p.write_text("task_mix: {toolcall: high}\n")
    with pytest.raises(ConfigError, match="task_mix.*must be a number"):
        load_grpo_config(["--config", str(p)])


def test_pick_groups_is_a_pure_function_of_seed_and_step():
    pools = {"toolcall": [f"t{i}" for i in range(50)], "coding": [f"c{i}" for i in range(10)]}
    mix = {"toolcall": 0.7, "coding": 0.3}
    first = [pick_groups(pools, mix, 2, seed=0, step=s) for s in range(300)]
    assert first == [pick_groups(pools, mix, 2, seed=0, step=s) for s in range(300)]  # resume sees the same stream
    assert first != [pick_groups(pools, mix, 2, seed=1, step=s) for s in range(300)]
    counts = Counter(f for picks in first for f, _ in picks)
    assert counts["toolcall"] + counts["coding"] == 600 and 0.64 < counts["toolcall"] / 600 < 0.76
    assert all(t in pools[f] for picks in first for f, t in picks)
    assert all(f == "toolcall" for picks in (pick_groups(pools, {"toolcall": 1.0, "coding": 0.0}, 3, 0, s)
                                             for s in range(20)) for f, _ in picks)
    # one family draws exactly what the coding-only trainer drew: random.Random(seed * 1_000_003 + step).sample
    import random
    assert [t for _, t in pick_groups({"coding": pools["coding"]}, {"coding": 1.0}, 2, 0, 5)] == \
        random.Random(5).sample(pools["coding"], 2)


def test_no_call_share_sets_the_share_of_declining_tasks(tasks):
    calls = [EvalItem(**{**vars(tasks["tc-weather"]), "id": f"c{i}"}) for i in range(40)]
    none = [EvalItem(**{**vars(tasks["tc-no-call"]), "id": f"n{i}"}) for i in range(10)]
    pools = {"toolcall": calls + none, "coding": [f"c{i}" for i in range(10)]}
    mix = {"toolcall": 0.8, "coding": 0.2}

    def share(no_call_share, steps=300):
        picks = [p for s in range(steps) for p in pick_groups(pools, mix, 3, 0, s, no_call_share)]
        tc = [t for f, t in picks if f == "toolcall"]
        assert len({t.id for t in tc}) > 1 and all(t in pools["toolcall"] for t in tc)
        return sum(t.expect == "no_call" for t in tc) / len(tc)
    assert 0.13 < share(None) < 0.27  # as the pool has them: 10 of 50
    assert 0.44 < share(0.5) < 0.56 and share(0.0) == 0.0 and share(1.0) == 1.0
    # the families' counts do not depend on the share, and a step is still a pure function of seed and step
    for s in range(50):
        with_share = pick_groups(pools, mix, 3, 0, s, 0.5)
        assert with_share == pick_groups(pools, mix, 3, 0, s, 0.5)
        assert Counter(f for f, _ in with_share) == Counter(f for f, _ in pick_groups(pools, mix, 3, 0, s))
    with pytest.raises(ConfigError, match="no_call_share"):
        load_grpo_config(["--no-call-share", "1.5"])
    assert load_grpo_config(["--no-call-share", "0.4"]).no_call_share == 0.4


# ------------------------------------------------------------------------------------------------------ one group

class FakeBatchBackend:
    """complete_batch with fixed replies and made-up ids/log-probs (3 prompt ids, one id per character + end)."""

    def __init__(self, replies):
        self.replies, self.requests = replies, []

    def complete_batch(self, conversations, tools, *, max_tokens, temperature, seed):
        self.requests.append((len(conversations), tools, max_tokens, temperature, seed))
        return [Completion(text=r, prompt_ids=[7, 8, 9], completion_ids=list(range(10, 11 + len(r))),
                           logprobs=[-0.5] * (len(r) + 1), finish_reason="stop", completion_tokens=len(r) + 1)
                for r in self.replies]


def cfg_for(**kw):
    base = {"group_size": 3, "toolcall_max_tokens": 32, "temperature": 1.0, "loss": "grpo", "mask_truncated": False,
            "toolcall_rewards": {"format": 0.2, "arg_values": 1.0}}
    return SimpleNamespace(**{**base, **kw})


def test_toolcall_group_scores_and_builds_samples(tasks):
    task = tasks["tc-weather"]
    replies = [call("get_weather", city="Paris", unit="celsius"), "sunny", call("get_weather", city="Rome")]
    backend = FakeBatchBackend(replies)
    g = toolcall_group(backend, task, cfg_for(), seed=11, first_rollout=5)
    assert backend.requests == [(3, task.tools, 32, 1.0, 11)]
    assert g.totals == pytest.approx([1.2, 0.0, 0.2]) and not g.zero and g.family == "toolcall"
    assert g.parts["tool_name"] == [1.0, 0.0, 1.0] and g.parts["correct"] == [1.0, 0.0, 0.0]
    assert [s.rollout for s in g.samples] == [5, 6, 7]
    s = g.samples[0]
    assert s.ids[:3] == [7, 8, 9] and s.mask == [0, 0, 0] + [1] * (len(replies[0]) + 1)
    assert s.old_logprobs[:4] == [0.0, 0.0, 0.0, -0.5] and s.advantage > 0 > g.samples[1].advantage
    recs = g.records
    assert [r["reply"] for r in recs] == replies and recs[1]["kind"] == "no_call"
    assert recs[0]["trajectory"]["messages"][-1] == {"role": "assistant", "content": replies[0]}
    assert recs[0]["expected"] == task.answers and g.tokens == sum(len(r) + 1 for r in replies)


def test_toolcall_group_without_signal_or_with_a_failing_backend(tasks):
    same = FakeBatchBackend(["sunny"] * 3)
    g = toolcall_group(same, tasks["tc-weather"], cfg_for(), seed=0)
    assert g.zero and g.samples == [] and g.totals == [0.0] * 3

    class Broken:
        def complete_batch(self, *a, **k):
            raise RuntimeError("out of memory")
    g = toolcall_group(Broken(), tasks["tc-weather"], cfg_for(), seed=0)
    assert g.crashed == 3 and g.errors == 1 and "out of memory" in g.records[0]["error"] and g.zero


def test_completion_sample_checks_lengths():
    s = completion_sample([1, 2], [3, 4], [-1.0, -2.0], 0.5, truncated=True, rollout=2)
    assert (s.ids, s.mask, s.old_logprobs, s.truncated, s.rollout) == ([1, 2, 3, 4], [0, 0, 1, 1],
                                                                       [0.0, 0.0, -1.0, -2.0], True, 2)
    with pytest.raises(ValueError, match="one per id"):
        completion_sample([1], [2, 3], [-1.0], 1.0)


# ------------------------------------------------------------------------------------------------------ end to end

def test_tiny_run_trains_on_both_families(tmp_path, monkeypatch):
    from nanoagent.testing import save_tiny_model

    model_dir = save_tiny_model(tmp_path / "tiny")
    real_score = toolcall_mod.score_toolcall_group

    def spread(completions, task, weights):  # a random model's replies score alike: give each group a spread
        s = real_score(completions, task, weights)
        s["real_totals"] = s["totals"]
        s["totals"] = [t + float(i % 2) for i, t in enumerate(s["totals"])]
        return s
    monkeypatch.setattr(toolcall_mod, "score_toolcall_group", spread)
    mix = {"toolcall": 0.5, "coding": 0.5}
    argv = ["--model", str(model_dir), "--run-dir", str(tmp_path / "run"), "--steps", "2", "--group-size", "2",
            "--tasks-per-step", "3", "--max-turns", "1", "--max-tokens-per-turn", "8", "--toolcall-max-tokens", "8",
            "--save-every", "2", "--no-progress", "--no-plot", "--inner-steps", "1", "--seed", "3",
            "--task-mix", ",".join(f"{k}={v}" for k, v in mix.items()), "--toolcall-tasks", str(FIXTURE)]
    cfg = load_grpo_config(argv)
    sizes = {"toolcall": 4, "coding": len(load_tasks(cfg.tasks))}  # the picks depend on the pools' sizes only
    picks = [pick_groups({f: list(range(n)) for f, n in sizes.items()}, cfg.task_mix, 3, 3, s) for s in range(2)]
    run(cfg)
    rows = [json.loads(x) for x in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    rows = [r for r in rows if r["kind"] == "train"]
    assert [r["step"] for r in rows] == [1, 2]
    tasks = {t.id: t for t in load_toolcall_tasks(str(FIXTURE))}
    for row, step_picks in zip(rows, picks):
        families = Counter(f for f, _ in step_picks)
        assert (row["toolcall_groups"], row["coding_groups"]) == (families["toolcall"], families["coding"])
        recs = [json.loads(x) for x in (tmp_path / "run" / "trajectories" / f"step_{row['step']:07d}.jsonl")
                .read_text().splitlines()]
        tc = [r for r in recs if r["family"] == "toolcall"]
        assert len(tc) == 2 * families["toolcall"] and len(recs) == 2 * len(step_picks)
        if not tc:
            assert row["reward_toolcall_format_mean"] is None and row["toolcall_zero_adv_share"] is None
            continue
        for rec in tc:  # a random model never writes <tool_call>: declining is right only on the no-call task
            want = 1.0 if tasks[rec["task"]].expect == "no_call" else 0.0
            assert rec["parts"] == {p: want for p in PARTS} == reply_parts(rec["reply"], tasks[rec["task"]])
        for part in PARTS:
            vals = [r["parts"][part] for r in tc]
            assert row[f"reward_toolcall_{part}_mean"] == pytest.approx(sum(vals) / len(vals))
        assert row["toolcall_zero_adv_share"] == 0.0  # every tool-call group had a spread
        # the update trained on exactly the tool-call replies (coding groups of a random model carry no signal)
        assert not row["skipped_update"] and row["coding_zero_adv_share"] in (1.0, None)
        assert row["loss_tokens"] == sum(r["completion_tokens"] for r in tc if r["advantage"] != 0)
    assert any(r["coding_groups"] for r in rows) and any(r["toolcall_groups"] for r in rows)
    saved = yaml.safe_load((tmp_path / "run" / "config.yaml").read_text())
    assert saved["task_mix"] == mix and saved["extra"]["training_tasks"] == sizes


# ------------------------------------------------------------------------------------------------------ validation

def test_hold_out_is_a_seeded_disjoint_sample(tasks):
    base = list(tasks.values())
    pool = [EvalItem(**{**vars(t), "id": f"{t.id}-{i}", "messages": t.messages[:-1] + [
        {"role": "user", "content": f"{t.messages[-1]['content']} ({i})"}]}) for i in range(5) for t in base]
    train, val = hold_out(pool, 6, seed=1)
    assert len(train) == 14 and len(val) == 6 and hold_out(pool, 6, seed=1)[1] == val
    assert sorted(map(id, train + val)) == sorted(map(id, pool)) and hold_out(pool, 6, seed=2)[1] != val
    assert hold_out(pool, 0, seed=1) == (pool, [])
    # copies of a held-out task (same messages and tools) leave the training pool with it
    twins = [tasks["tc-weather"], EvalItem(**{**vars(tasks["tc-weather"]), "id": "twin"}), tasks["tc-timer"]]
    train, val = hold_out(twins, 1, seed=0)
    assert (len(train), len(val)) in ((1, 1), (2, 1)) and all(t.messages != val[0].messages for t in train)
    with pytest.raises(TaskError, match="lower val_n"):
        hold_out(pool, 20, seed=1)


class FakeGreedyBackend:
    """complete() answering each prompt from a dict keyed by the user's message (else plain text)."""

    def __init__(self, answers):
        self.answers, self.temperatures = answers, []

    def complete(self, messages, tools, *, max_tokens, temperature, seed):
        self.temperatures.append(temperature)
        text = self.answers.get(messages[-1]["content"], "I can't help with that.")
        return Completion(text=text, finish_reason="stop", completion_tokens=len(text))


def test_validate_scores_calls_and_declines_apart(tasks):
    val = [tasks["tc-weather"], tasks["tc-timer"], tasks["tc-no-call"]]
    right = {"What's the weather in Paris, in celsius?": call("get_weather", city="Paris", unit="celsius")}
    backend = FakeGreedyBackend(right)
    out = validate(backend, val, cfg_for(seed=0))
    m = out["metrics"]
    # weather right, timer answered in prose (wrong), poem declined (right): calls 1/2, no call 1/1
    assert (m["val_call_accuracy"], m["val_no_call_accuracy"]) == (0.5, 1.0)
    assert m["val_score"] == pytest.approx(0.75) and m["val_accuracy"] == pytest.approx(2 / 3) and m["val_n"] == 3
    assert backend.temperatures == [0.0] * 3 and [o["id"] for o in out["items"]] == [t.id for t in val]
    # calling on everything does not pay: the decline is lost
    backend = FakeGreedyBackend({**right, "Write me a two-line poem about the sea.": right[next(iter(right))]})
    assert validate(backend, val, cfg_for(seed=0))["metrics"]["val_score"] == pytest.approx(0.25)


def scripted_validation(monkeypatch, scores):
    """validate() replaced by the given scores in order; returns the list of task counts it was called with."""
    seen = []

    def scripted(backend, val_tasks, cfg):
        seen.append(len(val_tasks))
        return {"metrics": {"val_score": scores[len(seen) - 1], "val_call_accuracy": 0.0,
                            "val_no_call_accuracy": 0.0}, "items": []}
    monkeypatch.setattr(toolcall_mod, "validate", scripted)
    real_score = toolcall_mod.score_toolcall_group

    def spread(completions, task, weights):  # a random model's replies score alike: give each group a spread
        s = real_score(completions, task, weights)
        s["totals"] = [t + float(i % 2) for i, t in enumerate(s["totals"])]
        return s
    monkeypatch.setattr(toolcall_mod, "score_toolcall_group", spread)
    return seen


def val_argv(model_dir, run_dir, steps=2):
    return ["--model", str(model_dir), "--run-dir", str(run_dir), "--steps", str(steps), "--group-size", "2",
            "--tasks-per-step", "1", "--toolcall-max-tokens", "8", "--save-every", "1", "--no-progress", "--no-plot",
            "--inner-steps", "1", "--task-mix", "toolcall=1", "--toolcall-tasks", str(FIXTURE), "--val-n", "2",
            "--val-every", "1", "--learning-rate", "1e-2", "--fine-tune", "full", "--keep-checkpoints", "3"]


def weights(folder):
    from mlx.utils import tree_flatten

    from nanoagent.models import load
    return dict(tree_flatten(load(str(folder))[0].parameters()))


def same(a, b):
    import mlx.core as mx
    return set(a) == set(b) and all(mx.array_equal(a[k], b[k]).item() for k in a)


@pytest.mark.parametrize("scores,best_step", [([0.5, 0.4, 0.3], 0), ([0.1, 0.5, 0.3], 1), ([0.1, 0.2, 0.3], 2)])
def test_validation_picks_the_final_model(tmp_path, monkeypatch, scores, best_step):
    import mlx.core as mx

    from nanoagent.testing import save_tiny_model

    model_dir = save_tiny_model(tmp_path / "tiny")
    seen = scripted_validation(monkeypatch, scores)
    run_dir = tmp_path / "run"
    summary = run(load_grpo_config(val_argv(model_dir, run_dir)))
    assert seen == [2, 2, 2]  # before the first step and after each
    rows = [json.loads(x) for x in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows if r["kind"] == "val"] == [0, 1, 2]
    assert sorted(p.name for p in (run_dir / "val").iterdir()) == [f"step_{i:07d}.json" for i in range(3)]
    assert summary["best_step"] == best_step and summary["best_val_score"] == max(scores)
    assert json.loads((run_dir / "best" / "state.json").read_text())["step"] == best_step
    final, start = weights(run_dir / "model"), weights(model_dir)
    assert same(final, start) == (best_step == 0)  # the start model back when training only made things worse
    best = mx.load(str(run_dir / "best" / "trainable.safetensors"))  # full fine-tuning: every weight
    assert same({k: final[k] for k in best}, best)
    last = mx.load(str(next((run_dir / "checkpoints").glob("step_0000002*")) / "trainable.safetensors"))
    assert same({k: final[k] for k in last if k in final}, {k: last[k] for k in last if k in final}) == \
        (best_step == 2)
    # the training pool lost the held-out tasks: 4 usable fixture tasks, 2 held out
    assert yaml.safe_load((run_dir / "config.yaml").read_text())["extra"]["training_tasks"] == {"toolcall": 2}


def test_validation_resumes(tmp_path, monkeypatch):
    from nanoagent.testing import save_tiny_model

    model_dir = save_tiny_model(tmp_path / "tiny")
    run_dir = tmp_path / "run"
    seen = scripted_validation(monkeypatch, [0.1, 0.5, 0.3, 0.2, 0.6, 0.1, 0.1])
    run(load_grpo_config(val_argv(model_dir, run_dir, steps=1)))
    assert len(seen) == 2  # steps 0 and 1
    summary = run(load_grpo_config(val_argv(model_dir, run_dir, steps=2)))
    assert len(seen) == 3 and summary["best_step"] == 1  # the resume does not score the start again
    # best weights from after the checkpoint a run resumes from belong to undone training: dropped, step revalidated
    state = json.loads((run_dir / "best" / "state.json").read_text())
    (run_dir / "best" / "state.json").write_text(json.dumps({**state, "step": 7, "val_score": 0.9}))
    summary = run(load_grpo_config(val_argv(model_dir, run_dir, steps=3)))
    assert len(seen) == 5 and summary["best_step"] == 3 and summary["best_val_score"] == 0.6
    rows = [json.loads(x) for x in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows if r["kind"] == "val"] == [0, 1, 2, 3]
    # a new run in the same folder starts its record afresh
    run(load_grpo_config(val_argv(model_dir, run_dir, steps=1) + ["--no-resume"]))
    rows = [json.loads(x) for x in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows if r["kind"] == "val"] == [0, 1]


def test_validation_scores_the_current_policy(tmp_path):
    """After the weights change, the run's MLX backend answers as a fresh one does: no cache of an older policy's keys
    and values is reused between requests (their prompts share the tools preamble)."""
    import mlx.core as mx

    from nanoagent.agent.backends.mlx_backend import MLXBackend
    from nanoagent.models import load
    from nanoagent.testing import save_tiny_model
    from train.grpo import policy_backend

    model, tok = load(str(save_tiny_model(tmp_path / "a", seed=0)))
    cfg = load_grpo_config(["--toolcall-max-tokens", "6"])
    tasks = load_toolcall_tasks(str(FIXTURE))
    backend = policy_backend(model, tok, cfg, "tiny")

    def answers(b):  # validation's requests, one after another: the log-probs of the greedy replies
        return [[round(x, 4) for x in b.complete(t.messages, t.tools, max_tokens=6, temperature=0.0, seed=0).logprobs]
                for t in tasks]
    before = answers(backend)
    model.load_weights(list(mx.load(str(save_tiny_model(tmp_path / "b", seed=3) / "model.safetensors")).items()))
    after = answers(backend)
    assert after == answers(MLXBackend(model, tok, reuse_prompt_cache=False)) and after != before


def test_validation_needs_the_toolcall_family():
    with pytest.raises(ConfigError, match="no tool-call family"):
        load_grpo_config(["--task-mix", "coding=1", "--val-n", "10"])
    with pytest.raises(ConfigError, match="val_every"):
        load_grpo_config(["--val-every", "0"])
