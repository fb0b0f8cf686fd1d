"""The second look at the cells beside a reading: a piece the first pass missed is found where
the grid says it would stand (a faint one on a plain table, one standing out a little from a
print, one of the print's colour by its straight sides, a black one by its edges on a dim
table), sized with the rules and its edges, a piece placed apart from the city is read on
its cell, and a card, a shadow, a print or a thing off the grid is not a piece."""
import dataclasses

import cv2
import numpy as np
import pytest

from calibration.profile import COLOR_ORDER
from tests.vision.pyramids import draw_pyramid
from tests.vision.test_verify import (BRIGHT, DIM, LEVEL, PITCH_MM, PITCH_PX, PROFILE, SIZE, blobs_of, looks, scene,
                                      straight_down_reading)
from vision.edge_fit import edge_tensor
from vision.model import BASE_MM, HEIGHT_PER_SIDE, outline, pyramid_corners
from vision.pieces import Blob
from vision.second_look import relative_edges
from vision.verify import check_reading


def test_a_piece_missed_beside_the_city_is_found_with_its_size_and_colour():
    reading = straight_down_reading([(0, 0, "red", 3), (1, 0, "yellow", 2), (1, 1, "green", 1)])
    strength, log_ratio = scene(reading, hidden=[(2, 1, "blue", 3), (3, 1, "black", 1)])
    found = check_reading(reading, strength, log_ratio, blobs_of(reading), True, DIM, PROFILE)
    added = {(p.col, p.row): (COLOR_ORDER[p.color_index], p.size) for p in found.pieces[3:]}
    assert added == {(2, 1): ("blue", 3), (3, 1): ("black", 1)}  # the second beside the first


def test_a_piece_found_on_a_second_look_is_read_by_the_piece_model_on_a_plain_table():
    """On a warm dark table, black reads bluish against the table: the nearest pixel-model
    colour is blue; the piece colour model, which read the candidates, says black. On a
    print the nearest pixel-model colour stands."""
    warm_dark = (np.array([0.15, 0.0, -0.15]), float(np.log(40.0)))
    reading = straight_down_reading([(0, 0, "red", 3), (1, 0, "yellow", 2), (1, 1, "green", 1)])
    strength, log_ratio = scene(reading, hidden=[(2, 1, "black", 3)], table=warm_dark)
    for plain, color in ((True, "black"), (False, "blue")):
        found = check_reading(reading, strength, log_ratio, blobs_of(reading, warm_dark), plain, BRIGHT, PROFILE)
        assert [(p.col, p.row, COLOR_ORDER[p.color_index]) for p in found.pieces[3:]] == [(2, 1, color)], plain


def test_a_card_or_a_shadow_beside_the_city_is_not_a_piece():
    reading = straight_down_reading([(0, 0, "red", 3), (1, 0, "yellow", 2)])
    card = np.array([[320, 100], [420, 100], [420, 240], [320, 240]], np.float64)  # over cells (2, 0) and (3, 0)
    shadow = np.array([[200, 200], [228, 200], [206, 262]], np.float64)  # a thin wedge into cell (0, 1)
    strength, log_ratio = scene(reading, hidden=[], extra=[card, shadow])
    found = check_reading(reading, strength, log_ratio, blobs_of(reading), True, DIM, PROFILE)
    assert len(found.pieces) == 2


def faint_scene(reading, size=2, mottled=False):
    """A reading's scene, with sensor noise, plus a black pyramid of ``size`` on cell
    (2, 0) that matches the table estimate within 12%, under the threshold of any pixel
    test: the lamp's sheen round it (a disc of 10% brighter table, narrower than the table
    estimate's blur) is 22% brighter than it, all round its outline. If ``mottled``, its
    soft shadow lies just round it, mottled."""
    rng = np.random.default_rng(7)
    _, log_ratio = scene(reading, hidden=[])
    log_ratio += rng.normal(0, 0.01, log_ratio.shape).astype(np.float32)
    centre = np.round(reading.camera.project(np.array([[2.0, 0.0, 0.0]]))[0]).astype(int)
    sheen = np.zeros(log_ratio.shape[:2], np.uint8)
    cv2.circle(sheen, tuple(map(int, centre)), int(PITCH_PX), 1, -1)
    log_ratio[sheen > 0] += 0.1
    piece = np.zeros(log_ratio.shape[:2], np.uint8)
    cv2.fillConvexPoly(piece, np.round(outline(reading.camera, np.array([2.0, 0.0]), size, PITCH_MM)).astype(np.int32), 1)
    if mottled:
        edge = cv2.dilate(piece, np.ones((9, 9), np.uint8)) - piece
        log_ratio[edge > 0] += rng.normal(0, 0.08, (int(edge.sum()), 3)).astype(np.float32)
    log_ratio[piece > 0] = -0.12 + rng.normal(0, 0.01, (int(piece.sum()), 3)).astype(np.float32)
    return np.abs(log_ratio).max(axis=2), log_ratio


def test_a_faint_piece_is_found_on_a_plain_table_but_not_on_a_print_that_varies_as_much():
    """A black pyramid under the lamp on a dark table (here too bright for the edge test,
    so that only the faint test can find it): all over its outline it differs from the
    table right round it. On a print that stands out from its own palette by as much here
    and there, it is the print."""
    reading = straight_down_reading([(0, 0, "red", 3), (1, 0, "yellow", 1)])
    strength, log_ratio = faint_scene(reading)
    blobs = blobs_of(reading)
    found = check_reading(reading, strength, log_ratio, blobs, True, BRIGHT, PROFILE)
    assert flagged_additions(found, 2) == [(2, 0, "black", 2, True)]
    printed = strength + np.abs(np.random.default_rng(3).normal(0, 0.15, strength.shape)).astype(np.float32)
    assert len(check_reading(reading, printed, log_ratio, blobs, False, BRIGHT, PROFILE).pieces) == 2


def test_a_faint_piece_with_a_mottled_edge_is_read_at_its_own_size():
    """Just round a faint piece lies its soft shadow, mottled: the ring of its own outline
    is noisy, that of the next size up is clean, and the next size's inside still looks
    like the piece. The smallest size that differs nearly as much as any is its size."""
    reading = straight_down_reading([(0, 0, "red", 3), (1, 0, "yellow", 2)])
    strength, log_ratio = faint_scene(reading, size=1, mottled=True)
    found = check_reading(reading, strength, log_ratio, blobs_of(reading), True, BRIGHT, PROFILE)
    assert flagged_additions(found, 2) == [(2, 0, "black", 1, True)]


def test_a_piece_found_on_a_second_look_yields_its_size_to_the_rules():
    """A faint black pyramid measured as a medium beside a medium: its faint contrast tells
    its size less surely than the rule against two same-size neighbours, so it is read at
    another size; the clear medium beside it keeps its size."""
    reading = straight_down_reading([(0, 0, "red", 3), (1, 0, "yellow", 2)])
    strength, log_ratio = faint_scene(reading)
    found = check_reading(reading, strength, log_ratio, blobs_of(reading), True, BRIGHT, PROFILE)
    assert [(p.col, p.row, p.size) for p in found.pieces[:2]] == [(0, 0, 3), (1, 0, 2)]
    (added,) = flagged_additions(found, 2)
    assert added[:3] == (2, 0, "black") and added[3] in (1, 3) and added[4]


def test_a_piece_found_on_a_second_look_is_sized_by_its_edges_too():
    """The faint black pyramid of the test above, measured as a medium beside a medium,
    whose outline on the photo's edges is a large's at the scale the pieces read first set:
    large it is read. Without the edges, the rules make it a small."""
    reading = dataclasses.replace(straight_down_reading([(0, 0, "red", 3), (1, 0, "yellow", 2)]), edge_scale=PITCH_MM)
    strength, log_ratio = faint_scene(reading)
    found = check_reading(reading, strength, log_ratio, blobs_of(reading), True, BRIGHT, PROFILE)
    assert flagged_additions(found, 2) == [(2, 0, "black", 1, True)]
    photo = np.full((SIZE[1], SIZE[0], 3), 60, np.uint8)
    draw_pyramid(photo, reading.camera, (2.0, 0.0), BASE_MM[3] / PITCH_MM, 0.0, (70, 70, 75))
    found = check_reading(reading, strength, log_ratio, blobs_of(reading), True, BRIGHT, PROFILE,
                          outline_edges=edge_tensor(photo, (0, 0) + SIZE))
    assert flagged_additions(found, 2) == [(2, 0, "black", 3, True)]


def striped_print(shape, rng):
    """float32 strength (``shape`` (H, W)) of a striped cloth: 2-pixel lines 20 pixels apart
    where its blurred colours stand out, the rest matching its palette up to grain."""
    strength = np.abs(rng.normal(0, 0.01, shape)).astype(np.float32)
    strength[:, ::20] += 0.4
    strength[:, 1::20] += 0.4
    return strength


def test_a_piece_that_stands_out_a_little_all_over_a_print_is_found_and_flagged():
    """A blue pyramid on a cloth with blue stripes: the blurred stripes give the palette
    colours near the piece's, so it stands out by only 0.12, under the second look's
    threshold, and the print's lines cross its cell. It stands out all over its outline,
    the print round it does not. The lines alone are no piece."""
    rng = np.random.default_rng(5)
    reading = straight_down_reading([(0, 0, "red", 3), (1, 0, "yellow", 2), (1, 1, "green", 1)])
    _, log_ratio = scene(reading, hidden=[(2, 1, "blue", 2)])
    strength = striped_print(log_ratio.shape[:2], rng)
    for p in reading.pieces:
        cv2.fillConvexPoly(strength, np.round(p.outline).astype(np.int32), 1.0)
    lines_only = strength.copy()
    piece = outline(reading.camera, np.array([2.0, 1.0]), 2, PITCH_MM)
    cv2.fillConvexPoly(strength, np.round(piece).astype(np.int32), 0.12)
    assert 0.12 < PROFILE.unseen_threshold
    found = check_reading(reading, strength, log_ratio, blobs_of(reading), False, BRIGHT, PROFILE)
    assert flagged_additions(found, 3) == [(2, 1, "blue", 2, True)]
    assert len(check_reading(reading, lines_only, log_ratio, blobs_of(reading), False, BRIGHT, PROFILE).pieces) == 3


def test_a_piece_that_stands_out_too_little_from_a_grainy_print_to_read_leaves_its_cell_doubted():
    """The blue pyramid of the test above, standing out by 0.12 all over, on a print whose
    grain spreads as much: too little to read it, enough to doubt its cell for the player;
    the print alone leaves no cell doubted."""
    reading = straight_down_reading([(0, 0, "red", 3), (1, 0, "yellow", 2), (1, 1, "green", 1)])
    _, log_ratio = scene(reading, hidden=[(2, 1, "blue", 2)])
    piece = np.zeros(log_ratio.shape[:2], np.uint8)
    cv2.fillConvexPoly(piece, np.round(outline(reading.camera, np.array([2.0, 1.0]), 2, PITCH_MM)).astype(np.int32), 1)
    for standing, doubted in ((0.12, ((2, 1),)), (0.0, ())):
        rng = np.random.default_rng(5)
        strength = striped_print(log_ratio.shape[:2], rng) + np.abs(rng.normal(0, 0.1, log_ratio.shape[:2])).astype(np.float32)
        for p in reading.pieces:
            cv2.fillConvexPoly(strength, np.round(p.outline).astype(np.int32), 1.0)
        strength[piece > 0] += standing
        found = check_reading(reading, strength, log_ratio, blobs_of(reading), False, BRIGHT, PROFILE)
        assert len(found.pieces) == 3 and found.doubtful_empty == doubted


def blossom_print(rng):
    """uint8 (H, W, 3) RGB photo of a cloth printed with blue blossoms, discs of 5 to 14
    pixels across, on a pale ground."""
    photo = np.full((SIZE[1], SIZE[0], 3), (225, 220, 205), np.uint8)
    for x, y, r in zip(rng.uniform(0, SIZE[0], 400), rng.uniform(0, SIZE[1], 400), rng.uniform(5, 14, 400)):
        cv2.circle(photo, (int(x), int(y)), int(r), (70, 90, 200), -1, cv2.LINE_AA)
    return photo


def test_a_piece_of_the_print_s_colour_is_found_by_its_straight_sides_and_ridges():
    """A blue pyramid, a little turned, on a cloth of blue blossoms: it stands out from the
    print nowhere, but each of its sides and ridges is a straight edge, which the blossoms'
    edges are not. It is found, at its size, and flagged; the blossoms alone hold no piece."""
    reading = dataclasses.replace(straight_down_reading([(0, 0, "red", 3), (1, 0, "yellow", 2), (1, 1, "green", 1)]),
                                  edge_scale=PITCH_MM)
    _, log_ratio = scene(reading, hidden=[(2, 1, "blue", 2)])
    strength = np.zeros(log_ratio.shape[:2], np.float32)
    for p in reading.pieces:
        cv2.fillConvexPoly(strength, np.round(p.outline).astype(np.int32), 1.0)
    for with_piece, added in ((True, [(2, 1, "blue", 2, True)]), (False, [])):
        photo = blossom_print(np.random.default_rng(7))
        for p, colour in zip(reading.pieces, [(200, 40, 40), (220, 200, 40), (40, 160, 60)]):
            draw_pyramid(photo, reading.camera, (p.col, p.row), BASE_MM[p.size] / PITCH_MM, 0.0, colour)
        if with_piece:
            draw_pyramid(photo, reading.camera, (2.0, 1.0), BASE_MM[2] / PITCH_MM, 6.0, (80, 100, 210))
        found = check_reading(reading, strength, log_ratio, blobs_of(reading), False, BRIGHT, PROFILE,
                              outline_edges=edge_tensor(photo, (0, 0) + SIZE))
        assert flagged_additions(found, 3) == added


def flagged_additions(found, known):
    """The pieces ``found`` beyond the ``known`` first ones, as (col, row, colour, size,
    whether flagged for the player to check)."""
    return [(p.col, p.row, COLOR_ORDER[p.color_index], p.size, p.confidence < PROFILE.max_uncertain_confidence)
            for p in found.pieces[known:]]


def edged_scene(reading, cell, size, sides=4, ridges=True, faint=0.0, strong=0.08):
    """A reading's scene, with sensor noise, plus a black pyramid on ``cell`` that matches
    the table inside but shows ``sides`` of its outline's edges (a step of ``strong`` in log
    brightness), the others ``faint`` and, if ``ridges``, the ridges to its apex."""
    rng = np.random.default_rng(9)
    strength, log_ratio = scene(reading, hidden=[])
    log_ratio += rng.normal(0, 0.01, log_ratio.shape).astype(np.float32)
    shape = outline(reading.camera, np.array(cell, np.float64), size, PITCH_MM)
    lines = np.zeros(strength.shape, np.uint8)
    corners = np.round(shape).astype(np.int32)
    apex = np.round(reading.camera.project(np.array([[cell[0], cell[1], 1.0]]))[0]).astype(np.int32)
    faint_lines = np.zeros(strength.shape, np.uint8)
    for k in range(len(corners)):
        side = (tuple(map(int, corners[k])), tuple(map(int, corners[(k + 1) % len(corners)])))
        cv2.line(lines if k < sides else faint_lines, *side, 1, 2)
    if ridges:
        for corner in corners:
            cv2.line(lines, tuple(map(int, corner)), tuple(map(int, apex)), 1, 1)
    log_ratio[lines > 0] -= strong  # under the faint test's contrast, even summed over the outline
    log_ratio[(faint_lines > 0) & (lines == 0)] -= faint
    return np.abs(log_ratio).max(axis=2), log_ratio


def test_a_black_piece_matching_a_dim_table_is_found_by_its_edges():
    reading = straight_down_reading([(0, 0, "red", 3), (1, 0, "yellow", 1)])
    strength, log_ratio = edged_scene(reading, (2, 0), 2)
    blobs = blobs_of(reading)
    found = check_reading(reading, strength, log_ratio, blobs, True, DIM, PROFILE)
    assert flagged_additions(found, 2) == [(2, 0, "black", 2, True)]
    # a black piece cannot hide on a white table, and a cloth's print is all edges
    assert len(check_reading(reading, strength, log_ratio, blobs, True, BRIGHT, PROFILE).pieces) == 2
    assert len(check_reading(reading, strength, log_ratio, blobs, False, DIM, PROFILE).pieces) == 2


def test_a_black_piece_whose_far_side_shows_no_edge_is_found_by_the_others():
    """Seen at a slant, the side leaning away from the camera shows little: three sides and
    the ridges are enough."""
    reading = straight_down_reading([(0, 0, "red", 3), (1, 0, "yellow", 1)])
    strength, log_ratio = edged_scene(reading, (2, 0), 2, sides=3)
    found = check_reading(reading, strength, log_ratio, blobs_of(reading), True, DIM, PROFILE)
    assert flagged_additions(found, 2) == [(2, 0, "black", 2, True)]


def test_a_large_black_piece_lit_from_one_side_is_found_by_its_outline():
    """Lit from one side, a large black pyramid shows strong edges on two sides of its
    outline and faint ones on the others: its whole outline still runs along edges, and the
    smaller sizes' outlines, which cross its faces, do not."""
    reading = straight_down_reading([(0, 0, "red", 2), (1, 0, "yellow", 1)])
    strength, log_ratio = edged_scene(reading, (2, 0), 3, sides=2, ridges=False, faint=0.05)
    found = check_reading(reading, strength, log_ratio, blobs_of(reading), True, DIM, PROFILE)
    assert flagged_additions(found, 2) == [(2, 0, "black", 3, True)]


def test_a_black_piece_with_a_side_in_shade_is_found_where_its_edges_face_open_table():
    """A large black pyramid lit from one side can show no edge at all on its shaded side;
    its outline runs along edges on the others, which face open table. The same edges round
    an empty cell in the middle of the city, facing the pieces there, are theirs."""
    reading = straight_down_reading([(0, 0, "red", 2), (1, 0, "yellow", 1)])
    strength, log_ratio = edged_scene(reading, (2, 0), 3, sides=3, ridges=False, strong=0.12)
    found = check_reading(reading, strength, log_ratio, blobs_of(reading), True, DIM, PROFILE)
    assert flagged_additions(found, 2) == [(2, 0, "black", 3, True)]
    around = straight_down_reading([(0, 0, "red", 2), (1, 0, "yellow", 1), (2, -1, "green", 1), (3, 0, "blue", 1),
                                    (2, 1, "red", 1)])
    strength, log_ratio = edged_scene(around, (2, 0), 3, sides=3, ridges=False, strong=0.12)
    assert len(check_reading(around, strength, log_ratio, blobs_of(around), True, DIM, PROFILE).pieces) == 5


@pytest.mark.parametrize("sides, found", [(4, True), (3, False)])
def test_a_large_black_piece_whose_faint_outline_shows_all_round_is_found(sides, found):
    """A large black pyramid's faces are wide and flat: on a dim table they can show no
    edges, its outline only a faint one (weaker than the edge test's triangles ask for). Where
    that outline runs all round, along the large size's outline and no other, it is a piece;
    with a side missing it could be the edges of things round an empty cell."""
    reading = straight_down_reading([(0, 0, "red", 2), (1, 0, "yellow", 1)])
    strength, log_ratio = edged_scene(reading, (2, 0), 3, sides=sides, ridges=False, strong=0.05)
    added = flagged_additions(check_reading(reading, strength, log_ratio, blobs_of(reading), True, DIM, PROFILE), 2)
    assert added == ([(2, 0, "black", 3, True)] if found else [])


def test_a_black_piece_turned_and_off_its_cell_centre_is_found_by_its_outline_on_the_edges():
    """A large black pyramid lit from one side (two strong edges, two faint), turned by 15
    degrees and placed a tenth of a pitch off its cell's centre: the outlines projected
    square on the cell cross its edges, but laid along the photo's edges they run round it."""
    reading = dataclasses.replace(straight_down_reading([(0, 0, "red", 2), (1, 0, "yellow", 1)]), edge_scale=PITCH_MM)
    centre, side, turn = np.array([2.1, 0.08]), BASE_MM[3] / PITCH_MM, 15.0
    rng = np.random.default_rng(9)
    strength, log_ratio = scene(reading, hidden=[])
    log_ratio += rng.normal(0, 0.01, log_ratio.shape).astype(np.float32)
    corners = pyramid_corners(reading.camera, centre[None], np.array([side]), np.array([side * HEIGHT_PER_SIDE]),
                              turns=np.radians(turn))[0, :4]
    for k, step in enumerate((0.08, 0.08, 0.05, 0.05)):  # lit from one side: two strong edges, two faint
        line = np.zeros(strength.shape, np.uint8)
        cv2.line(line, *(tuple(map(int, np.round(corners[j % 4]))) for j in (k, k + 1)), 1, 2)
        log_ratio[line > 0] -= step
    strength = np.abs(log_ratio).max(axis=2)
    photo = np.full((SIZE[1], SIZE[0], 3), 60, np.uint8)
    draw_pyramid(photo, reading.camera, tuple(centre), side, turn, (62, 62, 66))
    assert flagged_additions(check_reading(reading, strength, log_ratio, blobs_of(reading), True, DIM, PROFILE), 2) == []
    found = check_reading(reading, strength, log_ratio, blobs_of(reading), True, DIM, PROFILE,
                          outline_edges=edge_tensor(photo, (0, 0) + SIZE))
    assert flagged_additions(found, 2) == [(2, 0, "black", 3, True)]


def test_edges_are_measured_against_the_table_s_own_roughness_nearby():
    """A table's noise reads about 1 all over: in its lit part, in its shade (three times as
    rough in the log), and beside the floor beyond its edge, where the table is what is seen
    (a log ratio of 0, without any gradient, which is no measure of the table's roughness)."""
    reading = straight_down_reading([(0, 0, "red", 3), (1, 0, "yellow", 1)])
    _, log_ratio = scene(reading, hidden=[])
    rng = np.random.default_rng(4)
    log_ratio += rng.normal(0, 0.03, log_ratio.shape).astype(np.float32)
    log_ratio[:, 480:] += rng.normal(0, 0.085, log_ratio[:, 480:].shape).astype(np.float32)
    log_ratio[:95] = 0.0  # the floor beyond the table's far edge
    differs = (np.abs(log_ratio).max(axis=2) > PROFILE.unseen_threshold).astype(np.uint8)
    edges = relative_edges(log_ratio, differs, reading)
    for part in (np.s_[300:, :300], np.s_[300:, 560:], np.s_[100:140, 20:100]):  # lit, shade, by the floor
        assert 0.8 < np.median(edges[part]) < 1.25, part


def test_edges_with_no_table_to_measure_are_in_units_of_the_least_noise():
    """Where every pixel differs from the table, its roughness cannot be measured: the edges
    are in units of the least gradient a camera's noise has."""
    reading = straight_down_reading([(0, 0, "red", 3)])
    log_ratio = np.random.default_rng(1).normal(0, 0.3, (SIZE[1], SIZE[0], 3)).astype(np.float32)
    edges = relative_edges(log_ratio, np.ones(log_ratio.shape[:2], np.uint8), reading)
    brightness = log_ratio.mean(axis=2)
    magnitude = np.hypot(cv2.Sobel(brightness, cv2.CV_32F, 1, 0), cv2.Sobel(brightness, cv2.CV_32F, 0, 1))
    assert np.allclose(edges, magnitude / 0.02, rtol=1e-3, atol=1e-3)  # second_look._LEAST_EDGE_LEVEL


@pytest.mark.parametrize("sides, found", [(0, False), (4, True)])
def test_the_rough_shade_of_a_table_lit_from_one_side_is_no_black_piece(sides, found):
    """A dark table lit from one side, its right part in shade at a fifth of the light: a
    sensor's noise is the same in linear units all over it, so in the log that part is five
    times as rough as the lit one. Against the table's own gradient nearby, that noise is
    no piece (against the whole table's, it would show edges all round the empty cells
    there); a black piece in the shade still shows its edges."""
    reading = straight_down_reading([(0, 0, "red", 3), (1, 0, "yellow", 1), (2, 0, "green", 2)])
    strength, log_ratio = edged_scene(reading, (3, 0), 2, sides=sides, ridges=bool(sides), strong=0.4)
    shade = np.s_[:, 350:]  # from the right side of cell (2, 0) on
    log_ratio[shade] += np.random.default_rng(4).normal(0, 0.049, log_ratio[shade].shape).astype(np.float32)
    strength = np.abs(log_ratio).max(axis=2)
    added = flagged_additions(check_reading(reading, strength, log_ratio, blobs_of(reading), True, DIM, PROFILE), 3)
    assert added == ([(3, 0, "black", 2, True)] if found else [])


@pytest.mark.parametrize("sides", [1, 2])
def test_an_edge_on_one_or_two_sides_of_a_cell_is_not_a_piece(sides):
    """The edge of a shadow or of something lying there runs along one side, or round a
    corner along two."""
    reading = straight_down_reading([(0, 0, "red", 3), (1, 0, "yellow", 2)])
    strength, log_ratio = edged_scene(reading, (2, 0), 3, sides=sides, ridges=False)
    assert len(check_reading(reading, strength, log_ratio, blobs_of(reading), True, DIM, PROFILE).pieces) == 2


def test_a_black_piece_whose_lit_face_matches_a_dim_table_is_sized_by_its_outline():
    """Three faces of a large black pyramid turned from the lamp are seen, and read as a
    medium piece; the lit fourth looks like the table, but the edge where it meets the
    table still shows. The large outline runs along edges all round; the medium one crosses
    faces."""
    reading = straight_down_reading([(0, 0, "red", 3), (1, 0, "black", 2)])
    strength, log_ratio = scene(reading, hidden=[], unseen=[(1, 0)])
    log_ratio += np.random.default_rng(9).normal(0, 0.01, log_ratio.shape).astype(np.float32)
    large = outline(reading.camera, np.array([1.0, 0.0]), 3, PITCH_MM)
    centre = reading.camera.project(np.array([[1.0, 0.0, 0.0]]))[0]
    for k in range(3):
        face = np.zeros(strength.shape, np.uint8)
        cv2.fillConvexPoly(face, np.round([centre, large[k], large[(k + 1) % 4]]).astype(np.int32), 1)
        log_ratio[face > 0] = looks("black")
    lit_edge = np.zeros(strength.shape, np.uint8)
    cv2.line(lit_edge, tuple(map(int, np.round(large[3]))), tuple(map(int, np.round(large[0]))), 1, 2)
    log_ratio[lit_edge > 0] -= 0.08
    strength = np.abs(log_ratio).max(axis=2)
    found = check_reading(reading, strength, log_ratio, blobs_of(reading), True, DIM, PROFILE)
    assert [(p.col, p.row, COLOR_ORDER[p.color_index], p.size) for p in found.pieces] == [
        (0, 0, "red", 3), (1, 0, "black", 3)]
    # on a white table a black piece hides nothing, and is not sized by its edges
    assert check_reading(reading, strength, log_ratio, blobs_of(reading), True, BRIGHT, PROFILE).pieces[1].size == 2


def test_a_black_piece_found_on_a_second_look_is_sized_by_its_outline():
    """A small black pyramid missed at first, on a dim table, with its soft shadow round it
    as dark as it: the second look sees a medium's outline filled, but the piece's own
    outline is where the sharp edge runs. (Without the edges, on a white table, the second
    look's medium stands.)"""
    reading = straight_down_reading([(0, 0, "red", 3), (0, 1, "yellow", 1)])
    strength, log_ratio = scene(reading, hidden=[])
    cell = np.array([1.0, 0.0])
    small = np.round(outline(reading.camera, cell, 1, PITCH_MM)).astype(np.int32)
    dark = np.zeros(strength.shape, np.float32)
    cv2.fillConvexPoly(dark, np.round(outline(reading.camera, cell, 2, PITCH_MM)).astype(np.int32), -0.2)
    dark = cv2.GaussianBlur(dark, (0, 0), 4)  # the soft shadow, out to a medium's outline
    cv2.fillConvexPoly(dark, small, -0.2)
    cv2.polylines(dark, [small], True, -0.28, 2)  # the piece's sharp edge
    log_ratio += dark[..., None] + np.random.default_rng(9).normal(0, 0.01, log_ratio.shape).astype(np.float32)
    strength = np.abs(log_ratio).max(axis=2)
    found = check_reading(reading, strength, log_ratio, blobs_of(reading), True, DIM, PROFILE)
    assert [(p.col, p.row, COLOR_ORDER[p.color_index], p.size) for p in found.pieces[2:]] == [(1, 0, "black", 1)]
    assert check_reading(reading, strength, log_ratio, blobs_of(reading), True, BRIGHT, PROFILE).pieces[2].size == 2


def stray_blob(polygon, color: str) -> Blob:
    """A candidate apart from the city: the pixels inside ``polygon`` ((K, 2) (x, y))."""
    mask = np.zeros((SIZE[1], SIZE[0]), np.uint8)
    cv2.fillConvexPoly(mask, np.round(polygon).astype(np.int32), 1)
    ys, xs = np.nonzero(mask)
    return Blob((float(xs.mean()), float(ys.mean())), np.stack([xs, ys], axis=1).astype(np.int32), looks(color),
                np.zeros(3), COLOR_ORDER.index(color), 5.0, LEVEL)


def test_a_piece_placed_apart_from_the_city_is_read_on_its_cell_and_a_thing_off_the_grid_is_not():
    """A piece three cells from the others is not connected, a rule broken: it must be read,
    on its cell, so that it can be flagged. A square the size of a piece lying between two
    cells (a die, a coin) is not read."""
    reading = straight_down_reading([(0, 0, "red", 3), (1, 0, "yellow", 2), (1, 1, "green", 1)])
    apart = outline(reading.camera, np.array([4.0, 2.0]), 2, PITCH_MM)
    between = outline(reading.camera, np.array([0.5, 3.5]), 2, PITCH_MM)
    strength, log_ratio = scene(reading, hidden=[(4, 2, "blue", 2)], extra=[between])
    strays = [stray_blob(apart, "blue"), stray_blob(between, "black")]
    found = check_reading(reading, strength, log_ratio, blobs_of(reading), True, BRIGHT, PROFILE, strays)
    added = {(p.col, p.row): (COLOR_ORDER[p.color_index], p.size) for p in found.pieces[3:]}
    assert added == {(4, 2): ("blue", 2)}
    without = check_reading(reading, strength, log_ratio, blobs_of(reading), True, BRIGHT, PROFILE)
    assert len(without.pieces) == 3


def test_a_piece_placed_apart_from_the_city_is_sized_by_its_edges_too():
    """What stands out of a faint black small apart from the city, its blurred rim and
    shadow with it, fills a medium's outline; the photo's edges there are a small's, at the
    scale the pieces read first set: small it is read, as a piece found on a second look is."""
    reading = dataclasses.replace(straight_down_reading([(0, 0, "red", 3), (1, 0, "yellow", 2)]), edge_scale=PITCH_MM)
    rim = outline(reading.camera, np.array([4.0, 2.0]), 2, PITCH_MM)
    strength, log_ratio = scene(reading, hidden=[(4, 2, "black", 2)])
    photo = np.full((SIZE[1], SIZE[0], 3), 60, np.uint8)
    draw_pyramid(photo, reading.camera, (4.0, 2.0), BASE_MM[1] / PITCH_MM, 0.0, (40, 40, 44))
    for edges, size in ((None, 2), (edge_tensor(photo, (0, 0) + SIZE), 1)):
        found = check_reading(reading, strength, log_ratio, blobs_of(reading), True, DIM, PROFILE,
                              [stray_blob(rim, "black")], outline_edges=edges)
        assert [(p.col, p.row, COLOR_ORDER[p.color_index], p.size) for p in found.pieces[2:]] == [(4, 2, "black", size)]


def test_a_piece_placed_apart_from_the_city_is_read_with_its_shadow_joined_to_it():
    """A piece apart from the city seen with its shadow beside it fills its outline by about
    a half: enough (``stray_min_overlap``), where a thing on the table lies on a cell by
    chance only and is kept only where its outline has edges; a second look beside the city
    asks more (``unseen_min_overlap``)."""
    reading = straight_down_reading([(0, 0, "red", 3), (1, 0, "yellow", 2), (1, 1, "green", 1)])
    apart = outline(reading.camera, np.array([4.0, 2.0]), 2, PITCH_MM)
    shadowed = cv2.convexHull(np.vstack([apart, apart + (0.5 * PITCH_PX, 0.0)]).astype(np.float32))[:, 0]
    strength, log_ratio = scene(reading, hidden=[(4, 2, "blue", 2)])
    piece, seen = (stray_blob(polygon, "blue").pixels for polygon in (apart, shadowed))
    overlap = len(piece) / len(seen)  # the piece's pixels all lie in the stray's
    assert PROFILE.stray_min_overlap < overlap < PROFILE.unseen_min_overlap
    found = check_reading(reading, strength, log_ratio, blobs_of(reading), True, BRIGHT, PROFILE,
                          [stray_blob(shadowed, "blue")])
    assert [(p.col, p.row, COLOR_ORDER[p.color_index], p.size) for p in found.pieces[3:]] == [(4, 2, "blue", 2)]
