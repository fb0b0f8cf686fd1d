"""Vision: a phone photo of a Zoning Out city -> pieces on the game's grid.

    rgb = load_photo(data, profile.working_side)  # uint8 (H, W, 3) RGB, upright, working size
    detection = analyze(rgb, profile)             # Detection: pieces, grid, confidences, warnings
    detection.city                                # scorer.City
    detection.to_json(rules)                      # the `citycam detect --json` object

Stages, one module each: load, colour (table-relative colour), pieces (candidates), grid
(lattice and camera), classify (colour and size), cells (snapping and stacks), verify (the
reading checked against the photo), detection, overlay.
"""
from __future__ import annotations

import dataclasses
import time

import numpy as np

from calibration import Profile, load_profile

from .cells import read_pieces
from .colour import off_table_strength, plain_table, table_noise, table_palette, table_relative
from .detection import DetectedPiece, Detection, build_detection
from .errors import BoardNotFound, PhotoError, VisionError
from .load import load_photo
from .overlay import draw_overlay
from .pieces import find_blobs
from .verify import check_reading

__all__ = ["analyze", "load_photo", "draw_overlay", "Detection", "DetectedPiece",
           "VisionError", "PhotoError", "BoardNotFound"]


def analyze(rgb, profile: Profile | None = None) -> Detection:
    """Read the city in ``rgb`` (uint8 (H, W, 3) RGB, as from :func:`load_photo`).

    Raises :class:`BoardNotFound` when no piece stands out from the table.
    """
    start = time.perf_counter()
    profile = profile or load_profile()
    log_ratio, table = table_relative(rgb, profile)
    palette = table_palette(log_ratio, profile)
    plain = plain_table(palette, profile)
    if plain:  # on a printed cloth the print, not grain, makes the fine detail
        profile = _for_grain(profile, table_noise(log_ratio, profile))
    else:  # a print's colours, and the blends at their edges, each need an entry
        palette = table_palette(log_ratio, profile, profile.print_palette_size)
    strength = off_table_strength(log_ratio, palette, table, plain, profile)
    blobs, side, log_ratio = find_blobs(log_ratio, strength, table, profile)
    if not blobs:
        raise BoardNotFound("no pieces found: is the whole city in the photo, on a plain table?")
    h, w = rgb.shape[:2]
    try:
        reading = read_pieces(blobs, (w, h), 1.4 * side, profile)
        reading = check_reading(reading, strength, log_ratio, blobs, plain, float(np.mean(table[::8, ::8])), profile)
    except np.linalg.LinAlgError:
        raise BoardNotFound("the pieces found do not sit on a grid; photograph the city from above") from None
    return build_detection(reading, (w, h), profile, time.perf_counter() - start)


def _for_grain(profile: Profile, noise: float) -> Profile:
    """``profile`` with its colour-difference thresholds raised to ``noise_factor`` times the
    photo's grain (:func:`vision.colour.table_noise`) where that is higher: on a dark table
    in dim light the sensor noise alone would otherwise stand out from the table."""
    floor = profile.noise_factor * noise
    return dataclasses.replace(profile, foreground_threshold=max(profile.foreground_threshold, floor),
                               unseen_threshold=max(profile.unseen_threshold, floor / 2))
