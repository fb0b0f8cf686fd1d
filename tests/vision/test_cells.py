"""Reading candidates into pieces on cells, on small synthetic candidate sets."""
import numpy as np
import pytest

from calibration import load_profile
from calibration.profile import COLOR_ORDER
from tests.vision.pyramids import draw_pyramid
from vision.camera import Camera
from vision.cells import _sides_own_scale, _within_pitches, read_pieces
from vision.edge_fit import edge_scale
from vision.errors import BoardNotFound
from vision.model import BASE_MM
from vision.pieces import Blob

PROFILE = load_profile()
TABLE_LEVEL = float(np.log(120.0))  # a mid-grey table under every candidate
# straight down, a grid unit 60 pixels wide, grid (0, 0) at pixel (100, 100)
STRAIGHT_DOWN = Camera(np.array([[60.0, 0, 0, 100], [0, 60.0, 0, 100], [0, 0, 0, 1]]), np.array([0.0, 0.0, 10.0]))


def square_blob(x, y, side, color, feature=None):
    ys, xs = np.mgrid[y - side // 2:y + side // 2, x - side // 2:x + side // 2]
    pixels = np.stack([xs.ravel(), ys.ravel()], 1).astype(np.int32)
    protos = PROFILE.colors.prototype_array()
    k = COLOR_ORDER.index(color)
    return Blob((float(x), float(y)), pixels, protos[k] if feature is None else feature, np.zeros(3), k, side / 2, TABLE_LEVEL)


def blob_of(pixels, color):
    """A candidate of ``color`` made of ``pixels`` ((N, 2) (x, y)): a piece seen in part, or
    with what lies beside it."""
    pixels = np.asarray(pixels, np.int32)
    k = COLOR_ORDER.index(color)
    return Blob((float(pixels[:, 0].mean()), float(pixels[:, 1].mean())), pixels, PROFILE.colors.prototype_array()[k],
                np.zeros(3), k, 7.0, TABLE_LEVEL)


def test_on_a_print_a_candidate_keeps_the_colour_its_pixels_were_labelled_with():
    """The yellow candidate's median is pulled toward red (a red piece's tint, red pixels at
    its edge); its pixels were labelled yellow one by one, and on a printed table (where the
    table under it is not the table estimate) yellow it stays."""
    protos = PROFILE.colors.prototype_array()
    colors = ["red", "green", "blue", "black", "red", "green", "blue", "black", "red"]
    blobs = [square_blob(200 + 60 * (k % 3), 150 + 60 * (k // 3), 30, c) for k, c in enumerate(colors)]
    reddish = 0.35 * protos[COLOR_ORDER.index("yellow")] + 0.65 * protos[COLOR_ORDER.index("red")]
    blobs.append(square_blob(380, 150, 30, "yellow", reddish))
    reading = read_pieces(blobs, (640, 480), 60.0, False, PROFILE)
    assert len(reading.pieces) == len(blobs)
    far_right = max(reading.pieces, key=lambda p: p.center[0])
    assert COLOR_ORDER[far_right.color_index] == "yellow"


def _city_of_sizes(growth):
    """A 3 x 3 city on a 60-pixel grid (a 30 mm pitch) whose pieces each cast a hard shadow
    to the right that makes them look ``growth`` times their base area, with its true sizes
    by base centre (x, y)."""
    sizes = [[1, 2, 1], [3, 1, 3], [2, 3, 2]]
    colors = [["red", "green", "blue"], ["yellow", "black", "red"], ["blue", "green", "yellow"]]
    base_mm = {1: 14.3, 2: 19.8, 3: 25.4}
    blobs, truth = [], {}
    for row in range(3):
        for col in range(3):
            x, y, size = 260 + 60 * col, 180 + 60 * row, sizes[row][col]
            side = int(round(2 * base_mm[size]))  # 2 pixels a millimetre
            length = int(round(side * growth))
            ys, xs = np.mgrid[y - side // 2:y + side // 2, x - side // 2:x - side // 2 + length]
            blobs.append(blob_of(np.stack([xs.ravel(), ys.ravel()], 1), colors[row][col]))
            truth[(x, y)] = size
    return blobs, truth


def test_sizes_are_read_even_where_shadows_make_every_piece_look_larger():
    """Seen with their hard shadows, pieces look nearly twice their size; the grid's pitch
    stays a plausible one, the pieces are modelled at a finer one, and every size is right."""
    for growth in (1.0, 1.8):
        blobs, truth = _city_of_sizes(growth)
        reading = read_pieces(blobs, (640, 480), 60.0, False, PROFILE)
        seen = [(reading.camera.project(np.array([[p.col, p.row, 0.0]]))[0], p.size) for p in reading.pieces]
        read = [size for _, size in sorted(seen, key=lambda s: (round(s[0][1] / 60), s[0][0]))]
        assert read == [truth[key] for key in sorted(truth, key=lambda xy: (xy[1], xy[0]))], growth
        assert 26 <= reading.grid_pitch_mm <= 42
        if growth > 1:
            assert reading.pitch_mm < reading.grid_pitch_mm


def test_a_large_piece_with_a_face_lost_against_the_table_still_reads_large():
    """A third of the large piece was not told from the table: its area alone is a medium's,
    but what is seen fills most of a large piece's outline and overflows a medium's."""
    colors = ["red", "green", "blue", "yellow"]
    blobs = [square_blob(320 + dx, 240 + dy, 29, c) for (dx, dy), c in zip(((60, 0), (-60, 0), (0, 60), (0, -60)), colors)]
    large = square_blob(320, 240, 51, "black")
    blobs.append(blob_of(large.pixels[large.pixels[:, 0] >= 320 - 51 // 2 + 17], "black"))
    reading = read_pieces(blobs, (640, 480), 60.0, False, PROFILE)
    sizes = {COLOR_ORDER[p.color_index]: p.size for p in reading.pieces}
    assert sizes == {"red": 1, "green": 1, "blue": 1, "yellow": 1, "black": 3}


def test_a_lattice_with_more_cells_than_a_set_has_pieces_is_fitted_again_coarser(monkeypatch):
    """Shadow fragments half-way between pieces can make a lattice of half the pitch explain
    every candidate. Such a reading has more cells than a whole set has pieces (45) and
    some strays, and the lattice is fitted again at a coarser pitch: one piece a cell."""
    import vision.cells as cells
    from vision.grid import GridFit, fit_grid

    blobs = []
    for row in range(7):
        for col in range(7):
            x, y = 80 + 64 * col, 40 + 64 * row
            blobs.append(square_blob(x, y, 36, COLOR_ORDER[(row + 2 * col) % 5]))
            if col < 6:  # a shadow's fragment half-way to the next piece
                blobs.append(square_blob(x + 32, y, 14, "black"))

    def finest_first(points, spacing_hint, tolerance, weights, min_pitch, camera):
        fit = fit_grid(points, spacing_hint, tolerance, weights, min_pitch, camera)
        if min_pitch > 40:  # fitted again, at 1.5 times the fine lattice's pitch (32)
            return fit
        H = fit.H @ np.diag([0.5, 0.5, 1.0])  # what a fine lattice would have given
        grid = np.linalg.inv(H) @ np.vstack([np.asarray(points, float).T, np.ones(len(points))])
        cells_ = np.round(grid[:2] / grid[2]).T.astype(np.int64)
        return GridFit(H, cells_, np.zeros(len(points)))

    monkeypatch.setattr(cells, "fit_grid", finest_first)
    reading = read_pieces(blobs, (640, 480), 64.0, False, PROFILE)
    assert len({(p.col, p.row) for p in reading.pieces}) == 49


def test_a_piece_keeps_its_colour_where_its_shadow_labelled_black_is_larger():
    """The large red piece's hard shadow, labelled black, wraps round two of its sides and
    covers more pixels than the piece; but it lies beyond the piece's outline, and the
    piece is read red."""
    colors = ["yellow", "green", "blue", "yellow"]
    blobs = [square_blob(320 + dx, 240 + dy, 30, c) for (dx, dy), c in zip(((64, 0), (-64, 0), (0, 64), (0, -64)), colors)]
    blobs.append(square_blob(320, 240, 50, "red"))
    ys, xs = np.mgrid[215:287, 345:367]  # right of the piece
    right = np.stack([xs.ravel(), ys.ravel()], 1)
    ys, xs = np.mgrid[265:287, 295:345]  # below it
    below = np.stack([xs.ravel(), ys.ravel()], 1)
    blobs.append(blob_of(np.vstack([right, below]), "black"))
    assert blobs[-1].area > blobs[-2].area
    reading = read_pieces(blobs, (640, 480), 64.0, False, PROFILE)
    middle = min(reading.pieces, key=lambda p: np.hypot(p.center[0] - 320, p.center[1] - 240))
    assert (COLOR_ORDER[middle.color_index], middle.size, middle.level) == ("red", 3, 0)


def test_on_a_plain_table_each_candidate_is_read_whole_by_the_piece_model():
    """On a warm dark table, glossy black reads bluish against the table and its pixels were
    labelled blue; the piece model, which knows how black looks on such a table, reads it
    black. On a print the pixel labels stand."""
    chroma, level = np.array([0.15, 0.0, -0.15]), float(np.log(40.0))
    model = PROFILE.piece_colors
    mean = {c: (model.regressors(chroma, np.array([level])) @ np.array(model.coefficients[c]))[0]
            for c in ("black", "blue")}
    truth = ["black", "blue", "blue", "black"]  # fewer than classify.MIN_FOR_OFFSET: no shared offset
    blobs = []
    for k, color in enumerate(truth):
        blob = square_blob(200 + 60 * (k % 2), 150 + 60 * (k // 2), 30, "blue", mean[color])
        blobs.append(Blob(blob.center, blob.pixels, blob.feature, chroma, blob.color_index, blob.radius, level))
    for plain, expected in ((True, truth), (False, ["blue"] * 4)):
        reading = read_pieces(blobs, (640, 480), 60.0, plain, PROFILE)
        read = sorted(reading.pieces, key=lambda p: (round(p.center[1] / 60), p.center[0]))
        assert [COLOR_ORDER[p.color_index] for p in read] == expected, plain


def test_long_shadows_do_not_hide_the_grid_s_pitch():
    """Under a low lamp each candidate holds its piece and a long shadow: 30-pixel pieces
    on a 42-pixel grid, each candidate over twice a piece's area. Measured by its area, a
    typical piece would be wider than a cell; by its solid part it is not, and each piece
    keeps a cell of its own."""
    blobs = []
    for row in range(3):
        for col in range(4):
            x, y = 200 + 42 * col, 150 + 42 * row
            ys, xs = np.mgrid[y - 15:y + 15, x - 15:x + 15]
            shadow_ys, shadow_xs = np.mgrid[y + 15:y + 125, x - 5:x + 5]  # a thin shadow past the next row
            pixels = np.stack([np.concatenate([xs.ravel(), shadow_xs.ravel()]),
                               np.concatenate([ys.ravel(), shadow_ys.ravel()])], 1).astype(np.int32)
            body = square_blob(x, y, 30, COLOR_ORDER[(row + col) % 5])
            blobs.append(Blob(body.center, pixels, body.feature, body.chroma, body.color_index, 15.0, TABLE_LEVEL))
    reading = read_pieces(blobs, (640, 480), 60.0, False, PROFILE)
    assert len({(p.col, p.row) for p in reading.pieces}) == 12


def test_the_grid_is_moved_onto_the_pieces_outlines_where_every_candidate_leans_one_way():
    """Sixteen pieces on a 4 x 4 grid seen straight down, each candidate holding its piece
    and its tinted shadow, cast 10 pixels to the left: every candidate's centre lies about 5
    pixels (a twelfth of a cell) left of its piece's. Fitted to the candidates, the grid is
    as far off; the photo's edges show where the pieces' outlines are, and the grid is moved
    onto them."""
    from vision.camera import intrinsics
    from vision.edge_fit import edge_tensor

    K = intrinsics((640, 480), PROFILE.hfov_deg)
    centre = np.array([1.5, 1.5, K[0, 0] / 60.0])  # over the city's middle, a grid unit 60 pixels wide
    R = np.diag([1.0, -1.0, -1.0])
    camera = Camera(K @ np.hstack([R, (-R @ centre)[:, None]]), centre)
    shades = {"red": (200, 70, 40), "green": (60, 170, 60), "blue": (50, 90, 200), "yellow": (230, 200, 40),
              "black": (30, 30, 35)}
    photo = np.full((480, 640, 3), 150, np.uint8)
    blobs = []
    for row in range(4):
        for col in range(4):
            colour, size = COLOR_ORDER[(4 * row + col) % 5], 1 + (row + 2 * col) % 3
            draw_pyramid(photo, camera, (col, row), BASE_MM[size] / 30.0, 0.0, shades[colour])  # a 30 mm pitch
            alone = np.zeros((480, 640, 3), np.uint8)
            draw_pyramid(alone, camera, (col, row), BASE_MM[size] / 30.0, 0.0, (255, 255, 255))
            seen = alone.max(axis=2) > 0
            seen[:, :-10] |= seen[:, 10:]  # and its shadow
            ys, xs = np.nonzero(seen)
            blobs.append(blob_of(np.stack([xs, ys], 1), colour))
    bases = camera.project(np.array([[col, row, 0.0] for row in range(4) for col in range(4)]))

    def offsets(reading):
        """(16, 2) (x, y) from each base centre to the nearest cell centre of ``reading``."""
        cells = reading.camera.project(np.array([[p.col, p.row, 0.0] for p in reading.pieces]))
        away = cells[None] - bases[:, None]
        return away[np.arange(len(bases)), np.linalg.norm(away, axis=2).argmin(axis=1)]

    assert offsets(read_pieces(blobs, (640, 480), 60.0, False, PROFILE))[:, 0].mean() < -3
    moved = read_pieces(blobs, (640, 480), 60.0, False, PROFILE, edge_tensor(photo, (0, 0, 640, 480)))
    assert len(moved.pieces) == 16 and np.abs(offsets(moved)).max() < 2


def _twenty_pieces():
    """Candidates of four rows of five pieces, a grid unit 64 pixels wide."""
    return [square_blob(80 + 64 * col, 40 + 64 * row, 36, COLOR_ORDER[(row + 2 * col) % 5])
            for row in range(4) for col in range(5)]


def _steep_unless_narrow(narrowed):
    """A grid fit that stray candidates bent into a camera tilted 46 degrees, but under a
    narrow tilt prior gives ``narrowed(fit, points)`` of the true fit."""
    from vision.grid import GridFit, fit_grid

    bend = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.1, 1.0]])

    def fitted(points, spacing_hint, tolerance, weights, min_pitch, camera):
        fit = fit_grid(points, spacing_hint, tolerance, weights, min_pitch, camera)
        if camera.tilt_prior_deg <= PROFILE.steep_refit_prior_deg:
            return narrowed(fit, points)
        return GridFit(fit.H @ bend, fit.cells, fit.residual)

    return fitted


def test_a_grid_fitted_steeper_than_a_photo_from_above_is_fitted_again_straighter(monkeypatch):
    """Stray candidates (a lamp's hot spot on the table) can bend the lattice into a camera
    tilted far beyond what a photo from above has. The reading is then made again with a
    narrow tilt prior, and the straighter camera is kept."""
    import vision.cells as cells

    monkeypatch.setattr(cells, "fit_grid", _steep_unless_narrow(lambda fit, points: fit))
    reading = read_pieces(_twenty_pieces(), (640, 480), 64.0, False, PROFILE)
    assert reading.camera.tilt_deg < 10
    assert len({(p.col, p.row) for p in reading.pieces}) == 20


def _nearer_by(fit, points, factor):
    """``fit`` as a lattice ``factor`` times coarser in the photo would give it: the camera
    ``factor`` times nearer the table, the ``points`` (N, 2) on its cells."""
    from vision.grid import GridFit

    H = fit.H @ np.diag([factor, factor, 1.0])
    grid = np.linalg.inv(H) @ np.vstack([np.asarray(points, float).T, np.ones(len(points))])
    return GridFit(H, np.round(grid[:2] / grid[2]).T.astype(np.int64), np.zeros(len(points)))


def test_a_lattice_that_puts_the_camera_nearer_the_table_than_a_phone_focuses_finds_no_city(monkeypatch):
    """Stray candidates (a dark floor beyond the table's edge) can fit a lattice so coarse that
    the camera it implies stands a few centimetres above the table, where a pyramid's apex
    would project without bound. No phone photographs a city from there."""
    import vision.cells as cells
    from vision.grid import fit_grid

    def far_too_coarse(points, spacing_hint, tolerance, weights, min_pitch, camera):
        return _nearer_by(fit_grid(points, spacing_hint, tolerance, weights, min_pitch, camera), points, 6.0)

    monkeypatch.setattr(cells, "fit_grid", far_too_coarse)
    with pytest.raises(BoardNotFound, match="from above"):
        read_pieces(_twenty_pieces(), (640, 480), 64.0, False, PROFILE)


def test_a_reading_made_again_that_finds_no_grid_leaves_the_first_one(monkeypatch):
    """A steep lattice is fitted again under a narrow tilt prior; where that refit puts the
    camera too near the table to be a photo, the first reading still stands."""
    import vision.cells as cells

    monkeypatch.setattr(cells, "fit_grid", _steep_unless_narrow(lambda fit, points: _nearer_by(fit, points, 6.0)))
    reading = read_pieces(_twenty_pieces(), (640, 480), 64.0, False, PROFILE)
    assert reading.camera.tilt_deg > 40
    assert len({(p.col, p.row) for p in reading.pieces}) == 20


def test_of_the_refitted_lattices_the_one_whose_anchors_sit_nearest_its_nodes_is_kept(monkeypatch):
    """Each refit moves the anchors to the base centres of the sizes read on the lattice
    before, and refits can swing between two lattices. The last refit here is a lattice of
    half the pitch whose anchors sit far from its nodes; the refit before it is kept."""
    import vision.cells as cells
    from vision.grid import GridFit, fit_grid

    blobs = [square_blob(80 + 64 * col, 40 + 64 * row, 36, COLOR_ORDER[(row + 2 * col) % 5])
             for row in range(4) for col in range(5)]
    calls = []

    def finer_at_the_last_refit(points, spacing_hint, tolerance, weights, min_pitch, camera):
        fit = fit_grid(points, spacing_hint, tolerance, weights, min_pitch, camera)
        calls.append(min_pitch)
        if len(calls) != 4:
            return fit
        H = fit.H @ np.diag([0.5, 0.5, 1.0])
        grid = np.linalg.inv(H) @ np.vstack([np.asarray(points, float).T, np.ones(len(points))])
        return GridFit(H, np.round(grid[:2] / grid[2]).T.astype(np.int64), np.full(len(points), 0.3))

    monkeypatch.setattr(cells, "fit_grid", finer_at_the_last_refit)
    reading = read_pieces(blobs, (640, 480), 64.0, False, PROFILE)
    assert len(calls) == 4
    cols = sorted({p.col for p in reading.pieces})
    assert cols == list(range(cols[0], cols[0] + 5))  # neighbours one cell apart, not two


def test_a_stack_is_read_where_the_lower_piece_shows_on_three_sides_only():
    """A medium blue piece resting on a large red one: the red shows round the blue on three
    sides, the fourth lost (under tilt a steep face can turn from the camera). The reading
    holds both, the blue one on top."""
    colors = ["yellow", "green", "black", "yellow"]
    blobs = [square_blob(320 + dx, 240 + dy, 30, c) for (dx, dy), c in zip(((64, 0), (-64, 0), (0, 64), (0, -64)), colors)]
    top = square_blob(320, 240, 40, "blue")
    ys, xs = np.mgrid[240 - 25:240 + 26, 320 - 20:320 + 26]  # a large piece's square, its left side lost
    ring = np.stack([xs.ravel(), ys.ravel()], 1)
    ring = ring[(np.abs(ring[:, 0] - 320) > 20) | (np.abs(ring[:, 1] - 240) > 20)]
    blobs += [blob_of(ring, "red"), top]
    reading = read_pieces(blobs, (640, 480), 64.0, False, PROFILE)
    middle = sorted((p for p in reading.pieces if np.hypot(p.center[0] - 320, p.center[1] - 240) < 10),
                    key=lambda p: p.level)
    assert [(COLOR_ORDER[p.color_index], p.size, p.level) for p in middle] == [("red", 3, 0), ("blue", 2, 1)]


@pytest.mark.parametrize("neighbour_side, stacked", [(30, True), (40, False)])
def test_a_stack_whose_lower_colour_shows_through_the_upper_piece_stands_only_within_the_rules(neighbour_side, stacked):
    """A medium blue piece resting on a large red one, the red showing through the blue in
    bands: the blue fills only part of its outline, but lies wholly within it, and the red
    shows all round. That is a stack where its neighbours are small; beside a medium, the
    rules forbid a medium on top (a stacked piece is next to its neighbours), and so weak
    evidence does not make one."""
    colors = ["yellow", "green", "black", "yellow"]
    blobs = [square_blob(320 + dx, 240 + dy, 30, c) for (dx, dy), c in zip(((64, 0), (-64, 0), (0, 64), (0, -64)), colors)]
    blobs[0] = square_blob(384, 240, neighbour_side, "yellow")
    ys, xs = np.mgrid[240 - 25:240 + 26, 320 - 25:320 + 26]  # the large piece's square
    square = np.stack([xs.ravel(), ys.ravel()], 1)
    blue = (np.abs(square[:, 0] - 320) < 20) & (np.abs(square[:, 1] - 240) < 20) & (square[:, 1] // 2 % 5 >= 2)
    blobs += [blob_of(square[~blue], "red"), blob_of(square[blue], "blue")]
    reading = read_pieces(blobs, (640, 480), 64.0, False, PROFILE)
    middle = sorted((p for p in reading.pieces if np.hypot(p.center[0] - 320, p.center[1] - 240) < 10),
                    key=lambda p: p.level)
    read = [(COLOR_ORDER[p.color_index], p.size, p.level) for p in middle]
    assert read == ([("red", 3, 0), ("blue", 2, 1)] if stacked else [("red", 3, 0)])


def _settled(mismatches, step=1, edges=None, profile=PROFILE, colours=None):
    """The pieces on the table, in a row on a 60-pixel grid ``step`` cells apart, after
    :func:`cells._apply_priors` (with the photo's ``edges``, if given), from their (3,) outline
    mismatches (minus the log of each size's overlap with what is seen), each read medium at
    first, each colour 95% sure; their colour indices ``colours``, or the five in turn."""
    from vision.cells import Reading, _apply_priors

    colours = colours or [k % 5 for k in range(len(mismatches))]
    readings = [(Reading(step * k, 0, colour, 2, 0, 0.95, (100.0 + 60 * step * k, 100.0), np.zeros((4, 2))),
                 np.array(m), np.zeros(5)) for k, (m, colour) in enumerate(zip(mismatches, colours))]
    return _apply_priors(readings, STRAIGHT_DOWN, 30.0, profile, set(), edges)[0]


def test_a_piece_that_looks_a_little_more_like_a_medium_is_read_large_where_its_edges_show_a_large():
    """Four pieces two cells apart, the first a large one whose shadow and lost face leave it
    a little more like a medium by what is seen. Its outline on the photo's edges is a
    large's at the scale the others set, and large it is read; without the edges, medium."""
    from vision.edge_fit import edge_tensor

    truth = [3, 1, 2, 3]
    photo = np.full((200, 560, 3), 110, np.uint8)
    for k, size in enumerate(truth):  # at a 30 mm pitch
        draw_pyramid(photo, STRAIGHT_DOWN, (2.0 * k, 0.0), BASE_MM[size] / 30.0, 0.0, (200, 70, 40))
    mismatches = [[1.0, 0.30, 0.36], [0.15, 1.0, 1.5], [1.0, 0.15, 1.0], [1.5, 1.0, 0.15]]
    assert [p.size for p in _settled(mismatches, step=2)] == [2, 1, 2, 3]
    edges = edge_tensor(photo, (0, 0, 560, 200))
    assert [p.size for p in _settled(mismatches, step=2, edges=edges)] == truth


def test_a_black_piece_whose_lit_faces_matched_the_table_is_sized_by_its_edges():
    """A black large on a dark table whose lit faces matched the table: what is seen of it
    fits no size's outline well, a medium's a little best. Its outline on the photo's
    edges is a large's, and with a black piece's edges weighed ``black_edge_weight`` times
    a tinted one's it is read large; weighed alike, medium."""
    import dataclasses

    from vision.edge_fit import edge_tensor

    truth = [3, 1, 2, 3]
    colours = [COLOR_ORDER.index(c) for c in ("black", "red", "green", "blue")]
    photo = np.full((200, 560, 3), 90, np.uint8)
    paint = {"black": (40, 40, 40), "red": (200, 60, 50), "green": (70, 180, 60), "blue": (60, 90, 200)}
    for k, size in enumerate(truth):  # at a 30 mm pitch
        draw_pyramid(photo, STRAIGHT_DOWN, (2.0 * k, 0.0), BASE_MM[size] / 30.0, 0.0, paint[COLOR_ORDER[colours[k]]])
    mismatches = [[0.9, 0.82, 1.18], [0.15, 1.0, 1.5], [1.0, 0.15, 1.0], [1.5, 1.0, 0.15]]
    edges = edge_tensor(photo, (0, 0, 560, 200))
    assert [p.size for p in _settled(mismatches, step=2, edges=edges, colours=colours)] == truth
    alike = dataclasses.replace(PROFILE, black_edge_weight=1.0)
    assert [p.size for p in _settled(mismatches, step=2, edges=edges, colours=colours, profile=alike)] == [2, 1, 2, 3]


def test_a_black_piece_s_edges_weigh_black_edge_weight_times_a_tinted_one_s():
    """The weights the edge costs take, for the pieces read first and for those found on a
    second look alike: ``edge_size_weight``, and for a black piece ``black_edge_weight``
    times that."""
    from vision.cells import edge_weights

    weights = edge_weights(np.array([COLOR_ORDER.index(c) for c in ("red", "black", "blue")]), PROFILE)
    assert weights.tolist() == pytest.approx([PROFILE.edge_size_weight,
                                              PROFILE.edge_size_weight * PROFILE.black_edge_weight,
                                              PROFILE.edge_size_weight])
    assert PROFILE.black_edge_weight > 1


def test_pieces_that_all_look_a_size_larger_are_sized_at_their_outlines_own_scale():
    """Smalls, mediums and larges two cells apart on a 30 mm grid whose overlaps with what
    is seen each favour the size above (as at too coarse a pitch, where each piece's shadow
    swells what is seen). Their outlines on the photo's edges fit their true sizes at one
    scale and the sizes as first read at none: they are sized at the outlines' own scale,
    and read right; told at the scale the sizes first read put them at, a size up."""
    import dataclasses

    from vision.edge_fit import edge_tensor

    truth = [1, 2, 3, 1, 3, 2, 1]
    photo = np.full((200, 960, 3), 110, np.uint8)
    for k, size in enumerate(truth):
        draw_pyramid(photo, STRAIGHT_DOWN, (2.0 * k, 0.0), BASE_MM[size] / 30.0, 0.0, (200, 70, 40))
    up = {1: [0.6, 0.2, 0.9], 2: [1.2, 0.6, 0.2], 3: [1.5, 0.8, 0.2]}
    mismatches = [up[size] for size in truth]
    edges = edge_tensor(photo, (0, 0, 960, 200))
    assert [p.size for p in _settled(mismatches, step=2, edges=edges)] == truth
    as_read = dataclasses.replace(PROFILE, sides_scale_gain=np.inf)
    assert [p.size for p in _settled(mismatches, step=2, edges=edges, profile=as_read)] == [2, 3, 3, 2, 3, 3, 2]


def test_a_piece_whose_outline_holds_little_of_what_is_seen_is_marked_for_checking():
    """The left piece is surely a large one, but even a large piece's outline overlaps what is
    seen by only 0.41 (its tinted shadow labelled with it, say): the player is asked to check
    it. Its neighbour's outline overlaps by 0.86 and it is not marked."""
    left, right = _settled([[1.5, 1.1, 0.9], [1.0, 0.15, 0.9]])
    assert (left.size, right.size) == (3, 2)
    assert left.confidence < PROFILE.max_uncertain_confidence < right.confidence


def test_a_piece_sized_by_the_rules_against_what_is_seen_is_marked_for_checking():
    """Two pieces side by side: the right one clearly medium, the left one a little more like
    a medium than a large. Two mediums side by side break a rule, so the left one is read
    large, and as sure as what is seen makes a large: not enough to leave it unmarked."""
    left, right = _settled([[1.0, 0.30, 0.33], [1.0, 0.15, 0.9]])
    assert (left.size, right.size) == (3, 2)
    assert left.confidence < PROFILE.max_uncertain_confidence < right.confidence


def test_a_piece_with_a_second_colour_inside_its_outline_is_marked_for_checking():
    """A large piece, red on its right, blue on its left: not a stack (the blue is not
    where a piece on top would be), and read red, the colour of more of it; but a blue
    piece may be there too, and the player is asked to check. A red piece seen all red is
    not marked."""
    colors = ["yellow", "green", "black", "yellow"]
    blobs = [square_blob(320 + dx, 240 + dy, 30, c) for (dx, dy), c in zip(((64, 0), (-64, 0), (0, 64), (0, -64)), colors)]
    whole = square_blob(320, 240, 50, "red").pixels
    left = whole[:, 0] < 320 - 25 + 22
    blobs += [blob_of(whole[~left], "red"), blob_of(whole[left], "blue"), square_blob(448, 240, 50, "red")]
    reading = read_pieces(blobs, (640, 480), 64.0, False, PROFILE)
    red = sorted((p for p in reading.pieces if COLOR_ORDER[p.color_index] == "red"), key=lambda p: p.center[0])
    assert [(p.size, p.level, p.confidence < PROFILE.max_uncertain_confidence) for p in red] == [(3, 0, True), (3, 0, False)]
    assert len(reading.pieces) == 6


def test_a_piece_whose_size_hangs_on_the_scale_is_marked_for_checking():
    """Round a black piece, four large ones, and small and medium ones at the corners that
    set the scale. Seen 35 pixels wide, the black piece is a medium at the best pitch and a
    small at one nearly as likely: the player is asked to check it. Seen 38 pixels wide it is
    a medium at every likely pitch, and is not marked."""
    def black_piece(side):
        blobs = [square_blob(320 + dx, 240 + dy, s, c)
                 for (dx, dy), s, c in [((-64, -64), 29, "red"), ((64, -64), 40, "red"), ((-64, 64), 40, "green"),
                                        ((64, 64), 29, "green"), ((0, -64), 51, "blue"), ((0, 64), 51, "blue"),
                                        ((-64, 0), 51, "yellow"), ((64, 0), 51, "yellow")]]
        blobs.append(square_blob(320, 240, side, "black"))
        reading = read_pieces(blobs, (640, 480), 64.0, False, PROFILE)
        assert [p.size for p in reading.pieces if COLOR_ORDER[p.color_index] == "blue"] == [3, 3]
        return next(p for p in reading.pieces if COLOR_ORDER[p.color_index] == "black")

    unsure, sure = black_piece(35), black_piece(38)
    assert (unsure.size, sure.size) == (2, 2)
    assert unsure.confidence < PROFILE.max_uncertain_confidence < sure.confidence


def _sides(sizes, pitch_mm):
    """The sides (grid units) that pieces of ``sizes`` settle at on a grid of ``pitch_mm``,
    3% long as edge fits settle."""
    return np.array([1.03 * BASE_MM[s] / pitch_mm for s in sizes])


@pytest.mark.parametrize("read, least, kept", [
    ([2, 3, 2, 3, 3], [0, 0, 0, 0, 0], [1, 2, 1, 2, 2]),  # a step too large: moved down
    ([2, 3, 2, 3, 3], [0, 2, 0, 0, 0], [2, 3, 2, 3, 3]),  # a medium rests on a large read: it stays larger
    ([1, 3, 2, 3, 3], [0, 0, 0, 0, 0], [1, 3, 2, 3, 3]),  # a small read: no size below it
])
def test_sizes_that_put_the_pitch_out_of_range_move_a_step_where_that_puts_it_in(read, least, kept):
    """A city of smalls and mediums on a 34 mm grid, read as mediums and larges: the sides
    fit those sizes at a 48 mm pitch, coarser than pieces are placed at, and at their true
    sizes at 34 mm. Where a size cannot move (no size below small; a piece resting on one),
    the sizes stay as read."""
    sides = _sides([1, 2, 1, 2, 2], 34.0)
    sizes, scale = _within_pitches(sides, np.array(read), np.array(least))
    assert sizes.tolist() == kept
    assert scale == pytest.approx(34.0 * 1.0 / 1.03, rel=0.01) if kept != read else scale > 42


def test_sizes_that_put_the_pitch_in_range_stay():
    """Sizes whose sides put the pitch among those pieces are placed at are kept as read."""
    sides = _sides([1, 2, 3, 2], 30.0)
    sizes, scale = _within_pitches(sides, np.array([1, 2, 3, 2]), np.zeros(4, int))
    assert sizes.tolist() == [1, 2, 3, 2] and 26 <= scale <= 42


def test_sizes_read_a_step_up_are_told_at_the_sides_own_scale():
    """Smalls, mediums and larges on a 31 mm grid read as mediums, larges and larges (the
    pitch chosen from what differs from the table too coarse): their sides fit those sizes
    at no single scale, and the sizes are told at the sides' own, 31 mm (3% long sides put it
    at 30); read right, at the scale they put the sides at."""
    sizes = [1, 1, 1, 1, 1, 2, 2, 2, 3, 3]
    sides = _sides(sizes, 31.0)
    least = np.zeros(len(sizes), int)
    assert _sides_own_scale(sides, np.minimum(np.array(sizes) + 1, 3), least, PROFILE) == pytest.approx(30.1, abs=0.3)
    right = np.array(sizes)
    assert _sides_own_scale(sides, right, least, PROFILE) == edge_scale(sides, right)


def test_a_city_of_two_sizes_keeps_the_scale_its_sizes_put_the_sides_at():
    """Smalls and mediums fit their sides nearly as well read as mediums and larges (the
    steps differ by 8%): the sides' own scale fits them no better by two pieces' worth, and
    the scale the sizes as read put them at is kept, either way."""
    sizes = np.array([1, 2, 1, 2, 1, 2])
    sides = _sides(sizes, 30.0)
    least = np.zeros(len(sizes), int)
    for read in (sizes, sizes + 1):
        assert _sides_own_scale(sides, read, least, PROFILE) == edge_scale(sides, read)


def test_a_small_city_is_read_again_at_the_tilt_its_ridges_tell(monkeypatch):
    """Six pieces seen at 20 degrees: their lattice alone is fitted as seen straight down.
    Where the pieces' ridges tell the tilt (:func:`vision.tilt.told_tilt`), the city is read
    again with the prior on the camera's tilt round it, and the tilt is found, on the same
    cells."""
    import cv2
    import vision.cells as cells
    from vision.camera import apply_homography, camera_from_homography, intrinsics, looking_toward
    from vision.edge_fit import edge_tensor

    K = intrinsics((640, 480), PROFILE.hfov_deg)
    R = cv2.Rodrigues(np.array([np.radians(20.0), 0.0, 0.0]))[0]
    H = K @ np.column_stack([R[:, 0], R[:, 1], R[:, :2] @ (-1.0, -0.5) + (0.0, 0.0, K[0, 0] / 64.0)])
    grid = [(col, row) for row in range(2) for col in range(3)]
    blobs = [square_blob(round(x), round(y), 36, COLOR_ORDER[(row + 2 * col) % 5])
             for (col, row), (x, y) in zip(grid, apply_homography(H, np.array(grid, np.float64)))]
    edges = edge_tensor(np.full((480, 640, 3), 110, np.uint8), (0, 0, 640, 480))
    toward = tuple(looking_toward(camera_from_homography(H, (640, 480), PROFILE.hfov_deg)))
    told = []
    monkeypatch.setattr(cells, "told_tilt", lambda reading, *args: told.append(reading.camera.tilt_deg) or toward)
    reading = read_pieces(blobs, (640, 480), 64.0, False, PROFILE, edges)
    assert told and told[0] < 1
    assert reading.camera.tilt_deg == pytest.approx(20, abs=5)  # the blobs stand for the pieces' bases, not as seen
    assert len({(p.col, p.row) for p in reading.pieces}) == 6
    monkeypatch.setattr(cells, "told_tilt", lambda *args: None)
    assert read_pieces(blobs, (640, 480), 64.0, False, PROFILE, edges).camera.tilt_deg < 1
