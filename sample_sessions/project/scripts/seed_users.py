"""Seed a development database with a few users."""

import argparse
import json
import os.path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fixtures", default="fixtures")
    args = parser.parse_args()
    path = os.path.join(args.fixtures, "users.json")
    users = json.load(open(path))
    print(f"seeding {len(users)} users")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
