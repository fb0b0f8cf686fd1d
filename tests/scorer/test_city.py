import json

import pytest

from scorer import CityError, Piece, parse_city

GOOD = {"game": "zoning-out", "variant": "standard", "rules": ["little-boxes", "linear-park", "we-compost"],
        "pieces": [{"row": 0, "col": 2, "color": "red", "size": 3},
                   {"row": 0, "col": 2, "color": "blue", "size": 1, "level": 1},
                   {"row": 1, "col": 2, "color": "black", "size": 2}]}


def test_parse_normalises_offsets_and_keeps_stacks():
    city = parse_city(json.dumps(GOOD))
    assert city.pieces == (Piece(0, 0, "red", 3), Piece(0, 0, "blue", 1, 1), Piece(1, 0, "black", 2))
    assert (city.height, city.width) == (2, 1)
    assert city.to_json()["pieces"][1] == {"row": 0, "col": 0, "color": "blue", "size": 1, "level": 1}


def test_parse_accepts_negative_offsets_and_extra_keys():
    city = parse_city({"pieces": [{"row": -5, "col": 7, "color": "green", "size": 2, "confidence": 0.9},
                                  {"row": -4, "col": 7, "color": "red", "size": 1}]})
    assert [p.cell for p in city.pieces] == [(0, 0), (1, 0)]
    assert city.variant == "standard" and city.rules == ()


@pytest.mark.parametrize("data, words", [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "JSON object"),
    ({"pieces": "many"}, "'pieces' list"),
    ({}, "'pieces' list"),
    ({"game": "chess", "pieces": []}, "game 'chess'"),
    ({"variant": "huge", "pieces": []}, "variant 'huge'"),
    ({"rules": ["no-such-rule"], "pieces": []}, "rule 'no-such-rule' is unknown"),
    ({"rules": ["clusters", "clusters"], "pieces": []}, "listed twice"),
    ({"pieces": [{"row": 0, "col": 0, "color": "purple", "size": 1}]}, "piece 1 (row 0, col 0): colour 'purple'"),
    ({"pieces": [{"row": 0, "col": 0, "color": "red", "size": 4}]}, "size 4"),
    ({"pieces": [{"row": 0.5, "col": 0, "color": "red", "size": 1}]}, "piece 1: 'row' must be a whole number"),
    ({"pieces": [{"row": True, "col": 0, "color": "red", "size": 1}]}, "'row' must be a whole number"),
    ({"pieces": [{"row": 0, "col": 0, "color": "red"}]}, "piece 1 has no 'size'"),
    ({"pieces": [7]}, "piece 1 must be an object"),
    ({"pieces": [{"row": 0, "col": 0, "color": "red", "size": 1, "level": -1}]}, "level -1"),
    ({"pieces": [{"row": 0, "col": 0, "color": "red", "size": 1},
                 {"row": 0, "col": 0, "color": "blue", "size": 2}]}, "two pieces on level 0 of row 0, col 0"),
    ({"pieces": [{"row": 0, "col": 0, "color": "red", "size": 1, "level": 1}]}, "nothing under it"),
    ({"player": 5, "pieces": []}, "'player'"),
])
def test_bad_input_is_rejected_with_a_reason(data, words):
    with pytest.raises(CityError) as exc:
        parse_city(data)
    assert words in str(exc.value)


def test_parse_rejects_bytes_that_are_not_utf8():
    with pytest.raises(CityError, match="not valid JSON"):
        parse_city(b"\xff\xfe\x00garbage")


def test_neighbours_include_the_stack_and_orthogonal_cells_only(city_map):
    city = city_map("R3/B1 Y2",
                    "G1    K3")
    red, blue, yellow, green, black = city.pieces
    assert blue.level == 1
    nb = {city.pieces[i]: {city.pieces[j] for j in js} for i, js in enumerate(city.neighbours)}
    assert nb[red] == {blue, yellow, green}
    assert nb[blue] == {red, yellow, green}
    assert nb[black] == {yellow, green}  # no diagonals: black is not next to the stack


def test_empty_regions_only_count_enclosed_space(city_map):
    city = city_map("R1 R2 R3 .",
                    "Y1 .  Y3 .",
                    "G3 G2 G1 B1")
    assert city.empty_regions() == [[(1, 1)]]  # (0,3)/(1,3) touch the bounding box edge


def test_empty_region_of_several_cells(city_map):
    city = city_map("R1 R2 R1 R2",
                    "Y2 .  .  Y2",
                    "G1 G2 G1 G2")
    assert city.empty_regions() == [[(1, 1), (1, 2)]]


def test_empty_city_is_allowed():
    city = parse_city({"pieces": []})
    assert (city.height, city.width) == (0, 0) and city.empty_regions() == []
