def deep_merge(base, extra):
    result = dict(base)
    result.update(extra)
    return result
