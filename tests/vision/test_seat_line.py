"""A stack's seat told by its upper piece's rim, on small drawn photos at two sizes."""
import dataclasses

import numpy as np
import pytest

from calibration import load_profile
from calibration.profile import COLOR_ORDER
from vision.camera import Camera
from vision.edge_fit import edge_tensor
from vision.faces import add_face_stacks, face_contrast
from vision.model import HEIGHT_MM, seat_height_mm
from vision.seat_line import seat_line_strength
from vision.verify import piece_poses
from tests.vision.test_edge_fit import tilted_camera
from tests.vision.test_faces import (DEEP_RED, RED, drawn_colours, log_ratio_of, nearest_colour, photo_of,
                                     reading_of)

FINER = 3  # the detail photo's side, in working photo sides
STACK_AND_SINGLE = [((0, 0), [(3, RED), (2, DEEP_RED)]), ((2, 0), [(3, RED)])]


def photos_of(camera, pieces):
    """The working photo (480 x 360) of ``pieces`` (as for :func:`photo_of`) and the same
    view ``FINER`` times the size, its own noise drawn."""
    finer = Camera(np.diag([FINER, FINER, 1.0]) @ camera.P, camera.center)
    return photo_of(camera, pieces), photo_of(finer, pieces, seed=1, shape=(360 * FINER, 480 * FINER))


@pytest.mark.parametrize("tilt", [0.0, 15.0, 25.0])
def test_an_upper_piece_s_rim_shows_across_the_lower_s_faces_at_the_seat_and_nowhere_on_a_single_piece(tilt):
    """A deep red medium on a red large draws a line across the large's faces at the seat,
    twice as strong as the steps elsewhere on them; a red large alone has none."""
    camera = tilted_camera(tilt)
    rgb, detail = photos_of(camera, STACK_AND_SINGLE)
    poses = piece_poses(reading_of(camera, [((0, 0), 3, 0), ((2, 0), 3, 0)]), edge_tensor(rgb, (0, 0, 480, 360)))
    seat = seat_height_mm(3, 2) / HEIGHT_MM[3]
    stack, single = (seat_line_strength(detail, FINER, camera, (col + pose[1], pose[2]), pose[0], np.radians(pose[3]),
                                        seat) for col, pose in ((0, poses[0, 0, 3]), (2, poses[2, 0, 3])))
    threshold = load_profile().stack_seat_line
    assert stack > 2 * threshold
    assert single < threshold


def test_a_doubted_piece_is_read_as_a_stack_where_the_finer_photo_shows_the_upper_s_rim():
    """Where a large piece's faces differ across a seat too little to read a stack, it is
    read as one where the photo at a finer size shows the upper's rim; without that photo it
    stays one piece, flagged; a large piece alone stays as it was either way."""
    camera = tilted_camera(15.0)
    rgb, detail = photos_of(camera, STACK_AND_SINGLE)
    reading = reading_of(camera, [((0, 0), 3, 0), ((2, 0), 3, 0)])
    profile = dataclasses.replace(load_profile(), stack_face_doubt=load_profile().stack_face_contrast,
                                  stack_face_contrast=100.0)
    poses = piece_poses(reading, edge_tensor(rgb, (0, 0, 480, 360)))

    def read(closer):
        found = add_face_stacks(reading, log_ratio_of(rgb), poses, nearest_colour, nearest_colour, profile, closer)
        return sorted((p.col, p.size, p.level, p.confidence < profile.max_uncertain_confidence) for p in found.pieces)

    assert read(lambda: detail) == [(0, 2, 1, False), (0, 3, 0, False), (2, 3, 0, False)]
    assert read(None) == [(0, 3, 0, True), (2, 3, 0, False)]


def test_faces_differing_by_a_shade_of_one_piece_are_a_stack_of_one_colour_where_the_rim_shows():
    """A paler red medium on a red large: the faces differ overall, but the change across the
    seat points away from red with too little hue to name another colour (a reflection
    pales a single piece's upper part so), which leaves one piece, flagged. Where the finer
    photo shows the upper's rim at the seat, it is a stack, of the colour below."""
    camera, red = tilted_camera(15.0), COLOR_ORDER.index("red")
    rgb, detail = photos_of(camera, [((0, 0), [(3, RED), (2, (200, 60, 60))])])
    reading = reading_of(camera, [((0, 0), 3, red)])
    poses = piece_poses(reading, edge_tensor(rgb, (0, 0, 480, 360)))
    contrast = face_contrast(log_ratio_of(rgb), camera, (0, 0), poses[0, 0, 3], seat_height_mm(3, 2) / HEIGHT_MM[3])
    profile = dataclasses.replace(load_profile(), stack_face_contrast=contrast.difference / 2,
                                  stack_tint_contrast=2 * contrast.tint_difference)

    def read(closer):
        found = add_face_stacks(reading, log_ratio_of(rgb), poses, lambda feature: red, drawn_colours().tint, profile,
                                closer)
        return sorted((p.size, p.level, p.color_index, p.confidence < profile.max_uncertain_confidence)
                      for p in found.pieces)

    assert read(None) == [(3, 0, red, True)]
    assert read(lambda: detail) == [(2, 1, red, False), (3, 0, red, False)]
