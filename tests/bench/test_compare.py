"""Comparing a read city with the ground truth: errors by kind and where the marks fall."""
from bench.compare import assess, compare, marks
from bench.vision import _checkable


def piece(row, col, color="red", size=1, level=0, confidence=0.9):
    return {"row": row, "col": col, "color": color, "size": size, "level": level, "confidence": confidence}


TRUTH = [piece(0, 0), piece(0, 1, "blue", 2), piece(1, 0, "green", 3), piece(1, 0, "yellow", 1, level=1),
         piece(1, 1, "black", 2)]


def test_a_city_read_one_cell_off_is_compared_at_its_best_shift():
    found = [dict(p, row=p["row"] + 3, col=p["col"] - 2) for p in TRUTH]
    assert compare(TRUTH, found) == {}


def test_errors_are_counted_by_kind():
    found = [piece(5, 5), piece(5, 6, "red", 2), piece(6, 5, "green", 3), piece(6, 6, "black", 1), piece(7, 7)]
    assert compare(TRUTH, found) == {"wrong_color": 1, "wrong_size": 1, "wrong_level": 1, "phantom": 1}


def test_marks_are_counted_on_wrong_and_right_pieces_and_missed_ones_cannot_be_marked():
    """A wrong colour marked, the misread stack's cell marked, a phantom not, a right piece
    marked; the black piece's cell read empty."""
    found = [piece(0, 0, confidence=0.3), piece(0, 1, "red", 2, confidence=0.2), piece(1, 0, "green", 3, confidence=0.5),
             piece(2, 2, confidence=0.95)]
    counts = marks(TRUTH, found, 0.6)
    assert counts == {"right": 1, "right_marked": 1, "wrong": 3, "wrong_marked": 2, "unmarkable": 1,
                      "unmarkable_checked": 0, "empty_checked": 0}
    assert _checkable(counts, exact=False)["photos_checkable"] == 0


def test_a_missed_piece_on_a_doubtful_cell_is_checked_and_so_is_an_empty_one():
    """The city read two rows and a column off, right but for the black piece missed: its
    cell, doubted (on the found city's grid), is checked, and the photo can be mended from
    its marks; a doubted cell the truth leaves empty is counted apart."""
    found = [dict(p, row=p["row"] + 2, col=p["col"] + 1) for p in TRUTH if p["color"] != "black"]
    counts = marks(TRUTH, found, 0.6, doubtful=[(3, 2), (0, 0)])
    assert (counts["unmarkable"], counts["unmarkable_checked"], counts["empty_checked"]) == (1, 1, 1)
    assert _checkable(counts, exact=False)["photos_checkable"] == 1
    assert _checkable(marks(TRUTH, found, 0.6), exact=False)["photos_checkable"] == 0


def test_a_photo_whose_every_error_is_marked_can_be_mended_from_its_marks():
    found = [dict(p) for p in TRUTH]
    found[1] = piece(0, 1, "blue", 3, confidence=0.4)  # a wrong size, marked
    counts = _checkable(marks(TRUTH, found, 0.6), exact=False)
    assert (counts["wrong"], counts["wrong_marked"], counts["photos_checkable"]) == (1, 1, 1)


def test_assess_gives_the_errors_and_the_marks_at_one_shift():
    found = [dict(p, row=p["row"] + 1, col=p["col"] + 1) for p in TRUTH]
    found[0] = dict(found[0], color="blue", confidence=0.3)
    found.append(piece(9, 9, confidence=0.2))
    errors, counts = assess(TRUTH, found, 0.6)
    assert errors == compare(TRUTH, found) == {"wrong_color": 1, "phantom": 1}
    expected = {"right": 4, "right_marked": 0, "wrong": 2, "wrong_marked": 2, "unmarkable": 0,
                "unmarkable_checked": 0, "empty_checked": 0}
    assert counts == marks(TRUTH, found, 0.6) == expected
