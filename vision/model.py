"""The 3D model of a pyramid, projected through the camera: outlines, areas and the offset
between a piece's base centre and the centre of what the camera sees of it."""
from __future__ import annotations

import numpy as np

from .camera import Camera

BASE_MM = {1: 14.3, 2: 19.8, 3: 25.4}
HEIGHT_MM = {1: 25.4, 2: 34.9, 3: 44.5}


def seat_height_mm(lower: int, upper: int) -> float:
    """Height at which a hollow ``upper`` pyramid rests when stacked on a ``lower`` one."""
    return HEIGHT_MM[lower] * (1.0 - BASE_MM[upper] / BASE_MM[lower])


def outline(camera: Camera, colrow: np.ndarray, size: int, pitch_mm: float,
            elevation_mm: float = 0.0, yaw: float = 0.0) -> np.ndarray:
    """Image outline (convex hull, (K, 2) float64 (x, y)) of a pyramid of ``size`` whose base
    centre is at grid point ``colrow`` (col, row), raised by ``elevation_mm``, turned by ``yaw``
    radians relative to the grid."""
    half = BASE_MM[size] / pitch_mm / 2
    z0 = elevation_mm / pitch_mm
    c, s = np.cos(yaw), np.sin(yaw)
    corners = np.array([[-half, -half], [half, -half], [half, half], [-half, half]]) @ np.array([[c, s], [-s, c]])
    pts = np.zeros((5, 3))
    pts[:4, :2] = corners + colrow
    pts[:4, 2] = z0
    pts[4] = [colrow[0], colrow[1], z0 + HEIGHT_MM[size] / pitch_mm]
    image = camera.project(pts)
    return _hull(image)


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


def polygon_area_centroid(poly: np.ndarray) -> tuple[float, np.ndarray]:
    """Area (pixels) and centroid (x, y) of a simple polygon given as (K, 2)."""
    x, y = poly[:, 0], poly[:, 1]
    xn, yn = np.roll(x, -1), np.roll(y, -1)
    cross = x * yn - xn * y
    area = cross.sum() / 2
    if abs(area) < 1e-9:
        return 0.0, poly.mean(axis=0)
    cx = ((x + xn) * cross).sum() / (6 * area)
    cy = ((y + yn) * cross).sum() / (6 * area)
    return abs(float(area)), np.array([cx, cy])
