"""Check tasks mechanically: each task's tests must fail on its pristine repo and pass with its reference patch.

    python -m nanoagent.tasks.validate                    # every shipped coding task
    python -m nanoagent.tasks.validate humaneval:20 --json out.json
    python -m nanoagent.tasks.validate path/to/tasks --max-seconds 5

For each task: the static checks of nanoagent.tasks.spec (done on load), then two sandboxed runs through
`evaluate`: with no diff (must fail, and not because the test command is missing or timed out) and with the
reference patch (must pass). Each run must finish within --max-seconds. Prints one line per problem and a summary;
exits 1 when any task fails. Left out: checking that the tests are good at telling right from wrong fixes.
"""

from __future__ import annotations

import argparse
import sys

from nanoagent.atomic import write_json
from nanoagent.config import HelpFormatter
from nanoagent.tasks.evaluate import evaluate
from nanoagent.tasks.loader import load_tasks
from nanoagent.tasks.spec import Task, TaskError

MAX_SECONDS = 5.0


def validate_task(task: Task, max_seconds: float = MAX_SECONDS) -> list[str]:
    """Problems with one task ([] when it is good)."""
    problems = []
    before = evaluate(task, "")
    if before.exit_code == 127:
        problems.append(f"the test command {task.test_command!r} does not exist in the sandbox")
    elif before.timed_out:
        problems.append(f"the tests time out on the pristine repo ({task.timeout:g} s)")
    elif before.success:
        problems.append("the tests already pass before the fix: they must fail on the pristine repo")
    elif before.error:
        problems.append(f"the pristine run failed: {before.error}")
    after = evaluate(task, task.reference_patch)
    if not after.patch_applied:
        problems.append(f"the reference patch does not apply: {after.error}")
    elif not after.success:
        tail = after.output.strip().splitlines()[-3:]
        problems.append(f"the tests fail with the reference patch (exit {after.exit_code}): {' | '.join(tail)}")
    if after.touched_tests:
        problems.append(f"the reference patch edits test files {after.touched_tests}: tests are protected")
    for name, o in (("pristine", before), ("patched", after)):
        if o.seconds > max_seconds:
            problems.append(f"the {name} test run took {o.seconds:.1f} s (limit {max_seconds:g} s)")
    return problems


def validate(tasks: list[Task], max_seconds: float = MAX_SECONDS, progress: bool = True) -> dict:
    from tqdm import tqdm

    report = {"tasks": len(tasks), "failed": {}}
    for task in tqdm(tasks, desc="validate", unit="task", disable=not progress):
        problems = validate_task(task, max_seconds)
        if problems:
            report["failed"][task.id] = problems
    report["passed"] = len(tasks) - len(report["failed"])
    return report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m nanoagent.tasks.validate", description=__doc__.split("\n\n")[0],
                                 formatter_class=HelpFormatter)
    ap.add_argument("source", nargs="?", default="coding", help="task source (see nanoagent.tasks.loader)")
    ap.add_argument("--max-seconds", type=float, default=MAX_SECONDS, help="limit for one test run")
    ap.add_argument("--json", help="write the report here")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    try:
        tasks = load_tasks(args.source)
    except TaskError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    report = validate(tasks, args.max_seconds, not args.no_progress)
    for tid, problems in report["failed"].items():
        for p in problems:
            print(f"FAIL {tid}: {p}")
    print(f"{report['passed']}/{report['tasks']} tasks valid")
    if args.json:
        write_json(args.json, report)
    return 1 if report["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
