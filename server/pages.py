"""The HTML pages. They are shells: the scripts in static/js fill them from the JSON API."""
from __future__ import annotations

from flask import Blueprint, abort, render_template

from calibration.calibrate import LAYOUT_ROWS, layout_size
from scorer import rules_json

from . import games
from .db import get_db

bp = Blueprint("pages", __name__)


@bp.get("/")
def index():
    return render_template("index.html")


@bp.get("/new")
def new_game():
    return render_template("new.html", rules=rules_json())


@bp.get("/capture")
def capture():
    return render_template("capture.html", rules=rules_json())


@bp.get("/review")
def review():
    return render_template("review.html", source="photo", rules=rules_json())


@bp.get("/manual")
def manual():
    return render_template("review.html", source="manual", rules=rules_json())


@bp.get("/calibrate")
def calibrate():
    """Calibrating the site to the player's pieces; the layout drawn from calibration.calibrate."""
    layout = [[(color, layout_size(row, col)) for col in range(3)] for row, color in enumerate(LAYOUT_ROWS)]
    return render_template("calibrate.html", layout=layout)


@bp.get("/history")
def history():
    return render_template("history.html")


@bp.get("/games/<int:game_id>")
def game(game_id: int):
    if games.get_game(get_db(), game_id) is None:
        abort(404)
    return render_template("game.html", game_id=game_id, rules=rules_json())
