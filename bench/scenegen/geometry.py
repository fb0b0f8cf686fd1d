"""Pyramid solids in world millimetres and the polygon rasteriser shared by the renderer.

World frame: table plane z = 0, z up (see :mod:`bench.scenegen.camera`).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np

SHIFT = 4  # sub-pixel bits for cv2 polygon filling
BIG_HALF = 12.7  # half base of the largest piece, mm


@dataclass
class Pyramid:
    """One piece in world mm. base: (3,) base centre (z = seat height); half: half base
    side; height: apex height above the base; yaw: radians about +z; mat: materials.plastic."""

    base: np.ndarray
    half: float
    height: float
    yaw: float
    mat: dict
    pips: int = 0

    def corners(self) -> np.ndarray:
        """(4, 3) base corners, counter-clockwise seen from above."""
        c, s = np.cos(self.yaw), np.sin(self.yaw)
        loc = np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]], float) * self.half
        xy = loc @ np.array([[c, s], [-s, c]])
        return np.column_stack([xy + self.base[:2], np.full(4, self.base[2])])

    def apex(self) -> np.ndarray:
        return self.base + np.array([0, 0, self.height])

    @cached_property
    def planes(self) -> tuple[np.ndarray, np.ndarray]:
        """Bounding planes of the solid: outward normals (5, 3) float32 and offsets (5,)
        with n . X <= offset inside; the four faces, then the base plane."""
        ns = np.array([f[3] for f in faces(self)] + [[0, 0, -1.0]])
        pts = np.vstack([self.corners(), self.base[None]])
        return ns.astype(np.float32), np.sum(ns * pts, 1).astype(np.float32)


def faces(p: Pyramid):
    """Yield (v0, v1, apex, outward normal, normal of the face after, normal of the face
    before) for the four faces; v0-v1 is the base edge, counter-clockwise from above."""
    cs, a = p.corners(), p.apex()
    ns = []
    for i in range(4):
        v0, v1 = cs[i], cs[(i + 1) % 4]
        n = np.cross(v1 - v0, a - v0)
        n /= np.linalg.norm(n)
        ns.append(n if n @ ((v0 + v1) / 2 - p.base) > 0 else -n)
    for i in range(4):
        yield cs[i], cs[(i + 1) % 4], a, ns[i], ns[(i + 1) % 4], ns[i - 1]


def coverage(shape, pts: np.ndarray, origin) -> np.ndarray:
    """Anti-aliased coverage float32 (h, w) of a convex polygon pts (N, 2) (x, y) given in
    the coordinates of a patch whose top-left pixel is ``origin`` (x0, y0)."""
    m = np.zeros(shape, np.uint8)
    p = np.round((pts - np.asarray(origin, float)) * (1 << SHIFT)).astype(np.int32)
    cv2.fillConvexPoly(m, p, 255, cv2.LINE_AA, SHIFT)
    return m.astype(np.float32) * (1 / 255)


def quads_overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Separating-axis test for two convex quads (4, 2)."""
    for poly in (a, b):
        for i in range(4):
            e = poly[(i + 1) % 4] - poly[i]
            ax = np.array([-e[1], e[0]])
            pa, pb = a @ ax, b @ ax
            if pa.max() < pb.min() or pb.max() < pa.min():
                return False
    return True
