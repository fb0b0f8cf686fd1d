"""Comparing a detected city with the ground truth, translation-aligned, by error kind."""
from __future__ import annotations

from collections import Counter

ERROR_KINDS = ("missed", "phantom", "wrong_color", "wrong_size", "wrong_cell", "wrong_level")


def _cells(pieces) -> dict[tuple[int, int], list[dict]]:
    out: dict[tuple[int, int], list[dict]] = {}
    for p in sorted(pieces, key=lambda p: p.get("level", 0)):
        out.setdefault((p["row"], p["col"]), []).append(p)
    return out


def compare(truth: list[dict], found: list[dict]) -> Counter:
    """Errors of ``found`` against ``truth`` (lists of city pieces), at the shift of ``found``
    that puts the most pieces on the right cells. Returns a Counter over ERROR_KINDS."""
    return _aligned(truth, found)[0]


def marks(truth: list[dict], found: list[dict], below: float, doubtful=()) -> Counter:
    """How the marks for the player to check (found pieces of confidence under ``below``,
    and the ``doubtful`` empty cells (row, col), on ``found``'s grid) fall, at the shift of
    :func:`compare`: ``wrong`` found pieces (a wrong colour or size, a phantom, or in a cell
    whose stack is misread) and how many of them are ``wrong_marked`` (of a misread stack,
    one mark in the cell counts), ``right`` pieces and ``right_marked``, ``unmarkable``,
    pieces missed from a cell read empty, and ``unmarkable_checked``, those of them on a
    doubtful cell, and ``empty_checked``, the doubtful cells that are empty."""
    return assess(truth, found, below, doubtful)[1]


def assess(truth: list[dict], found: list[dict], below: float, doubtful=()) -> tuple[Counter, Counter]:
    """:func:`compare` and :func:`marks` of ``found`` at the one shift both use."""
    errors, shifted, (dr, dc) = _aligned(truth, found)
    true_cells = _cells(truth)
    out = Counter()
    for cell, pieces in shifted.items():
        expected = true_cells.get(cell, [])
        if len(expected) == len(pieces):
            for a, b in zip(expected, pieces):
                kind = "right" if (a["color"], a["size"]) == (b["color"], b["size"]) else "wrong"
                out[kind] += 1
                out[kind + "_marked"] += b["confidence"] < below
        elif len(expected) in (1, 2) and len(pieces) in (1, 2):
            out["wrong"] += 1
            out["wrong_marked"] += any(b["confidence"] < below for b in pieces)
        else:
            out["wrong"] += max(len(pieces) - len(expected), 0)
            out["wrong_marked"] += sum(b["confidence"] < below for b in pieces[len(expected):])
    missed = {cell: len(pieces) for cell, pieces in true_cells.items() if cell not in shifted}
    checked = {(row + dr, col + dc) for row, col in doubtful}
    out["unmarkable"] += sum(missed.values())
    out["unmarkable_checked"] += sum(n for cell, n in missed.items() if cell in checked)
    out["empty_checked"] += len(checked - set(true_cells))
    return errors, out


def _aligned(truth: list[dict], found: list[dict]) -> tuple[Counter, dict[tuple[int, int], list[dict]],
                                                             tuple[int, int]]:
    """The errors of ``found`` at its best shift (see :func:`compare`), its pieces by cell
    (row, col) at that shift, and the shift (rows, cols)."""
    true_cells = _cells(truth)
    # each distinct shift once, in the order first met (ties keep the first shift)
    shifts = dict.fromkeys((tr - p["row"], tc - p["col"]) for tr, tc in true_cells for p in found)
    best, best_cells, best_shift = None, {}, (0, 0)
    for dr, dc in shifts:
        cells = _cells([dict(q, row=q["row"] + dr, col=q["col"] + dc) for q in found])
        errors = _errors(true_cells, cells)
        if best is None or sum(errors.values()) < sum(best.values()):
            best, best_cells, best_shift = errors, cells, (dr, dc)
    if best is None:
        best = Counter(missed=len(truth), phantom=len(found))
    return best, best_cells, best_shift


def _errors(truth, found) -> Counter:
    errors = Counter()
    missed, phantom = [], []
    for cell in set(truth) | set(found):
        t, f = truth.get(cell, []), found.get(cell, [])
        if len(t) == len(f):
            for a, b in zip(t, f):
                errors["wrong_color"] += a["color"] != b["color"]
                errors["wrong_size"] += a["size"] != b["size"]
        elif len(t) == 2 and len(f) == 1 or len(t) == 1 and len(f) == 2:
            errors["wrong_level"] += 1
        else:
            missed += [(cell, p) for p in t[len(f):]]
            phantom += [(cell, p) for p in f[len(t):]]
    for cell, p in list(missed):  # a piece read one cell away is one error, not two
        for other in phantom:
            (r, c), q = other
            if abs(r - cell[0]) + abs(c - cell[1]) == 1 and (q["color"], q["size"]) == (p["color"], p["size"]):
                phantom.remove(other)
                missed.remove((cell, p))
                errors["wrong_cell"] += 1
                break
    errors["missed"] += len(missed)
    errors["phantom"] += len(phantom)
    return +errors
