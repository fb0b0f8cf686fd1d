"""Renderer: analytic table plane + per-face rasterised pyramids, in linear RGB.

Geometry is exact perspective projection of the 3-D pieces (the camera of
:mod:`bench.scenegen.camera`). Shading is a cheap approximation tuned for looks: table
lit by a soft main light (many directions in a cone) and a fill (directions over the
sky), with coloured shadows computed as projected polygons per light direction; faces
of translucent pyramids filter what lies behind them (Beer-Lambert through the wall,
Fresnel reflection of a simple environment, glints from the light, darker ridges).
"""
from __future__ import annotations

import numpy as np

from .camera import Camera
from .geometry import Pyramid, coverage, faces
from .lighting import Light
from .materials import REFRACTIVE_INDEX
from .shadows import occluders, paste_vis, photographer_shadow, shadow_maps, transmit
from .table import render_table, table_sheen


def _env(r: np.ndarray, light: Light, table_rad: np.ndarray, vis=1.0) -> np.ndarray:
    """Radiance (..., 3) seen along reflected directions r (..., 3): table below, a dim
    room above, plus the main light as a soft bright disc (times its visibility ``vis``)."""
    up = np.clip(r[..., 2:3], 0, 1)
    room = light.amb_rgb * (0.25 + 0.5 * up)
    env = np.where(r[..., 2:3] < 0, table_rad, room)
    L0 = light.main.mean(0)
    L0 = L0 / np.linalg.norm(L0)
    c = np.clip(r @ L0, -1, 1)[..., None]
    lobe = _lobe(c, light) + 0.15 * np.exp(-2 * (1 - c) / 0.12) / 0.4  # + a broad sheen
    return env + light.sun_rgb * lobe * vis


def render(cam: Camera, albedo_tex: np.ndarray, tex_to_mm: np.ndarray, pyrs: list[Pyramid],
           order: list[tuple[int, bool]], light: Light, gloss: float = 0.0, rough: float = 0.1,
           phone_shadow: bool = False, shadow_q: float = 0.5) -> np.ndarray:
    """Linear radiance image (h, w, 3) float32 of the table and pyramids.

    order: (pyramid index, front?) pairs in back-to-front painting order; gloss, rough:
    the table's glossy reflection of the main light (see :func:`table_sheen`);
    phone_shadow: the phone and arm shade the lamp (:func:`shadows.photographer_shadow`).
    """
    img = render_table(cam, albedo_tex, tex_to_mm)
    sun_vis = paste_vis(cam, *shadow_maps(cam, pyrs, light.main, shadow_q))
    phone_vis = photographer_shadow(cam, light.main) if phone_shadow else None
    if phone_vis is not None:
        sun_vis *= phone_vis[..., None]
    fill_vis, fbox = shadow_maps(cam, pyrs, light.fill, shadow_q * 0.5, blur=3.0)
    lz = float(np.clip(light.main[:, 2].mean(), 0, 1))
    direct = table_sheen(cam, light, gloss, rough)
    irr = light.amb_rgb * paste_vis(cam, fill_vis, fbox)
    irr += light.sun_rgb * lz * sun_vis * direct[..., :1]
    img *= irr
    if gloss > 0:
        img += (direct[..., 1:] * light.sun_rgb) * sun_vis
    del sun_vis, irr, direct
    table_rad = np.median(img[::16, ::16].reshape(-1, 3), axis=0)
    Kinv = np.linalg.inv(cam.K)
    C = cam.center
    for idx, front in order:
        _face_layer(img, cam, Kinv, C, idx, pyrs, front, light, table_rad, phone_vis)
    return img


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
    inside = ((np.sum(q * n, -1, keepdims=True) >= cos_arc * qn)
              & (np.sum(q * m, -1, keepdims=True) >= cos_arc * qn))
    ends = np.maximum(np.sum(h * n, -1, keepdims=True), np.sum(h * m, -1, keepdims=True))
    return np.where(inside, qn, ends)[..., 0]


def _face_layer(img, cam, Kinv, C, i: int, pyrs: list[Pyramid], front: bool, light: Light,
                table_rad, extra_vis: np.ndarray | None) -> None:
    """Composite the front (or back, seen from inside) faces of pyramid ``i`` onto img.
    extra_vis: optional (h, w) lamp visibility of the whole frame (the phone's shadow).

    Per pixel the ray is intersected with the face plane, giving face coordinates in mm:
    ``s`` along the base edge from its middle and ``up`` along the slant from the base.
    Those place the darker ridges and rim, the glints of the rounded ridges and the pips.
    """
    Hh, Ww = img.shape[:2]
    p = pyrs[i]
    L0 = light.main.mean(0)
    L0 = (L0 / np.linalg.norm(L0)).astype(np.float32)
    occ = occluders(i, pyrs, L0)
    shadow_dirs = light.main[::8]
    for v0, v1, a, n, n_next, n_prev in faces(p):
        centroid = (v0 + v1 + a) / 3
        if (n @ (C - centroid) > 0) != front:
            continue
        tri = cam.project(np.stack([v0, v1, a]))
        x0, y0 = np.maximum(np.floor(tri.min(0)).astype(int) - 1, 0)
        x1, y1 = np.minimum(np.ceil(tri.max(0)).astype(int) + 2, [Ww, Hh])
        if x1 <= x0 or y1 <= y0:
            continue
        alpha = coverage((y1 - y0, x1 - x0), tri, (x0, y0))
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
        radius = float(np.linalg.norm(np.stack([v0, v1, a]) - centroid, axis=1).max())
        vis = transmit(X + mid.astype(np.float32), shadow_dirs, occ, centroid, radius)  # lamp light
        if extra_vis is not None:
            vis = vis * extra_vis[y0:y1, x0:x1, None]
        env = np.minimum(_env(d + 2 * cos_i * nv, light, table_rad, vis), 6.0)
        hv = L0 - d
        hv /= np.linalg.norm(hv, axis=-1, keepdims=True)
        glint = 0.0
        if front:  # rounded ridges show the light where their normal turns toward it
            n_adj = np.where((s_mm > 0)[..., None], n_next, n_prev).astype(np.float32)
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
            thick = 1 + 3.0 * ridge + 1.0 * rim + 0.8 * pip + 2.0 * tip  # walls, in wall units
            T = (1 - F) * np.exp(-ab * thick / cos_t)
            lit = 0.15 + 1.6 * max(0.0, float(n @ L0))  # outer side toward the light
            glow = (p.mat["glow"] * light.amb_rgb).astype(np.float32)
            glow = glow + (p.mat["glow"] * lit).astype(np.float32) * sun * vis
            emit = 0.5 * F * env * (1 + 0.5 * ridge) + glow * (1 + 0.5 * rim + 0.3 * pip)
            emit += glint * sun * vis
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
