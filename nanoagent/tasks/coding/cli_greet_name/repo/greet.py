import argparse


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--name", default="world")
    args = parser.parse_args(argv)
    name = getattr(args, "user", None)
    print(f"Hello, {name}!")


if __name__ == "__main__":
    main()
