"""Checking a reading against the photo: a reading whose outline is mostly table is dropped,
and so is one with no edge along its outline."""
import dataclasses

import cv2
import numpy as np

from calibration import load_profile
from calibration.profile import COLOR_ORDER
from tests.vision.test_edge_fit import tilted_camera
from tests.vision.test_faces import BLUE, RED, log_ratio_of, photo_of, reading_of
from vision.cells import CityReading, Reading
from vision.camera import camera_from_homography
from vision.grid import GridFit
from vision.edge_fit import edge_tensor
from vision.model import outline
from vision.pieces import Blob
from vision.verify import check_reading, doubt_empty_cells, drop_edgeless, piece_poses

PROFILE = load_profile()
SIZE = (640, 480)
PITCH_PX = 60.0
PITCH_MM = 32.0
DIM, BRIGHT = 60.0, 220.0  # mean table brightness (8-bit) of a dark and of a white table
LEVEL = float(np.log(DIM))  # the table's log grey (the candidates' ``level``)


def looks(color: str, chroma=np.zeros(3), level: float = LEVEL) -> np.ndarray:
    """(3,) the log ratio of a ``color`` piece on a table of ``chroma`` (3,) and ``level``
    (its log grey; the grey table by default): the piece colour model's mean."""
    model = PROFILE.piece_colors
    return (model.regressors(chroma, np.array([level])) @ np.array(model.coefficients[color]))[0]


def straight_down_reading(pieces):
    """A camera straight above the grid, cell (0, 0) at pixel (200, 150); ``pieces`` are
    (col, row, colour, size) or (col, row, colour, size, level) already read."""
    H = np.array([[PITCH_PX, 0, 200], [0, PITCH_PX, 150], [0, 0, 1]], np.float64)
    camera = camera_from_homography(H, SIZE, PROFILE.hfov_deg)
    readings = [Reading(c, r, COLOR_ORDER.index(color), size, level[0] if level else 0, 1.0, (0.0, 0.0),
                        outline(camera, np.array([c, r], np.float64), size, PITCH_MM))
                for c, r, color, size, *level in pieces]
    return CityReading(GridFit(H, np.zeros((0, 2), int), np.zeros(0)), camera, PITCH_MM, PITCH_MM, readings, np.zeros(3))


def scene(reading, hidden, extra=(), unseen=(), table=(np.zeros(3), LEVEL)):
    """Strength and log ratio maps: the pieces of ``reading`` and the ``hidden`` ones
    ((col, row, colour, size)) drawn as their outlines with their colour's prototype, and
    ``extra`` convex polygons ((K, 2) (x, y)) drawn as a neutral grey difference; the
    readings on the cells ``unseen`` ((col, row)) are not drawn; ``table``: its chroma and
    level."""
    h = SIZE[1]
    log_ratio = np.zeros((h, SIZE[0], 3), np.float32)
    shapes = [(p.outline, looks(COLOR_ORDER[p.color_index], *table)) for p in reading.pieces
              if (p.col, p.row) not in unseen]
    shapes += [(outline(reading.camera, np.array([c, r], np.float64), s, PITCH_MM), looks(k, *table))
               for c, r, k, s in hidden]
    shapes += [(poly, np.full(3, -0.4)) for poly in extra]
    for poly, value in shapes:
        mask = np.zeros((h, SIZE[0]), np.uint8)
        cv2.fillConvexPoly(mask, np.round(poly).astype(np.int32), 1)
        log_ratio[mask > 0] = value
    strength = np.abs(log_ratio).max(axis=2)
    return strength, log_ratio


def blobs_of(reading, table=(np.zeros(3), LEVEL)):
    chroma, level = table
    return [Blob((0.0, 0.0), np.zeros((1, 2), np.int32), looks(COLOR_ORDER[p.color_index], *table), chroma,
                 p.color_index, 1.0, level) for p in reading.pieces]


def test_a_reading_whose_outline_is_mostly_table_is_dropped_with_what_stands_on_it():
    """Cell (1, 0) was read from a card's print: nothing there differs from the table."""
    reading = straight_down_reading([(0, 0, "red", 3), (1, 0, "blue", 3), (1, 0, "yellow", 1, 1),
                                     (1, 1, "green", 2)])
    strength, log_ratio = scene(reading, hidden=[], unseen=[(1, 0)])
    found = check_reading(reading, strength, log_ratio, blobs_of(reading), True, DIM, PROFILE)
    assert sorted((p.col, p.row, p.level) for p in found.pieces) == [(0, 0, 0), (1, 1, 0)]


def test_a_reading_whose_outline_leaves_the_photo_is_kept():
    """A piece seen at the photo's bottom edge whose model outline lies wholly below it (the
    camera model is a little off there): nothing of it can be checked, and checking must
    neither fail nor drop it."""
    reading = straight_down_reading([(0, 0, "red", 3), (1, 0, "yellow", 2)])
    strength, log_ratio = scene(reading, hidden=[])
    below = dataclasses.replace(reading.pieces[1], outline=reading.pieces[1].outline + (0.0, SIZE[1]))
    reading = dataclasses.replace(reading, pieces=[reading.pieces[0], below])
    found = check_reading(reading, strength, log_ratio, blobs_of(reading), True, DIM, PROFILE)
    assert [(p.col, p.row) for p in found.pieces[:2]] == [(0, 0), (1, 0)]


def test_a_reading_with_no_edge_along_its_outline_is_dropped():
    """Four pieces and a smooth dark patch (a shade of the table round a lamp's hot spot),
    each read as a medium: the patch differs from the table but has no outline, and its
    reading is dropped; the pieces' readings stay."""
    camera = tilted_camera(15.0)
    cells = [(0, 0), (1, 1), (2, 0), (3, 1)]
    rgb = photo_of(camera, [(cell, [(2, RED)]) for cell in cells]).astype(np.float64)
    x, y = camera.project(np.array([[1.0, -1.0, 0.0]]))[0]
    rows, cols = np.mgrid[:rgb.shape[0], :rgb.shape[1]]
    rgb *= 1 - 0.5 * np.exp(-((cols - x) ** 2 + (rows - y) ** 2) / (2 * 25.0 ** 2))[..., None]
    rgb = rgb.astype(np.uint8)
    reading = reading_of(camera, [(cell, 2, 0) for cell in cells + [(1, -1)]])
    edges = edge_tensor(rgb, (0, 0, 480, 360))
    kept = drop_edgeless(reading, piece_poses(reading, edges), edges, load_profile())
    assert [(p.col, p.row) for p in kept.pieces] == cells


def test_empty_cells_where_an_outline_shows_are_doubted_and_the_bare_table_is_not():
    """Four red pieces read, and two dark pieces near the table's shade that were not: one
    beside the red ones, one beside it alone. Both cells are doubted, the one beside only
    the other dark piece too; with the dark pieces taken away no cell is."""
    camera = tilted_camera(15.0)
    cells = [(0, 0), (1, 1), (2, 0), (3, 1)]
    dark = (80, 74, 68)  # a black piece as a dim table shows it: a little darker than the table
    reading = reading_of(camera, [(cell, 2, 0) for cell in cells])
    for unseen, doubted in (([(1, 0), (1, -1)], ((1, -1), (1, 0))), ([], ())):
        rgb = photo_of(camera, [(cell, [(2, RED)]) for cell in cells] + [(cell, [(2, dark)]) for cell in unseen])
        edges = edge_tensor(rgb, (0, 0, 480, 360))
        assert doubt_empty_cells(reading, piece_poses(reading, edges), edges, PROFILE).doubtful_empty == doubted


def test_lines_of_the_table_s_grain_along_a_row_of_empty_cells_are_not_doubted():
    """Two dark lines of grain run along the row beside the pieces, a piece's side apart: an
    outline laid along them is as strong as a piece's on two sides, but has no edge on the
    other two, and no cell is doubted."""
    camera = tilted_camera(15.0)
    cells = [(0, 0), (1, 1), (2, 0), (3, 1)]
    reading = reading_of(camera, [(cell, 2, 0) for cell in cells])
    rgb = photo_of(camera, [(cell, [(2, RED)]) for cell in cells])
    for row in (-1.28, -0.72):
        start, end = camera.project(np.array([[-1.5, row, 0.0], [4.5, row, 0.0]]))
        cv2.line(rgb, tuple(int(v) for v in start), tuple(int(v) for v in end), (40, 36, 32), 3, cv2.LINE_AA)
    edges = edge_tensor(rgb, (0, 0, 480, 360))
    assert doubt_empty_cells(reading, piece_poses(reading, edges), edges, PROFILE).doubtful_empty == ()


def test_a_reading_with_no_edge_along_its_outline_does_not_keep_a_stack_from_being_read():
    """A blue medium rests on a red large; next to it a smooth dark patch (a shade of the
    table) was read as a medium. A medium on top would stand next to a medium, which the
    rules forbid; but the patch has no outline, and is dropped before the stacks are told by
    the faces: the stack is read with its medium on top, and the patch's reading is gone."""
    camera = tilted_camera(15.0)
    others = [(2, 0), (0, 2), (2, 2), (3, 1)]
    rgb = photo_of(camera, [((0, 0), [(3, RED), (2, BLUE)])] + [(cell, [(3, RED)]) for cell in others])
    x, y = camera.project(np.array([[1.0, 0.0, 0.0]]))[0]
    rows, cols = np.mgrid[:rgb.shape[0], :rgb.shape[1]]
    rgb = (rgb * (1 - 0.5 * np.exp(-((cols - x) ** 2 + (rows - y) ** 2) / (2 * 20.0 ** 2))[..., None])).astype(np.uint8)
    read = reading_of(camera, [((0, 0), 3, 0), ((1, 0), 2, 0)] + [(cell, 3, 0) for cell in others])
    reading = dataclasses.replace(read, pieces=[dataclasses.replace(
        p, outline=outline(camera, np.array([p.col, p.row], np.float64), p.size, read.pitch_mm)) for p in read.pieces])
    log_ratio = log_ratio_of(rgb)
    strength = np.abs(log_ratio).max(axis=2)
    found = check_reading(reading, strength, log_ratio, blobs_of(reading), True, DIM, PROFILE,
                          outline_edges=edge_tensor(rgb, (0, 0, 480, 360)))
    assert sorted((p.col, p.row, p.size, p.level) for p in found.pieces if p.col < 2 and p.row < 1) == [
        (0, 0, 2, 1), (0, 0, 3, 0)]
