"""Loading profiles: the bundled default, a file, and an older file that lacks thresholds
added since it was made."""
import json

import pytest

from calibration import ProfileError, load_profile, save_profile
from calibration.profile import PROFILE_DIR


def default_json() -> dict:
    return json.loads((PROFILE_DIR / "default.json").read_text())


def test_a_profile_made_before_a_threshold_was_added_takes_it_from_the_default(tmp_path, caplog):
    data = default_json()
    data["name"] = "mytable"
    data["colors"]["prototypes"]["red"] = [0.2, -0.9, -0.8]  # this table's own fit
    del data["tint_margin"], data["faint_size_share"], data["piece_colors"]
    path = tmp_path / "mytable.json"
    path.write_text(json.dumps(data))
    profile = load_profile(str(path))
    assert profile.tint_margin == default_json()["tint_margin"]
    assert profile.faint_size_share == default_json()["faint_size_share"]
    assert profile.piece_colors == load_profile().piece_colors
    assert "run citycam calibrate again" in caplog.text  # its own colours no longer decide alone
    assert profile.colors.prototypes["red"] == (0.2, -0.9, -0.8)  # its own colours are kept
    assert profile.name == "mytable"


def test_a_file_without_colours_or_of_another_format_is_refused(tmp_path):
    data = default_json()
    del data["colors"]
    (tmp_path / "a.json").write_text(json.dumps(data))
    with pytest.raises(ProfileError, match="no 'colors'"):
        load_profile(str(tmp_path / "a.json"))
    data = default_json()
    data["version"] = 99
    (tmp_path / "b.json").write_text(json.dumps(data))
    with pytest.raises(ProfileError, match="format version 99"):
        load_profile(str(tmp_path / "b.json"))


def test_an_unknown_name_lists_the_bundled_profiles():
    with pytest.raises(ProfileError, match="bundled profiles: default"):
        load_profile("nosuchtable")


def test_a_piece_colour_covariance_that_is_not_a_covariance_is_refused(tmp_path):
    data = default_json()
    data["piece_colors"]["covariance"]["blue"] = [[0.01, 0, 0], [0, -0.01, 0], [0, 0, 0.01]]
    (tmp_path / "a.json").write_text(json.dumps(data))
    with pytest.raises(ProfileError, match="not positive definite"):
        load_profile(str(tmp_path / "a.json"))
    data["piece_colors"]["covariance"]["blue"] = [[0.01, 0], [0, 0.01]]
    (tmp_path / "b.json").write_text(json.dumps(data))
    with pytest.raises(ProfileError, match="3 x 3 matrix"):
        load_profile(str(tmp_path / "b.json"))


def test_a_saved_profile_loads_as_it_was(tmp_path):
    profile = load_profile()
    save_profile(profile, tmp_path / "copy.json")
    assert load_profile(str(tmp_path / "copy.json")) == profile


def test_a_profile_whose_piece_colours_lack_the_lift_and_the_depth_takes_the_defaults(tmp_path, caplog):
    data = default_json()
    data["piece_colors"]["outlier_cost"] = -3.0  # its own
    del data["piece_colors"]["brighter_spread"], data["piece_colors"]["tint_depth_spread"]
    (tmp_path / "a.json").write_text(json.dumps(data))
    with caplog.at_level("INFO", logger="calibration.profile"):
        profile = load_profile(str(tmp_path / "a.json"))
    assert profile.piece_colors.brighter_spread == default_json()["piece_colors"]["brighter_spread"] > 0
    assert profile.piece_colors.tint_depth_spread == default_json()["piece_colors"]["tint_depth_spread"] > 0
    assert profile.piece_colors.outlier_cost == -3.0
    assert "brighter_spread taken from the default" in caplog.text
    assert "tint_depth_spread taken from the default" in caplog.text
