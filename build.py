"""python build.py: compile sim/ into the lesson's static page in dist/.

dist/ works from any path of any static host and asks no other host for anything: the
page and its JS and CSS, the Pyodide core (npm package, pinned in package-lock.json),
micropip (the PyPI wheel, its real sha256 written into the copied pyodide-lock.json), a
wheel of sim/ built from pyproject.toml, the Plotly.js basic bundle, and a memory snapshot of
Pyodide with sim imported (made in Node by snapshot.mjs, gzip), which the page's worker
boots from in about a second. The results for the lesson's named states are computed here,
natively, and baked into the page so that it shows numbers and charts before Python has
loaded in the browser.

Inputs come from `make build` (npm ci, pip download of micropip); a missing one is named
and the build refuses (exit 1). docs/'s Markdown goes along as it is, so that the page's
footer can link to it by a relative path wherever the site serves dist/.

`python build.py --site` packs an existing dist/ into one archive to upload
(`make site`; docs/course-sites.md, "Without a build machine").
"""

import argparse
import gzip
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

from sim import Lab, Settings, __version__
from sim.show.curves import load_top
from sim.show.economics import example_prices
from sim.show.figures import FIGURES, SHOWN_WITH_A_TRACE
from sim.show.page import TRACE_FILE_BYTES, Page, compare_message, footer
from sim.show.report import HEADLINE, MEMORY, METRICS
from sim.model.costs import KINDS, MODELS, USABLE
from sim.settings import schema
from sim.show.states import STATES, named
from sim.workload import azure

ROOT = Path(__file__).resolve().parent
PYODIDE = ROOT / "node_modules" / "pyodide"
WASM = "pyodide.asm.wasm"
SCRIPT = "pyodide.asm.mjs"  # Pyodide's JavaScript core, which the worker imports
PYODIDE_RUNTIME = ("pyodide.mjs", SCRIPT, WASM, "python_stdlib.zip")
PLOTLY = ROOT / "node_modules" / "plotly.js-basic-dist-min" / "plotly-basic.min.js"
WHEELS = ROOT / "build" / "wheels"  # where `make` downloads micropip
WEB = ROOT / "web"
DOCS = ROOT / "docs"
WEB_FILES = ("address.js", "app.js", "controls.js", "economics.js", "explorer.js", "help.js", "latest.js", "models.js",
             "python.js", "settings.js", "start.js", "store.js", "traffic.js", "view.js", "watch.js", "watchdraw.js", "watchkv.js", "watchnow.js", "worker.js",
             "downloads.js", "sw.js",
             "style.css", "favicon.svg",
             # the hub: one Python for every piece of a course page (hub.html is rendered)
             "hub.js", "hub-client.js",
             # for course sites: the one-line embed, and a course page that uses it
             "embed.js", "embed-example.html", "embed-example.css")
# The license texts that go with the page, into dist/docs/ (docs/licenses.md says what each
# covers; Pyodide's npm package ships no copy of its MPL-2.0)
LICENSES = ((ROOT / "LICENSE", "LICENSE.txt"), (PLOTLY.parent / "LICENSE", "plotly.js-LICENSE.txt"),
            (ROOT / "sim" / "workload" / "data" / "README.md", "traces-NOTICE.md"))
PLOTLY_CSS = "plotly.css"  # in dist/vendor/: Plotly's own style rules, as a file (plotly_css)
SNAPSHOT_MAKER = ROOT / "snapshot.mjs"
SNAPSHOT = "snapshot.bin.gz"  # in dist/
PAGE_FIGURES = [name for name, figure in FIGURES.items() if figure.page]  # what the page draws


class MissingInput(Exception):
    pass


def need(path, hint):
    if not path.is_file():
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        raise MissingInput(f"missing input: {shown} ({hint})")
    return path


def sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def micropip_wheel(lock):
    version = lock["packages"]["micropip"]["version"]
    return need(WHEELS / f"micropip-{version}-py3-none-any.whl",
                f"pip download --no-deps --python-version 3.14 --only-binary=:all: "
                f"micropip=={version} -d build/wheels, or run make build")


def pyodide_inputs():
    """The Pyodide core's files, its lock, the micropip wheel the lock names, and the folder
    of dist/ the core goes in."""
    lock_path = need(PYODIDE / "pyodide-lock.json", "run npm ci, or make build")
    folder = pyodide_dir()
    for name in PYODIDE_RUNTIME:
        need(PYODIDE / name, "run npm ci, or make build")
    lock = json.loads(lock_path.read_text())
    entry = lock["packages"]["micropip"]
    if entry.get("depends"):
        raise MissingInput(f"micropip now depends on {entry['depends']}: ship those too")
    return lock, micropip_wheel(lock), folder


def pyodide_dir():
    """Where the Pyodide core goes in dist/: a folder per Pyodide version, since Pyodide
    loads its own files without our version query (see `versioned`)."""
    package = json.loads(need(PYODIDE / "package.json", "run npm ci, or make build").read_text())
    return f"pyodide/{package['version']}/"


def copy_pyodide(target, lock, wheel):
    """The Pyodide core, and a lock that lists only micropip, with the hash of our copy."""
    target.mkdir(parents=True)
    for name in PYODIDE_RUNTIME:
        shutil.copyfile(PYODIDE / name, target / name)
    # The core gzipped beside it, which the worker fetches and unpacks as it arrives: 9.6 MB
    # become 3.6 on a host that compresses nothing (the plain file stays, for a browser
    # without DecompressionStream). Fixed header, so the same bytes every build.
    (target / f"{WASM}.gz").write_bytes(gzip.compress((PYODIDE / WASM).read_bytes(), compresslevel=9, mtime=0))
    # Its JavaScript too, 1.25 MB become 0.26, which the page's service worker (web/sw.js)
    # serves unpacked for the plain file's URL: a script cannot be unpacked any other way
    # under the strict CSP. The plain file stays, for a page without the service worker.
    (target / f"{SCRIPT}.gz").write_bytes(gzip.compress((PYODIDE / SCRIPT).read_bytes(), compresslevel=9, mtime=0))
    shutil.copyfile(wheel, target / wheel.name)
    entry = dict(lock["packages"]["micropip"], file_name=wheel.name, sha256=sha256(wheel))
    lock = dict(lock, packages={"micropip": entry})  # browsers check this hash: our file's
    (target / "pyodide-lock.json").write_text(json.dumps(lock, separators=(",", ":")))


def build_sim_wheel(out):
    """A wheel of sim/ from pyproject.toml, for micropip to install in the browser."""
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
             "--quiet", "-w", tmp, str(ROOT)], capture_output=True, text=True,
            # fixed zip dates: the same source gives the same bytes, so the same ?v=
            env={**os.environ, "SOURCE_DATE_EPOCH": "315532800"})
        if done.returncode:
            raise MissingInput(f"could not build the sim wheel:\n{done.stderr.strip()}")
        wheel = next(Path(tmp).glob("*.whl"))
        shutil.copyfile(wheel, out / wheel.name)
    for scratch in [ROOT / "build" / "lib", *(ROOT / "build").glob("bdist.*")]:  # setuptools'
        shutil.rmtree(scratch, ignore_errors=True)
    for info in ROOT.glob("*.egg-info"):
        shutil.rmtree(info)
    return wheel.name


def bake(lab, meanwhile=lambda: None):
    """The named states (the lesson's, the explorer's, the traffic's, then the models'),
    computed natively: any result a label claims (a best ratio) from the same runs as its
    figure, then the numbers, then every figure the page draws of it.

    Baked side by side, a process a core, a piece (a state's numbers, or one of its figures)
    at a time: the models' states alone take minutes on one core (memory=kv's runs step every
    reply; "Memory pushes back"'s figure 9 alone over a minute). Each piece's runs are the
    same wherever it runs, so the order of finishing changes no byte.

    meanwhile() runs in this process while they bake (the build's snapshot: Node booting,
    snapshotting and checking Pyodide needs nothing baked, and run first it kept a core
    idle); returns what it returned, and the states."""
    found = [(group, name, label, Settings().but(**changes)) for group, name, label, changes in named(lab)]
    pieces = [(i, key) for i, (_, _, _, s) in enumerate(found) for key in [None, *figures_of(s)]]
    workers = min(len(pieces), os.cpu_count() or 1)
    if workers < 2:
        beside = meanwhile()
        done = {piece: bake_piece(found[piece[0]][3], piece[1], lab) for piece in pieces}
    else:
        # the long pieces first (the models' states, their rate searches), so that no long one
        # starts last with the other cores idle
        order = sorted(pieces, key=lambda p: (found[p[0]][0] != "model", p[1] not in LONG))
        with ProcessPoolExecutor(workers, mp_context=get_context("fork")) as pool:
            started = {piece: pool.submit(bake_piece, found[piece[0]][3], piece[1]) for piece in order}
            try:
                beside = meanwhile()
            except BaseException:  # a snapshot refused ends the build now, not after the bake
                pool.shutdown(cancel_futures=True)
                raise
            done = {piece: future.result() for piece, future in started.items()}
    return beside, [{"name": name, "label": label, "group": group, "settings": s.as_dict(),
                     "compare": done[(i, None)],
                     "figures": {key: done[(i, key)] for key in figures_of(s)}}
                    for i, (group, name, label, s) in enumerate(found)]


LONG = ("chips", "rate", "link", "prompt", "ratio")  # the figures of many rate searches


def figures_of(s):
    """The figures the page draws for settings s: a file's figure only (page=False) it draws
    not yet; and real traffic's figures only where a trace is chosen, as the page shows them."""
    return [key for key, figure in FIGURES.items()
            if figure.page and (s.traffic != "lesson" or key not in SHOWN_WITH_A_TRACE)]


def bake_piece(s, key, lab=None):
    """A state's numbers (key None) or one of its figures, from a Lab of this process's."""
    lab = lab or process_lab()
    return compare_message(lab, s) if key is None else FIGURES[key].render(lab, s)


def process_lab(labs={}):  # noqa: B006: one Lab per baking process, its runs shared by its pieces
    return labs.setdefault(os.getpid(), Lab())


# Which layouts have each of memory=kv's measures (sim.compare: the split's readers and
# writers have their own peaks); the others' cells say "–".
KV_LAYOUTS = {"dropped": ("shared", "split", "chunked"), "kv_peak": ("shared", "chunked"),
              "reader_kv_peak": ("split",), "writer_kv_peak": ("split",),
              "backpressure": ("split",)}


def metric_rows(shown, keys, memory=False):
    """Table rows, a column per layout; the chunked column is shown only while chunk > 0.
    memory: memory=kv's rows (report.MEMORY), shown only while the page's memory is kv."""
    rows = []
    for key, words in MEMORY if memory else METRICS:
        if key not in keys:
            continue
        cells = "".join(
            f'<td data-metric="{layout}.{key}"{extra}>{html.escape(shown.get(f"{layout}.{key}", ""))}</td>'
            if not memory or layout in KV_LAYOUTS[key] else f'<td{extra}>–</td>'
            for layout, extra in (("shared", ""), ("split", ""), ("chunked", ' class="chunked"')))
        row = '<tr class="kv">' if memory else "<tr>"
        rows.append(f'{row}<th scope="row">{html.escape(words)}</th>{cells}</tr>')
    return "".join(rows)


def node():
    found = shutil.which("node")
    if not found:
        raise MissingInput("missing input: node (Node 18+, which makes the Pyodide snapshot)")
    return found


def run_node(args, stdin=None):
    done = subprocess.run([node(), str(SNAPSHOT_MAKER), *map(str, args)], input=stdin,
                          capture_output=True, text=True)
    if done.returncode:
        raise MissingInput(f"snapshot.mjs {args[0]} failed:\n{done.stderr.strip()[-2000:]}")
    return [json.loads(line) for line in done.stdout.splitlines()]


# Settings that are not baked, asked of the snapshot: two of the lesson's traffic, and the two
# Azure traces (whose bytes the snapshot must hold: the browser's Python has no wheel files).
UNBAKED = ({"rps": 7.5, "prompt": 3000, "link": 5}, {"requests": 2000, "seed": 11, "reply": 350},
           {"traffic": "azure-chat"},
           {"traffic": "azure-code", "arrivals": "poisson", "trace_start": 1000, "rps": 6})


def snapshot_requests():
    """What the build asks a snapshot, and native Python, to compare: the numbers of the
    lesson's named states and of settings that are not baked, and every figure of one."""
    requests = [{"type": "compare", "settings": changes} for _, _, changes in STATES]
    requests += [{"type": "compare", "settings": changes} for changes in UNBAKED]
    for name in PAGE_FIGURES:  # whole figures: part 0 with a cold lab does every piece
        requests.append({"type": "figure", "name": name, "settings": {"prompt": 3000}, "part": 0})
    return requests


def answer_all(page, requests):
    """sim.show.page's replies; a figure is followed through its pieces to the whole figure (as
    snapshot.mjs check does)."""
    replies = []
    for request in requests:
        reply = json.loads(page.handle(json.dumps(request)))
        while "next" in reply and "figure" not in reply:
            reply = json.loads(page.handle(json.dumps(dict(request, part=reply["next"]))))
        replies.append(reply)
    return replies


def make_snapshot(out, pyodide, wheel):
    """Boot Pyodide in Node, install and warm sim, snapshot its memory, gzip it into out/,
    and check it. Returns its size unpacked, in bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "snapshot.bin"
        (made,) = run_node(["make", out / pyodide, out / wheel, raw])
        data = raw.read_bytes()
    # mtime=0 keeps the date out of the file
    (out / SNAPSHOT).write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    booted, needed = check_snapshot(out / pyodide, out / SNAPSHOT)
    print(f"snapshot: {len(data) / 1e6:.1f} MB of memory ({made['zeroed'] / 1e6:.1f} MB of it free, "
          f"zeroed), {(out / SNAPSHOT).stat().st_size / 1e6:.1f} MB gzipped (Python {made['python']}); booted from it in Node in {booted:.1f} s, and it "
          f"gave native Python's numbers: {len(STATES) + len(UNBAKED)} settings and "
          f"{len(PAGE_FIGURES)} figures, needing the standard library's zip {needed} times")
    return len(data)


def check_snapshot(pyodide, snapshot):
    """Boot from the snapshot in Node and ask it what native Python is asked here; refuse
    (MissingInput) unless every reply is the same. Returns the seconds the boot took."""
    requests = snapshot_requests()
    native = answer_all(Page(), requests)
    booted, *replies, last = run_node(["check", pyodide, snapshot],
                                      "".join(json.dumps(r) + "\n" for r in requests))
    if len(replies) != len(requests):
        raise MissingInput(f"snapshot.mjs check gave {len(replies)} replies to {len(requests)} requests")
    for request, reply, want in zip(requests, replies, native):
        if reply != want:
            raise MissingInput(f"the snapshot's Python does not answer as native Python does: "
                               f"{json.dumps(request)}")
    # Booted as the page boots, with the standard library's zip empty: an import outside the
    # snapshot must fetch it and work (snapshot.mjs, STDLIB_ON_DEMAND)
    if not last["stdlib"]["on_demand"]:
        raise MissingInput("the snapshot's Python could not import a module outside it: the standard "
                           "library on demand (snapshot.mjs, STDLIB_ON_DEMAND) did not work")
    return booted["seconds"], last["stdlib"]["needed"]


def content_version(out, skip=(), inputs=()):
    """A short hash of everything the page loads: it changes whenever any of it does. A
    file in `skip` (the snapshot, whose bytes differ from one build to the next) counts by
    its `inputs` instead: what it is made from (the rest of out/ and these files)."""
    digest = hashlib.sha256()
    files = [(str(p.relative_to(out)), p) for p in out.rglob("*") if p.is_file()]
    files += [(f"input:{p.name}", p) for p in inputs]
    for name, path in sorted(files):
        if name not in skip:
            digest.update(name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def versioned(out, version):
    """Every URL the page asks for by its own code carries ?v=<version>, so that after a
    redeploy no browser mixes a cached old file with new ones. (Pyodide's own files are
    in a folder named after its version instead.)"""
    for name in WEB_FILES:
        if name.endswith(".js"):
            path = out / name
            path.write_text(re.sub(r'(from "\./[\w.-]+\.m?js)"', rf'\1?v={version}"', path.read_text()))


def plotly_css():
    """Plotly's style rules as a stylesheet. Plotly adds them at load in a <style> element it
    makes, which a strict CSP (style-src 'self') refuses; it makes none if the page has an
    element #plotly.js-style-global.no-inline-styles (plotly.js PR #7109), and then the page
    must bring the rules itself, as a file, but the npm bundle ships none (plotly.js issue
    #7543). So they are read from the bundle: the object of selector: declarations that it
    adds, with its selectors' X and Y written out as it writes them, in the order it leaves
    them (each rule is inserted first)."""
    bundle = need(PLOTLY, "run npm ci, or make build").read_text()
    found = re.search(r'=(\{"X,X div":.*?\});for\((\w+) in \w+\)\w+=\2\.replace\(/\^,/," ,"\)'
                      r'\.replace\(/X/g,"\.js-plotly-plot \.plotly"\)\.replace\(/Y/g,"\.plotly-notifier"\),'
                      r'\w+\.addStyleRule\(\w+,\w+\[\2\]\)', bundle)
    if not found or ".no-inline-styles" not in bundle:
        raise MissingInput(f"{PLOTLY.name}: its style rules or its no-inline-styles switch are not "
                           "where this build looks for them (a new Plotly?): see plotly_css()")
    done = subprocess.run([node(), "-e", 'const fs = require("fs"); process.stdout.write(JSON.stringify('
                           'Function("return " + fs.readFileSync(0, "utf8"))()))'],
                          input=found.group(1), capture_output=True, text=True)
    if done.returncode:
        raise MissingInput(f"could not read Plotly's style rules:\n{done.stderr.strip()}")
    rules = [(re.sub(r"^,", " ,", key).replace("X", ".js-plotly-plot .plotly").replace("Y", ".plotly-notifier"),
              body) for key, body in json.loads(done.stdout).items()]
    return (f"/* Plotly.js's own style rules, from {PLOTLY.name} by build.py (plotly_css) */\n"
            + "".join(f"{selector}{{{body}}}\n" for selector, body in reversed(rules)))


def imported(entry):
    """The modules of web/ that `entry` imports, directly or through others (static imports
    only), in a fixed order."""
    found, todo = set(), [entry]
    while todo:
        for name in re.findall(r'^import .*? from "\./([\w-]+\.js)";$', (WEB / todo.pop()).read_text(), re.M):
            if name not in found:
                found.add(name)
                todo.append(name)
    return sorted(found)


def preloads(version, *entries):
    """<link rel="modulepreload"> for every module the entries import (each entry has its own
    <script>), the first entry's first: the browser asks for them all at once, not one level
    of imports per round trip (on a phone's 40 ms, start.js made its worker at 0.5 to 0.8 s
    on a second visit, three levels of requests after the page)."""
    names = []
    for entry in entries:
        names += [name for name in imported(entry) if name not in names and name not in entries]
    return [f'<link rel="modulepreload" href="{name}?v={version}">' for name in names]


def python_head(wheel, version, pyodide, snapshot_bytes, states_file):
    """What start.js (and hub.js) boot the worker from, for the head of index.html and
    hub.html: in the head, since start.js runs before the body is read, so that the worker
    starts the big downloads (the wasm, the snapshot) while the page loads. (And the states'
    file, which the worker does not fetch but must not delete from the browser's copies.)"""
    snapshot = f"{SNAPSHOT}?v={version}"
    python = json.dumps({"version": version, "wheel": f"{wheel}?v={version}", "pyodide": pyodide,
                         "snapshot": snapshot, "bytes": snapshot_bytes,
                         "states": states_file["packed"]}, separators=(",", ":"))
    return f'<script type="application/json" id="pdsplit-python">{python}</script>'


def render_hub(version, head):
    """hub.html: the hidden frame that owns a course page's one Python (web/hub.js)."""
    page = (WEB / "hub.html").read_text()
    assert '"hub.js"' in page and "<!--PYTHON-->" in page
    return page.replace('"hub.js"', f'"hub.js?v={version}"').replace("<!--PYTHON-->", "\n".join([head, *preloads(version, "hub.js")]))


STATES_FILE = "states.json"  # the named states' results, beside index.html (write_states)


def write_states(out, states):
    """The named states' numbers and figures, all but the first (the lesson's defaults, which
    index.html carries), in a file of their own, plain and gzipped: so that index.html, which
    a browser fetches again on every visit, stays small (issue 49: it was 0.9 MB), while these
    are kept by the browser (web/downloads.js) under a URL that names their content. Returns
    {"plain": ..., "packed": ...}, those URLs relative to the page."""
    data = json.dumps(states[1:], separators=(",", ":")).encode()
    tag = hashlib.sha256(data).hexdigest()[:12]
    (out / STATES_FILE).write_bytes(data)
    (out / f"{STATES_FILE}.gz").write_bytes(gzip.compress(data, 9, mtime=0))
    return {"plain": f"{STATES_FILE}?v={tag}", "packed": f"{STATES_FILE}.gz?v={tag}"}


BAKED = ROOT / "build" / "baked.json"  # what the last build baked, from which sources (below)


def sources_digest():
    """A digest of the simulator's sources (sim/, its code and its data): two trees with the
    same digest give the same native runs."""
    digest = hashlib.sha256()
    for path in sorted(p for p in (ROOT / "sim").rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def note_bake(out):
    """build/baked.json: where the named states were baked, from which sources, and the
    digest of the states' file it wrote. The tests take the bake as the native run of each
    state where it was made from the sources they test (tests/native.py), rather than make
    every state again: the models' states take minutes on one core."""
    BAKED.parent.mkdir(exist_ok=True)
    BAKED.write_text(json.dumps({"out": str(out), "sources": sources_digest(),
                                 "states": hashlib.sha256((out / STATES_FILE).read_bytes()).hexdigest()}))


def changes(settings, defaults):
    """A named state's settings as what differs from the defaults' (the page's own list)."""
    return {key: value for key, value in settings.items() if defaults.get(key) != value}


def render_page(states, wheel, version, pyodide, snapshot_bytes, states_file):
    """index.html: the lesson's text with the defaults' numbers in place, and what app.js
    needs before Python: the settings table, and the named states (their names and settings,
    and the defaults' results; the others' are in states_file, write_states)."""
    default = states[0]["compare"]
    shown = default["shown"]
    headline = html.escape(HEADLINE)
    for key, text in shown.items():
        headline = headline.replace("{" + key + "}",
                                    f'<strong data-metric="{key}">{html.escape(text)}</strong>')
    baked = {"schema": schema(), "headline": HEADLINE, "wheel": f"{wheel}?v={version}",
             # what the page needs to keep a model on instances that hold it (web/models.js):
             # each model's weights and each kind's memory in bytes, and the share usable
             "fit": {"weights": {name: 2 * m.params for name, m in MODELS.items()},
                     "memory": {name: k.memory for name, k in KINDS.items()}, "usable": USABLE},
             "load_top": {gpus: load_top(gpus) for gpus in range(2, 33)},  # the load slider's reach
             # the shipped traces' usable requests (the trace-start slider's reach), and the
             # largest file of one's own the page reads
             "traces": {name: azure.trace(name).usable for name in azure.FILES},
             "trace_file_bytes": TRACE_FILE_BYTES,
             "examples": example_prices(),  # the price fields' placeholders, by kind
             # the charts the page shows first as a sketch after a change (Figure.sketch), and
             # those it shows stage by stage as they are worked out (Figure.stages)
             "sketched": [name for name, f in FIGURES.items() if f.sketch],
             "staged": [name for name, f in FIGURES.items() if f.stages],
             "pyodide": pyodide, "version": version,
             # the others by what they change from the defaults (app.js fills in the rest): 24
             # states' every setting were 13 kB of the page fetched again on every visit
             "states": states[:1] + [{**{key: state[key] for key in ("name", "label", "group")},
                                      "changes": changes(state["settings"], states[0]["settings"])}
                                     for state in states[1:]],
             "states_file": states_file,
             "simulator": __version__}  # window.pdsplit.version: the sim package's version
    data = json.dumps(baked, separators=(",", ":")).replace("</", "<\\/")
    page = (WEB / "index.html").read_text()
    for ref in ("style.css", f"vendor/{PLOTLY_CSS}", "favicon.svg", "start.js", "app.js", f"vendor/{PLOTLY.name}"):
        assert f'"{ref}"' in page, ref
        page = page.replace(f'"{ref}"', f'"{ref}?v={version}"')
    reads = html.escape(default["intro"]["reads"])  # Watch it run's: why a read is not the setting
    for key, text in shown.items():
        reads = reads.replace("{" + key + "}", f'<span data-metric="{key}">{html.escape(text)}</span>')
    constants = footer()  # the footer's numbers, each marked like every other number
    for key, value in {
        "headline": headline,
        "rows": metric_rows(shown, ("goodput", "ttft_p50", "ttft_p99", "gap_p50", "gap_p99"))
        + metric_rows(shown, KV_LAYOUTS, memory=True),
        "miss_rows": metric_rows(shown, ("missed_ttft_only", "missed_gap_only", "missed_both")),
        "watch_reads": reads,
        "shared_goodput": html.escape(shown["shared.goodput"]),  # the phone's glance at the headline
        "split_goodput": html.escape(shown["split.goodput"]),
        **{key.split(".")[1]: f'<span data-metric="{key}">{html.escape(text)}</span>'
           for key, text in constants.items()},
    }.items():
        page = page.replace("{{" + key + "}}", value)
    head = [python_head(wheel, version, pyodide, snapshot_bytes, states_file), *preloads(version, "start.js", "app.js")]
    page = page.replace("<!--PYTHON-->", "\n".join(head))
    return page.replace("<!--BAKED-->",
                        f'<script type="application/json" id="pdsplit-baked">{data}</script>')


def build(out):
    for name in WEB_FILES + ("index.html", "hub.html"):  # every input first: refuse before writing
        need(WEB / name, "part of this repository")
    need(PLOTLY, "run npm ci, or make build")
    need(SNAPSHOT_MAKER, "part of this repository")
    node()
    lock, micropip, pyodide = pyodide_inputs()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    copy_pyodide(out / pyodide, lock, micropip)
    wheel = build_sim_wheel(out)
    # the snapshot is made and checked while the named states bake (Node beside the bake's processes)
    snapshot_bytes, states = bake(Lab(), meanwhile=lambda: make_snapshot(out, pyodide, wheel))
    (out / "vendor").mkdir()
    shutil.copyfile(PLOTLY, out / "vendor" / PLOTLY.name)
    # gzipped beside it, for the page's service worker to unpack (web/sw.js): 1.2 MB become 0.4
    (out / "vendor" / f"{PLOTLY.name}.gz").write_bytes(gzip.compress(PLOTLY.read_bytes(), compresslevel=9, mtime=0))
    (out / "vendor" / PLOTLY_CSS).write_text(plotly_css())
    for name in WEB_FILES:
        shutil.copyfile(WEB / name, out / name)
    copy_docs(out / "docs")
    version = content_version(out, skip={SNAPSHOT}, inputs=[SNAPSHOT_MAKER])
    versioned(out, version)
    states_file = write_states(out, states)
    note_bake(out)
    (out / "index.html").write_text(render_page(states, wheel, version, pyodide, snapshot_bytes, states_file))
    (out / "hub.html").write_text(render_hub(version, python_head(wheel, version, pyodide, snapshot_bytes,
                                                                  states_file)))
    files = sorted(p for p in out.rglob("*") if p.is_file())
    total = 0
    for path in files:
        size = path.stat().st_size
        total += size
        print(f"{size:>12,}  {path.relative_to(out)}")
    print(f"{total:>12,}  in all, {len(files)} files in {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")


def copy_docs(out):
    """docs/'s Markdown as it is: the footer links to it. (Not its pictures: a browser shows
    a .md file as plain text, so they would be bytes nobody sees.) With it, the license texts
    docs/licenses.md names, so that a copy of dist/ carries them, and ours at dist/'s top
    (LICENSE.txt: a host serves a file by its ending, and the strict ones need one)."""
    out.mkdir()
    for path in sorted(DOCS.glob("*.md")):
        shutil.copyfile(path, out / path.name)
    for source, name in LICENSES:
        shutil.copyfile(need(source, "part of this repository, or run npm ci"), out / name)
    shutil.copyfile(ROOT / "LICENSE", out.parent / "LICENSE.txt")


def pack_site(dist, archive):
    """dist/ as one .tar.gz that unpacks to pdsplit/, for a course site without a build
    machine. Refuses (MissingInput) if dist/ was never built."""
    need(dist / "index.html", "run make build first")
    with tarfile.open(archive, "w:gz") as tar:
        for path in sorted(dist.rglob("*")):
            if path.is_file():
                tar.add(path, arcname=f"{SITE_FOLDER}/{path.relative_to(dist).as_posix()}")
    size = archive.stat().st_size
    print(f"{archive.name}: {size / 1e6:.1f} MB; unpack it where the site serves static files "
          f"(tar -xzf {archive.name} makes {SITE_FOLDER}/)")
    return archive


SITE_FOLDER = "pdsplit"  # what the archive unpacks to


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="output folder")
    parser.add_argument("--site", action="store_true",
                        help="pack the built output folder into pdsplit-site-<version>.tar.gz")
    args = parser.parse_args(argv)
    try:
        if args.site:
            pack_site(args.out.resolve(), ROOT / f"pdsplit-site-{__version__}.tar.gz")
            return 0
        build(args.out.resolve())
    except MissingInput as e:
        print(f"build.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
