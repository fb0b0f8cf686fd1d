"""Fitting the piece colour model, on samples drawn from a known model (seeded)."""
import dataclasses

import numpy as np
import pytest

from calibration import load_profile
from calibration.fit import fit_piece_colors, refit_piece_means
from calibration.profile import BLACK, COLOR_ORDER

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
    fitted = fit_piece_colors(features, chromas, levels, colors, TRUTH)
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
        fit_piece_colors(features[keep], chromas[keep], levels[keep], [colors[k] for k in keep], TRUTH)


def tables(count: int, seed: int):
    """``count`` table chromas (summing to 0) and levels, seeded."""
    rng = np.random.default_rng(seed)
    chroma = rng.normal(0, 0.1, (count, 3))
    return chroma - chroma.mean(axis=1, keepdims=True), rng.uniform(3.0, 5.3, count)


def test_a_tint_lit_brighter_all_over_keeps_its_colour():
    """Light through the plastic lifts every channel alike: 0.6 (log units) over its mean,
    blue would read green and yellow would read another colour without the lift."""
    chroma, level = tables(100, seed=5)
    unlifted = dataclasses.replace(TRUTH, brighter_spread=0.0)
    for color in COLOR_ORDER:
        lifted = TRUTH.regressors(chroma, level) @ np.array(TRUTH.coefficients[color]) + 0.6
        assert np.all(TRUTH.costs(lifted, chroma, level).argmin(axis=1) == COLOR_ORDER.index(color)), color
        if color in ("yellow", "blue"):
            assert np.mean(unlifted.costs(lifted, chroma, level).argmin(axis=1) == COLOR_ORDER.index(color)) < 0.1


def test_only_a_tint_is_lifted_and_only_up():
    """Black, told by its darkness, and a tint darker all over than its mean cost what they
    would without the lift."""
    chroma, level = tables(50, seed=6)
    unlifted = dataclasses.replace(TRUTH, brighter_spread=0.0)
    rng = np.random.default_rng(7)
    for color in COLOR_ORDER:
        k = COLOR_ORDER.index(color)
        mean = TRUTH.regressors(chroma, level) @ np.array(TRUTH.coefficients[color])
        darker = mean - rng.uniform(0.1, 0.8, (len(mean), 1))
        assert np.allclose(TRUTH.costs(darker, chroma, level)[:, k], unlifted.costs(darker, chroma, level)[:, k])
    anything = rng.normal(0, 1, (50, 3))
    assert np.allclose(TRUTH.costs(anything, chroma, level)[:, BLACK], unlifted.costs(anything, chroma, level)[:, BLACK])


def test_a_more_deeply_dyed_or_paler_tint_keeps_its_colour_where_the_offset_is_told():
    """Another maker's pieces, dyed 1.8 times as deeply or half as deeply: samples drawn from
    the model, each channel their tint darkens (the log ratio to the table, the photo's
    offset put back, under 0) scaled so (Beer-Lambert: it goes as the dye the light passes).
    Blue, whose spread is the narrowest, reads far worse without the depth; black is opaque
    and is not deepened."""
    features, chromas, levels, colors = draw(TRUTH, 300, seed=11)
    offset = np.array([-0.2, -0.2, -0.2])
    index = np.array([COLOR_ORDER.index(c) for c in colors])
    shallow = dataclasses.replace(TRUTH, tint_depth_spread=0.0)
    assert TRUTH.tint_depth_spread > 0
    for depth in (1.8, 0.5):
        absorbed = (index != BLACK)[:, None] & (features + offset < 0)  # what the dye takes from the table
        seen = np.where(absorbed, depth * (features + offset) - offset, features)
        right = TRUTH.costs(seen, chromas, levels, offset).argmin(axis=1) == index
        wrong = shallow.costs(seen, chromas, levels, offset).argmin(axis=1) != index
        for k, color in enumerate(COLOR_ORDER):
            assert np.mean(right[index == k]) > 0.95, (color, depth)
        assert np.mean(wrong[index == COLOR_ORDER.index("blue")]) > 0.15, depth
    assert np.array_equal(shallow.costs(features, chromas, levels, offset), shallow.costs(features, chromas, levels))


def test_a_tint_at_its_mean_costs_no_more_for_its_depth_and_black_has_none():
    chroma, level = tables(50, seed=9)
    offset = np.array([0.1, 0.1, 0.1])
    rng = np.random.default_rng(10)
    for color in COLOR_ORDER:
        mean = TRUTH.regressors(chroma, level) @ np.array(TRUTH.coefficients[color])
        k = COLOR_ORDER.index(color)
        assert np.allclose(TRUTH.costs(mean, chroma, level, offset)[:, k], TRUTH.costs(mean, chroma, level)[:, k])
    anything = rng.normal(0, 1, (50, 3))
    assert np.allclose(TRUTH.costs(anything, chroma, level, offset)[:, BLACK], TRUTH.costs(anything, chroma, level)[:, BLACK])
