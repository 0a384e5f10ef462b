def parse_query(qs):
    out = {}
    for pair in qs.split("&"):
        if pair:
            k, _, v = pair.partition("=")
            out[k] = v
    return out
