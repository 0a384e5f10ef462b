"""The task set: shipped tasks load and validate, bad specs fail with clear errors, evaluate and rewards judge right.

Run: .venv/bin/python -m pytest -q tests/test_tasks_set.py   (the full validation runs every shipped task, ~30 s)
"""

import nanoagent  # noqa: F401
import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest
import yaml

from nanoagent.tasks import TaskError, evaluate, load_task, load_tasks
from nanoagent.tasks.loader import CODING
from nanoagent.tasks.validate import validate_task

ONE = CODING / "strings_slugify"


def test_shipped_set_size_and_splits():
    tasks = load_tasks("coding")
    assert len(tasks) >= 40
    train, held = load_tasks("train"), load_tasks("held-out")
    assert len(train) + len(held) == len(tasks) and held and train
    assert not {t.id for t in train} & {t.id for t in held}
    assert len({t.topic for t in tasks}) >= 8
    assert all(t.statement and t.test_files and t.reference_patch for t in tasks)


def test_every_shipped_task_fails_before_and_passes_after():
    tasks = load_tasks("coding")
    with ThreadPoolExecutor(4) as pool:
        problems = dict(zip([t.id for t in tasks], pool.map(validate_task, tasks)))
    assert {k: v for k, v in problems.items() if v} == {}


def copy_task(tmp_path, name="t1"):
    dest = tmp_path / name
    shutil.copytree(ONE, dest)
    spec = yaml.safe_load((dest / "task.yaml").read_text())
    spec["id"] = name
    (dest / "task.yaml").write_text(yaml.safe_dump(spec))
    return dest, spec


def write(dest, spec):
    (dest / "task.yaml").write_text(yaml.safe_dump(spec))


def test_missing_field(tmp_path):
    dest, spec = copy_task(tmp_path)
    del spec["test_command"]
    write(dest, spec)
    with pytest.raises(TaskError, match="missing field.*test_command"):
        load_task(dest)


@pytest.mark.parametrize("field,value,match", [
    ("test_files", ["../../etc/passwd"], "escapes"),
    ("reference_patch", "../other.patch", "escapes"),
    ("test_command", "nosuchprogram-xyz -q", "does not exist"),
    ("test_command", "/usr/bin/python3 -m unittest", "contains '/'"),
    ("split", "dev", "split"),
    ("timeout", "soon", "timeout"),
])
def test_bad_fields(tmp_path, field, value, match):
    dest, spec = copy_task(tmp_path)
    spec[field] = value
    write(dest, spec)
    with pytest.raises(TaskError, match=match):
        load_task(dest)


def test_patch_touching_outside_repo(tmp_path):
    dest, _ = copy_task(tmp_path)
    (dest / "reference.patch").write_text("diff --git a/../x.py b/../x.py\n--- a/../x.py\n+++ b/../x.py\n")
    with pytest.raises(TaskError, match="escapes repo"):
        load_task(dest)


def test_tests_that_already_pass_are_flagged(tmp_path):
    dest, _ = copy_task(tmp_path)
    (dest / "repo" / "test_slug.py").write_text("import unittest\n\n\nclass T(unittest.TestCase):\n"
                                               "    def test_ok(self):\n        pass\n")
    problems = validate_task(load_task(dest))
    assert any("already pass" in p for p in problems)


def test_empty_and_unknown_sources(tmp_path):
    with pytest.raises(TaskError, match="holds no tasks"):
        load_tasks(str(tmp_path))
    with pytest.raises(TaskError, match="not a task set name"):
        load_tasks("no-such-set")
    (tmp_path / "stray").mkdir()
    with pytest.raises(TaskError, match="without task.yaml"):
        load_tasks(str(tmp_path))


def test_edits_to_tests_never_count():
    task = load_task(ONE)
    cheat = ("diff --git a/test_slug.py b/test_slug.py\n--- a/test_slug.py\n+++ b/test_slug.py\n"
             "@@ -1,3 +1,3 @@\n import unittest\n \n-from slug import slugify\n+slugify = lambda s: 'hello-world'\n")
    out = evaluate(task, cheat)
    assert out.patch_applied and not out.success and out.touched_tests == ["test_slug.py"]
    both = evaluate(task, task.reference_patch + cheat)
    assert both.success  # the real fix still counts; the test edit is dropped


def test_diff_that_does_not_apply():
    task = load_task(ONE)
    bad = "diff --git a/slug.py b/slug.py\n--- a/slug.py\n+++ b/slug.py\n@@ -1,1 +1,1 @@\n-nothing like this\n+x\n"
    out = evaluate(task, bad)
    assert not out.patch_applied and not out.success and "does not apply" in out.error


def test_evaluate_accepts_trajectory_like_inputs():
    task = load_task(ONE)
    assert evaluate(task, {"diff": task.reference_patch}).success
    assert not evaluate(task, None).success


def test_humaneval_adapter():
    tasks = load_tasks("humaneval")
    assert len(tasks) == 164 and tasks[0].id == "humaneval_0" and tasks[0].source == "humaneval"
    assert "def has_close_elements" in (tasks[0].repo / "solution.py").read_text()
    for t in tasks[:2] + [tasks[38]]:  # 38: its check calls the prompt's helper encode_cyclic (regression)
        assert validate_task(t) == [], t.id


def test_a_shadowing_unittest_module_does_not_fake_a_pass():
    """Regression: with `python -m unittest`, a unittest.py added by the agent ran instead of the tests (exit 0)."""
    task = load_task(ONE)
    hack = ("diff --git a/unittest.py b/unittest.py\nnew file mode 100644\n--- /dev/null\n+++ b/unittest.py\n"
            "@@ -0,0 +1 @@\n+raise SystemExit(0)\n")
    out = evaluate(task, hack)
    assert out.patch_applied and not out.success
