"""The 18 special scoring rules of Zoning Out, read as in design.md section 5.

Each rule is a function ``City -> list[Item]``: every item is a number of points and the
cells (row, col) that earned or lost them, so a page can highlight them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .city import COLORS, ORTHOGONAL, SCORING_COLORS, Cell, City


@dataclass(frozen=True, slots=True)
class Item:
    """Points earned (or lost) by a set of cells, with a short note in plain words."""

    points: int
    cells: tuple[Cell, ...]
    note: str


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    target: int
    text: str
    score: Callable[[City], list[Item]]

    def to_json(self) -> dict:
        return {"id": self.id, "name": self.name, "target": self.target, "text": self.text}


def _where(cell: Cell) -> str:
    return f"({cell[0]},{cell[1]})"


def _pieces_next_to(city: City, i: int, color: str) -> bool:
    pieces = city.pieces
    return any(pieces[j].color == color for j in city.neighbours[i])


def _fifteen_minute_city(city: City) -> list[Item]:
    items = []
    for i, p in enumerate(city.pieces):
        if p.color == "red":
            near = {city.pieces[j].color for j in city.neighbours[i]}
            if {"blue", "green", "yellow"} <= near:
                items.append(Item(4, (p.cell,), f"red at {_where(p.cell)} has blue, green, yellow next to it"))
    return items


def _density_bonusing(city: City) -> list[Item]:
    side = max(city.width, city.height)
    if not side:
        return []
    return [Item(-side, (), f"city is {city.width} wide and {city.height} high")]


def _colors_in(city: City, cells: list[Cell]) -> set[str]:
    colors = city.cell_colors
    return set().union(*(colors[cell] for cell in cells))


def _rainbow_rows(city: City) -> list[Item]:
    return [Item(5, tuple(row), f"row {row[0][0]} holds all five colours")
            for row in city.rows if len(_colors_in(city, row)) == len(COLORS)]


def _colorful_columns(city: City) -> list[Item]:
    items = []
    for c, col in enumerate(city.columns):
        n = len(_colors_in(city, col))
        pts = 2 if n >= 3 else -3
        items.append(Item(pts, tuple(col), f"column {c} holds {n} colour{'s' * (n != 1)}"))
    return items


def _overshadowed(city: City) -> list[Item]:
    items = []
    pieces = city.pieces
    for i, p in enumerate(pieces):
        if p.size == 1:
            for j in city.neighbours[i]:
                if pieces[j].size == 3:
                    items.append(Item(-1, (p.cell, pieces[j].cell),
                                      f"small at {_where(p.cell)} next to large at {_where(pieces[j].cell)}"))
    return items


def _boxes(city: City, color: str) -> list[Item]:
    colors = city.cell_colors
    items = []
    for (r, c) in sorted(city.cells):
        window = ((r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1))
        if all(color in colors.get(cell, ()) for cell in window):
            items.append(Item(3, window, f"2x2 {color} square from {_where((r, c))}"))
    return items


def _linear_park(city: City) -> list[Item]:
    colors = city.cell_colors
    best: tuple[Cell, ...] = ()
    for line in city.rows + city.columns:
        run: list[Cell] = []
        for cell in line:
            if "green" in colors[cell] and run and _adjacent(run[-1], cell):
                run.append(cell)
            elif "green" in colors[cell]:
                run = [cell]
            else:
                run = []
            if len(run) > len(best):
                best = tuple(run)
    if not best:
        return []
    return [Item(len(best), best, f"{len(best)} greens in a line from {_where(best[0])}")]


def _adjacent(a: Cell, b: Cell) -> bool:
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def _we_compost(city: City) -> list[Item]:
    return [Item(p.size, (p.cell,), f"black at {_where(p.cell)} next to red")
            for i, p in enumerate(city.pieces)
            if p.color == "black" and _pieces_next_to(city, i, "red")]


def _garden_city(city: City) -> list[Item]:
    return [Item(2, (p.cell,), f"red at {_where(p.cell)} next to green")
            for i, p in enumerate(city.pieces)
            if p.color == "red" and _pieces_next_to(city, i, "green")]


def _piazzas(city: City) -> list[Item]:
    items = []
    colors = city.cell_colors
    for region in city.empty_regions():
        around: set[str] = set()
        for r, c in region:
            for dr, dc in ORTHOGONAL:
                around |= colors.get((r + dr, c + dc), frozenset())
        items.append(Item(len(around), tuple(region),
                          f"enclosed space at {_where(region[0])} has {len(around)} colours around it"))
    return items


def _canadian_style(city: City) -> list[Item]:
    pieces = city.pieces
    groups = city.groups(lambda i: pieces[i].size == 3)
    if not groups:
        return []
    cells = tuple(pieces[i].cell for i in groups[0])
    return [Item(2 * len(cells), cells, f"{len(cells)} large pieces in one group")]


def _factory_un_fun(city: City) -> list[Item]:
    return [Item(-1, (p.cell,), f"{p.color} at {_where(p.cell)} next to yellow")
            for i, p in enumerate(city.pieces)
            if p.color != "yellow" and _pieces_next_to(city, i, "yellow")]


def _lines_of_sight(city: City) -> list[Item]:
    items = []
    for kind, lines in (("row", city.rows), ("column", city.columns)):
        for k, line in enumerate(lines):
            larges = tuple(city.pieces[i].cell for cell in line for i in city.cells[cell]
                           if city.pieces[i].size == 3)
            pts = 1 if len(larges) == 2 else -2
            items.append(Item(pts, larges or tuple(line), f"{kind} {k} has {len(larges)} large"))
    return items


def _clusters(city: City) -> list[Item]:
    items = []
    pieces = city.pieces
    for color in SCORING_COLORS:
        for group in city.color_groups(color):
            sizes = sorted(pieces[i].size for i in group)
            pts = 3 if sizes == [1, 2, 3] else -1
            cells = tuple(pieces[i].cell for i in group)
            items.append(Item(pts, cells, f"{color} group of {len(group)} at {_where(cells[0])}"))
    return items


def _bigger_on_the_outside(city: City) -> list[Item]:
    last_r, last_c = city.height - 1, city.width - 1
    return [Item(2, (p.cell,), f"large at {_where(p.cell)} on the edge")
            for p in city.pieces
            if p.size == 3 and (p.row in (0, last_r) or p.col in (0, last_c))]


def _mixed_use_development(city: City) -> list[Item]:
    return []


def _room_to_make_a_big_mistake(city: City) -> list[Item]:
    items = []
    for p in city.pieces:
        if p.color == "red":
            for dr, dc in ORTHOGONAL:
                empty = (p.row + dr, p.col + dc)
                if empty not in city.cells:
                    items.append(Item(1, (empty,), f"empty cell next to red at {_where(p.cell)}"))
    return items


_CATALOGUE = (
    ("15-minute-city", "15-Minute City", 13, "4 points for every red piece that is next to a blue, green, and yellow piece.", _fifteen_minute_city),
    ("density-bonusing", "Density Bonusing", -4, "-1 point for the total width or height of your city in pyramids, whichever is larger.", _density_bonusing),
    ("rainbow-rows", "Rainbow Rows", 15, "5 points for every row (relative to player's view) that has at least one piece in all five colors in it.", _rainbow_rows),
    ("colorful-columns", "Colorful Columns", 15, "2 points for every column with at least three different colors in it. -3 points for any column that has less than 3 colors in it.", _colorful_columns),
    ("overshadowed", "Overshadowed", -5, "For every small piece, -1 point for any large pieces next to it.", _overshadowed),
    ("little-boxes", "Little Boxes", 9, "3 points for every 2x2 square of red pieces within your city. Squares may overlap.", lambda city: _boxes(city, "red")),
    ("shopping-district", "Shopping District", 9, "3 points for every 2x2 square of blue pieces within your city. Squares may overlap.", lambda city: _boxes(city, "blue")),
    ("linear-park", "Linear Park", 13, "1 point for every piece in your longest line (horizontal or vertical) of green pieces. Only contiguous pieces within a single row or column count.", _linear_park),
    ("we-compost", "\u201cWe Compost\u201d", 19, "Every black piece next to at least one red piece scores points equal to the black piece's size.", _we_compost),
    ("garden-city", "Garden City", 17, "2 points for every red residential zone next to a green park.", _garden_city),
    ("piazzas", "Piazzas", 23, "1 point for every different color (including black) around any fully enclosed empty space within your city.", _piazzas),
    ("canadian-style", "Canadian Style", 17, "Large pieces may be placed adjacent to other large pieces. Score 2 points for every large piece in your biggest group of large pieces, disregarding color.", _canadian_style),
    ("factory-un-fun", "Factory Un-fun", 4, "-1 point for every non-yellow piece next to a yellow piece.", _factory_un_fun),
    ("lines-of-sight", "Lines of Sight", 4, "1 point for every row or column with exactly two large pieces in it. -2 points for any row or column with less or more than 2 large pieces in it.", _lines_of_sight),
    ("clusters", "Clusters", 9, "3 points for every group consisting exactly of a small, medium, and large of a single color (red, blue, green, or yellow), and no other pieces. -1 point for every group not composed thusly.", _clusters),
    ("bigger-on-the-outside", "Bigger on the Outside", 15, "2 points for every large piece in the rows and columns farthest to the top and bottom, left and right, respectively.", _bigger_on_the_outside),
    ("mixed-use-development", "Mixed-Use Development", 7, "You may place a second piece on top of an existing piece. The two pieces are next to each other and to the four spaces orthogonal to their space. Place the smaller piece on top.", _mixed_use_development),
    ("room-to-make-a-big-mistake", "Room to make a Big Mistake", 17, "+1 point for every unoccupied space next to a red piece.", _room_to_make_a_big_mistake),
)

RULES: dict[str, Rule] = {row[0]: Rule(*row) for row in _CATALOGUE}


def rules_json() -> list[dict]:
    """Every special rule as ``{"id", "name", "target", "text"}``, in the rule text's order."""
    return [rule.to_json() for rule in RULES.values()]
