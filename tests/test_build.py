"""build.py: what dist/ holds, and a clear refusal when an input is missing."""

import hashlib
import json
import re
import zipfile
from pathlib import Path

import build

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist"


def test_refuses_without_an_input(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(build, "PLOTLY", tmp_path / "plotly-basic.min.js")
    assert build.main(["--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "missing input:" in err and "plotly-basic.min.js" in err and "npm ci" in err
    assert not (tmp_path / "out").exists()


def test_refuses_without_micropip(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(build, "WHEELS", tmp_path)
    assert build.main(["--out", str(tmp_path / "out")]) == 1
    assert "micropip-" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_lock_carries_the_shipped_micropip_hash():
    lock = json.loads((DIST / "pyodide" / "pyodide-lock.json").read_text())
    assert list(lock["packages"]) == ["micropip"]
    entry = lock["packages"]["micropip"]
    wheel = DIST / "pyodide" / entry["file_name"]
    assert hashlib.sha256(wheel.read_bytes()).hexdigest() == entry["sha256"]


def test_sim_wheel_is_this_source():
    (wheel,) = DIST.glob("pdsplit_sim-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = {n for n in z.namelist() if n.startswith("sim/")}
        assert names == {f"sim/{p.name}" for p in (ROOT / "sim").glob("*.py")}
        for name in names:
            assert z.read(name) == (ROOT / name).read_bytes()


def test_page_refers_only_to_its_own_files():
    page = (DIST / "index.html").read_text()
    for ref in re.findall(r'(?:src|href)="([^"]+)"', page):
        assert not re.match(r"^(https?:)?//", ref), ref
        assert ref.startswith("data:") or (DIST / ref).is_file(), ref
    for script in ("app.js", "worker.js", "settings.js", "python.js", "latest.js", "view.js"):
        for ref in re.findall(r'from "([^"]+)"', (DIST / script).read_text()):
            assert ref.startswith("./") and (DIST / ref).is_file(), (script, ref)
