"""Value pools and samplers for the synthetic source: what goes into a call and how a user would say it.

Every sampler takes a `random.Random` and returns a `Value`: the canonical `value` that belongs in the call's
arguments, the plain `text` a user would type, and `alt` surface forms that need light normalisation to map back
to the value (numbers in words, "euros" -> "EUR", "Germany" -> "DE", "March 3, 2025" -> "2025-03-03", odd casing).
The normalisation kind asks for an `alt` form whenever a value has one.

Run: imported by data_recipes.synthetic.params; nothing to run on its own.
Left out: relative dates ("next Friday") need a reference date the model can't see, so every date is absolute.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Value:
    value: Any
    text: str
    alt: tuple[str, ...] = field(default_factory=tuple)

    def surface(self, rng: random.Random, normalise: bool = False, p_alt: float = 0.15) -> str:
        """How the user writes it: an alternative form always when `normalise`, else with probability p_alt."""
        if self.alt and (normalise or rng.random() < p_alt):
            return rng.choice(self.alt)
        return self.text


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


def integer(rng: random.Random, lo: int, hi: int, words_max: int = 999_999) -> Value:
    n = rng.randint(lo, hi)
    alt = (number_words(n),) if 0 <= n <= words_max else ()
    return Value(n, str(n), alt)


def money(rng: random.Random, lo: float, hi: float, symbol: str = "$") -> Value:
    cents = rng.choice([0, 0, 0, 50, 99, 25, rng.randint(1, 99)])
    amount = rng.randint(int(lo), int(hi)) + cents / 100
    amount = round(amount, 2)
    text = f"{amount:g}" if cents == 0 else f"{amount:.2f}"
    alt = [f"{symbol}{text}"]
    if cents == 0 and amount <= 9999:
        alt.append(f"{number_words(int(amount))} dollars" if symbol == "$" else number_words(int(amount)))
    return Value(amount, text, tuple(alt))


def decimal(rng: random.Random, lo: float, hi: float, digits: int = 1) -> Value:
    x = round(rng.uniform(lo, hi), digits)
    if x == int(x):
        x = float(int(x))
    return Value(x, f"{x:g}")


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


def casing_alts(text: str) -> tuple[str, ...]:
    return (text.lower(), text.upper()) if text.lower() != text.upper() else ()


def city(rng):
    name = pick(rng, CITIES)[0]
    return Value(name, name, (name.lower(),))


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


def date_value(y: int, m: int, d: int) -> Value:
    iso = f"{y}-{m:02d}-{d:02d}"
    suffix = "th" if 11 <= d <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(d % 10, "th")
    month = MONTHS[m - 1]
    alts = (f"{month} {d}, {y}", f"{d} {month} {y}", f"{month[:3]} {d}{suffix} {y}", f"the {d}{suffix} of {month} {y}")
    return Value(iso, iso, alts)


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


def text_from(pool: list[str]):
    def sample(rng):
        s = pick(rng, pool)
        return Value(s, s)
    return sample


def code_id(prefix: str, digits: int = 5):
    def sample(rng):
        s = f"{prefix}-{rng.randrange(10 ** (digits - 1), 10 ** digits)}"
        return Value(s, s, (s.lower(),))
    return sample
