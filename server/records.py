"""Turn a posted game (one city, or one per player) into a checked, scored game record.

The server always scores cities itself with ``scorer``; a ``score`` sent by the client is
not trusted (the stored sheet is what the scorer says about the stored city).
"""
from __future__ import annotations

import datetime as dt
import uuid

from scorer import CityError, parse_city, rank_players, score


class GameError(ValueError):
    """The posted game cannot be saved; the message says why, in plain words."""


MAX_NOTES = 2000
MAX_NAME = 60


def build_game(body, photo_exists) -> dict:
    """Check and score a posted game; returns the record :func:`games.save_game` stores.

    ``body``: ``{"city": {...}, "detected"?, "photo"?, "player"?, "notes"?, "date"?}`` for
    one city, or ``{"players": [{"player", "city", "detected"?, "photo"?}, ...], ...}`` for
    a competitive game. Imports also carry ``uid`` and ``saved_at``.
    ``photo_exists(name)`` says whether a stored photo of that name exists.
    """
    if not isinstance(body, dict):
        raise GameError("the game must be a JSON object with a 'city'")
    if "players" in body:
        entries = body["players"]
        if not isinstance(entries, list) or not entries:
            raise GameError("'players' must be a non-empty list of {player, city}")
    elif "city" in body:
        entries = [{k: body[k] for k in ("city", "detected", "photo", "player") if k in body}]
    else:
        raise GameError("missing field 'city': the game needs the city to save")
    cities = [_build_city(k, entry, photo_exists) for k, entry in enumerate(entries, 1)]
    first = cities[0]["parsed"]
    for c in cities[1:]:
        if (c["parsed"].variant, c["parsed"].rules) != (first.variant, first.rules):
            raise GameError("all players' cities must use the same variant and rules")
    if len(cities) > 1:
        _rank(cities, list(first.rules))
    sheet = cities[0]["score"]
    competitive = len(cities) > 1
    return {
        "uid": _text(body, "uid", 64) or uuid.uuid4().hex,
        "date": _date(body.get("date")),
        "saved_at": _text(body, "saved_at", 40) or dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "mode": "competitive" if competitive else "solo",
        "variant": first.variant,
        "rules": list(first.rules),
        "notes": _text(body, "notes", MAX_NOTES),
        "target": sheet["target"],
        "total": max(c["total"] for c in cities),
        "won": None if competitive else sheet["won"],
        "players": [{k: v for k, v in c.items() if k != "parsed"} for c in cities],
    }


def _build_city(k: int, entry, photo_exists) -> dict:
    if not isinstance(entry, dict) or "city" not in entry:
        raise GameError(f"player {k}: missing field 'city'")
    try:
        city = parse_city(entry["city"])
    except CityError as exc:
        raise GameError(f"player {k}: {exc}") from None
    detected = entry.get("detected")
    if detected is not None and not isinstance(detected, dict):
        raise GameError(f"player {k}: 'detected' must be the detection object or null")
    photo = entry.get("photo")
    if photo is not None and (not isinstance(photo, str) or not photo_exists(photo)):
        raise GameError(f"player {k}: photo {photo!r} is not on the server; upload it again")
    sheet = score(city).to_json()
    return {"player": _text(entry, "player", MAX_NAME) or (city.player or ""),
            "city": city.to_json(), "detected": detected, "photo": photo,
            "score": sheet, "total": sheet["total"], "rank": None, "parsed": city}


def _rank(cities: list[dict], rules: list[str]) -> None:
    names = [c["player"] for c in cities]
    if not all(names) or len(set(names)) != len(names):
        raise GameError("each player of a competitive game needs a different name")
    ranks = {r["player"]: r["rank"] for r in rank_players({c["player"]: c["parsed"] for c in cities}, rules)}
    for c in cities:
        c["rank"] = ranks[c["player"]]


def _text(body: dict, key: str, limit: int) -> str:
    value = body.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise GameError(f"'{key}' must be text")
    value = value.strip()
    if len(value) > limit:
        raise GameError(f"'{key}' is too long (at most {limit} characters)")
    return value


def _date(value) -> str:
    if value in (None, ""):
        return dt.date.today().isoformat()
    try:
        return dt.date.fromisoformat(value).isoformat()
    except (TypeError, ValueError):
        raise GameError(f"'date' must be a date like 2026-05-31, not {value!r}") from None
