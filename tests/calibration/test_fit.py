"""Fitting the piece colour model, on samples drawn from a known model (seeded)."""
import numpy as np
import pytest

from calibration import load_profile
from calibration.fit import fit_piece_colors, refit_piece_means
from calibration.profile import COLOR_ORDER

TRUTH = load_profile().piece_colors


def draw(model, per_color: int, seed: int):
    """Samples of every colour from ``model`` over tables of varied chroma and level."""
    rng = np.random.default_rng(seed)
    features, chromas, levels, colors = [], [], [], []
    for color in COLOR_ORDER:
        chroma = rng.normal(0, 0.15, (per_color, 3))
        chroma -= chroma.mean(axis=1, keepdims=True)
        level = rng.uniform(3.0, 5.3, per_color)
        mean = model.regressors(chroma, level) @ np.array(model.coefficients[color])
        features.append(mean + rng.multivariate_normal(np.zeros(3), model.covariance[color], per_color))
        chromas.append(chroma)
        levels.append(level)
        colors += [color] * per_color
    return np.vstack(features), np.vstack(chromas), np.concatenate(levels), colors


def test_the_piece_model_is_recovered_from_samples_drawn_from_it():
    features, chromas, levels, colors = draw(TRUTH, 3000, seed=1)
    fitted = fit_piece_colors(features, chromas, levels, colors, TRUTH.outlier_cost)
    tables = TRUTH.regressors(chromas[::50], levels[::50])  # a chroma sums to 0: compare the means, not
    for color in COLOR_ORDER:                               # coefficients that trade off against each other
        sd = np.sqrt(np.diag(TRUTH.covariance[color]))
        moved = tables @ np.array(fitted.coefficients[color]) - tables @ np.array(TRUTH.coefficients[color])
        assert np.abs(moved / sd).mean() < 0.06 and np.abs(moved / sd).max() < 0.25, color
        spread = np.sqrt(np.diag(fitted.covariance[color])) / sd
        assert np.all((0.95 < spread) & (spread < 1.05)), (color, spread)


def test_each_sample_is_read_as_the_colour_it_was_drawn_from():
    features, chromas, levels, colors = draw(TRUTH, 200, seed=2)
    read = np.array(COLOR_ORDER)[TRUTH.costs(features, chromas, levels).argmin(axis=1)]
    assert np.mean(read == np.array(colors)) > 0.97


def test_one_photo_moves_the_means_and_keeps_the_rest():
    """A calibration photo: one table, every colour 0.1 redder than the model says."""
    features, chromas, levels, colors = draw(TRUTH, 3, seed=3)
    chromas[:], levels[:] = chromas[0], levels[0]
    shifted = features + [0.1, 0.0, 0.0]
    refitted = refit_piece_means(TRUTH, shifted, chromas, levels, colors)
    for color in COLOR_ORDER:
        before, after = np.array(TRUTH.coefficients[color]), np.array(refitted.coefficients[color])
        assert np.array_equal(before[1:], after[1:])
        assert refitted.covariance[color] == TRUTH.covariance[color]
    assert np.mean(refitted.costs(shifted, chromas, levels).argmin(axis=1)
                   == [COLOR_ORDER.index(c) for c in colors]) == 1.0


def test_a_colour_without_enough_samples_is_refused():
    features, chromas, levels, colors = draw(TRUTH, 30, seed=4)
    keep = [k for k, c in enumerate(colors) if c != "green" or k % 3 == 0]  # 10 green samples
    with pytest.raises(ValueError, match="10 samples of green"):
        fit_piece_colors(features[keep], chromas[keep], levels[keep], [colors[k] for k in keep], -2.0)
