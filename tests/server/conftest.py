import json
from pathlib import Path

import pytest

from scorer import parse_city, score

from server import create_app

# A small legal city: red group of 3, a blue, a black next to two pieces.
CITY = {
    "game": "zoning-out",
    "variant": "standard",
    "rules": ["garden-city", "we-compost", "little-boxes"],
    "pieces": [
        {"row": 0, "col": 0, "color": "red", "size": 1},
        {"row": 0, "col": 1, "color": "red", "size": 2},
        {"row": 1, "col": 1, "color": "red", "size": 3},
        {"row": 1, "col": 0, "color": "green", "size": 2},
        {"row": 0, "col": 2, "color": "black", "size": 1},
        {"row": 1, "col": 2, "color": "blue", "size": 2},
    ],
}


@pytest.fixture
def app(tmp_path):
    return create_app({
        "TESTING": True,
        "DATABASE": str(tmp_path / "citycam.sqlite"),
        "PHOTO_DIR": str(tmp_path / "photos"),
    })


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def city():
    return {**CITY, "pieces": [dict(p) for p in CITY["pieces"]]}


@pytest.fixture(scope="session")
def sample_photo():
    """The sample photo (sample_images/, ground truth beside it) of the smallest legal city."""
    samples = Path(__file__).resolve().parents[2] / "sample_images"
    truths = {p: json.loads(p.with_suffix(".json").read_text())["city"]
              for p in sorted(samples.glob("*.jpg")) if p.with_suffix(".json").exists()}
    legal = [p for p, city in truths.items() if not score(parse_city(city)).illegal]
    assert legal, f"no sample photo of a legal city with its ground truth in {samples}"
    return min(legal, key=lambda p: len(truths[p]["pieces"]))
