"""What the pipeline measures of pieces whose colours are known: samples to fit the colour
models to (:mod:`calibration.fit`). Outlines are (K, 2) (x, y) pixel polygons of the analysed
image, one per piece alone in its cell (a stacked piece shares its outline with the one below)."""
from __future__ import annotations

import cv2
import numpy as np

from vision import Candidates
from vision.cells import shared_offset
from vision.colour import table_chroma, table_level, table_relative
from vision.pieces import outline_mask

from .profile import Profile


def outline_samples(rgb: np.ndarray, outlines: list[np.ndarray],
                    profile: Profile) -> list[tuple[int, np.ndarray, np.ndarray, float]]:
    """(piece index, median log ratio inside its outline (3,), chroma (3,) and level of the
    table there) of each outline with at least 10 pixels inside; ``rgb`` uint8 (H, W, 3) RGB."""
    log_ratio, table = table_relative(rgb, profile)
    level = table_level(table)
    samples = []
    for k, outline in enumerate(outlines):
        mask = outline_mask(rgb.shape[:2], outline)
        if mask.sum() >= 10:
            samples.append((k, np.median(log_ratio[mask], axis=0), table_chroma(table[mask]), float(level[mask].mean())))
    return samples


def candidate_samples(found: Candidates, outlines: list[np.ndarray], centres: np.ndarray,
                      profile: Profile) -> list[tuple[int, np.ndarray, np.ndarray, float, np.ndarray]]:
    """(piece index, feature less the photo's offset (3,), table chroma (3,), table level, the
    photo's offset (3,)) of each candidate of ``found`` whose centre lies in a piece's outline
    (the piece whose ``centres`` (N, 2) (x, y) is nearest, where outlines overlap): what
    :class:`calibration.PieceColorModel` reads."""
    features = np.array([b.feature for b in found.blobs])
    offset = shared_offset(features, np.array([b.chroma for b in found.blobs]), profile)
    hulls = [cv2.convexHull(np.asarray(outline, np.float32)) for outline in outlines]
    centres = np.asarray(centres, np.float64).reshape(-1, 2)
    samples = []
    for blob, feature in zip(found.blobs, features - offset):
        inside = [k for k, hull in enumerate(hulls) if cv2.pointPolygonTest(hull, blob.center, False) >= 0]
        if inside:
            nearest = min(inside, key=lambda k: float(np.hypot(*(centres[k] - blob.center))))
            samples.append((nearest, feature, blob.chroma, blob.level, offset))
    return samples
