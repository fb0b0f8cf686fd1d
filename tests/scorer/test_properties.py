"""Invariants of the rules, checked on cities grown by the placement rule."""
import random

from hypothesis import given, strategies as st

from scorer import RULES, City, Piece, check_legality, parse_city, score
from scorer.city import COLORS, ORTHOGONAL

ALL_RULES = list(RULES)


def grow_city(seed: int, count: int, trios: int = 3) -> City:
    """Place ``count`` pieces one by one, each next to the city and never next to its size."""
    rng = random.Random(seed)
    supply = [(color, size) for color in COLORS for size in (1, 2, 3) for _ in range(trios)]
    rng.shuffle(supply)
    cells: dict[tuple[int, int], tuple[str, int]] = {}
    for color, size in supply:
        if len(cells) == count:
            break
        if not cells:
            cells[(0, 0)] = (color, size)
            continue
        options = sorted({(r + dr, c + dc) for r, c in cells for dr, dc in ORTHOGONAL} - set(cells))
        options = [(r, c) for r, c in options
                   if all(cells.get((r + dr, c + dc), ("", 0))[1] != size for dr, dc in ORTHOGONAL)]
        if options:
            cells[rng.choice(options)] = (color, size)
    return City([Piece(r, c, color, size) for (r, c), (color, size) in cells.items()])


cities = st.builds(grow_city, st.integers(0, 2**32 - 1), st.integers(1, 45))


@given(cities, st.integers(-50, 50), st.integers(-50, 50))
def test_shifting_the_city_changes_no_score(city, dr, dc):
    data = city.to_json()
    shifted = dict(data, pieces=[dict(p, row=p["row"] + dr, col=p["col"] + dc) for p in data["pieces"]])
    assert score(parse_city(shifted), ALL_RULES).to_json() == score(parse_city(data), ALL_RULES).to_json()


@given(cities)
def test_mirroring_left_right_changes_no_points(city):
    mirrored = City([Piece(p.row, city.width - 1 - p.col, p.color, p.size, p.level) for p in city.pieces])
    a, b = score(city, ALL_RULES), score(mirrored, ALL_RULES)
    assert a.base == b.base
    assert [r.points for r in a.rules] == [r.points for r in b.rules]


@given(cities)
def test_a_city_grown_by_the_placement_rule_is_legal(city):
    assert check_legality(city) == []


@given(cities, st.integers(0, 2**32 - 1))
def test_adding_a_same_size_neighbour_is_always_flagged(city, seed):
    rng = random.Random(seed)
    anchor = rng.choice(city.pieces)
    free = [(anchor.row + dr, anchor.col + dc) for dr, dc in ORTHOGONAL
            if (anchor.row + dr, anchor.col + dc) not in city.cells]
    if not free:
        return
    r, c = rng.choice(free)
    grown = parse_city({"pieces": [p.to_json() for p in city.pieces]
                        + [{"row": r, "col": c, "color": rng.choice(COLORS), "size": anchor.size}]})
    shift_r = min(r, min(p.row for p in city.pieces))
    shift_c = min(c, min(p.col for p in city.pieces))
    pair = {(anchor.row - shift_r, anchor.col - shift_c), (r - shift_r, c - shift_c)}
    flagged = [set(p.cells) for p in check_legality(grown) if p.reason == "same-size"]
    assert pair in flagged


@given(cities)
def test_total_is_the_sum_of_its_parts(city):
    sheet = score(city, ALL_RULES)
    out = sheet.to_json()
    assert out["total"] == sum(out["base"].values()) + sum(r["points"] for r in out["rules"])
    for rule in out["rules"]:
        assert rule["points"] == sum(item["points"] for item in rule["items"])
