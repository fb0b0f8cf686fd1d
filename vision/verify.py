"""Checking a reading against the photo, once the grid and camera are known: what a piece of
each size on each cell would cover is predicted, and compared with what differs from the
table.

Readings whose outline is mostly table are dropped: they are bits of something else (a rule
card's print, the edge of a shadow) that happened to fall on the grid. Then empty cells
beside the city, and candidates apart from it, get a second look (:mod:`vision.second_look`),
and stacks are told by their lower piece's faces (:mod:`vision.faces`), whether it was read
or only the piece resting on it.

Last, a reading with hardly any edge along its outline is dropped: a smooth change of the
table's shade can differ from the table estimate as a piece does, but has no outline.
"""
from __future__ import annotations

import dataclasses
import functools
import logging
from typing import Callable

import numpy as np

from calibration import Profile
from calibration.profile import COLOR_ORDER

from .cells import CityReading, cells_beside
from .edge_fit import EdgeTensor, fit_poses, outline_strengths, weakest_sides
from .faces import add_face_stacks, add_ring_stacks
from .model import BASE_MM, window_mask
from .pieces import Blob, FaintStray
from .second_look import PhotoColours, add_strays, add_unseen, black_sizes_from_edges, relative_edges

logger = logging.getLogger(__name__)

_NONE_FULL = np.zeros(len(COLOR_ORDER), bool)  # no colour ruled out
_MIN_EDGE_COMPARED = 4  # pieces on the table whose median edge strength an edgeless one is told against


def check_reading(reading: CityReading, strength: np.ndarray, log_ratio: np.ndarray, blobs: list[Blob],
                  plain: bool, table_level: float, profile: Profile, strays: list[Blob | FaintStray] = (),
                  outline_edges: EdgeTensor | None = None, stacks: bool = True,
                  larges_touch: bool = False, detail: Callable[[], np.ndarray] | None = None) -> CityReading:
    """``reading`` without the readings whose outline is mostly table, then with the pieces
    found on a second look at the empty cells beside it (sized by ``outline_edges`` too, the
    photo's edges round the city, see :func:`vision.second_look.add_unseen`), without the
    readings with no edge along their outline (:func:`drop_edgeless`: only the neighbours
    left may rule out a stack's upper size), with the stacks whose lower piece's faces tell
    them (:func:`vision.faces.add_face_stacks`, their colours read as a second look's are,
    a doubted one told by its upper's rim in ``detail``, the photo at a finer size, if given),
    and those read as their upper piece alone whose lower piece's ring shows round it
    (:func:`vision.faces.add_ring_stacks`, a large lower beside a large where
    ``larges_touch``; on a dim plain table, a ring that matches the table too, where its
    outline is straight), both only where the game allows ``stacks``,
    and the ``strays`` (candidates apart from the city, and faint regions there) that stand
    on the grid as a piece would (:func:`vision.second_look.add_strays`), less those with no edge along their
    outline in turn; last, on a dim plain table, with the empty cells where a piece may
    stand unseen (:func:`doubt_empty_cells`).
    ``strength``: float32 (H, W) from :func:`vision.colour.off_table`; ``log_ratio``:
    float32 (H, W, 3); ``blobs``: the candidates the reading was made of; ``plain``: whether
    the table has no pattern (only then are faint pieces looked for: on a pattern, a faint
    difference is the pattern; there, pieces that stand out a little from the print all
    over are); ``table_level``: the table's mean 8-bit brightness (only on a plain table no
    brighter than ``edge_table_level`` are pieces looked for by their edges alone, and black
    pieces sized by them, :func:`vision.second_look.black_sizes_from_edges`)."""
    differs = (strength > profile.unseen_threshold).astype(np.uint8)
    dim = plain and table_level <= profile.edge_table_level
    edges = relative_edges(log_ratio, differs, reading) if dim else None
    kept = drop_shapeless(reading, differs, profile)
    colours = PhotoColours.of(blobs, reading.color_offset, plain, profile)
    found = add_unseen(kept, differs, strength, log_ratio, colours, edges, profile, outline_edges)
    found = found if edges is None else black_sizes_from_edges(found, edges, profile)
    poses = piece_poses(found, outline_edges)
    found = drop_edgeless(found, poses, outline_edges, profile)
    if stacks:
        colour_of = functools.partial(colours.color, full=_NONE_FULL)
        found = add_face_stacks(found, log_ratio, poses, colour_of, colours.tint, profile, detail)
        found = add_ring_stacks(found, log_ratio, poses, colour_of, colours.tint, profile, larges_touch,
                                None if edges is None else outline_edges)
    found = add_strays(found, strays, log_ratio, colours, profile, outline_edges)
    poses = piece_poses(found, outline_edges, poses)
    found = drop_edgeless(found, poses, outline_edges, profile)
    return found if edges is None else doubt_empty_cells(found, poses, outline_edges, profile)


def piece_poses(reading: CityReading, edges: EdgeTensor | None,
                known: dict[tuple[int, int, int], np.ndarray] | None = None) -> dict[tuple[int, int, int], np.ndarray]:
    """The pose (:func:`edge_fit.fit_poses`) of each piece on the table of ``reading`` on the
    photo's ``edges``, at its size (at ``reading.edge_scale``), keyed by (col, row, size):
    those ``known`` already, and the others fitted; none without edges or that scale."""
    poses = dict(known or {})
    if edges is None or reading.edge_scale is None:
        return poses
    missing = sorted({(p.col, p.row, p.size) for p in reading.pieces if p.level == 0} - set(poses))
    if missing:
        cells = np.array([[col, row] for col, row, _ in missing], np.float64)
        sides = np.array([BASE_MM[size] for _, _, size in missing]) / reading.edge_scale
        poses.update(zip(missing, fit_poses(edges, reading.camera, cells, sides)))
    return poses


def drop_edgeless(reading: CityReading, poses: dict[tuple[int, int, int], np.ndarray], edges: EdgeTensor | None,
                  profile: Profile) -> CityReading:
    """``reading`` without the cells whose piece on the table has hardly any edge along its
    outline: where the edges across it, its outline laid on the photo's ``edges`` at its
    pose in ``poses`` (:func:`piece_poses`; :func:`edge_fit.outline_strengths`), are under
    ``edgeless_share`` of the median over the pieces read. Whatever the colours, a pyramid's
    outline is where it meets the table; a smooth change of the table's shade (round a
    lamp's hot spot on a glossy table, say) can differ from the table estimate as a piece
    does, but has no outline."""
    lower = [p for p in reading.pieces if p.level == 0 and (p.col, p.row, p.size) in poses]
    if edges is None or len(lower) < _MIN_EDGE_COMPARED:
        return reading
    cells = np.array([[p.col, p.row] for p in lower], np.float64)
    strength = outline_strengths(edges, reading.camera, cells, np.array([poses[p.col, p.row, p.size] for p in lower]))
    dropped = {(p.col, p.row) for p, s in zip(lower, strength) if s < profile.edgeless_share * np.median(strength)}
    if not dropped:
        return reading
    logger.info("%d reading(s) with no edge along their outline dropped", len(dropped))
    return dataclasses.replace(reading, pieces=[p for p in reading.pieces if (p.col, p.row) not in dropped])


def doubt_empty_cells(reading: CityReading, poses: dict[tuple[int, int, int], np.ndarray],
                      edges: EdgeTensor | None, profile: Profile) -> CityReading:
    """``reading`` with more ``doubtful_empty`` cells: the empty cells beside its pieces (and
    beside those cells, and so on; within the window of ``edges``) where the outline of a
    pyramid of some size, laid on the photo's ``edges`` at its best pose
    (:func:`_best_outlines`), runs along edges at least ``empty_doubt_share`` as strong as
    the median piece on the table's at its pose in ``poses`` (:func:`piece_poses`), and at
    least ``empty_doubt_contrast`` times the median over the empty cells beside the pieces
    (where the table's own pattern draws outlines round most of them, none stands out); and
    where none of the outline's sides is under ``empty_doubt_side_share`` of that piece's (a
    line of the table's grain or print lies along some sides only). On a dim table a black
    piece can differ from the table too little to be read, yet its outline shows."""
    lower = [p for p in reading.pieces if p.level == 0 and (p.col, p.row, p.size) in poses]
    if edges is None or reading.edge_scale is None or len(lower) < _MIN_EDGE_COMPARED:
        return reading
    cells = np.array([[p.col, p.row] for p in lower], np.float64)
    typical = np.median(outline_strengths(edges, reading.camera, cells,
                                          np.array([poses[p.col, p.row, p.size] for p in lower])))
    seen = {(p.col, p.row) for p in reading.pieces}
    ring = _beside(reading, edges, seen, seen)
    if not ring:
        return reading
    strength, weakest = _best_outlines(reading, ring, edges)
    least = max(profile.empty_doubt_share * typical, profile.empty_doubt_contrast * float(np.median(strength)))
    doubtful = []
    while True:
        found = [cell for cell, s, w in zip(ring, strength, weakest)
                 if s >= least and w >= profile.empty_doubt_side_share * typical]
        doubtful += found
        seen |= set(ring)
        ring = _beside(reading, edges, found, seen)
        if not ring:
            break
        strength, weakest = _best_outlines(reading, ring, edges)
    if doubtful:
        logger.info("%d empty cell(s) may hold a piece", len(doubtful))
    return dataclasses.replace(reading, doubtful_empty=tuple(sorted({*reading.doubtful_empty, *doubtful})))


def _beside(reading: CityReading, edges: EdgeTensor, cells, seen: set[tuple[int, int]]) -> list[tuple[int, int]]:
    """The cells (col, row) beside ``cells`` but not ``seen`` whose centre the camera of
    ``reading`` sees within the window of ``edges``, in order."""
    near = cells_beside(cells, seen)
    if not near:
        return []
    centres = reading.camera.project(np.hstack([np.array(near, np.float64), np.zeros((len(near), 1))]))
    return [cell for cell, inside in zip(near, edges.holds(centres)) if inside]


def _best_outlines(reading: CityReading, cells: list[tuple[int, int]],
                   edges: EdgeTensor) -> tuple[np.ndarray, np.ndarray]:
    """On each of ``cells`` (col, row), the pyramid of any size (its side at
    ``reading.edge_scale``) at the pose (:func:`edge_fit.fit_poses`) whose outline runs
    along the strongest of the photo's ``edges``: (len(cells),) that strength, and
    (len(cells),) the strength across its outline's weakest side
    (:func:`edge_fit.weakest_sides`)."""
    at = np.array(cells, np.float64).reshape(-1, 2)
    strength, weakest = np.full(len(at), -np.inf), np.zeros(len(at))
    for side_mm in BASE_MM.values():
        poses = fit_poses(edges, reading.camera, at, np.full(len(at), side_mm / reading.edge_scale))
        this = outline_strengths(edges, reading.camera, at, poses)
        better = this > strength
        if better.any():
            strength[better] = this[better]
            weakest[better] = weakest_sides(edges, reading.camera, at[better], poses[better])
    return strength, weakest


def drop_shapeless(reading: CityReading, differs: np.ndarray, profile: Profile) -> CityReading:
    """``reading`` without the pieces on the table whose outline is less than
    ``min_outline_cover`` covered by ``differs`` (uint8 (H, W), 1 where the photo differs
    from the table), and without what was read on top of them."""
    dropped = set()
    for p in reading.pieces:
        if p.level == 0 and _cover(differs, p.outline) < profile.min_outline_cover:
            dropped.add((p.col, p.row))
    if dropped:
        logger.info("%d reading(s) dropped: their outline is mostly table", len(dropped))
    kept = [p for p in reading.pieces if (p.col, p.row) not in dropped]
    return dataclasses.replace(reading, pieces=kept)


def _cover(mask: np.ndarray, shape: np.ndarray) -> float:
    """Share of the convex ``shape`` ((K, 2) (x, y) pixels) where ``mask`` (uint8 (H, W)) is
    set; 1 for a shape wholly beyond the photo's edge (a piece seen at the edge, whose model
    outline leaves the photo: nothing of it can be checked, and it is kept)."""
    x0, y0 = np.maximum(np.floor(shape.min(axis=0)).astype(int), 0)
    x1, y1 = np.ceil(shape.max(axis=0)).astype(int) + 1
    window = mask[y0:y1, x0:x1]  # clipped where the shape leaves the image
    if not window.size:
        return 1.0
    inside = window_mask(shape, (x0, y0, x0 + window.shape[1], y0 + window.shape[0]))
    return float((window & inside).sum() / max(inside.sum(), 1))
