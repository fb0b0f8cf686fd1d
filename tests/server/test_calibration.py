"""/api/calibration: the player calibrates the site to their pieces from the phone, photos are
read with that profile until they forget it, and bad photos leave the calibration as it was."""
import io
import json
import os

import cv2
import pytest

from bench.calibrate import layout_scene
from bench.compare import compare
from bench.scenegen.scene import make_scene
from calibration.calibrate import layout_city


@pytest.fixture(scope="module")
def vivid_photos():
    """Another maker's pieces (``plastics="vivid"``) on a white table, rendered small: a photo
    of the calibration layout and one of a city (seed 5 scene 19, whose two colours the default
    profile misreads: tests/calibration/test_calibrate.py), with that city's truth."""
    cv2.setNumThreads(1)
    layout, _ = make_scene(5, layout_scene(5, "white"), scale=0.3, city=layout_city(), plastics="vivid")
    photo, truth = make_scene(5, 19, scale=0.3, plastics="vivid")
    return layout, photo, truth["city"]


def post_photo(client, url, data: bytes, **fields):
    upload = {"photo": (io.BytesIO(data), "photo.jpg"), **fields}
    return client.post(url, data=upload, content_type="multipart/form-data")


def read(client, photo: bytes, city: dict, **fields) -> tuple[dict, dict]:
    """The detection of ``photo`` by the site, told the rules and variant of ``city``, and its
    errors against ``city``."""
    response = post_photo(client, "/api/detect", photo, rules=",".join(city["rules"]), variant=city["variant"], **fields)
    assert response.status_code == 200, response.get_json()
    detection = response.get_json()
    return detection, compare(city["pieces"], detection["pieces"])


def test_without_a_calibration_photos_are_read_with_the_default(client):
    assert client.get("/api/calibration").get_json() == {
        "calibrated": False, "made": None, "report": None, "problem": None, "base": "default"}


def test_a_calibration_made_from_the_phone_reads_another_maker_s_pieces_until_forgotten(client, vivid_photos):
    layout, photo, city = vivid_photos
    detection, errors = read(client, photo, city)
    assert detection["profile"] == "default" and errors == {"wrong_color": 2}

    response = post_photo(client, "/api/calibration", layout)
    assert response.status_code == 201, response.get_json()
    status = response.get_json()
    assert status["calibrated"] and status["made"] and status["problem"] is None
    report = status["report"]
    assert report["read_right"] == report["candidates"] >= 15 and report["worst_margin"] > 0
    assert report["sizes_right"] == 15 and report["unseen"] == [] and report["left_out"] == 0
    assert report["lines"][0].startswith("colours: ") and report["lines"][1] == "sizes: 15/15 read as laid out"
    assert client.get("/api/calibration").get_json() == status

    detection, errors = read(client, photo, city)
    assert detection["profile"] == "calibrated" and errors == {}
    detection, errors = read(client, photo, city, profile="default")  # a profile the phone names comes first
    assert detection["profile"] == "default" and errors == {"wrong_color": 2}

    forgotten = client.delete("/api/calibration")
    assert forgotten.status_code == 200 and not forgotten.get_json()["calibrated"]
    assert read(client, photo, city)[0]["profile"] == "default"
    assert not client.delete("/api/calibration").get_json()["calibrated"]  # forgetting twice is no error


def test_a_photo_that_shows_no_layout_is_refused_and_the_calibration_kept(client, vivid_photos, sample_photo):
    layout = vivid_photos[0]
    assert post_photo(client, "/api/calibration", layout).status_code == 201
    kept = client.get("/api/calibration").get_json()
    refused = post_photo(client, "/api/calibration", sample_photo.read_bytes())
    assert refused.status_code == 400
    assert "expected the 5 x 3 calibration block (15 pieces)" in refused.get_json()["error"]
    assert client.get("/api/calibration").get_json() == kept


@pytest.mark.parametrize("data, reason", [
    (b"", "the photo is empty"),
    (b"not a photo at all\n", "not a photo citycam can read"),
])
def test_bad_uploads_get_a_plain_reason(client, data, reason):
    response = post_photo(client, "/api/calibration", data)
    assert response.status_code == 400 and reason in response.get_json()["error"]
    assert client.post("/api/calibration", data={}).get_json()["error"].startswith("missing field 'photo'")
    assert not client.get("/api/calibration").get_json()["calibrated"]


def test_a_damaged_calibration_is_reported_and_photos_are_read_with_the_default(app, client, vivid_photos):
    """A kept calibration that no longer loads (a damaged file, one made by an older citycam)
    is not silently dropped: the page says why, and each reading warns, read with the default."""
    layout, photo, city = vivid_photos
    assert post_photo(client, "/api/calibration", layout).status_code == 201
    path = app.config["CALIBRATION"]
    assert os.path.dirname(path) == os.path.dirname(app.config["DATABASE"])  # kept beside the games
    record = json.loads(open(path).read())
    record["profile"]["version"] = 0
    with open(path, "w") as out:
        json.dump(record, out)
    status = client.get("/api/calibration").get_json()
    assert not status["calibrated"] and "profile format version 0" in status["problem"]
    detection, _ = read(client, photo, city)
    assert detection["profile"] == "default"
    assert any(w.startswith("your calibration could not be used") for w in detection["warnings"])
    assert os.path.exists(path)  # kept until the player calibrates again or forgets it
