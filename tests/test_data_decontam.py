"""data_recipes.decontam: the n-gram overlap rule, one row at a time and many rows at once.

Run: .venv/bin/python -m pytest tests/test_data_decontam.py -q
"""

import random

from data_recipes.decontam import EvalIndex, text_grams
from data_recipes.recipe import DecontamConfig


def _index():
    idx = EvalIndex(DecontamConfig(ngram=4, overlap=0.5, min_ngrams=3))
    idx.add_texts("e", ["find the area of a triangle with base ten", "what is the weather in Paris", "hi"])
    idx.add_texts("f", ["convert one hundred dollars into euros at today's rate please"])
    return idx


def test_eval_index_overlap_rule():
    idx = _index()
    assert idx.skipped_short == 1  # "hi": fewer words than one n-gram
    assert dict(idx.texts_per_set) == {"e": 2, "f": 1}
    assert idx.match("Please FIND the area of a triangle with base ten, thanks") == "e"
    assert idx.match("find the area of a circle of radius two") is None
    assert idx.match("the area of a triangle with base") == "e"  # 3 of the text's 5 4-grams >= 0.5
    assert idx.match("what is the weather in Lisbon") is None  # a short text must appear whole
    assert idx.match("so, what is the weather in Paris today?") == "e"
    assert idx.match("Convert one hundred dollars into euros at the rate") == "f"  # 4 of 7 grams
    assert idx.match("convert one hundred dollars into yen") is None  # 2 of 7 grams
    assert idx.match("") is None and idx.match("what is") is None


def test_match_many_agrees_with_match_row_by_row():
    idx = _index()
    rng = random.Random(0)
    pool = ("find the area of a triangle with base ten what is the weather in paris convert one hundred "
            "dollars into euros at today's rate please and some other words").split()
    texts = [" ".join(pool[i:i + rng.randint(0, 12)]) for i in (rng.randrange(len(pool)) for _ in range(300))]
    texts += ["find the area of a triangle with base ten", "", "what is the weather in Paris"]
    many = idx.match_many([text_grams(t, 4) for t in texts])
    assert many == [idx.match(t) for t in texts]
    assert sum(h is not None for h in many) >= 10 and sum(h is None for h in many) >= 10


def test_empty_index_and_grams_given_directly():
    idx = EvalIndex(DecontamConfig(ngram=4))
    assert idx.match("find the area of a triangle") is None
    assert idx.match_many([text_grams("a b c d e", 4)]) == [None]
    idx.add_grams("valid", [text_grams("one two three four five", 4), text_grams("too short", 4)])
    assert idx.skipped_short == 1
    assert idx.match("ONE two three four five six") == "valid"
    assert text_grams("a b c", 4).size == 0 and text_grams("a b c d a b c d", 4).size == 4  # distinct grams
