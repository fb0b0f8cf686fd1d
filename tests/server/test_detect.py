"""POST /api/detect with a sample photo: the detection passes through, the photo is kept
(upright, as analysed) under a generated name, and bad photos get a plain 400."""
import io
import os

import pytest
from PIL import Image, ImageOps

from server import create_app

ROTATED_270 = 6  # EXIF Orientation: turn the stored pixels 90 degrees clockwise to view them


def sideways(path) -> tuple[bytes, tuple[int, int]]:
    """The photo stored turned a quarter, as phones do, with the EXIF tag that turns it back;
    and its upright size."""
    upright = ImageOps.exif_transpose(Image.open(path))
    exif = Image.Exif()
    exif[0x0112] = ROTATED_270
    out = io.BytesIO()
    upright.transpose(Image.Transpose.ROTATE_90).save(out, "JPEG", quality=90, exif=exif)
    assert ImageOps.exif_transpose(Image.open(io.BytesIO(out.getvalue()))).size == upright.size
    return out.getvalue(), upright.size


@pytest.fixture(scope="module")
def detect_app(tmp_path_factory):
    instance = tmp_path_factory.mktemp("detect")
    return create_app({"TESTING": True, "DATABASE": str(instance / "c.sqlite"), "PHOTO_DIR": str(instance / "photos")})


@pytest.fixture(scope="module")
def upright_size(sample_photo):
    return sideways(sample_photo)[1]


@pytest.fixture(scope="module")
def detection(detect_app, sample_photo):
    """One analysis of a sample photo, shared by the tests of this module (it takes seconds)."""
    upload = {"photo": (io.BytesIO(sideways(sample_photo)[0]), "IMG_0001.JPG"), "rules": "little-boxes,linear-park"}
    response = detect_app.test_client().post("/api/detect", data=upload, content_type="multipart/form-data")
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def test_detection_follows_the_contract(detection):
    assert detection["game"] == "zoning-out" and detection["rules"] == ["little-boxes", "linear-park"]
    assert detection["pieces"] and isinstance(detection["warnings"], list) and isinstance(detection["illegal"], list)
    width, height = detection["image"]["width"], detection["image"]["height"]
    for p in detection["pieces"]:
        assert {"row", "col", "color", "size", "confidence", "x", "y"} <= set(p)
        assert 0 <= p["confidence"] <= 1 and 0 <= p["x"] <= width and 0 <= p["y"] <= height
    homography = detection["grid"]["homography"]
    assert len(homography) == 3 and all(len(row) == 3 for row in homography)
    assert 0 < detection["uncertain_below"] < 1


def test_the_server_reads_the_photo_as_the_command_line_does(detection, sample_photo):
    """At the profile's working resolution: the reading the benchmark measures."""
    import vision
    from calibration import load_profile

    profile = load_profile()
    rgb = vision.load_photo(sideways(sample_photo)[0], profile.working_side)
    assert (detection["image"]["width"], detection["image"]["height"]) == (rgb.shape[1], rgb.shape[0])
    expected = vision.analyze(rgb, profile).to_json()["pieces"]
    assert [(p["row"], p["col"], p["color"], p["size"]) for p in detection["pieces"]] == \
        [(p["row"], p["col"], p["color"], p["size"]) for p in expected]


def test_the_photo_is_kept_upright_under_a_generated_name(detect_app, detection, upright_size):
    name = detection["photo"]
    assert "IMG_0001" not in name and detection["photo_url"].endswith(name)
    assert os.listdir(detect_app.config["PHOTO_DIR"]) == [name]
    response = detect_app.test_client().get(detection["photo_url"])
    assert response.status_code == 200 and response.mimetype == "image/jpeg"
    image = Image.open(io.BytesIO(response.data))
    assert image.size == (detection["image"]["width"], detection["image"]["height"])
    width, height = upright_size
    assert (image.width > image.height) == (width > height)  # upright, as the player saw it
    assert not image.getexif()  # no EXIF (GPS position, camera) leaves the phone's photo


def test_a_game_saved_with_its_photo_and_deleted_with_it(detect_app, detection):
    client = detect_app.test_client()
    city = {k: detection[k] for k in ("game", "variant", "rules", "pieces")}
    city["pieces"] = [{k: p[k] for k in ("row", "col", "color", "size", "level")} for p in city["pieces"]]
    game = client.post("/api/games", json={"city": city, "detected": detection, "photo": detection["photo"]}).get_json()
    assert game["photo_url"] == detection["photo_url"] and game["detected"] == detection
    assert client.get(f"/games/{game['id']}").status_code == 200
    client.delete(f"/api/games/{game['id']}")
    assert client.get(detection["photo_url"]).status_code == 404
    assert os.listdir(detect_app.config["PHOTO_DIR"]) == []


@pytest.mark.parametrize("cut", [None, 5000], ids=["not-an-image", "truncated"])
def test_a_bad_photo_gets_a_plain_400_and_nothing_is_stored(client, app, sample_photo, cut):
    data = sample_photo.read_bytes()[:cut] if cut else b"this is a shopping list, not a photo"
    upload = {"photo": (io.BytesIO(data), "photo.jpg")}
    response = client.post("/api/detect", data=upload, content_type="multipart/form-data")
    message = response.get_json()["error"]  # vision's reason, in plain words
    assert response.status_code == 400 and len(message) > 10 and "Traceback" not in message
    assert os.listdir(app.config["PHOTO_DIR"]) == []
    assert client.get("/api/rules").status_code == 200


def test_an_unknown_profile_is_a_400(client):
    upload = {"photo": (io.BytesIO(b"x"), "a.jpg"), "profile": "no-such-profile"}
    response = client.post("/api/detect", data=upload, content_type="multipart/form-data")
    assert response.status_code == 400 and "no-such-profile" in response.get_json()["error"]


def test_a_photo_sent_without_the_rules_is_read(client, sample_photo):
    """The contract's upload holds the photo alone: the rules in play are then not known,
    and the city is read as any game may have placed it (it crashed the reading before)."""
    upload = {"photo": (io.BytesIO(sample_photo.read_bytes()), "photo.jpg")}
    response = client.post("/api/detect", data=upload, content_type="multipart/form-data")
    assert response.status_code == 200 and response.get_json()["rules"] == [] and response.get_json()["pieces"]


def test_the_variant_sent_is_read_and_written_into_the_city(client, sample_photo, monkeypatch):
    """The page sends the game's variant: the photo is read knowing its set's supply, and the
    city comes back of that variant; one not sent is not known to the reading, and the city
    comes back standard; an unknown one is refused in plain words."""
    import server.api

    told = []

    def read_photo(data, profile, rules, variant):
        told.append((rules, variant))
        return real_read_photo(data, profile, rules, variant)
    real_read_photo = server.api.read_photo
    monkeypatch.setattr(server.api, "read_photo", read_photo)
    upload = {"photo": (io.BytesIO(sample_photo.read_bytes()), "photo.jpg"), "rules": "clusters", "variant": "small-city"}
    response = client.post("/api/detect", data=upload, content_type="multipart/form-data")
    assert response.status_code == 200 and response.get_json()["variant"] == "small-city"
    assert told == [(["clusters"], "small-city")]
    upload = {"photo": (io.BytesIO(sample_photo.read_bytes()), "photo.jpg"), "rules": "clusters"}
    response = client.post("/api/detect", data=upload, content_type="multipart/form-data")
    assert response.status_code == 200 and response.get_json()["variant"] == "standard"
    assert told[-1] == (["clusters"], None)  # not told: read as either set
    upload = {"photo": (io.BytesIO(sample_photo.read_bytes()), "photo.jpg"), "variant": "tiny-town"}
    response = client.post("/api/detect", data=upload, content_type="multipart/form-data")
    assert response.status_code == 400 and "tiny-town" in response.get_json()["error"]


def test_the_site_reads_with_its_own_profile_where_the_phone_names_none(tmp_path, sample_photo, monkeypatch):
    """``citycam serve --profile`` sets the site's profile (one ``citycam calibrate`` made,
    say): a photo sent without a profile is read with it, one naming a bundled profile with
    that one."""
    import dataclasses

    import server.api
    from calibration import load_profile, save_profile
    from vision import BoardNotFound

    path = tmp_path / "mytable.json"
    save_profile(dataclasses.replace(load_profile(), name="mytable"), path)
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "c.sqlite"), "PHOTO_DIR": str(tmp_path / "photos"),
                      "PROFILE": str(path)})
    used = []

    def read_photo(data, profile, rules, variant):
        used.append(profile.name)
        raise BoardNotFound("no city in this photo")
    monkeypatch.setattr(server.api, "read_photo", read_photo)
    for form in ({}, {"profile": "default"}):
        upload = {"photo": (io.BytesIO(sample_photo.read_bytes()), "photo.jpg"), **form}
        response = app.test_client().post("/api/detect", data=upload, content_type="multipart/form-data")
        assert response.status_code == 400 and "no city" in response.get_json()["error"]
    assert used == ["mytable", "default"]
