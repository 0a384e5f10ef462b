"""Tool results and the short answers that use them.

`tool_result(tool, args, rng)` returns the JSON object a tool would send back: computed for the math, science,
unit and currency tools (so the answer is right), drawn from value kinds for the rest (a `get` returns the
entity's fields, a `search`/`list` a few items, a `create` an id and a status), and now and then an error the
assistant must report. `answer(tool, args, result, rng)` writes the final reply from that result: one or two short
sentences that quote the numbers the tool returned (shorter responses train better for a 135M model).

Run: imported by data_recipes.synthetic.kinds.
Left out: results that depend on earlier calls in the same conversation (each call is answered on its own).
"""

from __future__ import annotations

import json
import math
import random
import statistics

from data_recipes.synthetic import values as V
from data_recipes.synthetic.library import computed
from data_recipes.synthetic.phrasing import cap, end

_POOLS = {
    "condition": ["sunny", "partly cloudy", "light rain", "overcast", "thunderstorms", "snow showers", "clear", "windy"],
    "pollutant": ["PM2.5", "ozone", "NO2", "PM10"], "aqi_level": ["low", "moderate", "high"],
    "alert": ["Heat advisory", "Flood watch", "High wind warning", "Winter storm warning"],
    "severity": ["minor", "moderate", "severe"], "sector": ["Technology", "Consumer goods", "Finance", "Energy"],
    "headline": ["Markets rally after rate decision", "New battery breakthrough announced", "Record heat in Europe",
                 "Tech earnings beat expectations", "City unveils new transit plan", "Scientists map deep ocean"],
    "source": ["Reuters", "AP", "BBC", "Bloomberg", "The Guardian"], "order_status": ["pending", "shipped", "filled"],
    "merchant": ["Grocery Mart", "City Cafe", "Metro Transit", "Bookshop", "Power Co."],
    "pay_status": ["sent", "paid", "pending"], "card_status": ["frozen", "active"], "quarter": ["Q1", "Q2", "Q3", "Q4"],
    "category": ["groceries", "dining", "travel", "utilities"], "booking_status": ["confirmed", "cancelled"],
    "flight_status": ["on time", "delayed", "boarding", "landed"], "gate": ["A12", "B7", "C3", "D21", "E5"],
    "airline": ["Lufthansa", "Air France", "Delta", "KLM", "ANA", "Qantas"],
    "hotel": ["Hotel Aurora", "The Grand Plaza", "Seaside Inn", "Park Lane Suites", "Maison Bleue", "City Loft"],
    "review": ["great location, small rooms", "friendly staff", "noisy at night", "excellent breakfast",
               "clean and quiet"],
    "car": ["Toyota Corolla", "VW Golf", "Ford Explorer", "Tesla Model 3", "Fiat 500"], "seat": ["12A", "4C", "21F"],
    "train": ["ICE 578", "TGV 6201", "Eurostar 9014", "IC 2045"], "bus_line": ["12", "N5", "42X", "7"],
    "task_status": ["open", "in_progress", "done"], "title": V.TITLES, "product": [q.title() for q in V.QUERIES],
    "store": ["Corner Market", "TechHub", "GreenGrocer", "City Hardware"], "route": ["via the A1", "via Main St"],
    "place_name": ["Blue Door Cafe", "Central Pharmacy", "Riverside Park", "City Museum"],
    "park_name": ["Riverside Park", "Oak Hill Park", "Lakeside Gardens", "Victoria Park", "Greenway Commons"],
    "team": V.TEAMS, "score": ["2-1", "0-0", "3-2", "104-99", "24-17"], "position": ["forward", "guard", "keeper"],
    "quality": ["good", "fair", "poor"], "specialty": ["dermatology", "cardiology", "pediatrics"], "song": V.SONGS,
    "artist": V.ARTISTS, "duration": ["3:45", "4:12", "2:58", "5:03"], "music_genre": ["jazz", "rock", "pop"],
    "lyric": ["(first line withheld for copyright)"], "station": ["Jazz FM", "Rock Radio 1", "Classic 101"],
    "venue": ["Red Rocks", "the O2 Arena", "Royal Albert Hall"], "movie": V.MOVIES,
    "cinema": ["Odeon Central", "Cinema Paradiso", "AMC 12"], "services": ["Netflix", "Prime Video", "Disney+"],
    "dish": ["chickpea curry", "mushroom risotto", "lemon garlic pasta", "spinach omelette", "tofu stir-fry"],
    "wine": ["Pinot Noir", "Sauvignon Blanc", "Chianti", "Riesling"],
    "restaurant": ["Trattoria Roma", "Sakura", "La Palma", "Spice Route", "Le Petit Bistro"],
    "price_level": ["1", "2", "3"], "course": ["Intro to Python", "Data Visualization", "Spanish for Beginners"],
    "provider": ["OpenCourse", "Coursely", "LearnHub"], "level": ["beginner", "intermediate"],
    "grade": ["A", "B+", "B", "C"], "hvac": ["heat", "cool", "auto"], "onoff": ["on", "off"],
    "job_title": ["data analyst", "backend engineer", "designer"], "company": ["Acme", "Globex", "Initech", "Contoso"],
    "approval": ["pending", "approved"], "ship_status": ["in transit", "out for delivery", "delivered"],
    "city": [c[0] for c in V.CITIES], "event_name": ["Jazz Night", "City Marathon", "Food Festival", "Comedy Gala"],
    "book": V.BOOKS, "author": V.AUTHORS, "source_file": ["src/config.py", "app/main.go", "lib/retry.js"],
    "commit_msg": ["Fix flaky test", "Add retry logic", "Bump dependencies", "Refactor parser"],
    "branch": V.BRANCHES, "ip": ["93.184.216.34", "151.101.1.69", "140.82.112.3"],
    "version": ["2.32.3", "1.26.4", "18.3.1", "4.17.21"], "license": ["MIT", "Apache-2.0", "BSD-3-Clause"],
    "pr_state": ["open", "merged"], "ci_state": ["passed", "failed", "running"], "lang_code": ["en", "fr", "de", "es"],
    "sent_status": ["delivered", "queued"], "rsvp": ["sent"], "element": ["iron", "gold", "oxygen", "carbon"],
    "folder": V.FOLDERS, "filename": ["report.pdf", "notes.txt", "photo_0412.jpg", "budget.xlsx"],
    "street": V.STREETS, "tz": ["Europe/Paris", "Asia/Tokyo", "America/New_York"], "offset": ["+01:00", "+09:00"],
    "pollen": ["grass", "birch", "ragweed"], "holiday": ["New Year's Day", "Labour Day", "National Day"],
    "pet_name": ["Luna", "Max", "Milo"], "species": ["dog", "cat"], "podcast": ["Radiolab", "Syntax", "The Daily"],
    "game": ["Hades", "Celeste", "Civilization VI", "Portal 2"], "console": ["pc", "switch", "playstation"],
    "sunlight": ["bright indirect", "full sun", "partial shade"], "class_name": ["Spin", "Vinyasa Flow", "HIIT"],
    "vm_state": ["running", "pending", "stopped"], "bucket": ["team-backups", "site-assets"],
    "service": ["compute", "storage", "database"], "verdict": ["weak", "fair", "strong"],
    "album": ["Abbey Road", "Kind of Blue", "Rumours", "Random Access Memories", "21", "OK Computer"],
}
DEFINITIONS = {  # word -> (definition, synonyms)
    "serendipity": ("finding something good without looking for it", ["chance", "fluke", "luck"]),
    "ephemeral": ("lasting a very short time", ["fleeting", "short-lived", "brief"]),
    "resilient": ("able to recover quickly from difficulties", ["tough", "hardy", "adaptable"]),
    "ubiquitous": ("found everywhere", ["omnipresent", "pervasive", "universal"]),
    "meticulous": ("very careful and precise", ["careful", "thorough", "exact"]),
    "candid": ("truthful and straightforward", ["frank", "honest", "open"]),
    "eloquent": ("fluent and persuasive in speaking or writing", ["articulate", "expressive", "fluent"]),
    "pragmatic": ("dealing with things sensibly and realistically", ["practical", "realistic", "sensible"]),
    "ambiguous": ("open to more than one interpretation", ["unclear", "vague", "equivocal"]),
    "benevolent": ("well meaning and kindly", ["kind", "generous", "charitable"]),
    "concise": ("giving a lot of information clearly in few words", ["brief", "succinct", "terse"]),
    "diligent": ("showing care and effort in work", ["hardworking", "industrious", "conscientious"]),
}
TRANSLATIONS = {  # text -> {language code: translation}
    "Good morning": {"fr": "Bonjour", "es": "Buenos días", "de": "Guten Morgen"},
    "Thank you very much": {"fr": "Merci beaucoup", "es": "Muchas gracias", "de": "Vielen Dank"},
    "See you tomorrow": {"fr": "À demain", "es": "Hasta mañana", "de": "Bis morgen"},
    "Happy new year": {"fr": "Bonne année", "es": "Feliz año nuevo", "de": "Frohes neues Jahr"},
    "Where is the train station?": {"fr": "Où est la gare ?", "es": "¿Dónde está la estación de tren?",
                                    "de": "Wo ist der Bahnhof?"},
    "How much does this cost?": {"fr": "Combien ça coûte ?", "es": "¿Cuánto cuesta esto?", "de": "Wie viel kostet das?"},
}
_RANGES = {"temp": (-8, 34), "percent": (0, 100), "speed": (3, 60), "aqi": (10, 180), "uv": (0, 11),
           "count": (1, 40), "year": (1950, 2025), "change": None, "rating": None, "price": None}


def draw(kind: str, rng: random.Random):
    """One value of a result field's kind."""
    if kind in _POOLS:
        return V.pick(rng, _POOLS[kind])
    if kind in ("temp", "percent", "speed", "aqi", "uv", "count", "year"):
        return rng.randint(*_RANGES[kind])
    if kind in ("price", "money"):
        return V.money(rng, 5, 900).value
    if kind == "rating":
        return round(rng.uniform(3.2, 4.9), 1)
    if kind == "change":
        return round(rng.uniform(-5, 5), 2)
    if kind in ("rate", "number"):
        return round(rng.uniform(0.5, 150), 2)
    if kind == "crypto_amount":
        return round(rng.uniform(0.01, 12), 4)
    if kind == "distance":
        return round(rng.uniform(0.2, 30), 1)
    if kind == "bool":
        return rng.random() < 0.6
    if kind in ("time", "date"):
        return (V.clock if kind == "time" else V.date)(rng).value
    if kind == "id":
        return V.code_id(rng.choice(["ID", "REF", "CONF"]))(rng).value
    if kind == "currency":
        return V.currency(rng).value
    if kind in ("person", "email", "phone"):
        return {"person": V.person, "email": V.email, "phone": V.phone}[kind](rng).value
    if kind in ("url",):
        return f"https://example.com/{rng.randrange(10**5, 10**6)}"
    if kind in ("lat", "lon"):
        return round(rng.uniform(-60, 60), 4)
    if kind == "sha":
        return "".join(rng.choice("0123456789abcdef") for _ in range(7))
    if kind == "salary":
        return rng.randrange(40, 180) * 1000
    if kind in ("hours",):
        return "09:00-18:00"
    if kind == "flight":
        return f"{V.pick(rng, ['BA', 'LH', 'AF', 'UA', 'DL', 'KL'])}{rng.randint(10, 2999)}"
    if kind == "definition":
        return V.pick(rng, [d for d, _ in DEFINITIONS.values()])
    if kind == "synonym":
        return V.pick(rng, [w for _, ws in DEFINITIONS.values() for w in ws])
    if kind == "seat":
        return f"{rng.randint(1, 30)}{rng.choice('ABCDEF')}"
    raise KeyError(f"no generator for result kind {kind!r}; add it to data_recipes/synthetic/results.py")


def _convert(args: dict, table: dict) -> float:
    return args["value"] * table[args[next(k for k in args if k.endswith("_from"))]] / \
        table[args[next(k for k in args if k.endswith("_to"))]]


_LEN = {"m": 1, "km": 1000, "mi": 1609.344, "ft": 0.3048, "in": 0.0254, "cm": 0.01}
_MASS = {"kg": 1, "g": 0.001, "lb": 0.45359237, "oz": 0.028349523}
_VOL = {"l": 1, "ml": 0.001, "gal": 3.785411784, "cup": 0.2365882365}
_SPEED = {"kmh": 1, "mph": 1.609344, "ms": 3.6, "kn": 1.852}
_DATA = {"KB": 1e-3, "MB": 1, "GB": 1e3, "TB": 1e6}


def _temp(a):
    c = {"celsius": lambda x: x, "fahrenheit": lambda x: (x - 32) * 5 / 9, "kelvin": lambda x: x - 273.15}
    to = {"celsius": lambda x: x, "fahrenheit": lambda x: x * 9 / 5 + 32, "kelvin": lambda x: x + 273.15}
    return to[a["temp_to"]](c[a["temp_from"]](a["value"]))


def _quadratic(a):
    A, B, C = a["coef_a"], a["coef_b"], a["coef_c"]
    d = B * B - 4 * A * C
    if d < 0:
        return []
    return sorted({round((-B + s * math.sqrt(d)) / (2 * A), 4) for s in (1, -1)})


def _loan(a):
    yearly = a["interest_rate"] if "interest_rate" in a else a["annual_rate"] / 100  # a fraction, or a percent
    r, n = yearly / 12, a["years"] * 12
    return a["principal"] / n if r == 0 else a["principal"] * r / (1 - (1 + r) ** -n)


COMPUTED = {  # tool name -> function of args -> result value (exact answers for deterministic tools)
    "convert_length": lambda a: _convert(a, _LEN), "convert_weight": lambda a: _convert(a, _MASS),
    "convert_volume": lambda a: _convert(a, _VOL), "convert_speed": lambda a: _convert(a, _SPEED),
    "convert_data_size": lambda a: _convert(a, _DATA), "convert_temperature": _temp,
    "calculate_factorial": lambda a: math.factorial(a["n"]), "calculate_gcd": lambda a: math.gcd(a["a"], a["b"]),
    "calculate_lcm": lambda a: a["a"] * a["b"] // math.gcd(a["a"], a["b"]),
    "check_prime": lambda a: a["number"] > 1 and all(a["number"] % k for k in range(2, int(a["number"] ** .5) + 1)),
    "solve_quadratic": _quadratic, "calculate_percentage": lambda a: 100 * a["part"] / a["whole"],
    "calculate_compound_interest": lambda a: a["principal"] * (1 + a["annual_rate"] / 100 / a.get(
        "compounds_per_year", 12)) ** (a.get("compounds_per_year", 12) * a["years"]),
    "calculate_loan_payment": _loan, "estimate_mortgage": _loan,
    "calculate_triangle_area": lambda a: a["base"] * a["height"] / 2,
    "calculate_circle_area": lambda a: math.pi * a["radius"] ** 2,
    "calculate_sphere_volume": lambda a: 4 / 3 * math.pi * a["radius"] ** 3,
    "calculate_hypotenuse": lambda a: math.hypot(a["side_a"], a["side_b"]),
    "calculate_mean": lambda a: statistics.mean(a["numbers"]), "calculate_median": lambda a: statistics.median(a["numbers"]),
    "calculate_standard_deviation": lambda a: statistics.pstdev(a["numbers"]),
    "calculate_bmi": lambda a: a["weight_kg"] / (a["height_cm"] / 100) ** 2,
    "calculate_kinetic_energy": lambda a: 0.5 * a["mass_kg"] * a["velocity"] ** 2,
    "calculate_density": lambda a: a["mass_kg"] / a["volume_m3"],
    "calculate_projectile_range": lambda a: a["velocity"] ** 2 * math.sin(math.radians(2 * a["angle_deg"])) / 9.81,
    "calculate_running_pace": lambda a: a["duration_minutes"] / a["distance_km"],
    "calculate_fuel_cost": lambda a: a["distance_km"] * a["fuel_efficiency"] / 100 * a["fuel_price_per_litre"],
    "build_identity_matrix": lambda a: [[int(i == j) for j in range(a["matrix_size"]["cols"])]
                                        for i in range(a["matrix_size"]["rows"])],
}


def _sig(x):
    """A computed value as a user reads it: floats to 4 significant digits, whole floats as integers."""
    if isinstance(x, float):
        x = float(f"{x:.4g}")
        return int(x) if x == int(x) and abs(x) < 1e15 else x
    return x


def _num(x):
    if isinstance(x, float):
        x = round(x, 2)
        return int(x) if x == int(x) and abs(x) < 1e15 else x
    return x


def has_result(tool) -> bool:
    """Whether the source can give this tool a result: function-library tools only when they compute it exactly."""
    return tool.verb != "fn" or tool.compute is not None


def tool_result(tool, args: dict, rng: random.Random, p_error: float = 0.04) -> dict:
    if tool.verb == "fn":
        value = computed(tool, args)
        if value is None:
            raise ValueError(f"{tool.name} has no computed result; check has_result(tool) first")
        return {tool.res[0][0]: _sig(value) if not isinstance(value, list) else [_sig(v) for v in value]}
    if rng.random() < p_error and tool.verb not in ("calc",):
        return {"error": rng.choice([f"{tool.h} service is temporarily unavailable", "rate limit exceeded, retry later",
                                     f"no {tool.h} found for these arguments"])}
    key = tool.base or tool.name  # the composed name, also when the catalogue renamed the tool
    if key in COMPUTED:
        value = COMPUTED[key](args)
        out = {tool.res[0][0]: _num(value) if not isinstance(value, list) else value}
        if key == "calculate_bmi":
            bmi = value
            out["category"] = "underweight" if bmi < 18.5 else "normal" if bmi < 25 else "overweight" if bmi < 30 \
                else "obese"
        return out
    if key == "get_word_definition":
        return {"definition": DEFINITIONS[args["word"]][0]}
    if key == "list_synonyms":
        syn = DEFINITIONS[args["word"]][1][:args.get("limit", 3)]
        return {"results": [{"synonym": w} for w in syn], "count": len(syn)}
    if key == "translate_text":
        known = TRANSLATIONS.get(args["text"], {}).get(args["target_language"])
        return {"translated_text": known} if known else {"error": f"no translation available into "
                                                                  f"{args['target_language']} for this text"}
    if key == "calculate_sales_tax":
        tax = round(args["amount"] * rng.choice([0.05, 0.07, 0.1, 0.19, 0.2, 0.21]), 2)
        return {"tax": tax, "total": round(args["amount"] + tax, 2)}
    if key == "calculate_tip":
        tip = args["bill_amount"] * args.get("tip_percent", 15) / 100
        return {"tip": round(tip, 2), "per_person": round((args["bill_amount"] + tip) / args.get("split", 1), 2)}
    if key == "convert_currency":
        rate = round(rng.uniform(0.05, 20), 4)
        return {"converted_amount": round(args["amount"] * rate, 2), "rate": rate}
    if tool.verb in ("search", "list"):
        k = rng.randint(0, 3) if rng.random() < 0.1 else rng.randint(1, 3)
        items = [{f: draw(kind, rng) for f, kind in tool.res} for _ in range(k)]
        return {"results": items, "count": k}
    if tool.verb in ("create", "update", "delete"):
        status = {"create": "created", "update": "updated", "delete": "cancelled" if tool.word == "cancel" else
                  "deleted"}[tool.verb]
        if tool.word in ("book", "place", "schedule"):
            status = "confirmed"
        if tool.word in ("send", "post"):
            status = "sent"
        out = {"status": status}
        for f, kind in tool.res:
            if f != "status":
                out[f] = args[f] if f in args else draw(kind, rng)  # echo the id the call named
        return out
    return {f: args[f] if f in args else draw(kind, rng) for f, kind in tool.res}


def _fmt(v) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, list):
        return ", ".join(_fmt(x) for x in v) if v else "none"
    if isinstance(v, dict):
        return json.dumps(v)
    return str(v)


def facts(d: dict, limit: int = 3) -> str:
    pairs = [(k, v) for k, v in d.items() if k not in ("status",)][:limit]
    return ", ".join(f"{k.replace('_', ' ')} {_fmt(v)}" for k, v in pairs)


def answer(tool, args: dict, result: dict, rng: random.Random) -> str:
    """A short final reply that uses the tool's result."""
    if "error" in result:
        return rng.choice([f"Sorry, that didn't work: {result['error']}.",
                           f"The {tool.h} request failed ({result['error']}). Want me to try again?",
                           f"I couldn't get that: {result['error']}."])
    if "results" in result:
        items = result["results"]
        if not items:
            return rng.choice([f"I found no {tool.hp} matching that.", f"No {tool.hp} came up. Try wider filters?"])
        named = [f"{_fmt(list(it.values())[0])} ({facts(dict(list(it.items())[1:]), 2)})" if len(it) > 1
                 else _fmt(list(it.values())[0]) for it in items]
        lead = rng.choice([f"I found {len(items)} {tool.hp}: ", f"Here are the {tool.hp}: ", f"{cap(tool.hp)}: "])
        return cap(end(lead + "; ".join(named)))
    if "status" in result:
        extra = facts(result, 2)
        done = rng.choice(["Done", "All set", "Done!"]).rstrip("!")
        return f"{done}: the {tool.h} is {result['status']}" + (f" ({extra})." if extra else ".")
    if tool.verb == "fn":
        (_, v), = result.items()
        if isinstance(v, bool):
            return rng.choice(["Yes.", "Yes, it is."]) if v else rng.choice(["No.", "No, it isn't."])
        if tool.obj.startswith("the "):
            return end(rng.choice([f"{cap(tool.obj)} is {_fmt(v)}", f"It comes to {_fmt(v)}",
                                   f"{cap(tool.obj)} comes out at {_fmt(v)}"]))
        return end(rng.choice([f"The result is {_fmt(v)}", f"Result: {_fmt(v)}", f"Here it is: {_fmt(v)}"]))
    if tool.verb == "calc" and len(result) == 1:
        (k, v), = result.items()
        return end(rng.choice([f"The {k.replace('_', ' ')} is {_fmt(v)}", f"It comes to {_fmt(v)}", f"Result: {_fmt(v)}"]))
    return cap(end(rng.choice(["", f"{cap(tool.h)}: ", "Here you go: "]) + facts(result)))
