import os
import sys


def main(paths):
    missing = [p for p in paths if not os.path.exists(p)]
    for p in missing:
        print(f"{p}: not found")
    return 0


if __name__ == "__main__":
    main(sys.argv[1:])
