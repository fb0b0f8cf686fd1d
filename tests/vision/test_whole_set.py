"""A reading of about a whole set read as the set (vision.whole_set), on readings laid out by
hand: the 45 pieces of a standard set on every other cell of a 17 x 9 block, so that no two
stand side by side."""
import dataclasses
from collections import Counter

import numpy as np

from calibration import load_profile
from calibration.profile import COLOR_ORDER
from tests.vision.pyramids import draw_pyramid
from tests.vision.test_edge_fit import tilted_camera
from tests.vision.test_faces import DRAWN
from vision.camera import Camera
from vision.cells import CityReading, Reading
from vision.edge_fit import edge_tensor
from vision.model import BASE_MM, outline, seat_height_mm
from vision.whole_set import as_whole_set

PROFILE = load_profile()
CAMERA = tilted_camera(10.0, distance=30.0)
PITCH_MM = 30.0
RED, BLUE, BLACK = (COLOR_ORDER.index(c) for c in ("red", "blue", "black"))
SURE, FLAGGED = 0.9, 0.3  # over and under the profile's max_uncertain_confidence
assert FLAGGED < PROFILE.max_uncertain_confidence < SURE


def piece(cell, colour, size, confidence=SURE, level=0) -> Reading:
    """A reading of a piece on ``cell`` (col, row), its outline a square round the cell."""
    col, row = cell
    square = 20.0 * np.array([[col, row], [col + 1, row], [col + 1, row + 1], [col, row + 1]])
    return Reading(col, row, colour, size, level, confidence, (20.0 * col + 10, 20.0 * row + 10), square)


def whole_set(per_kind: int = 3) -> list[Reading]:
    """The pieces of a whole set, ``per_kind`` of each kind (3: the standard set's 45, 2: a
    Small City's 30), each sure and alone in its cell."""
    kinds = [(colour, size) for colour in range(len(COLOR_ORDER)) for size in (1, 2, 3) for _ in range(per_kind)]
    return [piece((2 * (k % 9), 2 * (k // 9)), colour, size) for k, (colour, size) in enumerate(kinds)]


def reading_of(pieces: list[Reading]) -> CityReading:
    return CityReading(None, CAMERA, PITCH_MM, PITCH_MM, pieces, np.zeros(3))


def first(pieces: list[Reading], colour: int, size: int) -> int:
    """The index of the first of ``pieces`` of ``colour`` and ``size``."""
    return next(k for k, p in enumerate(pieces) if (p.color_index, p.size) == (colour, size))


def kinds(reading: CityReading) -> Counter:
    return Counter((p.color_index, p.size) for p in reading.pieces)


def test_a_flagged_piece_of_a_kind_one_over_a_whole_set_takes_the_colour_one_short():
    """A red small read black makes four black smalls and two red ones: the least sure black
    small is the misread one. A sure one stands, and so do equally sure ones (no telling)."""
    pieces = whole_set()
    k, other_black = first(pieces, RED, 1), first(pieces, BLACK, 1)
    pieces[k] = dataclasses.replace(pieces[k], color_index=BLACK, confidence=0.2)
    pieces[other_black] = dataclasses.replace(pieces[other_black], confidence=0.4)
    read = as_whole_set(reading_of(pieces), PROFILE)
    assert read.pieces[k].color_index == RED and read.pieces[k].confidence == 0.2
    assert set(kinds(read).values()) == {3}
    assert read.warnings == ("read as a whole set of 45 pieces (a finished game places them all): 1 marked piece "
                             "changed to fit it; check it",)
    for confidence, other in ((SURE, SURE), (0.4, 0.4)):  # all sure; as sure as another black small
        pieces[k] = dataclasses.replace(pieces[k], confidence=confidence)
        pieces[other_black] = dataclasses.replace(pieces[other_black], confidence=other)
        unread = reading_of(pieces)
        assert as_whole_set(unread, PROFILE) is unread


def test_a_small_city_s_whole_set_is_told_by_its_count_and_read_as_one():
    """30 pieces, two of each kind but a third black small and a single red one: a Small
    City's set with a red small read black. A standard city's 30 pieces with that many of a
    kind over two stand as read."""
    pieces = whole_set(per_kind=2)
    k = first(pieces, RED, 1)
    pieces[k] = dataclasses.replace(pieces[k], color_index=BLACK, confidence=0.2)
    read = as_whole_set(reading_of(pieces), PROFILE)
    assert read.pieces[k].color_index == RED and set(kinds(read).values()) == {2}
    assert "read as a whole set of 30 pieces" in read.warnings[0]
    for other in (first(pieces, BLUE, 2), first(pieces, BLUE, 3)):  # two more kinds three times over
        pieces[other] = dataclasses.replace(pieces[other], color_index=RED)
    unread = reading_of(pieces)
    assert as_whole_set(unread, PROFILE) is unread


def test_the_variant_told_is_the_only_set_a_reading_is_read_as():
    """Told a Small City, a reading of 31 pieces holds one beyond its set: the flagged piece
    of a kind three times over is left out (a standard city may hold 31). Told a standard
    game, the Small City's 30 pieces with a red small read black stand as read (part of a
    standard city); told a Small City, they are read as its set, as where not told."""
    pieces = whole_set(per_kind=2)
    phantom = piece((1, 1), RED, 1, 0.4)
    unread = reading_of(pieces + [phantom])
    assert as_whole_set(unread, PROFILE) is unread
    read = as_whole_set(unread, PROFILE, variant="small-city")
    assert read.pieces == pieces and read.doubtful_empty == ((1, 1),)
    assert "read as a whole set of 30 pieces" in read.warnings[0]
    k = first(pieces, RED, 1)
    pieces[k] = dataclasses.replace(pieces[k], color_index=BLACK, confidence=0.2)
    unread = reading_of(pieces)
    assert as_whole_set(unread, PROFILE, variant="standard") is unread
    for variant in ("small-city", None):
        assert as_whole_set(unread, PROFILE, variant=variant).pieces[k].color_index == RED


def test_pieces_beyond_a_whole_set_are_left_out_uppers_first_and_a_cell_emptied_is_doubted():
    """Two phantom red smalls beyond a whole set: one on top of a red large (a false stack)
    and one alone on a cell of its own, less sure. The upper goes first, then the one alone,
    whose cell the player is asked to check; a sure phantom stays."""
    pieces = whole_set()
    large = pieces[first(pieces, RED, 3)]
    on_top = piece((large.col, large.row), RED, 1, 0.5, level=1)
    alone = piece((1, 1), RED, 1, 0.4)
    read = as_whole_set(reading_of(pieces + [on_top, alone]), PROFILE)
    assert len(read.pieces) == 45 and on_top not in read.pieces and alone not in read.pieces
    assert read.doubtful_empty == ((1, 1),)
    assert "2 marked pieces changed to fit it; check them" in read.warnings[0]
    sure = reading_of(pieces + [dataclasses.replace(alone, confidence=SURE)])
    assert as_whole_set(sure, PROFILE) is sure


def test_one_short_of_a_whole_set_is_read_as_a_stack_on_the_least_sure_larger_piece_of_its_colour():
    """A red small missing from a whole set goes on top of the least sure red piece larger
    than it, the medium where a small beside the large would break the rules, and nowhere
    where no larger red piece is flagged."""
    pieces = whole_set()
    del pieces[first(pieces, RED, 1)]
    medium, large = first(pieces, RED, 2), first(pieces, RED, 3)
    pieces[medium] = dataclasses.replace(pieces[medium], confidence=0.5)
    pieces[large] = dataclasses.replace(pieces[large], confidence=0.4)
    read = as_whole_set(reading_of(pieces), PROFILE)
    upper = read.pieces[-1]
    cell = (pieces[large].col, pieces[large].row)
    assert (upper.col, upper.row, upper.color_index, upper.size, upper.level) == (*cell, RED, 1, 1)
    assert np.allclose(upper.outline, outline(CAMERA, np.array(cell, np.float64), 1, PITCH_MM, seat_height_mm(3, 1)))
    assert upper.confidence == 0.4 and set(kinds(read).values()) == {3}

    beside = first(pieces, BLUE, 1)  # a small moved beside the large
    pieces[beside] = dataclasses.replace(pieces[beside], col=cell[0] + 1, row=cell[1])
    upper = as_whole_set(reading_of(pieces), PROFILE).pieces[-1]
    assert (upper.col, upper.row, upper.level) == (pieces[medium].col, pieces[medium].row, 1)

    for k in (medium, large):
        pieces[k] = dataclasses.replace(pieces[k], confidence=SURE)
    unread = reading_of(pieces)
    assert as_whole_set(unread, PROFILE) is unread


def test_two_short_of_a_whole_set_are_read_only_where_both_are_found_and_count_as_guessed():
    """A red small and a blue medium missing go on the flagged red medium and blue large; with
    the blue large sure, the blue medium has nowhere to go and neither is read. Two red
    smalls missing and one flagged red piece larger: the second has nowhere to go."""
    pieces = whole_set()
    del pieces[first(pieces, RED, 1)]
    del pieces[first(pieces, BLUE, 2)]
    red, blue = first(pieces, RED, 2), first(pieces, BLUE, 3)
    for k in (red, blue):
        pieces[k] = dataclasses.replace(pieces[k], confidence=FLAGGED)
    read = as_whole_set(reading_of(pieces), PROFILE)
    uppers = {(p.col, p.row, p.color_index, p.size) for p in read.pieces if p.level == 1}
    assert uppers == {(pieces[red].col, pieces[red].row, RED, 1), (pieces[blue].col, pieces[blue].row, BLUE, 2)}
    assert set(kinds(read).values()) == {3} and read.guessed == 2

    pieces[blue] = dataclasses.replace(pieces[blue], confidence=SURE)
    unread = reading_of(pieces)
    assert as_whole_set(unread, PROFILE) is unread

    pieces = whole_set()
    for _ in range(2):
        del pieces[first(pieces, RED, 1)]
    pieces[first(pieces, RED, 3)] = dataclasses.replace(pieces[first(pieces, RED, 3)], confidence=FLAGGED)
    unread = reading_of(pieces)
    assert as_whole_set(unread, PROFILE) is unread


def test_three_short_of_a_whole_set_are_read_where_all_three_are_found():
    """A red small, a blue medium and a green small missing go on the flagged red medium,
    blue large and green large; a fourth piece missing leaves the reading as it is."""
    pieces = whole_set()
    green = COLOR_ORDER.index("green")
    for kind in ((RED, 1), (BLUE, 2), (green, 1)):
        del pieces[first(pieces, *kind)]
    for kind in ((RED, 2), (BLUE, 3), (green, 3)):
        pieces[first(pieces, *kind)] = dataclasses.replace(pieces[first(pieces, *kind)], confidence=FLAGGED)
    read = as_whole_set(reading_of(pieces), PROFILE)
    assert set(kinds(read).values()) == {3} and read.guessed == 3
    uppers = sorted((p.color_index, p.size) for p in read.pieces if p.level == 1)
    assert uppers == sorted([(RED, 1), (BLUE, 2), (green, 1)])

    del pieces[first(pieces, BLACK, 1)]
    unread = reading_of(pieces)
    assert as_whole_set(unread, PROFILE) is unread


def test_short_of_a_whole_set_with_a_kind_one_over_reads_its_least_sure_piece_as_a_colour_short():
    """A blue small read black and a red small missing: four black smalls and two red and two
    blue ones. The least sure black small read red first leaves a blue small that no flagged
    blue piece can hold; read blue, it leaves a red small that goes on the flagged red
    medium. With the red medium sure, or the black small as sure as another, the reading
    stands."""
    pieces = whole_set()
    del pieces[first(pieces, RED, 1)]
    misread, red = first(pieces, BLUE, 1), first(pieces, RED, 2)
    pieces[misread] = dataclasses.replace(pieces[misread], color_index=BLACK, confidence=FLAGGED)
    pieces[red] = dataclasses.replace(pieces[red], confidence=0.5)
    read = as_whole_set(reading_of(pieces), PROFILE)
    assert read.pieces[misread].color_index == BLUE and read.guessed == 2
    upper = read.pieces[-1]
    assert (upper.col, upper.row, upper.color_index, upper.size, upper.level) == (
        pieces[red].col, pieces[red].row, RED, 1, 1)
    assert set(kinds(read).values()) == {3}

    other_black = next(k for k, p in enumerate(pieces) if (p.color_index, p.size) == (BLACK, 1) and k != misread)
    for k, confidence in ((red, SURE), (other_black, FLAGGED)):
        unread = reading_of([dataclasses.replace(p, confidence=confidence) if i == k else p
                             for i, p in enumerate(pieces)])
        assert as_whole_set(unread, PROFILE) is unread


def test_a_flagged_piece_of_a_kind_one_over_a_whole_set_takes_the_size_of_its_colour_one_short():
    """A blue large read medium makes four blue mediums and two blue larges: the least sure
    blue medium is a large, its outline scaled to a large's base. Not where a large stands
    beside it (the rules forbid it, unless Canadian Style lets larges touch), nor where it
    shares its cell with another piece."""
    pieces = whole_set()
    k = first(pieces, BLUE, 3)
    pieces[k] = dataclasses.replace(pieces[k], size=2, confidence=FLAGGED)
    read = as_whole_set(reading_of(pieces), PROFILE)
    assert (read.pieces[k].color_index, read.pieces[k].size, read.pieces[k].confidence) == (BLUE, 3, FLAGGED)
    assert set(kinds(read).values()) == {3} and read.guessed == 1
    centre = np.asarray(pieces[k].center)
    assert np.allclose(read.pieces[k].outline - centre, (pieces[k].outline - centre) * BASE_MM[3] / BASE_MM[2])

    large = first(pieces, RED, 3)
    beside = pieces[:large] + [dataclasses.replace(pieces[large], col=pieces[k].col + 1, row=pieces[k].row)]
    beside += pieces[large + 1:]
    unread = reading_of(beside)
    assert as_whole_set(unread, PROFILE) is unread
    assert as_whole_set(unread, PROFILE, larges_touch=True).pieces[k].size == 3

    small = first(pieces, RED, 1)
    stacked = [dataclasses.replace(p, col=pieces[k].col, row=pieces[k].row, level=1) if i == small else p
               for i, p in enumerate(pieces)]
    unread = reading_of(stacked)
    assert as_whole_set(unread, PROFILE) is unread


def test_short_of_a_whole_set_with_a_kind_one_over_reads_its_least_sure_piece_as_a_size_short():
    """A blue medium read small and a red small missing: four blue smalls, two blue mediums
    and two red smalls. The least sure blue small read as a medium, the red small goes on the
    flagged red medium."""
    pieces = whole_set()
    del pieces[first(pieces, RED, 1)]
    misread, red = first(pieces, BLUE, 2), first(pieces, RED, 2)
    pieces[misread] = dataclasses.replace(pieces[misread], size=1, confidence=FLAGGED)
    pieces[red] = dataclasses.replace(pieces[red], confidence=0.5)
    read = as_whole_set(reading_of(pieces), PROFILE)
    assert (read.pieces[misread].color_index, read.pieces[misread].size) == (BLUE, 2) and read.guessed == 2
    assert set(kinds(read).values()) == {3}
    assert [(p.col, p.row, p.color_index, p.size) for p in read.pieces if p.level == 1] == [
        (pieces[red].col, pieces[red].row, RED, 1)]


def camera_over_the_block(pitch_px: float = 30.0, distance: float = 20.0, size=(640, 400)) -> Camera:
    """A pinhole camera ``distance`` grid units straight above the middle (8, 4) of the
    whole set's 17 x 9 block, a grid unit ``pitch_px`` pixels wide in a photo of ``size``
    (width, height)."""
    f = pitch_px * distance
    K = np.array([[f, 0, size[0] / 2], [0, f, size[1] / 2], [0, 0, 1]])
    R = np.diag([1.0, -1.0, -1.0])
    centre = np.array([8.0, 4.0, distance])
    return Camera(K @ np.hstack([R, (-R @ centre)[:, None]]), centre)


def photo_with_a_piece(camera: Camera, cell, side: float) -> tuple[np.ndarray, np.ndarray]:
    """A 640 x 400 photo of a plain table with one black pyramid of base ``side`` (grid
    units) on ``cell`` (col, row), a little sensor noise, and its log ratio to the table
    (float32 (400, 640, 3))."""
    table = np.array([150, 140, 120])
    rgb = np.empty((400, 640, 3), np.uint8)
    rgb[:] = table
    draw_pyramid(rgb, camera, np.array(cell, np.float64), side, 5.0, (45, 45, 50))
    rgb = np.clip(rgb + np.random.default_rng(3).normal(0, 2.0, rgb.shape), 0, 255).astype(np.uint8)
    return rgb, np.log((rgb + 1.0) / (table + 1.0)).astype(np.float32)


def test_one_short_with_no_piece_to_stack_it_on_is_read_where_edges_and_contrast_both_show_it():
    """A black medium missing from a whole set, every black large sure (so no stack is read
    for it), stands in the photo on an empty cell beside the city: of the cells where the
    rules allow a medium, its outline lies along the strongest edges there and what is
    inside it differs most from the ring round it, so it is read there, flagged. Without the
    photo's edges nothing is added; with a medium beside that cell, nothing is put there."""
    camera = camera_over_the_block()
    pieces = whole_set()
    del pieces[first(pieces, BLACK, 2)]
    pieces = [dataclasses.replace(p, outline=outline(camera, np.array([p.col, p.row], np.float64), p.size, PITCH_MM))
              for p in pieces]
    rgb, log_ratio = photo_with_a_piece(camera, (3, 2), BASE_MM[2] / PITCH_MM)
    edges = edge_tensor(rgb, (0, 0, 640, 400))
    reading = CityReading(None, camera, PITCH_MM, PITCH_MM, pieces, np.zeros(3), edge_scale=PITCH_MM)
    read = as_whole_set(reading, PROFILE, edges, log_ratio)
    added = read.pieces[-1]
    assert (added.col, added.row, added.color_index, added.size, added.level) == (3, 2, BLACK, 2, 0)
    assert added.confidence < PROFILE.max_uncertain_confidence and set(kinds(read).values()) == {3}
    assert "1 marked piece changed to fit it" in read.warnings[0]
    assert as_whole_set(reading, PROFILE) is reading

    beside = first(pieces, RED, 2)  # a red medium moved beside the cell: no medium may stand there
    pieces[beside] = dataclasses.replace(pieces[beside], col=3, row=1)
    read = as_whole_set(dataclasses.replace(reading, pieces=pieces), PROFILE, edges, log_ratio)
    assert not any((p.col, p.row) == (3, 2) for p in read.pieces)


def test_a_large_missed_may_stand_beside_a_large_where_canadian_style_lets_larges_touch():
    """A black large missing from a whole set stands in the photo on an empty cell beside a
    red large: the rules in most games forbid it there, so it is not read; where Canadian
    Style lets larges touch, it is read there, flagged."""
    camera = camera_over_the_block()
    pieces = whole_set()
    del pieces[first(pieces, BLACK, 3)]
    beside = first(pieces, RED, 3)
    pieces[beside] = dataclasses.replace(pieces[beside], col=3, row=1)
    pieces = [dataclasses.replace(p, outline=outline(camera, np.array([p.col, p.row], np.float64), p.size, PITCH_MM))
              for p in pieces]
    rgb, log_ratio = photo_with_a_piece(camera, (3, 2), BASE_MM[3] / PITCH_MM)
    edges = edge_tensor(rgb, (0, 0, 640, 400))
    reading = CityReading(None, camera, PITCH_MM, PITCH_MM, pieces, np.zeros(3), edge_scale=PITCH_MM)
    assert not any((p.col, p.row) == (3, 2) for p in as_whole_set(reading, PROFILE, edges, log_ratio).pieces)
    added = as_whole_set(reading, PROFILE, edges, log_ratio, larges_touch=True).pieces[-1]
    assert (added.col, added.row, added.color_index, added.size, added.level) == (3, 2, BLACK, 3, 0)
    assert added.confidence < PROFILE.max_uncertain_confidence


def photo_of_the_set(camera: Camera, pieces: list[Reading], stacked_under: Reading,
                     lower_size: int) -> tuple[np.ndarray, np.ndarray]:
    """A 1100 x 620 photo of a plain table with ``pieces`` on it, a black piece of
    ``lower_size`` drawn under ``stacked_under`` (one of them, resting at its seat), a little
    sensor noise, and its log ratio to the table (float32 (620, 1100, 3))."""
    table = np.array([150, 140, 120])
    rgb = np.empty((620, 1100, 3), np.uint8)
    rgb[:] = table
    for p in pieces:
        lift = 0.0
        if p is stacked_under:
            draw_pyramid(rgb, camera, np.array([p.col, p.row], np.float64), BASE_MM[lower_size] / PITCH_MM, 0.0,
                         DRAWN["black"])
            lift = seat_height_mm(lower_size, p.size) / PITCH_MM
        draw_pyramid(rgb, camera, np.array([p.col, p.row], np.float64), BASE_MM[p.size] / PITCH_MM, 0.0,
                     DRAWN[COLOR_ORDER[p.color_index]], lift)
    rgb = np.clip(rgb + np.random.default_rng(5).normal(0, 2.0, rgb.shape), 0, 255).astype(np.uint8)
    return rgb, np.log((rgb + 1.0) / (table + 1.0)).astype(np.float32)


def test_one_short_whose_missing_piece_rings_a_smaller_one_is_read_under_it():
    """A black large missing from a whole set, every black piece sure, stands in the photo
    under a red medium read alone, its ring round the medium: of the pieces it may stand
    under, that is the one round which both its ring and its base's edges show most, so the
    medium is read as the upper of a stack on a black large, both flagged. Without the
    photo's log ratio nothing is added; with a large beside the cell, the rules forbid a large
    there, and none is put under the medium."""
    camera = camera_over_the_block(60.0, size=(1100, 620))
    pieces = whole_set()
    del pieces[first(pieces, BLACK, 3)]
    pieces = [dataclasses.replace(p, outline=outline(camera, np.array([p.col, p.row], np.float64), p.size, PITCH_MM))
              for p in pieces]
    upper = pieces[first(pieces, RED, 2)]
    rgb, log_ratio = photo_of_the_set(camera, pieces, upper, 3)
    edges = edge_tensor(rgb, (0, 0, 1100, 620))
    reading = CityReading(None, camera, PITCH_MM, PITCH_MM, pieces, np.zeros(3), edge_scale=PITCH_MM)
    read = as_whole_set(reading, PROFILE, edges, log_ratio, log_ratio=log_ratio)
    stack = sorted((p.level, p.color_index, p.size) for p in read.pieces if (p.col, p.row) == (upper.col, upper.row))
    assert stack == [(0, BLACK, 3), (1, RED, 2)] and set(kinds(read).values()) == {3}
    assert all(p.confidence < PROFILE.max_uncertain_confidence
               for p in read.pieces if (p.col, p.row) == (upper.col, upper.row))
    assert as_whole_set(reading, PROFILE, edges, log_ratio) is reading

    beside = first(pieces, BLUE, 3)  # a blue large moved beside the medium: no large may stand there
    pieces[beside] = dataclasses.replace(pieces[beside], col=upper.col + 1, row=upper.row)
    read = as_whole_set(dataclasses.replace(reading, pieces=pieces), PROFILE, edges, log_ratio, log_ratio=log_ratio)
    assert sum((p.col, p.row) == (upper.col, upper.row) for p in read.pieces) == 1
