"""Fitting a colour model from labelled pieces.

Each sample is one piece: its median table-relative log ratio (3,), the chroma of the table
it stands on (3,) and its true colour. The model ``f = prototype[colour] + G @ table_chroma``
is fitted by linear least squares, one output channel at a time.
"""
from __future__ import annotations

import numpy as np

from .profile import COLOR_ORDER, ColorModel


def fit_color_model(features: np.ndarray, chromas: np.ndarray, colors: list[str],
                    brightness_weight: dict[str, float], fit_gain: bool = True) -> ColorModel:
    """``features``: (N, 3) float; ``chromas``: (N, 3) float; ``colors``: N colour names;
    ``brightness_weight``: kept as given (see :class:`ColorModel`).

    With ``fit_gain`` false (one photo, one table) the table gain is zero and the prototypes
    absorb the table. Raises ValueError if a colour has no sample.
    """
    features = np.asarray(features, np.float64)
    chromas = np.asarray(chromas, np.float64)
    index = np.array([COLOR_ORDER.index(c) for c in colors])
    missing = [c for k, c in enumerate(COLOR_ORDER) if not np.any(index == k)]
    if missing:
        raise ValueError(f"no sample of {', '.join(missing)}")
    onehot = np.eye(len(COLOR_ORDER))[index]
    design = np.hstack([onehot, chromas]) if fit_gain else onehot
    coef, *_ = np.linalg.lstsq(design, features, rcond=None)
    prototypes = coef[:len(COLOR_ORDER)]
    gain = coef[len(COLOR_ORDER):].T if fit_gain else np.zeros((3, 3))
    residual = features - design @ coef
    spread = float(np.median(np.linalg.norm(residual, axis=1)))
    return ColorModel(prototypes={c: tuple(np.round(prototypes[k], 4)) for k, c in enumerate(COLOR_ORDER)},
                      table_gain=tuple(tuple(np.round(row, 4)) for row in gain), spread=round(spread, 4),
                      brightness_weight=dict(brightness_weight))


def separation(features: np.ndarray, chromas: np.ndarray, colors: list[str], model: ColorModel) -> dict:
    """How well ``model`` separates the samples: accuracy and the worst margin.

    Margin of a sample: distance to the nearest wrong prototype minus distance to its own,
    in units of ``model.spread``. Returns {"accuracy", "min_margin", "median_margin"}.
    """
    dist = color_distances(np.asarray(features), np.asarray(chromas), model)
    index = np.array([COLOR_ORDER.index(c) for c in colors])
    own = dist[np.arange(len(index)), index]
    other = np.where(np.eye(len(COLOR_ORDER), dtype=bool)[index], np.inf, dist).min(axis=1)
    margin = (other - own) / max(model.spread, 1e-6)
    return {"accuracy": float(np.mean(dist.argmin(axis=1) == index)),
            "min_margin": float(margin.min()), "median_margin": float(np.median(margin))}


def color_distances(features: np.ndarray, chromas: np.ndarray, model: ColorModel) -> np.ndarray:
    """(N, 5) distances (:meth:`ColorModel.distance`) of each feature to each colour's
    table-adjusted prototype."""
    return model.distance(np.asarray(features)[:, None, :] - model.expected(chromas))
