def slugify(text):
    """Lowercase, words joined by single dashes, only [a-z0-9-]."""
    return "-".join(text.lower().split())
