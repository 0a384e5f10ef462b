import argparse


def main(argv=None):
    parser = argparse.ArgumentParser(description="Add numbers.")
    parser.add_argument("numbers", nargs="+")
    args = parser.parse_args(argv)
    total = "".join(args.numbers)
    print(total)


if __name__ == "__main__":
    main()
