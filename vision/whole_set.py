"""A reading that holds about a whole set, read as the set.

A finished game of Zoning Out places every pyramid of the set: three of each colour and
size, 45 in all, or two of each, 30, in a Small City. Where the city as read holds about
that many pieces, the kinds (colour and size) over the supply or short of it tell what was
misread:

- more pieces than the standard set holds: the surplus are phantoms (a shadow or a bit of a
  print read as a piece, a stack told where there is none). The least sure piece of a kind
  over the supply is left out, a piece on top of a stack first (a false stack is the
  commonest phantom), until the set's count is reached; a cell so emptied is one the player
  is asked to check (``doubtful_empty``);
- exactly a set's count, one kind one over and one kind one short, of the same size or of
  the same colour: the least sure piece of the kind over is of the kind short (of another
  size only where it stands alone in its cell and no neighbour holds that size, as the
  rules ask);
- one to three pieces short of a set, the kinds short by as many, none over: a piece missed
  is most often the upper of a stack of one colour, which shows no second colour to the
  stack test. It is put on the least sure piece of its colour that is larger than it, where
  the rules allow a piece of its size (no neighbour of that size). Where there is no such
  piece, it may stand unseen on an empty cell beside the city (a black piece on a dark table
  or a print): of the empty cells where the rules allow it, the one where its outline lies
  along the strongest edges of the photo, if that is also the one where what is inside the
  outline differs most from the ring round it, is given it. Else it may be the lower of a
  stack read as its upper alone (its ring too faint to tell by itself, as a black piece's on
  a dark table): of the smaller pieces read alone where the rules allow it, the one round
  which its ring shows most, if that is also the one round which its base's edges show most,
  is read as resting on it. Pieces missing are read only where all are found, each looked
  for first in turn. Where one kind is one over the supply too (a colour or a size misread as
  well as pieces missed), its least sure piece is first read as each kind short of its size,
  then of its colour, in turn, and the pieces still missing looked for.

Where the variant in play is told, the reading is read as that variant's set alone. Where it
is not, a Small City's set is told by its count and these kinds alone: part of a standard
city that many pieces strong nearly always holds several kinds three times over; and a
reading of more than 30 pieces cannot be told from part of a standard city.

Only a piece flagged for the player to check (confidence under
``profile.max_uncertain_confidence``) is changed, and it stays flagged (so is a piece
added, and a piece read as resting on one added): a sure reading stands, and the city as
read then breaks the rules it breaks.
"""
from __future__ import annotations

import dataclasses
import logging
from collections import Counter

import numpy as np

from calibration import Profile
from calibration.profile import COLOR_ORDER
from scorer.city import SIZE_NAMES, TRIOS_PER_COLOR

from .cells import SIZES, CityReading, Reading, cells_beside, size_beside
from .edge_fit import EdgeTensor, base_strengths, outlines_strength
from .faces import ring_under, upper_of_stack
from .model import BASE_MM, outline, seat_height_mm
from .second_look import outline_contrasts
from .verify import piece_poses

log = logging.getLogger(__name__)

# the poses round a lower piece's where its base's edges are looked for: shifted by up to a
# twentieth of a cell each way and turned by up to 10 degrees (side, shift in col and row, turn)
_BASE_MOVES = np.array([(0.0, col, row, turn) for col in (-0.05, 0.0, 0.05) for row in (-0.05, 0.0, 0.05)
                        for turn in (-10.0, -5.0, 0.0, 5.0, 10.0)])
_MOST_MISSED = 3  # pieces missing from a whole set that are looked for
# (pieces of each kind, in all) of each variant's set
SETS = {variant: (per_kind, per_kind * len(COLOR_ORDER) * len(SIZES)) for variant, per_kind in TRIOS_PER_COLOR.items()}


def as_whole_set(reading: CityReading, profile: Profile, edges: EdgeTensor | None = None,
                 image: np.ndarray | None = None, stacks: bool = True, larges_touch: bool = False,
                 variant: str | None = None, log_ratio: np.ndarray | None = None) -> CityReading:
    """``reading`` (a :class:`vision.cells.CityReading`) with its flagged pieces read to fit
    a whole set (of the ``variant`` in play, a key of ``SETS``, or of either where it is
    None) where it holds three pieces short of the set's count or more (see the module's
    docstring), and a warning that says how many were changed, its ``guessed`` counting
    those read anew or added; else ``reading`` itself. A piece missed on an empty cell is
    looked for only where the photo's ``edges`` and ``image`` (float32 (H, W) or (H, W, C),
    what a piece differs from the table by: the log ratio on a plain table, the strength on
    a print) are given, and one missed under another only where its ``edges`` and
    ``log_ratio`` (float32 (H, W, 3)) are. A piece missed is put on top of another, or under
    it, only where the game allows ``stacks``, and a large one beside a large one only where
    it lets ``larges_touch`` (Canadian Style)."""
    below = profile.max_uncertain_confidence
    sets = sorted(SETS.values(), reverse=True) if variant is None else [SETS[variant]]
    pieces, doubtful = _without_surplus(list(reading.pieces), below, *sets[0])
    left_out, kept = len(reading.pieces) - len(pieces), {id(p) for p in pieces}

    def found(held: list[Reading], missing: tuple[int, int]) -> list[Reading]:
        """``held`` with a piece of the kind ``missing`` read where the photo shows it."""
        completed = _stack_completed(held, below, reading, missing) if stacks else held
        if completed is held and edges is not None and image is not None:
            completed = _unseen_added(held, below, reading, missing, edges, image, larges_touch)
        if completed is held and stacks and edges is not None and log_ratio is not None:
            completed = _lower_added(held, below, reading, missing, edges, log_ratio, profile.lower_base_contrast)
        return completed

    for per_kind, count in sets:
        if len(pieces) == count:
            pieces = _kinds_swapped(pieces, below, per_kind, larges_touch)
        else:
            pieces = _completed(pieces, below, per_kind, count, found, larges_touch)
    guessed = sum(id(p) not in kept for p in pieces)  # read anew or added
    changed = left_out + guessed
    if not changed:
        return reading
    whole = next(count for _, count in sets if len(pieces) >= count)  # the set fitted
    warning = (f"read as a whole set of {whole} pieces (a finished game places them all): {changed} marked "
               f"piece{'s' if changed > 1 else ''} changed to fit it; check {'them' if changed > 1 else 'it'}")
    return dataclasses.replace(reading, pieces=pieces, warnings=(*reading.warnings, warning),
                               doubtful_empty=tuple(sorted({*reading.doubtful_empty, *doubtful})),
                               guessed=reading.guessed + guessed)


def _kinds(pieces: list[Reading]) -> Counter:
    """How many of ``pieces`` there are of each kind (colour index, size)."""
    return Counter((p.color_index, p.size) for p in pieces)


def _without_surplus(pieces: list[Reading], below: float, per_kind: int, count: int
                     ) -> tuple[list[Reading], list[tuple[int, int]]]:
    """``pieces`` with their flagged pieces of kinds over the supply (``per_kind`` of each)
    left out, least sure first and pieces on top of stacks before the rest, while there are
    more than a whole set (``count``); and the cells (col, row) left empty."""
    emptied = []
    while len(pieces) > count:
        kinds = _kinds(pieces)
        under_another = {(p.col, p.row) for p in pieces if p.level == 1}
        surplus = [p for p in pieces if kinds[(p.color_index, p.size)] > per_kind and p.confidence < below
                   and (p.level == 1 or (p.col, p.row) not in under_another)]
        if not surplus:
            break
        phantom = min(surplus, key=lambda p: (-p.level, p.confidence))
        log.info("more pieces than a set holds: %s on (%d, %d) left out", COLOR_ORDER[phantom.color_index],
                 phantom.col, phantom.row)
        pieces = [p for p in pieces if p is not phantom]
        if phantom.level == 0:
            emptied.append((phantom.col, phantom.row))
    return pieces, emptied


def _short(kinds: Counter, per_kind: int) -> list[tuple[int, int]]:
    """The kinds (colour index, size) of which ``kinds`` holds fewer than ``per_kind``."""
    return [(colour, size) for colour in range(len(COLOR_ORDER)) for size in (1, 2, 3)
            if kinds[(colour, size)] < per_kind]


def _kinds_swapped(pieces: list[Reading], below: float, per_kind: int, larges_touch: bool) -> list[Reading]:
    """``pieces`` (a whole set's count, ``per_kind`` of each kind) with the least sure piece
    of the one kind over the supply read as the one kind short, where the two are of one
    size or one colour (:func:`_misread_kinds`)."""
    swapped = _misread_kinds(pieces, below, per_kind, larges_touch)
    if len(swapped) != 1 or swapped[0] is pieces:
        return pieces
    return _logged(swapped[0], pieces, "a whole set")


def _completed(pieces: list[Reading], below: float, per_kind: int, count: int, found,
               larges_touch: bool) -> list[Reading]:
    """``pieces`` one to ``_MOST_MISSED`` short of a whole set of ``count`` (``per_kind`` of
    each kind) with the pieces missing read where the photo shows them (:func:`_all_found`).
    Where one kind is one over the supply, its least sure piece, flagged and less sure than
    the others of its kind, is first read as each kind short of its size, then of its
    colour, in turn (:func:`_misread_kinds`), and the pieces still missing looked for; the
    first way all are found is kept. Else ``pieces``."""
    for start in _misread_kinds(pieces, below, per_kind, larges_touch):
        missing = _missing_kinds(start, per_kind, count)
        completed = _all_found(start, missing, found) if missing else start
        if completed is not start:
            _logged(start, pieces, "short of a whole set")
            return completed
    return pieces


def _misread_kinds(pieces: list[Reading], below: float, per_kind: int, larges_touch: bool) -> list[list[Reading]]:
    """``pieces`` as read, where no kind is over the supply (``per_kind`` of each); where one
    kind is one over, ``pieces`` with its least sure piece (flagged, and less sure than the
    others of its kind) read as each kind short of the supply: of its size (another colour),
    then of its colour (another size, its outline scaled to it), where it stands alone in its
    cell and no neighbour holds that size (unless it is large and ``larges_touch``); else
    none."""
    kinds = _kinds(pieces)
    over = [kind for kind, n in kinds.items() if n > per_kind]
    if not over:
        return [pieces]
    if len(over) > 1 or kinds[over[0]] != per_kind + 1:
        return []
    alike = sorted((p for p in pieces if (p.color_index, p.size) == over[0]), key=lambda p: p.confidence)
    misread = alike[0]
    if misread.confidence >= min(below, alike[1].confidence):
        return []
    short = _short(kinds, per_kind)
    read_as = [dataclasses.replace(misread, color_index=colour) for colour, size in short if size == misread.size]
    cell = (misread.col, misread.row)
    placed = {(p.col, p.row, p.size) for p in pieces}
    if sum((p.col, p.row) == cell for p in pieces) == 1:
        read_as += [_resized(misread, size) for colour, size in short if colour == misread.color_index
                    and ((larges_touch and size == SIZES[-1]) or not size_beside(cell, size, placed))]
    return [[again if p is misread else p for p in pieces] for again in read_as]


def _resized(piece: Reading, size: int) -> Reading:
    """``piece`` read at ``size``, its outline scaled about its centre to that size's base."""
    centre = np.asarray(piece.center)
    shape = centre + (piece.outline - centre) * (BASE_MM[size] / BASE_MM[piece.size])
    return dataclasses.replace(piece, size=size, outline=shape)


def _logged(swapped: list[Reading], pieces: list[Reading], why: str) -> list[Reading]:
    """``swapped``, ``pieces`` with a piece read as another kind, having logged which."""
    for misread in (p for p, q in zip(swapped, pieces) if p is not q):
        log.info("%s: the piece on (%d, %d) read as a %s %s", why, misread.col, misread.row,
                 COLOR_ORDER[misread.color_index], SIZE_NAMES[misread.size])
    return swapped


def _missing_kinds(pieces: list[Reading], per_kind: int, count: int) -> list[tuple[int, int]]:
    """The kinds (colour index, size) of the pieces missing from a whole set of ``count``
    (``per_kind`` of each kind), one for each piece, where ``pieces`` hold one to
    ``_MOST_MISSED`` fewer and no kind over the supply; else none."""
    kinds = _kinds(pieces)
    if not 1 <= count - len(pieces) <= _MOST_MISSED or any(n > per_kind for n in kinds.values()):
        return []
    return [kind for kind in _short(kinds, per_kind) for _ in range(per_kind - kinds[kind])]


def _all_found(pieces: list[Reading], missing: list[tuple[int, int]], found) -> list[Reading]:
    """``pieces`` with a piece of each kind ``missing`` read where the photo shows it
    (``found(pieces, kind)``, which returns ``pieces`` itself where it shows none), each
    looked for first in turn (a piece read may rule out a place for the next; two of one kind
    missing are one order, tried once); ``pieces`` itself where any stays unfound."""
    for order in dict.fromkeys(tuple(missing[start:] + missing[:start]) for start in range(len(missing))):
        completed = pieces
        for kind in order:
            more = found(completed, kind)
            if more is completed:
                break
            completed = more
        else:
            return completed
    return pieces


def _stack_completed(pieces: list[Reading], below: float, reading: CityReading,
                     missing: tuple[int, int]) -> list[Reading]:
    """``pieces`` (short of a whole set, the kind ``missing`` (colour index, size)) with
    the piece missing put on top of the least sure flagged piece of its colour that is
    alone in its cell and larger than it, where no neighbour holds a piece of its size;
    ``reading`` gives the camera and the pitch its outline is modelled at."""
    colour, size = missing
    per_cell = Counter((p.col, p.row) for p in pieces)
    placed = {(p.col, p.row, p.size) for p in pieces}
    lowers = [p for p in pieces if per_cell[(p.col, p.row)] == 1 and p.color_index == colour and p.size > size
              and p.confidence < below and not size_beside((p.col, p.row), size, placed)]
    if not lowers:
        return pieces
    lower = min(lowers, key=lambda p: (p.confidence, p.row, p.col))
    shape = outline(reading.camera, np.array([lower.col, lower.row], np.float64), size, reading.pitch_mm,
                    seat_height_mm(lower.size, size))
    upper = Reading(lower.col, lower.row, colour, size, 1, lower.confidence,
                    tuple(float(v) for v in shape.mean(axis=0)), shape)
    log.info("a whole set but one: a %s stack read on (%d, %d)", COLOR_ORDER[colour], lower.col, lower.row)
    return pieces + [upper]


def _unseen_added(pieces: list[Reading], below: float, reading: CityReading, missing: tuple[int, int],
                  edges: EdgeTensor, image: np.ndarray, larges_touch: bool) -> list[Reading]:
    """``pieces`` (short of a whole set, the kind ``missing`` (colour index, size), and
    no larger piece of its colour to put it on) with the piece missing put on the empty
    cell beside them, where no neighbour holds a piece of its size (unless it is large and
    ``larges_touch``), on which its outline lies along the strongest ``edges``
    (:func:`edge_fit.outlines_strength`, its side at ``reading``'s edge scale) and differs
    most from the ring round it in ``image`` (:func:`second_look.outline_contrasts`), where
    one cell is both; flagged (confidence half of ``below``)."""
    if reading.edge_scale is None:
        return pieces
    colour, size = missing
    taken = {(p.col, p.row) for p in pieces}
    placed = {(p.col, p.row, p.size) for p in pieces}
    free = larges_touch and size == SIZES[-1]  # a large piece
    cells = [cell for cell in cells_beside(taken, taken) if free or not size_beside(cell, size, placed)]
    if len(cells) < 2:
        return pieces
    side = BASE_MM[size] / reading.edge_scale
    strength = outlines_strength(edges, reading.camera, np.array(cells, np.float64), np.full(len(cells), side),
                                 np.full(len(cells), colour))
    contrast = outline_contrasts(dataclasses.replace(reading, pieces=pieces), cells, size, image)
    if int(np.argmax(strength)) != int(np.argmax(contrast)):
        return pieces
    cell = cells[int(np.argmax(strength))]
    shape = outline(reading.camera, np.array(cell, np.float64), size, reading.pitch_mm)
    log.info("a whole set but one: a %s piece read on (%d, %d)", COLOR_ORDER[colour], *cell)
    return pieces + [Reading(cell[0], cell[1], colour, size, 0, below / 2, tuple(float(v) for v in shape.mean(axis=0)),
                             shape)]


def _lower_added(pieces: list[Reading], below: float, reading: CityReading, missing: tuple[int, int],
                 edges: EdgeTensor, log_ratio: np.ndarray, contrast: float) -> list[Reading]:
    """``pieces`` (short of a whole set, the kind ``missing`` (colour index, size), with
    no flagged larger piece of its colour to hold it nor an empty cell that shows it) with the
    piece missing put under a smaller piece read alone: the lower of a stack read as its
    upper alone, its ring too faint to be told by itself (:func:`faces.add_ring_stacks`: a
    black piece's on a dark table). Of the pieces alone in their cell and smaller than it,
    where no neighbour holds its size, it goes under the one round which its ring differs
    most from the table beside it and from the piece above (:func:`faces.ring_under`, the
    least over the faces seen, in ``log_ratio``), where that is also the one along whose base
    the photo's ``edges`` are strongest as it shows round the piece and between its
    neighbours (:func:`edge_fit.base_strengths`, the best of poses a little shifted and
    turned round the ring's), by ``contrast`` times those round any other piece at least.
    Both pieces of the stack are flagged (confidence half of ``below`` at most)."""
    if reading.edge_scale is None:
        return pieces
    colour, size = missing
    per_cell = Counter((p.col, p.row) for p in pieces)
    placed = {(p.col, p.row, p.size) for p in pieces}
    uppers = [p for p in pieces if per_cell[(p.col, p.row)] == 1 and p.size < size
              and not size_beside((p.col, p.row), size, placed)]
    if len(uppers) < 2:
        return pieces
    poses = piece_poses(dataclasses.replace(reading, pieces=uppers), edges)
    rings, bases = np.full(len(uppers), -np.inf), np.zeros(len(uppers))
    for k, upper in enumerate(uppers):
        under, ring = ring_under(reading, upper, size, poses[upper.col, upper.row, upper.size], log_ratio)
        if ring is not None:
            rings[k] = min(ring.difference)
        cell = np.array([upper.col, upper.row], np.float64)
        hidden = [outline(reading.camera, cell, upper.size, reading.pitch_mm, seat_height_mm(size, upper.size))]
        hidden += [p.outline for p in pieces
                   if p is not upper and max(abs(p.col - upper.col), abs(p.row - upper.row)) <= 1]
        tried = under + _BASE_MOVES
        bases[k] = base_strengths(edges, reading.camera, np.tile(cell, (len(tried), 1)), tried, hidden).max()
    best, runner_up = np.argsort(-bases)[:2]
    if best != int(np.argmax(rings)) or not np.isfinite(rings[best]) or bases[best] < contrast * bases[runner_up]:
        return pieces
    upper = uppers[best]
    log.info("a whole set but one: a %s piece read under (%d, %d)", COLOR_ORDER[colour], upper.col, upper.row)
    stack = upper_of_stack(reading, upper, size, colour, min(upper.confidence, below / 2))
    return [q for p in pieces for q in (stack if p is upper else [p])]
