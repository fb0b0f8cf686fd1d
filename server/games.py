"""The game log in SQLite: save, list, open, delete, statistics, export and import."""
from __future__ import annotations

import json
import sqlite3

from .db import transaction


def save_game(conn: sqlite3.Connection, record: dict) -> tuple[int, bool]:
    """Store a record from :func:`records.build_game`; returns (id, True). A game with the
    same uid already stored is kept as it is and (its id, False) returned, so a retried save
    or a re-imported file adds nothing twice."""
    with transaction(conn):
        row = conn.execute("SELECT id FROM games WHERE uid = ?", (record["uid"],)).fetchone()
        if row:
            return row["id"], False
        cur = conn.execute(
            "INSERT INTO games (uid, played_on, saved_at, mode, variant, rules, notes, target, total, won)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (record["uid"], record["date"], record["saved_at"], record["mode"], record["variant"],
             json.dumps(record["rules"]), record["notes"], record["target"], record["total"],
             None if record["won"] is None else int(record["won"])))
        game_id = cur.lastrowid
        for position, c in enumerate(record["players"]):
            conn.execute(
                "INSERT INTO cities (game_id, position, player, city, detected, score, total, rank, photo)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, position, c["player"], json.dumps(c["city"]),
                 None if c["detected"] is None else json.dumps(c["detected"]),
                 json.dumps(c["score"]), c["total"], c["rank"], c["photo"]))
    return game_id, True


def list_games(conn: sqlite3.Connection) -> list[dict]:
    """Every game, newest first, as a summary (no cities or sheets)."""
    games = conn.execute("SELECT * FROM games ORDER BY played_on DESC, id DESC").fetchall()
    players: dict[int, list] = {}
    for row in conn.execute("SELECT game_id, player, total, rank, photo FROM cities ORDER BY game_id, position"):
        players.setdefault(row["game_id"], []).append(
            {"player": row["player"], "total": row["total"], "rank": row["rank"], "photo": row["photo"]})
    return [_summary(g, players.get(g["id"], [])) for g in games]


def get_game(conn: sqlite3.Connection, game_id: int) -> dict | None:
    """One game with every city, its detection, score sheet and photo; None if unknown."""
    game = conn.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
    if game is None:
        return None
    rows = conn.execute("SELECT * FROM cities WHERE game_id = ? ORDER BY position", (game_id,)).fetchall()
    players = [{"player": r["player"], "city": json.loads(r["city"]),
                "detected": None if r["detected"] is None else json.loads(r["detected"]),
                "score": json.loads(r["score"]), "total": r["total"], "rank": r["rank"],
                "photo": r["photo"]} for r in rows]
    out = _summary(game, players)
    out.update(city=players[0]["city"], score=players[0]["score"], detected=players[0]["detected"],
               player=players[0]["player"], photo=players[0]["photo"])
    return out


def delete_game(conn: sqlite3.Connection, game_id: int) -> list[str] | None:
    """Delete a game; returns the names of its photos (to remove), or None if unknown."""
    with transaction(conn):
        photos = [r["photo"] for r in conn.execute(
            "SELECT photo FROM cities WHERE game_id = ? AND photo IS NOT NULL", (game_id,))]
        if conn.execute("DELETE FROM games WHERE id = ?", (game_id,)).rowcount == 0:
            return None
    return photos


def stored_photos(conn: sqlite3.Connection) -> set[str]:
    return {r["photo"] for r in conn.execute("SELECT photo FROM cities WHERE photo IS NOT NULL")}


def stats(conn: sqlite3.Connection, rule_names: dict[str, str]) -> dict:
    """The record of solo games (competitive games have no target to beat): wins, best and
    average totals, win rate per rule, and the points of the score-against-target chart."""
    solo = conn.execute("SELECT id, played_on, rules, total, target, won FROM games"
                        " WHERE mode = 'solo' ORDER BY played_on, id").fetchall()
    per_rule: dict[str, list[int]] = {}
    for g in solo:
        for rule in json.loads(g["rules"]):
            counts = per_rule.setdefault(rule, [0, 0])
            counts[0] += 1
            counts[1] += g["won"]
    totals = [g["total"] for g in solo]
    wins = sum(g["won"] for g in solo)
    competitive = conn.execute("SELECT COUNT(*) FROM games WHERE mode = 'competitive'").fetchone()[0]
    return {
        "games": len(solo), "wins": wins, "win_rate": _rate(wins, len(solo)),
        "best": max(totals, default=None),
        "average": round(sum(totals) / len(totals), 1) if totals else None,
        "competitive_games": competitive,
        "per_rule": [{"id": rule, "name": rule_names.get(rule, rule), "games": n, "wins": w,
                      "win_rate": _rate(w, n)}
                     for rule, (n, w) in sorted(per_rule.items(), key=lambda kv: (-kv[1][0], kv[0]))],
        "points": [{"id": g["id"], "date": g["played_on"], "total": g["total"], "target": g["target"],
                    "won": bool(g["won"])} for g in solo],
    }


def all_games(conn: sqlite3.Connection) -> list[dict]:
    """Every game in full, oldest first (for export)."""
    ids = [r["id"] for r in conn.execute("SELECT id FROM games ORDER BY played_on, id")]
    return [get_game(conn, i) for i in ids]


def _summary(game: sqlite3.Row, players: list[dict]) -> dict:
    return {"id": game["id"], "uid": game["uid"], "date": game["played_on"], "saved_at": game["saved_at"],
            "mode": game["mode"], "variant": game["variant"], "rules": json.loads(game["rules"]),
            "notes": game["notes"], "target": game["target"], "total": game["total"],
            "won": None if game["won"] is None else bool(game["won"]), "players": players}


def _rate(wins: int, games: int) -> float | None:
    return round(wins / games, 3) if games else None
