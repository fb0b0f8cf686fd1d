"""Zoning Out rules: the city model, legality checks and exact scoring. Pure Python.

Typical use::

    from scorer import parse_city, score
    sheet = score(parse_city(open("city.json").read()))
    sheet.total, sheet.to_json()
"""
from .city import COLORS, SIZE_NAMES, City, CityError, Piece, parse_city
from .competitive import rank_players
from .legality import CANADIAN_STYLE, MIXED_USE, Illegal, check_legality
from .report import format_ranking, format_sheet
from .rules import RULES, Item, Rule, rules_json
from .sheet import ScoreSheet, score

__all__ = ["COLORS", "SIZE_NAMES", "City", "CityError", "Piece", "parse_city", "rank_players",
           "CANADIAN_STYLE", "MIXED_USE", "Illegal", "check_legality", "format_ranking", "format_sheet", "RULES", "Item", "Rule",
           "rules_json", "ScoreSheet", "score"]
