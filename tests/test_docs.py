"""What a newcomer reads: a README that is a front door (short, the two commands, the embed,
a map of the repository), and docs/ for the rest, a file per reader. Every relative link and
anchor holds, every pointer from the code names a section that exists, and what is written
from the code (docs/cli.md, the bench block) is what the code writes."""

import re
import subprocess
import sys
import unicodedata

from conftest import README, ROOT

DOCS = ROOT / "docs"
MODEL = DOCS / "model.md"
READERS = {  # each doc opens by saying who it is for
    "course-sites.md": "course authors", "page.md": "developers of the page",
    "model.md": "checking a number", "simulator.md": "uses the simulator", "cli.md": "from a shell",
    "development.md": "developers", "benchmarks.md": "developers",
    "licenses.md": "anyone who copies the page",
}
LONGEST_README = 250  # lines: what each of its readers finishes in five minutes


def tracked():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout
    return out.split() or [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file()]


def documents():
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md")), ROOT / "figures" / "README.md",
            ROOT / "sim" / "workload" / "data" / "README.md"]


def unfenced(text):
    """The text without its fenced blocks (a "# comment" in a shell block is no heading)."""
    return re.sub(r"^(`{3,4}).*?^\1$", "", text, flags=re.S | re.M)


def prose(text):
    """The text without its fenced blocks and code spans: links in code are not links."""
    return re.sub(r"`[^`\n]*`", "", unfenced(text))


def slug(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = unicodedata.normalize("NFC", heading.strip().lower())
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(path):
    """Every anchor a Markdown file's headings give (repeats get -1, -2, ... as on GitHub)."""
    found, seen = set(), {}
    for heading in re.findall(r"^#{1,6} (.+)$", unfenced(path.read_text()), re.M):
        base = slug(heading)
        n = seen.get(base, 0)
        found.add(base if n == 0 else f"{base}-{n}")
        seen[base] = n + 1
    return found


def links(path):
    """(target, anchor) of every relative link in a Markdown file."""
    out = []
    for target in re.findall(r"\]\(([^)\s]+)\)", prose(path.read_text())):
        if re.match(r"(?i)[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        out.append((file, anchor))
    return out


def test_the_readme_is_a_front_door():
    lines = README.count("\n") + (not README.endswith("\n"))
    assert lines <= LONGEST_README, f"README.md has {lines} lines; at most {LONGEST_README}"
    titles = re.findall(r"^## (.+)$", README, re.M)
    assert titles[:2] == ["Two commands", "A 30-second tour"]
    order = ["Two commands", "A 30-second tour", "From the command line, and from Python",
             "On your course page", "Where things are", "Documentation, by who is reading",
             "Data, attribution and license"]
    assert titles == order
    assert "make serve" in README and "make test" in README and "docs/screenshot.png" in README


def test_every_relative_link_and_anchor_resolves():
    broken = []
    for path in documents():
        for file, anchor in links(path):
            target = (path.parent / file).resolve() if file else path
            if not target.exists():
                broken.append(f"{path.relative_to(ROOT)}: {file} does not exist")
            elif anchor and anchor not in anchors(target):
                broken.append(f"{path.relative_to(ROOT)}: {file}#{anchor} names no heading")
    assert broken == []
    assert sum(len(links(p)) for p in documents()) > 60  # the check looked at the links


def test_the_link_check_finds_a_broken_link(tmp_path):
    page = tmp_path / "a.md"
    page.write_text("# One\n\n[ok](#one) [bad](#two) [gone](b.md) `[code](c.md)`\n")
    assert links(page) == [("", "one"), ("", "two"), ("b.md", "")]
    assert anchors(page) == {"one"}


def test_each_doc_opens_with_who_it_is_for():
    for name, reader in READERS.items():
        text = (DOCS / name).read_text()
        opening = text.split("\n\n", 2)[1]
        assert opening.startswith("**For "), name
        assert reader in opening, (name, opening[:80])
    assert {p.name for p in DOCS.glob("*.md")} == set(READERS)
    table = README.split("## Documentation, by who is reading", 1)[1]
    for name in READERS:
        assert f"[docs/{name}](docs/{name})" in table


def test_the_command_line_manual_is_what_the_code_writes():
    from sim.manual import manual
    assert (DOCS / "cli.md").read_text() == manual(), "docs/cli.md is stale: run make docs"
    written = subprocess.run([sys.executable, "-m", "sim.manual"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout
    assert written == manual()
    from sim.settings import FIELDS
    text = (DOCS / "cli.md").read_text()
    for name in FIELDS:  # every setting's flag, and every command
        assert f"| `--{name.replace('_', '-')}` |" in text
    for command in ("compare", "sweep", "crossover", "trace", "rate", "ratio", "economics",
                    "traffic", "watch", "check"):
        assert f"\n### {command}\n" in text


def test_the_bench_block_has_the_shape_report_writes():
    sys.path.insert(0, str(ROOT / "bench"))
    import report
    block = report.block_of((DOCS / "benchmarks.md").read_text())
    ran, rows = report.parse(block)
    assert report.render(ran, [r for r in rows if not r["measure"].startswith("(no figures")]) == block
    noted = {r["bench"] for r in rows}
    assert noted == set(report.SCRIPTS)  # every script has its figures, or says it has none
    for script in report.SCRIPTS:  # and every script the Makefile runs is one of them
        assert f"bench/{script.split()[0]}.py{script[len(script.split()[0]):]}" in \
            (ROOT / "Makefile").read_text()


def test_the_bench_block_refuses_what_report_does_not_write():
    sys.path.insert(0, str(ROOT / "bench"))
    import report
    block = report.block_of((DOCS / "benchmarks.md").read_text())
    for broken in (block.replace("Ran on", "Measured on"), block.replace("| met |\n|", "| ok |\n|", 1),
                   block + "\n| typed | by hand |"):
        try:
            report.parse(broken)
        except ValueError:
            continue
        raise AssertionError("a hand-made block was taken for report.py's")


def test_the_model_is_documented_in_the_repository_and_linked():
    text = MODEL.read_text()
    assert "[docs/model.md](docs/model.md)" in README
    # its tables hold the figures that pin the model down
    for figure in ("13.5% | 98.7%", "106.6 ms / 267.0 ms", "1.5, 96.7, 100.0, 100.0, 100.0, 100.0, 95.7%",
                   "26.356 ms", "59.353 ms", "0.209 req/s per GPU"):
        assert figure in text, figure


def test_the_tour_s_numbers_are_the_lesson_s():
    import sim
    from sim.show.numbers import percent
    r = sim.compare()
    tour = README.split("## A 30-second tour", 1)[1].split("\n## ", 1)[0]
    assert percent(r["shared"]["goodput"]) in tour and percent(r["split"]["goodput"]) in tour
    from sim.show.states import STATES
    from sim.settings import FIELDS
    for name in ("rps", "prompt", "link"):  # the sliders it names, by the page's own labels
        assert f'"{FIELDS[name].metadata["label"]}"' in tour
    labels = [label.split(":")[0] for _, label, _ in STATES]
    assert "**Busy**" in tour and "**Slow link**" in tour and {"Busy", "Slow link"} <= set(labels)


def test_nothing_sends_a_reader_outside_the_repository():
    outside = [name for name in tracked() if (ROOT / name).is_file() and name != "tests/test_docs.py" and
               re.search(r"\.\./shared/|/work/shared/", (ROOT / name).read_text(errors="ignore"))]
    assert outside == []


def test_every_section_the_code_points_to_is_in_its_doc():
    """`docs/model.md: "Routing"` in a comment names a heading of docs/model.md; the same for
    every doc (`docs/course-sites.md, "Themes and colours"`)."""
    cited = {}
    for name in tracked():
        if name.endswith((".py", ".js", ".mjs")) and (ROOT / name).is_file():
            text = re.sub(r"\n\s*(#|//|\*) ?", " ", (ROOT / name).read_text())  # comments joined
            for doc, names in re.findall(r'docs/([\w-]+\.md)[:,] ("[^"]+"(?:, "[^"]+")*)', text):
                cited.setdefault(doc, set()).update(" ".join(name.split())  # across lines
                                                    for name in re.findall(r'"([^"]+)"', names))
    assert {"model.md", "course-sites.md"} <= set(cited)
    for doc, sections in cited.items():
        headings = set(re.findall(r"^#+ (.+)$", (DOCS / doc).read_text(), re.M))
        assert sections <= headings, (doc, sections - headings)


def test_where_things_are_maps_the_whole_repository():
    tree = README.split("## Where things are", 1)[1].split("```", 2)[1]
    top = {name.split("/")[0] + ("/" if "/" in name else "") for name in tracked()}
    # what every project has, and says what it is by its name alone
    plain = {"README.md", "Makefile", "pyproject.toml", "package.json", "package-lock.json",
             "pytest.ini", "requirements-dev.txt", ".gitignore", ".ci/"}
    missing = [name for name in sorted(top - plain) if not re.search(rf"^{re.escape(name)}\s", tree, re.M)]
    assert missing == [], missing
    for folder in ("workload/", "model/", "show/", "check/"):
        assert f"  {folder}" in tree


def test_a_course_author_finds_the_embed_first():
    titles = re.findall(r"^## (.+)$", README, re.M)
    assert titles.index("On your course page") < titles.index("Where things are")
    course = (DOCS / "course-sites.md").read_text()
    first = course.split("\n## ", 2)[1]  # the first section, after the opening
    assert first.startswith("Live pieces in your text, one line each")
    assert first.index('<div data-pdsplit="') < first.index("<!-- embed:")  # the one line comes first
    # embed.js's header points to that section by its name
    header = (ROOT / "web" / "embed.js").read_text().split("{", 1)[0]
    named = re.search(r'docs/course-sites\.md, "([^"]+)"', header.replace("\n// ", " "))
    assert named and named.group(1) in re.findall(r"^#+ (.+)$", course, re.M)


def test_the_page_s_footer_links_to_the_docs():
    page = (ROOT / "web" / "index.html").read_text()
    footer = page.split("<footer", 1)[1].split("</footer>", 1)[0]
    linked = re.findall(r'<a href="([^"]+)">', footer)
    assert linked and all(href.startswith("docs/") and (ROOT / href).is_file() for href in linked)


def test_the_licenses_table_says_what_the_packages_declare():
    """docs/licenses.md names each npm package the page ships with the license its package.json
    declares (a new version that changed it fails here), and the traces' CC-BY-4.0."""
    import json
    rows = {line.split("|")[1]: line for line in (DOCS / "licenses.md").read_text().splitlines()
            if line.startswith("| ")}
    for package in ("pyodide", "plotly.js-basic-dist-min"):
        declared = json.loads((ROOT / "node_modules" / package / "package.json").read_text())["license"]
        (row,) = [row for row in rows.values() if f"`{package}`" in row]
        assert f"| {declared} |" in row, (package, declared)
    assert "CC-BY 4.0" in (ROOT / "sim" / "workload" / "data" / "README.md").read_text()
    assert any("Azure" in row and "| CC-BY-4.0 |" in row for row in rows.values())
