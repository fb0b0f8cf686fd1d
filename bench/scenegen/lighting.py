"""The scene's light: a soft main lamp plus a sky fill, with a colour temperature."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .materials import kelvin_rgb


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


def sample_light(rng: np.random.Generator) -> tuple[Light, dict]:
    """Soft main light + sky fill; colours partly white-balanced like a phone would."""
    kelvin = float(rng.uniform(2700, 6500))
    elev = np.deg2rad(rng.uniform(35, 90))
    azim = rng.uniform(0, 2 * np.pi)
    spread = float(rng.uniform(0.04, 0.22))
    L0 = np.array([np.cos(elev) * np.cos(azim), np.cos(elev) * np.sin(azim), np.sin(elev)])
    u = np.cross(L0, [0.3, 0.5, 0.8])
    u /= np.linalg.norm(u)
    v = np.cross(L0, u)
    n = 16
    k = np.arange(n) + 0.5
    rad = spread * np.sqrt(k / n)
    ang = k * 2.39996 + rng.uniform(0, 2 * np.pi)
    main = L0 + rad[:, None] * (np.cos(ang)[:, None] * u + np.sin(ang)[:, None] * v)
    main /= np.linalg.norm(main, axis=1, keepdims=True)
    m = 24
    k = np.arange(m) + 0.5
    el = np.arcsin(np.sqrt(0.4 + 0.6 * k / m))
    az = k * 2.39996 + rng.uniform(0, 2 * np.pi)
    fill = np.column_stack([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)])
    wb = rng.uniform(0.55, 0.9)
    col = kelvin_rgb(kelvin) ** (1 - wb)
    col /= col @ np.array([0.2126, 0.7152, 0.0722])
    ratio = rng.uniform(0.15, 0.6)
    sky = kelvin_rgb(rng.uniform(min(kelvin, 5000), 7000)) ** (1 - wb)
    sky /= sky @ np.array([0.2126, 0.7152, 0.0722])
    distance = float(rng.uniform(800, 3000))
    light = Light(main, fill, (col * (1 - ratio * 0.5)).astype(np.float32),
                  (sky * ratio * 0.6 + col * ratio * 0.4).astype(np.float32), spread, distance)
    return light, {"kelvin": kelvin, "elevation_deg": float(np.rad2deg(elev)), "distance_mm": distance,
                   "azimuth_deg": float(np.rad2deg(azim)), "softness_rad": spread,
                   "fill_ratio": float(ratio), "white_balance": float(wb)}
