"""Legality checks of a finished city (design.md section 5). Problems are flagged, never fixed."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .city import SIZE_NAMES, TRIOS_PER_COLOR, Cell, City

MIXED_USE = "mixed-use-development"  # the one special rule under which pieces may be stacked
CANADIAN_STYLE = "canadian-style"  # the one under which large pieces may touch


@dataclass(frozen=True, slots=True)
class Illegal:
    """One illegal placement: the cells involved, a reason id and a sentence for people.

    Reasons: ``same-size``, ``disconnected``, ``too-many``, ``stack-not-allowed``,
    ``stack-order``, ``too-high``.
    """

    cells: tuple[Cell, ...]
    reason: str
    message: str

    def to_json(self) -> dict:
        return {"cells": [list(c) for c in self.cells], "reason": self.reason, "message": self.message}


def check_legality(city: City, rules=None) -> list[Illegal]:
    """Every legality problem of ``city`` under ``rules`` (default: the city's own rules)."""
    rules = city.rules if rules is None else tuple(rules)
    return (_same_size(city, CANADIAN_STYLE in rules) + _disconnected(city)
            + _too_many(city) + _stacks(city, MIXED_USE in rules))


def _same_size(city: City, larges_may_touch: bool) -> list[Illegal]:
    out = []
    pieces = city.pieces
    for i, p in enumerate(pieces):
        for j in city.neighbours[i]:
            q = pieces[j]
            if j <= i or q.size != p.size:
                continue
            stacked = q.cell == p.cell
            if p.size == 3 and larges_may_touch and not stacked:
                continue
            size = SIZE_NAMES[p.size]
            what = f"two {size} pieces stacked at row {p.row}, col {p.col}" if stacked else (
                f"two {size} pieces side by side at ({p.row},{p.col}) and ({q.row},{q.col})")
            out.append(Illegal((p.cell, q.cell), "same-size", what))
    return out


def _disconnected(city: City) -> list[Illegal]:
    groups = city.groups(lambda i: True)
    out = []
    for group in groups[1:]:
        cells = tuple(sorted({city.pieces[i].cell for i in group}))
        n = len(group)
        what = f"{n} piece{'s are' if n > 1 else ' is'} not connected to the rest of the city"
        out.append(Illegal(cells, "disconnected", f"{what} (at {_cells_text(cells)})"))
    return out


def _too_many(city: City) -> list[Illegal]:
    limit = TRIOS_PER_COLOR[city.variant]
    counts = Counter((p.color, p.size) for p in city.pieces)
    out = []
    for (color, size), n in sorted(counts.items()):
        if n > limit:
            cells = tuple(p.cell for p in city.pieces if (p.color, p.size) == (color, size))
            out.append(Illegal(cells, "too-many",
                               f"{n} {SIZE_NAMES[size]} {color} pieces, but the {city.variant} set has {limit}"))
    return out


def _stacks(city: City, stacks_allowed: bool) -> list[Illegal]:
    out = []
    for cell, ix in sorted(city.cells.items()):
        if len(ix) < 2:
            continue
        where = f"row {cell[0]}, col {cell[1]}"
        if not stacks_allowed:
            out.append(Illegal((cell,), "stack-not-allowed",
                               f"pieces are stacked at {where} but Mixed-Use Development is not in play"))
        if len(ix) > 2:
            out.append(Illegal((cell,), "too-high", f"{len(ix)} pieces are stacked at {where}; at most two"))
        sizes = [city.pieces[i].size for i in ix]  # bottom to top
        if any(upper > lower for lower, upper in zip(sizes, sizes[1:])):
            out.append(Illegal((cell,), "stack-order", f"a larger piece is on top of a smaller one at {where}"))
    return out


def _cells_text(cells) -> str:
    return ", ".join(f"({r},{c})" for r, c in cells)
