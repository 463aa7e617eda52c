"""make test's two browser lanes (tests/lanes.py): every browser test file in exactly one
lane, the lanes' hinted times within one file's of each other, and the hints about files
that are there (a renamed file would quietly fall back to DEFAULT and unbalance the lanes)."""

from conftest import ROOT
from lanes import BROWSER, DEFAULT, SECONDS, lanes


def browser_files():
    return sorted(str(p.relative_to(ROOT)) for folder in BROWSER for p in (ROOT / folder).glob("test_*.py"))


def test_every_hint_names_a_browser_test_file_that_is_there():
    files = browser_files()
    assert len(files) > 20
    assert sorted(set(SECONDS) - set(files)) == []


def test_each_file_has_one_lane_and_the_lanes_are_even():
    files = browser_files()
    lane_of = lanes(files)
    assert set(lane_of) == set(files) and set(lane_of.values()) == {0, 1}
    load = [sum(SECONDS.get(f, DEFAULT) for f in files if lane_of[f] == lane) for lane in (0, 1)]
    assert abs(load[0] - load[1]) <= max(SECONDS.values())


def test_a_file_without_a_hint_counts_as_the_default():
    lane_of = lanes(["tests/page/test_a.py", "tests/page/test_b.py", "tests/page/test_page_heal.py"])
    # the heal file alone in one lane, the two unhinted files (DEFAULT each) in the other
    assert lane_of["tests/page/test_page_heal.py"] != lane_of["tests/page/test_a.py"]
    assert lane_of["tests/page/test_a.py"] == lane_of["tests/page/test_b.py"]
