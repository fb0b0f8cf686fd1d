"""The camera's tilt told by the pieces' ridges, on small drawn photos."""
import dataclasses

import numpy as np
import pytest

from calibration import load_profile
from calibration.profile import COLOR_ORDER
from vision.camera import camera_from_homography, looking_toward
from vision.cells import CityReading, Reading
from vision.edge_fit import edge_tensor
from vision.grid import GridFit
from vision.model import BASE_MM, silhouettes
from vision.tilt import _gain, told_tilt
from tests.vision.test_edge_fit import photo_of, tilted_camera

SIZE = (480, 360)
PITCH_MM = 32.0
CELLS = np.array([(0, -1), (1, -1), (2, -1), (0, 0), (1, 0), (2, 0)], np.float64)
SIZES = np.array([3, 1, 2, 1, 2, 3])
COLOURS = [COLOR_ORDER.index(name) for name in ("red", "green", "blue", "yellow", "red", "green")]
RGB = {"red": (200, 40, 40), "green": (40, 160, 60), "blue": (60, 90, 210), "yellow": (220, 200, 40)}
# the drawn photos' camera: a focal length of 720 pixels over a 480 wide photo
PROFILE = dataclasses.replace(load_profile(), hfov_deg=float(np.degrees(2 * np.arctan(240 / 720))))


def flat_reading(camera):
    """The reading a grid fitted as an affine map gives of the six pieces seen by ``camera``:
    its camera looks straight down, the pieces' seen centres on the grid."""
    _, seen = silhouettes(camera, CELLS, SIZES, PITCH_MM)
    design = np.hstack([CELLS, np.ones((len(CELLS), 1))])
    H = np.vstack([np.linalg.lstsq(design, seen, rcond=None)[0].T, [0, 0, 1]])
    pieces = [Reading(int(col), int(row), colour, int(size), 0, 1.0, tuple(centre), np.zeros((4, 2)))
              for (col, row), colour, size, centre in zip(CELLS, COLOURS, SIZES, seen)]
    flat = camera_from_homography(H, SIZE, PROFILE.hfov_deg)
    return CityReading(GridFit(H, CELLS.astype(np.int64), np.zeros(len(CELLS))), flat, PITCH_MM, PITCH_MM, pieces,
                       np.zeros(3))


def photo(camera):
    return photo_of(camera, [(cell, BASE_MM[size] / PITCH_MM, 0.0, RGB[COLOR_ORDER[colour]])
                             for cell, size, colour in zip(CELLS, SIZES, COLOURS)])


def test_a_small_city_read_flat_is_told_its_tilt_by_the_ridges():
    """Six pieces photographed at 20 degrees, read as seen straight down (as a small city's
    grid is fitted): the ridges tell the tilt, and which way the camera leans."""
    camera = tilted_camera(20.0)
    reading = flat_reading(camera)
    assert reading.camera.tilt_deg < 1
    toward = told_tilt(reading, edge_tensor(photo(camera), (0, 0) + SIZE), SIZE, PROFILE)
    assert toward is not None
    assert np.degrees(np.arcsin(np.hypot(*toward))) == pytest.approx(20, abs=4)
    truth = looking_toward(camera)
    assert np.dot(toward, truth) / np.hypot(*toward) / np.hypot(*truth) > 0.9


def test_a_city_of_more_pieces_than_the_profile_looks_at_is_told_no_tilt():
    """Its anchors tell its tilt: the ridges are not looked at (``tilt_told_most_pieces``)."""
    camera = tilted_camera(20.0)
    fewer = dataclasses.replace(PROFILE, tilt_told_most_pieces=len(CELLS) - 1)
    assert told_tilt(flat_reading(camera), edge_tensor(photo(camera), (0, 0) + SIZE), SIZE, fewer) is None


def test_a_city_seen_straight_down_is_told_no_other_tilt():
    camera = tilted_camera(0.0)
    reading = flat_reading(camera)
    assert told_tilt(reading, edge_tensor(photo(camera), (0, 0) + SIZE), SIZE, PROFILE) is None


def test_a_tilt_whose_edges_only_a_few_pieces_favour_gains_nothing():
    """The gain of a tilt is that of most pieces: two pieces whose edges a shadow or a
    cloth's lines strengthen much at some tilt do not outweigh four it weakens a little."""
    own = np.log(np.full(6, 2.0))
    lined_up = own + np.array([0.5, 0.5, -0.02, -0.02, -0.02, -0.02])
    assert np.mean(lined_up - own) > PROFILE.tilt_edge_margin
    assert _gain(lined_up, own) < PROFILE.tilt_edge_margin
    assert _gain(own + 0.1, own) == pytest.approx(0.1)
