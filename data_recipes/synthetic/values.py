"""Value pools and samplers for the synthetic source: what goes into a call and how a user would say it.

Every sampler takes a `random.Random` and returns a `Value`: the canonical `value` that belongs in the call's
arguments, the plain `text` a user would type, and `alt` surface forms that need light normalisation to map back
to the value (numbers in words, "euros" -> "EUR", "Germany" -> "DE", "March 3, 2025" -> "2025-03-03", odd casing).
The normalisation kind asks for an `alt` form whenever a value has one.

Run: imported by the synthetic modules (the pools and samplers at the end are param_table.py's); nothing to run.
Left out: relative dates ("next Friday") need a reference date the model can't see, so every date is absolute.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any


@dataclass(frozen=True)
class Value:
    value: Any
    text: str
    alt: tuple[str, ...] = field(default_factory=tuple)
    p_alt: float | None = None  # this value's own share of alternative forms (dates: DATE_P_ALT); None: surface's

    def __post_init__(self):
        object.__setattr__(self, "value", as_written(self.value))

    def surface(self, rng: random.Random, normalise: bool = False, p_alt: float = 0.15) -> str:
        """How the user writes it: an alternative form always when `normalise`, else with probability p_alt (the
        value's own `p_alt` where it has one)."""
        share = p_alt if self.p_alt is None else self.p_alt
        if self.alt and (normalise or rng.random() < share):
            return rng.choice(self.alt)
        return self.text


SCIENTIFIC = 1e16  # from here on a number is written 1.5e+26, as repr and JSON write it (not as an integer's
#                   27 digits, 149999999999999998557159424)


def as_written(value: Any) -> Any:
    """A whole float as the integer the user typed (39.0 -> 39), through lists and objects.

    The user writes "39", so the call carries 39: JSON Schema's `number` and BFCL's float check both accept it,
    while a call that writes 39.0 taught the model to write "radius": 4.0 for BFCL's integer parameters too
    (35 of the quality-gpu-300-new model's errors on the calling suites)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < SCIENTIFIC:
        return int(value)
    if isinstance(value, list):
        return [as_written(v) for v in value]
    if isinstance(value, dict):
        return {k: as_written(v) for k, v in value.items()}
    return value


# --- numbers in words -------------------------------------------------------------------------------------------
_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen " \
        "seventeen eighteen nineteen".split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def number_words(n: int) -> str:
    """English words for 0 <= n < 1,000,000 ("two hundred and five", "three thousand")."""
    if n < 0 or n >= 1_000_000:
        raise ValueError(f"number_words covers 0..999999, got {n}")
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else "-" + _ONES[n % 10])
    if n < 1000:
        rest = n % 100
        return _ONES[n // 100] + " hundred" + ("" if rest == 0 else " and " + number_words(rest))
    rest = n % 1000
    head = number_words(n // 1000) + " thousand"
    if rest == 0:
        return head
    return head + (" and " if rest < 100 else " ") + number_words(rest)


def grouped(x: int | float) -> tuple[str, ...]:
    """How people also type a number of four digits or more: "12,000", and "2.5 million" for round millions.

    No build before this one had a thousands separator in any request, while 27 requests of BFCL's calling suites
    have one or say "million" ("$2,000,000", "12,000 miles"); the quality-gpu-300-new model got 1 of them right."""
    x = as_written(x)
    if isinstance(x, bool) or abs(x) < 1000 or abs(x) >= SCIENTIFIC:
        return ()
    forms = [f"{x:,}"]
    if abs(x) >= 1_000_000 and round(x / 1_000_000, 2) * 1_000_000 == x:
        forms.append(f"{x / 1_000_000:g} million")
    return tuple(forms)


def number_text(x: int | float) -> str:
    """How a user types a number: 39, 12.5, 0.000012 (no trailing .0; whole floats are written as integers), every
    digit of the value the call carries.

    Not `f"{x:g}"`, six significant digits: with it 0.7% of generated rows asked for 46586.5 and called
    with 46586.48, teaching the model to write digits the request does not have."""
    x = as_written(x)
    if isinstance(x, float) and abs(x) >= SCIENTIFIC:
        return repr(x)  # as JSON writes it in the call: 1.5e+26
    return format(Decimal(repr(x)), "f") if isinstance(x, float) else str(x)


P_ROUND = 0.35  # the share of drawn numbers a user states round


def stated_round(rng: random.Random, x: int | float, lo: float, hi: float) -> int | float:
    """The number as people often state it: with probability P_ROUND, `x` cut to one or two significant digits
    (38,412 -> 40,000 or 38,000; 7.34 -> 7 or 7.3), when that stays inside [lo, hi]; else `x` itself.

    Numbers used to be drawn uniformly: 1.2% of the whole numbers of 100 or more in a build's calls had two or more
    trailing zeros, against 60% (322 of 533) in BFCL's calling suites ("$5000", "10,000", "2 million"). The default
    model copied 5000 as 500 and $10,000 as 1000 (23 and 48 such arguments in two seed-2 runs): a digit is a token,
    and it had hardly ever copied a run of zeros (train/results/quality-cpu-round-seed2/)."""
    if x == 0 or rng.random() >= P_ROUND:
        return x
    r = float(f"{x:.{rng.choice((1, 2))}g}")
    r = int(r) if isinstance(x, int) else as_written(r)
    return r if lo <= r <= hi else x


def integer(rng: random.Random, lo: int, hi: int, words_max: int = 999_999) -> Value:
    n = rng.randint(lo, hi)
    if 1000 <= lo and hi <= 2500:  # a year: typed as digits, never "2,024", in words or rounded to 2000
        return Value(n, str(n), ())
    n = stated_round(rng, n, lo, hi)
    alt = ((number_words(n),) if 0 <= n <= words_max else ()) + grouped(n)
    return Value(n, str(n), alt)


def money(rng: random.Random, lo: float, hi: float, symbol: str = "$") -> Value:
    cents = rng.choice([0, 0, 0, 50, 99, 25, rng.randint(1, 99)])
    amount = rng.randint(int(lo), int(hi)) + cents / 100
    amount = stated_round(rng, round(amount, 2), lo, hi)
    cents = round(amount * 100) % 100
    text = str(int(amount)) if cents == 0 else f"{amount:.2f}"
    alt = [f"{symbol}{text}"]
    if cents == 0 and amount <= 9999:
        alt.append(f"{number_words(int(amount))} dollars" if symbol == "$" else number_words(int(amount)))
    alt += [f"{symbol}{g}" for g in grouped(amount)]
    return Value(amount, text, tuple(alt))


def decimal(rng: random.Random, lo: float, hi: float, digits: int = 1) -> Value:
    x = round(rng.uniform(lo, hi), digits)
    if abs(x) >= SCIENTIFIC and lo <= float(f"{x:.3g}") <= hi:  # a planet's mass: 5.97e+24 kg, not 25 digits
        x = float(f"{x:.3g}")
    x = stated_round(rng, x, lo, hi)
    return Value(x, number_text(x), grouped(x))


# --- places, codes, names ---------------------------------------------------------------------------------------
CITIES = [  # (city, ISO 3166 alpha-2, country)
    ("Paris", "FR", "France"), ("Berlin", "DE", "Germany"), ("Tokyo", "JP", "Japan"), ("New York", "US", "the US"),
    ("London", "GB", "the UK"), ("Madrid", "ES", "Spain"), ("Rome", "IT", "Italy"), ("Toronto", "CA", "Canada"),
    ("Sydney", "AU", "Australia"), ("Mumbai", "IN", "India"), ("São Paulo", "BR", "Brazil"),
    ("Mexico City", "MX", "Mexico"), ("Cairo", "EG", "Egypt"), ("Nairobi", "KE", "Kenya"), ("Seoul", "KR", "South Korea"),
    ("Bangkok", "TH", "Thailand"), ("Istanbul", "TR", "Turkey"), ("Amsterdam", "NL", "the Netherlands"),
    ("Stockholm", "SE", "Sweden"), ("Oslo", "NO", "Norway"), ("Lisbon", "PT", "Portugal"), ("Dublin", "IE", "Ireland"),
    ("Vienna", "AT", "Austria"), ("Zurich", "CH", "Switzerland"), ("Buenos Aires", "AR", "Argentina"),
    ("Lagos", "NG", "Nigeria"), ("Jakarta", "ID", "Indonesia"), ("Singapore", "SG", "Singapore"),
    ("Warsaw", "PL", "Poland"), ("Prague", "CZ", "Czechia"), ("Chicago", "US", "the US"),
    ("San Francisco", "US", "the US"), ("Austin", "US", "the US"), ("Seattle", "US", "the US"),
    ("Vancouver", "CA", "Canada"), ("Melbourne", "AU", "Australia"), ("Osaka", "JP", "Japan"),
    ("Barcelona", "ES", "Spain"), ("Munich", "DE", "Germany"), ("Lyon", "FR", "France"),
    ("Cape Town", "ZA", "South Africa"), ("Hanoi", "VN", "Vietnam"), ("Lima", "PE", "Peru"),
    ("Bogotá", "CO", "Colombia"), ("Helsinki", "FI", "Finland"), ("Copenhagen", "DK", "Denmark"),
    ("Athens", "GR", "Greece"), ("Budapest", "HU", "Hungary"), ("Reykjavik", "IS", "Iceland"),
    ("Auckland", "NZ", "New Zealand"), ("Denver", "US", "the US"), ("Boston", "US", "the US"),
]
COUNTRIES = sorted({(code, name) for _, code, name in CITIES})
AIRPORTS = [  # (IATA code, city, airport name)
    ("JFK", "New York", "JFK"), ("LHR", "London", "Heathrow"), ("CDG", "Paris", "Charles de Gaulle"),
    ("HND", "Tokyo", "Haneda"), ("FRA", "Frankfurt", "Frankfurt"), ("AMS", "Amsterdam", "Schiphol"),
    ("MAD", "Madrid", "Barajas"), ("FCO", "Rome", "Fiumicino"), ("SFO", "San Francisco", "SFO"),
    ("LAX", "Los Angeles", "LAX"), ("ORD", "Chicago", "O'Hare"), ("SEA", "Seattle", "Sea-Tac"),
    ("YYZ", "Toronto", "Pearson"), ("SYD", "Sydney", "Kingsford Smith"), ("SIN", "Singapore", "Changi"),
    ("DXB", "Dubai", "Dubai International"), ("IST", "Istanbul", "Istanbul Airport"), ("BCN", "Barcelona", "El Prat"),
    ("MUC", "Munich", "Munich"), ("LIS", "Lisbon", "Humberto Delgado"), ("DUB", "Dublin", "Dublin"),
    ("ICN", "Seoul", "Incheon"), ("BKK", "Bangkok", "Suvarnabhumi"), ("GRU", "São Paulo", "Guarulhos"),
    ("MEX", "Mexico City", "Benito Juárez"), ("BOS", "Boston", "Logan"), ("DEN", "Denver", "Denver"),
]
CURRENCIES = [  # (ISO 4217, how people say it)
    ("USD", "US dollars"), ("EUR", "euros"), ("GBP", "British pounds"), ("JPY", "Japanese yen"),
    ("CHF", "Swiss francs"), ("CAD", "Canadian dollars"), ("AUD", "Australian dollars"), ("INR", "Indian rupees"),
    ("CNY", "Chinese yuan"), ("MXN", "Mexican pesos"), ("BRL", "Brazilian reais"), ("SEK", "Swedish kronor"),
    ("KRW", "South Korean won"), ("ZAR", "South African rand"), ("NOK", "Norwegian kroner"),
    ("PLN", "Polish zloty"), ("TRY", "Turkish lira"), ("SGD", "Singapore dollars"), ("NZD", "New Zealand dollars"),
    ("HKD", "Hong Kong dollars"),
]
LANGUAGES = [("en", "English"), ("fr", "French"), ("de", "German"), ("es", "Spanish"), ("it", "Italian"),
             ("pt", "Portuguese"), ("ja", "Japanese"), ("zh", "Chinese"), ("ko", "Korean"), ("ru", "Russian"),
             ("ar", "Arabic"), ("hi", "Hindi"), ("nl", "Dutch"), ("sv", "Swedish"), ("pl", "Polish"), ("tr", "Turkish")]
TICKERS = [("AAPL", "Apple"), ("MSFT", "Microsoft"), ("GOOGL", "Alphabet"), ("AMZN", "Amazon"), ("TSLA", "Tesla"),
           ("NVDA", "Nvidia"), ("META", "Meta"), ("NFLX", "Netflix"), ("IBM", "IBM"), ("INTC", "Intel"),
           ("AMD", "AMD"), ("ORCL", "Oracle"), ("KO", "Coca-Cola"), ("PEP", "PepsiCo"), ("DIS", "Disney"),
           ("NKE", "Nike"), ("JPM", "JPMorgan"), ("WMT", "Walmart"), ("SBUX", "Starbucks"), ("ADBE", "Adobe")]
CRYPTO = [("BTC", "bitcoin"), ("ETH", "ethereum"), ("SOL", "solana"), ("ADA", "cardano"), ("DOGE", "dogecoin"),
          ("XRP", "ripple"), ("DOT", "polkadot"), ("LTC", "litecoin")]
FIRST = "Anna Ben Carla David Elena Farid Grace Hiro Ines Jonas Kemi Liam Maya Noor Omar Priya Quinn Rosa Sam Tomas " \
        "Uma Victor Wei Yara Zoe Lucas Mei Ahmed Sofia Mateo".split()
LAST = "Kowalski Okafor Tanaka Silva Novak Müller Chen Garcia Haddad Smith Rossi Dubois Nguyen Patel Larsen Kim " \
       "Ivanova Moreau Costa Schmidt".split()
MONTHS = "January February March April May June July August September October November December".split()
_DAYS_IN = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]


def pick(rng: random.Random, pool: list):
    return pool[rng.randrange(len(pool))]


def city(rng):
    name = pick(rng, CITIES)[0]
    return Value(name, name, (name.lower(),))


US_STATES = {"New York": "NY", "Chicago": "IL", "San Francisco": "CA", "Austin": "TX", "Seattle": "WA",
             "Denver": "CO", "Boston": "MA"}


def city_country(rng):
    """For a parameter described as "city and state (US) or city and country, e.g. 'Boston, MA' or 'Paris,
    France'": the user names the city, the call carries the form the description asks for."""
    name, _, country = pick(rng, CITIES)
    region = US_STATES.get(name) or {"the UK": "UK"}.get(country, country.removeprefix("the "))
    return Value(f"{name}, {region}", name, (name.lower(),))


def rate_fraction(rng):
    """For a rate described "as a decimal, e.g. 0.05 for 5%": the user says a percent, the call carries the
    fraction."""
    percent = rng.randint(2, 30) / 2  # 1, 1.5 ... 15
    return Value(round(percent / 100, 4), f"{percent:g}%", (f"{percent:g} percent",))


def country_code(rng):
    code, name = pick(rng, COUNTRIES)
    return Value(code, code, (name, name.replace("the ", "")))


def airport(rng):
    code, town, name = pick(rng, AIRPORTS)
    alts = [f"{town} {name}" if name not in (code, town) else f"{town} ({code})", code.lower()]
    return Value(code, code, tuple(alts))


def currency(rng):
    code, words = pick(rng, CURRENCIES)
    return Value(code, code, (words, code.lower()))


def language(rng):
    code, name = pick(rng, LANGUAGES)
    return Value(code, name if rng.random() < 0.5 else code, (name, name.lower()))


def ticker(rng):
    code, name = pick(rng, TICKERS)
    return Value(code, code, (name, code.lower()))


def crypto(rng):
    code, name = pick(rng, CRYPTO)
    return Value(code, code, (name, name.capitalize()))


def person(rng):
    name = f"{pick(rng, FIRST)} {pick(rng, LAST)}"
    return Value(name, name, (name.lower(),))


def email(rng):
    first, last = pick(rng, FIRST).lower(), pick(rng, LAST).lower().replace("ü", "u")
    domain = pick(rng, ["example.com", "mail.example.org", "acme.io", "northwind.dev"])
    addr = f"{first}.{last}@{domain}"
    return Value(addr, addr, (addr.capitalize(),))


def phone(rng):
    digits = f"+1{rng.randint(200, 989)}555{rng.randint(0, 9999):04d}"
    pretty = f"+1 ({digits[2:5]}) 555-{digits[-4:]}"
    return Value(digits, digits, (pretty,))


def date(rng, years=(2025, 2026)):
    y = rng.randint(*years)
    m = rng.randint(1, 12)
    d = rng.randint(1, _DAYS_IN[m - 1])
    return date_value(y, m, d)


def date_after(rng, iso: str, lo: int = 1, hi: int = 10) -> Value:
    """A date lo..hi days after the ISO date `iso` (check-out after check-in, return after departure)."""
    import datetime as dt
    later = dt.date.fromisoformat(iso) + dt.timedelta(days=rng.randint(lo, hi))
    return date_value(later.year, later.month, later.day)


# The share of dates a request says as people write them ("April 25th 2023"), the call carrying the ISO form; a
# full month name may come before an ordinal day ("April 25th"). BFCL's calling suites say 62 answer dates that way
# far more often than as ISO, and at 15% without that form runs wrote the day wrong from them ("April 25th" ->
# 2023-04-03, 2023-04-26, 2023-04-025: 10 of live_simple's first failures at choices-seed2).
DATE_P_ALT = 0.6


def ordinal(d: int) -> str:
    return f"{d}{'th' if 11 <= d % 100 <= 13 else {1: 'st', 2: 'nd', 3: 'rd'}.get(d % 10, 'th')}"


def date_value(y: int, m: int, d: int) -> Value:
    iso = f"{y}-{m:02d}-{d:02d}"
    month, nth = MONTHS[m - 1], ordinal(d)
    short = month if len(month) <= 4 else month[:3]  # "Apr", but "May" and "June" as they are
    alts = (f"{month} {d}, {y}", f"{d} {month} {y}", f"{month} {nth} {y}", f"{month} {nth}, {y}", f"{nth} {month} {y}",
            f"{short} {nth} {y}", f"{short}{'.' if short != month else ''} {d}, {y}", f"the {nth} of {month} {y}")
    return Value(iso, iso, tuple(dict.fromkeys(alts)), DATE_P_ALT)  # each form once ("May 3rd 2025" is both)


def clock(rng):
    h, m = rng.randint(6, 21), rng.choice([0, 0, 15, 30, 45])
    ampm = f"{(h - 1) % 12 + 1}{'' if m == 0 else f':{m:02d}'} {'am' if h < 12 else 'pm'}"
    return Value(f"{h:02d}:{m:02d}", f"{h:02d}:{m:02d}", (ampm, ampm.upper().replace(" ", "")))


def choice_of(options: list[tuple[Any, str]]):
    """A sampler over (value, how-users-say-it) pairs; the value itself is the plain text."""
    def sample(rng):
        value, words = pick(rng, options)
        return Value(value, str(value), (words,) if words != str(value) else ())
    return sample


def join_and(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


# How many options a user picks from an array-of-enum parameter: BFCL's calling suites hold 98 such arguments, 31
# with one option, 52 with two, 12 with three, 2 with four.
SUBSET_SIZES = ((1, 0.35), (2, 0.45), (3, 0.2))
P_EXACT_OPTION = 0.1  # an option typed in the enum's own spelling ("Tennis Court"), else in plain lower case


def said_option(option: str) -> str:
    """How a user writes an enum option in a sentence: 'Tennis Court' -> 'tennis court', 'gluten_free' ->
    'gluten free'; an all-caps code stays as it is (GPS)."""
    words = option.replace("_", " ")
    return words if words.isupper() else words.lower()


def subset_of(options: list):
    """A sampler for an array of enum strings ("with a patio and live music" -> ["Patio", "Live Music"]): one to
    three distinct options, said in plain words; the call carries the enum's spelling in the order said.

    `options`: values, or (value, how users say it) pairs. Trained without any array-of-enum parameter, a
    model got BFCL's items with one right 5 times in 69 (train/results/quality-cpu-order-seed2/), the calls
    listing every option of the enum or writing 'pet-friendly' for 'Pet-friendly'."""
    pairs = [o if isinstance(o, tuple) else (o, said_option(o)) for o in options]
    sizes = [n for n, _ in SUBSET_SIZES if n <= len(pairs)]
    weights = [w for n, w in SUBSET_SIZES if n <= len(pairs)]

    def sample(rng):
        picked = rng.sample(pairs, rng.choices(sizes, weights)[0])
        text = join_and([v if rng.random() < P_EXACT_OPTION else w for v, w in picked])
        return Value([v for v, _ in picked], text)  # no alternative form: "normalise" rows say them the same way
    return sample


# Units a user types against the number ("5cm"); the others follow a space ("4 inches", "10 units").
GLUED_UNITS = {"cm", "m", "mm", "km"}
P_GLUED_UNIT = 0.3


def unit_separator(unit: Value, rng) -> str:
    """'' for a unit typed against its numbers ("5cm"), else ' ': one choice for every value of a request."""
    return "" if unit.text in GLUED_UNITS and rng.random() < P_GLUED_UNIT else " "


def with_unit_after(v: Value, unit: Value, sep: str = " ") -> Value:
    """`v` said with `unit` after it: a radius of 4 and the unit "inches" -> "4 inches"."""
    return Value(v.value, f"{v.text}{sep}{unit.text}", tuple(f"{a} {unit.text}" for a in v.alt))


def verbatim(make):
    """A sampler of a string users type as it is: value and text are both `make(rng)`."""
    def sample(rng):
        s = make(rng)
        return Value(s, s)
    return sample


def text_from(pool: list[str]):
    return verbatim(lambda rng: pick(rng, pool))


def quoted(pool: list[str]):
    """Free text from `pool`, written in quotes in the request."""
    def sample(rng):
        s = pick(rng, pool)
        return Value(s, f'"{s}"')
    return sample


def code_id(prefix: str, digits: int = 5):
    def sample(rng):
        s = f"{prefix}-{rng.randrange(10 ** (digits - 1), 10 ** digits)}"
        return Value(s, s, (s.lower(),))
    return sample


# --- pools and samplers of the parameter table (param_table.py) ---------------------------------------------------
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


def flight_number(rng):
    s = f"{pick(rng, ['BA', 'LH', 'AF', 'UA', 'DL', 'KL', 'IB', 'NH', 'QF', 'TK'])}{rng.randint(10, 2999)}"
    return Value(s, s, (s.lower(),))


def price_range(rng):
    lo = rng.choice([10, 20, 25, 50, 100, 150, 200])
    hi = lo * rng.choice([2, 3, 4])
    return Value({"min": lo, "max": hi}, f"between ${lo} and ${hi}", (f"from {number_words(lo)} to "
                                                                       f"{number_words(hi)} dollars",))


def date_range(rng):
    a = date(rng)
    y, m, d = map(int, a.value.split("-"))
    d2 = min(d + rng.randint(1, 9), 28 if m == 2 else 30)
    if d2 <= d:
        d2, d = d, max(1, d - 3)
        a = Value(f"{y}-{m:02d}-{d:02d}", f"{y}-{m:02d}-{d:02d}")
    b = f"{y}-{m:02d}-{d2:02d}"
    month = MONTHS[m - 1]
    return Value({"start": a.value, "end": b}, f"from {a.value} to {b}",
                 (f"from {month} {d} to {month} {d2}, {y}", f"from {month} {ordinal(d)} to {ordinal(d2)} {y}",
                  f"from the {ordinal(d)} to the {ordinal(d2)} of {month} {y}"), DATE_P_ALT)


def address(rng):
    street, (town, _, _) = pick(rng, STREETS), pick(rng, CITIES)
    if rng.random() < 0.5:
        code = f"{rng.randint(10000, 99999)}"
        return Value({"street": street, "city": town, "postal_code": code}, f"{street}, {town} {code}")
    return Value({"street": street, "city": town}, f"{street}, {town}")


def location(rng):
    lat, lon = round(rng.uniform(-60, 70), 4), round(rng.uniform(-170, 170), 4)
    return Value({"latitude": lat, "longitude": lon}, f"{lat}, {lon}", (f"latitude {lat} and longitude {lon}",))


def dimensions(rng):
    l, w, h = rng.randint(10, 80), rng.randint(10, 60), rng.randint(5, 50)
    return Value({"length_cm": l, "width_cm": w, "height_cm": h}, f"{l}x{w}x{h} cm", (f"{l} by {w} by {h} centimetres",))


def hashtag(rng):
    s = pick(rng, ["#climate", "#python", "#worldcup", "#foodie", "#travel", "#ai", "#fitness", "#startup"])
    return Value(s, s, (s[1:],))


def username(rng):
    s = f"@{pick(rng, FIRST).lower()}_{pick(rng, ['codes', 'travels', 'cooks', 'runs', 'writes'])}"
    return Value(s, s)


def url(rng):
    s = f"https://{pick(rng, ['example.com', 'status.acme.io', 'shop.northwind.dev', 'blog.example.org'])}"
    return Value(s, s, (s.replace("https://", ""),))


def domain_name(rng):
    s = pick(rng, ["example.com", "acme.io", "northwind.dev", "openlibrary.org", "python.org"])
    return Value(s, s, (s.upper(),))


def sql(rng):
    t = pick(rng, ["orders", "users", "invoices", "events"])
    q = pick(rng, [f"SELECT COUNT(*) FROM {t}", f"SELECT * FROM {t} LIMIT 10", f"SELECT id, created_at FROM {t}"])
    return Value(q, f"`{q}`")


def matrix_size(rng):
    rows, cols = rng.randint(2, 6), rng.randint(2, 6)
    return Value({"rows": rows, "cols": cols}, f"{rows}x{cols}")


_TRANSLATE_TO = choice_of([("fr", "French"), ("es", "Spanish"), ("de", "German")])


def target_language(rng):
    """Any language one time in five, else one of the three most asked for."""
    return language(rng) if rng.random() < 0.2 else _TRANSLATE_TO(rng)


def license_plate(rng):
    s = (f"{rng.choice('ABCDEFGHKLMN')}{rng.choice('PRSTVWXY')}{rng.randint(10, 99)} "
         f"{rng.choice('BCDFGHJK')}{rng.choice('LMNPRST')}{rng.choice('VWXYZ')}")
    return Value(s, s, (s.lower(),))
