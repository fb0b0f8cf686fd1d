"""The 3D model of a pyramid, projected through the camera: outlines, areas and the offset
between a piece's base centre and the centre of what the camera sees of it."""
from __future__ import annotations

import cv2
import numpy as np

from .camera import Camera

BASE_MM = {1: 14.3, 2: 19.8, 3: 25.4}
HEIGHT_MM = {1: 25.4, 2: 34.9, 3: 44.5}
HEIGHT_PER_SIDE = HEIGHT_MM[2] / BASE_MM[2]  # of any size: the three are nearly similar (1.75 to 1.78)
_SQUARE = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])  # a base's corners, in order round it


def seat_height_mm(lower: int, upper: int) -> float:
    """Height at which a hollow ``upper`` pyramid rests when stacked on a ``lower`` one."""
    return HEIGHT_MM[lower] * (1.0 - BASE_MM[upper] / BASE_MM[lower])


def outline(camera: Camera, colrow: np.ndarray, size: int, pitch_mm: float,
            elevation_mm: float = 0.0) -> np.ndarray:
    """Image outline (convex hull, (K, 2) float64 (x, y)) of a pyramid of ``size`` whose base
    centre is at grid point ``colrow`` (col, row), raised by ``elevation_mm``, square to the
    grid."""
    return _hull(_corners_and_apex(camera, colrow, size, pitch_mm, elevation_mm)[0])


def size_outlines(camera: Camera, colrow: np.ndarray, pitch_mm: float) -> list[np.ndarray]:
    """The :func:`outline` of a pyramid of each size (1..3) standing square on grid point
    ``colrow`` (col, row), modelled at ``pitch_mm``: the three projected together."""
    return [_hull(points) for points in pyramid_points(camera, colrow, [pitch_mm])[0]]


def window_mask(polygon: np.ndarray, box) -> np.ndarray:
    """uint8 mask, 1 inside the convex ``polygon`` ((K, 2) image (x, y), as from
    :func:`outline`), of the window ``box`` (x0, y0, x1, y1) of the image."""
    x0, y0, x1, y1 = box
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round(polygon - (x0, y0)).astype(np.int32), 1)
    return mask


def faces_seen(base: np.ndarray, apex: np.ndarray) -> np.ndarray:
    """(M, 4) bool: which faces of each of M pyramids the camera sees, each face over a side
    of ``base`` ((M, 4, 2) image (x, y) corners, in order round it) rising to ``apex``
    ((M, 2) (x, y)): those whose side the apex does not lie beyond (a side the apex lies
    beyond is hidden behind the piece)."""
    bx, by = base[..., 0], base[..., 1]  # x and y apart: a last axis of two is slow to broadcast over
    fx, fy = np.roll(bx, -1, axis=1), np.roll(by, -1, axis=1)
    orientation = np.sign((bx * fy - fx * by).sum(axis=1))
    beyond = orientation[:, None] * ((fx - bx) * (apex[:, None, 1] - by) - (fy - by) * (apex[:, None, 0] - bx)) < 0
    return ~beyond


def pyramid_points(camera: Camera, colrow, pitches_mm) -> np.ndarray:
    """(P, 3, 5, 2) image (x, y) of the four base corners and the apex of a pyramid of each
    size (1..3) standing at grid point ``colrow`` (col, row), modelled at each of the
    ``pitches_mm`` (P,); the convex hull of each five points is that size's :func:`outline`."""
    pitches = np.repeat(np.atleast_1d(np.asarray(pitches_mm, np.float64)), 3)
    colrow = np.tile(np.asarray(colrow, np.float64).reshape(1, 2), (len(pitches), 1))
    sizes = np.tile(np.arange(1, 4), len(pitches) // 3)
    return _corners_and_apex(camera, colrow, sizes, pitches, 0.0).reshape(-1, 3, 5, 2)


def silhouettes(camera: Camera, colrow: np.ndarray, size, pitch_mm: float,
                elevation_mm=0.0) -> tuple[np.ndarray, np.ndarray]:
    """Area (N,) in pixels and centroid (N, 2) (x, y) of what the camera sees of pyramids of
    ``size`` (int, or (N,) ints 1..3) whose base centres are at grid points ``colrow``
    ((N, 2) (col, row)), raised by ``elevation_mm`` (float or (N,)), square to the grid:
    :func:`outline` for many pieces at once.

    The outline is the convex hull of the base square and the apex. The base square seen by
    the camera is convex, so the apex adds to it one triangle per base edge it lies beyond.
    """
    image = _corners_and_apex(camera, colrow, size, pitch_mm, elevation_mm)
    base, apex = image[:, :4], image[:, 4:]
    following = np.roll(base, -1, axis=1)
    cross = base[..., 0] * following[..., 1] - following[..., 0] * base[..., 1]  # (n, 4)
    base_area = cross.sum(axis=1) / 2
    base_centroid = ((base + following) * cross[..., None]).sum(axis=1) / (6 * base_area[:, None])
    orientation = np.sign(base_area)[:, None]
    # signed area of (edge start, edge end, apex); negative (for a positive base) = apex beyond
    triangle = ((following - base)[..., 0] * (apex - base)[..., 1]
                - (following - base)[..., 1] * (apex - base)[..., 0]) / 2
    added = np.maximum(-orientation * triangle, 0.0)  # (n, 4)
    triangle_centroid = (base + following + apex) / 3
    area = np.abs(base_area) + added.sum(axis=1)
    centroid = (np.abs(base_area)[:, None] * base_centroid + (added[..., None] * triangle_centroid).sum(axis=1))
    return area, centroid / area[:, None]


def base_centres(camera: Camera, seen: np.ndarray, cells: np.ndarray, sizes: np.ndarray,
                 pitch_mm: float) -> np.ndarray:
    """(N, 2) image (x, y) of the base centres of pyramids of ``sizes`` (N,) standing on
    ``cells`` ((N, 2) (col, row)) whose silhouettes' centres are seen at ``seen`` ((N, 2)
    (x, y)): each moved back by its modelled lean (:func:`silhouettes`)."""
    _, centroid = silhouettes(camera, cells, sizes, pitch_mm)
    base = camera.project(np.hstack([np.asarray(cells, np.float64), np.zeros((len(cells), 1))]))
    return np.asarray(seen) - (centroid - base)


def _corners_and_apex(camera: Camera, colrow: np.ndarray, size, pitch_mm, elevation_mm) -> np.ndarray:
    """(N, 5, 2) image (x, y) of the four base corners, in order round the base, and the apex
    of the pyramids of :func:`silhouettes`; ``pitch_mm`` a float or (N,)."""
    colrow = np.asarray(colrow, np.float64).reshape(-1, 2)
    n = len(colrow)
    size = np.broadcast_to(np.asarray(size), (n,))
    side = np.array([BASE_MM[int(k)] for k in size]) / pitch_mm
    height = np.array([HEIGHT_MM[int(k)] for k in size]) / pitch_mm
    return pyramid_corners(camera, colrow, side, height, np.asarray(elevation_mm, np.float64) / pitch_mm)


def pyramid_corners(camera: Camera, centres: np.ndarray, sides: np.ndarray, heights: np.ndarray, lifts=0.0,
                    turns=0.0) -> np.ndarray:
    """(N, 5, 2) image (x, y) of the four base corners, in order round the base, and the apex
    of pyramids with base ``centres`` ((N, 2) (col, row)), base ``sides`` and ``heights``
    ((N,) grid units), raised by ``lifts`` and turned from the grid by ``turns`` (floats or
    (N,); grid units, radians)."""
    n = len(centres)
    half = np.asarray(sides, np.float64)[:, None] / 2
    lifts = np.broadcast_to(np.asarray(lifts, np.float64), (n,))
    turns = np.broadcast_to(np.asarray(turns, np.float64), (n,))
    cos, sin = np.cos(turns)[:, None], np.sin(turns)[:, None]
    pts = np.zeros((n, 5, 3))
    pts[:, :4, 0] = centres[:, :1] + half * (_SQUARE[:, 0] * cos - _SQUARE[:, 1] * sin)
    pts[:, :4, 1] = centres[:, 1:] + half * (_SQUARE[:, 0] * sin + _SQUARE[:, 1] * cos)
    pts[:, :4, 2] = lifts[:, None]
    pts[:, 4, :2], pts[:, 4, 2] = centres, lifts + heights
    return camera.project(pts.reshape(-1, 3)).reshape(n, 5, 2)


def cross_section(camera: Camera, centre: tuple[float, float], side: float, turn: float, height: float) -> np.ndarray:
    """(5, 2) image (x, y) of the corners of the cross-section at ``height`` (a fraction of
    its height) of the pyramid of base ``side`` (grid units, its height as a real piece's for
    its side) at ``centre`` (col, row) turned by ``turn`` (radians), in order round it, and
    its apex."""
    full = side * HEIGHT_PER_SIDE
    return pyramid_corners(camera, np.array([centre], np.float64), np.array([side * (1 - height)]),
                           np.array([full * (1 - height)]), lifts=full * height, turns=turn)[0]


def _hull(points: np.ndarray) -> np.ndarray:
    """Convex hull of a few 2D points (monotone chain), counter-clockwise."""
    pts = sorted(map(tuple, points))

    def half(seq):
        out = []
        for p in seq:
            while len(out) >= 2 and _turn(out[-2], out[-1], p) <= 0:
                out.pop()
            out.append(p)
        return out
    lower, upper = half(pts), half(reversed(pts))
    return np.array(lower[:-1] + upper[:-1])


def _turn(o, a, b) -> float:
    """z of the cross product (a - o) x (b - o): positive for a left turn."""
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
