"""The table as the camera sees it: texture placement, rule cards, lamp fall-off and sheen.

Table coordinates are world millimetres on z = 0; texture pixels map to them through a
3x3 affine ``tex_to_mm``.
"""
from __future__ import annotations

import cv2
import numpy as np

from .camera import Camera
from .geometry import Pyramid, quads_overlap
from .lighting import Light
from .materials import FACE_SRGB
from .textures import palette, rgb, table_texture


CARD_MM = (63.0, 88.0)


def sample_cards(rng: np.random.Generator, pyrs: list[Pyramid]) -> list[dict]:
    """0-3 rule cards flat on the table around (never under) the city.
    Each: {"centre_mm": [x, y], "angle_deg": a, "corners_mm": 4x[x, y]}."""
    n = 0 if rng.random() < 0.5 else int(rng.integers(1, 4))
    radius = max(float(np.abs(p.corners()[:, :2]).max()) for p in pyrs) * np.sqrt(2)
    half_diag = float(np.hypot(*CARD_MM)) / 2
    cards: list[dict] = []
    for _ in range(20 * n):
        if len(cards) == n:
            break
        phi = rng.uniform(0, 2 * np.pi)
        centre = (radius + half_diag + rng.uniform(3, 60)) * np.array([np.cos(phi), np.sin(phi)])
        ang = rng.uniform(-np.pi, np.pi)
        c, s = np.cos(ang), np.sin(ang)
        loc = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * np.array(CARD_MM) / 2
        corners = loc @ np.array([[c, s], [-s, c]]) + centre
        if not any(quads_overlap(corners, np.array(k["corners_mm"])) for k in cards):
            cards.append({"centre_mm": centre.tolist(), "angle_deg": float(np.rad2deg(ang)),
                          "corners_mm": corners.tolist()})
    return cards


def draw_card(tex: np.ndarray, mm_to_tex: np.ndarray, centre: np.ndarray, angle: float,
              rng: np.random.Generator) -> None:
    """Paint a rule card lying on the table into ``tex`` (in place).

    mm_to_tex: 3x3 map table (X, Y) mm -> texture (x, y) px; centre: (2,) card centre mm;
    angle: radians. The card has a border, a title band, an illustration of little
    pyramids and lines of 'text'.
    """
    c, s = np.cos(angle), np.sin(angle)
    rot = np.array([[c, -s], [s, c]])

    def poly(pts_mm, colour):
        xy = np.asarray(pts_mm, float) @ rot.T + centre
        p = np.column_stack([xy, np.ones(len(xy))]) @ mm_to_tex.T
        px = np.round(p[:, :2] / p[:, 2:3] * 16).astype(np.int32)
        cv2.fillConvexPoly(tex, px, tuple(float(v) for v in colour), cv2.LINE_8, 4)

    def rect(x0, y0, x1, y1, colour):
        poly([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], colour)

    w, h = CARD_MM[0] / 2, CARD_MM[1] / 2
    paper = rgb(np.clip(np.array([0.93, 0.91, 0.85]) + rng.normal(0, 0.02, 3), 0, 1))
    accent = rgb(palette(rng, 1)[0])
    rect(-w, -h, w, h, accent)
    rect(-w + 3, -h + 3, w - 3, h - 3, paper)
    rect(-w + 5, h - 14, w - 5, h - 5, accent * 0.8)  # title band (y grows to the far side)
    for k in range(int(rng.integers(2, 6))):  # little pyramids
        col = rgb(np.array(FACE_SRGB[str(rng.choice(list(FACE_SRGB)))]) / 255.0)
        cx, cy, r = rng.uniform(-18, 18), rng.uniform(-2, 22), rng.uniform(3, 7)
        poly([[cx - r, cy - r], [cx + r, cy - r], [cx, cy + 1.5 * r]], col)
    for k in range(int(rng.integers(4, 9))):  # text
        y = -h + 8 + 3.2 * k
        rect(-w + 6, y, -w + 6 + rng.uniform(20, CARD_MM[0] - 12), y + 1.2, paper * 0.25)


def table_for(rng: np.random.Generator, kind: str, cam: Camera,
              cards: list[dict] = ()) -> tuple[np.ndarray, np.ndarray]:
    """Texture (h, w, 3) covering the camera's view of the table (with ``cards`` painted
    on it), and its 3x3 texture-px -> table-mm affine map (random rotation of the pattern)."""
    Hinv = np.linalg.inv(cam.homography())
    corners = np.array([[0, 0, 1], [cam.width, 0, 1], [cam.width, cam.height, 1], [0, cam.height, 1.0]])
    mm = corners @ Hinv.T
    mm = mm[:, :2] / mm[:, 2:3]
    ang = rng.uniform(0, np.pi)
    c, s = np.cos(ang), np.sin(ang)
    R = np.array([[c, -s], [s, c]])
    loc = mm @ R  # table -> texture-aligned frame (R^T applied to rows)
    lo, hi = loc.min(0) - 5, loc.max(0) + 5
    centre_px_mm = float(cam.depth(np.zeros((1, 3)))[0] / cam.K[0, 0])
    res = max(centre_px_mm * 1.2, float((hi - lo).max()) / 3500)
    shape = (int(np.ceil((hi[1] - lo[1]) / res)), int(np.ceil((hi[0] - lo[0]) / res)))
    tex = table_texture(kind, rng, shape, res)
    A = np.array([[res, 0, lo[0]], [0, res, lo[1]], [0, 0, 1.0]])
    Rh = np.eye(3)
    Rh[:2, :2] = R
    tex_to_mm = Rh @ A
    for card in cards:
        draw_card(tex, np.linalg.inv(tex_to_mm), np.array(card["centre_mm"]),
                  np.deg2rad(card["angle_deg"]), rng)
    return tex, tex_to_mm


def render_table(cam: Camera, albedo_tex: np.ndarray, tex_to_mm: np.ndarray) -> np.ndarray:
    """Table albedo seen by the camera: (h, w, 3) float32. tex_to_mm: 3x3 affine mapping
    texture (x, y) pixels to table (X, Y) mm."""
    Hm = cam.homography() @ tex_to_mm
    return cv2.warpPerspective(albedo_tex, Hm, (cam.width, cam.height), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REFLECT)


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
