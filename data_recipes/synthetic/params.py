"""The parameter library: every argument a synthetic tool can take, as JSON Schema + sampler + phrasing.

A `Param` knows its JSON Schema (string, integer with bounds, number, boolean, enum, array, nested object, string
patterns), a sampler that draws a `Value` (canonical value + how a user says it), and the phrases that put it in
a request ("in {}", "for {} nights"). Tools in data_recipes.synthetic.catalogue are composed from these by name,
so one parameter reads the same way in every tool that uses it.

Run: imported by the catalogue; `python -c "from data_recipes.synthetic.params import PARAMS; print(len(PARAMS))"`.
Left out: `format` keywords (jsonschema does not enforce them by default); patterns carry the structure instead.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable

from data_recipes.synthetic import values as V
from data_recipes.synthetic.values import Value


@dataclass(frozen=True)
class Param:
    name: str
    schema: dict  # JSON Schema of the value, with its description
    sample: Callable[[random.Random], Value]
    phrases: tuple[str, ...]  # "{}" takes the surface form; booleans: phrases for True
    false_phrases: tuple[str, ...] = ()  # booleans only
    default: Any = None

    def phrase(self, rng: random.Random, value: Value, normalise: bool = False) -> str:
        if self.schema["type"] == "boolean":
            return rng.choice(self.phrases if value.value else self.false_phrases)
        return rng.choice(self.phrases).format(value.surface(rng, normalise))

    def spec(self, required: bool) -> dict:
        s = dict(self.schema)
        if not required and self.default is not None:
            s["default"] = self.default
        return s


PARAMS: dict[str, Param] = {}


def _add(name, schema, sample, phrases, false_phrases=(), default=None):
    if name in PARAMS:
        raise ValueError(f"parameter {name!r} defined twice")
    PARAMS[name] = Param(name, schema, sample, tuple(phrases), tuple(false_phrases), default)


def S(name, desc, sample, phrases, **extra):
    _add(name, {"type": "string", "description": desc, **extra}, sample, phrases)


def I(name, desc, lo, hi, phrases, default=None, words_max=999_999):
    _add(name, {"type": "integer", "description": desc, "minimum": lo, "maximum": hi},
         lambda r: V.integer(r, lo, hi, words_max), phrases, default=default)


def N(name, desc, sample, phrases, default=None, **extra):
    _add(name, {"type": "number", "description": desc, **extra}, sample, phrases, default=default)


def B(name, desc, true_phrases, false_phrases, default=False):
    _add(name, {"type": "boolean", "description": desc},
         lambda r: Value(r.random() < 0.6, ""), true_phrases, false_phrases, default)


def E(name, desc, options, phrases, default=None):
    opts = [o if isinstance(o, tuple) else (o, o.replace("_", " ")) for o in options]
    _add(name, {"type": "string", "description": desc, "enum": [o[0] for o in opts]},
         V.choice_of(opts), phrases, default=default)


def A(name, desc, item_schema, item_sample, phrases, k=(2, 3)):
    def sample(rng):
        items, seen = [], set()
        for _ in range(20):
            it = item_sample(rng)
            if it.value not in seen:
                seen.add(it.value)
                items.append(it)
            if len(items) >= rng.randint(*k):
                break
        text = _join([it.text for it in items])
        alt = _join([it.alt[0] if it.alt else it.text for it in items])
        return Value([it.value for it in items], text, (alt,) if alt != text else ())
    _add(name, {"type": "array", "description": desc, "items": item_schema, "minItems": 1}, sample, phrases)


def O(name, desc, props, required, sample, phrases):
    _add(name, {"type": "object", "description": desc, "properties": props, "required": required}, sample, phrases)


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _quoted(pool):
    def sample(rng):
        s = V.pick(rng, pool)
        return Value(s, f'"{s}"')
    return sample


CODE3 = {"type": "string", "pattern": "^[A-Z]{3}$"}
TITLES = ["Team standup", "Project kickoff", "Dentist appointment", "Quarterly review", "Lunch with Sam",
          "Budget planning", "Yoga class", "Design sync", "Parent-teacher meeting", "Flight check-in",
          "Car service", "Book club", "1:1 with manager", "Sprint retro", "Birthday dinner"]
MESSAGES = ["Running 10 minutes late, start without me", "The report is ready for review", "Can we move our call to 3pm?",
            "Happy birthday! Hope you have a great day", "Don't forget to bring the slides", "Dinner is at 7 tonight",
            "The build is green again", "Please send me the invoice", "I'll be working from home tomorrow",
            "Thanks for your help today", "Meeting room changed to B2", "Package arrived safely"]
SUBJECTS = ["Q3 report", "Invoice 2291", "Weekend plans", "Interview schedule", "Project update", "Welcome aboard",
            "Travel itinerary", "Contract draft", "Team offsite", "Password reset"]
QUERIES = ["wireless headphones", "running shoes", "coffee grinder", "yoga mat", "mechanical keyboard", "desk lamp",
           "hiking backpack", "water bottle", "electric kettle", "phone case", "air purifier", "standing desk",
           "noise cancelling earbuds", "cast iron pan", "winter jacket", "gaming mouse", "smart watch", "tent"]
TOPICS = ["machine learning", "climate change", "electric cars", "space exploration", "interest rates",
          "renewable energy", "the housing market", "artificial intelligence", "the world cup", "vaccines",
          "remote work", "quantum computing", "supply chains", "cybersecurity"]
ARTISTS = ["Taylor Swift", "Daft Punk", "Adele", "Radiohead", "Beyoncé", "Miles Davis", "Coldplay", "Bad Bunny",
           "Norah Jones", "The Beatles", "Kendrick Lamar", "Billie Eilish", "ABBA", "Fleetwood Mac"]
SONGS = ["Bohemian Rhapsody", "Hey Jude", "Blinding Lights", "Rolling in the Deep", "Get Lucky", "So What",
         "Dancing Queen", "Yellow", "Bad Guy", "Dreams", "Karma Police", "Halo", "Shake It Off", "Humble"]
TEAMS = ["Arsenal", "Real Madrid", "Bayern Munich", "Lakers", "Celtics", "Yankees", "Dodgers", "Chiefs",
         "Juventus", "PSG", "Warriors", "Liverpool", "Boca Juniors", "Ajax"]
PLAYERS = ["Lionel Messi", "LeBron James", "Serena Williams", "Erling Haaland", "Stephen Curry", "Shohei Ohtani",
           "Kylian Mbappé", "Patrick Mahomes", "Novak Djokovic", "Alexia Putellas"]
MOVIES = ["Inception", "The Matrix", "Spirited Away", "Parasite", "Interstellar", "Amélie", "Dune", "Arrival",
          "Casablanca", "The Godfather", "Whiplash", "Coco", "Oppenheimer", "Up"]
SHOWS = ["Breaking Bad", "The Office", "Dark", "Succession", "The Crown", "Friends", "Severance", "Shogun"]
REPOS = ["acme/webapp", "acme/payments-api", "northwind/data-pipeline", "octo/cli", "tinyml/runtime",
         "opensci/plotkit", "shopfront/mobile", "infra/terraform-modules"]
BRANCHES = ["main", "develop", "release/2.1", "feature/login", "fix/timeouts", "staging"]
WORDS = ["serendipity", "ephemeral", "resilient", "ubiquitous", "meticulous", "candid", "eloquent", "pragmatic",
         "ambiguous", "benevolent", "concise", "diligent"]
PHRASES = ["Where is the train station?", "Thank you very much", "How much does this cost?", "Good morning",
           "I would like a coffee, please", "See you tomorrow", "The meeting is cancelled", "Happy new year"]
FOODS = ["banana", "brown rice", "chicken breast", "avocado", "oatmeal", "salmon", "almonds", "greek yogurt",
         "broccoli", "lentils", "apple", "whole wheat bread", "egg", "tofu"]
INGREDIENTS = ["chicken", "rice", "tomatoes", "garlic", "spinach", "chickpeas", "mushrooms", "eggs", "potatoes",
               "basil", "lemon", "tofu", "beef", "pasta", "cheese", "onions"]
FOLDERS = ["/documents/reports", "/photos/2024", "/projects/website", "/shared/finance", "/music", "/backups"]
PATHS = ["/documents/reports/q3_summary.pdf", "/photos/2024/beach.jpg", "/projects/website/index.html",
         "/shared/finance/budget.xlsx", "/notes/todo.txt", "/backups/db_2025_01.tar.gz", "/music/playlist.m3u"]
BOOKS = ["Dune", "Pride and Prejudice", "Sapiens", "The Hobbit", "Educated", "Atomic Habits", "Beloved",
         "The Left Hand of Darkness", "Thinking, Fast and Slow", "One Hundred Years of Solitude"]
AUTHORS = ["Ursula K. Le Guin", "Toni Morrison", "Frank Herbert", "Jane Austen", "Yuval Noah Harari",
           "Tara Westover", "Gabriel García Márquez", "Daniel Kahneman", "J.R.R. Tolkien", "Octavia Butler"]
STREETS = ["12 Rue Cler", "221B Baker Street", "1600 Amphitheatre Parkway", "5 Market Street", "88 Harbour Road",
           "14 Elm Avenue", "301 Pine Street", "7 Kings Road", "42 Station Lane", "9 Via Roma"]


def _flight_number(rng):
    s = f"{V.pick(rng, ['BA', 'LH', 'AF', 'UA', 'DL', 'KL', 'IB', 'NH', 'QF', 'TK'])}{rng.randint(10, 2999)}"
    return Value(s, s, (s.lower(),))


def _isbn(rng):
    s = "978" + "".join(str(rng.randint(0, 9)) for _ in range(10))
    return Value(s, s)


def _price_range(rng):
    lo = rng.choice([10, 20, 25, 50, 100, 150, 200])
    hi = lo * rng.choice([2, 3, 4])
    return Value({"min": lo, "max": hi}, f"between ${lo} and ${hi}", (f"from {V.number_words(lo)} to "
                                                                       f"{V.number_words(hi)} dollars",))


def _date_range(rng):
    a = V.date(rng)
    y, m, d = map(int, a.value.split("-"))
    d2 = min(d + rng.randint(1, 9), 28 if m == 2 else 30)
    if d2 <= d:
        d2, d = d, max(1, d - 3)
        a = Value(f"{y}-{m:02d}-{d:02d}", f"{y}-{m:02d}-{d:02d}")
    b = f"{y}-{m:02d}-{d2:02d}"
    month = V.MONTHS[m - 1]
    return Value({"start": a.value, "end": b}, f"from {a.value} to {b}", (f"from {month} {d} to {month} {d2}, {y}",))


def _address(rng):
    street, (town, _, _) = V.pick(rng, STREETS), V.pick(rng, V.CITIES)
    if rng.random() < 0.5:
        code = f"{rng.randint(10000, 99999)}"
        return Value({"street": street, "city": town, "postal_code": code}, f"{street}, {town} {code}")
    return Value({"street": street, "city": town}, f"{street}, {town}")


def _location(rng):
    lat, lon = round(rng.uniform(-60, 70), 4), round(rng.uniform(-170, 170), 4)
    return Value({"latitude": lat, "longitude": lon}, f"{lat}, {lon}", (f"latitude {lat} and longitude {lon}",))


def _dimensions(rng):
    l, w, h = rng.randint(10, 80), rng.randint(10, 60), rng.randint(5, 50)
    return Value({"length_cm": l, "width_cm": w, "height_cm": h}, f"{l}x{w}x{h} cm", (f"{l} by {w} by {h} centimetres",))


def _hashtag(rng):
    s = V.pick(rng, ["#climate", "#python", "#worldcup", "#foodie", "#travel", "#ai", "#fitness", "#startup"])
    return Value(s, s, (s[1:],))


def _username(rng):
    s = f"@{V.pick(rng, V.FIRST).lower()}_{V.pick(rng, ['codes', 'travels', 'cooks', 'runs', 'writes'])}"
    return Value(s, s)


def _url(rng):
    s = f"https://{V.pick(rng, ['example.com', 'status.acme.io', 'shop.northwind.dev', 'blog.example.org'])}"
    return Value(s, s, (s.replace("https://", ""),))


def _domain_name(rng):
    s = V.pick(rng, ["example.com", "acme.io", "northwind.dev", "openlibrary.org", "python.org"])
    return Value(s, s, (s.upper(),))


def _sql(rng):
    t = V.pick(rng, ["orders", "users", "invoices", "events"])
    q = V.pick(rng, [f"SELECT COUNT(*) FROM {t}", f"SELECT * FROM {t} LIMIT 10", f"SELECT id, created_at FROM {t}"])
    return Value(q, f"`{q}`")


from data_recipes.synthetic import param_table  # noqa: E402  (fills PARAMS using the helpers above)

param_table.define()
