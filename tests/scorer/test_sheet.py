import pytest

from scorer import CityError, score
from conftest import city_from_map


def test_base_counts_the_largest_group_of_each_colour():
    city = city_from_map("R1 R2 Y1 R3", "G3 G1 Y2 R1", "B1 .  B2 .")
    sheet = score(city)
    assert sheet.base == {"red": 2, "yellow": 2, "green": 2, "blue": 1, "black": 0}
    assert sheet.to_json()["base_cells"]["red"] == [[0, 0], [0, 1]]


def test_black_penalty_is_size_times_neighbours_blacks_included():
    sheet = score(city_from_map("R1 K2 K3"))
    # medium black: red + large black = -4; large black: medium black = -3
    assert sheet.base["black"] == -7
    assert [it.points for it in sheet.groups["black"]] == [-4, -3]


def test_stacks_count_pieces_not_cells():
    sheet = score(city_from_map("R3/R1 R2", "K2/K1 ."), ["mixed-use-development"])
    assert sheet.base["red"] == 3
    # the stack above holds two reds: medium black touches small black + 2 reds = -2*3;
    # small black touches medium black + 2 reds = -1*3
    assert sheet.base["black"] == -9


def test_totals_target_and_result():
    city = city_from_map("R1 R2 R1", "R2 R1 R2", rules=["little-boxes", "density-bonusing"])
    sheet = score(city)
    assert sheet.base["red"] == 6 and sheet.rules_sum == 6 - 3
    assert sheet.total == 9 and sheet.target == 9 - 4 and sheet.won


def test_rules_argument_overrides_city_rules():
    city = city_from_map("R1 R2", rules=["little-boxes"])
    assert [r.id for r in score(city, ["garden-city"]).rules] == ["garden-city"]
    with pytest.raises(CityError, match="unknown"):
        score(city, ["bogus"])


def test_json_matches_the_contract():
    city = city_from_map("R1 K2 G1", rules=["garden-city", "we-compost", "clusters"])
    out = score(city).to_json()
    assert set(out) >= {"total", "base", "rules", "target", "won", "illegal"}
    assert set(out["base"]) == {"red", "yellow", "green", "blue", "black"}
    assert all(isinstance(v, int) for v in out["base"].values())
    assert [set(r) >= {"id", "points", "target"} for r in out["rules"]] == [True] * 3
    assert out["total"] == sum(out["base"].values()) + sum(r["points"] for r in out["rules"])
    assert out["target"] == 17 + 19 + 9 and out["won"] is False
    assert out["illegal"] == []


def test_paper_sheet_rows_add_up():
    city = city_from_map("R1 K2 G1", "Y2 B3 Y1", rules=["garden-city", "factory-un-fun", "piazzas"])
    rows = dict((row["label"], row["value"]) for row in score(city).to_json()["sheet"])
    colors = sum(rows[k] for k in ("Residential (red)", "Industrial (yellow)", "Commercial (blue)", "Green space (green)"))
    assert rows["Colors SUM"] == colors
    assert rows["(Colors - Black) Subtotal"] == colors + rows["Black"]
    assert rows["Total"] == rows["(Colors - Black) Subtotal"] + rows["Scoring Rules SUM"]
    assert rows["Scoring Rules Targets SUM"] == 17 + 4 + 23


def test_the_rule_texts_scoring_example_base():
    # The rule text's example: red 4, yellow 3, green 6, blue 2 = 15 before blacks.
    city = city_from_map("R1 R2 R1 Y2 Y1 Y2",
                         "R2 G1 G2 G1 B2 B1",
                         "G2 G1 G2 .  .  .")
    assert score(city).colors_sum == 4 + 3 + 6 + 2
