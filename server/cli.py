"""The ``citycam`` command line: score, rules, detect, calibrate, serve.

Every failure the user can cause ends with exit status 2 and one line on stderr, never a
traceback. Heavy modules are imported by the subcommand that needs them.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit status 2."""


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args) or 0
    except UsageError as exc:
        print(f"citycam: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="citycam", description="Read, check and score Zoning Out cities.")
    sub = parser.add_subparsers(required=True, metavar="COMMAND")

    p = sub.add_parser("score", help="score one city (or rank several players' cities)")
    p.add_argument("cities", nargs="+", metavar="CITY.json")
    p.add_argument("--rules", help="comma-separated rule ids, overriding the file's rules")
    p.add_argument("--json", action="store_true", help="print the score as JSON")
    p.set_defaults(run=_score)

    p = sub.add_parser("rules", help="list the special scoring rules")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=_rules)
    return parser


def _read_city(path: str):
    from scorer import CityError, parse_city

    try:
        text = Path(path).read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return parse_city(text)
    except CityError as exc:
        raise UsageError(f"{path}: {exc}") from None


def _score(args) -> int:
    from scorer import CityError, format_ranking, format_sheet, rank_players, score

    cities = [_read_city(path) for path in args.cities]
    rules = None if args.rules is None else [r.strip() for r in args.rules.split(",") if r.strip()]
    try:
        if len(cities) == 1:
            sheet = score(cities[0], rules)
            print(json.dumps(sheet.to_json()) if args.json else format_sheet(sheet))
            return 0
        players = {}
        for path, city in zip(args.cities, cities):
            name = city.player or Path(path).stem
            if name in players:
                raise UsageError(f"two cities belong to player {name!r}; give each a distinct 'player'")
            players[name] = city
        rules = rules if rules is not None else list(cities[0].rules)
        ranked = rank_players(players, rules)
    except CityError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps({"players": [{"player": r["player"], "rank": r["rank"], **r["sheet"].to_json()}
                                      for r in ranked]}))
    else:
        print(format_ranking(ranked))
    return 0


def _rules(args) -> int:
    from scorer import rules_json

    rules = rules_json()
    if args.json:
        print(json.dumps(rules))
        return 0
    for r in rules:
        print(f"{r['id']:<28} {r['name']:<28} target {r['target']:>3}\n    {r['text']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
