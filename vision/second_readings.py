"""Readings of one photo at other working sizes (for :func:`vision.read_photo`): how often a
reading breaks the game's rules, which of its pieces another reading reads otherwise, where
beside it another reading finds a piece it missed, and which of the pieces read otherwise,
taken as the other reading reads them, keep the rules the kept reading breaks.

A misread city mostly breaks the rules, which a city as played mostly keeps; and where two
readings of the same photo differ on a cell, either may be wrong there.
"""
from __future__ import annotations

import dataclasses
import logging
from collections import Counter

import numpy as np

from scorer import MIXED_USE, check_legality
from scorer.city import TRIOS_PER_COLOR, City

from .cells import NEIGHBOURS
from .detection import DetectedPiece, Detection, with_confidences, with_doubtful_empty

logger = logging.getLogger(__name__)

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
    broken = 0
    for problem in _problems(detection, rules, variant):
        if problem.reason == "too-many":
            broken += len(problem.cells) - TRIOS_PER_COLOR[variant or "standard"]
        elif problem.reason == "disconnected":
            broken += len(problem.cells)
        else:
            broken += 1
    return broken


def _problems(detection: Detection, rules, variant: str | None) -> list:
    """The legality problems (:func:`scorer.check_legality`) of the city of ``detection``
    under the special rules ``rules`` (none where None; stacks allowed) and the supply of
    the ``variant``'s set (a standard set's where None)."""
    city = City(detection.city.pieces, variant or "standard")
    return check_legality(city, (*(rules or ()), *_READING_RULES))


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


def mended_by_others(kept: Detection, others: list[Detection], rules, variant: str | None = None) -> Detection:
    """``kept`` with pieces of kinds beyond the ``variant``'s supply that one of ``others``
    (readings of the same photo at other sizes) reads as another colour or size taken as
    that reading reads them, one at a time, while each change breaks fewer of the game's
    rules (:func:`broken_rules`, under ``rules``): one set holds no more, so such a piece is
    misread, and where two readings differ on it, the one that keeps the rules is the
    likelier. Only a piece alone on its cell, which the other reading reads as one piece on
    the table, is changed, each once, the change that breaks fewest rules first and of those
    the least sure piece's; it takes the other reading's outline and centre and is flagged
    (confidence at most :data:`DISPUTED_CONFIDENCE`, as :func:`mark_disputed` flags it).
    ``kept`` itself where no change keeps more rules."""
    broken, mended = (broken_rules(kept, rules, variant) if others else 0), kept
    while broken:
        beyond = {cell for problem in _problems(mended, rules, variant) if problem.reason == "too-many"
                  for cell in problem.cells}
        tries = []  # (rules broken, the piece's confidence as kept, the reading)
        for k, piece in _read_otherwise(mended, others):
            if mended.pieces[k] is kept.pieces[k] and (kept.pieces[k].row, kept.pieces[k].col) in beyond:
                again = _read_as(mended, k, piece)
                tries.append((broken_rules(again, rules, variant), kept.pieces[k].confidence, again))
        fewest = min(tries, key=lambda tried: tried[:2], default=None)
        if fewest is None or fewest[0] >= broken:
            break
        broken, _, mended = fewest
    if mended is not kept:
        logger.info("%d piece(s) beyond the supply read as another size's reading reads them",
                    sum(p is not q for p, q in zip(mended.pieces, kept.pieces)))
    return mended


def _read_otherwise(kept: Detection, others: list[Detection]) -> list[tuple[int, DetectedPiece]]:
    """(index into ``kept.pieces``, the other's piece) for each cell that ``kept`` and one of
    ``others`` both read as one piece on the table, of another colour or size; that piece's
    centre and outline scaled to ``kept``'s image."""
    per_cell = Counter((p.row, p.col) for p in kept.pieces)
    alone = {(p.row, p.col): k for k, p in enumerate(kept.pieces) if per_cell[(p.row, p.col)] == 1}
    found = []
    for other in others:
        scale = kept.image_size[0] / other.image_size[0]
        for cell, pieces in _laid_pieces(kept, other).items():
            k = alone.get(cell)
            if k is None or len(pieces) != 1 or pieces[0].level:
                continue
            piece = pieces[0]
            if (piece.color, piece.size) != (kept.pieces[k].color, kept.pieces[k].size):
                found.append((k, dataclasses.replace(piece, center=tuple(scale * v for v in piece.center),
                                                     outline=scale * np.asarray(piece.outline))))
    return found


def _read_as(kept: Detection, k: int, piece: DetectedPiece) -> Detection:
    """``kept`` with its piece ``k`` read as ``piece`` (of another reading) reads it, on its
    own cell, flagged."""
    old = kept.pieces[k]
    again = dataclasses.replace(old, color=piece.color, size=piece.size, center=piece.center, outline=piece.outline,
                                confidence=min(old.confidence, DISPUTED_CONFIDENCE))
    return dataclasses.replace(kept, pieces=[again if j == k else p for j, p in enumerate(kept.pieces)])


def _laid(kept: Detection, other: Detection) -> dict[tuple[int, int], tuple]:
    """What ``other`` reads on each cell (row, col) of ``kept``'s grid (:func:`_contents`)."""
    return {cell: _contents(pieces) for cell, pieces in _laid_pieces(kept, other).items()}


def _laid_pieces(kept: Detection, other: Detection) -> dict[tuple[int, int], list[DetectedPiece]]:
    """The pieces of ``other`` on each cell (row, col) of ``kept``'s grid. Each cell of
    ``other`` is laid on ``kept``'s grid where its piece on the table is seen (its pixel
    centre, scaled from ``other``'s image to ``kept``'s)."""
    scale = kept.image_size[0] / other.image_size[0]
    to_grid = np.linalg.inv(kept.homography)
    laid = {}
    for pieces in _by_cell(other).values():
        x, y = (scale * v for v in min(pieces, key=lambda p: p.level).center)
        col, row, w = to_grid @ (x, y, 1.0)
        laid[(int(round(row / w)), int(round(col / w)))] = pieces
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
