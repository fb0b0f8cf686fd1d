"""The city model: pieces on the cells of a square grid, and parsing of the city JSON.

Coordinates are always (row, col): row 0 is the far side of the table (top of the photo),
rows grow toward the player, columns grow to the right. A :class:`City` normalises its
pieces so that the smallest row and column are 0.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property

COLORS = ("red", "yellow", "green", "blue", "black")
SCORING_COLORS = ("red", "yellow", "green", "blue")
SIZE_NAMES = {1: "small", 2: "medium", 3: "large"}
TRIOS_PER_COLOR = {"standard": 3, "small-city": 2}
GAME = "zoning-out"

Cell = tuple[int, int]
ORTHOGONAL = ((-1, 0), (1, 0), (0, -1), (0, 1))


class CityError(ValueError):
    """The city description is not a valid Zoning Out city; the message says why."""


@dataclass(frozen=True, slots=True)
class Piece:
    """One pyramid: its cell, colour, size (1 small, 2 medium, 3 large) and stack level."""

    row: int
    col: int
    color: str
    size: int
    level: int = 0

    @property
    def cell(self) -> Cell:
        return (self.row, self.col)

    def to_json(self) -> dict:
        out = {"row": self.row, "col": self.col, "color": self.color, "size": self.size}
        if self.level:
            out["level"] = self.level
        return out


class City:
    """A finished city. Pieces are normalised (min row and col 0) and sorted.

    ``neighbours[i]`` lists the pieces next to piece ``i``: those stacked in its cell and
    those in the four orthogonal cells, at any level.
    """

    def __init__(self, pieces, variant: str = "standard", rules=(), player: str | None = None):
        pieces = list(pieces)
        if pieces:
            r0 = min(p.row for p in pieces)
            c0 = min(p.col for p in pieces)
            if r0 or c0:
                pieces = [Piece(p.row - r0, p.col - c0, p.color, p.size, p.level) for p in pieces]
        self.pieces: tuple[Piece, ...] = tuple(sorted(pieces, key=lambda p: (p.row, p.col, p.level)))
        self.variant = variant
        self.rules: tuple[str, ...] = tuple(rules)
        self.player = player
        self.height = 1 + max((p.row for p in self.pieces), default=-1)
        self.width = 1 + max((p.col for p in self.pieces), default=-1)
        cells: dict[Cell, list[int]] = {}
        for i, p in enumerate(self.pieces):
            cells.setdefault((p.row, p.col), []).append(i)
        self.cells: dict[Cell, tuple[int, ...]] = {c: tuple(ix) for c, ix in cells.items()}

    @cached_property
    def neighbours(self) -> tuple[tuple[int, ...], ...]:
        cells = self.cells
        out = []
        for i, p in enumerate(self.pieces):
            near = [j for j in cells[(p.row, p.col)] if j != i]
            for dr, dc in ORTHOGONAL:
                near.extend(cells.get((p.row + dr, p.col + dc), ()))
            out.append(tuple(near))
        return tuple(out)

    @cached_property
    def rows(self) -> list[list[Cell]]:
        """Occupied cells of each row of the bounding box, left to right (empty rows too)."""
        out: list[list[Cell]] = [[] for _ in range(self.height)]
        for cell in self.cells:  # cells are in (row, col) order
            out[cell[0]].append(cell)
        return out

    @cached_property
    def columns(self) -> list[list[Cell]]:
        """Occupied cells of each column of the bounding box, top to bottom (empty ones too)."""
        out: list[list[Cell]] = [[] for _ in range(self.width)]
        for cell in self.cells:
            out[cell[1]].append(cell)
        return out

    @cached_property
    def cell_colors(self) -> dict[Cell, frozenset[str]]:
        """Every colour held by each occupied cell (a stack holds both of its colours)."""
        return {c: frozenset(self.pieces[i].color for i in ix) for c, ix in self.cells.items()}

    def groups(self, member, same_color: bool = False) -> list[list[int]]:
        """Connected groups (via ``neighbours``) of the pieces ``i`` with ``member(i)`` true,
        largest first, each as a sorted list of piece indices. With ``same_color`` a group
        only spreads between pieces of one colour."""
        seen: set[int] = set()
        found = []
        nb, pieces = self.neighbours, self.pieces
        for start in range(len(pieces)):
            if start in seen or not member(start):
                continue
            seen.add(start)
            color = pieces[start].color
            stack, group = [start], []
            while stack:
                i = stack.pop()
                group.append(i)
                for j in nb[i]:
                    if j not in seen and member(j) and (not same_color or pieces[j].color == color):
                        seen.add(j)
                        stack.append(j)
            found.append(sorted(group))
        found.sort(key=lambda g: (-len(g), g[0]))
        return found

    @cached_property
    def _color_groups(self) -> dict[str, list[list[int]]]:
        out: dict[str, list[list[int]]] = {c: [] for c in COLORS}
        for group in self.groups(lambda i: True, same_color=True):
            out[self.pieces[group[0]].color].append(group)
        return out

    def color_groups(self, color: str) -> list[list[int]]:
        """Connected single-colour groups of ``color``, largest first."""
        return self._color_groups[color]

    def empty_regions(self) -> list[list[Cell]]:
        """Connected empty cells inside the bounding box that cannot reach outside it."""
        h, w, cells = self.height, self.width, self.cells
        seen: set[Cell] = set()
        regions = []
        for r in range(h):
            for c in range(w):
                if (r, c) in cells or (r, c) in seen:
                    continue
                seen.add((r, c))
                stack, region, open_ = [(r, c)], [], False
                while stack:
                    cr, cc = stack.pop()
                    region.append((cr, cc))
                    for dr, dc in ORTHOGONAL:
                        nr, nc = cr + dr, cc + dc
                        if not (0 <= nr < h and 0 <= nc < w):
                            open_ = True
                        elif (nr, nc) not in cells and (nr, nc) not in seen:
                            seen.add((nr, nc))
                            stack.append((nr, nc))
                if not open_:
                    regions.append(sorted(region))
        return regions

    def to_json(self) -> dict:
        out = {"game": GAME, "variant": self.variant, "rules": list(self.rules),
               "pieces": [p.to_json() for p in self.pieces]}
        if self.player is not None:
            out["player"] = self.player
        return out


def parse_city(data) -> City:
    """Build a :class:`City` from city JSON (a dict, or JSON text/bytes).

    Raises :class:`CityError` naming the piece and the problem. Extra keys on pieces (such as
    ``confidence`` from ``citycam detect``) are ignored.
    """
    if isinstance(data, (str, bytes, bytearray)):
        try:
            data = json.loads(data)
        except (ValueError, UnicodeDecodeError) as exc:
            raise CityError(f"the city is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise CityError("the city must be a JSON object with a 'pieces' list")
    game = data.get("game", GAME)
    if game != GAME:
        raise CityError(f"game {game!r} is not supported; only {GAME!r} cities can be scored")
    variant = parse_variant(data.get("variant", "standard"))
    rules = parse_rule_ids(data.get("rules", []))
    player = data.get("player")
    if player is not None and not isinstance(player, str):
        raise CityError("'player' must be a name (text)")
    raw = data.get("pieces")
    if not isinstance(raw, list):
        raise CityError("the city needs a 'pieces' list")
    pieces = [_parse_piece(i, item) for i, item in enumerate(raw)]
    _check_levels(pieces)
    return City(pieces, variant, rules, player)


def parse_variant(variant) -> str:
    """Check a variant id; raises :class:`CityError` for an unknown one."""
    if variant not in TRIOS_PER_COLOR:
        raise CityError(f"variant {variant!r} is unknown; use 'standard' or 'small-city'")
    return variant


def parse_rule_ids(rules) -> tuple[str, ...]:
    """Check a list of special-rule ids; raises :class:`CityError` for unknown or repeated ids."""
    from .rules import RULES

    if not isinstance(rules, (list, tuple)) or not all(isinstance(r, str) for r in rules):
        raise CityError("'rules' must be a list of rule ids, e.g. [\"little-boxes\"]")
    for r in rules:
        if r not in RULES:
            raise CityError(f"rule {r!r} is unknown; `citycam rules` lists the ids")
    if len(set(rules)) != len(rules):
        raise CityError("a rule is listed twice in 'rules'")
    return tuple(rules)


def _parse_piece(index: int, item) -> Piece:
    name = f"piece {index + 1}"
    if not isinstance(item, dict):
        raise CityError(f"{name} must be an object with row, col, color and size")
    for key in ("row", "col", "color", "size"):
        if key not in item:
            raise CityError(f"{name} has no '{key}'")
    for key in ("row", "col", "size", "level"):
        value = item.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int):
            raise CityError(f"{name}: '{key}' must be a whole number, not {value!r}")
    name = f"piece {index + 1} (row {item['row']}, col {item['col']})"
    if item["color"] not in COLORS:
        raise CityError(f"{name}: colour {item['color']!r} is not one of {', '.join(COLORS)}")
    if item["size"] not in SIZE_NAMES:
        raise CityError(f"{name}: size {item['size']} must be 1 (small), 2 (medium) or 3 (large)")
    level = item.get("level", 0)
    if level < 0:
        raise CityError(f"{name}: level {level} must be 0 (on the table) or 1 (stacked)")
    return Piece(item["row"], item["col"], item["color"], item["size"], level)


def _check_levels(pieces: list[Piece]) -> None:
    levels: dict[Cell, set[int]] = {}
    for p in pieces:
        held = levels.setdefault(p.cell, set())
        if p.level in held:
            raise CityError(f"two pieces on level {p.level} of row {p.row}, col {p.col}")
        held.add(p.level)
    for (r, c), held in levels.items():
        if max(held) + 1 != len(held):
            raise CityError(f"a stacked piece at row {r}, col {c} has nothing under it")
