"""build.py: what dist/ holds, and a clear refusal when an input is missing."""

import hashlib
import json
import os
import re
import zipfile

import pytest

import sim

from conftest import ROOT

import build

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
    """Every module of sim/ and every data file (the shipped traces and their NOTICE), byte
    for byte, and nothing else."""
    (wheel,) = DIST.glob("pdsplit_sim-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = {n for n in z.namelist() if n.startswith("sim/")}
        source = {p.relative_to(ROOT).as_posix() for p in (ROOT / "sim").rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts}
        assert names == source
        assert {"sim/workload/data/README.md", "sim/workload/data/AzureLLMInferenceTrace_conv_2023.csv.gz",
                "sim/workload/data/AzureLLMInferenceTrace_code_2023.csv.gz"} <= names
        for name in names:
            assert z.read(name) == (ROOT / name).read_bytes()


def python_config():
    page = (DIST / "index.html").read_text()
    return json.loads(re.search(r'id="pdsplit-python">(.*?)</script>', page, re.S).group(1))


def test_page_refers_only_to_its_own_files_each_versioned():
    """Every file the page's own code asks for exists in dist/ and carries ?v=<the build's
    content hash>, so a redeploy never mixes cached old files with new ones. Pyodide's own
    files, which it asks for without our query, sit in a folder named after its version."""
    page = (DIST / "index.html").read_text()
    version = baked()["version"]
    assert re.fullmatch(r"[0-9a-f]{12}", version)
    # what the page loads (a link to read elsewhere, as the traces' license, is not loaded)
    refs = [ref for ref in re.findall(r'<(?:script|link)\b[^>]*?(?:src|href)="([^"]+)"', page)
            if not ref.startswith("data:")]
    # the style, Plotly's style, the icon, start.js, app.js, and a modulepreload for each
    # module these two import (18: models.js, watchkv.js and watchnow.js joined the 15)
    preloaded = [ref.partition("?")[0] for ref in re.findall(r'<link rel="modulepreload" href="([^"]+)"', page)]
    assert preloaded == build.imported("start.js") + sorted(set(build.imported("app.js")) - {*build.imported("start.js"), "start.js"})
    assert len(preloaded) == 18 and len(refs) == 5 + 18
    # Plotly, which start.js runs once the worker runs
    refs += re.findall(r'<meta name="pdsplit:plotly" content="([^"]+)">', page)
    assert len(refs) == 24 and refs[-1].startswith("vendor/plotly-basic.min.js?")
    # the hub's page (a course page's one Python): hub.js and its imports' modulepreloads,
    # and what its worker boots from, the same as the page's
    hub = (DIST / "hub.html").read_text()
    hub_refs = re.findall(r'<(?:script|link)\b[^>]*?(?:src|href)="([^"]+)"', hub)
    assert sorted(ref.partition("?")[0] for ref in hub_refs) == ["hub-client.js", "hub.js", "python.js"]
    assert json.loads(re.search(r'id="pdsplit-python">(.*?)</script>', hub, re.S).group(1)) == python_config()
    refs += hub_refs
    scripts = [name for name in build.WEB_FILES if name.endswith(".js")]
    for script in scripts:
        refs += [ref[2:] for ref in re.findall(r'from "([^"]+)"', (DIST / script).read_text())
                 if ref.startswith("./") or pytest.fail(f"{script} imports {ref}")]
    imported = {ref.partition("?")[0] for ref in refs}
    # every module but the page's entry (app.js), the worker's, the host's embed.js (which
    # course sites load by a fixed URL) and the service worker (python.js registers it, by a
    # fixed URL: the browser checks it for a new version on every visit) is imported or preloaded
    assert imported >= set(scripts) - {"app.js", "worker.js", "embed.js", "sw.js"}
    assert 'new URL("./sw.js", import.meta.url)' in (DIST / "python.js").read_text()
    config = python_config()
    refs += [baked()["wheel"], config["wheel"], config["snapshot"]]
    # 24 in the page, 3 in the hub's; 13 imports in app.js, 2 in start.js (python.js and
    # hub-client.js), 3 in explorer.js (controls.js, economics.js and traffic.js: what the
    # toy's button sets back), 3 in traffic.js (controls.js, store.js and view.js), 2 in
    # models.js (controls.js and view.js), 4 in watch.js (view.js, watchdraw.js, watchkv.js
    # and watchnow.js), 2 in worker.js (downloads.js and store.js), 2 in hub.js (python.js
    # and hub-client.js), 1 in hub-client.js (python.js), 1 in sw.js (downloads.js); the
    # wheel twice, the snapshot
    assert len(refs) == 24 + 3 + 33 + 3
    pyodide = f"pyodide/{json.loads((ROOT / 'node_modules' / 'pyodide' / 'package.json').read_text())['version']}/"
    for ref in refs:
        assert not re.match(r"^(https?:)?//", ref), ref
        path, _, query = ref.partition("?")
        assert (DIST / path).is_file(), ref
        assert query == f"v={version}" or (path.startswith(pyodide) and not query), ref
    assert config["version"] == version and config["pyodide"] == pyodide


def test_index_html_carries_the_defaults_and_the_states_file_the_rest():
    """index.html, fetched again on every visit, carries the results of the lesson's defaults
    only (issue 49: it was 0.9 MB with every named state's): the others' are in states.json,
    beside it plain and gzipped, under a URL that names their content, which the worker is
    told of so that its tidying keeps the browser's copy."""
    import gzip

    page = (DIST / "index.html").read_text()
    inline = json.loads(re.search(r'id="pdsplit-baked">(.*?)</script>', page, re.S).group(1))
    first, *others = inline["states"]
    assert {"compare", "figures"} <= set(first) and first["settings"] == sim.Settings().as_dict()
    # the others by what they change from the defaults, which the page fills in
    assert others and all(set(state) == {"name", "label", "group", "changes"} for state in others)
    plain = (DIST / "states.json").read_bytes()
    assert gzip.decompress((DIST / "states.json.gz").read_bytes()) == plain
    tag = hashlib.sha256(plain).hexdigest()[:12]
    assert inline["states_file"] == {"plain": f"states.json?v={tag}", "packed": f"states.json.gz?v={tag}"}
    assert python_config()["states"] == inline["states_file"]["packed"]
    whole = json.loads(plain)
    assert [state["name"] for state in whole] == [state["name"] for state in others]
    for state, told in zip(whole, others):
        assert told["changes"] and {**first["settings"], **told["changes"]} == state["settings"]
        assert all(first["settings"][key] != value for key, value in told["changes"].items())
    for state in whole:  # as the page shows them: a native compare's message, every figure
        assert state["compare"]["result"] == json.loads(json.dumps(sim.compare(**state["settings"])))
    assert len(page.encode()) < 100_000  # the second visit's target: nothing over 100 kB again


def test_the_bake_is_native_and_says_what_it_was_made_from():
    """The named states the build baked are native runs: each state's figures (every state's
    but the models', which take minutes) are what FIGURES[key].render gives with a fresh Lab,
    byte for byte once in JSON, and its numbers the page's compare message. build/baked.json
    names the sources they were made from (tests/native.py takes the bake for the models'
    states where they are this tree's), and the states' file."""
    from native import baked_from_these_sources
    from sim.show.figures import FIGURES
    from sim.show.page import compare_message
    from sim.show.states import found

    assert baked_from_these_sources(), "dist/ was not built from this tree's sim/: run make build"
    groups = {name: group for group, name, _, _ in found()}
    first = baked()["states"][0]
    states = [first] + json.loads((DIST / "states.json").read_text())
    assert [state["name"] for state in states] == list(groups)
    for state in states:
        if groups[state["name"]] == "model":
            continue
        lab, s = sim.Lab(), sim.Settings(**state["settings"])
        assert state["compare"] == json.loads(json.dumps(compare_message(lab, s))), state["name"]
        for key, figure in state["figures"].items():
            assert figure == json.loads(json.dumps(FIGURES[key].render(lab, s))), (state["name"], key)


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


def test_snapshot_is_shipped_gzipped_and_its_size_is_baked():
    import gzip

    config = python_config()
    path, _, query = config["snapshot"].partition("?")
    assert path == build.SNAPSHOT and query == f"v={baked()['version']}"
    data = gzip.decompress((DIST / path).read_bytes())
    assert len(data) == config["bytes"]
    # Pyodide's snapshot header: its magic number, then the build id of pyodide.asm.wasm
    assert int.from_bytes(data[:4], "little") == 1886286592


def test_snapshot_check_passes_on_the_build_and_refuses_other_numbers(monkeypatch):
    """The build boots the snapshot in Node and compares its replies with native Python's;
    a Python that answers differently is refused with the request that showed it. It boots
    as the page does, with the standard library's zip empty: none of the page's requests
    needs it, and an import outside the snapshot fetches it and works."""
    (folder,) = DIST.glob("pyodide/*/")
    seconds, needed = build.check_snapshot(folder, DIST / build.SNAPSHOT)
    assert seconds > 0 and needed == 0

    class Other(build.Page):  # as if the snapshot held an older sim
        def handle(self, text):
            reply = json.loads(super().handle(text))
            if json.loads(text)["type"] == "compare" and reply["result"]["settings"]["rps"] == 10:
                reply["result"]["split"]["goodput"] += 1e-9
            return json.dumps(reply)

    monkeypatch.setattr(build, "Page", Other)
    with pytest.raises(build.MissingInput, match=r"does not answer as native Python does: .*\"rps\": 10"):
        build.check_snapshot(folder, DIST / build.SNAPSHOT)


def test_the_version_counts_the_snapshot_by_what_makes_it(tmp_path):
    """The snapshot's bytes differ from build to build (Python's memory holds addresses and
    random state), so the version hashes what it is made from instead: a rebuild of the
    same source keeps its ?v=, and a change to snapshot.mjs changes it."""
    (tmp_path / "app.js").write_text("one")
    (tmp_path / build.SNAPSHOT).write_bytes(b"memory")
    maker = tmp_path / "maker.mjs"
    maker.write_text("make")
    before = build.content_version(tmp_path, skip={build.SNAPSHOT}, inputs=[maker])
    (tmp_path / build.SNAPSHOT).write_bytes(b"other memory")
    assert build.content_version(tmp_path, skip={build.SNAPSHOT}, inputs=[maker]) == before
    maker.write_text("make it otherwise")
    assert build.content_version(tmp_path, skip={build.SNAPSHOT}, inputs=[maker]) != before


def test_the_footer_s_links_resolve_in_dist():
    """The page links to its docs by relative paths; the build ships them beside it."""
    page = (DIST / "index.html").read_text()
    footer = page.split("<footer", 1)[1].split("</footer>", 1)[0]
    linked = re.findall(r'<a href="([^"]+)">', footer)
    assert len(linked) == 4
    for href in linked:
        assert (DIST / href).read_text() == (ROOT / href).read_text(), href


def test_dist_carries_every_license_it_needs():
    """A copy of dist/ (or make site's archive) carries our license at its top and, beside
    docs/licenses.md, the texts it names, each the file it was copied from."""
    assert (DIST / "LICENSE.txt").read_bytes() == (ROOT / "LICENSE").read_bytes()
    table = (ROOT / "docs" / "licenses.md").read_text()
    for source, name in build.LICENSES:
        assert (DIST / "docs" / name).read_bytes() == source.read_bytes(), name
        assert f"`{name}`" in table, name


def test_a_site_archive_holds_dist_under_one_folder(tmp_path):
    """make site: dist/, every file and nothing else, under pdsplit/, ready to unpack."""
    import tarfile
    archive = build.pack_site(DIST, tmp_path / "site.tar.gz")
    with tarfile.open(archive) as tar:
        members = {m.name: m for m in tar.getmembers() if m.isfile()}
        shipped = {f"pdsplit/{p.relative_to(DIST).as_posix()}" for p in DIST.rglob("*") if p.is_file()}
        assert set(members) == shipped and "pdsplit/index.html" in members
        assert tar.extractfile(members["pdsplit/embed.js"]).read() == (DIST / "embed.js").read_bytes()


def test_a_site_archive_refuses_without_a_build(tmp_path):
    with pytest.raises(build.MissingInput, match="run make build first"):
        build.pack_site(tmp_path / "nothing", tmp_path / "site.tar.gz")
    assert not (tmp_path / "site.tar.gz").exists()
