"""Black pieces missed on empty cells, told by the shading of their faces.

Glossy black on a dark table can differ from the table by less than any threshold, so a
black piece goes unread and its cell is at most doubted (``doubtful_empty``). Yet under one
lamp every pyramid of one material shades its four faces alike: the face towards the lamp
lighter, the one away darker. The black pieces read show that pattern; a doubted cell
whose faces show it too holds one more, while an empty cell's table is flat and a shadow
falling on it darkens one side, not the pattern of a lit pyramid.
"""
from __future__ import annotations

import dataclasses
import logging

import numpy as np

from calibration import Profile
from calibration.profile import BLACK

from .cells import SIZES, CityReading, Reading, size_beside
from .edge_fit import EdgeTensor, outlines_strength
from .model import BASE_MM, outline

logger = logging.getLogger(__name__)

_HALF = 0.3  # grid units: the square sampled round a cell's centre, about a medium's base
_SAMPLES = 25  # points along each side of that square
_LEAST_BLACKS = 2  # black pieces read on the table needed to know their shading


def black_on_doubted_cells(reading: CityReading, log_ratio: np.ndarray, edges: EdgeTensor | None,
                           profile: Profile) -> CityReading:
    """``reading`` with a black piece read on each cell of its ``doubtful_empty`` whose four
    faces' brightness in ``log_ratio`` (float32 (H, W, 3), to the table) changes from face to
    face as that of the black pieces read on the table does, by a correlation of at least
    ``profile.black_shading_correlation`` (:func:`face_shading`, each less its mean). Its
    size is the one whose outline lies along the strongest ``edges`` among those the rules
    allow there (no neighbour of that size); it is flagged (half
    ``profile.max_uncertain_confidence``), and the cell is no longer doubted. Where fewer
    than ``_LEAST_BLACKS`` black pieces are read on the table, or no edge scale is known,
    ``reading`` itself."""
    blacks = [p for p in reading.pieces if p.color_index == BLACK and p.level == 0]
    if len(blacks) < _LEAST_BLACKS or not reading.doubtful_empty or edges is None or reading.edge_scale is None:
        return reading
    shading = [face_shading(log_ratio, reading, (p.col, p.row)) for p in blacks]
    shading = [s - s.mean() for s in shading if s is not None]
    if len(shading) < _LEAST_BLACKS:
        return reading
    typical = np.mean(shading, axis=0)
    placed = {(p.col, p.row, p.size) for p in reading.pieces}
    added, doubted = [], []
    for cell in reading.doubtful_empty:
        seen = face_shading(log_ratio, reading, cell)
        if seen is None or _correlation(seen - seen.mean(), typical) < profile.black_shading_correlation:
            doubted.append(cell)
            continue
        size = _size_by_edges(reading, cell, edges, placed)
        if size is None:
            doubted.append(cell)
            continue
        shape = outline(reading.camera, np.array(cell, np.float64), size, reading.pitch_mm)
        added.append(Reading(cell[0], cell[1], BLACK, size, 0, profile.max_uncertain_confidence / 2,
                             tuple(float(v) for v in shape.mean(axis=0)), shape))
        placed.add((*cell, size))
    if not added:
        return reading
    logger.info("%d black piece(s) read on doubted cells by their faces' shading", len(added))
    return dataclasses.replace(reading, pieces=[*reading.pieces, *added], doubtful_empty=tuple(doubted))


def face_shading(log_ratio: np.ndarray, reading: CityReading, cell: tuple[int, int]) -> np.ndarray | None:
    """(4,) the mean brightness (the log ratio's mean over the channels) of the four
    triangles, towards -row, +col, +row and -col, of the square ``_HALF`` grid units either
    side of ``cell`` (col, row)'s centre on the table, as ``reading``'s camera sees it; None
    where a tenth of it falls outside the photo."""
    u = np.linspace(-_HALF, _HALF, _SAMPLES)
    du, dv = (a.ravel() for a in np.meshgrid(u, u))
    face = np.where(np.abs(du) > np.abs(dv), np.where(du > 0, 1, 3), np.where(dv > 0, 2, 0))
    points = np.column_stack([cell[0] + du, cell[1] + dv, np.zeros_like(du)])
    xs, ys = np.round(reading.camera.project(points)).astype(int).T
    h, w = log_ratio.shape[:2]
    inside = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
    if inside.mean() < 0.9:
        return None
    brightness = log_ratio[ys[inside], xs[inside]].mean(axis=1)
    return np.array([brightness[face[inside] == k].mean() for k in range(4)])


def _correlation(a: np.ndarray, b: np.ndarray) -> float:
    norms = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b) / norms if norms > 0 else 0.0


def _size_by_edges(reading: CityReading, cell: tuple[int, int], edges: EdgeTensor,
                   placed: set[tuple[int, int, int]]) -> int | None:
    """The size (1..3) of the black pyramid on ``cell`` (col, row) whose outline lies along
    the strongest ``edges`` (:func:`edge_fit.outlines_strength`, at ``reading``'s edge
    scale), of those no neighbour in ``placed`` ((col, row, size) of each piece) holds; None
    where every size is held beside it."""
    allowed = [size for size in SIZES if not size_beside(cell, size, placed)]
    if not allowed:
        return None
    sides = np.array([BASE_MM[size] / reading.edge_scale for size in allowed])
    strength = outlines_strength(edges, reading.camera, np.tile(np.asarray(cell, np.float64), (len(allowed), 1)),
                                 sides, np.full(len(allowed), BLACK))
    return allowed[int(np.argmax(strength))]
