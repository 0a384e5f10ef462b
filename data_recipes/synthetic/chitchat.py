"""Requests no tool should serve: small talk and general knowledge, and which tool domains overlap.

`GENERAL` holds generators `rng -> (question, short answer, domains to keep out of the offered tools)`; the
no_tool kind offers only tools from other domains, so the right reply is a plain answer. `related_domains(d)`
is `d` plus the domains whose tools could serve the same request (restaurants ~ maps ~ food, finance ~ currency ~
banking ~ news, ...); a no-tool row never offers any of them.

Run: imported by data_recipes.synthetic.kinds.
Left out: open-ended writing tasks; a 135M model should keep plain answers short.
"""

from __future__ import annotations

OVERLAPS = [
    {"restaurants", "maps", "food"}, {"shopping", "shipping"}, {"calendar", "tasks"},
    {"finance", "currency", "banking", "news"}, {"health", "fitness", "pets"}, {"music", "podcasts"},
    {"movies", "events", "sports"}, {"files", "photos", "cloud"}, {"devtools", "cloud", "security"},
    {"home", "smart_home"}, {"books", "education", "language"}, {"math", "science", "units"},
    {"flights", "trains", "rides", "car_rental", "maps", "hotels"}, {"automotive", "maps", "rides"},
    {"insurance", "government", "banking"}, {"messaging", "social"}, {"weather"}, {"jobs"}, {"gaming"},
    {"travel", "flights", "hotels", "maps", "government"}, {"charity", "banking"}, {"utilities", "smart_home", "home"},
]


def related_domains(domain: str) -> set[str]:
    out = {domain}
    for group in OVERLAPS:
        if domain in group:
            out |= group
    return out


CAPITALS = [("France", "Paris"), ("Germany", "Berlin"), ("Japan", "Tokyo"), ("Italy", "Rome"), ("Spain", "Madrid"),
            ("Canada", "Ottawa"), ("Australia", "Canberra"), ("Brazil", "Brasília"), ("Egypt", "Cairo"),
            ("Kenya", "Nairobi"), ("Norway", "Oslo"), ("Portugal", "Lisbon"), ("Poland", "Warsaw"),
            ("Greece", "Athens"), ("Peru", "Lima"), ("South Korea", "Seoul"), ("Vietnam", "Hanoi"),
            ("New Zealand", "Wellington"), ("Switzerland", "Bern"), ("Turkey", "Ankara"), ("India", "New Delhi")]
JOKES = ["Why did the developer go broke? Because he used up all his cache.",
         "I told my computer I needed a break, and it said: no problem, I'll go to sleep.",
         "Why do programmers prefer dark mode? Because light attracts bugs."]
ABBREVIATIONS = [("HTTP", "HyperText Transfer Protocol"), ("CPU", "Central Processing Unit"),
                 ("NASA", "National Aeronautics and Space Administration"), ("JSON", "JavaScript Object Notation"),
                 ("GDP", "Gross Domestic Product"), ("DNA", "Deoxyribonucleic acid"), ("URL", "Uniform Resource Locator")]
FACTS = [("How many days are in a leap year?", "366."), ("How many continents are there?", "Seven."),
         ("What is the boiling point of water at sea level?", "100 °C (212 °F)."),
         ("What's the largest planet in the solar system?", "Jupiter."),
         ("Who painted the Mona Lisa?", "Leonardo da Vinci."), ("What gas do plants absorb?", "Carbon dioxide."),
         ("How many sides does a hexagon have?", "Six."), ("What is the chemical symbol for water?", "H2O.")]
SMALL_TALK = [("Hi!", "Hi! How can I help you today?"), ("Thanks, that's all.", "You're welcome!"),
              ("Good morning!", "Good morning! What can I do for you?"), ("Who are you?",
                                                                         "I'm an AI assistant. How can I help?"),
              ("Thank you so much!", "Happy to help!"), ("ok bye", "Bye! Have a good day."),
              ("Can you explain what an API is in one sentence?",
               "An API is a defined way for one program to ask another program for data or actions."),
              ("Is Python a compiled language?",
               "Python is usually interpreted: source is compiled to bytecode that the interpreter runs.")]


def _capital(rng):
    country, capital = rng.choice(CAPITALS)
    q = rng.choice([f"What's the capital of {country}?", f"what is the capital city of {country}",
                    f"Capital of {country}?"])
    return q, f"The capital of {country} is {capital}.", {"maps", "government", "education", "language", "books"}


def _arith(rng):
    a, b = rng.randint(2, 99), rng.randint(2, 99)
    op, sym, val = rng.choice([("plus", "+", a + b), ("times", "×", a * b), ("minus", "-", a - b)])
    q = rng.choice([f"What is {a} {op} {b}?", f"what's {a} {sym} {b}", f"Quick math: {a} {op} {b}?"])
    return q, f"{a} {sym} {b} = {val}.", {"math", "science", "units"}


def _joke(rng):
    return rng.choice(["Tell me a joke.", "Got a joke for me?", "Make me laugh"]), rng.choice(JOKES), set()


def _abbr(rng):
    abbr, full = rng.choice(ABBREVIATIONS)
    return f"What does {abbr} stand for?", f"{abbr} stands for {full}.", {"education", "language", "books"}


def _fact(rng):
    q, a = rng.choice(FACTS)
    return q, a, {"education", "science", "math", "units", "language", "books"}


def _talk(rng):
    q, a = rng.choice(SMALL_TALK)
    return q, a, {"education", "language", "books"}


# questions with one answer; small talk ("ok bye", "Hi!") only opens or ends a conversation (session.py leaves it out)
QUESTIONS = [_capital, _arith, _joke, _abbr, _fact]
GENERAL = QUESTIONS + [_talk, _talk]
