"""The ``citycam`` command line: score, rules, detect, calibrate, serve.

Every failure the user can cause ends with exit status 2 and one line on stderr, never a
traceback. Heavy modules are imported by the subcommand that needs them.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from scorer.city import TRIOS_PER_COLOR


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
    except BrokenPipeError:  # whoever read the output stopped reading (``citycam detect ... | head``)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so that the exit's flush is quiet
        return 1


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

    p = sub.add_parser("detect", help="read the city in a photo")
    p.add_argument("photo", metavar="PHOTO")
    p.add_argument("--profile", help="profile name or file (default: the bundled default)")
    p.add_argument("--rules", help="comma-separated ids of the rules in play, for the legality checks and the "
                   "reading (no stack read from hints alone without mixed-use-development, touching larges "
                   "read more readily with canadian-style)")
    p.add_argument("--variant", choices=sorted(TRIOS_PER_COLOR),
                   help="the set played with, for the legality checks and the reading (default: not known, "
                   "the city read as either set and checked as a standard one)")
    p.add_argument("--json", action="store_true", help="print the city as JSON")
    p.add_argument("--overlay", metavar="OUT.jpg", help="write the photo with what was read drawn on it")
    p.set_defaults(run=_detect)

    p = sub.add_parser("calibrate", help="build a profile from a photo of the calibration layout")
    p.add_argument("photo", metavar="PHOTO")
    p.add_argument("--out", required=True, metavar="NAME", help="profile name (bundled) or .json file")
    p.add_argument("--profile", help="profile to start from (default: the bundled default)")
    p.set_defaults(run=_calibrate)

    p = sub.add_parser("serve", help="run the phone site")
    p.add_argument("--host", default="0.0.0.0")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--profile", help="profile name or file to read the phone's photos with (default: the bundled "
                                     "default), such as one `citycam calibrate` made; a calibration made on the "
                                     "phone's /calibrate page comes first, and starts from this one")
    p.set_defaults(run=_serve)
    return parser


def _read_bytes(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None


def _read_city(path: str):
    from scorer import CityError, parse_city

    text = _read_bytes(path)
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


def _split_rules(text: str | None) -> list[str]:
    return [] if not text else [r.strip() for r in text.split(",") if r.strip()]


def _profile(name):
    from calibration import ProfileError, load_profile

    try:
        return load_profile(name)
    except ProfileError as exc:
        raise UsageError(str(exc)) from None


def _read_photo(path: str, profile):
    import vision

    data = _read_bytes(path)
    try:
        return vision.load_photo(data, profile.working_side)
    except vision.VisionError as exc:
        raise UsageError(f"{path}: {exc}") from None


def _detect(args) -> int:
    import vision
    from scorer import CityError
    from scorer.city import parse_rule_ids

    profile = _profile(args.profile)
    try:
        rules = list(parse_rule_ids(_split_rules(args.rules)))
    except CityError as exc:
        raise UsageError(str(exc)) from None
    data = _read_bytes(args.photo)
    try:
        rgb, detection = vision.read_photo(data, profile, None if args.rules is None else rules, args.variant)
    except vision.VisionError as exc:
        raise UsageError(f"{args.photo}: {exc}") from None
    if args.overlay:
        _write_overlay(args.overlay, vision.draw_overlay(rgb, detection, rules, profile.max_uncertain_confidence))
    out = detection.to_json(rules, args.variant or "standard")
    if args.json:
        print(json.dumps(out))
    else:
        print(_city_map(out))
    return 0


def _write_overlay(path: str, rgb) -> None:
    import cv2

    ok = cv2.imwrite(path, cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))
    if not ok:
        raise UsageError(f"cannot write the overlay to {path} (use a .jpg or .png name in a folder that exists)")


def _city_map(detected: dict) -> str:
    """The detected city as a text map (R3 = large red, R3/B1 = a small blue stacked on it)."""
    from scorer import COLORS

    cells: dict[tuple[int, int], str] = {}
    for p in detected["pieces"]:
        token = "RYGBK"[COLORS.index(p["color"])] + str(p["size"])
        key = (p["row"], p["col"])
        cells[key] = cells[key] + "/" + token if key in cells else token
    rows = 1 + max((r for r, _ in cells), default=-1)
    cols = 1 + max((c for _, c in cells), default=-1)
    width = max((len(t) for t in cells.values()), default=2)
    lines = [" ".join(cells.get((r, c), ".").ljust(width) for c in range(cols)).rstrip() for r in range(rows)]
    lines.append(f"{len(detected['pieces'])} pieces")
    lines += [f"illegal: {i['message']}" for i in detected["illegal"]]
    lines += [f"warning: {w}" for w in detected["warnings"]]
    lines += [f"check: row {r}, col {c} was read empty, but a piece may stand there" for r, c in detected["doubtful_empty"]]
    return "\n".join(lines)


def _calibrate(args) -> int:
    from calibration import ProfileError
    from calibration.calibrate import calibrate_from_photo

    profile = _profile(args.profile)
    rgb = _read_photo(args.photo, profile)
    try:
        path, report = calibrate_from_photo(rgb, profile, args.out)
    except ProfileError as exc:
        raise UsageError(str(exc)) from None
    print(report)
    print(f"profile written to {path}; use it with --profile {args.out}")
    return 0


def _serve(args) -> int:
    from .serving import serve

    if args.profile is not None:
        _profile(args.profile)  # a profile that does not load stops the site before it starts
    serve(args.host, args.port, args.profile)
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
