"""Shadows: the table's visibility of the lamp (projected polygons, coloured by the
pieces' plastic) and the light reaching a point on a piece (ray tests against neighbours).
"""
from __future__ import annotations

import cv2
import numpy as np

from .camera import Camera
from .geometry import BIG_HALF, Pyramid, coverage


def _to_px(H: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """Apply homography H to (N, 2) points -> (N, 2)."""
    p = np.column_stack([xy, np.ones(len(xy))]) @ H.T
    return p[:, :2] / p[:, 2:3]


def wall_log_t(p: Pyramid, L: np.ndarray) -> np.ndarray:
    """Log transmittance (3,) of one wall for light arriving from direction L."""
    if p.mat["opaque"]:
        return np.full(3, -30.0)
    return -p.mat["absorb"] * 1.25 / max(0.3, L[2]) ** 0.3


def shadow_maps(cam: Camera, pyrs: list[Pyramid], dirs: np.ndarray, q: float,
                blur: float = 0.8) -> tuple[np.ndarray, tuple]:
    """Mean visibility (h, w, 3) float32 of the table toward ``dirs`` (N, 3), computed at
    ``q`` times the camera resolution over the bounding box of all shadows, blurred by
    ``blur`` px (Gaussian sigma at that resolution).
    Returns (map, (x0, y0, x1, y1)) with the box in camera pixels."""
    H = cam.homography()
    polys = []
    for L in dirs:
        for p in pyrs:
            pts = np.vstack([p.corners(), p.apex()[None]])
            flat = pts[:, :2] - (pts[:, 2:3] / L[2]) * L[None, :2]
            polys.append((_to_px(H, flat) * q, wall_log_t(p, L)))
    allp = np.vstack([pp for pp, _ in polys])
    x0, y0 = np.maximum(np.floor(allp.min(0)).astype(int) - 2, 0)
    x1, y1 = np.minimum(np.ceil(allp.max(0)).astype(int) + 2, [int(cam.width * q), int(cam.height * q)])
    if x1 <= x0 or y1 <= y0:
        return np.ones((1, 1, 3), np.float32), (0, 0, 1, 1)
    vis = np.zeros((y1 - y0, x1 - x0, 3), np.float32)
    n = len(pyrs)
    for i in range(len(dirs)):
        logm = np.zeros_like(vis)
        for pts, lt in polys[i * n:(i + 1) * n]:
            bx0, by0 = np.maximum(np.floor(pts.min(0)).astype(int) - 1, [x0, y0])
            bx1, by1 = np.minimum(np.ceil(pts.max(0)).astype(int) + 2, [x1, y1])
            if bx1 <= bx0 or by1 <= by0:
                continue
            shp = (by1 - by0, bx1 - bx0)
            hull = cv2.convexHull(pts.astype(np.float32))[:, 0]
            # walls crossed: 2 in the hull, 1 over the (open) base; AA edges may dip below 0
            cross = 2 * coverage(shp, hull, (bx0, by0)) - coverage(shp, pts[:4], (bx0, by0))
            np.maximum(cross, 0, out=cross)
            logm[by0 - y0:by1 - y0, bx0 - x0:bx1 - x0] += cross[..., None] * lt.astype(np.float32)
        vis += np.exp(logm)
    vis /= len(dirs)
    vis = cv2.GaussianBlur(vis, (0, 0), blur)
    return vis, (x0 / q, y0 / q, x1 / q, y1 / q)


def paste_vis(cam: Camera, vis: np.ndarray, box) -> np.ndarray:
    """Resize a shadow map patch to camera resolution, full frame (h, w, 3) float32."""
    out = np.ones((cam.height, cam.width, 3), np.float32)
    x0, y0, x1, y1 = [int(round(v)) for v in box]
    x1, y1 = min(x1, cam.width), min(y1, cam.height)
    if x1 > x0 and y1 > y0:
        out[y0:y1, x0:x1] = cv2.resize(vis, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
    return out


def occluders(i: int, pyrs: list[Pyramid], L: np.ndarray) -> list[Pyramid]:
    """Pyramids that may shadow pyramid i from direction L (not its own stack)."""
    p = pyrs[i]
    reach = (p.base[2] + p.height) / max(L[2], 0.2) + 2 * BIG_HALF
    out = []
    for j, q in enumerate(pyrs):
        dxy = q.base[:2] - p.base[:2]
        dist = float(np.hypot(*dxy))
        if j != i and 1.0 < dist < reach and dxy @ L[:2] > -2 * BIG_HALF:
            out.append(q)
    return out


def transmit(X: np.ndarray, dirs: np.ndarray, occ: list[Pyramid], centre: np.ndarray,
              radius: float) -> np.ndarray:
    """Mean transmittance (..., 3) float32 from points X (..., 3) toward ``dirs`` (K, 3)
    through the pyramids ``occ`` (convex solids: two walls crossed, one if X is inside).
    The points lie within ``radius`` of ``centre`` (3,); occluders whose bounding sphere
    misses that sphere's light cylinder are skipped."""
    vis = np.zeros(X.shape[:-1] + (3,), np.float32)
    for L in dirs.astype(np.float32):
        logt = np.zeros_like(vis)
        for q in occ:
            qc = q.base + np.array([0, 0, q.height / 2])
            w = qc - centre
            along = float(w @ L)
            reach = radius + float(np.hypot(q.half * np.sqrt(2), q.height / 2))
            if along < -reach or np.linalg.norm(w - along * L) > reach:
                continue
            N, off = q.planes
            f = X @ N.T - off  # (..., 5) signed distances, > 0 outside
            g = N @ L
            with np.errstate(divide="ignore", invalid="ignore"):
                s = -f / g
            s_in = np.maximum(np.max(np.where(g < -1e-9, s, 0), -1), 0)
            s_out = np.min(np.where(g > 1e-9, s, np.inf), -1)
            parallel_out = np.any((np.abs(g) <= 1e-9) & (f > 0), -1)
            hit = ((s_in < s_out) & ~parallel_out)[..., None]
            walls = np.where(np.all(f <= 0, -1)[..., None], 1.0, 2.0).astype(np.float32)
            logt += hit * walls * wall_log_t(q, L).astype(np.float32)
        vis += np.exp(logt)
    return vis / len(dirs)


def _clip_front(poly: np.ndarray, cam: Camera, min_depth: float = 20.0) -> np.ndarray:
    """Clip a table polygon (N, 2) mm to the part at least ``min_depth`` mm in front of the
    camera (so the homography maps it without folding)."""
    n = cam.R[2, :2]
    c = float(cam.t[2]) - min_depth  # depth(X) - min_depth = n . X + c
    out = []
    for a, b in zip(poly, np.roll(poly, -1, axis=0)):
        da, db = float(n @ a) + c, float(n @ b) + c
        if da >= 0:
            out.append(a)
        if (da >= 0) != (db >= 0):
            out.append(a + (b - a) * da / (da - db))
    return np.array(out)


def photographer_shadow(cam: Camera, dirs: np.ndarray, q: float = 0.125) -> np.ndarray:
    """Visibility (h, w) float32 of the lamp past the phone and the arm holding it.

    The phone (75 x 150 mm, long side along the image's long side) is at the camera centre;
    the forearm (90 mm wide, 350 mm long) runs from it toward the player, 50 mm higher.
    Both are projected onto the table along each direction of ``dirs`` (N, 3); the map
    is computed at ``q`` times the camera resolution and smoothed."""
    C = cam.center
    right, down = cam.R[0], cam.R[1]
    ex = right[:2] / np.linalg.norm(right[:2])
    ey = down[:2] / np.linalg.norm(down[:2])
    long_ax, short_ax = (ex, ey) if cam.width >= cam.height else (ey, ex)
    square = ((-1, -1), (1, -1), (1, 1), (-1, 1))
    phone = [C[:2] + sa * 37.5 * short_ax + sb * 75 * long_ax for sa, sb in square]
    arm = [C[:2] + sa * 45 * ex + (sb + 1) * 175 * ey for sa, sb in square]
    shapes = [(np.array(phone), C[2]), (np.array(arm), C[2] + 50)]
    h, w = max(1, int(cam.height * q)), max(1, int(cam.width * q))
    S = np.diag([q, q, 1.0]) @ cam.homography()
    acc = np.zeros((h, w), np.float32)
    for L in dirs:
        mask = np.zeros((h, w), np.uint8)
        for xy, z in shapes:
            poly = _clip_front(xy - (z / L[2]) * L[None, :2], cam)
            if len(poly) < 3:
                continue
            px = np.clip(_to_px(S, poly), -4 * w, 5 * w)
            cv2.fillConvexPoly(mask, np.round(px * 16).astype(np.int32), 1, cv2.LINE_8, 4)
        acc += mask
    vis = 1 - cv2.GaussianBlur(acc / len(dirs), (0, 0), 1.0)
    return cv2.resize(vis, (cam.width, cam.height), interpolation=cv2.INTER_LINEAR)
