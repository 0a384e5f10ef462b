"""data_recipes/synthetic/stats.py: where a batch's tokens go (supervised, tool specs, fixed tool instructions).

Run: .venv/bin/python -m pytest tests/test_data_synthetic_stats.py -q
"""

from data_recipes.synthetic import generate
from data_recipes.synthetic.stats import prompt_tokens, summarize
from nanoagent.render import render
from nanoagent.testing import tiny_tokenizer

TOOL = {"type": "function", "function": {"name": "get_time", "description": "The time in a city.", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
DATE = {"type": "function", "function": {**TOOL["function"], "name": "get_date", "description": "The date there."}}


def test_token_shares_add_up_and_compact_specs_save_tokens():
    tok = tiny_tokenizer()
    stats = summarize(list(generate(40, seed=3)), tok)["tokens"]
    parts = stats["supervised_share"] + stats["tool_specs_share"] + stats["tool_instructions_share"]
    assert 0 < stats["tool_instructions_share"] < stats["tool_specs_share"] and parts < 1, stats
    assert 0 < stats["compact_specs_saving_share"] < stats["tool_specs_share"], stats


def test_prompt_tokens_count_the_rendered_system_turn_within_a_few_tokens():
    tok = tiny_tokenizer()
    asked = {"tools": [TOOL, DATE], "messages": [{"role": "user", "content": "Time in Oslo?"},
                                                 {"role": "assistant", "content": "Let me check."}]}
    bare = {"tools": [], "messages": asked["messages"]}
    specs, compact, fixed = prompt_tokens([asked], tok)
    assert compact < specs and fixed > 0
    assert prompt_tokens([bare], tok) == (0, 0, 0)
    extra = len(render(asked, tok)[0]) - len(render(bare, tok)[0])  # the system turn the tools add
    wrapper = sum(len(tok.encode(t, add_special_tokens=False)) for t in ("<|im_start|>system\n", "\n", "<|im_end|>\n"))
    assert abs(extra - (specs + fixed + wrapper)) <= 3, (extra, specs, fixed, wrapper)
