"""How `make test` shares the tests among its workers (pytest-xdist, -n 3).

The browser's tests (tests/page/, tests/check/) run in two lanes: each lane is a list of whole
files, run on one worker in order, so that a file's booted page or served copy of dist/ is
made once, and never more than two Chromiums compute at once on a 2-core machine (three
starved each other: a run took longer than with two). Every other test is a unit of its own,
given to whichever worker is free, so the browserless tests fill the third worker and then
the lanes' workers as they finish. The lanes go first.

The lanes are balanced by how long each file took, one file after another, on this machine
(issue 59's measurements, rounded): only a hint for the balance, so a file missing here (a
new one) counts as DEFAULT and the run stays correct, just less even.
"""

import pytest
from xdist.scheduler import LoadScopeScheduling

SECONDS = {
    "tests/check/test_check.py": 160, "tests/page/test_page_heal.py": 115,
    "tests/page/test_page_chips.py": 85, "tests/page/test_page_explorer.py": 65,
    "tests/page/test_page_truth.py": 55, "tests/page/test_page_traffic.py": 50,
    "tests/page/test_embed_hub.py": 45, "tests/page/test_page_sketch.py": 40,
    "tests/page/test_page_a11y.py": 35, "tests/page/test_page_labels.py": 30,
    "tests/page/test_page_models.py": 25, "tests/page/test_page_portfolio.py": 25,
    "tests/page/test_build.py": 25, "tests/page/test_page_downloads.py": 20,
    "tests/page/test_page_watch.py": 15,
}
DEFAULT = 10
BROWSER = ("tests/page/", "tests/check/")


def lanes(files):
    """{file: lane} for the browser's test files: each file, the slowest first, to the lane
    with the least time so far."""
    load, lane_of = [0, 0], {}
    for path in sorted(files, key=lambda f: (-SECONDS.get(f, DEFAULT), f)):
        lane = load.index(min(load))
        lane_of[path] = lane
        load[lane] += SECONDS.get(path, DEFAULT)
    return lane_of


class Lanes(LoadScopeScheduling):
    """LoadScopeScheduling whose scope is a lane for the browser's files, else the test."""

    def schedule(self):
        if self.collection is None and self.collection_is_completed:
            files = {nodeid.split("::")[0] for nodeid in next(iter(self.registered_collections.values()))}
            self.lane_of = lanes([f for f in files if f.startswith(BROWSER)])
            # the lanes first (scopes go in order of their number of tests), the rest after
            self.config.option.loadscopereorder = True
        super().schedule()

    def _split_scope(self, nodeid):
        path = nodeid.split("::")[0]
        if path.startswith(BROWSER):
            return f"lane {self.lane_of[path]}"
        return nodeid


@pytest.hookimpl(optionalhook=True)  # (a hook of pytest-xdist's: only when it runs)
def pytest_xdist_make_scheduler(config, log):
    return Lanes(config, log)
