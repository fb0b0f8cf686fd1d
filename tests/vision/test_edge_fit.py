"""Fitting pieces' outlines to a photo's edges, on small drawn photos."""
import cv2
import numpy as np
import pytest

from calibration.profile import COLOR_ORDER
from vision.camera import Camera
from vision.edge_fit import (base_strengths, edge_scale, edge_tensor, fit_poses, fit_sides, scale_misfit, sides_scale,
                             size_costs, straightness)
from tests.vision.pyramids import draw_pyramid
from vision.model import BASE_MM, outline, seat_height_mm

SIDES_MM = np.array([BASE_MM[1], BASE_MM[2], BASE_MM[3]])
TABLE = (120, 110, 100)  # RGB
RED, YELLOW, GREEN, BLUE = (COLOR_ORDER.index(name) for name in ("red", "yellow", "green", "blue"))


def tilted_camera(tilt_deg=20.0, pitch_px=60.0, distance=12.0):
    """A pinhole camera ``distance`` grid units from grid (1, 0), tilted ``tilt_deg`` about
    the x axis, a grid unit about ``pitch_px`` pixels wide at the middle of a 480 x 360 photo."""
    f = pitch_px * distance
    K = np.array([[f, 0, 240], [0, f, 180], [0, 0, 1]])
    a = np.radians(tilt_deg)
    R = np.array([[1, 0, 0], [0, -np.cos(a), -np.sin(a)], [0, np.sin(a), -np.cos(a)]])
    centre = np.array([1.0, 0.0, 0.0]) - distance * R[2]
    return Camera(K @ np.hstack([R, (-R @ centre)[:, None]]), centre)


def photo_of(camera, pieces, seed=0):
    """A 480 x 360 photo of ``pieces`` ((centre, side, turn, colour) each) on a plain table
    with a little sensor noise."""
    rgb = np.zeros((360, 480, 3), np.uint8)
    rgb[:] = TABLE
    for centre, side, turn, colour in pieces:
        draw_pyramid(rgb, camera, centre, side, turn, colour)
    noise = np.random.default_rng(seed).normal(0, 2.0, rgb.shape)
    return np.clip(rgb + noise, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("tilt", [0.0, 25.0])
def test_an_outline_settles_at_the_piece_s_side_though_it_is_shifted_and_turned(tilt):
    """Pieces of three sizes, each a little off its cell's centre and turned from the grid,
    seen from above and at a slant: each outline settles within 4% of the piece's side."""
    camera = tilted_camera(tilt)
    pitch_mm = 32.0
    cells = np.array([(0, 0), (1, 0), (2, 0)])
    shifts = [(0.04, -0.03), (-0.05, 0.02), (0.0, 0.05)]
    turns = [8.0, -12.0, 4.0]
    sides = SIDES_MM / pitch_mm
    photo = photo_of(camera, [(cell + shift, side, turn, colour) for cell, shift, side, turn, colour in
                              zip(cells, shifts, sides, turns, [(200, 40, 40), (40, 160, 60), (60, 90, 210)])])
    found = fit_sides(edge_tensor(photo, (0, 0, 480, 360)), camera, cells, BASE_MM[2] / pitch_mm,
                      [RED, GREEN, BLUE])
    assert np.abs(found / sides - 1).max() < 0.04


def test_a_large_piece_is_measured_though_the_scale_searched_round_is_a_size_step_too_coarse():
    """A large piece (true pitch 28.7 mm) searched round a medium's side at 37 mm, where every
    piece would read a size larger: its side is still found, not cut short at the search's end
    (which would only confirm the wrong scale)."""
    camera = tilted_camera(10.0)
    side = BASE_MM[3] / 28.7
    photo = photo_of(camera, [((1.0, 0.0), side, 5.0, (200, 40, 40))])
    found = fit_sides(edge_tensor(photo, (0, 0, 480, 360)), camera, np.array([(1, 0)]), BASE_MM[2] / 37.0, [RED])
    assert abs(found[0] / side - 1) < 0.04


@pytest.mark.parametrize("colour", [(140, 128, 117), (160, 147, 133)])
def test_a_piece_nearly_the_table_s_colour_is_measured_by_its_ridges(colour):
    """A piece whose lit faces are a little brighter than the table and its shaded faces a
    little darker, seen at a slant: along much of its outline it hardly differs from the
    table, but its faces differ from each other where they meet, along its ridges."""
    camera = tilted_camera(25.0)
    side = BASE_MM[3] / 32.0
    for seed in range(3):
        photo = np.zeros((360, 480, 3), np.uint8)
        photo[:] = TABLE
        draw_pyramid(photo, camera, (1.0, 0.0), side, 0.0, colour)
        photo = np.clip(photo + np.random.default_rng(seed).normal(0, 4.0, photo.shape), 0, 255).astype(np.uint8)
        edges = edge_tensor(photo, (0, 0, 480, 360))
        assert abs(fit_sides(edges, camera, np.array([(1, 0)]), BASE_MM[2] / 36.0, [RED])[0] / side - 1) < 0.05


def test_a_piece_s_shadow_does_not_make_its_outline_larger():
    """A medium piece with a hard shadow drawn beside it, as dark as its darkest face: what
    differs from the table is half as large again, its outline is not."""
    camera = tilted_camera(0.0)
    side = BASE_MM[2] / 32.0
    photo = np.zeros((360, 480, 3), np.uint8)
    photo[:] = TABLE
    corners = camera.project(np.array([[1 - side / 2, -side / 2, 0], [1 + side, -side / 2, 0],
                                       [1 + side, side / 2, 0], [1 - side / 2, side / 2, 0]]))
    cv2.fillConvexPoly(photo, np.round(corners).astype(np.int32), (60, 55, 50))
    draw_pyramid(photo, camera, (1.0, 0.0), side, 0.0, (200, 180, 40))
    found = fit_sides(edge_tensor(photo, (0, 0, 480, 360)), camera, np.array([(1, 0)]), side, [YELLOW])
    assert abs(found[0] / side - 1) < 0.04


@pytest.mark.parametrize("tilt", [0.0, 25.0])
def test_each_piece_costs_least_at_its_own_size_by_the_edges_along_each_size_s_outline(tilt):
    """A small, a medium and a large piece, a little off their cells and turned, at the
    photo's scale (32 mm a grid unit): each size's outline laid on the edges, the piece's
    own runs along the strongest, costs nothing, and the others cost much more, no more
    than the cap."""
    camera = tilted_camera(tilt)
    cells = np.array([(0, 0), (1, 0), (2, 0)])
    shifts, turns = [(0.03, -0.02), (-0.04, 0.02), (0.0, 0.04)], [6.0, -10.0, 3.0]
    photo = photo_of(camera, [(cell + shift, side, turn, colour) for cell, shift, side, turn, colour in
                              zip(cells, shifts, SIDES_MM / 32.0, turns, [(200, 40, 40), (40, 160, 60), (60, 90, 210)])])
    costs = size_costs(edge_tensor(photo, (0, 0, 480, 360)), camera, cells, 32.0, [RED, GREEN, BLUE], 0.06, 24.0)
    assert costs.argmin(axis=1).tolist() == [0, 1, 2]
    assert np.diag(costs).max() == 0.0
    others = costs[~np.eye(3, dtype=bool)]
    assert others.min() > 2.0 and others.max() <= 24.0


def test_the_scale_puts_the_pieces_as_read_at_their_true_sides():
    """Sides measured in grid units at an unknown scale (1 / 30 of a millimetre): the pieces
    read as small, medium, large, medium and large set the scale by their median; one misread
    piece and one outline that settled on something else do not move it."""
    sides = np.array([BASE_MM[1], BASE_MM[2], BASE_MM[3], BASE_MM[3], BASE_MM[3], 60.0]) / 30.0
    read = np.array([1, 2, 3, 2, 3, 2])
    assert edge_scale(sides, read) == pytest.approx(30.0)


def test_the_sides_own_scale_is_the_one_their_sizes_fit_best():
    """Outlines of five smalls, four mediums and two larges on a 31 mm grid (each side up to
    4% off): among the pitches 26 to 42 mm, the sides fit the sizes' true sides best at 31 mm,
    each piece then taken for its own size; read a size up at the scale that puts the mediums
    at larges (40 mm), the larges fit no size and the smalls badly."""
    rng = np.random.default_rng(3)
    sizes = np.array([1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3])
    sides = np.array([BASE_MM[s] for s in sizes]) / 31.0 * rng.uniform(0.96, 1.04, len(sizes))
    scale, misfit = sides_scale(sides, np.zeros(len(sizes), int), np.arange(26.0, 42.05, 0.1))
    assert scale == pytest.approx(31.0, abs=1.0)
    assert misfit < 1.0
    up = np.minimum(sizes + 1, 3)
    assert scale_misfit(sides, up, edge_scale(sides, up)) > misfit + 2.0


def test_the_sides_own_scale_keeps_a_piece_larger_than_the_one_on_it():
    """A medium's side under a piece read as a medium on top of it (``least`` 2) is taken for
    a large, at a misfit of one piece (the most one piece costs)."""
    sides = np.array([BASE_MM[1], BASE_MM[2], BASE_MM[3], BASE_MM[2]]) / 30.0
    scale, misfit = sides_scale(sides, np.array([0, 0, 0, 2]), np.arange(26.0, 42.05, 0.1))
    assert scale == pytest.approx(30.0, abs=0.2)
    assert misfit == pytest.approx(1.0)


def test_the_edges_are_measured_only_in_their_window():
    """The window's edges sit at its offset in the image: a piece outside the window has none."""
    camera = tilted_camera(0.0)
    side = BASE_MM[3] / 32.0
    photo = photo_of(camera, [((0.0, 0.0), side, 0.0, (200, 40, 40))])
    inside = edge_tensor(photo, (0, 0, 480, 360))
    window = edge_tensor(photo, (300, 0, 480, 360))
    assert window.origin == (300, 0) and window.tensor.shape == (360, 180, 4)
    x, y = camera.project(np.array([[-side / 2, 0.0, 0.0]]))[0].astype(np.float32)  # on the piece's left side
    probe = (np.array([x]), np.array([y]), np.float32(1.0), np.float32(0.0))  # points and normal
    assert inside.across(*probe)[0] > 10 * window.across(*probe)[0] + 1e-6


@pytest.mark.parametrize("tilt", [0.0, 20.0])
def test_a_base_shows_round_the_piece_resting_on_it_and_not_round_one_alone(tilt):
    """A black large with a red medium resting on it, and a red medium alone: the large's base
    square, laid under either medium and its middle hidden by the medium, runs along strong
    edges round the stack (the large's own outline), and along the bare table round the
    medium alone; with the whole square hidden, nothing is measured."""
    camera = tilted_camera(tilt)
    pitch_mm = 32.0
    large, medium = BASE_MM[3] / pitch_mm, BASE_MM[2] / pitch_mm
    rgb = photo_of(camera, [((0, 0), large, 0.0, (34, 34, 36)), ((2, 0), medium, 0.0, (200, 40, 40))])
    draw_pyramid(rgb, camera, (0, 0), medium, 0.0, (200, 40, 40), seat_height_mm(3, 2) / pitch_mm)
    edges = edge_tensor(rgb, (0, 0, 480, 360))
    cells, poses = np.array([(0.0, 0.0), (2.0, 0.0)]), np.array([(large, 0.0, 0.0, 0.0)] * 2)
    hidden = [outline(camera, cell, 2, pitch_mm, seat_height_mm(3, 2) * (k == 0)) for k, cell in enumerate(cells)]
    stacked, alone = base_strengths(edges, camera, cells, poses, hidden)
    assert stacked > 5 * alone
    everything = outline(camera, np.array([0.0, 0.0]), 3, pitch_mm) * 1.5 - 0.5 * camera.project(
        np.array([[0.0, 0.0, 0.0]]))
    assert base_strengths(edges, camera, cells[:1], poses[:1], [everything])[0] == 0.0


def test_a_pyramid_s_sides_and_ridges_are_straight_edges_and_a_blossom_s_are_not():
    """A blue pyramid beside a blue blossom (a disc of its size) on a plain table, seen at a
    slant: each side and ridge of the pyramid is a straight edge, the blossom's outline, laid
    along its strongest edges, is not. Where the pixels on the outlines are ruled out (a
    piece read there), nothing is measured."""
    camera = tilted_camera(20.0)
    side = BASE_MM[2] / 32.0
    photo = photo_of(camera, [((1.0, 0.0), side, 8.0, (60, 90, 210))])
    disc = camera.project(np.array([[3.0, 0.0, 0.0]]))[0]
    cv2.circle(photo, (int(disc[0]), int(disc[1])), 18, (60, 90, 210), -1, cv2.LINE_AA)
    edges = edge_tensor(photo, (0, 0, 480, 360))
    cells = np.array([(1, 0), (3, 0)], np.float64)
    poses = fit_poses(edges, camera, cells, np.full(2, side))
    straight = straightness(edges, camera, cells, poses, np.zeros(photo.shape[:2], bool))
    assert straight[0] > 3.0 and straight[1] < 1.5
    assert np.all(straightness(edges, camera, cells, poses, np.ones(photo.shape[:2], bool)) == 0)
