"""Colours and material constants: piece plastics, light colour, colour conversions.

All colours are float linear RGB unless named srgb.
"""
from __future__ import annotations

import numpy as np

# Mean sRGB of a face seen on a light table (design.md section 6; red chosen by eye).
FACE_SRGB = {
    "red": (0xb8, 0x26, 0x2e),
    "yellow": (0xa7, 0xa9, 0x27),
    "green": (0x43, 0x7f, 0x20),
    "blue": (0x55, 0x78, 0xaf),
}
# Piece sets by name: the measured one, and another maker's (hues turned 10 to 25 degrees,
# more saturated: golden yellow, emerald green, deep blue), to measure what a player's own
# pieces cost the reading and what calibrating to them gains (bench/calibrate.py).
PLASTICS = {
    "measured": FACE_SRGB,
    "vivid": {"red": (0xd0, 0x30, 0x20), "yellow": (0xc8, 0xa0, 0x10), "green": (0x20, 0x90, 0x50),
              "blue": (0x30, 0x50, 0xc0)},
}
BASE_MM = {1: 14.3, 2: 19.8, 3: 25.4}
HEIGHT_MM = {1: 25.4, 2: 34.9, 3: 44.5}
REFRACTIVE_INDEX = 1.5


def srgb_to_linear(c: np.ndarray) -> np.ndarray:
    """sRGB in [0, 1] (any shape) -> linear, same shape and dtype."""
    c = np.asarray(c)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4).astype(c.dtype)


def linear_to_srgb(c: np.ndarray) -> np.ndarray:
    """Linear in [0, 1] (any shape) -> sRGB in [0, 1], same shape and dtype."""
    c = np.clip(c, 0, 1)
    return np.where(c <= 0.0031308, c * 12.92, 1.055 * np.power(c, 1 / 2.4) - 0.055).astype(c.dtype)


def kelvin_rgb(kelvin: float) -> np.ndarray:
    """Linear RGB of a black body at ``kelvin`` (approximate fit), max channel 1, shape (3,)."""
    t = kelvin / 100.0
    r = 255.0 if t <= 66 else 329.7 * (t - 60) ** -0.1332
    g = 99.47 * np.log(t) - 161.1 if t <= 66 else 288.1 * (t - 60) ** -0.0755
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5 * np.log(t - 10) - 305.0)
    srgb = np.clip(np.array([r, g, b]) / 255.0, 0, 1)
    lin = srgb_to_linear(srgb)
    return lin / lin.max()


def plastic(color: str, rng: np.random.Generator, faces: dict = FACE_SRGB) -> dict:
    """Material of one colour for one scene, its face seen as ``faces`` (sRGB 0..255 per
    tinted colour name) has it.

    Returns dict: ``absorb`` (3,) absorbance per wall at normal incidence (translucent only),
    ``glow`` (3,) scattering albedo, ``opaque`` bool, ``diffuse`` (3,) (black only).
    """
    if color == "black":
        return {"opaque": True, "diffuse": np.full(3, rng.uniform(0.012, 0.025)),
                "absorb": np.zeros(3), "glow": np.zeros(3)}
    face = srgb_to_linear(np.array(faces[color]) / 255.0)
    # Seen from above through two walls at about 1.3x path: T ~ exp(-2.6 * absorb).
    target = np.clip(face / 0.75, 0.004, 0.95)
    absorb = -np.log(target) / 2.6 * rng.uniform(0.85, 1.15) * rng.uniform(0.92, 1.08, 3)
    return {"opaque": False, "absorb": absorb, "glow": 0.05 * target / target.max(),
            "diffuse": np.zeros(3)}
