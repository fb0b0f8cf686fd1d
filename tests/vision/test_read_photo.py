"""read_photo: the photo read again at other sizes where its reading breaks the game's rules,
and again without the shadows a low lamp casts."""
import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision
from calibration import load_profile
from vision.detection import DetectedPiece, Detection
from vision.second_readings import DISPUTED_CONFIDENCE, broken_rules, mark_disputed, mended_by_others

PROFILE = load_profile()
SAMPLE = Path(__file__).parents[2] / "sample_images" / "scene_0002.jpg"
LEGAL = [(0, 0, "red", 1), (0, 1, "blue", 2), (1, 1, "green", 1), (1, 2, "yellow", 3)]
TWO_MEDIUMS_SIDE_BY_SIDE = [(0, 0, "red", 2), (0, 1, "blue", 2), (1, 1, "green", 1), (1, 2, "yellow", 3)]


@pytest.fixture(autouse=True)
def _no_low_lamp(monkeypatch):
    """No lamp casts shadows worth leaving out, unless a test fits one."""
    monkeypatch.setattr(vision, "cast_shadows", lambda detection, log_ratio, profile, printed: None)


def _viewed(analyze, plain=False):
    """``analyze`` (rgb, profile, cast) -> Detection as vision._analyze, which also gives the
    table view it read in (its log ratio ``"log ratio"``): of a plain table or a printed one."""
    return lambda rgb, profile, cast=None, view=None, rules=None, variant=None, detail=None: (
        analyze(rgb, profile, cast), ("log ratio", None, None, plain, profile))


def _photo() -> bytes:
    """A 2000 x 1500 JPEG: read at 1000, 806 and 1310 pixels (the profile's sizes)."""
    rng = np.random.default_rng(3)
    ok, data = cv2.imencode(".jpg", rng.integers(0, 255, (1500, 2000, 3), dtype=np.uint8))
    return data.tobytes()


def _detection(cells) -> Detection:
    """A detection of ``cells``: (row, col, colour, size[, level]) each."""
    pieces = [DetectedPiece(r, c, colour, size, level[0] if level else 0, 0.9, (10.0 * c, 10.0 * r), np.zeros((4, 2)))
              for r, c, colour, size, *level in cells]
    return Detection(pieces, np.eye(3), (100, 100), 0.0, 30.0)


def _reader(monkeypatch, by_width):
    """Make vision.analyze return ``by_width[image width]`` (a list of cells, or an
    exception to raise); returns the widths it was asked to read, in order."""
    asked = []

    def analyze(rgb, profile, cast=None):
        asked.append(rgb.shape[1])
        found = by_width[rgb.shape[1]]
        if isinstance(found, Exception):
            raise found
        return _detection(found)
    monkeypatch.setattr(vision, "_analyze", _viewed(analyze))
    return asked


def test_a_reading_that_keeps_the_rules_is_the_only_one_made(monkeypatch):
    asked = _reader(monkeypatch, {1000: LEGAL})
    rgb, detection = vision.read_photo(_photo(), PROFILE)
    assert asked == [1000] and rgb.shape == (750, 1000, 3) and len(detection.pieces) == 4


def test_a_reading_breaking_the_rules_is_made_again_at_other_sizes_until_one_keeps_them(monkeypatch):
    asked = _reader(monkeypatch, {1000: TWO_MEDIUMS_SIDE_BY_SIDE, 806: TWO_MEDIUMS_SIDE_BY_SIDE, 1310: LEGAL})
    rgb, detection = vision.read_photo(_photo(), PROFILE)
    assert asked == [1000, 806, 1310]
    assert rgb.shape[1] == 1310 and [p.size for p in detection.pieces] == [1, 2, 1, 3]


def test_of_equally_bad_readings_the_first_is_kept(monkeypatch):
    _reader(monkeypatch, {w: TWO_MEDIUMS_SIDE_BY_SIDE for w in (1000, 806, 1310)})
    rgb, _ = vision.read_photo(_photo(), PROFILE)
    assert rgb.shape[1] == 1000


def test_of_readings_breaking_as_many_rules_the_surest_is_kept(monkeypatch):
    def analyze(rgb, profile, cast=None):
        detection = _detection(TWO_MEDIUMS_SIDE_BY_SIDE)
        sure = 0.95 if rgb.shape[1] == 806 else 0.5
        pieces = [dataclasses.replace(p, confidence=sure) for p in detection.pieces]
        return dataclasses.replace(detection, pieces=pieces)
    monkeypatch.setattr(vision, "_analyze", _viewed(analyze))
    rgb, _ = vision.read_photo(_photo(), PROFILE)
    assert rgb.shape[1] == 806


def test_a_reading_that_lost_pieces_does_not_win_by_breaking_fewer_rules(monkeypatch):
    """Half the city gone breaks no rule, but two pieces another reading found cost more
    than the one broken rule of that reading."""
    _reader(monkeypatch, {1000: TWO_MEDIUMS_SIDE_BY_SIDE, 806: LEGAL[2:], 1310: vision.BoardNotFound("none")})
    rgb, _ = vision.read_photo(_photo(), PROFILE)
    assert rgb.shape[1] == 1000


def test_a_city_found_at_no_size_is_reported(monkeypatch):
    _reader(monkeypatch, {w: vision.BoardNotFound("no pieces found") for w in (1000, 806, 1310)})
    with pytest.raises(vision.BoardNotFound, match="no pieces found"):
        vision.read_photo(_photo(), PROFILE)


def test_broken_rules_count_pairs_cut_off_cells_surplus_pieces_and_misordered_stacks():
    cells = TWO_MEDIUMS_SIDE_BY_SIDE + [(5, 5, "red", 1)] + [(3 + k, 0, "black", 1) for k in range(4)]
    # mediums side by side: 1; small blacks in a column: 3 pairs; the red apart: 1 cell, the
    # blacks apart: 4 cells; four small blacks: 1 beyond the supply
    assert broken_rules(_detection(cells), ()) == 1 + 3 + 1 + 4 + 1
    # where large pieces may touch, two larges side by side break nothing
    larges = [(0, 0, "red", 3), (0, 1, "blue", 3)]
    assert broken_rules(_detection(larges), ()) == 1
    assert broken_rules(_detection(larges), ("canadian-style",)) == 0
    assert broken_rules(_detection(larges), None) == 1  # the rules in play not known: none
    # a stack is read wherever it stands; one out of order breaks a rule
    assert broken_rules(_detection([(0, 0, "red", 3), (0, 0, "blue", 1, 1)]), ()) == 0
    assert broken_rules(_detection([(0, 0, "red", 1), (0, 0, "blue", 2, 1)]), ()) == 1
    # a Small City's set holds two of each kind: a third is beyond its supply
    three_red_smalls = [(0, 0, "red", 1), (0, 1, "blue", 2), (0, 2, "red", 1), (1, 1, "red", 1)]
    assert broken_rules(_detection(three_red_smalls), ()) == 0
    assert broken_rules(_detection(three_red_smalls), (), "small-city") == 1


def test_a_small_city_s_reading_beyond_its_supply_is_made_again_at_other_sizes(monkeypatch):
    """Three pieces of a kind keep a standard set's supply, not a Small City's: told the
    variant, the reading is made again at the other sizes."""
    three = [(0, 0, "red", 1), (0, 1, "blue", 2), (0, 2, "red", 1), (1, 1, "red", 1)]
    asked = _reader(monkeypatch, {w: three for w in (1000, 806, 1310)})
    vision.read_photo(_photo(), PROFILE, (), "standard")
    assert asked == [1000]
    asked.clear()
    vision.read_photo(_photo(), PROFILE, (), "small-city")
    assert asked == [1000, 806, 1310]


def _on_grid(cells, origin=(100.0, 100.0), pitch=50.0, scale=1.0, shift=(0, 0)) -> Detection:
    """A detection of ``cells`` (as :func:`_detection`) whose grid puts (col, row) at pixel
    ``origin + pitch * (col, row)`` of an image of 1000 x 750, all times ``scale``, its rows
    and columns numbered from ``shift`` (row, col) less than the cells given."""
    H = np.array([[pitch, 0, origin[0]], [0, pitch, origin[1]], [0, 0, 1.0]])
    pieces = []
    for r, c, colour, size, *level in cells:
        x, y = H[:2] @ (c, r, 1.0)
        pieces.append(DetectedPiece(r - shift[0], c - shift[1], colour, size, level[0] if level else 0, 0.9,
                                    (scale * x, scale * y), np.zeros((4, 2))))
    back = np.array([[1.0, 0, shift[1]], [0, 1.0, shift[0]], [0, 0, 1.0]])
    S = np.diag([scale, scale, 1.0])
    return Detection(pieces, S @ H @ back, (round(1000 * scale), round(750 * scale)), 0.0, 30.0, ["photo too oblique"])


def test_pieces_another_reading_reads_otherwise_are_with_confidences():
    kept = _on_grid(LEGAL)
    # read at 0.8 times the size, with a phantom above the city: its rows are numbered from it
    other = _on_grid([(0, 0, "red", 1), (0, 1, "blue", 3), (1, 1, "green", 1, 0), (1, 1, "red", 1, 1),
                      (-1, 2, "black", 1)], scale=0.8, shift=(-1, 0))
    marked = mark_disputed(kept, [other], 0.6)
    assert [p.confidence for p in marked.pieces] == [0.9, DISPUTED_CONFIDENCE, DISPUTED_CONFIDENCE, DISPUTED_CONFIDENCE]
    assert marked.warnings == ["3 pieces uncertain", "photo too oblique"]


def test_an_empty_cell_beside_the_city_where_another_reading_reads_a_piece_is_doubted():
    """A piece the kept reading missed leaves no piece to flag: its cell, where another
    size's reading finds one, is doubted instead, and warned of; a piece that reading finds
    away from the city is no reason to doubt a cell."""
    kept = _on_grid(LEGAL)
    other = _on_grid(LEGAL + [(0, 2, "black", 1), (3, 5, "black", 2)], scale=0.8)
    marked = mark_disputed(kept, [other], 0.6)
    assert marked.doubtful_empty == [(0, 2)] and [p.confidence for p in marked.pieces] == [0.9] * 4
    assert marked.warnings == ["1 empty cell may hold a piece", "photo too oblique"]


def test_readings_that_agree_flag_nothing():
    kept = _on_grid(LEGAL)
    assert mark_disputed(kept, [_on_grid(LEGAL, scale=1.3)], 0.6) is kept


# three red smalls: one more than a Small City's set holds
THREE_RED_SMALLS = [(0, 0, "red", 1), (0, 1, "blue", 2), (0, 2, "red", 1), (1, 1, "red", 1)]


def _with_confidences(detection: Detection, confidences: dict) -> Detection:
    """``detection`` with each piece on a cell (row, col) of ``confidences`` as sure as it says."""
    pieces = [dataclasses.replace(p, confidence=confidences.get((p.row, p.col), p.confidence))
              for p in detection.pieces]
    return dataclasses.replace(detection, pieces=pieces)


def test_a_piece_beyond_the_supply_is_read_as_another_reading_reads_it_where_that_keeps_the_rules():
    """Three red smalls in a Small City; read at 0.8 times the size, two of them are yellow:
    the less sure is read so, flagged, at that reading's centre (on the kept image), and the
    city keeps the rules. Not where the other reading reads a stack there, nor where its
    piece breaks as many rules (a blue medium beside the blue one), nor where the kept
    reading keeps the rules or breaks only others (two mediums side by side)."""
    kept = _with_confidences(_on_grid(THREE_RED_SMALLS), {(0, 0): 0.8, (0, 2): 0.7})
    yellow = [(0, 0, "yellow", 1), *THREE_RED_SMALLS[1:2], (0, 2, "yellow", 1), *THREE_RED_SMALLS[3:]]
    other = _on_grid(yellow, scale=0.8)
    mended = mended_by_others(kept, [other], (), "small-city")
    assert [(p.color, p.size) for p in mended.pieces] == [("red", 1), ("blue", 2), ("yellow", 1), ("red", 1)]
    assert mended.pieces[2].confidence == DISPUTED_CONFIDENCE
    assert [mended.pieces[k] for k in (0, 1, 3)] == [kept.pieces[k] for k in (0, 1, 3)]
    assert np.allclose(mended.pieces[2].center, kept.pieces[2].center)
    assert broken_rules(mended, (), "small-city") == 0
    less_sure_first = mended_by_others(_with_confidences(kept, {(0, 0): 0.6}), [other], (), "small-city")
    assert [p.color for p in less_sure_first.pieces] == ["yellow", "blue", "red", "red"]

    stack = _on_grid([*yellow[:2], (0, 2, "red", 2), (0, 2, "yellow", 1, 1), *yellow[3:]], scale=0.8)
    blue = _on_grid([*THREE_RED_SMALLS[:2], (0, 2, "blue", 2), *THREE_RED_SMALLS[3:]], scale=0.8)
    for unmended, others in ((kept, [blue]), (_on_grid(LEGAL), [other]),
                             (_on_grid(TWO_MEDIUMS_SIDE_BY_SIDE), [_on_grid(LEGAL, scale=0.8)])):
        assert mended_by_others(unmended, others, (), "small-city") is unmended
    assert [p.color for p in mended_by_others(kept, [stack], (), "small-city").pieces] == [
        "yellow", "blue", "red", "red"]


def test_the_kept_reading_takes_a_piece_as_another_size_reads_it_where_that_keeps_the_rules(monkeypatch):
    """Read at 1000 pixels, three red smalls in a Small City; at 806, less surely, one of them
    a yellow small but another a red medium beside the blue one: each breaks one rule, the
    first is kept, and its red small is read as the yellow one the other reading found
    there."""
    at_806 = [(0, 0, "red", 1), (0, 1, "blue", 2), (0, 2, "yellow", 1), (1, 1, "red", 2)]
    cells = {1000: THREE_RED_SMALLS, 806: at_806, 1310: THREE_RED_SMALLS}
    confidences = {1000: {}, 806: {cell: 0.3 for cell in [(0, 0), (0, 1), (0, 2), (1, 1)]}, 1310: {}}
    monkeypatch.setattr(vision, "_analyze", _viewed(lambda rgb, profile, cast=None: _with_confidences(_on_grid(
        cells[rgb.shape[1]], scale=rgb.shape[1] / 1000), confidences[rgb.shape[1]])))
    rgb, detection = vision.read_photo(_photo(), PROFILE, (), "small-city")
    assert rgb.shape[1] == 1000
    assert [(p.color, p.size) for p in detection.pieces] == [("red", 1), ("blue", 2), ("yellow", 1), ("red", 1)]


def test_a_reading_leaving_a_cell_where_a_piece_may_stand_is_made_again_and_loses_to_one_finding_it(monkeypatch):
    """A reading that keeps the rules but leaves an empty cell where a piece may stand
    unseen (a black piece on a dark table, say) is made again at another size; one that
    finds that piece is kept. Where no cell is doubted, the first reading is the only one."""
    asked = []

    def analyze(rgb, profile, cast=None):
        asked.append(rgb.shape[1])
        if rgb.shape[1] == 1000:
            return dataclasses.replace(_detection(LEGAL[:3]), doubtful_empty=[(1, 2)])
        return _detection(LEGAL)
    monkeypatch.setattr(vision, "_analyze", _viewed(analyze))
    rgb, detection = vision.read_photo(_photo(), PROFILE)
    assert asked == [1000, 806] and rgb.shape[1] == 806 and len(detection.pieces) == 4


def test_a_reading_completed_by_guesses_is_made_again_and_loses_to_one_as_cheap_and_surer(monkeypatch):
    """A reading that changed pieces to fit a whole set (``guessed``, flagged) keeps the rules
    but guessed them: it is made again at the other sizes, and the first that reads the same
    count surer is kept."""
    asked = []

    def analyze(rgb, profile, cast=None):
        asked.append(rgb.shape[1])
        detection = _detection(LEGAL)
        if rgb.shape[1] != 1000:
            return detection
        guessed = [dataclasses.replace(p, confidence=0.2) if p.row == 1 else p for p in detection.pieces]
        return dataclasses.replace(detection, pieces=guessed, guessed=2)
    monkeypatch.setattr(vision, "_analyze", _viewed(analyze))
    rgb, detection = vision.read_photo(_photo(), PROFILE)
    assert asked == [1000, 806, 1310] and rgb.shape[1] == 806 and not detection.guessed


def test_a_reading_off_a_clear_grid_is_made_again_and_loses_to_one_on_it(monkeypatch):
    """A reading whose pieces do not sit on a clear grid has mostly collapsed (a lattice
    fitted off the city's): though it breaks no more rules, another size's reading on a
    clear grid is kept."""
    def analyze(rgb, profile, cast=None):
        detection = _detection(TWO_MEDIUMS_SIDE_BY_SIDE)
        return dataclasses.replace(detection, on_grid=rgb.shape[1] != 1000)
    monkeypatch.setattr(vision, "_analyze", _viewed(analyze))
    rgb, detection = vision.read_photo(_photo(), PROFILE)
    assert rgb.shape[1] == 806 and detection.on_grid


def _in_doubt(detection: Detection) -> Detection:
    """``detection`` leaving an empty cell where a piece may stand: every size is read."""
    return dataclasses.replace(detection, doubtful_empty=[(5, 5)])


@pytest.mark.parametrize("lamp_low_for, plain, rounds", [
    (5, True, ["shadows 1", "shadows 2"]),  # two rounds, each reading placing the shadows better
    (1, True, ["shadows 1"]),               # the second reading's lamp is high
    (0, True, []),                          # a high lamp: no round
    (5, False, ["shadows 1", "shadows 2"]),  # on a print too, its lamp fitted as a print's
])
def test_a_low_lamps_shadows_are_left_out_of_the_candidates(monkeypatch, lamp_low_for, plain, rounds):
    """Where the lamp fitted to the kept reading (of the three sizes: the first left a cell
    in doubt) is low, the photo is read again without the shadows it casts, and that reading
    kept, up to ``cast_shadow_rounds`` times (each reading here reads the city otherwise than
    the one before, and settles it at the first size)."""
    asked, fitted = [], []
    cities = {None: LEGAL, "shadows 1": LEGAL[:3], "shadows 2": LEGAL}

    def analyze(rgb, profile, cast=None):
        asked.append(cast)
        found = dataclasses.replace(_detection(cities[cast]), warnings=[f"without {cast}"])
        return _in_doubt(found) if cast is None else found

    def cast_shadows(detection, log_ratio, profile, printed):
        assert log_ratio == "log ratio" and printed == (not plain)
        fitted.append(detection.warnings[-1])
        return f"shadows {len(fitted)}" if len(fitted) <= lamp_low_for else None
    monkeypatch.setattr(vision, "_analyze", _viewed(analyze, plain))
    monkeypatch.setattr(vision, "cast_shadows", cast_shadows)
    assert PROFILE.cast_shadow_rounds == 2
    _, detection = vision.read_photo(_photo(), PROFILE)
    assert asked == [None] * 3 + rounds and f"without {([None] + rounds)[-1]}" in detection.warnings
    assert fitted == [f"without {cast}" for cast in [None, *rounds][:2]]


@pytest.mark.parametrize("guessed", [0, 2])
def test_a_reading_the_working_size_settled_is_not_read_again_for_shadows(monkeypatch, guessed):
    """It keeps the rules and leaves no cell in doubt: a low lamp is not looked for. So too
    where it guessed pieces to fit a whole set and the other sizes, read for them, read the
    city worse."""
    asked = []

    def analyze(rgb, profile, cast=None):
        asked.append(cast)
        if rgb.shape[1] == 1000:
            return dataclasses.replace(_detection(LEGAL), guessed=guessed)
        return _detection(TWO_MEDIUMS_SIDE_BY_SIDE)
    monkeypatch.setattr(vision, "_analyze", _viewed(analyze, plain=True))
    monkeypatch.setattr(vision, "cast_shadows",
                        lambda detection, log_ratio, profile, printed: pytest.fail("lamp fitted"))
    rgb, _ = vision.read_photo(_photo(), PROFILE)
    assert asked == [None] * (3 if guessed else 1) and rgb.shape[1] == 1000


def test_a_reading_the_shadows_left_out_did_not_change_is_not_made_again(monkeypatch):
    """The same pieces cast the same shadows: a second round would read the same city."""
    asked = []

    def analyze(rgb, profile, cast=None):
        asked.append(cast)
        found = dataclasses.replace(_detection(LEGAL), warnings=[f"without {cast}"])
        return _in_doubt(found) if cast is None else found
    monkeypatch.setattr(vision, "_analyze", _viewed(analyze, plain=True))
    monkeypatch.setattr(vision, "cast_shadows",
                        lambda detection, log_ratio, profile, printed: f"shadows {len(asked)}")
    _, detection = vision.read_photo(_photo(), PROFILE)
    assert asked == [None] * 3 + ["shadows 3"] and detection.warnings == ["without shadows 3"]


def test_a_reading_that_lost_the_city_with_the_shadows_is_not_kept(monkeypatch):
    """Leaving the shadows out lost 2 of the 4 cells (the faces of pieces the first reading
    missed went with them): the reading with the shadows is kept."""
    asked = []

    def analyze(rgb, profile, cast=None):
        asked.append(cast)
        return _in_doubt(_detection(LEGAL)) if cast is None else _detection(LEGAL[:2])
    monkeypatch.setattr(vision, "_analyze", _viewed(analyze, plain=True))
    monkeypatch.setattr(vision, "cast_shadows", lambda detection, log_ratio, profile, printed: "shadows")
    _, detection = vision.read_photo(_photo(), PROFILE)
    assert asked == [None] * 3 + ["shadows"] and len(detection.pieces) == 4


def test_each_size_is_decoded_and_its_table_seen_once_however_often_it_is_read(monkeypatch):
    """The readings break the rules at every size but the last, and so are made at each;
    two rounds without shadows read them all again, from the images and views already
    made."""
    decoded, viewed = [], []
    sides = [round(scale * PROFILE.working_side) for scale in (1.0, *PROFILE.second_reading_scales)]
    largest = max(sides)

    def load_photo(data, side):
        decoded.append(side)
        return np.zeros((round(0.75 * side), side, 3), np.uint8)

    def analyze(rgb, profile, cast=None, view=None, rules=None, variant=None, detail=None):
        viewed.append(view)
        found = TWO_MEDIUMS_SIDE_BY_SIDE if rgb.shape[1] != largest else LEGAL[:3 if cast == "shadows 1" else 4]
        return _detection(found), view or ("log ratio", None, None, True, profile)
    monkeypatch.setattr(vision, "load_photo", load_photo)
    monkeypatch.setattr(vision, "_analyze", analyze)
    monkeypatch.setattr(vision, "cast_shadows",
                        lambda detection, log_ratio, profile, printed: f"shadows {len(viewed) // 3}")
    vision.read_photo(_photo(), PROFILE)
    assert decoded == sides
    assert len(viewed) == 9 and viewed[:3] == [None] * 3
    assert all(view is not None for view in viewed[3:])


def test_the_photo_is_decoded_at_its_full_size_once_and_only_where_a_reading_asks(monkeypatch):
    """A reading may ask for the photo at ``detail_side`` (a closer look at a doubted
    stack): it is decoded then, once however many readings ask, and never where none does."""
    decoded = []

    def load_photo(data, side):
        decoded.append(side)
        return np.zeros((round(0.75 * side), side, 3), np.uint8)

    def analyze(rgb, profile, cast=None, view=None, rules=None, variant=None, detail=None):
        if asking and detail is not None:
            assert detail().shape == (round(0.75 * PROFILE.detail_side), PROFILE.detail_side, 3)
        return _detection(TWO_MEDIUMS_SIDE_BY_SIDE), ("log ratio", None, None, False, profile)
    monkeypatch.setattr(vision, "load_photo", load_photo)
    monkeypatch.setattr(vision, "_analyze", analyze)
    sides = [round(scale * PROFILE.working_side) for scale in (1.0, *PROFILE.second_reading_scales)]
    for asking, expected in ((True, [sides[0], PROFILE.detail_side, *sides[1:]]), (False, sides)):
        decoded.clear()
        vision.read_photo(_photo(), PROFILE)
        assert decoded == expected


def test_each_reading_is_made_under_the_rules_and_variant_in_play(monkeypatch):
    """The rules and variant the photo is read under reach every reading (made at each
    size); where the variant is not told, none is."""
    seen = []

    def analyze(rgb, profile, cast=None, view=None, rules=None, variant=None, detail=None):
        seen.append((rules, variant))
        return _detection(TWO_MEDIUMS_SIDE_BY_SIDE), ("log ratio", None, None, False, profile)
    monkeypatch.setattr(vision, "_analyze", analyze)
    vision.read_photo(_photo(), PROFILE, ("canadian-style", "piazzas"), "small-city")
    assert seen == [(("canadian-style", "piazzas"), "small-city")] * 3
    seen.clear()
    vision.read_photo(_photo(), PROFILE, ("canadian-style", "piazzas"))
    assert seen == [(("canadian-style", "piazzas"), None)] * 3


@pytest.mark.parametrize("name, plain", [("scene_0079.jpg", True), ("scene_0154.jpg", False)])
def test_black_pieces_are_told_by_their_shading_on_a_plain_table_only(monkeypatch, name, plain):
    """A print's own shading is no lamp's: on a printed cloth the doubted cells are left to
    the player."""
    seen = []
    monkeypatch.setattr(vision, "black_on_doubted_cells", lambda reading, *args: seen.append(args) or reading)
    photo = (SAMPLE.parent / name).read_bytes()
    vision.analyze(vision.load_photo(photo, PROFILE.working_side), PROFILE)
    assert bool(seen) == plain


FACES = (PROFILE.stack_face_contrast, PROFILE.stack_face_doubt)
FACES_IN_PLAY = (PROFILE.stack_face_contrast_in_play, PROFILE.stack_face_doubt_in_play)


@pytest.mark.parametrize("rules, stacks, larges_touch, faces, large_pair_cost", [
    (None, True, False, FACES, PROFILE.large_pair_cost),
    (("little-boxes", "piazzas", "clusters"), False, False, FACES, PROFILE.large_pair_cost),
    (("little-boxes", "mixed-use-development", "clusters"), True, False, FACES_IN_PLAY, PROFILE.large_pair_cost),
    (("canadian-style", "piazzas", "clusters"), False, True, FACES, PROFILE.large_pair_cost_in_play),
], ids=["rules-not-known", "no-stacks-in-play", "mixed-use-in-play", "canadian-style-in-play"])
def test_the_rules_in_play_tell_how_stacks_and_sizes_are_read(monkeypatch, rules, stacks, larges_touch, faces,
                                                              large_pair_cost):
    """Where Mixed-Use Development is in play the player may have stacked any piece, and the
    faces of a lower piece tell a stack, or doubt one, at lesser contrasts; where other rules
    are in play without it, no stack is read from hints; where Canadian Style is, two larges
    side by side cost the sizes less, and a stack's large lower piece and a whole set's
    large missed may stand beside a large; where the rules are not known, as ever. The photo
    at its full size, where given, reaches the check too."""
    seen = {}

    def check_reading(reading, *args):
        seen["check"] = ((args[5].stack_face_contrast, args[5].stack_face_doubt), args[5].large_pair_cost, *args[-3:])
        return reading

    def as_whole_set(reading, profile, edges, image, stacks, larges_touch, variant, log_ratio):
        seen["whole set"] = (stacks, larges_touch, variant)
        return reading
    monkeypatch.setattr(vision, "check_reading", check_reading)
    monkeypatch.setattr(vision, "as_whole_set", as_whole_set)
    closer = dataclasses.replace  # any callable: the photo at its full size, passed on to the check
    vision.analyze(vision.load_photo(SAMPLE.read_bytes(), PROFILE.working_side), PROFILE, rules=rules,
                   variant="small-city", detail=closer)
    assert seen == {"check": (faces, large_pair_cost, stacks, larges_touch, closer),
                    "whole set": (stacks, larges_touch, "small-city")}
