import re


def is_valid_email(s):
    return re.fullmatch(r"\w+@\w+(\.\w+)?", s) is not None
