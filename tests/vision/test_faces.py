"""Stacks told by the faces of their lower pieces, on small drawn photos."""
import dataclasses

import cv2
import numpy as np
import pytest

from calibration import load_profile
from calibration.profile import BLACK, COLOR_ORDER
from vision.cells import CityReading, Reading
from vision.edge_fit import edge_tensor, fit_poses
from vision.faces import add_face_stacks, add_ring_stacks, face_contrast
from vision.model import BASE_MM, HEIGHT_MM, outline, seat_height_mm
from vision.second_look import PhotoColours
from vision.verify import piece_poses
from tests.vision.pyramids import draw_pyramid
from tests.vision.test_edge_fit import TABLE, tilted_camera

PITCH_MM = 36.0  # millimetres a grid unit, in these photos
RED, DEEP_RED, BLUE = (200, 40, 40), (150, 20, 25), (40, 60, 200)
GLOSSY_BLACK, RED_ON_BLACK = (34, 34, 36), (46, 30, 30)  # a red tint lit through, on black
DIM_TABLE = (75, 72, 80)  # RGB, a dark plain table a little brighter than glossy black, of nearly its tint
DRAWN = {"red": RED, "yellow": (210, 190, 40), "green": (40, 170, 60), "blue": BLUE, "black": GLOSSY_BLACK}


def photo_of(camera, pieces, seed=0, shape=(360, 480), table=TABLE):
    """A photo of ``shape`` (rows, columns; 480 x 360 unless given) of ``pieces`` ((cell
    (col, row), [(size, colour), ...] from the table up) on a plain ``table`` (RGB) with a
    little sensor noise; an upper piece rests at its seat."""
    rgb = np.zeros((*shape, 3), np.uint8)
    rgb[:] = table
    for cell, stack in pieces:
        lower = stack[0][0]
        for level, (size, colour) in enumerate(stack):
            lift = seat_height_mm(lower, size) / PITCH_MM if level else 0.0
            draw_pyramid(rgb, camera, cell, BASE_MM[size] / PITCH_MM, 0.0, colour, lift)
    noise = np.random.default_rng(seed).normal(0, 2.0, rgb.shape)
    return np.clip(rgb + noise, 0, 255).astype(np.uint8)


def glinting(rgb, seed=1):
    """``rgb`` brightened and darkened pixel by pixel, alike in every channel, as glints and
    reflections on glossy faces are: a grey factor, log-normal with spread 0.35."""
    shine = np.exp(np.random.default_rng(seed).normal(0, 0.35, rgb.shape[:2]))[..., None]
    return np.clip(rgb * shine, 0, 255).astype(np.uint8)


def log_ratio_of(rgb, table=TABLE):
    """The photo's log ratio to the plain ``table`` (RGB), float32 (H, W, 3)."""
    return (np.log(rgb.astype(np.float32) + 8) - np.log(np.float32(table) + 8)).astype(np.float32)


def reading_of(camera, pieces):
    """A reading of ``pieces`` ((cell, size, colour index) each, all on the table)."""
    readings = [Reading(col, row, colour, size, 0, 1.0, (0.0, 0.0), np.zeros((4, 2))) for (col, row), size, colour in pieces]
    return CityReading(None, camera, PITCH_MM, PITCH_MM, readings, np.zeros(3), edge_scale=PITCH_MM)


def nearest_colour(feature):
    """Colour index 0 (red) or 3 (blue): whichever ``feature`` (a mean log ratio) is nearer."""
    red, blue = (log_ratio_of(np.array([[c]], np.uint8))[0, 0] for c in (RED, BLUE))
    return 0 if np.linalg.norm(feature - red) <= np.linalg.norm(feature - blue) else 3


def drawn_colours(table=TABLE):
    """The :class:`PhotoColours` of a photo on the plain ``table`` (RGB), the expected
    colours those drawn."""
    expected = np.array([log_ratio_of(np.array([[DRAWN[name]]], np.uint8), table)[0, 0] for name in COLOR_ORDER])
    return PhotoColours(expected, np.zeros(3), np.zeros(3), 0.0, False, load_profile().piece_colors)


def contrasts(tilt, pieces, lower, upper, shine=lambda rgb: rgb):
    """The :func:`face_contrast` at cells (0, 0) and (2, 0) of a photo of ``pieces`` (as for
    :func:`photo_of`, then passed through ``shine``) taken ``tilt`` degrees from straight
    down, across the seat of an ``upper`` size on a ``lower`` one, the outlines laid on the
    edges at the ``lower`` size."""
    camera = tilted_camera(tilt)
    rgb = shine(photo_of(camera, pieces))
    edges = edge_tensor(rgb, (0, 0, 480, 360))
    poses = fit_poses(edges, camera, np.array([[0, 0], [2, 0]]), np.full(2, BASE_MM[lower] / PITCH_MM))
    seat = seat_height_mm(lower, upper) / HEIGHT_MM[lower]
    return [face_contrast(log_ratio_of(rgb), camera, cell, pose, seat) for cell, pose in zip(((0, 0), (2, 0)), poses)]


@pytest.mark.parametrize("tilt", [0.0, 20.0])
@pytest.mark.parametrize("upper_colour", [DEEP_RED, BLUE])
def test_the_faces_of_a_stack_differ_across_its_seat_and_a_single_piece_s_do_not(tilt, upper_colour):
    """A medium resting on a large piece, of a deeper shade of the same colour (two layers of
    tinted plastic) or of another colour: the large piece's faces differ across the seat
    by well over the default threshold; a large piece alone, by well under it."""
    threshold = load_profile().stack_face_contrast
    stack, single = contrasts(tilt, [((0, 0), [(3, RED), (2, upper_colour)]), ((2, 0), [(3, RED)])], 3, 2)
    assert stack.difference > 2 * threshold
    assert single.difference < threshold / 2


def test_a_stack_whose_far_face_is_seen_edge_on_is_told_by_the_faces_seen_well():
    """Seen 14 degrees from straight down, a large piece's far face is a sliver a few pixels
    wide, and in a photo as soft as a phone's its two bands blur into the faces and the
    table round it: there a blue medium resting on a red large hardly shows. That face's
    difference counts for as little as its share of the pixels; a large piece alone still
    differs by well under the threshold."""
    threshold = load_profile().stack_face_contrast
    stack, single = contrasts(14.0, [((0, 0), [(3, RED), (2, BLUE)]), ((2, 0), [(3, RED)])], 3, 2,
                              lambda rgb: cv2.GaussianBlur(rgb, (0, 0), 1.2))
    assert stack.difference > threshold
    assert single.difference < threshold / 2


@pytest.mark.parametrize("tilt", [0.0, 20.0])
def test_a_tint_on_a_glossy_black_piece_differs_across_its_seat_in_chroma_alone(tilt):
    """A red medium on a black large, lit through onto black so hardly brighter than it,
    with glints over both: the faces differ across the seat by less than the threshold
    overall, but in chroma by well over the tint threshold; a black large alone, by well
    under it."""
    profile = load_profile()
    stack, single = contrasts(tilt, [((0, 0), [(3, GLOSSY_BLACK), (2, RED_ON_BLACK)]), ((2, 0), [(3, GLOSSY_BLACK)])],
                              3, 2, glinting)
    assert stack.difference < profile.stack_face_contrast
    assert stack.tint_difference > 2 * profile.stack_tint_contrast
    assert single.tint_difference < profile.stack_tint_contrast / 2


def test_a_tinted_piece_on_a_black_one_is_read_as_a_stack_of_its_tint_on_black():
    """Of two black larges read alone, under glints, the one carrying a red medium becomes a
    stack of a red medium on a black large (the red read from the change across the seat,
    though the band above it is nearer black than red); the other stays as it was. The tint
    is looked for on black pieces only: the same photo with both read as blue (whose faces
    a tint seen through can colour) reads no stack."""
    camera = tilted_camera(15.0)
    rgb = glinting(photo_of(camera, [((0, 0), [(3, GLOSSY_BLACK), (2, RED_ON_BLACK)]), ((2, 0), [(3, GLOSSY_BLACK)])]))
    colours = drawn_colours()

    def read_as(colour):
        reading = reading_of(camera, [((0, 0), 3, colour), ((2, 0), 3, colour)])
        poses = piece_poses(reading, edge_tensor(rgb, (0, 0, 480, 360)))
        found = add_face_stacks(reading, log_ratio_of(rgb), poses, lambda f: colours.color(f, np.zeros(5, bool)),
                                colours.tint, load_profile())
        return sorted((p.col, p.row, p.size, p.level, p.color_index) for p in found.pieces)

    red, blue = COLOR_ORDER.index("red"), COLOR_ORDER.index("blue")
    assert read_as(BLACK) == [(0, 0, 2, 1, red), (0, 0, 3, 0, BLACK), (2, 0, 3, 0, BLACK)]
    assert read_as(blue) == [(0, 0, 3, 0, blue), (2, 0, 3, 0, blue)]


def test_a_stack_is_added_where_the_faces_differ_with_each_piece_s_colour():
    """Of two large red pieces read alone, the one carrying a blue medium becomes a stack: a
    red large with a blue medium on top; the other stays as it was."""
    camera = tilted_camera(15.0)
    rgb = photo_of(camera, [((0, 0), [(3, RED), (2, BLUE)]), ((2, 0), [(3, RED)])])
    reading = reading_of(camera, [((0, 0), 3, 0), ((2, 0), 3, 0)])
    found = add_face_stacks(reading, log_ratio_of(rgb), piece_poses(reading, edge_tensor(rgb, (0, 0, 480, 360))),
                            nearest_colour, nearest_colour, load_profile())
    assert sorted((p.col, p.row, p.size, p.level, p.color_index) for p in found.pieces) == [
        (0, 0, 2, 1, 3), (0, 0, 3, 0, 0), (2, 0, 3, 0, 0)]
    assert all(0.0 <= p.confidence <= 1.0 for p in found.pieces)


def test_no_stack_is_read_whose_upper_piece_would_break_the_rules():
    """A blue small on a red medium, with a small piece on the next cell: a small on top
    would stand next to it, which the rules forbid, and only a small fits on a medium."""
    camera = tilted_camera(15.0)
    rgb = photo_of(camera, [((0, 0), [(2, RED), (1, BLUE)]), ((1, 0), [(1, RED)])])
    reading = reading_of(camera, [((0, 0), 2, 0), ((1, 0), 1, 0)])
    found = add_face_stacks(reading, log_ratio_of(rgb), piece_poses(reading, edge_tensor(rgb, (0, 0, 480, 360))),
                            nearest_colour, nearest_colour, load_profile())
    assert [p.level for p in found.pieces] == [0, 0]


@pytest.mark.parametrize("tilt", [0.0, 15.0, 25.0])
def test_only_a_piece_under_the_seat_stands_out_from_the_table_beside_it(tilt):
    """Below the seat, a medium's faces stand out from the table beside its base by well
    over the threshold; an outline of a medium laid over a small piece (read a size too
    large) has the table there too, and stands out by under it."""
    threshold = load_profile().stack_face_contrast
    medium, small = contrasts(tilt, [((0, 0), [(2, RED)]), ((2, 0), [(1, RED)])], 2, 1)
    assert medium.standing_out > 2 * threshold
    assert small.standing_out < threshold


def test_a_piece_whose_faces_differ_too_little_to_read_a_stack_is_flagged():
    """Where a large piece's faces differ across a seat by more than the doubt threshold but
    less than the stack threshold, it stays one piece but is flagged for the player to
    check; a large piece alone is not."""
    camera = tilted_camera(15.0)
    rgb = photo_of(camera, [((0, 0), [(3, RED), (2, DEEP_RED)]), ((2, 0), [(3, RED)])])
    reading = reading_of(camera, [((0, 0), 3, 0), ((2, 0), 3, 0)])
    profile = dataclasses.replace(load_profile(), stack_face_doubt=load_profile().stack_face_contrast,
                                  stack_face_contrast=100.0)
    found = add_face_stacks(reading, log_ratio_of(rgb), piece_poses(reading, edge_tensor(rgb, (0, 0, 480, 360))),
                            nearest_colour, nearest_colour, profile)
    assert [(p.col, p.level, p.confidence < profile.max_uncertain_confidence) for p in found.pieces] == [
        (0, 0, True), (2, 0, False)]


def test_a_black_piece_on_a_tinted_one_read_black_is_read_as_black_on_its_tint():
    """A black medium on a green large, the whole read as a black large (the black upper
    filled its candidates): where only the band above the seat reads black, the black piece
    is the upper one and the lower is the colour below. The overall test is switched off,
    so the tint alone tells the stack."""
    camera = tilted_camera(15.0)
    rgb = glinting(photo_of(camera, [((0, 0), [(3, DRAWN["green"]), (2, GLOSSY_BLACK)])]))
    colours = drawn_colours()
    reading = reading_of(camera, [((0, 0), 3, BLACK)])
    profile = dataclasses.replace(load_profile(), stack_face_contrast=100.0)
    found = add_face_stacks(reading, log_ratio_of(rgb), piece_poses(reading, edge_tensor(rgb, (0, 0, 480, 360))),
                            lambda f: colours.color(f, np.zeros(5, bool)), colours.tint, profile)
    green = COLOR_ORDER.index("green")
    assert sorted((p.size, p.level, p.color_index) for p in found.pieces) == [(2, 1, BLACK), (3, 0, green)]


def faces_read_one_colour(lower, upper, colour):
    """The pieces (size, level, colour index) :func:`add_face_stacks` reads on cell (0, 0)
    of a photo of a medium of RGB ``upper`` on a large of RGB ``lower``, read as one large
    of colour index ``colour`` whose bands, below and above the seat, both read that colour
    too; a colour read from the change across the seat is its tint (:class:`PhotoColours`)."""
    camera = tilted_camera(15.0)
    rgb = photo_of(camera, [((0, 0), [(3, lower), (2, upper)])])
    reading = reading_of(camera, [((0, 0), 3, colour)])
    found = add_face_stacks(reading, log_ratio_of(rgb), piece_poses(reading, edge_tensor(rgb, (0, 0, 480, 360))),
                            lambda feature: colour, drawn_colours().tint, load_profile())
    return sorted((p.size, p.level, p.color_index) for p in found.pieces)


def test_a_stack_whose_bands_read_one_colour_is_of_one_colour_where_the_change_deepens_its_tint():
    """A deeper red medium on a red large (two layers of red plastic) is a red stack."""
    red = COLOR_ORDER.index("red")
    assert faces_read_one_colour(RED, DEEP_RED, red) == [(2, 1, red), (3, 0, red)]


def test_a_stack_whose_bands_read_one_colour_is_of_the_change_s_tint_where_it_turns_from_the_lower_s():
    """A blue medium on a red large, both bands read red (the blue seen through red): the
    change across the seat points away from red, so the upper is the tint of the change."""
    red, blue = COLOR_ORDER.index("red"), COLOR_ORDER.index("blue")
    assert faces_read_one_colour(RED, BLUE, red) == [(2, 1, blue), (3, 0, red)]


def test_a_change_from_the_lower_s_tint_with_too_little_hue_reads_no_stack_but_is_flagged():
    """A paler red medium on a red large (as a reflection pales a piece's upper part): the
    faces differ overall, but the change points away from red with a hue under the tint
    threshold (set above it here), so no stack is read; the piece is flagged for checking.
    With the threshold under it, the change's tint is read as the upper."""
    camera, red = tilted_camera(15.0), COLOR_ORDER.index("red")
    rgb = photo_of(camera, [((0, 0), [(3, RED), (2, (200, 60, 60))])])
    reading = reading_of(camera, [((0, 0), 3, red)])
    poses = piece_poses(reading, edge_tensor(rgb, (0, 0, 480, 360)))
    contrast = face_contrast(log_ratio_of(rgb), camera, (0, 0), poses[0, 0, 3], seat_height_mm(3, 2) / HEIGHT_MM[3])
    base = dataclasses.replace(load_profile(), stack_face_contrast=contrast.difference / 2)

    def read_with(tint_contrast):
        profile = dataclasses.replace(base, stack_tint_contrast=tint_contrast)
        found = add_face_stacks(reading, log_ratio_of(rgb), poses, lambda feature: red, drawn_colours().tint, profile)
        return [(p.size, p.level, p.confidence < profile.max_uncertain_confidence) for p in found.pieces]

    assert read_with(2 * contrast.tint_difference) == [(3, 0, True)]
    assert len(read_with(contrast.tint_difference / 2)) == 2


def ring_stacks(reading, rgb, poses, larges_touch=False, table=TABLE, outline_edges=None):
    """:func:`add_ring_stacks` on the ``reading`` of ``rgb`` (on ``table``), its colours
    read as drawn."""
    colours = drawn_colours(table)
    return add_ring_stacks(reading, log_ratio_of(rgb, table), poses, lambda f: colours.color(f, np.zeros(5, bool)),
                           colours.tint, load_profile(), larges_touch, outline_edges)


def ringed(camera, halo=None):
    """A photo of a yellow medium resting on a blue large at cell (0, 0) and a yellow medium
    alone at (2, 0), the single one ringed by ``halo`` (an RGB colour, a band as wide as a
    large base's reaches past a medium's) where given."""
    yellow = DRAWN["yellow"]
    rgb = photo_of(camera, [((0, 0), [(3, BLUE), (2, yellow)])])
    if halo is not None:
        draw_pyramid(rgb, camera, (2, 0), BASE_MM[3] / PITCH_MM, 0.0, halo, 0.0)
    draw_pyramid(rgb, camera, (2, 0), BASE_MM[2] / PITCH_MM, 0.0, yellow, 0.0)
    return rgb


@pytest.mark.parametrize("tilt", [0.0, 20.0])
@pytest.mark.parametrize("halo", [None, (70, 70, 70), (160, 120, 10)])
def test_a_piece_ringed_by_a_larger_one_of_another_tint_is_read_as_the_upper_of_a_stack(tilt, halo):
    """Of two yellow mediums read alone, the one resting on a blue large, whose ring shows
    round it, becomes a stack of a yellow medium on a blue large; the other stays as it was,
    alone or ringed by a grey shadow or by a deeper yellow (the light its own plastic casts:
    a ring of the piece's own tint is no other piece)."""
    camera = tilted_camera(tilt)
    rgb = ringed(camera, halo)
    yellow, blue = COLOR_ORDER.index("yellow"), COLOR_ORDER.index("blue")
    reading = reading_of(camera, [((0, 0), 2, yellow), ((2, 0), 2, yellow)])
    poses = piece_poses(reading, edge_tensor(rgb, (0, 0, 480, 360)))
    found = ring_stacks(reading, rgb, poses)
    assert sorted((p.col, p.row, p.size, p.level, p.color_index) for p in found.pieces) == [
        (0, 0, 2, 1, yellow), (0, 0, 3, 0, blue), (2, 0, 2, 0, yellow)]


@pytest.mark.parametrize("tilt", [0.0, 20.0])
def test_a_piece_read_of_its_ring_s_colour_is_read_as_the_upper_of_another_colour_its_band_shows(tilt):
    """A blue medium on a green large, the blue seen through the green as a teal, and the
    medium read as green (the two tints mixed): the green ring round it is another piece,
    and the medium is read as the colour of what is seen above the seat, blue."""
    camera = tilted_camera(tilt)
    rgb = photo_of(camera, [((0, 0), [(3, DRAWN["green"]), (2, (40, 110, 180))])])
    green, blue = COLOR_ORDER.index("green"), COLOR_ORDER.index("blue")
    reading = reading_of(camera, [((0, 0), 2, green)])
    found = ring_stacks(reading, rgb, piece_poses(reading, edge_tensor(rgb, (0, 0, 480, 360))))
    assert [(p.size, p.level, p.color_index) for p in found.pieces] == [(3, 0, green), (2, 1, blue)]


@pytest.mark.parametrize("tilt", [0.0, 20.0])
def test_a_black_piece_ringed_by_a_larger_tinted_one_is_read_as_the_upper_of_a_stack(tilt):
    """A black medium on a yellow large, read as the black medium alone: the yellow ring
    round it is the lower piece, as round a tinted upper."""
    camera = tilted_camera(tilt)
    rgb = photo_of(camera, [((0, 0), [(3, DRAWN["yellow"]), (2, GLOSSY_BLACK)])])
    yellow = COLOR_ORDER.index("yellow")
    reading = reading_of(camera, [((0, 0), 2, BLACK)])
    found = ring_stacks(reading, rgb, piece_poses(reading, edge_tensor(rgb, (0, 0, 480, 360))))
    assert [(p.size, p.level, p.color_index) for p in found.pieces] == [(3, 0, yellow), (2, 1, BLACK)]


@pytest.mark.parametrize("larges_touch", [False, True])
def test_a_large_lower_beside_a_large_is_read_only_where_larges_may_touch(larges_touch):
    """A yellow medium on a blue large, a green large on the next cell: two larges side by
    side break the rules unless Canadian Style is in play, so only then is the ring round
    the medium read as a large lower piece."""
    camera = tilted_camera(0.0)
    rgb = photo_of(camera, [((0, 0), [(3, BLUE), (2, DRAWN["yellow"])]), ((1, 0), [(3, DRAWN["green"])])])
    yellow, green, blue = (COLOR_ORDER.index(name) for name in ("yellow", "green", "blue"))
    reading = reading_of(camera, [((0, 0), 2, yellow), ((1, 0), 3, green)])
    found = ring_stacks(reading, rgb, piece_poses(reading, edge_tensor(rgb, (0, 0, 480, 360))), larges_touch)
    expected = [(2, 1, yellow), (3, 0, blue)] if larges_touch else [(2, 0, yellow)]
    assert sorted((p.size, p.level, p.color_index) for p in found.pieces if p.col == 0) == expected


@pytest.mark.parametrize("tilt", [0.0, 20.0])
def test_another_tint_beside_two_sides_of_a_piece_is_no_ring(tilt):
    """A pyramid resting on another is centred on it by their shapes, so the lower's ring
    shows all round. A yellow medium with a blue large's worth of blue beside two of its
    sides only (its corner on the medium's: the blue light a blue piece casts, say) stays one
    piece."""
    camera = tilted_camera(tilt)
    rgb = photo_of(camera, [])
    reach = (BASE_MM[3] - BASE_MM[2]) / 2 / PITCH_MM
    draw_pyramid(rgb, camera, (2 + reach, reach), BASE_MM[3] / PITCH_MM, 0.0, BLUE, 0.0)
    draw_pyramid(rgb, camera, (2, 0), BASE_MM[2] / PITCH_MM, 0.0, DRAWN["yellow"], 0.0)
    yellow = COLOR_ORDER.index("yellow")
    reading = reading_of(camera, [((2, 0), 2, yellow)])
    poses = piece_poses(reading, edge_tensor(rgb, (0, 0, 480, 360)))
    found = ring_stacks(reading, rgb, poses)
    assert [(p.size, p.level, p.color_index) for p in found.pieces] == [(2, 0, yellow)]


@pytest.mark.parametrize("turn, stacked", [(0.0, True), (15.0, False)])
def test_a_ring_is_read_only_where_three_faces_show_it(turn, stacked):
    """A yellow medium on a blue large two cells aside from the middle of a photo taken 20
    degrees from straight down: square to the grid, three of the large piece's faces show
    round the medium, and the stack is read; turned 15 degrees, only two do, as another tint
    beside two sides of a piece does (a glint, a neighbour's light), and the medium is left
    as read."""
    camera = tilted_camera(20.0)
    rgb = photo_of(camera, [])
    seat = seat_height_mm(3, 2) / PITCH_MM
    draw_pyramid(rgb, camera, (3, 0), BASE_MM[3] / PITCH_MM, turn, BLUE, 0.0)
    draw_pyramid(rgb, camera, (3, 0), BASE_MM[2] / PITCH_MM, turn, DRAWN["yellow"], seat)
    yellow, blue = COLOR_ORDER.index("yellow"), COLOR_ORDER.index("blue")
    reading = reading_of(camera, [((3, 0), 2, yellow)])
    poses = piece_poses(reading, edge_tensor(rgb, (0, 0, 480, 360)))
    found = ring_stacks(reading, rgb, poses)
    expected = [(3, 0, blue), (2, 1, yellow)] if stacked else [(2, 0, yellow)]
    assert [(p.size, p.level, p.color_index) for p in found.pieces] == expected


@pytest.mark.parametrize("tilt", [0.0, 20.0])
@pytest.mark.parametrize("with_edges", [False, True])
def test_a_black_lower_piece_matching_a_dim_table_is_read_by_its_straight_outline(tilt, with_edges):
    """On a dim table, a red medium on a glossy black large whose ring round it has no tint
    to tell it from the table: given the photo's edges, the large's sides are straight edges
    centred on the medium, and the stack is read, flagged. A red medium alone with a black
    large's worth of black beside two of its sides (their corners together: a shadow, say)
    lies off its centre and stays one piece. Without the edges, neither is a stack."""
    camera = tilted_camera(tilt)
    rgb = photo_of(camera, [((0, 0), [(3, GLOSSY_BLACK), (2, RED)])], table=DIM_TABLE)
    reach = (BASE_MM[3] - BASE_MM[2]) / 2 / PITCH_MM
    draw_pyramid(rgb, camera, (2 + reach, reach), BASE_MM[3] / PITCH_MM, 0.0, GLOSSY_BLACK, 0.0)
    draw_pyramid(rgb, camera, (2, 0), BASE_MM[2] / PITCH_MM, 0.0, RED, 0.0)
    red = COLOR_ORDER.index("red")
    reading = reading_of(camera, [((0, 0), 2, red), ((2, 0), 2, red)])
    reading = dataclasses.replace(reading, pieces=[  # what the pieces read explain of the photo is left out
        dataclasses.replace(p, outline=outline(camera, np.array([p.col, p.row], float), 2, PITCH_MM))
        for p in reading.pieces])
    edges = edge_tensor(rgb, (0, 0, 480, 360))
    found = ring_stacks(reading, rgb, piece_poses(reading, edges), table=DIM_TABLE,
                        outline_edges=edges if with_edges else None)
    stacked = [(0, 0, 2, 1, red, 0.5), (0, 0, 3, 0, BLACK, 0.5)] if with_edges else [(0, 0, 2, 0, red, 1.0)]
    assert sorted((p.col, p.row, p.size, p.level, p.color_index, p.confidence) for p in found.pieces) == [
        *stacked, (2, 0, 2, 0, red, 1.0)]
