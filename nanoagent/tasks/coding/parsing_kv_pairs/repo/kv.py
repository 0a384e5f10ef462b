def parse_kv(text):
    result = {}
    for part in text.split(";"):
        key, value = part.split("=")
        result[key] = value
    return result
