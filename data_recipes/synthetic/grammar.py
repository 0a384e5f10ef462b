"""Small English agreement fixes for what synthetic users write: the last pass over each user message of a row.

Templates fill values into fixed words, and some fills break agreement: "for 1 passengers", "a 85 m bar", "a
electric car", "for a 13 years old dog". `tidy(text)` fixes those four patterns and nothing else; `tidy_record`
applies it to a record's user messages, but only where every value the row's calls carry that the message said is
still said, word for word, afterwards (a value is never rewritten; such a message stays as it was).

    tidy("book it for 1 passengers")         # -> "book it for 1 passenger"
    tidy("a 85 m bar and a 11 kg bike")      # -> "an 85 m bar and an 11 kg bike"
    tidy("for a 13 years old dog")           # -> "for a 13-year-old dog"

Run: imported by data_recipes.synthetic.generate. The rules are measured on a default build made without
them (b1fd698), 51,166 synthetic rows: 92 requests said "1" before a plural, 147 "a" before a number said with a vowel,
85 "a N years old <noun>", and some 90 "a" before a vowel-initial word.
Left out: other languages; "an" before a consonant sound (the templates never write it); irregular plurals other
than those in _IRREGULAR.
"""

from __future__ import annotations

import re

# "1 <plural>": a lone 1 (no digit, point, comma or minus sign before it) before a lower-case plural
_ONE_PLURAL = re.compile(r"(?<![\d.,\-])\b1 ([a-z]{3,})\b")
_NOT_PLURAL = {"series", "species", "news", "means", "gas", "bus", "plus", "minus", "bonus", "status", "campus",
               "virus", "census", "canvas", "lens", "atlas", "iris", "axis", "basis", "analysis", "this", "was",
               "has", "is", "as", "its", "yes", "thanks", "physics", "mathematics", "economics", "kudos", "always",
               "across", "perhaps", "headphones", "scissors", "pants", "jeans", "glasses", "trousers", "shorts",
               "chess", "glass", "class", "pass", "mass", "boss", "dress", "address", "process", "access"}
_IRREGULAR = {"people": "person", "children": "child", "feet": "foot", "teeth": "tooth", "men": "man",
              "women": "woman", "mice": "mouse", "geese": "goose", "dice": "die"}

# "a" before a number said with a vowel: 8, 11, 18, 80-89, 800..., 8.5, 11,000 (eleven thousand), 18500
_A_NUMBER = re.compile(r"(?<![\w-])([aA]) (?=(?:8[\d.,]*|1[18](?:[.,]\d+|\d{3}|,\d{3})?)(?![\d,]))")
# "a" before a vowel-initial word; not after a number ("14 a over": amperes) or a label ("serie a", "point a")
_A_WORD = re.compile(r"(?<![\w-])([aA]) (?=([a-z][a-z\-]*)\b)")
_LABELS = {"serie", "vitamin", "grade", "type", "plan", "section", "point", "side", "class", "group", "option",
           "team", "set", "list", "level", "category", "block", "tier", "row", "column", "part", "exhibit", "appendix"}
_FUNCTION_WORDS = {"and", "or", "is", "of", "in", "at", "on", "as", "if", "into", "over", "under", "up", "out", "off",
                   "equals", "an", "are", "each", "either", "only", "other", "onto", "upon", "across", "after", "all",
                   "any", "also", "even", "every", "ever", "its", "it", "else"}  # "between a and b": a is a label there
_CONSONANT_SOUND = ("one", "once", "uni", "use", "usu", "uti", "ute", "uk", "url", "ura", "eu", "ewe", "uuid", "usb")
_VOWEL_SOUND = ("hour", "honest", "honor", "honour", "heir", "eight", "eleven")
# "a 13 years old dog" -> "a 13-year-old dog"
_YEARS_OLD = re.compile(r"(?<=\b[aA] )(\d+(?:\.\d+)?) years old (?=[a-z])")


def _singular(word: str) -> str | None:
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if not word.endswith("s") or word in _NOT_PLURAL or word.endswith(("ss", "us", "is", "ous")):
        return None
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses", "zes")):
        return word[:-2]
    return word[:-1]


def _vowel_sound(word: str) -> bool:
    w = word.lower()
    if w.startswith(_VOWEL_SOUND):
        return True
    return w[:1] in "aeiou" and not w.startswith(_CONSONANT_SOUND)


def article(word: str) -> str:
    """"a" or "an" for `word` by its sound: "an hour", "a unit", "an electric"."""
    return "an" if _vowel_sound(word) else "a"


def _word_before(text: str, pos: int) -> str:
    return text[:pos].rstrip(" (\"'").rsplit(" ", 1)[-1]


def _label_before(text: str, pos: int) -> bool:
    """An "a"/"A" that names something ("vitamin A 800 IU", "Serie A 8 teams"), not an article."""
    return _word_before(text, pos).lower() in _LABELS


_OPENERS = {"for", "with", "in", "at", "on", "of", "and", "or", "to", "from", "only", "just", "about", "over", "book",
            "buy", "add", "get", "order", "reserve", "make", "roll", "find", "give", "send", "show", "print", "use"}


def _name_before(text: str, pos: int) -> bool:
    """A "1" that is part of a name ("Formula 1 drivers", "Level 1 chargers"), not a count: a capitalised word before
    it that is not one that opens a request ("For 1 passengers" is a count)."""
    word = _word_before(text, pos)
    return word[:1].isupper() and word.lower() not in _OPENERS


def tidy(text: str) -> str:
    """`text` with the four agreement fixes (module docstring); anything else is left as it is."""
    text = _YEARS_OLD.sub(lambda m: f"{m.group(1)}-year-old ", text)
    text = _ONE_PLURAL.sub(lambda m: m.group(0) if _name_before(text, m.start())
                           else f"1 {_singular(m.group(1)) or m.group(1)}", text)
    text = _A_NUMBER.sub(lambda m: m.group(0) if _label_before(text, m.start()) else m.group(1) + "n ", text)

    def fix_article(m: re.Match) -> str:
        before = _word_before(text, m.start())
        word = m.group(2)
        if before[-1:].isdigit() or before.lower() in _LABELS or word in _FUNCTION_WORDS or not _vowel_sound(word):
            return m.group(0)
        return m.group(1) + "n "

    return _A_WORD.sub(fix_article, text)


def _said_values(record: dict) -> list[str]:
    """Every string and number the record's calls carry, as text, nested values and object keys included."""
    out = []

    def walk(v):
        if isinstance(v, dict):  # a map's keys are said too ("2 eggs" -> {"eggs": 2})
            for k, x in v.items():
                out.append(str(k))
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, (str, int, float)) and not isinstance(v, bool):
            out.append(str(v))

    for m in record.get("messages") or []:
        for c in m.get("tool_calls") or []:
            args = c.get("function", {}).get("arguments")
            for value in args.values() if isinstance(args, dict) else [args]:  # parameter names are not said
                walk(value)
    return [v for v in out if v]


def tidy_record(record: dict) -> dict:
    """The record with `tidy` applied to each user message that keeps every call value it said (in place)."""
    values = None
    for m in record.get("messages") or []:
        if m.get("role") != "user" or not isinstance(m.get("content"), str):
            continue
        new = tidy(m["content"])
        if new == m["content"]:
            continue
        if values is None:
            values = _said_values(record)
        if all(v in new for v in values if v in m["content"]):
            m["content"] = new
    return record
