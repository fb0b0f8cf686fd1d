"""The calibration benchmark: its layout photos, its figures, and one tiny run end to end."""
import json
import sys

from bench import calibrate
from bench.calibrate import layout_scene, summary
from bench.scenegen.scene import make_scene, sample_scene
from calibration.calibrate import layout_city


def test_the_layout_photo_of_a_table_kind_is_the_first_drawn_on_such_a_table():
    index = layout_scene(5, "dark")
    assert index >= calibrate.FIRST_LAYOUT_SCENE
    assert sample_scene(5, index, city=layout_city()).gt["scene"]["table"] == "dark"
    assert all(sample_scene(5, i, city=layout_city()).gt["scene"]["table"] != "dark"
               for i in range(calibrate.FIRST_LAYOUT_SCENE, index))


def test_other_plastics_change_the_pieces_and_nothing_else():
    measured, truth = make_scene(3, 2, scale=0.1)
    vivid, vivid_truth = make_scene(3, 2, scale=0.1, plastics="vivid")
    assert vivid != measured and vivid_truth["scene"]["plastics"] == "vivid"
    assert "plastics" not in truth["scene"]
    assert {k: v for k, v in vivid_truth["scene"].items() if k != "plastics"} == truth["scene"]
    assert vivid_truth["pieces"] == truth["pieces"]


def test_the_figures_count_exact_photos_and_errors_per_table():
    outcomes = [("wood", {}), ("wood", {"wrong_color": 2}), ("white", {"missed": 1})]
    figures = summary(outcomes)
    assert figures["exact"] == "1/3" and figures["errors"] == 3
    assert figures["by_kind"]["wrong_color"] == 2 and figures["by_kind"]["phantom"] == 0
    assert figures["by_table"]["wood"]["exact"] == "1/2" and figures["by_table"]["white"]["errors"] == 1


def test_a_tiny_run_calibrates_on_the_layout_and_reads_with_both_profiles(tmp_path, monkeypatch):
    monkeypatch.setattr(calibrate, "ROOT", tmp_path)
    out = tmp_path / "calibration.json"
    monkeypatch.setattr(sys, "argv", ["calibrate", "--seed", "5", "--count", "6", "--scale", "0.3",
                                      "--plastics", "vivid", "--tables", "white,wood", "--jobs", "1",
                                      "--out", str(out)])
    calibrate.main()
    report = json.loads(out.read_text())["plastics"]["vivid"]
    tables = [json.loads(p.read_text())["scene"]["table"]
              for p in (tmp_path / "cache" / "set-5-vivid-0.3").glob("scene_*.json")]
    read = [table for table in tables if table in ("white", "wood")]
    assert len(tables) == 6 and set(read) == {"white", "wood"}
    assert set(report["calibration"]) == {"white", "wood"}
    assert all("candidates read whole as their colour" in text for text in report["calibration"].values())
    for label in ("default", "calibrated"):
        assert report[label]["exact"].endswith(f"/{len(read)}")
        assert set(report[label]["by_table"]) == {"white", "wood"}
