"""A black piece missed on a doubted cell, told by its faces' shading (vision.shaded_like_black),
on small drawn photos: black pyramids on a plain table, each face shaded as a lamp lights it."""
import numpy as np

from calibration import load_profile
from tests.vision.pyramids import draw_pyramid
from tests.vision.test_whole_set import BLACK, PITCH_MM, RED, camera_over_the_block
from vision.cells import CityReading, Reading
from vision.edge_fit import edge_tensor
from vision.model import BASE_MM, outline
from vision.shaded_like_black import black_on_doubted_cells, face_shading

PROFILE = load_profile()
TABLE = np.array([70, 66, 60])
CAMERA = camera_over_the_block()


def photo(black_cells: dict) -> tuple[np.ndarray, np.ndarray]:
    """A 640 x 400 photo of a plain dark table with a black pyramid of each size in
    ``black_cells`` ((col, row) -> size), a little sensor noise; and its log ratio to the
    table (float32 (400, 640, 3))."""
    rgb = np.empty((400, 640, 3), np.uint8)
    rgb[:] = TABLE
    for cell, size in black_cells.items():
        draw_pyramid(rgb, CAMERA, np.array(cell, np.float64), BASE_MM[size] / PITCH_MM, 5.0, (80, 78, 84))
    rgb = np.clip(rgb + np.random.default_rng(5).normal(0, 1.5, rgb.shape), 0, 255).astype(np.uint8)
    return rgb, np.log((rgb + 1.0) / (TABLE + 1.0)).astype(np.float32)


def piece(cell, colour, size, confidence=0.9) -> Reading:
    shape = outline(CAMERA, np.array(cell, np.float64), size, PITCH_MM)
    return Reading(cell[0], cell[1], colour, size, 0, confidence, tuple(shape.mean(axis=0)), shape)


def reading_of(pieces, doubtful) -> CityReading:
    return CityReading(None, CAMERA, PITCH_MM, PITCH_MM, pieces, np.zeros(3), edge_scale=PITCH_MM,
                       doubtful_empty=tuple(doubtful))


def test_a_doubted_cell_shaded_as_the_black_pieces_read_holds_one_of_the_size_its_edges_show():
    """Two black mediums read, a black large unread on a doubted cell: its faces shade as
    theirs do, so it is read there, large, flagged, and the cell is no longer doubted; a
    doubted cell of bare table stays doubted and empty."""
    rgb, log_ratio = photo({(6, 2): 2, (8, 2): 2, (7, 4): 3})
    pieces = [piece((6, 2), BLACK, 2), piece((8, 2), BLACK, 2), piece((7, 2), RED, 1), piece((7, 3), RED, 2)]
    read = black_on_doubted_cells(reading_of(pieces, [(7, 4), (9, 3)]), log_ratio,
                                  edge_tensor(rgb, (0, 0, 640, 400)), PROFILE)
    added = read.pieces[-1]
    assert len(read.pieces) == 5 and (added.col, added.row, added.color_index, added.size) == (7, 4, BLACK, 3)
    assert added.confidence < PROFILE.max_uncertain_confidence
    assert read.doubtful_empty == ((9, 3),)


def test_the_shading_is_learnt_from_two_black_pieces_read_at_least():
    rgb, log_ratio = photo({(6, 2): 2, (7, 4): 3})
    reading = reading_of([piece((6, 2), BLACK, 2), piece((7, 3), RED, 2)], [(7, 4)])
    assert black_on_doubted_cells(reading, log_ratio, edge_tensor(rgb, (0, 0, 640, 400)), PROFILE) is reading


def test_a_face_shading_is_the_mean_brightness_of_each_face_of_the_cell():
    """A drawn pyramid's faces, towards -row, +col, +row and -col, differ as the lamp shades
    them; a bare cell's are the table's (0); a cell off the photo has none."""
    _, log_ratio = photo({(6, 2): 3})
    reading = reading_of([], [])
    shaded = face_shading(log_ratio, reading, (6, 2))
    assert np.ptp(shaded) > 0.1 and np.allclose(face_shading(log_ratio, reading, (2, 6)), 0, atol=0.02)
    assert face_shading(log_ratio, reading, (-20, 2)) is None
