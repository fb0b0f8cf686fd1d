"""A stack told by the faces of its lower piece.

A pyramid resting on a larger one covers the upper part of every face of the lower piece:
on each face the camera sees, the band below the seat (the height at which the upper's base
rests) shows the lower piece, and the band above it the upper one, through two layers of
plastic where the two are alike in colour. A single piece's face is one plane of one
plastic: its two bands differ only by the noise and texture within them (the table seen
through the plastic, a neighbour's shadow), so a difference is measured in units of the
bands' own spread. A face turned from the lamp is darker all over, but its two bands alike:
each face is compared with itself. Only where every face seen differs across the seat is
the cell taken for a stack; a shadow or a glint lies on one face, not on all. A face seen
nearly edge-on is the exception: its few pixels blur into its neighbours, so it counts for
as little as it shows.

This finds stacks of two pieces of one colour, which show no second colour, and stacks
whose upper colour showed through or swamped the lower one in the candidates. Where both
bands read one colour, the change across the seat tells which: two layers of one plastic
deepen its tint, while a piece of another colour, seen through the lower's tint, turns the
hue away from it.

A black piece is opaque: whatever lies round it, its faces are grey, brighter where they
catch the lamp or a glint, but of no hue. A tinted piece resting on it is dark too (the
light passing through it falls on black), and with the glints it may differ from the black
band below by less than their spread; but it has a hue. So on a black piece the bands are
also compared in chroma alone (each pixel's log ratio less its mean over the channels),
where a glint does not count, and the upper piece's colour is the tint of that change (or,
where only the band above reads black, a black piece rests on a tinted one).

The lower piece's faces below the seat tell a stack read as its upper piece alone too: a
tinted lower piece over a light table, or dimmed by the light it passes, can differ from the
table too little to be seen at first. Round the piece read they show as a ring a few pixels
wide, of one tint all round and ending at the lower's base; a shadow lies on the side away
from the lamp and reaches past it, and a tinted piece's shadow is of its own tint. On a dim
table a glossy black lower piece can match the table in shade and tint alike; its outline,
straight all round and centred under the piece resting on it, tells it there.
"""
from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from typing import Callable

import cv2
import numpy as np

from calibration import Profile
from calibration.profile import BLACK

from ._lookup import pixels_where
from .camera import Camera
from .cells import NEIGHBOURS, SIZES, CityReading, Reading
from .colour import log_chroma
from .edge_fit import EdgeTensor, fit_poses, straightness
from .model import (BASE_MM, HEIGHT_MM, HEIGHT_PER_SIDE, cross_section, faces_seen, outline, pyramid_corners,
                    seat_height_mm)
from .seat_line import seat_line_strength
from .second_look import explained_mask

logger = logging.getLogger(__name__)

_GAP = 0.04  # of the lower piece's height left out each side of the seat, and at its base
_BAND = 0.25  # the upper band's height (of the lower piece's), at most up to _TOP
_TOP = 0.85
_BESIDE = 0.1  # the table band beside a face's base: this share of the base's side out from it
_MIN_BAND_PIXELS = 6
_MIN_FACES = 2
_SPREAD_FLOOR = 0.02  # log units added to the bands' spread: a flat render or a clipped face has none
_RING_FACES = 3  # faces a lower piece's ring shows on: all round but one side, as vision.stacks asks
_DOUBTED_CONFIDENCE = 0.9  # of the flagging threshold: a piece that may be a stack is flagged
_OUTLINED_CONFIDENCE = 0.5  # a stack told by its lower piece's outline alone is flagged


@dataclass(frozen=True)
class FaceContrast:
    """How a pyramid's faces differ across a seat (:func:`face_contrast`): ``difference``
    (the least over the faces seen, in units of the bands' spread, each face's weighted by
    how much of it shows, as :func:`face_contrast` says), ``standing_out`` (the least
    difference, so measured, between a face below the seat and the table beside its base),
    ``tint_difference`` (the least difference across the seat in chroma alone, unweighted)
    and the mean log ratio (3,) ``below`` and ``above`` the seat over those faces."""

    difference: float
    standing_out: float
    tint_difference: float
    below: np.ndarray
    above: np.ndarray


def face_contrast(log_ratio: np.ndarray, camera: Camera, cell: tuple[int, int], pose: np.ndarray,
                  seat: float) -> FaceContrast | None:
    """How the faces of the pyramid at ``pose`` (side in grid units, shift in col and row,
    turn in degrees, as from :func:`edge_fit.fit_poses`) on ``cell`` (col, row) differ across
    the height ``seat`` (a fraction of the pyramid's height): over the faces the camera
    sees, the least difference between the mean of ``log_ratio`` (float32 (H, W, 3)) in the
    band below the seat and in the band above it, in units of the bands' spread (root mean
    square over the channels), and so between the band below the seat and a band of the
    table beside the base (:class:`FaceContrast`). Each face's two differences are first
    multiplied by how many times fewer pixels its bands hold than the face seen best: a
    face seen edge-on is a sliver blurred with the table and the faces beside it, and tells
    little either way. None where fewer than ``_MIN_FACES`` faces show all three bands."""
    differences, standing_out, tint_differences, below, above, shown = [], [], [], [], [], []
    for table, lower, upper in _face_bands(log_ratio, camera, cell, pose, seat):
        differences.append(_difference(lower, upper))
        standing_out.append(_difference(lower, table))
        tint_differences.append(_difference(log_chroma(lower), log_chroma(upper)))
        below.append(lower.mean(axis=0))
        above.append(upper.mean(axis=0))
        shown.append(len(lower) + len(upper))
    if len(differences) < _MIN_FACES:
        return None
    # a face seen edge-on shows a few pixels, blurred with the table and the faces beside it
    forgiven = max(shown) / np.array(shown, np.float64)
    return FaceContrast(float(np.min(forgiven * differences)), float(np.min(forgiven * standing_out)),
                        min(tint_differences), np.mean(below, axis=0), np.mean(above, axis=0))


def _face_bands(log_ratio: np.ndarray, camera: Camera, cell: tuple[int, int], pose: np.ndarray, seat: float,
                upper_share: float | None = None) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per face the camera sees of the pyramid at ``pose`` (as for :func:`face_contrast`) on
    ``cell`` (col, row), the (M, 3) values of ``log_ratio`` in the table band beside its
    base, in its band below the height ``seat`` (a fraction of its height) and in its band
    above it, for the faces where each holds ``_MIN_BAND_PIXELS`` at least. Where
    ``upper_share`` is given, the band below leaves out what a pyramid resting at the seat,
    its base side that share of this one's, hides of it."""
    side, dx, dy, turn = (float(v) for v in pose)
    centre, turn = (cell[0] + dx, cell[1] + dy), np.radians(turn)
    bounds = (_GAP, seat - _GAP, seat + _GAP, min(seat + _BAND, _TOP))
    squares = [cross_section(camera, centre, side, turn, f) for f in bounds]
    beside = [cross_section(camera, centre, side * (1 + 2 * g), turn, 0.0) for g in (_GAP, _GAP + _BESIDE)]
    hidden = None
    if upper_share is not None:
        full = side * HEIGHT_PER_SIDE
        hidden = pyramid_corners(camera, np.array([centre], np.float64), np.array([side * upper_share]),
                                 np.array([full * upper_share]), lifts=full * seat, turns=turn)[0]
    bands = []
    # every cross-section's apex is the pyramid's: the first's base and apex tell the faces seen
    for k in np.nonzero(faces_seen(squares[0][None, :4], squares[0][None, 4])[0])[0]:
        found = (_band_pixels(log_ratio, beside[0][:4], beside[1][:4], k),
                 _band_pixels(log_ratio, squares[0][:4], squares[1][:4], k, hidden),
                 _band_pixels(log_ratio, squares[2][:4], squares[3][:4], k))
        if min(len(band) for band in found) >= _MIN_BAND_PIXELS:
            bands.append(found)
    return bands


def _difference(a: np.ndarray, b: np.ndarray) -> float:
    """How far apart the means of ``a`` and ``b`` ((N, 3), (M, 3)) are, in units of their
    pooled spread (per channel, plus ``_SPREAD_FLOOR``), root mean square over the channels."""
    spread = np.sqrt((a.var(axis=0) + b.var(axis=0)) / 2) + _SPREAD_FLOOR
    return float(np.sqrt(np.mean(((a.mean(axis=0) - b.mean(axis=0)) / spread) ** 2)))


def add_face_stacks(reading: CityReading, log_ratio: np.ndarray, poses: dict[tuple[int, int, int], np.ndarray],
                    colour_of: Callable[[np.ndarray], int], tint_of: Callable[[np.ndarray], int],
                    profile: Profile, detail: Callable[[], np.ndarray] | None = None) -> CityReading:
    """``reading`` with each cell holding one piece (medium or large) read again as a stack
    where its faces differ across the seat of a smaller piece (:func:`face_contrast`) by at
    least ``profile.stack_face_contrast``, or, on a black piece, in chroma by at least
    ``profile.stack_tint_contrast``; its outline laid on the photo's edges at its size: its
    pose from ``poses`` ((col, row, size) -> pose, :func:`edge_fit.fit_poses`; a piece
    without one is not tried). An upper size an orthogonal neighbour holds is not tried (a
    stacked piece is next to its neighbours' pieces); of the rest, the one whose seat the
    faces differ across most (past its threshold, a tint before all, and its colours read)
    is kept. The stack's pieces' colours are ``colour_of`` (the colour index of a mean log
    ratio (3,)) their bands, as :func:`_band_colours` reads them where the two are alike; on
    a black piece told by a tint, as :func:`_tint_colours` reads them. Both read the upper's
    colour, where the band above the seat does not show it, with ``tint_of`` (the colour
    index of a tinted piece whose log ratio changes the way the (3,) change given does).
    Each is as sure as the difference is past its threshold (sure at twice it), times the
    piece read's colour's. A piece whose faces differ across some seat by
    ``profile.stack_face_doubt`` or more, too little to read a stack (or differing by a shade
    of one piece: no colour named), may still be one: where ``detail`` gives the photo at a
    finer size (a callable returning uint8 (H, W, 3) RGB, the working image's view), it is
    read as a stack where the upper's rim shows across its faces at the seat there by
    ``profile.stack_seat_line`` (:func:`vision.seat_line.seat_line_strength`; as sure as that
    is past it, sure at twice it), its colours as its bands read them or, where they name
    none, both the band below's; else it is flagged for the player to check (its confidence
    made at most ``_DOUBTED_CONFIDENCE`` of ``max_uncertain_confidence``).

    A piece read might be the upper of a stack whose lower piece went unseen (black on a
    dark table); trying a larger lower under it here was measured and made far more stacks
    of single pieces (the band below a larger outline holds the piece's shadow) than it
    found: :func:`add_ring_stacks` looks for such a lower by its ring of another tint."""
    by_cell = _pieces_by_cell(reading)
    singles = [ps[0] for ps in by_cell.values() if len(ps) == 1 and (ps[0].col, ps[0].row, ps[0].size) in poses]
    tries = [(p, upper) for p in singles for upper in range(1, p.size)
             if upper not in {q.size for dc, dr in NEIGHBOURS for q in by_cell.get((p.col + dc, p.row + dr), [])}]
    if not tries:
        return reading
    best: dict[int, tuple[tuple[bool, float], Reading, int, tuple[int, int]]] = {}
    doubted: dict[int, Reading] = {}
    for piece, upper in tries:
        seat = seat_height_mm(piece.size, upper) / HEIGHT_MM[piece.size]
        found = face_contrast(log_ratio, reading.camera, (piece.col, piece.row),
                              poses[piece.col, piece.row, piece.size], seat)
        if found is None:
            continue
        told = min(found.difference, found.standing_out)
        if told >= profile.stack_face_doubt:
            doubted[id(piece)] = dataclasses.replace(
                piece, confidence=min(piece.confidence, _DOUBTED_CONFIDENCE * profile.max_uncertain_confidence))
        tint = _tint_colours(found, colour_of, tint_of) if piece.color_index == BLACK else None
        past = _past_thresholds(found, tint is not None, profile)
        colours = None if past is None else tint if past[0] else _band_colours(found, colour_of, tint_of, profile)
        if colours is None and told >= profile.stack_face_doubt and detail is not None:
            past = _past_seat_line(detail(), log_ratio.shape[1], reading.camera, (piece.col, piece.row),
                                   poses[piece.col, piece.row, piece.size], seat, profile)
            colours = None if past is None else (_band_colours(found, colour_of, tint_of, profile)
                                                 or (colour_of(found.below),) * 2)
        if colours is not None and (id(piece) not in best or past > best[id(piece)][0]):
            best[id(piece)] = (past, piece, upper, colours)
    if best:
        logger.info("%d stack(s) told by the faces of their lower pieces", len(best))
    stacks = {key: _stack(reading, piece, upper, past[1], colours) for key, (past, piece, upper, colours) in best.items()}
    stacks.update({key: [piece] for key, piece in doubted.items() if key not in stacks})
    return dataclasses.replace(reading, pieces=[q for p in reading.pieces for q in stacks.get(id(p), [p])])


def _tint_colours(found: FaceContrast, colour_of, tint_of) -> tuple[int, int] | None:
    """The colours (lower, upper) of a stack read black whose faces ``found`` differ across
    the seat in tint. Where the band below the seat reads black (``colour_of``), the lower
    piece is black and the upper a tint lit through onto it, dark enough to read black too:
    its colour is ``tint_of`` the change across the seat. Else, where the band above it
    reads black, a black piece rests on a tinted one (its colour as ``colour_of`` reads the
    band below). None where neither band reads black."""
    below = colour_of(found.below)
    if below == BLACK:
        return BLACK, tint_of(found.above - found.below)
    return (below, BLACK) if colour_of(found.above) == BLACK else None


def _band_colours(found: FaceContrast, colour_of, tint_of, profile: Profile) -> tuple[int, int] | None:
    """The colours (lower, upper) of a stack whose faces ``found`` differ across the seat
    overall: each band's (``colour_of``). Where the two read one colour, two layers of one
    plastic deepen its own tint above the seat: the chroma of the change across it points
    the way the band below's does. Where it points away, the upper piece is of another
    colour, seen through the lower's tint (``tint_of`` the change), if the change has a hue
    (differs in chroma by ``profile.stack_tint_contrast``); else, or where that colour is
    the lower's, the faces differ by a shade of one piece, and None."""
    lower, upper = colour_of(found.below), colour_of(found.above)
    change = found.above - found.below
    if lower != upper or float(log_chroma(found.below) @ log_chroma(change)) >= 0.0:
        return lower, upper
    if found.tint_difference < profile.stack_tint_contrast:
        return None
    other = tint_of(change)
    return None if other == lower else (lower, other)


def _past_thresholds(found: FaceContrast, tinted: bool, profile: Profile) -> tuple[bool, float] | None:
    """Whether the faces ``found`` tell a stack, as (told by a tint, the difference that
    tells it over its threshold), or None where they do not; by a tint only where the
    piece's bands are black and ``tinted`` (:func:`_tint_colours`)."""
    if tinted and found.tint_difference >= profile.stack_tint_contrast:
        return True, found.tint_difference / profile.stack_tint_contrast
    if min(found.difference, found.standing_out) >= profile.stack_face_contrast:
        return False, found.difference / profile.stack_face_contrast
    return None


def _past_seat_line(detail: np.ndarray, working_width: int, camera: Camera, cell: tuple[int, int], pose: np.ndarray,
                    seat: float, profile: Profile) -> tuple[bool, float] | None:
    """Whether the rim of a piece resting at the height ``seat`` (a fraction of the lower's)
    on the pyramid at ``pose`` on ``cell`` (col, row) shows across its faces in ``detail``
    (the photo at a finer size than the working image's ``working_width``) by
    ``profile.stack_seat_line``, as :func:`_past_thresholds` tells it; else None."""
    side, dx, dy, turn = (float(v) for v in pose)
    strength = seat_line_strength(detail, detail.shape[1] / working_width, camera, (cell[0] + dx, cell[1] + dy),
                                  side, np.radians(turn), seat)
    if strength is None or strength < profile.stack_seat_line:
        return None
    return False, strength / profile.stack_seat_line


def _stack(reading: CityReading, piece: Reading, upper: int, ratio: float, colours: tuple[int, int]) -> list[Reading]:
    """``piece`` as the lower of the stack :func:`add_face_stacks` reads on its cell, its
    faces' difference ``ratio`` times its threshold, with the piece of size ``upper`` on it;
    ``colours`` (lower, upper) their colour indices."""
    sure = _stack_confidence(ratio, piece)
    lift = seat_height_mm(piece.size, upper)
    return [dataclasses.replace(piece, color_index=colours[0], confidence=sure),
            _unseen_piece(reading, (piece.col, piece.row), colours[1], upper, lift, sure)]


def _stack_confidence(ratio: float, piece: Reading) -> float:
    """How sure a stack read on ``piece``'s cell is, told by a difference ``ratio`` times its
    threshold: sure at twice it, times the piece read's confidence."""
    return float(np.clip(ratio - 1.0, 0.0, 1.0)) * piece.confidence


def _unseen_piece(reading: CityReading, cell: tuple[int, int], colour: int, size: int, lift: float,
                  confidence: float) -> Reading:
    """The piece of ``colour`` (index) and ``size`` a stack on ``cell`` (col, row) holds but
    no candidate showed, its base ``lift`` millimetres up (0 on the table, where it is the
    lower piece): its centre where its base centre is seen, its outline projected."""
    colrow = np.array(cell, np.float64)
    centre = tuple(float(v) for v in reading.camera.project(np.append(colrow, lift / reading.pitch_mm)[None])[0])
    return Reading(cell[0], cell[1], colour, size, int(lift > 0), confidence, centre,
                   outline(reading.camera, colrow, size, reading.pitch_mm, lift))


def _pieces_by_cell(reading: CityReading) -> dict[tuple[int, int], list[Reading]]:
    """The pieces of ``reading`` by cell (col, row)."""
    by_cell: dict[tuple[int, int], list[Reading]] = {}
    for p in reading.pieces:
        by_cell.setdefault((p.col, p.row), []).append(p)
    return by_cell


def _band_pixels(log_ratio: np.ndarray, low: np.ndarray, high: np.ndarray, k: int,
                 hidden: np.ndarray | None = None) -> np.ndarray:
    """(M, 3) values of ``log_ratio`` in the band of face ``k`` between the cross-sections
    ``low`` and ``high`` ((4, 2) (x, y) corners each), less the pixels within the convex hull
    of the points ``hidden`` ((K, 2) (x, y)) where given."""
    quad = np.array([low[k], low[(k + 1) % 4], high[(k + 1) % 4], high[k]])
    h, w = log_ratio.shape[:2]
    x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(quad.max(axis=0)).astype(int) + 1, (w, h))
    if x1 <= x0 or y1 <= y0:
        return np.zeros((0, 3), np.float32)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad - (x0, y0)).astype(np.int32), 1)
    if hidden is not None:
        hull = cv2.convexHull(hidden.astype(np.float32)).reshape(-1, 2)
        cv2.fillConvexPoly(mask, np.round(hull - (x0, y0)).astype(np.int32), 0)
    return pixels_where(log_ratio[y0:y1, x0:x1], mask > 0)


def add_ring_stacks(reading: CityReading, log_ratio: np.ndarray, poses: dict[tuple[int, int, int], np.ndarray],
                    colour_of: Callable[[np.ndarray], int], tint_of: Callable[[np.ndarray], int],
                    profile: Profile, larges_touch: bool = False, outline_edges: EdgeTensor | None = None) -> CityReading:
    """``reading`` with each cell holding one small or medium piece read again as the upper
    of a stack where a larger piece's ring shows round it: the lower piece's faces below the
    seat, laid under the piece (:func:`_lower_pose`, the piece's pose from ``poses`` as for
    :func:`add_face_stacks`), differ by at least ``profile.stack_face_contrast`` both
    from the table beside the base and from the band above the seat (the piece itself) on
    every face seen, ``_RING_FACES`` of them at least (:func:`ring_contrast`), and from that
    table in chroma by at least ``profile.stack_tint_contrast``; and the change from the
    table on every face is of one tint (``tint_of``). Where that tint is the piece's own (a
    tinted piece's shadow is of its own tint), the piece may be the upper of another colour
    misread as the lower's where the two tints mix: it is read again as the colour
    ``colour_of`` (the colour index of a mean log ratio (3,)) the band above the seat reads,
    where that differs (:func:`_seen_through`). A lower size an orthogonal neighbour holds
    is not tried (a large one is where ``larges_touch``: Canadian Style lets larges touch),
    and the first size (smallest) that passes is kept. The stack's pieces are
    as sure as the least difference is past its threshold (sure at twice it), times the
    piece read's confidence. Where ``outline_edges`` (the photo's edges, given on a dim
    table) are given, a ring that fails those tests is a lower piece all the same where its
    outline is straight (:func:`_outlined_lower`), of the colour ``colour_of`` its band below
    the seat reads, and flagged.

    A lower piece of tinted plastic over a light table, or one dimmed by the light it lets
    through, can differ from the table by less than the candidates' threshold, so that only
    the upper piece is seen; the ring is a few pixels wide but runs round the whole piece,
    where a shadow lies on the side away from the lamp and reaches past the lower's base.
    On a dim table a black lower piece can match the table in shade and tint alike, but not
    its straight outline."""
    if reading.edge_scale is None:
        return reading
    by_cell = _pieces_by_cell(reading)
    ruled_out = None if outline_edges is None else explained_mask(reading.pieces, log_ratio.shape[:2])
    stacks = {}
    for (col, row), pieces in by_cell.items():
        piece = pieces[0]
        if len(pieces) > 1 or piece.size == 3 or (col, row, piece.size) not in poses:
            continue
        beside = {q.size for dc, dr in NEIGHBOURS for q in by_cell.get((col + dc, row + dr), [])}
        if larges_touch:
            beside.discard(SIZES[-1])
        for lower in sorted(set(range(piece.size + 1, 4)) - beside):
            under, ring = ring_under(reading, piece, lower, poses[col, row, piece.size], log_ratio)
            if ring is None:
                continue
            found = _ringed_stack(reading, piece, lower, ring, colour_of, tint_of, profile)
            if found is None and outline_edges is not None and _outlined_lower(reading, piece, lower, under,
                                                                               outline_edges, ruled_out, profile):
                found = upper_of_stack(reading, piece, lower, colour_of(ring.below), _OUTLINED_CONFIDENCE)
            if found is not None:
                stacks[id(piece)] = found
                break
    if stacks:
        logger.info("%d stack(s) told by the ring of their lower pieces", len(stacks))
    return dataclasses.replace(reading, pieces=[q for p in reading.pieces for q in stacks.get(id(p), [p])])


def _ringed_stack(reading: CityReading, piece: Reading, lower: int, ring: RingContrast,
                  colour_of: Callable[[np.ndarray], int], tint_of: Callable[[np.ndarray], int],
                  profile: Profile) -> list[Reading] | None:
    """The stack of ``piece`` of ``reading`` on a piece of size ``lower`` whose ``ring``
    shows round it, as :func:`add_ring_stacks` tells it by the ring's contrast and tint (the
    two pieces, from the table up), or None."""
    if (len(ring.difference) < _RING_FACES or min(ring.difference) < profile.stack_face_contrast
            or min(ring.tint_difference) < profile.stack_tint_contrast):
        return None
    tints = {tint_of(change) for change in ring.change}
    if len(tints) != 1:
        return None
    colour = tints.pop()
    upper = piece if colour != piece.color_index else _seen_through(piece, ring, colour, colour_of, profile)
    if upper is None:
        return None
    sure = _stack_confidence(min(ring.difference) / profile.stack_face_contrast, upper)
    return upper_of_stack(reading, upper, lower, colour, sure)


def _outlined_lower(reading: CityReading, piece: Reading, lower: int, under: np.ndarray, edges: EdgeTensor,
                    ruled_out: np.ndarray, profile: Profile) -> bool:
    """Whether a piece of size ``lower`` under ``piece`` of ``reading`` shows by its outline:
    laid along the strongest of the photo's ``edges`` on the cell (:func:`edge_fit.fit_poses`),
    its base centre lies within ``profile.ring_outline_shift`` grid units of where the piece
    resting on it puts it (``under``, the pose :func:`ring_under` gives), and every side and
    ridge of it seen off the pieces read (``ruled_out``, uint8 (H, W)) is a straight edge
    (:func:`edge_fit.straightness` at least ``profile.ring_straightness``). An outline laid
    on the piece's own sides, or on a shadow's, lies off its centre."""
    cell = np.array([[piece.col, piece.row]], np.float64)
    pose = fit_poses(edges, reading.camera, cell, np.array([BASE_MM[lower] / reading.edge_scale]))
    if np.hypot(*(pose[0, 1:3] - under[1:3])) > profile.ring_outline_shift:
        return False
    return float(straightness(edges, reading.camera, cell, pose, ruled_out)[0]) >= profile.ring_straightness


def _seen_through(piece: Reading, ring: RingContrast, lower: int, colour_of: Callable[[np.ndarray], int],
                  profile: Profile) -> Reading | None:
    """``piece``, read of the colour index ``lower`` its ``ring`` shows, as an upper piece of
    another colour, misread as the lower's where the two tints mix: of the colour
    ``colour_of`` the band above the seat, where that band differs from the ring in chroma
    by ``profile.stack_tint_contrast`` on every face and reads another colour; else None (a
    ring of the piece's own tint is the light it casts round it)."""
    colour = colour_of(ring.above)
    if min(ring.tint_across) < profile.stack_tint_contrast or colour == lower:
        return None
    return dataclasses.replace(piece, color_index=colour)


def ring_under(reading: CityReading, piece: Reading, lower: int, pose: np.ndarray,
               log_ratio: np.ndarray) -> tuple[np.ndarray, RingContrast | None]:
    """The pose (as :func:`edge_fit.fit_poses` gives) of a piece of size ``lower`` under the
    ``piece`` of ``reading``, fitted on the table at ``pose`` (:func:`_lower_pose`), and how
    its ring shows round that piece in ``log_ratio`` (:func:`ring_contrast`)."""
    cell, lift = (piece.col, piece.row), seat_height_mm(lower, piece.size)
    under = _lower_pose(reading.camera, cell, pose, lift / reading.pitch_mm, BASE_MM[lower] / reading.edge_scale)
    return under, ring_contrast(log_ratio, reading.camera, cell, under, lift / HEIGHT_MM[lower],
                                BASE_MM[piece.size] / BASE_MM[lower])


@dataclass(frozen=True)
class RingContrast:
    """How a lower piece's faces below the seat show round the piece resting on it
    (:func:`ring_contrast`), per face seen: ``difference`` (from the table beside the base
    and from the band above the seat, the lesser, in units of the bands' spread, weighted as
    in :func:`face_contrast`), ``tint_difference`` (from the table, in chroma alone,
    unweighted), ``change`` (3,) (the band's mean log ratio less the table's) and
    ``tint_across`` (from the band above the seat, in chroma alone, unweighted); and over
    the faces, the mean log ratios of the band above the seat, ``above`` (3,), and of the
    band below it, ``below`` (3,)."""

    difference: np.ndarray
    tint_difference: np.ndarray
    change: np.ndarray
    tint_across: np.ndarray
    above: np.ndarray
    below: np.ndarray


def ring_contrast(log_ratio: np.ndarray, camera: Camera, cell: tuple[int, int], pose: np.ndarray, seat: float,
                  upper_share: float) -> RingContrast | None:
    """How the faces of the pyramid at ``pose`` (as for :func:`face_contrast`) on ``cell``
    (col, row) show below the height ``seat`` (a fraction of its height) round a pyramid
    resting there whose base side is ``upper_share`` of its own: on each face seen, the band
    below the seat less what that upper pyramid hides of it, against the table beside the
    base and the band above the seat (:class:`RingContrast`). None where fewer than
    ``_MIN_FACES`` faces show all three bands."""
    differences, tint_differences, changes, tint_across, aboves, belows, shown = [], [], [], [], [], [], []
    for table, ring, above in _face_bands(log_ratio, camera, cell, pose, seat, upper_share):
        differences.append(min(_difference(ring, table), _difference(ring, above)))
        tint_differences.append(_difference(log_chroma(ring), log_chroma(table)))
        belows.append(ring.mean(axis=0))
        changes.append(belows[-1] - table.mean(axis=0))
        aboves.append(above.mean(axis=0))
        tint_across.append(_difference(log_chroma(above), log_chroma(ring)))
        shown.append(len(ring))
    if len(differences) < _MIN_FACES:
        return None
    forgiven = max(shown) / np.array(shown, np.float64)
    return RingContrast(forgiven * differences, np.array(tint_differences), np.array(changes), np.array(tint_across),
                        np.mean(aboves, axis=0), np.mean(belows, axis=0))


def _lower_pose(camera: Camera, cell: tuple[int, int], pose: np.ndarray, lift: float, side: float) -> np.ndarray:
    """The pose (as :func:`edge_fit.fit_poses` gives) of a lower piece of base ``side``
    (grid units) under the piece at ``pose`` on ``cell`` (col, row), that piece resting
    ``lift`` grid units up: the point where its base centre is seen, taken back to the plane
    at that height (the pose was fitted on the table, and a raised piece seen from aside
    looks shifted), and the piece's turn."""
    seen = camera.project(np.array([[cell[0] + pose[1], cell[1] + pose[2], 0.0]]))[0]
    plane = np.column_stack([camera.P[:, 0], camera.P[:, 1], camera.P[:, 2] * lift + camera.P[:, 3]])
    x, y, w = np.linalg.solve(plane, np.array([seen[0], seen[1], 1.0]))
    return np.array([side, x / w - cell[0], y / w - cell[1], pose[3]])


def upper_of_stack(reading: CityReading, piece: Reading, lower: int, colour: int, sure: float) -> list[Reading]:
    """``piece`` of ``reading`` read again as the upper of a stack on its cell, on a piece of
    size ``lower`` and colour index ``colour`` that no candidate showed: the two pieces, from
    the table up, both of confidence ``sure``."""
    lift = seat_height_mm(lower, piece.size)
    colrow = np.array([piece.col, piece.row], np.float64)
    return [_unseen_piece(reading, (piece.col, piece.row), colour, lower, 0.0, sure),
            dataclasses.replace(piece, level=1, confidence=sure,
                                outline=outline(reading.camera, colrow, piece.size, reading.pitch_mm, lift))]
