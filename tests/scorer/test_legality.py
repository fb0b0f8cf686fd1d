from scorer import check_legality
from conftest import city_from_map


def reasons(city, rules=None):
    return [(i.reason, [list(c) for c in i.cells]) for i in check_legality(city, rules)]


def test_a_legal_city_has_no_problems():
    assert reasons(city_from_map("R1 Y2 G1", "B3 K1 R3")) == []


def test_same_size_neighbours_are_flagged_with_both_cells():
    assert reasons(city_from_map("R1 Y2 G2")) == [("same-size", [[0, 1], [0, 2]])]


def test_diagonal_same_size_is_fine():
    assert reasons(city_from_map("R1 Y2", "G2 B1")) == []


def test_canadian_style_allows_large_next_to_large_only():
    city = city_from_map("R3 Y3 G2 B2")
    assert reasons(city) == [("same-size", [[0, 0], [0, 1]]), ("same-size", [[0, 2], [0, 3]])]
    assert reasons(city, ["canadian-style"]) == [("same-size", [[0, 2], [0, 3]])]


def test_disconnected_pieces_are_flagged():
    problems = check_legality(city_from_map("R1 Y2 .  G1", ".  .  .  B2"))
    assert [(p.reason, p.cells) for p in problems] == [("disconnected", ((0, 3), (1, 3)))]
    assert "not connected" in problems[0].message


def test_too_many_of_a_kind_depends_on_variant():
    rows = ["R1 Y2 R1 Y2 R1", "Y3 .  .  .  ."]
    assert reasons(city_from_map(*rows)) == []
    small = city_from_map(*rows, variant="small-city")
    assert reasons(small) == [("too-many", [[0, 0], [0, 2], [0, 4]])]


def test_four_of_a_kind_in_standard():
    city = city_from_map("R1 Y2 R1 Y2 R1 Y2 R1")
    assert reasons(city) == [("too-many", [[0, 0], [0, 2], [0, 4], [0, 6]])]


def test_stack_needs_mixed_use():
    city = city_from_map("R3/B1 Y2")
    assert reasons(city) == [("stack-not-allowed", [[0, 0]])]
    assert reasons(city, ["mixed-use-development"]) == []


def test_stack_problems():
    mixed = ["mixed-use-development", "canadian-style"]
    assert reasons(city_from_map("R1/B3 Y2"), mixed) == [("stack-order", [[0, 0]])]
    assert reasons(city_from_map("R2/B2 Y1"), mixed) == [("same-size", [[0, 0], [0, 0]])]
    assert reasons(city_from_map("R3/B3 Y1"), mixed) == [("same-size", [[0, 0], [0, 0]])]
    assert reasons(city_from_map("R3/B2/G1"), mixed) == [("too-high", [[0, 0]])]


def test_stacked_piece_next_to_same_size_neighbour():
    assert reasons(city_from_map("R3/B1 Y1"), ["mixed-use-development"]) == [("same-size", [[0, 0], [0, 1]])]
