"""build.py: what dist/ holds, and a clear refusal when an input is missing."""

import hashlib
import json
import os
import re
import zipfile
from pathlib import Path

import pytest

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


def baked():
    page = (DIST / "index.html").read_text()
    return json.loads(re.search(r'id="pdsplit-baked">(.*?)</script>', page, re.S).group(1))


def test_lock_carries_the_shipped_micropip_hash():
    (lock_path,) = DIST.glob("pyodide/*/pyodide-lock.json")
    lock = json.loads(lock_path.read_text())
    package = json.loads((ROOT / "node_modules" / "pyodide" / "package.json").read_text())
    assert lock_path.parent.name == package["version"]  # a folder per Pyodide version
    assert baked()["pyodide"] == f"pyodide/{package['version']}/"
    assert list(lock["packages"]) == ["micropip"]
    entry = lock["packages"]["micropip"]
    wheel = lock_path.parent / entry["file_name"]
    assert hashlib.sha256(wheel.read_bytes()).hexdigest() == entry["sha256"]


def test_sim_wheel_is_this_source():
    (wheel,) = DIST.glob("pdsplit_sim-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = {n for n in z.namelist() if n.startswith("sim/")}
        assert names == {f"sim/{p.name}" for p in (ROOT / "sim").glob("*.py")}
        for name in names:
            assert z.read(name) == (ROOT / name).read_bytes()


def test_page_refers_only_to_its_own_files_each_versioned():
    """Every file the page's own code asks for exists in dist/ and carries ?v=<the build's
    content hash>, so a redeploy never mixes cached old files with new ones."""
    page = (DIST / "index.html").read_text()
    version = baked()["version"]
    assert re.fullmatch(r"[0-9a-f]{12}", version)
    refs = [ref for ref in re.findall(r'(?:src|href)="([^"]+)"', page) if not ref.startswith("data:")]
    assert len(refs) == 3
    scripts = [name for name in build.WEB_FILES if name.endswith(".js")]
    for script in scripts:
        refs += [ref[2:] for ref in re.findall(r'from "([^"]+)"', (DIST / script).read_text())
                 if ref.startswith("./") or pytest.fail(f"{script} imports {ref}")]
    refs.append(baked()["wheel"])
    imported = {ref.partition("?")[0] for ref in refs}
    # every module but the page's entry (app.js) and the worker's is imported by another
    assert imported >= set(scripts) - {"app.js", "worker.js"}
    assert len(refs) == 3 + 7 + 1  # 3 in the page; 6 imports in app.js, 1 in explorer.js; the wheel
    for ref in refs:
        assert not re.match(r"^(https?:)?//", ref), ref
        path, _, query = ref.partition("?")
        assert (DIST / path).is_file() and query == f"v={version}", ref


def test_the_version_follows_every_byte(tmp_path):
    (tmp_path / "vendor").mkdir()
    (tmp_path / "app.js").write_text("one")
    (tmp_path / "vendor" / "plotly.js").write_text("two")
    before = build.content_version(tmp_path)
    assert build.content_version(tmp_path) == before
    (tmp_path / "vendor" / "plotly.js").write_text("twO")
    assert build.content_version(tmp_path) != before


def test_the_sim_wheel_is_reproducible(tmp_path):
    """The same source builds the same wheel bytes, so a rebuild keeps the page's ?v=."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = build.build_sim_wheel(tmp_path / "a")
    sources = {p: (p.stat().st_atime_ns, p.stat().st_mtime_ns) for p in (ROOT / "sim").glob("*.py")}
    try:
        for source, (atime, mtime) in sources.items():  # dated otherwise, as a fresh clone's
            os.utime(source, ns=(atime, mtime + 86_400 * 10**9))
        assert build.build_sim_wheel(tmp_path / "b") == first
    finally:
        for source, times in sources.items():
            os.utime(source, ns=times)
    assert (tmp_path / "a" / first).read_bytes() == (tmp_path / "b" / first).read_bytes()
