"""The `citycam` command line, run as a user would run it (a real subprocess)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "scorer" / "examples" / "example-city.json"


def citycam(*args):
    proc = subprocess.run([sys.executable, "-m", "server.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


def test_score_prints_the_paper_sheet():
    code, out, err = citycam("score", EXAMPLE)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[2].startswith("Residential (red)") and lines[2].endswith("3")
    assert any(line.startswith("Total") and line.endswith(" 3") for line in lines)
    assert "LOST: 3 against a target of 59" in out


def test_score_json_contract_and_rules_override():
    code, out, _ = citycam("score", EXAMPLE, "--json", "--rules", "clusters,density-bonusing")
    data = json.loads(out)
    assert code == 0
    assert data["base"] == {"red": 3, "yellow": 1, "green": 3, "blue": 2, "black": -11}
    # clusters: red trio +3; two lone yellows, the green group and the blue pair -1 each
    assert [(r["id"], r["points"], r["target"]) for r in data["rules"]] == [
        ("clusters", 3 - 1 - 1 - 1 - 1, 9), ("density-bonusing", -4, -4)]
    assert data["target"] == 5 and data["won"] is False and data["illegal"] == []
    assert data["total"] == -2 + data["rules"][0]["points"] - 4


def test_several_cities_are_ranked(tmp_path):
    other = json.loads(EXAMPLE.read_text())
    other["player"] = "bea"
    other["pieces"] = other["pieces"][:3]
    (tmp_path / "b.json").write_text(json.dumps(other))
    code, out, _ = citycam("score", EXAMPLE, tmp_path / "b.json", "--json")
    ranked = json.loads(out)["players"]
    assert code == 0
    assert [(p["player"], p["rank"]) for p in ranked] == [("bea", 1), ("example-city", 2)]


@pytest.mark.parametrize("content, words", [
    ("not json at all", "not valid JSON"),
    ('{"pieces": [{"row": 0, "col": 0, "color": "red", "size": 9}]}', "size 9"),
])
def test_bad_city_exits_2_with_one_line(tmp_path, content, words):
    path = tmp_path / "city.json"
    path.write_text(content)
    code, out, err = citycam("score", path)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and words in err


def test_output_to_a_reader_that_has_gone_is_no_traceback():
    """`citycam score city.json | head -0`: the pipe is closed before anything is written."""
    read, write = os.pipe()
    os.close(read)
    try:
        proc = subprocess.run([sys.executable, "-m", "server.cli", "score", str(EXAMPLE)], stdout=write,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(write)
    assert proc.returncode == 1 and proc.stderr == ""


def test_missing_file_and_unknown_rule():
    code, _, err = citycam("score", "/no/such/city.json")
    assert code == 2 and "cannot read" in err
    code, _, err = citycam("score", EXAMPLE, "--rules", "no-such-rule")
    assert code == 2 and "no-such-rule" in err and "Traceback" not in err


def test_rules_lists_all_eighteen():
    code, out, _ = citycam("rules", "--json")
    rules = json.loads(out)
    assert code == 0 and len(rules) == 18
    assert rules[0] == {"id": "15-minute-city", "name": "15-Minute City", "target": 13,
                        "text": "4 points for every red piece that is next to a blue, green, and yellow piece."}
    code, out, _ = citycam("rules")
    assert "room-to-make-a-big-mistake" in out


SAMPLE = Path(__file__).resolve().parents[2] / "sample_images" / "scene_0039.jpg"


def test_detect_json_follows_the_contract(tmp_path):
    overlay = tmp_path / "seen.jpg"
    code, out, err = citycam("detect", SAMPLE, "--json", "--overlay", overlay, "--rules", "canadian-style")
    assert code == 0, err
    data = json.loads(out)
    assert data["game"] == "zoning-out" and data["rules"] == ["canadian-style"]
    assert {"illegal", "warnings", "pieces", "doubtful_empty"} <= set(data)
    truth = json.loads(SAMPLE.with_suffix(".json").read_text())["city"]["pieces"]
    assert len(data["pieces"]) == len(truth)
    assert all(0 <= p["confidence"] <= 1 for p in data["pieces"])
    assert overlay.stat().st_size > 10_000


def test_detect_reads_and_writes_the_variant_told(monkeypatch, capsys):
    import vision
    from server import cli

    told = []
    real_read_photo = vision.read_photo
    monkeypatch.setattr(vision, "read_photo", lambda data, profile, rules, variant: (
        told.append(variant) or real_read_photo(data, profile, rules, variant)))
    for args, variant, written in ((["--variant", "small-city"], "small-city", "small-city"),
                                   ([], None, "standard")):  # not told: read as either set
        assert cli.main(["detect", str(SAMPLE), "--json", *args]) == 0
        assert told[-1] == variant and json.loads(capsys.readouterr().out)["variant"] == written
    code, out, err = citycam("detect", SAMPLE, "--variant", "tiny-town")
    assert code == 2 and "tiny-town" in err


def test_detect_prints_a_map_without_json():
    code, out, _ = citycam("detect", SAMPLE)
    assert code == 0
    assert out.splitlines()[-1].endswith("pieces") or "pieces" in out


def test_the_map_names_the_empty_cells_to_check():
    from server.cli import _city_map
    detected = {"pieces": [{"row": 0, "col": 0, "color": "red", "size": 2}], "illegal": [], "warnings": [],
                "doubtful_empty": [[0, 1]]}
    assert _city_map(detected).splitlines() == [
        "R2", "1 pieces", "check: row 0, col 1 was read empty, but a piece may stand there"]


@pytest.mark.parametrize("args, words", [
    (["detect", EXAMPLE], "not a photo"),
    (["detect", "/no/such.jpg"], "cannot read"),
    (["detect", SAMPLE, "--profile", "no-such-profile"], "no profile"),
    (["calibrate", EXAMPLE, "--out", "x"], "not a photo"),
])
def test_detect_and_calibrate_refuse_bad_input_in_one_line(args, words):
    code, out, err = citycam(*args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and words in err


def test_calibrate_needs_the_calibration_layout(tmp_path):
    code, _, err = citycam("calibrate", SAMPLE, "--out", tmp_path / "mine.json")
    assert code == 2 and "5 x 3 calibration block" in err
    assert not (tmp_path / "mine.json").exists()


def test_serve_refuses_a_profile_that_does_not_load_before_it_starts(tmp_path):
    code, out, err = citycam("serve", "--port", "0", "--profile", tmp_path / "missing.json")
    assert code == 2 and err.startswith("citycam: no profile") and "missing.json" in err
    assert "citycam is running" not in out


def test_calibrate_then_detect_with_the_profile_made(tmp_path):
    from bench.scenegen.scene import make_scene
    from calibration.calibrate import layout_city
    layout = layout_city()
    jpeg, _ = make_scene(5, 4, scale=0.3, city=layout)  # a wooden table
    (tmp_path / "layout.jpg").write_bytes(jpeg)
    code, out, err = citycam("calibrate", tmp_path / "layout.jpg", "--out", tmp_path / "wood.json")
    assert code == 0 and err == "" and "sizes: 15/15" in out
    code, out, _ = citycam("detect", tmp_path / "layout.jpg", "--profile", tmp_path / "wood.json", "--json")
    read = json.loads(out)["pieces"]
    assert code == 0
    assert sorted((p["row"], p["col"], p["color"], p["size"]) for p in read) == sorted(
        (p["row"], p["col"], p["color"], p["size"]) for p in layout["pieces"])
