import json

DEFAULTS = {"theme": "light", "font_size": 12}


def load_config(path):
    with open(path) as f:
        return json.load(f)
