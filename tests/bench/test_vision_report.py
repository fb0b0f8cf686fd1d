"""The vision benchmark's figures by rendering condition, its steadiness and camera tilt figures."""
import time
from collections import Counter

from bench.vision import by_condition, conditions, steadiness, tilt_summary, timed


def _scene(table="wood", elevation=60.0, tilt=5.0, phone_shadow=False, zoomed=False, focal=26, **more):
    return {"table": table, "light": {"elevation_deg": elevation}, "tilt_deg": tilt,
            "phone_shadow": phone_shadow, "zoomed": zoomed, "recorded_focal_35mm": focal, **more}


def test_a_scene_is_grouped_by_table_lamp_tilt_phone_shadow_and_lens():
    assert conditions(_scene("dark", 30.0, 20.0, True, True, None)) == {
        "table": "dark", "lamp": "under 45 deg", "tilt": "15 deg and over", "phone_shadow": "yes",
        "lens": "2x zoom", "lens_recorded": "no"}
    assert conditions(_scene()) == {
        "table": "wood", "lamp": "45 deg and over", "tilt": "under 15 deg", "phone_shadow": "no",
        "lens": "main", "lens_recorded": "yes"}
    assert conditions(_scene(fixed_hfov_deg=38.0))["lens"] == "38 deg"


def test_photos_read_exactly_and_errors_per_piece_are_counted_per_condition():
    outcomes = [(conditions(_scene(elevation=30.0)), False, 3, 10),
                (conditions(_scene(elevation=35.0)), True, 0, 20),
                (conditions(_scene(table="white")), True, 0, 10)]
    summary = by_condition(outcomes)
    assert summary["lamp"]["under 45 deg"] == {"exact": "1/2", "errors_per_piece": 0.1}
    assert summary["lamp"]["45 deg and over"] == {"exact": "1/1", "errors_per_piece": 0.0}
    assert summary["table"] == {"white": {"exact": "1/1", "errors_per_piece": 0.0},
                                "wood": {"exact": "1/2", "errors_per_piece": 0.1}}


def test_steadiness_counts_photos_whose_errors_change_with_the_working_size():
    pairs = [(Counter(), Counter()),  # exact at both sizes
             (Counter(), Counter(wrong_size=2)),  # exact at one size only
             (Counter(missed=1), Counter(missed=1, phantom=1)),  # errors change, exact at neither
             (Counter(wrong_color=3), Counter(wrong_size=3)),  # other errors, as many
             (Counter(wrong_level=1), Counter(wrong_level=1))]  # the same errors
    assert steadiness(pairs) == {"photos_exact_at_one_size_only": 1, "photos_whose_errors_change": 3,
                                 "errors_at_second_size": 8}
    assert steadiness([]) == {"photos_exact_at_one_size_only": 0, "photos_whose_errors_change": 0,
                              "errors_at_second_size": 0}


def test_timing_counts_the_work_done_not_the_time_waited():
    result, cpu, wall = timed(lambda: time.sleep(0.2) or "read")
    assert result == "read"
    assert wall >= 0.2 and cpu < 0.1


def test_the_tilt_summary_counts_photos_fitted_far_off_their_true_tilt():
    tilts = [(20.0, 19.0, True),  # 1 degree off
             (25.0, 0.5, False),  # a small city fitted flat: 24.5 off
             (0.0, 9.0, True),  # 9 off, read exactly all the same
             (10.0, 13.0, True),  # 3 off
             (15.0, None, False)]  # no city found: not counted
    summary = tilt_summary(tilts)
    assert summary["median_error_deg"] == 6.0
    assert summary["photos_off_by_over_8_deg"] == "2/4" and summary["exact_among_them"] == "1/2"
    assert tilt_summary([])["photos_off_by_over_8_deg"] == "0/0"
