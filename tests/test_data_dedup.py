"""Exact and near-duplicate detection: what counts as the same row, planted near-duplicates, tool schemas ignored.

Run: .venv/bin/python -m pytest tests/test_data_dedup.py -q
"""

import random

from data_recipes.dedup import NearDedup, dedup_text, exact_key, fingerprint, jaccard, shingles
from data_recipes.recipe import DedupConfig


def rec(user, answer, tools=()):
    return {"messages": [{"role": "user", "content": user}, {"role": "assistant", "content": answer}],
            "tools": list(tools), "meta": {}}


def test_exact_key_normalises_case_and_whitespace_only():
    a = exact_key(rec("What is  the Capital of France?", "Paris."))
    assert a == exact_key(rec("what is the capital of france?\n", "paris."))
    assert a != exact_key(rec("What is the capital of Spain?", "Paris."))


def test_shingles_are_deterministic_and_short_texts_are_one_shingle():
    assert shingles("a b c d", 3).tolist() == shingles("A  b c D", 3).tolist()
    assert shingles("hello there", 3).size == 1
    assert jaccard(shingles("one two three four five", 3), shingles("one two three four five", 3)) == 1.0


WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec "
         "romeo sierra tango uniform victor whiskey xray yankee zulu red green blue amber violet silver").split()


def doc(rng, n=60):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def edit(rng, text, k):
    words = text.split()
    for _ in range(k):
        i = rng.randrange(len(words))
        words[i] = rng.choice(WORDS) + "x"
    return " ".join(words)


def test_near_dedup_finds_planted_copies_and_keeps_distinct_rows():
    rng = random.Random(0)
    cfg = DedupConfig()
    nd = NearDedup(cfg)
    bases = [doc(rng) for _ in range(150)]
    dup_flags = []
    for i, b in enumerate(bases):
        assert nd.add(("b", i), *fingerprint(b, cfg))  # distinct random texts are all kept
    for i, b in enumerate(bases[:50]):
        dup_flags.append(not nd.add(("d", i), *fingerprint(edit(rng, b, 2), cfg)))  # 2 of 60 words changed
    assert sum(dup_flags) >= 48


def test_tool_schemas_do_not_make_rows_near_duplicates():
    schema = {"type": "function", "function": {"name": "lookup", "description": "word " * 400,
                                               "parameters": {"type": "object", "properties": {}}}}
    r1 = rec("How tall is the Eiffel Tower in metres?", "About 330 metres.", [schema])
    r2 = rec("Which river runs through Budapest today?", "The Danube.", [schema])
    assert "word word" not in dedup_text(r1)
    cfg = DedupConfig()
    nd = NearDedup(cfg)
    assert nd.add(1, *fingerprint(dedup_text(r1), cfg))
    assert nd.add(2, *fingerprint(dedup_text(r2), cfg))


def test_band_index_finds_exactly_the_candidates_of_datasketch_minhash_lsh():
    from datasketch import MinHashLSH

    from data_recipes.dedup import band_keys, lsh_layout, minhash, signature

    rng = random.Random(1)
    cfg = DedupConfig()
    texts = [doc(rng, 40) for _ in range(120)]
    texts += [edit(rng, t, k) for t, k in zip(texts[:120], [1, 3, 6, 10, 15, 20] * 20)]  # close to far copies
    lsh = MinHashLSH(threshold=cfg.lsh_threshold, num_perm=cfg.num_perm)
    nd = NearDedup(cfg)
    assert (nd.bands, nd.rows) == (lsh.b, lsh.r) == lsh_layout(cfg.lsh_threshold, cfg.num_perm)
    rows = []
    for i, t in enumerate(texts):
        sh = shingles(t, cfg.shingle)
        sig = signature(sh, cfg.num_perm)
        rows.append((sig, band_keys(sig, nd.bands, nd.rows).tolist()))
        lsh.insert(i, minhash(cfg.num_perm, sig), check_duplication=False)
        nd.insert(i, sh, rows[-1][1])
    sizes = []
    for sig, keys in rows:
        ours = nd.query(keys)
        assert sorted(ours) == sorted(lsh.query(minhash(cfg.num_perm, sig)))
        assert len(ours) == len(set(ours))
        sizes.append(len(ours))
    assert min(sizes) == 1 and max(sizes) >= 2 and sum(s > 1 for s in sizes) >= 60  # itself, and copies
    assert nd.more  # shared buckets were exercised
