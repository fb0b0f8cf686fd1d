"""Round things: a mug's rim or disc is one, beside the pieces; pieces, joined or ringed by
a lamp's glare, are not."""
import cv2
import numpy as np

from calibration import load_profile
from vision.round_things import round_things

PROFILE = load_profile()
SIDE = 30.0  # a typical piece's side in pixels


def pieces(fg: np.ndarray, x0: int = 500, y0: int = 300, count: int = 12) -> np.ndarray:
    """``fg`` with ``count`` squares of side 30, four to a row, 50 pixels apart, from
    (``x0``, ``y0``)."""
    for k in range(count):
        y, x = y0 + 50 * (k // 4), x0 + 50 * (k % 4)
        fg[y:y + 30, x:x + 30] = 1
    return fg


def test_a_mug_s_rim_is_a_round_thing_with_its_inside_and_the_pieces_are_not():
    """On a print a mug's coffee may not stand out: its rim alone, a ring 150 pixels
    across, is found, and the inside with it."""
    fg = pieces(np.zeros((700, 900), np.uint8))
    cv2.circle(fg, (250, 350), 75, 1, 8)
    found = round_things(fg > 0, SIDE, PROFILE)
    assert found[350, 250] and found[350, 250 + 75]
    assert not found[300:450, 500:700].any()


def test_a_mug_seen_at_a_tilt_with_part_of_its_coffee_standing_out_is_a_round_thing():
    """Under the camera's tilt the rim is an ellipse; the coffee stands out over part of
    the inside, joined to the rim."""
    fg = pieces(np.zeros((700, 900), np.uint8))
    cv2.ellipse(fg, (250, 350), (80, 65), 20, 0, 360, 1, -1)
    cv2.ellipse(fg, (230, 350), (40, 45), 0, 0, 360, 0, -1)
    found = round_things(fg > 0, SIDE, PROFILE)
    assert found[350, 230] and found[350, 320]
    assert not found[300:450, 500:700].any()


def test_a_ring_of_glare_round_part_of_the_city_is_no_round_thing():
    """A lamp's hot spot on a dark table can leave a ring of glare round some of the
    pieces: it is round, but it holds them."""
    fg = pieces(np.zeros((700, 900), np.uint8), x0=400, y0=280, count=8)
    cv2.circle(fg, (490, 330), 150, 1, 10)
    assert not round_things(fg > 0, SIDE, PROFILE).any()


def test_pieces_joined_into_one_region_and_a_small_disc_are_no_round_things():
    """Nine pieces touching in a block (joined by their shadows, say) make a region of
    corners; a disc under two and a half pieces across is no larger than a piece and its
    shadow."""
    fg = np.zeros((700, 900), np.uint8)
    fg[200:290, 200:290] = 1
    fg[228:262, 290:300] = 1
    cv2.circle(fg, (600, 400), 35, 1, -1)
    assert not round_things(fg > 0, SIDE, PROFILE).any()
