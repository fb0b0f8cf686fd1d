"""Fitting the colour models from labelled pieces.

Each sample is one piece: its median table-relative log ratio (3,), the chroma of the table
it stands on (3,) and its true colour (for the piece model also the table's level, (N,)).
The pixel model ``f = prototype[colour] + G @ table_chroma`` is fitted by linear least
squares, one output channel at a time; the piece model (:class:`PieceColorModel`) by least
squares per colour and a trimmed covariance of the residuals.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from .profile import COLOR_ORDER, ColorModel, PieceColorModel


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


_TRIM = 0.95  # the share of a colour's samples its covariance is measured on (the rest: misread outliers)
# the trimmed samples of a 3-d Gaussian vary less than all of them: _TRIM over the chance that
# a chi-square of 5 degrees of freedom is under the 3-degree one's _TRIM quantile (7.8147)
_TRIM_CONSISTENCY = _TRIM / (math.erf(math.sqrt(7.8147 / 2))
                             - math.sqrt(2 * 7.8147 / math.pi) * math.exp(-7.8147 / 2) * (1 + 7.8147 / 3))


def fit_piece_colors(features: np.ndarray, chromas: np.ndarray, levels: np.ndarray,
                     colors: list[str], like: PieceColorModel) -> PieceColorModel:
    """Fit :class:`PieceColorModel` to samples: ``features`` (N, 3) (less their photos'
    offsets), ``chromas`` (N, 3), ``levels`` (N,), ``colors`` N names; the means and
    covariances are fitted, the rest kept from ``like`` (its outlier cost and spreads). The
    covariance of each colour is measured on the ``_TRIM`` share of its samples nearest its
    mean (a candidate matched to the wrong piece, or half a piece, is not how the colour
    varies). Raises ValueError if a colour has fewer than 20 samples."""
    features = np.asarray(features, np.float64)
    regressors = PieceColorModel.regressors(chromas, levels)
    index = np.array([COLOR_ORDER.index(c) for c in colors])
    coefficients, covariance = {}, {}
    for k, color in enumerate(COLOR_ORDER):
        own = index == k
        if own.sum() < 20:
            raise ValueError(f"{own.sum()} samples of {color}, at least 20 needed")
        coef, *_ = np.linalg.lstsq(regressors[own], features[own], rcond=None)
        residual = features[own] - regressors[own] @ coef
        spread = np.einsum("ni,ij,nj->n", residual, np.linalg.inv(np.cov(residual.T)), residual)
        kept = residual[spread <= np.quantile(spread, _TRIM)]
        coefficients[color] = tuple(tuple(np.round(row, 4)) for row in coef)
        covariance[color] = tuple(tuple(np.round(row, 6)) for row in np.cov(kept.T) * _TRIM_CONSISTENCY)
    return dataclasses.replace(like, coefficients=coefficients, covariance=covariance)


def refit_piece_means(model: PieceColorModel, features: np.ndarray, chromas: np.ndarray,
                      levels: np.ndarray, colors: list[str]) -> PieceColorModel:
    """``model`` with each colour's intercept moved so that its mean fits ``features`` of one
    photo (one table, one light: how the model's means move with the table cannot be measured
    from it, nor its covariance, so both are kept). Arguments as for :func:`fit_piece_colors`;
    a colour without a sample keeps its mean (a black piece found by its edges alone has no
    candidate)."""
    features = np.asarray(features, np.float64)
    regressors = PieceColorModel.regressors(chromas, levels)
    index = np.array([COLOR_ORDER.index(c) for c in colors])
    coefficients = {}
    for k, color in enumerate(COLOR_ORDER):
        coef = np.array(model.coefficients[color])
        own = index == k
        if own.any():
            coef[0] += np.median(features[own] - regressors[own] @ coef, axis=0)
        coefficients[color] = tuple(tuple(np.round(row, 4)) for row in coef)
    return dataclasses.replace(model, coefficients=coefficients)


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
