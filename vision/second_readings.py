"""Readings of one photo at other working sizes (for :func:`vision.read_photo`): how often a
reading breaks the game's rules, which of its pieces another reading reads otherwise, and
where beside it another reading finds a piece it missed.

A misread city mostly breaks the rules, which a city as played mostly keeps; and where two
readings of the same photo differ on a cell, either may be wrong there.
"""
from __future__ import annotations

import numpy as np

from scorer import MIXED_USE, check_legality
from scorer.city import TRIOS_PER_COLOR, City

from .cells import NEIGHBOURS
from .detection import Detection, with_confidences, with_doubtful_empty

# a stack read is no rule broken: where the game in play allows none, it is the scorer's to flag
_READING_RULES = (MIXED_USE,)
# a piece another reading reads otherwise is as likely that reading's as this one's
DISPUTED_CONFIDENCE = 0.5


def broken_rules(detection: Detection, rules, variant: str | None = None) -> int:
    """How often the city of ``detection`` breaks the game's rules (the special rules
    ``rules`` in play, none where None, stacks allowed): one for each pair of same-size
    neighbours, each cell cut off from the city, each piece of a kind beyond the supply of
    the ``variant``'s set (3 of each, 2 in a Small City; a standard set's where None) and
    each stack out of order."""
    city = City(detection.city.pieces, variant or "standard")
    broken = 0
    for problem in check_legality(city, (*(rules or ()), *_READING_RULES)):
        if problem.reason == "too-many":
            broken += len(problem.cells) - TRIOS_PER_COLOR[city.variant]
        elif problem.reason == "disconnected":
            broken += len(problem.cells)
        else:
            broken += 1
    return broken


def mark_disputed(kept: Detection, others: list[Detection], below: float) -> Detection:
    """``kept`` with the pieces on each cell that one of ``others`` (readings of the same
    photo at other sizes) reads otherwise (other pieces, or none) made no more confident
    than :data:`DISPUTED_CONFIDENCE`, and the empty cells beside its pieces where one of
    ``others`` reads a piece doubted (:attr:`Detection.doubtful_empty`: a piece missed leaves
    no piece to flag); ``below``: the confidence under which a piece is flagged (for the
    warning's count)."""
    cells, disputed, unseen = _by_cell(kept), set(), set()
    for other in others:
        laid = _laid(kept, other)
        disputed |= {cell for cell, pieces in cells.items() if laid.get(cell) != _contents(pieces)}
        unseen |= set(laid) - set(cells)
    unseen &= {(row + dr, col + dc) for row, col in cells for dc, dr in NEIGHBOURS}
    if not disputed and not unseen:
        return kept
    confidences = [min(p.confidence, DISPUTED_CONFIDENCE) if (p.row, p.col) in disputed else p.confidence
                   for p in kept.pieces]
    return with_doubtful_empty(with_confidences(kept, confidences, below), unseen)


def _laid(kept: Detection, other: Detection) -> dict[tuple[int, int], tuple]:
    """What ``other`` reads on each cell (row, col) of ``kept``'s grid (:func:`_contents`).
    Each cell of ``other`` is laid on ``kept``'s grid where its piece on the table is seen
    (its pixel centre, scaled from ``other``'s image to ``kept``'s)."""
    scale = kept.image_size[0] / other.image_size[0]
    to_grid = np.linalg.inv(kept.homography)
    laid = {}
    for pieces in _by_cell(other).values():
        x, y = (scale * v for v in min(pieces, key=lambda p: p.level).center)
        col, row, w = to_grid @ (x, y, 1.0)
        laid[(int(round(row / w)), int(round(col / w)))] = _contents(pieces)
    return laid


def _by_cell(detection: Detection) -> dict[tuple[int, int], list]:
    """The pieces of ``detection`` by cell (row, col)."""
    cells: dict[tuple[int, int], list] = {}
    for piece in detection.pieces:
        cells.setdefault((piece.row, piece.col), []).append(piece)
    return cells


def _contents(pieces) -> tuple:
    """What stands on a cell: (colour, size) of each of its ``pieces``, bottom first."""
    return tuple((p.color, p.size) for p in sorted(pieces, key=lambda p: p.level))
