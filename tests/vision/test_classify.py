import numpy as np

from vision.classify import likely_sizes

TOL, SAME, SURPLUS = 0.12, 3.0, 3.0


def _mismatch(measured: list[float]) -> np.ndarray:
    """(N, 3) log-area mismatches for pieces whose log area sits at ``measured`` on a scale
    where the sizes are at 0, 0.6 and 1.1."""
    return np.abs(np.array(measured)[:, None] - np.array([0.0, 0.6, 1.1])[None])


def test_clear_readings_are_kept_even_when_they_break_the_rules():
    cells = np.array([[0, 0], [1, 0]])
    sizes, _ = likely_sizes(_mismatch([0.6, 0.6]), np.array([0, 1]), cells, TOL, SAME, 3, SURPLUS)
    assert sizes.tolist() == [1, 1]


def test_an_ambiguous_reading_yields_to_its_neighbour():
    cells = np.array([[0, 0], [1, 0]])
    sizes, _ = likely_sizes(_mismatch([0.6, 0.37]), np.array([0, 1]), cells, TOL, SAME, 3, SURPLUS)
    assert sizes.tolist() == [1, 0]


def test_an_ambiguous_reading_yields_to_the_supply():
    cells = np.array([[0, 0], [2, 0], [4, 0], [6, 0]])  # apart: no neighbours
    sizes, _ = likely_sizes(_mismatch([1.1, 1.1, 1.1, 0.87]), np.zeros(4, int), cells, TOL, SAME, 3, SURPLUS)
    assert sizes.tolist() == [2, 2, 2, 1]


def test_a_wrong_scale_costs_more_than_the_right_one():
    cells = np.array([[0, 0], [1, 0], [2, 0], [3, 0]])
    measured = np.array([0.0, 0.6, 0.0, 1.1])
    _, right = likely_sizes(_mismatch(measured), np.arange(4) % 5, cells, TOL, SAME, 3, SURPLUS)
    _, shifted = likely_sizes(_mismatch(measured + 0.55), np.arange(4) % 5, cells, TOL, SAME, 3, SURPLUS)
    assert right < shifted


def test_a_piece_measured_far_above_a_large_one_still_reads_large():
    """With its shadow, a large piece measured twice a large's area: all its sizes are far
    off, but small is the farthest. Beside another large, the rules must not make it small."""
    cells = np.array([[0, 0], [1, 0]])
    sizes, _ = likely_sizes(_mismatch([1.1, 1.1 + 0.7]), np.array([0, 1]), cells, TOL, SAME, 3, SURPLUS)
    assert sizes.tolist() == [2, 2]
