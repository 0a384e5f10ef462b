"""eval.coding on a tiny task of our own with a scripted model: the real sandbox, the real judge, pass@k, the
result file and the bad-input errors.

Run: .venv/bin/python -m pytest -q tests/test_eval_coding.py
"""


import nanoagent  # noqa: F401
import pytest

from eval import coding
from eval.results import load_runs
from nanoagent.stats import pass_at_k
from nanoagent.agent.backend import ScriptedBackend
from nanoagent.tasks import evaluate, load_task
from nanoagent.toolcall import format_tool_call

FIX = format_tool_call("apply_patch", {"file": "calc.py", "search": "a - b", "replace": "a + b"})


@pytest.fixture
def task(tmp_path):
    folder = tmp_path / "tasks" / "tiny_add"
    (folder / "repo").mkdir(parents=True)
    (folder / "repo" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (folder / "repo" / "test_calc.py").write_text(
        "import unittest\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n"
        "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n")
    (folder / "task.yaml").write_text("id: tiny_add\nsplit: held-out\nstatement: add() subtracts; make it add.\n"
                                      "test_command: python -m unittest -q\ntest_files: [test_calc.py]\n")
    (folder / "reference.patch").write_text("diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n"
                                            "@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n")
    return load_task(folder)


def config(**kw):
    return coding.agent_config(coding.CodingConfig(max_turns=3, **kw))


def test_a_fixing_run_succeeds_and_a_giving_up_run_fails(task):
    rows = coding.run_task(ScriptedBackend([FIX, "Fixed."]), task, evaluate, config())
    assert rows[0]["success"] and rows[0]["exit_status"] == "answered" and rows[0]["turns"] == 2
    rows = coding.run_task(ScriptedBackend(["I cannot do that."]), task, evaluate, config())
    assert not rows[0]["success"] and rows[0]["turns"] == 1


def test_budgets_end_runs_and_are_reported(task):
    look = format_tool_call("shell", {"cmd": "ls"})
    rows = coding.run_task(ScriptedBackend([look] * 5), task, evaluate, config())
    assert rows[0]["exit_status"] == "max_turns" and rows[0]["turns"] == 3 and not rows[0]["success"]


def test_samples_and_pass_at_k(task):
    # two samples in lockstep: the scripted backend answers them in turn (sample 0 fixes, sample 1 gives up)
    backend = ScriptedBackend([FIX, "No.", "Done."])
    rows = coding.run_task(backend, task, evaluate, config(temperature=0.7), samples=2)
    assert [r["success"] for r in rows] == [True, False]
    m = coding.summarize(rows, samples=2, seconds=1.0)
    assert m["resolved_rate"] == 0.5 and m["pass_at_k"] == {"1": 0.5, "2": 1.0}
    assert m["exit_statuses"] == {"answered": 2}
    # sample 0: a valid call then the closing answer (1 of 1 counted turn); sample 1: an answer only (0 of 1)
    assert [(r["valid_call_turns"], r["counted_turns"]) for r in rows] == [(1, 1), (0, 1)]
    assert m["valid_call_rate"] == 0.5


def test_a_call_with_a_missing_argument_is_not_a_valid_call_turn(task):
    broken = format_tool_call("apply_patch", {"file": "calc.py", "search": "a - b"})  # no `replace`
    rows = coding.run_task(ScriptedBackend([broken, FIX, "Fixed."]), task, evaluate, config())
    assert rows[0]["success"] and (rows[0]["valid_call_turns"], rows[0]["counted_turns"]) == (1, 2)


def test_pass_at_k_estimator():
    assert pass_at_k(5, 0, 1) == 0.0 and pass_at_k(5, 5, 3) == 1.0
    assert pass_at_k(4, 1, 1) == pytest.approx(0.25)
    assert pass_at_k(4, 1, 2) == pytest.approx(0.5)
    with pytest.raises(ValueError):
        pass_at_k(2, 3, 1)


def test_a_judge_failure_is_recorded_not_raised(task):
    def broken(task, traj):
        raise RuntimeError("judge down")

    rows = coding.run_task(ScriptedBackend(["ok"]), task, broken, config())
    assert rows[0]["success"] is False and "judge down" in rows[0]["error"]


def test_main_writes_a_result_file(task, tmp_path, monkeypatch):
    import nanoagent.agent.backends as backends

    monkeypatch.setattr(backends, "load_backend", lambda spec, **kw: ScriptedBackend([FIX, "Fixed."]))
    out = tmp_path / "results"
    assert coding.main(["--model", "embedded", "--tasks", str(task.folder.parent), "--out-dir", str(out),
                        "--label", "scripted", "--max-turns", "3"]) == 0
    runs, skipped = load_runs(out)
    assert not skipped and runs[0]["kind"] == "coding" and runs[0]["label"] == "scripted"
    suite = runs[0]["suites"][f"coding:{task.folder.parent}"]
    assert suite["metrics"]["resolved_rate"] == 1.0 and suite["items"][0]["task"] == "tiny_add"
    assert runs[0]["machine"]["cores"] and runs[0]["settings"]["max_turns"] == 3


@pytest.mark.parametrize("argv, message", [
    (["--tasks", "no/such/folder"], "could not load tasks"),
    (["--samples", "3"], "identical greedy runs"),
    (["--samples", "0"], "samples must be >= 1"),
    (["--max-turns", "lots"], "not a valid int"),
])
def test_bad_input_fails_before_any_model_loads(argv, message, capsys):
    assert coding.main(argv) == 2
    assert message in capsys.readouterr().err


def test_a_model_that_cannot_load_is_a_clear_error(task, capsys):
    assert coding.main(["--model", "/no/such/model.gguf", "--tasks", str(task.folder)]) == 2
    assert "could not load model" in capsys.readouterr().err


def test_a_task_that_already_passes_is_left_out_not_scored(task, tmp_path, monkeypatch, capsys):
    import nanoagent.agent.backends as backends

    (task.repo / "calc.py").write_text("def add(a, b):\n    return a + b\n")  # the bug is already fixed
    monkeypatch.setattr(backends, "load_backend", lambda spec, **kw: ScriptedBackend(["Nothing to do."]))
    assert coding.main(["--model", "embedded", "--tasks", str(task.folder.parent),
                        "--out-dir", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "tiny_add: its tests pass before any change" in err and "nothing to measure" in err


def test_tests_that_cannot_run_are_an_error_not_zero_resolved(task, tmp_path, monkeypatch, capsys):
    # the interpreter exists on the host but not inside the sandbox (as when a fresh /tmp hid a venv under /tmp)
    import sys

    import nanoagent.agent.backends as backends

    judge = sys.modules["nanoagent.tasks.evaluate"]  # the module (the package exports its function by that name)
    monkeypatch.setattr(judge, "run_tests", lambda *a, **k: {"exit_code": 127, "timed_out": False,
                                                             "output": "bash: python: command not found\n"})
    monkeypatch.setattr(backends, "load_backend", lambda spec, **kw: ScriptedBackend([FIX, "Fixed."]))
    assert coding.main(["--model", "embedded", "--tasks", str(task.folder.parent),
                        "--out-dir", str(tmp_path / "r")]) == 1
    err = capsys.readouterr().err
    assert "tiny_add" in err and "python: command not found" in err and "could not run in the sandbox" in err
    assert not (tmp_path / "r").exists()  # no result file that reads "resolved 0.000"


def test_the_report_shows_the_valid_call_rate_and_a_dash_for_older_files():
    from eval.report import coding_table

    metrics = {"tasks": 2, "runs": 2, "resolved_rate": 0.5, "resolved_ci95": None, "pass_at_k": {"1": 0.5},
               "mean_turns": 1.5, "mean_completion_tokens": 40, "exit_statuses": {"answered": 2}}
    runs = [{"label": label, "model": {"backend": "scripted"}, "suites": {"coding:held-out": {"metrics": m}}}
            for label, m in (("new", metrics | {"valid_call_rate": 0.25}), ("old", metrics))]
    new, old = coding_table(runs).splitlines()[2:]
    assert "| 25.0 |" in new and "| - |" in old


def test_grpo_policy_eval_runs_tasks_as_eval_coding_does(task):
    """train.grpo's held-out eval goes through the same run_task; a run that fails to finish scores 0 there."""
    from train.grpo_config import GRPOConfig
    from train.grpo_rollout import evaluate_policy

    class Broken(ScriptedBackend):
        def complete(self, *a, **k):
            raise RuntimeError("backend down")

    good = evaluate_policy(ScriptedBackend([FIX, "Fixed."]), [task], GRPOConfig(max_turns=3))
    assert (good["test_pass_rate"], good["valid_call_rate"]) == (1.0, 1.0)
    assert good["rows"][0]["exit_status"] == "answered"
    bad = evaluate_policy(Broken([]), [task], GRPOConfig(max_turns=3))
    assert (bad["test_pass_rate"], bad["valid_call_rate"]) == (0.0, 0.0)
    assert bad["rows"][0]["exit_status"] != "answered"


def test_one_agent_settings_builder_for_eval_and_grpo():
    """nanoagent.tasks.attempt.agent_config reads both stages' budgets; GRPO passes its own names as changes."""
    from train.grpo_config import GRPOConfig
    from train.grpo_rollout import agent_config as grpo_agent

    cfg = GRPOConfig(max_turns=3, max_tokens_per_turn=64, rollout_wall_time=42.0, temperature=0.9)
    settings = grpo_agent(cfg, seed=7, greedy=True)
    assert (settings.token_budget, settings.wall_time, settings.temperature, settings.seed) == (192, 42.0, 0.0, 7)
    assert grpo_agent(cfg, seed=7).temperature == 0.9
    assert config().diff_every_step is False and config().token_budget == coding.CodingConfig().token_budget


def test_grpo_stops_with_the_cause_when_tests_cannot_run(task, monkeypatch):
    import sys
    from types import SimpleNamespace

    from nanoagent.tasks import TestsCannotRun
    from train.grpo_rollout import score_group

    monkeypatch.setattr(sys.modules["nanoagent.tasks.evaluate"], "run_tests", lambda *a, **k: {
        "exit_code": 127, "timed_out": False, "output": "bash: python: command not found\n"})
    rollout = SimpleNamespace(exit_status="answered", diff=task.reference_patch)
    with pytest.raises(TestsCannotRun, match="tiny_add.*command not found"):
        score_group([rollout], task, {"tests": 1.0})
