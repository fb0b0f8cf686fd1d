"""Normalising a reading into a Detection: the columns run along the grid direction nearest
the photo's rightward, whichever of its two directions the grid was found from."""
from types import SimpleNamespace

import dataclasses

import numpy as np
import pytest

from calibration import load_profile
from vision.cells import Reading
from vision.detection import build_detection, with_doubtful_empty


def reading_along(angle_deg, cells, tilt_deg=0.0, pitch_mm=32.0):
    """A reading whose grid's column axis points ``angle_deg`` from the photo's x axis (y
    down), 40 pixels a cell, with one small red piece on each (col, row) of ``cells``, by a
    camera ``tilt_deg`` from straight down; its grid's pitch is 32 mm, its pieces are
    modelled at ``pitch_mm``."""
    a = np.radians(angle_deg)
    H = np.array([[40 * np.cos(a), -40 * np.sin(a), 300.0], [40 * np.sin(a), 40 * np.cos(a), 300.0], [0, 0, 1]])
    pieces = []
    for col, row in cells:
        x, y, w = H @ (col, row, 1)
        pieces.append(Reading(col, row, 0, 1, 0, 0.9, (x / w, y / w), np.zeros((4, 2))))
    grid = SimpleNamespace(H=H, residual=np.zeros(len(cells)))
    return SimpleNamespace(grid=grid, pieces=pieces, camera=SimpleNamespace(tilt_deg=tilt_deg), grid_pitch_mm=32.0,
                           pitch_mm=pitch_mm, doubtful_empty=(), warnings=(), guessed=0)


@pytest.mark.parametrize("angle", [-130, -50, 40, 50, 95, 170])
def test_columns_run_along_the_direction_nearest_rightward(angle):
    """Three pieces in a line along the grid direction nearest the photo's rightward lie in
    one row, left to right, whichever grid direction the reading was found from."""
    # the grid's directions +col, +row, -col, -row point at angle, angle + 90, ... (y down)
    k = next(k for k in range(4) if -45 < (angle + 90 * k + 180) % 360 - 180 <= 45)
    step = [(1, 0), (0, 1), (-1, 0), (0, -1)][k]
    line = [(m * step[0], m * step[1]) for m in range(3)]
    detection = build_detection(reading_along(angle, line), (800, 600), load_profile(), 0.0)
    cells = [(p.row, p.col) for p in detection.pieces]
    xs = [p.center[0] for p in detection.pieces]
    assert cells == [(0, 0), (0, 1), (0, 2)] and xs == sorted(xs)
    for p in detection.pieces:  # the homography maps each new cell onto its piece
        x, y, w = detection.homography @ (p.col, p.row, 1)
        assert (x / w, y / w) == pytest.approx(p.center)


@pytest.mark.parametrize("angle", [-130, -50, 40, 95])
def test_doubtful_empty_cells_are_renumbered_with_the_pieces_and_warned_of(angle):
    """An empty cell beside a line of pieces, doubted in the reading's grid, lands on the
    detection's cells as the pieces do: beside the same piece, whichever grid direction the
    reading was found from; a warning counts it, and the JSON lists it as [row, col]."""
    reading = reading_along(angle, [(0, 0), (1, 0), (2, 0)])
    reading.doubtful_empty = ((1, 1),)  # beside the middle piece, off the line
    H = reading.grid.H
    detection = build_detection(reading, (800, 600), load_profile(), 0.0)
    ((row, col),) = detection.doubtful_empty
    x, y, w = detection.homography @ (col, row, 1)
    assert (x / w, y / w) == pytest.approx(tuple((H @ (1, 1, 1))[:2]))
    assert "1 empty cell may hold a piece" in detection.warnings
    assert detection.to_json()["doubtful_empty"] == [[row, col]]


def test_cells_doubted_again_leave_the_detection_as_it_was_and_new_ones_are_counted():
    reading = reading_along(0, [(0, 0), (1, 0)])
    reading.doubtful_empty = ((2, 0),)
    detection = build_detection(reading, (800, 600), load_profile(), 0.0)
    assert with_doubtful_empty(detection, detection.doubtful_empty) is detection
    more = with_doubtful_empty(detection, [(1, 0)])
    assert more.doubtful_empty == sorted([*detection.doubtful_empty, (1, 0)])
    assert "2 empty cells may hold a piece" in more.warnings and "1 empty cell may hold a piece" not in more.warnings


def test_what_the_reading_warns_of_is_passed_on_to_the_detection():
    reading = reading_along(0, [(0, 0), (1, 0)])
    reading.warnings = ("read as a whole set of 45 pieces",)
    assert "read as a whole set of 45 pieces" in build_detection(reading, (800, 600), load_profile(), 0.0).warnings


def test_a_photo_steeper_than_the_profile_allows_is_warned_of():
    """The warning's angle is the profile's: the same reading is warned of under a profile
    that allows less tilt."""
    profile = load_profile()
    reading = reading_along(0, [(0, 0), (1, 0)], tilt_deg=profile.oblique_warning_deg - 3)
    assert not [w for w in build_detection(reading, (800, 600), profile, 0.0).warnings if "oblique" in w]
    strict = dataclasses.replace(profile, oblique_warning_deg=profile.oblique_warning_deg - 5)
    assert [w for w in build_detection(reading, (800, 600), strict, 0.0).warnings if "oblique" in w]


def test_pieces_that_look_larger_than_their_spacing_allows_are_warned_of():
    """Pieces modelled at a pitch under ``shadow_warning_ratio`` of the grid's look larger
    than their spacing allows, as with a low lamp's long shadows: the reading is warned of;
    at the grid's pitch it is not."""
    profile = load_profile()
    for pitch_mm, warned in ((32.0, False), (0.97 * 32 * profile.shadow_warning_ratio, True)):
        reading = reading_along(0, [(0, 0), (1, 0)], pitch_mm=pitch_mm)
        warnings = build_detection(reading, (800, 600), profile, 0.0).warnings
        assert bool([w for w in warnings if "larger than their spacing" in w]) == warned


@pytest.mark.parametrize("residual, on_grid", [(0.1, True), (0.4, False)])
def test_pieces_off_a_clear_grid_are_warned_of(residual, on_grid):
    """Where the pieces' anchors lie, at the median, over 0.3 of a pitch from their cells'
    centres, the reading is off a clear grid: it says so and is warned of."""
    reading = reading_along(0, [(0, 0), (1, 0), (2, 0)])
    reading.grid.residual = np.full(3, residual)
    detection = build_detection(reading, (800, 600), load_profile(), 0.0)
    assert detection.on_grid == on_grid
    assert bool([w for w in detection.warnings if "clear grid" in w]) != on_grid


@pytest.mark.parametrize("x0, warned", [(380.0, False), (0.5, True), (-12.0, True), (738.5, True)])
def test_pieces_whose_outline_reaches_the_photo_s_edge_are_warned_of(x0, warned):
    """A piece whose outline comes within a pixel of the photo's edge, or runs past it, may
    have neighbours beyond it: the city may be cut off. It is read from what is left of it,
    and is uncertain. One well inside is neither."""
    reading = reading_along(0, [(0, 0), (1, 0)])
    square = np.array([[0.0, 280.0], [20.0, 280.0], [20.0, 300.0], [0.0, 300.0]])
    reading.pieces = [dataclasses.replace(p, outline=square + (x0 + 40 * k, 0.0)) for k, p in enumerate(reading.pieces)]
    detection = build_detection(reading, (800, 600), load_profile(), 0.0)
    assert [w for w in detection.warnings if "photo's edge" in w] == (
        ["1 piece at the photo's edge: part of the city may be outside the photo; step back and photograph "
         "the whole city"] if warned else [])
    assert sorted(p.confidence for p in detection.pieces) == ([0.5, 0.9] if warned else [0.9, 0.9])
    assert ("1 piece uncertain" in detection.warnings) == warned


def test_the_json_city_is_of_the_variant_told_and_flags_a_kind_beyond_its_supply():
    """Three small red pieces are within a standard set's supply, one beyond a Small City's."""
    detection = build_detection(reading_along(0, [(0, 0), (2, 0), (4, 0)]), (800, 600), load_profile(), 0.0)
    standard, small = detection.to_json(), detection.to_json((), "small-city")
    assert standard["variant"] == "standard" and small["variant"] == "small-city"
    assert "too-many" not in [i["reason"] for i in standard["illegal"]]
    assert "too-many" in [i["reason"] for i in small["illegal"]]


@pytest.mark.parametrize("sizes, warned", [((1, 2, 1), "large"), ((3, 2, 3), "small"), ((2,), "large"),
                                           ((1, 2, 3), None)])
def test_a_city_without_small_or_large_pieces_is_warned_that_every_size_may_be_a_step_off(sizes, warned):
    """Smalls and mediums laid wide apart look like mediums and larges laid closer: only a
    piece of each end of the range fixes the scale."""
    reading = reading_along(0, [(k, 0) for k in range(len(sizes))])
    reading.pieces = [dataclasses.replace(p, size=size) for p, size in zip(reading.pieces, sizes)]
    warnings = [w for w in build_detection(reading, (800, 600), load_profile(), 0.0).warnings if "step off" in w]
    assert warnings == ([f"no {warned} piece read: every size may be a step off (from a photo, smaller pieces "
                         "laid wider apart look alike); check one piece's size"] if warned else [])
