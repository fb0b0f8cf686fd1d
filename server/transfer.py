"""The game log as files: CSV (one row per city, for spreadsheets) and JSON (every game in
full, for backups and moving to another phone's server). Photos stay on the server."""
from __future__ import annotations

import csv
import io

from .records import GameError, build_game

EXPORT_FORMAT = "citycam-games"
CSV_COLUMNS = ["game_id", "date", "mode", "variant", "rules", "player", "rank", "total", "target",
               "won", "red", "yellow", "green", "blue", "black", "rule_points", "pieces", "notes"]


def export_json(games: list[dict]) -> dict:
    return {"format": EXPORT_FORMAT, "version": 1, "games": games}


def export_csv(games: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for game in games:
        won = "" if game["won"] is None else ("yes" if game["won"] else "no")
        for p in game["players"]:
            base = p["score"]["base"]
            writer.writerow([game["id"], game["date"], game["mode"], game["variant"], " ".join(game["rules"]),
                             p["player"], p["rank"] or "", p["total"], game["target"], won,
                             *(base[c] for c in ("red", "yellow", "green", "blue", "black")),
                             sum(r["points"] for r in p["score"]["rules"]), len(p["city"]["pieces"]),
                             game["notes"]])
    return out.getvalue()


def records_from_export(body, photo_exists) -> list[dict]:
    """Checked, re-scored game records from an export file; raises :class:`GameError` naming
    the first bad game. Photos the file names but this server lacks are dropped."""
    if not isinstance(body, dict) or body.get("format") != EXPORT_FORMAT or not isinstance(body.get("games"), list):
        raise GameError("this is not a citycam export (expected {\"format\": \"citycam-games\", \"games\": [...]})")
    records = []
    for k, game in enumerate(body["games"], 1):
        try:
            records.append(build_game(_as_posted(game, photo_exists), photo_exists))
        except GameError as exc:
            raise GameError(f"game {k} of the file: {exc}") from None
    return records


def _as_posted(game, photo_exists) -> dict:
    if not isinstance(game, dict):
        raise GameError("each game must be an object")
    players = game.get("players")
    if not isinstance(players, list):
        raise GameError("missing field 'players'")
    entries = [{**p, "photo": p.get("photo") if photo_exists(p.get("photo")) else None}
               if isinstance(p, dict) else p for p in players]
    return {"players": entries, **{k: game.get(k) for k in ("uid", "date", "saved_at", "notes")}}
