import os


def find_files(folder, ext):
    return sorted(n for n in os.listdir(folder) if n.endswith(ext))
