"""Renderer: analytic table plane + per-face rasterised pyramids, in linear RGB.

Geometry is exact perspective projection of the 3-D pieces (the camera of
:mod:`bench.scenegen.camera`). Shading is a cheap approximation tuned for looks: table
lit by a soft main light (many directions in a cone) and a fill (directions over the
sky), with coloured shadows computed as projected polygons per light direction; faces
of translucent pyramids filter what lies behind them (Beer-Lambert through the wall,
Fresnel reflection of a simple environment, glints from the light, darker ridges).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np

from .camera import Camera
from .materials import REFRACTIVE_INDEX

log = logging.getLogger(__name__)
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
        ns = np.array([f[3] for f in _faces(self)] + [[0, 0, -1.0]])
        pts = np.vstack([self.corners(), self.base[None]])
        return ns.astype(np.float32), np.sum(ns * pts, 1).astype(np.float32)


@dataclass
class Light:
    """main: (N, 3) unit directions toward the soft main light; fill: (M, 3) toward the sky;
    sun_rgb, amb_rgb: (3,) irradiance colours at the city centre; spread: angular radius
    (rad) of the main light; distance: lamp distance (mm) from the city centre, giving an
    irradiance fall-off across the table."""

    main: np.ndarray
    fill: np.ndarray
    sun_rgb: np.ndarray
    amb_rgb: np.ndarray
    spread: float
    distance: float = np.inf


def _to_px(H: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """Apply homography H to (N, 2) points -> (N, 2)."""
    p = np.column_stack([xy, np.ones(len(xy))]) @ H.T
    return p[:, :2] / p[:, 2:3]


def _fill(shape, pts: np.ndarray, origin) -> np.ndarray:
    """Anti-aliased coverage float32 (h, w) of a convex polygon pts (N, 2) (x, y) given in
    the coordinates of a patch whose top-left pixel is ``origin`` (x0, y0)."""
    m = np.zeros(shape, np.uint8)
    p = np.round((pts - np.asarray(origin, float)) * (1 << SHIFT)).astype(np.int32)
    cv2.fillConvexPoly(m, p, 255, cv2.LINE_AA, SHIFT)
    return m.astype(np.float32) * (1 / 255)


def _wall_log_t(p: Pyramid, L: np.ndarray) -> np.ndarray:
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
            polys.append((_to_px(H, flat) * q, _wall_log_t(p, L)))
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
            cross = np.maximum(2 * _fill(shp, hull, (bx0, by0)) - _fill(shp, pts[:4], (bx0, by0)), 0)
            logm[by0 - y0:by1 - y0, bx0 - x0:bx1 - x0] += cross[..., None] * lt.astype(np.float32)
        vis += np.exp(logm)
    vis /= len(dirs)
    vis = cv2.GaussianBlur(vis, (0, 0), blur)
    return vis, (x0 / q, y0 / q, x1 / q, y1 / q)


def _paste_vis(cam: Camera, vis: np.ndarray, box) -> np.ndarray:
    """Resize a shadow map patch to camera resolution, full frame (h, w, 3) float32."""
    out = np.ones((cam.height, cam.width, 3), np.float32)
    x0, y0, x1, y1 = [int(round(v)) for v in box]
    x1, y1 = min(x1, cam.width), min(y1, cam.height)
    if x1 > x0 and y1 > y0:
        out[y0:y1, x0:x1] = cv2.resize(vis, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
    return out


def render_table(cam: Camera, albedo_tex: np.ndarray, tex_to_mm: np.ndarray) -> np.ndarray:
    """Table albedo seen by the camera: (h, w, 3) float32. tex_to_mm: 3x3 affine mapping
    texture (x, y) pixels to table (X, Y) mm."""
    Hm = cam.homography() @ tex_to_mm
    return cv2.warpPerspective(albedo_tex, Hm, (cam.width, cam.height), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REFLECT)


def _env(r: np.ndarray, light: Light, table_rad: np.ndarray, vis=1.0) -> np.ndarray:
    """Radiance (..., 3) seen along reflected directions r (..., 3): table below, a dim
    room above, plus the main light as a soft bright disc (times its visibility ``vis``)."""
    up = np.clip(r[..., 2:3], 0, 1)
    room = light.amb_rgb * (0.25 + 0.5 * up)
    env = np.where(r[..., 2:3] < 0, table_rad, room)
    L0 = light.main.mean(0)
    L0 = L0 / np.linalg.norm(L0)
    c = np.clip(r @ L0, -1, 1)[..., None]
    s2 = light.spread ** 2 + 0.003
    lobe = np.exp(-2 * (1 - c) / s2) / (np.pi * s2) + 0.15 * np.exp(-2 * (1 - c) / 0.12) / 0.4
    return env + light.sun_rgb * lobe * vis


def table_sheen(cam: Camera, light: Light, gloss: float, rough: float) -> np.ndarray:
    """Direct light on the table per unit albedo, (h, w, 2) float32: channel 0 the lamp
    fall-off (1 at the city centre), channel 1 the glossy reflection of the lamp (gloss:
    peak reflectance; rough: lobe width in cos units). Computed on a coarse grid (smooth)."""
    step = 8
    ys, xs = np.mgrid[0:cam.height + step:step, 0:cam.width + step:step].astype(np.float64)
    d = np.stack([xs, ys, np.ones_like(xs)], -1) @ (np.linalg.inv(cam.K).T @ cam.R)
    X = cam.center + d * (-cam.center[2] / d[..., 2:3])  # hits on the table
    d /= np.linalg.norm(d, axis=-1, keepdims=True)
    L0 = light.main.mean(0)
    L0 /= np.linalg.norm(L0)
    to_lamp = L0 * min(light.distance, 1e7) - X
    dist = np.linalg.norm(to_lamp, axis=-1)
    fall = (min(light.distance, 1e7) / dist) ** 2 * (to_lamp[..., 2] / dist) / L0[2]
    c = np.sum(d * np.array([1, 1, -1.0]) * (to_lamp / dist[..., None]), -1)
    sheen = gloss * 0.2 / rough * np.exp(-2 * (1 - c) / rough) * fall
    both = np.stack([fall, sheen], -1).astype(np.float32)
    big = cv2.resize(both, (xs.shape[1] * step, xs.shape[0] * step), interpolation=cv2.INTER_LINEAR)
    return big[:cam.height, :cam.width]


def render(cam: Camera, albedo_tex: np.ndarray, tex_to_mm: np.ndarray, pyrs: list[Pyramid],
           order: list[tuple[int, bool]], light: Light, gloss: float = 0.0, rough: float = 0.1,
           shadow_q: float = 0.5) -> np.ndarray:
    """Linear radiance image (h, w, 3) float32 of the table and pyramids.

    order: (pyramid index, front?) pairs in back-to-front painting order; gloss, rough:
    the table's glossy reflection of the main light (see :func:`table_sheen`).
    """
    img = render_table(cam, albedo_tex, tex_to_mm)
    sun_vis = _paste_vis(cam, *shadow_maps(cam, pyrs, light.main, shadow_q))
    fill_vis, fbox = shadow_maps(cam, pyrs, light.fill, shadow_q * 0.5, blur=3.0)
    lz = float(np.clip(light.main[:, 2].mean(), 0, 1))
    direct = table_sheen(cam, light, gloss, rough)
    irr = light.amb_rgb * _paste_vis(cam, fill_vis, fbox)
    irr += light.sun_rgb * lz * sun_vis * direct[..., :1]
    img *= irr
    if gloss > 0:
        img += (direct[..., 1:] * light.sun_rgb) * sun_vis
    del sun_vis, irr, direct
    table_rad = np.median(img[::16, ::16].reshape(-1, 3), axis=0)
    Kinv = np.linalg.inv(cam.K)
    C = cam.center
    for idx, front in order:
        _face_layer(img, cam, Kinv, C, idx, pyrs, front, light, table_rad)
    return img


def _faces(p: Pyramid):
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


def _lobe(c: np.ndarray, light: Light) -> np.ndarray:
    """Mirror-lobe radiance factor for cosines c (...) between a reflected ray and the light."""
    s2 = light.spread ** 2 + 0.003
    return np.exp(-2 * (1 - c) / s2) / (np.pi * s2)


def _arc_max(h: np.ndarray, n: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Max over unit normals on the arc from n to m (per pixel, (..., 3)) of normal . h."""
    b = np.cross(n, m)
    b /= np.linalg.norm(b, axis=-1, keepdims=True) + 1e-9
    hb = np.sum(h * b, -1, keepdims=True)
    q = h - hb * b
    qn = np.linalg.norm(q, axis=-1, keepdims=True) + 1e-9
    cos_arc = np.sum(n * m, -1, keepdims=True)
    inside = (np.sum(q * n, -1, keepdims=True) >= cos_arc * qn) & (np.sum(q * m, -1, keepdims=True) >= cos_arc * qn)
    ends = np.maximum(np.sum(h * n, -1, keepdims=True), np.sum(h * m, -1, keepdims=True))
    return np.where(inside, qn, ends)[..., 0]


def _occluders(i: int, pyrs: list[Pyramid], L: np.ndarray) -> list[Pyramid]:
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


def _transmit(X: np.ndarray, dirs: np.ndarray, occ: list[Pyramid], centre: np.ndarray,
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
            logt += hit * walls * _wall_log_t(q, L).astype(np.float32)
        vis += np.exp(logt)
    return vis / len(dirs)


def _face_layer(img, cam, Kinv, C, i: int, pyrs: list[Pyramid], front: bool, light: Light,
                table_rad) -> None:
    """Composite the front (or back, seen from inside) faces of pyramid ``i`` onto img.

    Per pixel the ray is intersected with the face plane, giving face coordinates in mm:
    ``s`` along the base edge from its middle and ``up`` along the slant from the base.
    Those place the darker ridges and rim, the glints of the rounded ridges and the pips.
    """
    Hh, Ww = img.shape[:2]
    p = pyrs[i]
    L0 = light.main.mean(0)
    L0 = (L0 / np.linalg.norm(L0)).astype(np.float32)
    occ = _occluders(i, pyrs, L0)
    shadow_dirs = light.main[::8]
    for v0, v1, a, n, n_next, n_prev in _faces(p):
        centroid = (v0 + v1 + a) / 3
        if (n @ (C - centroid) > 0) != front:
            continue
        tri = cam.project(np.stack([v0, v1, a]))
        x0, y0 = np.maximum(np.floor(tri.min(0)).astype(int) - 1, 0)
        x1, y1 = np.minimum(np.ceil(tri.max(0)).astype(int) + 2, [Ww, Hh])
        if x1 <= x0 or y1 <= y0:
            continue
        alpha = _fill((y1 - y0, x1 - x0), tri, (x0, y0))
        if not alpha.any():
            continue
        ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        d = np.stack([xs, ys, np.ones_like(xs)], -1) @ (Kinv.T @ cam.R).astype(np.float32)
        d /= np.linalg.norm(d, axis=-1, keepdims=True)
        # face coordinates (mm) of the ray's hit on the face plane
        mid = (v0 + v1) / 2
        e = (v1 - v0) / np.linalg.norm(v1 - v0)
        slant = float(np.linalg.norm(a - mid))
        u = (a - mid) / slant
        nd = d @ n.astype(np.float32)
        t = float(n @ (v0 - C)) / np.where(np.abs(nd) < 1e-6, np.float32(1e-6), nd)
        X = (C - mid).astype(np.float32) + t[..., None] * d
        s_mm, up = X @ e.astype(np.float32), X @ u.astype(np.float32)
        px_mm = cam.K[0, 0] / float(cam.depth(centroid[None])[0])  # pixels per mm
        aa = 0.7 / px_mm  # one pixel, in mm
        to_ridge = (p.half * (1 - up / slant) - np.abs(s_mm)) * slant / np.hypot(slant, p.half)
        ridge = np.exp(-(to_ridge / (0.6 + aa)) ** 2)[..., None]
        rim = np.exp(-(up / (1.0 + aa)) ** 2)[..., None]
        tip = np.exp(-((slant - up) / (2.5 + aa)) ** 2)[..., None]  # the solid apex
        pip = _pips(s_mm, up, p, aa)[..., None]
        nv = (n if front else -n).astype(np.float32)  # normal on the camera's side
        cos_i = np.clip(-(d @ nv), 0.02, 1)[..., None]
        F = np.minimum(0.04 + 0.96 * (1 - cos_i) ** 5, 0.6)  # silhouettes are rounded, not mirrors
        vis = _transmit(X + mid.astype(np.float32), shadow_dirs, occ, centroid,  # light reaching the face
                        float(np.linalg.norm(np.stack([v0, v1, a]) - centroid, axis=1).max()))
        env = np.minimum(_env(d + 2 * cos_i * nv, light, table_rad, vis), 6.0)
        hv = L0 - d
        hv /= np.linalg.norm(hv, axis=-1, keepdims=True)
        glint = 0.0
        if front:  # rounded ridges show the light where their normal turns toward it
            n_adj = np.where((s_mm > 0)[..., None], n_next.astype(np.float32), n_prev.astype(np.float32))
            c = _arc_max(hv, np.broadcast_to(nv, hv.shape), n_adj)
            glint = 0.08 * _lobe(2 * c ** 2 - 1, light) * np.exp(-(to_ridge / (0.25 + aa)) ** 2)
            glint = np.minimum(glint * (1 - rim[..., 0]), 2.0)[..., None]  # not at the base corners
        region = img[y0:y1, x0:x1]
        A = alpha[..., None]
        sun = light.sun_rgb.astype(np.float32)
        if p.mat["opaque"]:
            col = (p.mat["diffuse"] * light.amb_rgb).astype(np.float32)
            col = col + (p.mat["diffuse"] * max(0.0, float(nv @ L0))).astype(np.float32) * sun * vis
            col = col + 0.45 * F * env * (1 + 0.8 * ridge) + glint * sun * vis
            region *= 1 - A
            region += A * col
        else:
            cos_t = np.sqrt(1 - (1 - cos_i ** 2) / REFRACTIVE_INDEX ** 2)
            ab = p.mat["absorb"].astype(np.float32)
            T = (1 - F) * np.exp(-ab * (1 + 3.0 * ridge + 1.0 * rim + 0.8 * pip + 2.0 * tip) / cos_t)
            lit = 0.15 + 1.6 * max(0.0, float(n @ L0))  # outer side toward the light
            glow = (p.mat["glow"] * light.amb_rgb).astype(np.float32) + (p.mat["glow"] * lit).astype(np.float32) * sun * vis
            emit = 0.5 * F * env * (1 + 0.5 * ridge) + glow * (1 + 0.5 * rim + 0.3 * pip) + glint * sun * vis
            region *= 1 - A + A * T
            region += A * emit


def _pips(s_mm: np.ndarray, up: np.ndarray, p: Pyramid, aa: float) -> np.ndarray:
    """Coverage (h, w) of the pyramid's pips (1-3 raised dots in a row near the base)."""
    k = p.pips
    if k == 0:
        return np.zeros_like(s_mm)
    r = 0.75 + 0.1 * k
    gap = 2.8 * r
    out = np.zeros_like(s_mm)
    for j in range(k):
        dist = np.hypot(s_mm - (j - (k - 1) / 2) * gap, up - (2.6 + 0.5 * k))
        out = np.maximum(out, np.clip((r - dist) / aa + 0.5, 0, 1))
    return out
