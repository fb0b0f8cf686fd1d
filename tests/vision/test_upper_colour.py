"""A stack's upper piece read green, read again against the lower piece it rests on."""
import cv2
import numpy as np
import pytest

from calibration.profile import COLOR_ORDER
from tests.vision.test_verify import DIM, LEVEL, PROFILE, straight_down_reading
from vision.colour import log_chroma
from vision.upper_colour import read_over_lower


def expected(colour, chroma, level):
    """(3,) the piece colour model's mean log ratio of a ``colour`` piece on a table of
    ``chroma`` (3,) and log grey ``level``."""
    model = PROFILE.piece_colors
    return (model.regressors(chroma[None], np.array([level])) @ np.array(model.coefficients[colour]))[0]


def read_again(lower, upper, read_as="green"):
    """The colour and confidence :func:`read_over_lower` gives the upper piece of a stack of
    a medium on a large of colour ``lower``, read as ``read_as``, on a grey table: the large
    looks as the colour model expects on the table, and the medium, against the large, as
    it expects of an ``upper`` piece on a table of the large's colour."""
    reading = straight_down_reading([(0, 0, lower, 3), (0, 0, read_as, 2, 1), (2, 0, "red", 2)])
    log_ratio = np.zeros((480, 640, 3), np.float32)
    ring = expected(lower, np.zeros(3), LEVEL)
    over = ring + expected(upper, log_chroma(ring), LEVEL + ring.mean())
    for piece, value in zip(reading.pieces[:2], (ring, over)):
        mask = np.zeros(log_ratio.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, np.round(piece.outline).astype(np.int32), 1)
        log_ratio[mask > 0] = value
    table = np.full(log_ratio.shape, DIM, np.float32)
    found = read_over_lower(reading, log_ratio, table, PROFILE).pieces[1]
    return COLOR_ORDER[found.color_index], found.confidence


@pytest.mark.parametrize("lower, upper", [("yellow", "blue"), ("red", "blue"), ("blue", "yellow"),
                                          ("green", "blue")])
def test_an_upper_read_green_where_two_tints_mix_is_read_against_its_lower(lower, upper):
    """A blue or yellow upper, read green where its tint mixes with the lower's, is read
    again as its own colour against the lower piece, and flagged for the player."""
    colour, confidence = read_again(lower, upper)
    assert colour == upper and confidence <= PROFILE.max_uncertain_confidence


def test_a_green_upper_stays_green():
    """A green upper on a yellow large, read green, reads green against the large too, and
    keeps its confidence."""
    assert read_again("yellow", "green") == ("green", 1.0)


def test_an_upper_on_a_black_lower_or_read_another_colour_is_not_read_again():
    """Only a green upper on a tinted lower is read again: over black no tint mixes, and an
    upper read red is left as it is, whatever it looks like against its lower."""
    assert read_again("black", "blue") == ("green", 1.0)
    assert read_again("yellow", "blue", read_as="red") == ("red", 1.0)
