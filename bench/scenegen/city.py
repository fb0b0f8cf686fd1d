"""Random Zoning Out cities grown by the placement rule (design.md sections 2 and 5).

A city is the contract dict ``{"game", "variant", "rules", "pieces"}``; every piece is
``{"row", "col", "color", "size", "level"}`` with row 0 the far side (top of the photo).
Cells are (row, col) integer pairs.
"""
from __future__ import annotations

import logging

import numpy as np

log = logging.getLogger(__name__)

COLORS = ("red", "yellow", "green", "blue", "black")
SIZES = (1, 2, 3)
NEIGHBOURS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def _neighbour_sizes(cells: dict, cell: tuple[int, int]) -> set[int]:
    """Sizes of every piece (both levels) in the four cells orthogonally next to ``cell``."""
    out: set[int] = set()
    for dr, dc in NEIGHBOURS:
        out.update(p["size"] for p in cells.get((cell[0] + dr, cell[1] + dc), ()))
    return out


def _frontier(cells: dict) -> list[tuple[int, int]]:
    """Empty cells orthogonally next to at least one occupied cell, in a stable order."""
    out = set()
    for r, c in cells:
        for dr, dc in NEIGHBOURS:
            if (r + dr, c + dc) not in cells:
                out.add((r + dr, c + dc))
    return sorted(out)


def _occupied_neighbours(cells: dict, cell: tuple[int, int]) -> int:
    return sum((cell[0] + dr, cell[1] + dc) in cells for dr, dc in NEIGHBOURS)


def _draw(rng: np.random.Generator, supply: dict, size: int) -> str | None:
    """Draw a colour of ``size`` from the supply, weighted by remaining count; None if none."""
    colors = [c for c in COLORS if supply[(c, size)] > 0]
    if not colors:
        return None
    w = np.array([supply[(c, size)] for c in colors], float)
    color = colors[rng.choice(len(colors), p=w / w.sum())]
    supply[(color, size)] -= 1
    return color


def _legal_cells(cells: dict, size: int, larges_touch: bool = False) -> list[tuple[int, int]]:
    """Empty cells beside the city where a piece of ``size`` may go: no neighbour of its size
    (a large one may touch larges where ``larges_touch``, as under Canadian Style)."""
    if not cells:
        return [(0, 0)]
    return [c for c in _frontier(cells)
            if size not in _neighbour_sizes(cells, c) or (larges_touch and size == SIZES[-1])]


def _stack_cells(cells: dict, size: int) -> list[tuple[int, int]]:
    """Cells holding one larger piece where a ``size`` piece may legally go on top."""
    return [c for c, ps in sorted(cells.items())
            if len(ps) == 1 and ps[0]["size"] > size and size not in _neighbour_sizes(cells, c)]


def _pick_cell(rng: np.random.Generator, cells: dict, options: list) -> tuple[int, int]:
    """Prefer cells with more occupied neighbours (players build compact cities)."""
    w = np.array([_occupied_neighbours(cells, c) ** 2 + 0.3 for c in options], float)
    return options[rng.choice(len(options), p=w / w.sum())]


def sample_city(rng: np.random.Generator, n_pieces: int | None = None,
                small_city: bool | None = None, n_stacks: int | None = None,
                illegal: str | None = "random", larges_touch: bool = False) -> tuple[dict, dict]:
    """Grow a random city.

    Args:
        rng: the scene's generator (all choices come from it).
        n_pieces: target piece count (6..45, <=30 for Small City); random when None.
        small_city: variant; random (30 %) when None.
        n_stacks: number of stacks (Mixed-Use); random (20 % of cities get 1-4) when None.
        illegal: None (legal), "same-size", "disconnected", or "random" (10 % illegal).
        larges_touch: large pieces may be placed next to larges (Canadian Style); the
            illegal same-size pair is then never of larges.
    Returns:
        (city, info): city in the contract format (rows/cols normalised to min 0) and
        info ``{"legal": bool, "illegal_reason": str | None, "illegal_cells": [[r, c], ...]}``.
    """
    if small_city is None:
        small_city = bool(rng.random() < 0.3)
    per = 2 if small_city else 3
    total = per * len(COLORS) * len(SIZES)
    if n_pieces is None:
        n_pieces = total if rng.random() < 0.25 else int(rng.integers(6, total + 1))
    n_pieces = int(min(max(n_pieces, 2), total))
    if n_stacks is None:
        n_stacks = int(rng.integers(1, 5)) if rng.random() < 0.2 else 0
    if illegal == "random":
        illegal = (str(rng.choice(["same-size", "disconnected"])) if rng.random() < 0.1 else None)
    supply = {(c, s): per for c in COLORS for s in SIZES}
    cells: dict[tuple[int, int], list[dict]] = {}
    n_legal = n_pieces - (1 if illegal else 0)
    stacks_left = n_stacks
    placed = 0
    while placed < n_legal:
        order = [SIZES[i] for i in rng.permutation(3)]
        done = False
        for size in order:
            if not any(supply[(c, size)] for c in COLORS):
                continue
            stack_opts = _stack_cells(cells, size) if stacks_left else []
            want_stack = stack_opts and rng.random() < stacks_left / max(1, n_legal - placed)
            options = stack_opts if want_stack else _legal_cells(cells, size, larges_touch)
            if not options:
                continue
            color = _draw(rng, supply, size)
            cell = options[rng.integers(len(options))] if want_stack else _pick_cell(rng, cells, options)
            level = 1 if want_stack else 0
            stacks_left -= level
            cells.setdefault(cell, []).append({"row": cell[0], "col": cell[1], "color": color,
                                               "size": size, "level": level})
            placed += 1
            done = True
            break
        if not done:
            log.debug("no legal placement left after %d pieces", placed)
            break
    info = {"legal": True, "illegal_reason": None, "illegal_cells": []}
    if illegal:
        _add_illegal(rng, cells, supply, illegal, info, larges_touch)
    pieces = [p for c in sorted(cells) for p in cells[c]]
    r0 = min(p["row"] for p in pieces)
    c0 = min(p["col"] for p in pieces)
    for p in pieces:
        p["row"] -= r0
        p["col"] -= c0
    info["illegal_cells"] = [[r - r0, c - c0] for r, c in info["illegal_cells"]]
    city = {"game": "zoning-out", "variant": "small-city" if small_city else "standard",
            "rules": [], "pieces": pieces}
    return city, info


def _add_illegal(rng, cells, supply, kind, info, larges_touch: bool = False) -> None:
    """Add one last piece that breaks the rules: next to exactly one same-size piece (not a
    large where ``larges_touch``), or alone (no occupied cell within its 8-neighbourhood is
    used; it is two cells away)."""
    sizes = [s for s in SIZES if any(supply[(c, s)] for c in COLORS)]
    if not sizes:
        return
    if kind == "same-size":
        opts = []
        for size in [s for s in sizes if not (larges_touch and s == SIZES[-1])]:
            for cell in _frontier(cells):
                same = [(cell[0] + dr, cell[1] + dc) for dr, dc in NEIGHBOURS
                        if any(p["size"] == size for p in cells.get((cell[0] + dr, cell[1] + dc), ()))]
                if len(same) == 1:
                    opts.append((size, cell, same[0]))
        if opts:
            size, cell, other = opts[rng.integers(len(opts))]
            info["illegal_cells"] = [list(other), list(cell)]
        else:
            kind = "disconnected"
    if kind == "disconnected":
        size = sizes[rng.integers(len(sizes))]
        rows = [r for r, _ in cells]
        cols = [c for _, c in cells]
        side = int(rng.integers(4))
        far = [(min(rows) - 2, int(rng.integers(min(cols), max(cols) + 1))),
               (max(rows) + 2, int(rng.integers(min(cols), max(cols) + 1))),
               (int(rng.integers(min(rows), max(rows) + 1)), min(cols) - 2),
               (int(rng.integers(min(rows), max(rows) + 1)), max(cols) + 2)][side]
        cell = far
        info["illegal_cells"] = [list(cell)]
    color = _draw(rng, supply, size)
    cells[cell] = [{"row": cell[0], "col": cell[1], "color": color, "size": size, "level": 0}]
    info["legal"] = False
    info["illegal_reason"] = kind
