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
    true_cells = _cells(truth)
    # each distinct shift once, in the order first met (ties keep the first shift)
    shifts = dict.fromkeys((tr - p["row"], tc - p["col"]) for tr, tc in true_cells for p in found)
    best = None
    for dr, dc in shifts:
        errors = _errors(true_cells, _cells([dict(q, row=q["row"] + dr, col=q["col"] + dc) for q in found]))
        if best is None or sum(errors.values()) < sum(best.values()):
            best = errors
    if best is None:
        best = Counter(missed=len(truth), phantom=len(found))
    return best


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
