"""Procedural table surfaces, generated in table coordinates.

Every function returns a float32 (h, w, 3) linear-RGB albedo image whose pixels are
``mm`` millimetres square; row/col of the texture map to table (y, x) through the affine
map chosen in :mod:`bench.scenegen.render`. Patterns are axis-aligned here; the renderer
rotates them on the table.
"""
from __future__ import annotations

import cv2
import numpy as np

from .materials import srgb_to_linear

TABLE_KINDS = ("wood", "white", "dark", "cloth")


def noise(rng: np.random.Generator, shape: tuple[int, int], cell: tuple[float, float]) -> np.ndarray:
    """Smooth value noise, float32 (h, w) roughly in [-1, 1]; cell = (rows, cols) px per knot."""
    h, w = shape
    gh = max(2, int(np.ceil(h / max(cell[0], 1e-3))) + 2)
    gw = max(2, int(np.ceil(w / max(cell[1], 1e-3))) + 2)
    grid = rng.uniform(-1, 1, (gh, gw)).astype(np.float32)
    big = cv2.resize(grid, (int(gw * cell[1]), int(gh * cell[0])), interpolation=cv2.INTER_CUBIC)
    oy, ox = int(cell[0]), int(cell[1])
    return np.ascontiguousarray(big[oy:oy + h, ox:ox + w])


def fractal(rng: np.random.Generator, shape, cell_px: float, octaves: int = 4,
            aniso: float = 1.0) -> np.ndarray:
    """Sum of noise octaves, float32 (h, w), std about 0.5; aniso stretches along columns."""
    out = np.zeros(shape, np.float32)
    amp, total = 1.0, 0.0
    for _ in range(octaves):
        out += amp * noise(rng, shape, (cell_px, cell_px * aniso))
        total += amp
        cell_px /= 2.0
        amp *= 0.55
        if cell_px < 1.0:
            break
    return out / total


def rgb(c) -> np.ndarray:
    return srgb_to_linear(np.asarray(c, np.float32))


def wood(rng, shape, mm) -> np.ndarray:
    """Planks along the columns: wavy growth rings, fine pores, seams, per-plank tone."""
    h, w = shape
    tone = rng.uniform(0, 1)
    light = np.array([0.84, 0.62, 0.40]) * (1 - tone) + np.array([0.30, 0.17, 0.09]) * tone
    light = np.clip(light * rng.uniform(0.92, 1.08, 3), 0, 1)
    dark = light * rng.uniform(0.6, 0.85)
    plank = rng.uniform(70, 200) / mm
    rows = np.arange(h, dtype=np.float32)[:, None]
    plank_id = np.floor(rows / plank)
    jitter = np.cos(plank_id * 78.233 + rng.uniform(0, 6))  # per-plank pseudo-random, (h, 1)
    warp = fractal(rng, shape, 30 / mm, 4, aniso=12.0) * rng.uniform(5, 18) / mm
    period = rng.uniform(2.5, 8) / mm
    spacing = fractal(rng, shape, 60 / mm, 3, aniso=4.0) * rng.uniform(1, 4)  # uneven rings
    phase = ((rows + warp + jitter * 500 / mm) / period + spacing) % 1.0
    late = np.clip((phase - 0.6) / 0.15, 0, 1) * np.clip((1.0 - phase) / 0.1, 0, 1)
    pores = fractal(rng, shape, 0.8 / mm, 2, aniso=30.0)
    mottle = fractal(rng, shape, 40 / mm, 3)
    mix = np.clip(0.4 * late + 0.2 * pores + 0.15 * mottle + 0.2 * (jitter * 0.5 + 0.5), 0, 1)
    img = rgb(light)[None, None] * (1 - mix[..., None]) + rgb(dark)[None, None] * mix[..., None]
    seam = (rows % plank)
    seam = np.minimum(seam, plank - seam)
    img *= (1 - 0.5 * np.exp(-(seam / (0.5 / mm)) ** 2))[..., None]
    return img.astype(np.float32)


def white(rng, shape, mm) -> np.ndarray:
    """White laminate (faint mottling) or white cloth (fine weave)."""
    base = rgb(np.clip(np.array([0.9, 0.9, 0.88]) + rng.normal(0, 0.03, 3), 0.7, 1.0))
    mott = fractal(rng, shape, 25 / mm, 4)
    img = base[None, None] * (1 + 0.03 * mott[..., None])
    if rng.random() < 0.5:
        img *= (1 + 0.06 * _weave(rng, shape, mm))[..., None]
    return img.astype(np.float32)


def dark(rng, shape, mm) -> np.ndarray:
    """Charcoal to near-black: felt, slate or dark laminate."""
    v = rng.uniform(0.03, 0.18)
    base = rgb(np.clip(v + rng.normal(0, 0.015, 3), 0.03, 0.4))
    img = base[None, None] * (1 + 0.12 * fractal(rng, shape, 10 / mm, 5)[..., None])
    img *= (1 + 0.1 * _weave(rng, shape, mm))[..., None]
    return img.astype(np.float32)


def _weave(rng, shape, mm) -> np.ndarray:
    """Fabric weave, float32 (h, w) in [-1, 1]; faded out when its period (0.5-1.2 mm) is
    under 4 texture pixels, where it would only alias into moire."""
    h, w = shape
    p = rng.uniform(0.5, 1.2) / mm
    amp = float(np.clip((p - 2.5) / 1.5, 0, 1))
    y, x = np.ogrid[0:h, 0:w]
    wx = np.sin(2 * np.pi * x / p).astype(np.float32)
    wy = np.sin(2 * np.pi * y / p).astype(np.float32)
    return amp * wx * wy


def palette(rng, n) -> np.ndarray:
    """n random sRGB colours, often saturated, shape (n, 3) in [0, 1]."""
    hsv = np.stack([rng.uniform(0, 180, n), rng.uniform(0.15, 0.75, n) * 255,
                    rng.uniform(0.35, 0.95, n) * 255], -1).astype(np.uint8)[None]
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)[0].astype(np.float32) / 255


def cloth(rng, shape, mm) -> np.ndarray:
    """Patterned tablecloth: gingham checks, stripes or a noisy floral-like print."""
    h, w = shape
    kind = rng.choice(["gingham", "stripes", "floral"])
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    ground = np.array([0.93, 0.92, 0.88]) if rng.random() < 0.6 else palette(rng, 1)[0]
    col = palette(rng, 3)
    soft = 0.3 / mm
    if kind == "gingham":
        p = rng.uniform(6, 25) / mm
        a = np.clip((np.abs(((x / p) % 1.0) - 0.5) * p - 0.25 * p) / soft + 0.5, 0, 1)
        b = np.clip((np.abs(((y / p) % 1.0) - 0.5) * p - 0.25 * p) / soft + 0.5, 0, 1)
        k = (a + b)[..., None] / 2
        img = rgb(ground) * (1 - k) + rgb(col[0]) * k
    elif kind == "stripes":
        p = rng.uniform(5, 40) / mm
        duty = rng.uniform(0.2, 0.6)
        ph = (x / p) % 1.0
        s1 = np.clip((duty * p - np.abs(ph - 0.5) * 2 * p * 0.5) / soft, 0, 1)[..., None]
        s2 = np.clip((np.abs(((x / p + 0.5) % 1.0) - 0.5) * p - 0.45 * p) / soft, 0, 1)[..., None]
        img = rgb(ground) * (1 - s1) + rgb(col[0]) * s1
        img = img * (1 - s2) + rgb(col[1]) * s2
    else:
        img = _floral(rng, shape, mm, rgb(ground), rgb(col))
    img = img * (1 + 0.08 * _weave(rng, shape, mm))[..., None]
    img *= (1 + 0.04 * fractal(rng, shape, 40 / mm, 3))[..., None]
    return np.clip(img, 0, 1).astype(np.float32)


def _floral(rng, shape, mm, ground: np.ndarray, col: np.ndarray) -> np.ndarray:
    """Scattered flowers (petal rings around a centre dot) and leaves over a mottled ground."""
    h, w = shape
    img = np.empty((h, w, 3), np.float32)
    img[:] = ground
    n = fractal(rng, shape, rng.uniform(10, 30) / mm, 3)
    m = np.clip((n - 0.2) / 0.05, 0, 1)[..., None] * rng.uniform(0.2, 0.6)
    img = img * (1 - m) + col[2] * m
    spacing = rng.uniform(12, 40) / mm
    count = int(h * w / spacing ** 2)
    ys, xs = rng.uniform(0, h, count), rng.uniform(0, w, count)
    sizes = rng.uniform(0.15, 0.3, count) * spacing
    petals = int(rng.integers(4, 8))
    leaf = tuple(float(v) for v in col[2] * 0.7)
    for x, y, r in zip(xs, ys, sizes):
        a0 = rng.uniform(0, 2 * np.pi)
        for k in range(2):
            t = a0 + k * 2.5  # two leaves
            cv2.ellipse(img, (int(x + 1.6 * r * np.cos(t)), int(y + 1.6 * r * np.sin(t))),
                        (int(r), max(1, int(r * 0.45))), np.rad2deg(t), 0, 360, leaf, -1, cv2.LINE_AA)
        for k in range(petals):
            t = a0 + 2 * np.pi * k / petals
            cv2.circle(img, (int(x + r * np.cos(t)), int(y + r * np.sin(t))), max(1, int(r * 0.6)),
                       tuple(float(v) for v in col[0]), -1, cv2.LINE_AA)
        cv2.circle(img, (int(x), int(y)), max(1, int(r * 0.45)), tuple(float(v) for v in col[1]), -1,
                   cv2.LINE_AA)
    return img


MAKERS = {"wood": wood, "white": white, "dark": dark, "cloth": cloth}


def table_texture(kind: str, rng, shape: tuple[int, int], mm: float) -> np.ndarray:
    """Albedo (h, w, 3) float32 linear RGB for a table of ``kind`` at ``mm`` per pixel."""
    return MAKERS[kind](rng, shape, mm)
