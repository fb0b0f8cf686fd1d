"""Look-alike colours (green and black, blue and black, yellow and green) told apart by the
photo's own colours, on small painted photos."""
import dataclasses

import numpy as np

from calibration import load_profile
from calibration.profile import COLOR_ORDER
from vision.cells import CityReading, Reading
from vision.look_alikes import blueness, greenness, split_at_gap, tell_look_alikes, warmth

PROFILE = load_profile()
BLUE, BLACK, RED, GREEN = (COLOR_ORDER.index(c) for c in ("blue", "black", "red", "green"))
WARM_WOOD = (170, 110, 60)
# glossy black reflecting a grey room, and a translucent blue piece on warm wood: both read
# bluish against the table; translucent yellow and green on warm wood: both read olive
LOOKS = {"black": (95, 92, 90), "blue": (80, 95, 150), "red": (200, 40, 30), "yellow": (150, 130, 40),
         "green": (95, 115, 30)}
FIRST_READ = {"black": BLUE, "yellow": GREEN}
GREEN_CLOTH = (60, 150, 50)
# on a green cloth: translucent green darkens it without changing its hue, and reads black
# against it; glossy black mirrors a little of the cloth, a blue piece lets its green through
LOOKS_ON_GREEN = {"green": (30, 105, 25), "black": (70, 80, 66), "blue": (28, 90, 110), "red": (150, 40, 30)}


def painted(pieces: list[str], looks: list[tuple[int, int, int]] | None = None,
            sizes: list[int] | None = None, table: tuple[int, int, int] = WARM_WOOD,
            first_read: dict[str, int] = FIRST_READ) -> tuple[np.ndarray, np.ndarray, list[Reading]]:
    """A photo of a row of pieces painted as ``LOOKS`` (or ``looks``, RGB each) on ``table``
    (warm wood), its strength map (1 on the pieces) and readings of them, of ``sizes``
    (each medium if None), each read as ``first_read`` has it (black read blue and yellow
    read green), or as its own colour."""
    rng = np.random.default_rng(5)
    rgb = np.empty((60, 40 * len(pieces) + 20, 3), np.uint8)
    rgb[:] = table
    strength = np.zeros(rgb.shape[:2], np.float32)
    readings = []
    for k, name in enumerate(pieces):
        x0 = 20 + 40 * k
        noise = rng.normal(0, 3, (20, 20, 3))
        look = LOOKS[name] if looks is None else looks[k]
        rgb[20:40, x0:x0 + 20] = np.clip(np.array(look) + noise, 0, 255).astype(np.uint8)
        strength[20:40, x0:x0 + 20] = 1.0
        square = np.array([[x0, 20], [x0 + 20, 20], [x0 + 20, 40], [x0, 40]], np.float64)
        color = first_read.get(name, COLOR_ORDER.index(name))
        size = 2 if sizes is None else sizes[k]
        readings.append(Reading(k, 0, color, size, 0, 0.9, (x0 + 10.0, 30.0), square))
    return rgb, strength, readings


def read(pieces: list[str], readings: list[Reading] | None = None) -> list[str]:
    rgb, strength, first = painted(pieces)
    reading = CityReading(None, None, 30.0, 30.0, readings or first, np.zeros(3))
    return [COLOR_ORDER[p.color_index] for p in tell_look_alikes(reading, rgb, strength, PROFILE).pieces]


def test_black_pieces_read_blue_against_warm_wood_are_read_black_by_their_own_grey():
    pieces = ["blue", "black", "red", "blue", "black", "black"]
    assert read(pieces) == pieces


def read_on_green_cloth(pieces: list[str], first_read: dict[str, int]) -> list[str]:
    """The colours read of ``pieces`` painted as ``LOOKS_ON_GREEN`` on a green cloth, each
    first read as ``first_read`` has it."""
    rgb, strength, first = painted(pieces, [LOOKS_ON_GREEN[name] for name in pieces], table=GREEN_CLOTH,
                                   first_read=first_read)
    reading = CityReading(None, None, 30.0, 30.0, first, np.zeros(3))
    return [COLOR_ORDER[p.color_index] for p in tell_look_alikes(reading, rgb, strength, PROFILE).pieces]


def test_green_pieces_read_black_against_a_green_cloth_are_read_green_by_their_own_green():
    pieces = ["green", "black", "green", "red", "black", "green"]
    assert read_on_green_cloth(pieces, {"green": BLACK}) == pieces


def test_a_blue_piece_read_green_joins_the_black_group_and_is_then_told_from_black():
    """Less green than the green pieces, it is read black by its greenness, and then blue by
    its blueness; told the other way round, the blue pieces would not be among those read
    blue or black, and would be read black. As warm as the green pieces, it is not read
    yellow before."""
    pieces = ["green", "black", "blue", "green", "black", "blue", "black"]
    assert read_on_green_cloth(pieces, {"blue": GREEN}) == pieces


def test_a_grey_piece_is_less_green_than_a_green_one():
    grey = np.full((10, 3), 90, np.uint8)
    green = np.tile(np.array([LOOKS_ON_GREEN["green"]], np.uint8), (10, 1))
    assert abs(greenness(grey)) < 0.02 < greenness(green)


def test_yellow_pieces_read_green_against_warm_wood_are_read_yellow_by_their_own_warmth():
    pieces = ["yellow", "green", "green", "yellow", "yellow", "blue"]
    assert read(pieces) == pieces


# seven pieces, black and blue in turn, by their blueness (painted grey with blue raised)
SPREAD_BLACKS = [-0.3, 0.45, -0.1, 0.5, 0.0, 0.55, 0.1]  # the room they mirror differs: a gap 2.4 times the spread
NEAR_GROUPS = [-0.1, 0.13, -0.08, 0.15, -0.06, 0.17, -0.04]  # a gap of 0.17, under look_alike_gap
SEVEN = ["black", "blue", "black", "blue", "black", "blue", "black"]


def read_seven(blueness_of: list[float], sizes: list[int] | None = None) -> list[str]:
    """The colours read of ``SEVEN`` painted with ``blueness_of``, each first read blue."""
    rgb, strength, first = painted(SEVEN, [(100, 100, int(round(100 * np.exp(b)))) for b in blueness_of], sizes)
    assert [COLOR_ORDER[p.color_index] for p in first] == ["blue"] * 7
    reading = CityReading(None, None, 30.0, 30.0, first, np.zeros(3))
    return [COLOR_ORDER[p.color_index] for p in tell_look_alikes(reading, rgb, strength, PROFILE).pieces]


def test_a_city_with_more_blue_pieces_than_a_set_holds_is_split_at_a_less_clear_gap():
    """Read as blue, the seven medium pieces are four more than the three a set holds; split
    by their blueness, one is over, so a gap narrower (in itself or against the spread)
    than would be taken otherwise is."""
    assert read_seven(SPREAD_BLACKS) == SEVEN
    assert read_seven(NEAR_GROUPS) == SEVEN


def test_within_the_supply_a_gap_as_unclear_leaves_the_reading_as_it_is():
    for blueness_of in (SPREAD_BLACKS, NEAR_GROUPS):
        assert read_seven(blueness_of, sizes=[1, 1, 2, 2, 3, 3, 1]) == ["blue"] * 7


def test_a_piece_sharing_its_cell_is_not_read_again():
    """A stack's outline holds both of its colours: a green piece on a red one looks warm."""
    pieces = ["yellow", "green", "green", "yellow", "yellow"]
    _, _, readings = painted(pieces)
    on_top = dataclasses.replace(readings[0], color_index=RED, level=1)
    assert read(pieces, readings + [on_top]) == ["green", "green", "green", "yellow", "yellow", "red"]


def test_a_grey_piece_is_less_warm_than_a_yellow_one_and_a_green_one_less_still():
    looks = [np.tile(np.array([LOOKS[c]], np.uint8), (10, 1)) for c in ("yellow", "green")]
    assert warmth(looks[0]) > warmth(np.full((10, 3), 90, np.uint8)) > warmth(looks[1])


def test_without_two_clear_groups_the_reading_stands():
    assert read(["blue", "blue", "red"]) == ["blue", "blue", "red"]
    assert read(["black"]) == ["blue"]  # one piece cannot be compared with any other


def test_a_grey_piece_is_less_blue_than_a_blue_one():
    grey = np.full((10, 3), 90, np.uint8)
    blue = np.tile(np.array([[80, 95, 150]], np.uint8), (10, 1))
    assert abs(blueness(grey)) < 0.02 < blueness(blue)


def test_values_are_split_only_at_a_gap_wide_against_the_spread_either_side():
    rng = np.random.default_rng(2)
    two = np.r_[rng.normal(0.0, 0.02, 6), rng.normal(0.4, 0.02, 4)]
    assert 0.05 < split_at_gap(two, 0.2, 4.0) < 0.35
    assert split_at_gap(np.linspace(0.0, 0.8, 10), 0.2, 4.0) is None  # one broad group
    assert split_at_gap(np.r_[rng.normal(0.0, 0.01, 5), rng.normal(0.15, 0.01, 5)], 0.2, 4.0) is None  # too near
    wide = np.r_[rng.normal(0.0, 0.1, 6), rng.normal(0.45, 0.1, 4)]
    assert split_at_gap(wide, 0.2, 4.0) is None  # groups too spread for their gap
    assert split_at_gap(np.array([0.0, 0.01, 0.4]), 0.2, 4.0) is None  # one piece is no group


def test_a_lone_outlier_is_not_split_off_as_a_group():
    """A yellow piece read black in deep shadow is far less blue than anything else. Split
    beside it, every other piece would read blue; it is no group, and its spread hides the
    two groups of the rest, so nothing is read again."""
    rng = np.random.default_rng(4)
    values = np.r_[-1.9, rng.normal(-0.03, 0.005, 8), rng.normal(0.47, 0.01, 8)]
    assert split_at_gap(values, 0.2, 4.0) is None
    assert 0.0 < split_at_gap(values[1:], 0.2, 4.0) < 0.4
