"""The citycam phone site: a Flask app serving the pages and the JSON API.

``create_app()`` builds it (flaskr style); the database, the photos and the player's
calibration (:mod:`server.profiles`) live in the instance folder, and the schema is migrated
when the app is created.
"""
from __future__ import annotations

import logging
import os

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, InternalServerError

from . import api, db, games, pages
from .photos import prune_unsaved

log = logging.getLogger(__name__)

FRIENDLY = {
    400: "That request did not make sense to the server.",
    404: "There is nothing here.",
    405: "That is not something this address can do.",
    413: "That file is too large (the limit is 40 MB). Try a smaller photo.",
    500: "Something went wrong on the server; it has been logged. Please try again.",
}


def create_app(test_config: dict | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=True)
    app.config.from_mapping(
        MAX_CONTENT_LENGTH=40 * 1024 * 1024,
        DATABASE=os.path.join(app.instance_path, "citycam.sqlite"),
        PHOTO_DIR=os.path.join(app.instance_path, "photos"),
    )
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
    else:
        app.config.from_mapping(test_config)
    # the player's calibration is kept beside the games (tests with their own database get their own)
    app.config.setdefault("CALIBRATION", os.path.join(os.path.dirname(app.config["DATABASE"]), "calibration.json"))
    app.json.sort_keys = False
    os.makedirs(app.instance_path, exist_ok=True)
    os.makedirs(app.config["PHOTO_DIR"], exist_ok=True)

    db.migrate(app.config["DATABASE"])
    app.teardown_appcontext(db.close_db)
    app.register_blueprint(api.bp)
    app.register_blueprint(pages.bp)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected_error)
    with app.app_context():
        prune_unsaved(app.config["PHOTO_DIR"], games.stored_photos(db.get_db()))
    return app


def _wants_json() -> bool:
    return request.path.startswith("/api/")


def _http_error(exc: HTTPException):
    code = exc.code or 500
    message = FRIENDLY.get(code, exc.name)
    if code == 400 and exc.description and _wants_json():
        message = exc.description
    if _wants_json():
        return jsonify(error=message), code
    return render_template("error.html", code=code, message=message), code


def _unexpected_error(exc: Exception):
    log.exception("unexpected error on %s %s", request.method, request.path)
    return _http_error(InternalServerError())
