"""The profile the site reads photos with, and the player's own calibration.

A player whose pieces are not the plastics the default profile was fitted to photographs the
calibration layout (:mod:`calibration.calibrate`) on their table from the phone; the profile
fitted to it is kept in the instance folder (``CALIBRATION``: one JSON file holding when it
was made, its report and the profile) and every photo is read with it until the player
forgets it. Without one, photos are read with the site's profile (``PROFILE``: a bundled
name or a file, as ``citycam serve --profile`` sets it), else the bundled default.
"""
from __future__ import annotations

import json
import logging
import os
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone

from flask import current_app

from calibration import Profile, load_profile, profile_from_json
from calibration.calibrate import CalibrationReport

log = logging.getLogger(__name__)

CALIBRATED_NAME = "calibrated"


def base_profile() -> Profile:
    """The site's profile (``PROFILE`` in the app's config, else the bundled default): the
    one a calibration starts from, and the one photos are read with where there is none.
    Raises :class:`ProfileError` where it does not load."""
    return load_profile(current_app.config.get("PROFILE"))


def site_profile() -> tuple[Profile, str | None]:
    """The profile photos are read with, and a warning where the player's calibration is
    kept but cannot be loaded (a file damaged, or made by an older citycam): then the site's
    profile (:func:`base_profile`) is used and the warning says so."""
    kept, problem = _stored()
    if kept is not None:
        return kept.profile, None
    if problem is not None:
        return base_profile(), f"your calibration could not be used ({problem}); calibrate again"
    return base_profile(), None


def calibration_status() -> dict:
    """What the calibration page shows: ``calibrated`` (whether a calibration is in use),
    ``made`` (ISO 8601, UTC) and ``report`` of it (the figures of
    :class:`calibration.calibrate.CalibrationReport` and its ``lines``, or null), ``problem``
    (why a kept one cannot be used, or null) and ``base`` (the name of the profile read with
    where there is none)."""
    kept, problem = _stored()
    report = None if kept is None else {**kept.report.to_json(), "lines": kept.report.lines()}
    return {"calibrated": kept is not None, "made": kept.made if kept else None, "report": report,
            "problem": problem, "base": base_profile().name}


def save_calibration(profile: Profile, report: CalibrationReport) -> None:
    """Keep ``profile`` (fitted to the player's layout photo) and its ``report`` as the
    site's calibration, replacing any before (written whole, then moved into place)."""
    path = current_app.config["CALIBRATION"]
    made = datetime.now(timezone.utc).isoformat(timespec="seconds")
    text = json.dumps({"made": made, "report": report.to_json(), "profile": profile.to_json()})
    partial = f"{path}.{uuid.uuid4().hex}.part"  # two calibrations at once each write their own
    with open(partial, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(partial, path)
    log.info("calibration saved (%s)", "; ".join(report.lines()))


def forget_calibration() -> None:
    """Stop reading photos with the player's calibration (none kept: nothing to do)."""
    try:
        os.remove(current_app.config["CALIBRATION"])
    except FileNotFoundError:
        return
    log.info("calibration forgotten")


@dataclass(frozen=True)
class _Calibration:
    """A kept calibration: ``made`` (ISO 8601, UTC), ``report`` and ``profile``."""

    made: str
    report: CalibrationReport
    profile: Profile


def _stored() -> tuple[_Calibration | None, str | None]:
    """The kept calibration, or None; and why a kept one cannot be used (None where there is
    none, or it loads)."""
    path = current_app.config["CALIBRATION"]
    try:
        with open(path, encoding="utf-8") as kept:
            record = json.load(kept)
        report = CalibrationReport(**{**record["report"], "unseen": tuple(record["report"]["unseen"])})
        return _Calibration(str(record["made"]), report, profile_from_json(record["profile"], CALIBRATED_NAME)), None
    except FileNotFoundError:
        return None, None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        log.warning("the calibration in %s cannot be used: %s", path, exc)
        return None, str(exc) or type(exc).__name__
