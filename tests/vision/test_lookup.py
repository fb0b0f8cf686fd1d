import numpy as np

from vision._lookup import pixels_at, pixels_where


def test_the_pixels_where_a_mask_is_set_are_numpys_in_raster_order():
    rng = np.random.default_rng(3)
    image = rng.random((40, 50, 3), dtype=np.float32)
    where = rng.random((40, 50)) < 0.3
    window = image[5:30, 10:45]  # a view, not contiguous
    assert np.array_equal(pixels_where(image, where), image[where])
    assert np.array_equal(pixels_where(window, where[5:30, 10:45]), window[where[5:30, 10:45]])
    assert pixels_where(image, np.zeros((40, 50), bool)).shape == (0, 3)


def test_the_pixels_at_points_are_numpys_for_colour_and_grey_images():
    rng = np.random.default_rng(4)
    colour = rng.integers(0, 256, (30, 20, 3), dtype=np.uint8)
    grey = rng.random((30, 20), dtype=np.float32)
    xs, ys = rng.integers(0, 20, 100), rng.integers(0, 30, 100)
    assert np.array_equal(pixels_at(colour, xs, ys), colour[ys, xs])
    assert np.array_equal(pixels_at(grey, xs, ys), grey[ys, xs])
