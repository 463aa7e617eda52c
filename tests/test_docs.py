"""What a newcomer reads: the model's own documentation in the repository, a map of the whole
repository, and the README's sections in the order its readers need them."""

import re
import subprocess

from conftest import README, ROOT

MODEL = ROOT / "docs" / "model.md"


def tracked():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout
    return out.split() or [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file()]


def test_the_model_is_documented_in_the_repository_and_linked():
    text = MODEL.read_text()
    assert "[docs/model.md](docs/model.md)" in README
    # its tables hold the figures that pin the model down
    for figure in ("13.5% | 98.7%", "106.6 ms / 267.0 ms", "1.5, 96.7, 100.0, 100.0, 100.0, 100.0, 95.7%",
                   "26.356 ms", "59.353 ms", "0.209 req/s per GPU"):
        assert figure in text, figure


def test_nothing_sends_a_reader_outside_the_repository():
    outside = [name for name in tracked() if (ROOT / name).is_file() and name != "tests/test_docs.py" and
               re.search(r"\.\./shared/|/work/shared/", (ROOT / name).read_text(errors="ignore"))]
    assert outside == []


def test_every_section_the_code_points_to_is_in_the_model():
    headings = set(re.findall(r"^#+ (.+)$", MODEL.read_text(), re.M))
    cited = set()
    for name in tracked():
        if name.endswith((".py", ".js", ".mjs")) and (ROOT / name).is_file():
            cited |= set(re.findall(r'docs/model\.md: ("[^"]+"(?:, "[^"]+")*)', (ROOT / name).read_text()))
    sections = {s for c in cited for s in re.findall(r'"([^"]+)"', c)}
    assert sections and sections <= headings, sections - headings


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


def test_a_course_author_finds_the_embed_before_the_internals():
    headings = re.findall(r"^(#+) (.+)$", README, re.M)
    titles = [title for _, title in headings]
    course = next(i for i, t in enumerate(titles) if t.startswith("On a course site"))
    assert course < titles.index("The page") < titles.index("The workers, and what happens when one fails")
    section = README.split("## On a course site", 1)[1]
    assert section.index('<div data-pdsplit="') < section.index("###")  # the one line comes first
    # embed.js's header points to that section by its name
    header = (ROOT / "web" / "embed.js").read_text().split("{", 1)[0]
    named = re.search(r'README, "([^"]+)"', header.replace("\n// ", " "))
    assert named and named.group(1) in titles
