import io
import struct
import zlib

import numpy as np
import pytest
from PIL import Image

from vision import PhotoError, load_photo
from vision.load import field_of_view


def encode(rgb: np.ndarray, fmt: str, **kw) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, format=fmt, **kw)
    return buf.getvalue()


def gradient(h=300, w=400) -> np.ndarray:
    rng = np.random.default_rng(7)
    img = np.zeros((h, w, 3), np.uint8)
    img[..., 0] = np.linspace(0, 255, w, dtype=np.uint8)[None]
    img[..., 1] = 80
    img[..., 2] = rng.integers(0, 255, (h, w), dtype=np.uint8)
    return img


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP", "HEIF"])
def test_formats_decode_to_rgb_and_shrink(fmt):
    rgb = load_photo(encode(gradient(600, 800), fmt), max_side=400)
    assert rgb.dtype == np.uint8 and rgb.shape == (300, 400, 3)
    assert rgb[150, 390, 0] > 200 and rgb[150, 5, 0] < 40  # red grows to the right: RGB order


@pytest.mark.parametrize("max_side, shape", [(205, (150, 200, 3)), (220, (165, 220, 3))])
def test_jpeg_decoded_at_a_reduced_scale_a_little_short_of_the_working_side(max_side, shape):
    # 800 pixels at 1/4 are 200: under 5% short of 205, used as decoded; 220 needs 1/2, resized
    rgb = load_photo(encode(gradient(600, 800), "JPEG", quality=95), max_side=max_side)
    assert rgb.shape == shape
    assert rgb[shape[0] // 2, shape[1] - 3, 0] > 200 and rgb[shape[0] // 2, 2, 0] < 40


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP", "HEIF"])
def test_exif_orientation_is_applied(fmt):
    img = gradient(300, 400)
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise for display
    data = encode(img, fmt, exif=exif.tobytes(), **({} if fmt == "PNG" else {"quality": 95}))
    rgb = load_photo(data, max_side=1000)
    assert rgb.shape == (400, 300, 3)
    assert rgb[5, 150, 0] < 40 and rgb[395, 150, 0] > 200  # the left edge is now on top


@pytest.mark.parametrize("data, words", [
    (b"", "empty"),
    (b"hello, this is a text file\n" * 10, "not a photo"),
])
def test_not_a_photo(data, words):
    with pytest.raises(PhotoError, match=words):
        load_photo(data)


def test_truncated_jpeg():
    data = encode(gradient(), "JPEG")
    with pytest.raises(PhotoError, match="truncated|complete"):
        load_photo(data[: len(data) // 2])


def _png_header_only(width: int, height: int) -> bytes:
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 16)) + chunk(b"IEND", b"")


def test_huge_png_is_refused_before_decoding():
    with pytest.raises(PhotoError, match="too large|not a photo"):
        load_photo(_png_header_only(20000, 20000))


def with_focal_length(rgb: np.ndarray, focal_35mm: int, fmt: str = "JPEG", shot=None) -> bytes:
    """A photo of ``rgb`` recording a lens of ``focal_35mm`` (EXIF FocalLengthIn35mmFilm),
    and, if given, the size (width, height) it was ``shot`` at (PixelXDimension, -Y)."""
    exif = Image.Exif()
    exif.get_ifd(0x8769)[0xA405] = focal_35mm
    if shot:
        exif.get_ifd(0x8769).update({0xA002: shot[0], 0xA003: shot[1]})
    return encode(rgb, fmt, exif=exif.tobytes())


@pytest.mark.parametrize("focal, shape, degrees", [(26, (300, 400), 67.3), (48, (300, 400), 39.7),
                                                    (26, (400, 300), 67.3), (24, (450, 800), 76.3)])
def test_the_field_of_view_is_read_from_the_35mm_equivalent_focal_length(focal, shape, degrees):
    # a 36 x 24 mm frame's diagonal field of view, the long side's share of it by the aspect
    assert field_of_view(with_focal_length(gradient(*shape), focal)) == pytest.approx(degrees, abs=0.1)


@pytest.mark.parametrize("fmt", ["HEIF", "WEBP"])
def test_the_field_of_view_is_read_from_an_iphones_heic_and_from_webp(fmt):
    assert field_of_view(with_focal_length(gradient(), 48, fmt)) == pytest.approx(39.7, abs=0.1)


def test_a_photo_shrunk_keeps_its_lens_and_a_cropped_one_has_none():
    # shot at 4032 x 3024 (4:3): shrunk to 400 x 300 it sees what the lens saw; cut to
    # 400 x 200 it sees less, by an amount no EXIF tells
    assert field_of_view(with_focal_length(gradient(300, 400), 26, shot=(4032, 3024))) == pytest.approx(67.3, abs=0.1)
    assert field_of_view(with_focal_length(gradient(300, 400), 26, shot=(3024, 4032))) == pytest.approx(67.3, abs=0.1)
    assert field_of_view(with_focal_length(gradient(200, 400), 26, shot=(4032, 3024))) is None


@pytest.mark.parametrize("focal", [0, 2000])
def test_a_focal_length_no_lens_has_is_no_field_of_view(focal):
    assert field_of_view(with_focal_length(gradient(), focal)) is None


def test_a_photo_without_a_lens_record_or_no_photo_has_no_field_of_view():
    assert field_of_view(encode(gradient(), "JPEG")) is None
    assert field_of_view(encode(gradient(), "PNG")) is None
    assert field_of_view(b"not a photo at all") is None
