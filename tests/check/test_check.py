"""`python -m sim check URL`, run as a course site's CI runs it (a subprocess), against the
page (dist/), a copy with one number altered after it is drawn, a copy that says another
version, a baseline that differs, a framed copy, and what is not the widget."""

import json
import os
import re
import shlex
import shutil
import socket
import struct
import subprocess
import sys
import tomllib
from xml.etree import ElementTree as ET

import pytest

import sim
from sim import check
from sim.check import expected
from sim.check.run import SIZES
from sim.cli import attach_values, build_parser
from sim.model.lab import Lab
from sim.show.numbers import shown
from sim.settings import Settings
from sim.show.states import STATES

from check_site import HOST, OTHER_VERSION, TAMPERED_KEY, serve, tampered
from conftest import ROOT, SUBPATH, chromium

COURSE_SITES = (ROOT / "docs" / "course-sites.md").read_text()
RUN_TIMEOUT = 1500  # s for one check in a subprocess: a check that hangs fails here


@pytest.fixture(scope="module")
def origin():
    server, _, origin = serve()
    yield origin
    server.shutdown()


def run_check(*args, env=None):
    env = {**os.environ, "CHROMIUM": chromium(), **(env or {})}
    return subprocess.run([sys.executable, "-m", "sim", "check", *map(str, args)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT)


def png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", data[16:24])


def native_text(settings, key):
    return shown(sim.compare(**settings))[key]


# ---- the page as built: every named state and two random ones ----

@pytest.fixture(scope="module")
def full(origin, tmp_path_factory):
    """One check of dist/ with everything on: its process, JSON report and folder. The
    screenshots are the baseline of test_a_baseline_that_differs_fails."""
    out = tmp_path_factory.mktemp("full")
    done = run_check(origin + SUBPATH, "--random", 2, "--seed", 5, "--screenshots", out / "shots",
                     "--json", "--junit", out / "report.xml")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done, json.loads(done.stdout), out


def test_dist_passes_every_state(full):
    done, report, _ = full
    assert report["ok"] is True and report["exit"] == 0 and report["failures"] == []
    assert report["simulator"] == {"here": sim.__version__, "page": sim.__version__}
    names = [state["name"] for state in report["states"]]
    assert names == list(expected.NAMED) + ["random-1", "random-2"]
    for state in report["states"]:
        assert state["mismatches"] == []
        assert state["panel"] is (state["name"] not in [n for n, _, _ in STATES])
    lesson = [s["numbers"] for s in report["states"] if not s["panel"]]
    panel = [s["numbers"] for s in report["states"] if s["panel"]]
    # results, headline, five captions, slider values, footer; the panel adds its own
    assert min(lesson) >= 50 and min(panel) > max(lesson)
    assert f"All holds: {len(expected.NAMED) + 2} states" in done.stderr  # --json: progress goes to stderr


def test_named_and_random_states_are_the_ones_asked_for(full):
    _, report, _ = full
    by_name = {state["name"]: state["settings"] for state in report["states"]}
    named = expected.named_states()  # each claimed result worked out, as the build does
    assert list(named) == expected.NAMED
    for name, (changes, _) in named.items():
        assert by_name[name] == Settings().but(**changes).as_dict()
    args = build_parser().parse_args(["check", "http://x/", "--random", "2", "--seed", "5"])
    planned = {name: settings for name, settings, _ in expected.plan(args)}
    randoms = [by_name["random-1"], by_name["random-2"]]
    assert randoms == [planned["random-1"], planned["random-2"]]
    assert randoms[0] != randoms[1] and all(r["gpus"] in expected.RANDOM_GPUS for r in randoms)
    other = expected.plan(build_parser().parse_args(["check", "http://x/", "--random", "2", "--seed", "6"]))
    assert other[-1][1] != planned["random-2"]  # another seed, other settings


def test_screenshots_at_both_sizes(full):
    _, report, out = full
    for state in report["states"]:
        sizes = {entry["size"]: entry["path"] for entry in state["screenshots"]}
        assert sorted(sizes) == ["1280x800", "375x740"]
        for size, path in sizes.items():
            width, height = map(int, size.split("x"))
            assert path == str(out / "shots" / f"{state['name']}-{size}.png")
            got = png_size(out / "shots" / f"{state['name']}-{size}.png")
            assert got[0] == width and got[1] > height  # the full page, taller than the screen


def test_junit_has_a_case_per_state_per_check(full):
    _, report, out = full
    suite = ET.parse(out / "report.xml").getroot().find("testsuite")
    cases = [(c.get("classname"), c.get("name")) for c in suite.iter("testcase")]
    assert cases == [("pdsplit.page", "version")] + [(f"pdsplit.{s['name']}", "numbers")
                                                     for s in report["states"]]
    assert suite.get("failures") == "0" and not list(suite.iter("failure"))


# ---- what must fail ----

def test_a_number_altered_after_it_is_drawn_fails_naming_it(origin):
    done = run_check(origin + "/tampered/", "--states", "busy,portfolio", "--random", 1, "--json")
    assert done.returncode == 1, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["exit"] == 1 and report["simulator"]["page"] == sim.__version__
    assert [s["name"] for s in report["states"]] == ["busy", "portfolio", "random-1"]
    for state in report["states"]:  # exactly the altered number, in each state
        want = native_text(state["settings"], TAMPERED_KEY)
        assert state["mismatches"] == [{"size": "1280x800", "key": TAMPERED_KEY,
                                        "shown": tampered(want), "expected": want}]
        line = f"MISMATCH {state['name']}: {TAMPERED_KEY} shows {tampered(want)!r}; a native run gives {want!r}"
        assert line in done.stderr.splitlines()
    assert len(report["failures"]) == 3
    busy = f"MISMATCH busy: {TAMPERED_KEY} shows {tampered(native_text(Settings(rps=10).as_dict(), TAMPERED_KEY))!r}"
    assert busy in COURSE_SITES  # the docs' example is what the check says


def test_a_page_that_never_finishes_fails_within_the_timeout(origin):
    done = run_check(origin + "/stuck/", "--states", "default,busy,portfolio", "--timeout", 20)
    assert done.returncode == 1, done.stderr[-3000:]
    failures = [line for line in done.stdout.splitlines() if line.startswith("MISMATCH")]
    assert failures == ["MISMATCH default: its charts were not all drawn within 20 s",
                        "MISMATCH not checked, since default did not finish: busy, portfolio"]


def test_another_simulator_version_fails(origin):
    done = run_check(origin + "/other-version/", "--states", "default")
    assert done.returncode == 1, done.stderr[-3000:]
    assert done.stdout.splitlines()[-1].endswith("exit 1")
    failures = [line for line in done.stdout.splitlines() if line.startswith("MISMATCH")]
    assert failures == [f"MISMATCH the page runs the simulator {OTHER_VERSION}; this check runs "
                        f"{sim.__version__}"]
    assert "ok default: " in done.stdout  # the numbers themselves still hold


def test_a_baseline_that_differs_fails(full, origin, tmp_path):
    """Against the full check's screenshots, with default's laptop picture swapped for busy's
    and busy's phone picture missing: those two fail, and the other two match pixel for pixel
    (a screenshot of a state is the same from one run to the next)."""
    _, _, out = full
    baseline = tmp_path / "baseline"
    shutil.copytree(out / "shots", baseline)
    shutil.copyfile(baseline / "busy-1280x800.png", baseline / "default-1280x800.png")
    (baseline / "busy-375x740.png").unlink()
    shots = tmp_path / "shots"
    done = run_check(origin + SUBPATH, "--states", "default,busy", "--screenshots", shots,
                     "--baseline", baseline, "--junit", tmp_path / "report.xml")
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    diff = shots / "default-1280x800.diff.png"
    failures = [line for line in done.stdout.splitlines() if line.startswith("MISMATCH")]
    assert len(failures) == 2
    assert re.fullmatch(rf"MISMATCH default: screenshot 1280x800 (differs from the baseline in "
                        rf"[0-9.]+% of its pixels \(at most 0.100% may\)|is \d+x\d+ px, the "
                        rf"baseline \d+x\d+); see {re.escape(str(diff))}", failures[0]), failures[0]
    assert failures[1] == f"MISMATCH busy: no baseline image {baseline / 'busy-375x740.png'}"
    a, b = png_size(shots / "default-1280x800.png"), png_size(baseline / "default-1280x800.png")
    assert png_size(diff) == (max(a[0], b[0]), max(a[1], b[1]))
    assert sorted(p.name for p in shots.glob("*.diff.png")) == [diff.name]
    suite = ET.parse(tmp_path / "report.xml").getroot().find("testsuite")
    outcome = {(c.get("classname"), c.get("name")): c.find("failure") is None
               for c in suite.iter("testcase")}
    assert outcome == {("pdsplit.page", "version"): True,
                       ("pdsplit.default", "numbers"): True, ("pdsplit.busy", "numbers"): True,
                       ("pdsplit.default", "screenshot 375x740"): True,
                       ("pdsplit.default", "screenshot 1280x800"): False,
                       ("pdsplit.busy", "screenshot 375x740"): False,
                       ("pdsplit.busy", "screenshot 1280x800"): True}


# ---- a copy framed in a course page ----

def test_frame_checks_the_framed_copy(origin, tmp_path):
    """The course page frames the lesson as docs/course-sites.md shows (loading="lazy", fitted to its
    height); --frame checks the copy inside it and pictures the frame."""
    done = run_check(origin + HOST, "--frame", "iframe.pdsplit", "--states", "busy,chat",
                     "--screenshots", tmp_path, "--json")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["frame"] == "iframe.pdsplit" and report["simulator"]["page"] == sim.__version__
    assert [s["name"] for s in report["states"]] == ["busy", "chat"]
    assert all(s["numbers"] >= 50 and s["mismatches"] == [] for s in report["states"])
    for state in ("busy", "chat"):
        for width, height in SIZES:
            got = png_size(tmp_path / f"{state}-{width}x{height}.png")
            # the frame, inside the host page's margins, grown to the lesson's height
            assert width - 40 < got[0] < width and got[1] > 1500


# ---- what is not the widget, or cannot be checked: exit 2, one line ----

def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens once it is closed


@pytest.mark.parametrize("where, extra, says", [
    ("dead", [], "cannot reach {url}: net::ERR_CONNECTION_REFUSED"),
    ("404", [], "{url} answered HTTP 404: not this widget"),
    ("plain", ["--timeout", "5"], "{url} is not this widget: no window.pdsplit within 5 s of loading"),
    ("host", ["--frame", "iframe.elsewhere", "--timeout", "5"],
     "{url} has no element matching --frame 'iframe.elsewhere'"),
    ("host", ["--frame", "h1"], "--frame 'h1' matches a <h1> in {url}, not an <iframe>"),
])
def test_not_this_widget_exits_2(origin, where, extra, says):
    url = {"dead": f"http://127.0.0.1:{closed_port()}/", "404": origin + SUBPATH + "missing/",
           "plain": origin + "/plain.html", "host": origin + HOST}[where]
    done = run_check(url, *extra)
    assert done.returncode == 2
    assert done.stderr == f"python -m sim check: error: {says.format(url=url)}\n"
    assert done.stdout == ""


def test_exit_2_is_reported_in_json_and_junit(tmp_path):
    url = f"http://127.0.0.1:{closed_port()}/"
    done = run_check(url, "--json", "--junit", tmp_path / "report.xml")
    assert done.returncode == 2
    report = json.loads(done.stdout)
    assert report["exit"] == 2 and report["ok"] is False
    assert report["error"] == f"cannot reach {url}: net::ERR_CONNECTION_REFUSED"
    error = ET.parse(tmp_path / "report.xml").getroot().find("testsuite/testcase/error")
    assert error.get("message") == report["error"]


@pytest.mark.parametrize("args, says", [
    (["--random", "-1"], "argument --random: must be a whole number from 0 to 1,000; got '-1'"),
    (["--seed", "x"], "argument --seed: must be a whole number from 0; got 'x'"),
    (["--states", "default,nope"], "argument --states: unknown state 'nope'"),
    (["--max-diff", "2"], "argument --max-diff: must be a share from 0 to 1; got '2'"),
    (["--timeout", "nan"], "argument --timeout: must be a number of seconds from 1 to 3600"),
    (["--pixel-threshold", "300"], "argument --pixel-threshold: must be a whole number from 0 to 255"),
    (["--baseline", "."], "--baseline needs --screenshots DIR"),
    (["--screenshots", "out", "--baseline", "no/such/dir"], "--baseline no/such/dir: no such directory"),
    (["--browser", "/no/such/chromium"], "no Chromium at /no/such/chromium (--browser)"),
    (["--states", ""], "no states to check"),
])
def test_bad_arguments_exit_2(args, says):
    done = run_check("http://127.0.0.1:1/", *args)
    assert done.returncode == 2 and says in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_a_url_must_say_its_scheme():
    done = run_check("localhost:8000/pdsplit/")
    assert done.returncode == 2
    assert "argument URL: must start with http:// or https://; got 'localhost:8000/pdsplit/'" in done.stderr


def test_without_playwright_it_says_how_to_get_it(tmp_path):
    fake = tmp_path / "playwright"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError('No module named playwright (hidden by the test)')\n")
    done = run_check("http://127.0.0.1:1/", env={"PYTHONPATH": str(tmp_path)})
    assert done.returncode == 2 and "Traceback" not in done.stderr
    line = done.stderr.strip()
    assert "\n" not in line and line.startswith("python -m sim check: error: Playwright is not installed")
    assert f"pip install '{check.PACKAGE}[check]'" in line
    assert "playwright install chromium" in line and "--browser PATH or $CHROMIUM" in line


def test_import_sim_and_every_other_command_never_load_playwright():
    done = subprocess.run([sys.executable, "-c", (
        "import sys, io, sim, sim.cli, sim.check\n"
        "sim.cli.run(['compare', '--json'], io.StringIO())\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'playwright'))")],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[]\n"


# ---- the comparison itself, without a browser ----

def test_compare_numbers_names_each_kind_of_mismatch():
    settings = Settings(rps=10).as_dict()
    want = expected.expected(Lab(), settings)
    figures = {key: text for shown in want["figures"].values() for key, text in shown.items()}
    texts = {**want["texts"], **figures}
    page = [[key, texts[key], True] for key in sorted(want["required"] | set(figures))]
    every = {name: True for name in want["figures"]}
    got = {"metrics": page, "captions": every, "result": sim.compare(**settings)}
    assert expected.compare_numbers(want, got) == ([], len(page))
    # The panel closed: its figures' captions hidden, with numbers of earlier settings.
    panel = {key for name in expected.PANEL for key in want["figures"][name]}
    closed = [m for m in page if m[0] not in panel] + [[key, "stale", False] for key in panel]
    captions = {**every, **{name: False for name in expected.PANEL}}
    assert expected.compare_numbers(want, {**got, "metrics": closed, "captions": captions})[0] == []
    # ... but a figure whose caption is on screen must have its numbers there
    problems, _ = expected.compare_numbers(want, {**got, "metrics": closed})
    assert sorted(problems) == sorted((key, "stale", figures[key]) for key in panel)
    key = "split.gap_p99"
    altered = [[k, "1.0 ms" if k == key else t, v] for k, t, v in page if k != "costs.step"]
    altered += [["split.extra", "9%", True], ["chunked.goodput", "", False]]
    problems, _ = expected.compare_numbers(want, {**got, "metrics": altered})
    assert problems == [(key, "1.0 ms", want["texts"][key]),
                        ("split.extra", "9%", None),
                        ("costs.step", None, want["texts"]["costs.step"])]
    assert expected.compare_numbers(want, {**got, "result": sim.compare(rps=9)})[0] == [
        ("pdsplit.result()", "another result", "the native compare result")]


def test_slider_values_read_as_the_page_writes_them():
    assert expected.setting_text("rps", 4.0) == "4 req/s"
    assert expected.setting_text("gap_target", 0.1) == "100 ms"
    assert expected.setting_text("prompt", 2000) == "2,000 tokens"
    assert expected.setting_text("link", 0.125) == "0.125 GB/s"
    assert expected.setting_text("attainment", 0.9) == "90 %"
    assert not expected.shows_value("routing") and not expected.shows_value("layerwise")
    assert not expected.shows_value("seed") and expected.shows_value("gpus")


# ---- the package and docs/course-sites.md's recipe ----

def test_the_check_extra_and_the_one_version():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["name"] == check.PACKAGE
    assert any(d.startswith("playwright") for d in project["project"]["optional-dependencies"]["check"])
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "sim.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", sim.__version__)


def test_readme_ci_recipe_runs_a_check_the_command_accepts():
    recipe = re.search(r"<!-- check recipe -->\n```yaml\n(.*?)```\n<!-- /check recipe -->",
                       COURSE_SITES, re.S).group(1)
    commands = []  # a literal block (|) runs each line; a folded one (>-) is one line
    for style, block in re.findall(r"run: ([|]|>-)\n((?:          .*\n)+)", recipe):
        lines = [line.strip() for line in block.splitlines()]
        commands += lines if style == "|" else [" ".join(lines)]
    installs = [c for c in commands if c.startswith("pip install")]
    assert installs == [f'pip install "{check.PACKAGE}[check]=={sim.__version__}"']
    assert "playwright install --with-deps chromium" in commands
    (line,) = [c for c in commands if c.startswith("python -m sim check")]
    line = re.sub(r"\$\{\{[^}]*\}\}", "1", line)
    args = build_parser().parse_args(attach_values(shlex.split(line)[3:]))  # SystemExit if not
    assert args.command == "check" and args.url.startswith("https://")
    assert args.screenshots and args.baseline and args.junit
    upload = recipe.split("if: failure()", 1)[1]
    assert "actions/upload-artifact" in upload
    assert f"{args.screenshots}/" in upload and str(args.junit) in upload


def test_the_example_course_page_passes(origin, tmp_path):
    """dist/embed-example.html, the course page with three live pieces (embed.js, embed mode):
    --frame checks the piece with figure 3 and only the link slider, where it sits in the prose."""
    done = run_check(origin + SUBPATH + "embed-example.html", "--frame",
                     '[data-pdsplit*="show=link"] iframe', "--states", "busy,slow-link",
                     "--screenshots", tmp_path, "--json")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert [s["name"] for s in report["states"]] == ["busy", "slow-link"]
    # the piece shows figure 3's caption (its numbers) and no headline
    for state in report["states"]:
        assert state["mismatches"] == [] and state["numbers"] >= 3
    assert all((tmp_path / f"busy-{w}x{h}.png").is_file() for w, h in SIZES)
