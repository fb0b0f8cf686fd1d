"""One or more hand-worked examples per special rule (design.md section 5)."""
import pytest

from scorer import RULES, score
from conftest import city_from_map

CASES = [
    # rule, map, points, why
    ("15-minute-city", ["R1 Y2 .", "B2 R3 G1"], 4, "only the red at (1,1) touches blue, green and yellow"),
    ("15-minute-city", ["R3/B1 G2", "Y1    ."], 4, "the stacked blue counts as next to the red"),
    ("density-bonusing", ["R1 Y2 G1 B2", "K2 .  .  ."], -4, "4 wide, 2 high"),
    ("density-bonusing", ["R1", "Y2", "G1"], -3, "1 wide, 3 high"),
    ("rainbow-rows", ["R1 Y2 G3 B1 K2", "R2 Y1 G2 B3 ."], 5, "second row lacks black"),
    ("rainbow-rows", ["R1 Y2 G3 B3/K1"], 5, "a stack holds both of its colours"),
    ("colorful-columns", ["R1 Y2", "G2 Y1", "B1 ."], -1, "+2 for column 0, -3 for column 1"),
    ("colorful-columns", ["R3/G1", "B2"], 2, "a stacked cell holds two colours"),
    ("overshadowed", ["R1 G3 B1"], -2, "each small beside the large"),
    ("overshadowed", ["R3/K1 Y2"], -1, "small stacked on a large"),
    ("overshadowed", ["R3 K1 G3"], -2, "one small beside two larges"),
    ("little-boxes", ["R1 R2 R1", "R2 R1 R2"], 6, "two overlapping windows"),
    ("little-boxes", ["R1 R2 R1", "R2 R1 R2", "R1 R2 R1"], 12, "four overlapping windows"),
    ("little-boxes", ["R1 B3/R1", "R2 R1"], 3, "a red on top of a blue makes the cell red"),
    ("little-boxes", ["R1 R2", "R2 Y1"], 0, "three reds are no square"),
    ("shopping-district", ["B1 B2 B1", "B2 B1 B2"], 6, "two overlapping windows"),
    ("shopping-district", ["B1 B2", "R2 B1"], 0, "not a square of blue"),
    ("linear-park", ["G1 G2 G1 . G2", "R2 R1 R2 R1 R2"], 3, "the gap breaks the row"),
    ("linear-park", ["G1 R2", "G2 R1", "G1 R2", "G2 .", "Y1 G2"], 4, "a column of four"),
    ("linear-park", ["G1 Y3/G2 G1"], 3, "a green on a yellow continues the run"),
    ("linear-park", ["R1 Y2"], 0, "no green"),
    ("we-compost", ["K3 R1 K1", "K2 Y1 R2"], 4, "+3 for the large, +1 for the small once, 0 for the medium"),
    ("we-compost", ["R3/K2"], 2, "a black stacked on a red"),
    ("garden-city", ["R1 G2 R1", "R2 .  ."], 4, "the red at (1,0) touches no green"),
    ("piazzas", ["R1 Y2 B1", "G2 .  K2", "R1 B2 G1"], 4, "yellow, green, black and blue around the hole"),
    ("piazzas", ["R1 R2 R1 R2", "Y2 .  .  Y2", "G1 G2 B1 G2"], 4, "red, yellow, green, blue around a two-cell space"),
    ("piazzas", ["R1 Y2 B1 .", "G2 .  K2 .", "R1 B2 G1 Y1"], 4, "the open space on the right scores nothing"),
    ("piazzas", ["R1 .  Y2", "G2 .  K2", "R1 B2 G1"], 0, "the space opens to the top edge, so it is not enclosed"),
    ("canadian-style", ["R3 G3 .", ".  B3 Y1", "K3 .  ."], 6, "group of three larges; the lone black large is separate"),
    ("canadian-style", ["R1 G2"], 0, "no large piece"),
    ("factory-un-fun", ["Y1 R2 Y3", "G3 B1 ."], -2, "red and green touch yellow, blue does not"),
    ("factory-un-fun", ["Y1 Y2"], 0, "yellows next to yellows cost nothing"),
    ("lines-of-sight", ["R3 Y1 G3", "B1 K3 R1"], -7, "row 0 +1, row 1 -2, three columns -2 each"),
    ("clusters", ["R1 R2 R3 Y1", "G2 .  .  Y2"], 1, "red trio +3, yellow pair -1, lone green -1"),
    ("clusters", ["K1 K2 K3"], 0, "black groups score nothing"),
    ("clusters", ["R3/R1 R2"], 3, "a stacked trio is a group of three"),
    ("bigger-on-the-outside", ["R3 Y1 G2", "B1 K3 Y3", "G1 B2 R1"], 4, "corner large once, centre large nothing"),
    ("mixed-use-development", ["R3/B1 G2"], 0, "no points of its own"),
    ("room-to-make-a-big-mistake", ["R1 .  R2", "Y2 G1 Y1"], 6, "the empty cell between two reds counts twice"),
    ("room-to-make-a-big-mistake", ["Y2 R3/R1 Y2"], 4, "a stacked red pair: each red counts its two empty sides"),
]


@pytest.mark.parametrize("rule, rows, points, why", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_rule_example(rule, rows, points, why):
    sheet = score(city_from_map(*rows), [rule])
    assert sheet.rules[0].points == points, why


def test_lines_of_sight_counts_rows_and_columns():
    # rows: 1, 1, 1 larges -> -2 each; columns: col 0 has R3 and G3 -> +1, col 1 has K3 -> -2
    sheet = score(city_from_map("R3 Y1", "B1 K3", "G3 Y2"), ["lines-of-sight"])
    assert sheet.rules[0].points == -2 * 3 + 1 - 2


def test_every_rule_has_an_example():
    assert {case[0] for case in CASES} == set(RULES)


def test_targets_match_the_printed_cards():
    assert {r.id: r.target for r in RULES.values()} == {
        "15-minute-city": 13, "density-bonusing": -4, "rainbow-rows": 15, "colorful-columns": 15,
        "overshadowed": -5, "little-boxes": 9, "shopping-district": 9, "linear-park": 13,
        "we-compost": 19, "garden-city": 17, "piazzas": 23, "canadian-style": 17,
        "factory-un-fun": 4, "lines-of-sight": 4, "clusters": 9, "bigger-on-the-outside": 15,
        "mixed-use-development": 7, "room-to-make-a-big-mistake": 17}


def test_breakdown_names_the_cells_behind_the_points():
    sheet = score(city_from_map("R1 R2 R1", "R2 R1 R2"), ["little-boxes"])
    little = sheet.to_json()["rules"][0]
    assert [it["cells"] for it in little["items"]] == [[[0, 0], [0, 1], [1, 0], [1, 1]],
                                                      [[0, 1], [0, 2], [1, 1], [1, 2]]]
    assert len(little["cells"]) == 6


def test_room_to_make_a_big_mistake_lists_outside_cells():
    sheet = score(city_from_map("R1"), ["room-to-make-a-big-mistake"])
    assert sorted(map(tuple, sheet.to_json()["rules"][0]["cells"])) == [(-1, 0), (0, -1), (0, 1), (1, 0)]
