"""The JSON API (design.md section 4); the pages use it too. Errors are ``{"error": "..."}``."""
from __future__ import annotations

import json
import logging
import re

from flask import Blueprint, Response, current_app, jsonify, request, send_from_directory, url_for

from calibration import ProfileError, load_profile
from calibration.calibrate import fit_profile
from scorer import RULES, CityError, parse_city, rules_json, score
from scorer.city import parse_variant
from vision import VisionError, load_photo, read_photo

from . import games, profiles, transfer
from .db import get_db
from .photos import delete_photos, photo_exists, save_photo
from .records import GameError, build_game

log = logging.getLogger(__name__)
bp = Blueprint("api", __name__, url_prefix="/api")

PROFILE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class ApiError(Exception):
    """A request the API refuses, with the plain reason and the HTTP status."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message, self.status = message, status


@bp.errorhandler(ApiError)
def _api_error(exc: ApiError):
    return jsonify(error=exc.message), exc.status


@bp.errorhandler(GameError)
@bp.errorhandler(CityError)
def _bad_city(exc: ValueError):
    return jsonify(error=str(exc)), 400


@bp.get("/rules")
def list_rules():
    return jsonify(rules_json())


@bp.post("/detect")
def detect():
    """A photo (multipart field ``photo``) -> the ``detect --json`` object, plus ``photo``
    (the stored photo's name), ``photo_url`` and ``uncertain_below`` (the profile's confidence
    under which a piece is uncertain) and ``profile`` (the name of the profile it was read
    with). Optional fields: ``profile`` (a bundled profile's name; else the site's, see
    :func:`profiles.site_profile`), ``rules`` (comma-separated ids of the rules
    in play) and ``variant`` ("standard" or "small-city"; where not sent, the city is written
    as standard), written into the city; the photo is read knowing them (see
    :func:`vision.read_photo`)."""
    data = _photo_bytes("take or choose a photo of the city")
    profile, warning = _profile(request.form.get("profile"))
    rules = _rule_ids(request.form.get("rules", ""))
    told = request.form.get("variant")
    variant = parse_variant(told) if told else None
    try:
        rgb, detection = read_photo(data, profile, rules, variant)
    except VisionError as exc:
        raise ApiError(str(exc)) from None
    out = detection.to_json(rules, variant or "standard")
    out["warnings"] += [warning] if warning else []
    out["profile"] = profile.name
    out["photo"] = save_photo(rgb, current_app.config["PHOTO_DIR"])
    out["photo_url"] = url_for("api.photo", name=out["photo"])
    out["uncertain_below"] = profile.max_uncertain_confidence
    return jsonify(out)


@bp.get("/calibration")
def calibration():
    """The site's calibration to the player's pieces (:func:`profiles.calibration_status`)."""
    return jsonify(_status())


@bp.post("/calibration")
def calibrate():
    """A photo of the calibration layout (multipart field ``photo``; calibration/calibrate.py
    says how the pieces are laid out) -> the site's profile fitted to it, kept and used for
    every photo from now on; answers 201 and the calibration's status. A photo that shows no
    full layout is refused (400) and the calibration kept before stays."""
    data = _photo_bytes("take or choose a photo of the calibration layout")
    try:
        base = profiles.base_profile()
        fitted, report = fit_profile(load_photo(data, base.working_side), base, profiles.CALIBRATED_NAME)
    except (VisionError, ProfileError) as exc:
        raise ApiError(str(exc)) from None
    profiles.save_calibration(fitted, report)
    return jsonify(_status()), 201


@bp.delete("/calibration")
def forget_calibration():
    """Photos are read with the site's profile again; the status after."""
    profiles.forget_calibration()
    return jsonify(_status())


@bp.post("/score")
def score_city():
    """A city (JSON) -> the ``score --json`` object with its cell breakdown and paper sheet."""
    return jsonify(score(parse_city(_json_body())).to_json())


@bp.get("/games")
def list_games():
    found = games.list_games(get_db())
    for game in found:
        _add_photo_urls(game)
    return jsonify(games=found)


@bp.post("/games")
def save_game():
    record = build_game(_json_body(), _photo_exists)
    game_id, created = games.save_game(get_db(), record)
    if created:
        log.info("saved game %d (%s, total %d)", game_id, record["mode"], record["total"])
    return (jsonify(_game_or_404(game_id)), 201 if created else 200,
            {"Location": url_for("api.get_game", game_id=game_id)})


@bp.get("/games/<int:game_id>")
def get_game(game_id: int):
    return jsonify(_game_or_404(game_id))


@bp.delete("/games/<int:game_id>")
def delete_game(game_id: int):
    photos = games.delete_game(get_db(), game_id)
    if photos is None:
        raise ApiError(f"there is no game {game_id}", 404)
    delete_photos(current_app.config["PHOTO_DIR"], photos)
    return jsonify(deleted=game_id)


@bp.get("/stats")
def stats():
    return jsonify(games.stats(get_db(), {r.id: r.name for r in RULES.values()}))


@bp.get("/export.json")
def export_json():
    body = transfer.export_json(games.all_games(get_db()))
    return _download(json.dumps(body, indent=1), "application/json", "citycam-games.json")


@bp.get("/export.csv")
def export_csv():
    return _download(transfer.export_csv(games.all_games(get_db())), "text/csv; charset=utf-8", "citycam-games.csv")


@bp.post("/import")
def import_games():
    """Games from an export file (JSON body, or multipart field ``file``); games already
    stored (same uid) are skipped, so importing the same file twice adds nothing."""
    upload = request.files.get("file")
    body = _parse_json(upload.read()) if upload is not None else _json_body()
    records = transfer.records_from_export(body, _photo_exists)
    db = get_db()
    added = sum(games.save_game(db, record)[1] for record in records)
    return jsonify(added=added, skipped=len(records) - added)


@bp.get("/photos/<name>")
def photo(name: str):
    if not _photo_exists(name):
        raise ApiError("no such photo", 404)
    return send_from_directory(current_app.config["PHOTO_DIR"], name, max_age=7 * 24 * 3600)


def _photo_bytes(hint: str) -> bytes:
    """The bytes of the multipart field ``photo``; ``hint`` says what to send where it is missing."""
    upload = request.files.get("photo")
    if upload is None:
        raise ApiError(f"missing field 'photo': {hint}")
    data = upload.read()
    if not data:
        raise ApiError("the photo is empty (0 bytes); take or choose it again")
    return data


def _status() -> dict:
    try:
        return profiles.calibration_status()
    except ProfileError as exc:
        raise ApiError(str(exc)) from None


def _game_or_404(game_id: int) -> dict:
    game = games.get_game(get_db(), game_id)
    if game is None:
        raise ApiError(f"there is no game {game_id}", 404)
    return _add_photo_urls(game)


def _add_photo_urls(game: dict) -> dict:
    for p in game["players"]:
        p["photo_url"] = url_for("api.photo", name=p["photo"]) if p["photo"] else None
    if "photo" in game:
        game["photo_url"] = game["players"][0]["photo_url"]
    return game


def _photo_exists(name) -> bool:
    return isinstance(name, str) and photo_exists(current_app.config["PHOTO_DIR"], name)


def _json_body():
    return _parse_json(request.get_data(cache=False))


def _parse_json(data: bytes):
    if not data.strip():
        raise ApiError("the request body is empty; send JSON")
    try:
        return json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ApiError(f"the request body is not valid JSON ({exc})") from None


def _rule_ids(text: str) -> list[str] | None:
    ids = [r.strip() for r in text.split(",") if r.strip()]
    unknown = [r for r in ids if r not in RULES]
    if unknown:
        raise ApiError(f"unknown rule {unknown[0]!r}")
    return ids or None


def _profile(name: str | None):
    """The profile named by the form (only bundled profiles' names are accepted: a path from
    a phone must not reach the disk), else the site's (:func:`profiles.site_profile`), and a
    warning for the player, or None."""
    if name and not PROFILE_NAME.match(name):
        raise ApiError("'profile' must be the name of a calibration profile")
    try:
        return (load_profile(name), None) if name else profiles.site_profile()
    except ProfileError as exc:
        raise ApiError(str(exc)) from None


def _download(text: str, mimetype: str, filename: str) -> Response:
    return Response(text, mimetype=mimetype,
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})
