from pathlib import Path


def write_text(path, text):
    Path(path).write_text(text)
