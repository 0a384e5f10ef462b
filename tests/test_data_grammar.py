"""grammar.tidy: the agreement fixes on synthetic requests, and tidy_record never rewriting a value a call carries."""

from data_recipes.synthetic.grammar import tidy, tidy_record


def test_fixes_agreement_a_fill_breaks():
    assert tidy("Can you reserve a flight on 2025-11-27 for 1 passengers?") == \
        "Can you reserve a flight on 2025-11-27 for 1 passenger?"
    assert tidy("roll 1 dice, 1 copies, 1 boxes and 1 people") == "roll 1 die, 1 copy, 1 box and 1 person"
    assert tidy("a 85 m bar, a 11 kg bike, a 8.5 tip, a 18,000 loan, A 80 ft boat") == \
        "an 85 m bar, an 11 kg bike, an 8.5 tip, an 18,000 loan, An 80 ft boat"
    assert tidy("in a electric car, for a oak beam, a hour") == "in an electric car, for an oak beam, an hour"
    assert tidy("for a 13 years old dog") == "for a 13-year-old dog"
    assert tidy("for a 11 years old dog") == "for an 11-year-old dog"


def test_leaves_what_reads_right_or_is_not_an_article():
    kept = ["for 11 passengers", "2.1 items", "-1 degrees", "a 115 kg bar (one hundred and fifteen)", "a 1.8 m wall",
            "a unit cost of 3", "a one hundred mile trip", "a uuid", "a European trip", "between a and b",
            "drawing 14 a over 60 m", "the serie a in 2016", "from point a to b", "1 series", "1 glass",
            "calorie needs 16 years old weighing 70 kg", "a 110000 budget"]
    for text in kept:
        assert tidy(text) == text, text


def test_a_record_keeps_every_value_its_calls_carry():
    call = {"type": "function", "function": {"name": "f", "arguments": {"label": "a oak", "n": 1}}}
    rec = {"messages": [{"role": "user", "content": "Tag it 'a oak' for 1 items"},
                        {"role": "assistant", "content": "", "tool_calls": [call]}]}
    assert tidy_record(rec)["messages"][0]["content"] == "Tag it 'a oak' for 1 items"  # the value would change
    rec["messages"][0]["content"] = "Tag it for a oak beam and 1 items"  # the call's "a oak" is not said here
    call["function"]["arguments"] = {"wood": "oak", "n": 1}
    assert tidy_record(rec)["messages"][0]["content"] == "Tag it for an oak beam and 1 item"


def test_names_labels_and_map_keys_stay():
    for text in ["Vitamin A 800 IU", "Serie A 8 teams", "Formula 1 drivers", "x if a else b", "a utensil"]:
        assert tidy(text) == text, text
    assert tidy("For 1 passengers") == "For 1 passenger"  # a sentence's first word is no name
    assert tidy("a urgent request") == "an urgent request"
    call = {"type": "function", "function": {"name": "cart_total", "arguments": {"cart": {"apples": 1, "eggs": 2}}}}
    rec = {"messages": [{"role": "user", "content": "the total of 1 apples and 2 eggs"},
                        {"role": "assistant", "content": "", "tool_calls": [call]}]}
    assert tidy_record(rec)["messages"][0]["content"] == "the total of 1 apples and 2 eggs"  # the key is said


def test_article_goes_by_sound():
    from data_recipes.synthetic.grammar import article
    assert [article(w) for w in ("hour", "unit", "electric", "one-way trip", "user", "oak")] == \
        ["an", "a", "an", "a", "a", "an"]
