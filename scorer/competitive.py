"""Competitive Zoning Out: every player's city scored with the same rules, targets ignored."""
from __future__ import annotations

from .city import City
from .sheet import ScoreSheet, score


def rank_players(cities: dict[str, City], rules) -> list[dict]:
    """Rank players by total, highest first; equal totals share a rank.

    Returns ``[{"player": name, "total": int, "rank": int, "sheet": ScoreSheet}, ...]``.
    """
    sheets: list[tuple[str, ScoreSheet]] = [(name, score(city, rules)) for name, city in cities.items()]
    sheets.sort(key=lambda pair: (-pair[1].total, pair[0]))
    ranked = []
    for k, (name, sheet) in enumerate(sheets):
        tied = ranked and ranked[-1]["total"] == sheet.total
        rank = ranked[-1]["rank"] if tied else k + 1
        ranked.append({"player": name, "total": sheet.total, "rank": rank, "sheet": sheet})
    return ranked
