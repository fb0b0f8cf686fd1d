"""The score sheet: base score, special rules, target and result, with a breakdown."""
from __future__ import annotations

from dataclasses import dataclass

from .city import SCORING_COLORS, Cell, City, parse_rule_ids
from .legality import Illegal, check_legality
from .rules import RULES, Item

SHEET_LABELS = {"red": "Residential (red)", "yellow": "Industrial (yellow)",
                "blue": "Commercial (blue)", "green": "Green space (green)"}


@dataclass(frozen=True)
class RuleScore:
    id: str
    name: str
    target: int
    items: tuple[Item, ...]
    points: int

    def to_json(self) -> dict:
        return {"id": self.id, "name": self.name, "points": self.points, "target": self.target,
                "cells": _cells_json(self.items), "items": _items_json(self.items)}


@dataclass(frozen=True)
class ScoreSheet:
    """A scored city. ``groups[color]`` holds the items behind each base entry:
    the largest group of each scoring colour, and one item per black piece.
    ``base`` maps each colour to its points (black: the negative penalty)."""

    city: City
    groups: dict[str, tuple[Item, ...]]
    base: dict[str, int]
    rules: tuple[RuleScore, ...]
    illegal: tuple[Illegal, ...]

    @property
    def colors_sum(self) -> int:
        return sum(self.base[c] for c in SCORING_COLORS)

    @property
    def subtotal(self) -> int:
        return self.colors_sum + self.base["black"]

    @property
    def rules_sum(self) -> int:
        return sum(r.points for r in self.rules)

    @property
    def target(self) -> int:
        return sum(r.target for r in self.rules)

    @property
    def total(self) -> int:
        return self.subtotal + self.rules_sum

    @property
    def won(self) -> bool:
        return self.total >= self.target

    def rows(self) -> list[tuple[str, int]]:
        """The paper score sheet, top to bottom, as (label, value)."""
        base = self.base
        out = [(SHEET_LABELS[c], base[c]) for c in ("red", "yellow", "blue", "green")]
        out += [("Colors SUM", self.colors_sum), ("Black", base["black"]),
                ("(Colors - Black) Subtotal", self.subtotal)]
        out += [(f"Scoring Rule #{k}: {r.name}", r.points) for k, r in enumerate(self.rules, 1)]
        out += [("Scoring Rules SUM", self.rules_sum), ("Scoring Rules Targets SUM", self.target),
                ("Total", self.total)]
        return out

    def to_json(self) -> dict:
        """The ``citycam score --json`` contract object, plus ``base_cells`` and ``sheet``."""
        return {
            "total": self.total, "base": self.base,
            "rules": [r.to_json() for r in self.rules],
            "target": self.target, "won": self.won,
            "illegal": [i.to_json() for i in self.illegal],
            "base_cells": {c: _cells_json(items) for c, items in self.groups.items()},
            "base_items": {c: _items_json(items) for c, items in self.groups.items()},
            "sheet": [{"label": label, "value": value} for label, value in self.rows()],
            "city": self.city.to_json(),
        }


def score(city: City, rules=None) -> ScoreSheet:
    """Score ``city`` with ``rules`` (ids; default: the city's own rules)."""
    rules = city.rules if rules is None else parse_rule_ids(list(rules))
    if rules != city.rules:
        city = City(city.pieces, city.variant, rules, city.player)
    groups = {c: _largest_group(city, c) for c in SCORING_COLORS}
    groups["black"] = _black_penalties(city)
    base = {color: sum(it.points for it in items) for color, items in groups.items()}
    scored = []
    for r in rules:
        items = tuple(RULES[r].score(city))
        scored.append(RuleScore(r, RULES[r].name, RULES[r].target, items, sum(it.points for it in items)))
    return ScoreSheet(city, groups, base, tuple(scored), tuple(check_legality(city)))


def _largest_group(city: City, color: str) -> tuple[Item, ...]:
    groups = city.color_groups(color)
    if not groups:
        return ()
    cells = tuple(city.pieces[i].cell for i in groups[0])
    return (Item(len(cells), cells, f"largest {color} group: {len(cells)} pieces"),)


def _black_penalties(city: City) -> tuple[Item, ...]:
    items = []
    for i, p in enumerate(city.pieces):
        if p.color == "black":
            n = len(city.neighbours[i])
            items.append(Item(-p.size * n, (p.cell,), f"black size {p.size} at ({p.row},{p.col}) with {n} next to it"))
    return tuple(items)


def _items_json(items) -> list[dict]:
    return [{"points": it.points, "cells": [list(c) for c in it.cells], "note": it.note} for it in items]


def _cells_json(items) -> list[list[int]]:
    cells: dict[Cell, None] = {}
    for it in items:
        cells.update(dict.fromkeys(it.cells))
    return [list(c) for c in cells]
