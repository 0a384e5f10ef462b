"""Short coding-agent conversations with our two tools, `shell` and `apply_patch`, on tiny generated Python repos.

A bug template (off-by-one, wrong operator, missing return, wrong default, wrong comparison, wrong index, wrong
case, swapped arguments, inverted condition) is filled with a function name, put in a module beside a few correct
helpers and a pytest file, and turned into a conversation: the user describes the symptom, the assistant
inspects with shell (ls, grep, cat, python -m pytest), applies one patch whose `search` text occurs exactly once
in the file, runs the tests again and ends with a one-line summary and no call. The buggy function really runs
(`exec` of our own template code) so the failure shown in the pytest output is the real one.

Run: through data_recipes.synthetic.generate (kind "coding").
Left out: multi-file bugs, failed patches and retries (the agent stage's own rollouts cover those).
"""

from __future__ import annotations

import json
import random

from nanoagent.agent.tools import APPLY_PATCH_SPEC, SHELL_SPEC

# The agent's own tool specs, byte for byte: training data must offer exactly what the agent offers.
SHELL_TOOL, APPLY_PATCH_TOOL = SHELL_SPEC, APPLY_PATCH_SPEC


def _shell_out(output: str, exit_code: int = 0) -> str:
    """What the agent's shell tool returns: the output, then the status line (nanoagent.agent.sandbox)."""
    body = output if output.endswith("\n") or not output else output + "\n"
    return body + f"[exit code {exit_code}]"


# (names, code with {fn}, search, replace, test cases (args, expected), what was wrong)
BUGS = [
    (["sum_to", "total_up_to", "triangular"],
     'def {fn}(n):\n    """Return 1 + 2 + ... + n."""\n    total = 0\n    for i in range(1, n):\n        total += i\n'
     '    return total\n', "range(1, n)", "range(1, n + 1)", [("4", 10), ("1", 1), ("0", 0)],
     "the loop stopped at n - 1; it now includes n"),
    (["factorial", "fact", "product_up_to"],
     'def {fn}(n):\n    """Return n! = 1 * 2 * ... * n."""\n    result = 1\n    for i in range(2, n):\n'
     '        result *= i\n    return result\n', "range(2, n)", "range(2, n + 1)", [("5", 120), ("3", 6), ("1", 1)],
     "the loop skipped n itself"),
    (["apply_discount", "discounted_price", "sale_price"],
     'def {fn}(price, rate):\n    """Price after taking off `rate` (0.2 means 20% off)."""\n'
     '    return round(price * (1 + rate), 2)\n', "(1 + rate)", "(1 - rate)", [("100, 0.2", 80.0), ("50, 0.5", 25.0)],
     "it added the discount instead of subtracting it"),
    (["mean", "average", "avg"],
     'def {fn}(xs):\n    """Arithmetic mean of a non-empty list."""\n    return sum(xs) * len(xs)\n',
     "sum(xs) * len(xs)", "sum(xs) / len(xs)", [("[2, 4, 6]", 4.0), ("[5]", 5.0)],
     "it multiplied by the count instead of dividing"),
    (["word_counts", "count_words", "tally"],
     'def {fn}(words):\n    """Map each word to how often it occurs."""\n    counts = {{}}\n    for w in words:\n'
     '        counts[w] = counts.get(w, 0) + 1\n', "        counts[w] = counts.get(w, 0) + 1\n",
     "        counts[w] = counts.get(w, 0) + 1\n    return counts\n", [('["a", "b", "a"]', {"a": 2, "b": 1}), ("[]", {})],
     "it built the counts but never returned them"),
    (["greet", "welcome", "say_hello"],
     'def {fn}(name, greeting="Helo"):\n    return f"{{greeting}}, {{name}}!"\n', 'greeting="Helo"',
     'greeting="Hello"', [('"Ana"', "Hello, Ana!"), ('"Bo", "Hi"', "Hi, Bo!")], "the default greeting was misspelled"),
    (["is_adult", "can_vote", "of_age"],
     'def {fn}(age):\n    """True from the 18th birthday on."""\n    return age > 18\n', "age > 18", "age >= 18",
     [("30", True), ("18", True), ("17", False)], "it used > instead of >=, so exactly 18 was rejected"),
    (["last_item", "last", "final_element"],
     'def {fn}(xs):\n    """The last element of a non-empty list."""\n    return xs[len(xs)]\n', "xs[len(xs)]",
     "xs[-1]", [("[1, 2, 3]", 3), ('["x"]', "x")], "it indexed one past the end of the list"),
    (["slugify", "make_slug", "to_slug"],
     'def {fn}(title):\n    """URL slug: lower case, words joined by dashes."""\n'
     '    return "-".join(title.upper().split())\n', "title.upper()", "title.lower()",
     [('"Hello World"', "hello-world"), ('"A  B"', "a-b")], "it upper-cased the title instead of lower-casing it"),
    (["is_even", "even"], 'def {fn}(n):\n    return n % 2 == 1\n', "n % 2 == 1", "n % 2 == 0",
     [("4", True), ("7", False)], "the parity check was inverted"),
    (["clamp", "bound", "limit_to"],
     'def {fn}(x, lo, hi):\n    """Limit x to the range [lo, hi]."""\n    return max(hi, min(lo, x))\n',
     "max(hi, min(lo, x))", "max(lo, min(hi, x))", [("5, 0, 10", 5), ("-3, 0, 10", 0), ("42, 0, 10", 10)],
     "lo and hi were swapped"),
]
FILLERS = [  # (code, test expression, expected)
    ('def clamp01(x):\n    return max(0.0, min(1.0, x))\n', "clamp01(2)", 1.0),
    ('def is_blank(s):\n    return not s.strip()\n', 'is_blank("  ")', True),
    ('def chunks(xs, n):\n    return [xs[i:i + n] for i in range(0, len(xs), n)]\n', "chunks([1, 2, 3], 2)",
     [[1, 2], [3]]),
    ('def percent(part, whole):\n    return 100 * part / whole\n', "percent(1, 4)", 25.0),
    ('def initials(name):\n    return "".join(w[0].upper() for w in name.split())\n', 'initials("ada lovelace")', "AL"),
    ('def squares(n):\n    return [i * i for i in range(n)]\n', "squares(3)", [0, 1, 4]),
]
MODULES = ["utils", "helpers", "mathx", "textutils", "pricing", "core", "tools", "calc", "stats", "common"]
PACKAGES = ["app", "mylib", "shop", "toolkit", "project"]
SYSTEM = ["You are a coding agent in a small Python repository. Use `shell` to look around and run tests, and "
          "`apply_patch` to edit files. Keep replies short.",
          "You fix bugs in the current repository with the shell and apply_patch tools. Be brief.",
          "You are a terminal coding assistant. Inspect before editing, run the tests after editing.", None]


def _run(code: str, fn: str, args: str):
    env: dict = {}
    exec(code, env)  # our own template code, not user input
    try:
        return eval(f"{fn}({args})", env), None
    except Exception as e:  # the bug may raise: the pytest output shows the exception
        return None, f"{type(e).__name__}: {e}"


def _pytest_fail(test_path, fn, case_line, args, expected, got, err, n_pass, rng):
    dots = "F" + "." * n_pass
    head = f"{dots:<72} [100%]\n" + "=" * 35 + " FAILURES " + "=" * 35 + "\n"
    title = f" test_{fn} "
    body = f"{title:_^80}\n\n    def test_{fn}():\n>       assert {fn}({args}) == {expected!r}\n"
    if err:
        body += f"E       {err}\n"
        short = err
    else:
        body += f"E       assert {got!r} == {expected!r}\nE        +  where {got!r} = {fn}({args})\n"
        short = f"assert {got!r} == {expected!r}"
    tail = (f"\n{test_path}:{case_line}: {err.split(':')[0] if err else 'AssertionError'}\n"
            + "=" * 27 + " short test summary info " + "=" * 28
            + f"\nFAILED {test_path}::test_{fn} - {short}\n1 failed, {n_pass} passed in 0.0{rng.randint(1, 9)}s")
    return head + body + tail


def _call(name, **args):
    return {"type": "function", "function": {"name": name, "arguments": args}}


def coding(rng: random.Random) -> tuple[dict, dict]:
    names, template, search, replace, cases, why = BUGS[rng.randrange(len(BUGS))]
    fn = rng.choice(names)
    mod = rng.choice(MODULES)
    fillers = rng.sample(FILLERS, rng.randint(1, 3))
    parts = [f[0] for f in fillers] + [template.format(fn=fn)]
    rng.shuffle(parts)
    code = "\n\n".join(parts)
    if code.count(search) != 1:
        raise AssertionError(f"coding template for {fn}: search text occurs {code.count(search)} times")
    if rng.random() < 0.5:
        path, test_path, imp = f"{mod}.py", f"test_{mod}.py", mod
        listing = sorted(["README.md", path, test_path])
    else:
        pkg = rng.choice(PACKAGES)
        path, test_path, imp = f"{pkg}/{mod}.py", f"tests/test_{mod}.py", f"{pkg}.{mod}"
        listing = sorted(["README.md", "pyproject.toml", pkg, "tests"])
    filler_names = [f[0].split("(")[0][4:] for f in fillers]
    test = f"from {imp} import {', '.join([fn] + filler_names)}\n\n\ndef test_{fn}():\n"
    fail = None
    for k, (args, expected) in enumerate(cases):
        test += f"    assert {fn}({args}) == {expected!r}\n"
        got, err = _run(code, fn, args)
        if fail is None and (err or got != expected):
            fail = (5 + k, args, expected, got, err)
    for _, expr, expected in fillers:
        test += f"\n\ndef test_{expr.split('(')[0]}():\n    assert {expr} == {expected!r}\n"
    if fail is None:
        raise AssertionError(f"coding template for {fn}: the bug does not show in its tests")
    line, args, expected, got, err = fail
    fixed = code.replace(search, replace)
    fixed_got, fixed_err = _run(fixed, fn, args)
    if fixed_err or fixed_got != expected:
        raise AssertionError(f"coding template for {fn}: the fix does not pass its own test")

    shown = f"`{fn}({args})` raises {err.split(':')[0]}" if err else f"`{fn}({args})` returns {got!r}"
    user = rng.choice([
        f"In {path}, {shown} but it should be {expected!r}. Can you fix it?",
        f"{shown[0].upper() + shown[1:]} instead of {expected!r}. Please fix the bug.",
        f"The tests in {test_path} fail for {fn}. Fix it please.",
        f"There's a bug in `{fn}`: {shown}, expected {expected!r}.",
        f"{fn} is broken ({shown}). Could you find and fix the problem?"])
    msgs = []
    system = rng.choice(SYSTEM)
    if system:
        msgs.append({"role": "system", "content": system})
    msgs.append({"role": "user", "content": user})
    pytest_fail = _pytest_fail(test_path, fn, line, args, expected, got, err, len(fillers), rng)
    steps: list[tuple[str, dict, str]] = []  # (assistant text, call, tool output)
    if rng.random() < 0.4:
        steps.append((rng.choice(["", "Let me look at the repo."]), _call("shell", cmd="ls"), _shell_out("\n".join(listing))))
    if rng.random() < 0.4:
        steps.append((rng.choice(["", "First, the failing test."]), _call("shell", cmd="python -m pytest -q"),
                      _shell_out(pytest_fail, 1)))
    if rng.random() < 0.4:
        line_no = code.split(f"def {fn}(")[0].count("\n") + 1
        steps.append(("", _call("shell", cmd=f'grep -rn "def {fn}" .'), _shell_out(
            f"./{path}:{line_no}:def {fn}(" + template.format(fn=fn).split("(", 1)[1].split("\n")[0])))
    steps.append((rng.choice(["", f"Let me read {path}."]), _call("shell", cmd=f"cat {path}"), _shell_out(code)))
    note = rng.choice(["", f"The bug: {why}.", "Found it."])
    steps.append((note, _call("apply_patch", file=path, search=search, replace=replace),
                  f"Patched {path} at line {code[:code.index(search)].count(chr(10)) + 1}: replaced "
                  f"{search.count(chr(10)) + 1} line(s) with {replace.count(chr(10)) + 1} line(s)."))
    n_tests = 1 + len(fillers)
    steps.append(("", _call("shell", cmd="python -m pytest -q"),
                  _shell_out(f"{'.' * n_tests:<72} [100%]\n{n_tests} passed in 0.0{rng.randint(1, 9)}s")))
    for text, c, out in steps:
        msgs.append({"role": "assistant", "content": text, "tool_calls": [c]})
        msgs.append({"role": "tool", "name": c["function"]["name"], "content": out})
    all_pass = "Both tests pass" if n_tests == 2 else f"All {n_tests} tests pass"
    summary = rng.choice([f"Fixed `{fn}` in {path}: {why}. {all_pass}.",
                          f"Done. {why[0].upper() + why[1:]}; the tests pass now.",
                          f"Fixed: {why}. {n_tests} tests pass."])
    msgs.append({"role": "assistant", "content": summary})
    tools = [SHELL_TOOL, APPLY_PATCH_TOOL] if rng.random() < 0.5 else [APPLY_PATCH_TOOL, SHELL_TOOL]
    return {"messages": msgs, "tools": json.loads(json.dumps(tools))}, {"needs": ["shell", "apply_patch"],
                                                                        "file": path, "fixed": fixed}
