SMALL = {"a", "an", "the", "of", "and", "in", "on"}


def title_case(text):
    return " ".join(w.capitalize() for w in text.split())
