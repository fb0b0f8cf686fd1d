"""analyze: where the pieces look larger than their spacing allows, the photo is read again
without its shadows, and that reading kept where its pitches agree better and, for pieces
that do not glow, it keeps most of the city."""
from types import SimpleNamespace

import pytest

import vision


def _reading(pitch_mm: float, cells: int) -> SimpleNamespace:
    """A reading modelled at ``pitch_mm`` on a grid of 30 mm, with one piece on each of
    ``cells`` cells."""
    return SimpleNamespace(pitch_mm=pitch_mm, grid_pitch_mm=30.0,
                           pieces=[SimpleNamespace(col=k, row=0) for k in range(cells)])


@pytest.mark.parametrize("second_pitch, second_cells, least_kept, kept", [
    (29.5, 7, 0.66, "second"),  # nearer its grid's pitch, 7 of 10 cells kept
    (29.5, 6, 0.66, "first"),   # nearer, but 4 of 10 cells lost with the shadows
    (29.5, 6, 0.0, "second"),   # glowing pieces: a shadow is never their faces
    (26.0, 10, 0.66, "first"),  # no nearer its grid's pitch
])
def test_the_shadowless_reading_is_kept_where_its_pitch_agrees_better_and_it_keeps_the_city(
        monkeypatch, second_pitch, second_cells, least_kept, kept):
    first, second = _reading(27.0, 10), _reading(second_pitch, second_cells)
    monkeypatch.setattr(vision, "_candidates", lambda view, unlit_shadows=False, cast=None: "shadowless candidates")
    monkeypatch.setattr(vision, "_read", lambda found, image_size, edges: second)
    found, reading = vision._read_without_shadows(None, "candidates", first, (100, 100), None, least_kept, None)
    assert (found, reading) == (("shadowless candidates", second) if kept == "second" else ("candidates", first))
