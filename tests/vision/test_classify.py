import numpy as np
from hypothesis import given, strategies as st

from vision.classify import color_confidence, likely_sizes, within_supply

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


def test_two_larges_side_by_side_cost_the_large_pair_cost():
    """A piece measured between large and medium beside a clear large yields to the rule that
    two larges may not touch; where the rules let them (Canadian Style: no cost), it does not,
    while two mediums still may not touch."""
    cells = np.array([[0, 0], [1, 0]])
    larges = _mismatch([1.1, 0.87])
    assert likely_sizes(larges, np.array([0, 1]), cells, TOL, SAME, 3, SURPLUS)[0].tolist() == [2, 1]
    touching = likely_sizes(larges, np.array([0, 1]), cells, TOL, SAME, 3, SURPLUS, large_pair_cost=0.0)[0]
    assert touching.tolist() == [2, 2]
    mediums = likely_sizes(_mismatch([0.6, 0.37]), np.array([0, 1]), cells, TOL, SAME, 3, SURPLUS, large_pair_cost=0.0)
    assert mediums[0].tolist() == [1, 0]


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


@given(st.lists(st.floats(-0.3, 1.5), min_size=4, max_size=4), st.lists(st.integers(0, 2), min_size=4, max_size=4))
def test_a_piece_under_another_is_never_read_at_or_below_its_size(measured, least):
    """A clear measurement does not outweigh it, nor do the rules: a stacked piece rests on
    a larger one."""
    cells = np.array([[0, 0], [1, 0], [1, 1], [0, 1]])
    sizes, cost = likely_sizes(_mismatch(measured), np.zeros(4, int), cells, TOL, SAME, 3, SURPLUS,
                               np.array(least))
    assert (sizes >= np.array(least)).all() and np.isfinite(cost)


def test_a_piece_under_a_small_one_reads_medium_where_it_measures_small():
    cells = np.array([[0, 0], [1, 0]])
    sizes, _ = likely_sizes(_mismatch([0.0, 1.1]), np.array([0, 1]), cells, TOL, SAME, 3, SURPLUS, np.array([1, 0]))
    assert sizes.tolist() == [1, 2]


@given(st.lists(st.floats(-0.3, 1.5), min_size=9, max_size=9), st.lists(st.integers(0, 4), min_size=9, max_size=9))
def test_readings_at_several_scales_solved_side_by_side_match_one_by_one(measured, colors):
    """The pitch search solves all scales at once; each must come out as if solved alone."""
    cells = np.array([(c, r) for r in range(3) for c in range(3)])
    colors = np.array(colors)
    scales = [_mismatch(np.array(measured) + shift) for shift in (-0.4, -0.1, 0.0, 0.3)]
    sizes, costs = likely_sizes(np.stack(scales), colors, cells, TOL, SAME, 3, SURPLUS)
    for k, scores in enumerate(scales):
        alone, cost = likely_sizes(scores, colors, cells, TOL, SAME, 3, SURPLUS)
        assert sizes[k].tolist() == alone.tolist() and costs[k] == cost


BLUE, BLACK = 3, 4


def _costs(rows: list[dict[int, float]]) -> np.ndarray:
    """(N, 5) colour costs: 8 (far) except where a row names a colour's cost."""
    costs = np.full((len(rows), 5), 8.0)
    for costs_row, row in zip(costs, rows):
        for color, cost in row.items():
            costs_row[color] = cost
    return costs


def test_a_fourth_piece_of_a_kind_takes_its_next_colour_where_that_is_cheapest():
    """Four large blues: the one whose black reading is nearly as good becomes black."""
    costs = _costs([{BLUE: 0.0, BLACK: 6.0}, {BLUE: 0.0, BLACK: 1.5}, {BLUE: 0.0, BLACK: 5.0},
                    {BLUE: 0.2, BLACK: 4.0}])
    colors = within_supply(np.full(4, BLUE), np.full(4, 3), costs, 3, SURPLUS)
    assert colors.tolist() == [BLUE, BLACK, BLUE, BLUE]


def test_a_clear_colour_is_kept_even_beyond_the_supply():
    """Every other colour costs more than a surplus piece: the reading stands (the player
    may really have broken the rules)."""
    costs = _costs([{BLUE: 0.0, BLACK: 6.0}] * 4)
    colors = within_supply(np.full(4, BLUE), np.full(4, 3), costs, 3, SURPLUS)
    assert colors.tolist() == [BLUE] * 4


def test_a_piece_moves_only_to_a_kind_with_room():
    """Black large is full; the surplus blue goes to its next colour with room, if cheap."""
    costs = _costs([{BLUE: 0.0, BLACK: 0.5, 0: 2.0}] + [{BLUE: 0.0}] * 3 + [{BLACK: 0.0}] * 3)
    colors = within_supply(np.array([BLUE] * 4 + [BLACK] * 3), np.full(7, 3), costs, 3, SURPLUS)
    assert colors.tolist() == [0] + [BLUE] * 3 + [BLACK] * 3


def test_other_sizes_of_a_colour_do_not_count_against_a_kind():
    costs = _costs([{BLUE: 0.0, BLACK: 0.1}] * 4)
    colors = within_supply(np.full(4, BLUE), np.array([1, 2, 3, 3]), costs, 3, SURPLUS)
    assert colors.tolist() == [BLUE] * 4


def test_colour_confidence_is_the_chosen_colours_probability():
    costs = _costs([{BLUE: 0.0, BLACK: 0.0}, {BLUE: 0.0}])
    confidence = color_confidence(costs, np.array([BLUE, BLUE]))
    assert abs(confidence[0] - 0.5) < 0.01 and confidence[1] > 0.99


def test_a_candidate_far_from_every_colour_is_not_sure_of_any():
    """Two candidates equally nearer blue than black; the second fits neither well (a
    shadow, a stack's mixed tints): with "none of these" as a choice, it is the less sure."""
    near = np.array([[9.0, 9.0, 9.0, -6.0, -4.0]])  # costs: blue clearly, both fit
    far = near + 5.0  # the same choice, everything 5 nats less likely
    plain = [color_confidence(c, np.array([3]))[0] for c in (near, far)]
    assert plain[0] == plain[1]
    sure = [color_confidence(c, np.array([3]), outlier_cost=-2.0)[0] for c in (near, far)]
    assert sure[0] > 0.85 and sure[1] < 0.6


@st.composite
def _readings(draw):
    """Colours, sizes and colour costs of up to 20 pieces, with many of a kind."""
    n = draw(st.integers(1, 20))
    colors = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)))
    sizes = np.array(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)))
    costs = np.array(draw(st.lists(st.lists(st.floats(0, 8), min_size=5, max_size=5), min_size=n, max_size=n)))
    return colors, sizes, costs


def _surplus(colors, sizes) -> int:
    kinds = np.zeros((5, 4), int)
    np.add.at(kinds, (colors, sizes), 1)
    return int(np.maximum(kinds - 3, 0).sum())


@given(_readings())
def test_re_reading_within_the_supply_only_lowers_the_surplus_and_each_move_is_cheap(reading):
    colors, sizes, costs = reading
    new = within_supply(colors, sizes, costs, 3, SURPLUS)
    moved = np.flatnonzero(new != colors)
    assert _surplus(new, sizes) == _surplus(colors, sizes) - len(moved)
    assert np.all(costs[moved, new[moved]] - costs[moved, colors[moved]] < SURPLUS)
    assert within_supply(new, sizes, costs, 3, SURPLUS).tolist() == new.tolist()  # nothing left to move
