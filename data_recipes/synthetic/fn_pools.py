"""Value pools, object kinds, parameter descriptions and module names for the function library (library.py).

`POOLS` maps a pool name (the `s:POOL` / `ls:POOL` parameter types) to the strings a user may give; `surface`
says how a user writes one (free text in quotes, codes as they are). `OBJECTS` holds the nested kinds (a point,
a list of points, coordinates, a matrix, a list of line items, box dimensions) as (schema, sampler).
`DESCRIPTIONS` overrides the description made from a parameter's name; `MODULES` names a domain's module for the
`module.function` naming style.

Run: imported by data_recipes.synthetic.library.
Left out: pools in languages other than English.
"""

from __future__ import annotations

import random

from data_recipes.synthetic import values as V
from data_recipes.synthetic.objects import MAPS
from data_recipes.synthetic.values import Value

POOLS: dict[str, list[str]] = {
    "city": [c for c, _, _ in V.CITIES],
    "country": sorted({n.replace("the ", "") for _, _, n in V.CITIES}),
    "text": ["The quick brown fox jumps over the lazy dog", "Better late than never",
             "Machine learning models need clean data", "She sells sea shells by the sea shore",
             "To be or not to be, that is the question", "A journey of a thousand miles begins with a single step",
             "The meeting moved to Thursday afternoon", "Our sales grew by twelve percent this quarter",
             "Please remember to water the plants", "Open source software powers the modern web",
             "The weather today is sunny with light winds", "I love reading books on rainy weekends"],
    "word": ["level", "banana", "racecar", "algorithm", "planet", "rhythm", "madam", "keyboard", "noon", "elephant",
             "listen", "silent", "orange", "kayak", "python", "giraffe"],
    "dna": ["ATGCGTAC", "GGCTAATCG", "TTAGCCGATA", "ATATCGCG", "CGTACGTTAG", "AAGCTTGGC", "GATTACA", "CCGGTTAA"],
    "element": ["hydrogen", "helium", "carbon", "nitrogen", "oxygen", "sodium", "iron", "copper", "gold", "silver",
                "calcium", "neon", "zinc", "uranium"],
    "formula": ["H2O", "CO2", "NaCl", "C6H12O6", "CH4", "NH3", "H2SO4", "CaCO3", "C2H5OH", "O2", "KMnO4", "Fe2O3"],
    "species": ["African elephant", "gray wolf", "bald eagle", "red fox", "blue whale", "monarch butterfly",
                "snow leopard", "green sea turtle", "honey bee", "giant panda", "polar bear", "koala"],
    "planet": ["Mercury", "Venus", "Earth", "Mars", "Jupiter", "Saturn", "Uranus", "Neptune"],
    "note": ["A4", "C4", "E4", "G3", "D5", "F#4", "Bb3", "C5"],
    "hex": ["#FF5733", "#1E90FF", "#2ECC71", "#000000", "#FFFFFF", "#8E44AD", "#F1C40F", "#34495E"],
    "ip": ["192.168.1.10", "10.0.0.25", "172.16.5.4", "8.8.8.8", "203.0.113.7", "198.51.100.23"],
    "cidr": ["192.168.1.0/24", "10.0.0.0/16", "172.16.0.0/20", "10.10.8.0/22", "192.168.100.0/26"],
    "semver": ["1.4.2", "2.0.0", "0.9.13", "3.11.1", "1.0.0-beta", "4.2.7", "10.1.0"],
    "binary": ["101101", "11110000", "1001", "1111111", "100000", "1010101"],
    "email": ["anna.kowalski@example.com", "ben.tanaka@acme.io", "info@northwind.dev", "sales@example.org",
              "grace.chen@mail.example.org", "no-reply@shop.example.com"],
    "url": ["https://example.com/docs/start", "https://acme.io/pricing?plan=pro", "http://northwind.dev/a/b",
            "https://blog.example.org/2025/05/post-title", "https://shop.example.com/item/4411#reviews"],
    "person": [f"{a} {b}" for a, b in zip(V.FIRST, V.LAST * 2)],
    "team": ["Lakers", "Celtics", "Yankees", "Dodgers", "Arsenal", "Chelsea", "Bayern Munich", "Chiefs", "Eagles",
             "Warriors", "Real Madrid", "Juventus"],
    "food": ["banana", "brown rice", "chicken breast", "avocado", "oatmeal", "salmon", "almonds", "lentils", "apple",
             "broccoli", "tofu", "greek yogurt"],
    "drug": ["ibuprofen", "paracetamol", "amoxicillin", "metformin", "lisinopril", "cetirizine", "omeprazole"],
    "crop": ["wheat", "corn", "soybeans", "rice", "potatoes", "barley", "tomatoes", "coffee"],
    "currency": [c for c, _ in V.CURRENCIES],
    "ticker": [t for t, _ in V.TICKERS],
    "language": [n for _, n in V.LANGUAGES],
    "timezone": ["Europe/Paris", "America/New_York", "Asia/Tokyo", "Europe/London", "Australia/Sydney",
                 "America/Los_Angeles", "Asia/Kolkata", "America/Sao_Paulo"],
    "color_band": ["brown", "black", "red", "orange", "yellow", "green", "blue", "violet", "gold"],
    "mineral": ["quartz", "feldspar", "calcite", "mica", "talc", "gypsum", "diamond", "topaz"],
    "gene": ["BRCA1", "TP53", "CFTR", "APOE", "HBB", "EGFR", "MTHFR"],
    "sport": ["basketball", "soccer", "baseball", "tennis", "cycling", "swimming", "running", "hockey"],
    "instrument": ["piano", "guitar", "violin", "flute", "trumpet", "cello", "drums"],
    "file": ["report.pdf", "data/sales_2025.csv", "notes.txt", "images/logo.png", "src/main.py", "config.yaml"],
    "json": ['{"a": 1, "b": [2, 3]}', '{"name": "Ana", "age": 31}', '[1, 2, 3]', '{"ok": true}'],
    "expr": ["x**2 + 3*x", "sin(x)", "x**3 - 2*x", "exp(x)", "1/(1 + x**2)", "3*x + 7", "x*log(x + 1)",
             "cos(x)**2"],
    "pattern": [r"\d+", r"[A-Z]\w+", r"^\s+", r"\b\w{5}\b", r"[aeiou]"],
    "sql_table": ["orders", "customers", "invoices", "events", "products", "employees"],
    "material": ["steel", "aluminium", "copper", "concrete", "oak", "glass", "titanium"],
    "fabric": ["cotton", "linen", "wool", "silk", "polyester", "denim"],
    "grade": ["A", "A-", "B+", "B", "B-", "C+", "C", "D", "F"],
    "blood_type": ["A+", "A-", "B+", "B-", "AB+", "AB-", "O+", "O-"],
    "zodiac": ["Aries", "Taurus", "Gemini", "Cancer", "Leo", "Virgo", "Libra", "Scorpio"],
    "star": ["Sirius", "Betelgeuse", "Vega", "Polaris", "Rigel", "Proxima Centauri", "Arcturus"],
    "chess_opening": ["Sicilian Defense", "Queen's Gambit", "Ruy Lopez", "French Defense", "King's Indian Defense"],
    "dog_breed": ["labrador", "beagle", "poodle", "german shepherd", "bulldog", "dachshund", "border collie"],
    "plant": ["tomato", "basil", "rose", "lavender", "fern", "orchid", "cactus", "mint"],
}
QUOTED = {"text", "json", "pattern", "expr"}


def surface(pool: str, s: str) -> Value:
    """How a user writes a pool value: the special pools draw their own values; free text goes in quotes."""
    if pool in QUOTED:
        return Value(s, f'"{s}"', (f"'{s}'",))
    if pool in ("word", "city", "country", "element", "species", "planet", "food", "crop", "plant", "dog_breed"):
        return Value(s, s, (s.lower(),) if s.lower() != s else (s.capitalize(),))
    return Value(s, s)


def _date(rng: random.Random) -> Value:
    return V.date(rng, years=(2020, 2027))


def _point(rng: random.Random) -> Value:
    x, y = rng.randint(-20, 20), rng.randint(-20, 20)
    return Value({"x": x, "y": y}, f"({x}, {y})", (f"x={x}, y={y}",))


def _points(rng: random.Random) -> Value:
    pts = [_point(rng) for _ in range(rng.randint(3, 4))]
    text = ", ".join(p.text for p in pts)
    return Value([p.value for p in pts], text, (f"[{text}]",))


def _coord(rng: random.Random) -> Value:
    lat, lon = round(rng.uniform(-60, 70), 4), round(rng.uniform(-170, 170), 4)
    return Value({"lat": lat, "lon": lon}, f"({lat}, {lon})", (f"latitude {lat}, longitude {lon}",))


def _matrix(rng: random.Random) -> Value:
    n = rng.choice([2, 2, 3])
    rows = [[rng.randint(-9, 9) for _ in range(n)] for _ in range(n)]
    return Value(rows, str(rows), ("; ".join(" ".join(str(x) for x in r) for r in rows),))


def _vector(rng: random.Random) -> Value:
    v = [rng.randint(-10, 10) for _ in range(3)]
    return Value(v, str(v), (", ".join(map(str, v)),))


def _items(rng: random.Random) -> Value:
    names = rng.sample(["notebook", "pen", "coffee", "bagel", "headphones", "charger", "mug", "t-shirt", "socks",
                        "water bottle"], rng.randint(2, 3))
    items = [{"name": n, "price": round(rng.randint(1, 60) + rng.choice([0, 0.5, 0.99]), 2),
              "quantity": rng.randint(1, 4)} for n in names]
    text = ", ".join(f"{i['quantity']} {i['name']} at ${i['price']:g}" for i in items)
    return Value(items, text)


def _dims(rng: random.Random) -> Value:
    l, w, h = rng.randint(5, 120), rng.randint(5, 80), rng.randint(2, 60)
    return Value({"length": l, "width": w, "height": h}, f"{l} x {w} x {h}", (f"{l} by {w} by {h}",))


_NUM = {"type": "number"}
OBJECTS: dict[str, tuple[dict, object]] = {
    "point": ({"type": "object", "properties": {"x": _NUM, "y": _NUM}, "required": ["x", "y"]}, _point),
    "points": ({"type": "array", "items": {"type": "object", "properties": {"x": _NUM, "y": _NUM},
                                           "required": ["x", "y"]}}, _points),
    "coord": ({"type": "object", "properties": {"lat": _NUM, "lon": _NUM}, "required": ["lat", "lon"]}, _coord),
    "matrix": ({"type": "array", "items": {"type": "array", "items": _NUM}}, _matrix),
    "vector": ({"type": "array", "items": _NUM}, _vector),
    "items": ({"type": "array", "items": {"type": "object", "properties": {
        "name": {"type": "string"}, "price": _NUM, "quantity": {"type": "integer"}},
        "required": ["name", "price", "quantity"]}}, _items),
    "dims": ({"type": "object", "properties": {"length": _NUM, "width": _NUM, "height": _NUM},
              "required": ["length", "width", "height"]}, _dims),
    "date": ({"type": "string", "description": "YYYY-MM-DD"}, _date),
    "time": ({"type": "string", "description": "HH:MM, 24-hour"}, lambda rng: V.clock(rng)),
    **{kind: MAPS[kind] for kind in ("scores", "votes", "cart", "expenses")},  # maps: keys from the request
}

DESCRIPTIONS = {
    "std_dev": "Standard deviation", "n": "A non-negative integer", "k": "How many items are chosen", "a": "First number", "b": "Second number",
    "x": "The input value", "base": "Length of the base", "height": "Height", "radius": "Radius",
    "numbers": "The list of numbers", "values": "The data values", "text": "The input text",
    "precision": "Number of decimal places in the result", "unit": "Unit of the lengths given",
    "rate_percent": "Annual interest rate in percent", "principal": "Initial amount of money",
    "start_date": "First date (YYYY-MM-DD)", "end_date": "Second date (YYYY-MM-DD)", "date": "Date (YYYY-MM-DD)",
}

MODULES = {  # domain -> module name for the module.function style (the domain itself when absent)
    "arithmetic": "math", "number_theory": "math", "combinatorics": "math", "algebra": "algebra",
    "calculus": "calculus", "linear_algebra": "linalg", "trigonometry": "trig", "geometry_2d": "geometry",
    "geometry_3d": "geometry", "coordinate_geometry": "geometry", "sequences": "math", "probability": "probability",
    "statistics": "stats", "kinematics": "physics", "dynamics": "physics", "energy_work": "physics",
    "electricity": "circuit", "optics": "optics", "thermodynamics": "thermo", "waves_sound": "acoustics",
    "fluids": "fluid", "gravitation": "physics", "nuclear_physics": "nuclear", "chemistry": "chem",
    "gas_laws": "chem", "solutions": "chem", "genetics": "genetics", "ecology": "ecology", "epidemiology": "epi",
    "pharmacology": "pharma", "health_metrics": "health", "personal_finance": "finance", "loans": "loan",
    "investing": "invest", "corporate_finance": "corpfin", "accounting": "accounting", "tax": "tax",
    "real_estate": "realestate", "economics": "econ", "unit_conversion": "units", "date_math": "dates",
    "text_analysis": "text", "string_utils": "strings", "encoding": "codec", "data_lists": "lists",
    "networking": "net", "computing": "cs", "astronomy": "astro", "earth_science": "geo",
    "geography": "geo", "sports_stats": "sports", "education": "edu", "surveys": "survey",
    "logistics": "logistics", "construction": "build", "cooking": "kitchen", "electrical_engineering": "ee",
    "music_theory": "music", "photography": "photo", "color": "color", "environment": "env",
}
