"""Light and dark: by the reader's prefers-color-scheme, or ?theme=light|dark (which wins).
Every text, the charts' included, keeps 4.5:1 against what is behind it, and the charts are
drawn in the page's colours while the figure dicts stay native Python's."""

import json

import pytest

import sim
from conftest import open_page, state_query
from sim.show.figures import FIGURES
from test_page_layout import SMALL_TARGETS, SMALL_TEXT

# Each visible text's colour against the background behind it (the nearest opaque one up its
# ancestors; for the charts' SVG text, the chart's own background), as WCAG AA asks: 4.5:1.
LOW_CONTRAST = """() => {
    const rgba = text => text.match(/[\\d.]+/g).map(Number);
    const luminance = ([r, g, b]) => {
        const lin = v => { const c = v / 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
        return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
    };
    const opaque = text => { const c = rgba(text); return c.length === 3 || c[3] === 1; };
    const behind = element => {
        for (let e = element; e; e = e.parentElement) {
            const bg = getComputedStyle(e).backgroundColor;
            if (opaque(bg)) return bg;
            if (e.classList.contains('plot')) {
                const svg = e.querySelector('.main-svg');
                if (svg && opaque(getComputedStyle(svg).backgroundColor)) return getComputedStyle(svg).backgroundColor;
            }
        }
        return getComputedStyle(document.documentElement).backgroundColor;
    };
    const ratio = (a, b) => {
        const [x, y] = [luminance(rgba(a)), luminance(rgba(b))].sort((p, q) => q - p);
        return (x + 0.05) / (y + 0.05);
    };
    const low = [];
    let checked = 0;
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const element = node.parentElement;
        if (!node.textContent.trim() || !element || element.closest('script, .visually-hidden')) continue;
        if (!element.getClientRects().length || element.closest('details:not([open])') && !element.closest('summary')) continue;
        const style = getComputedStyle(element);
        if (style.visibility === 'hidden' || Number(style.opacity) === 0) continue;
        const colour = element instanceof SVGElement ? style.fill : style.color;
        if (!opaque(colour)) continue;
        checked += 1;
        const r = ratio(colour, behind(element));
        if (r < 4.5) low.push([node.textContent.trim().slice(0, 40), colour, behind(element), r.toFixed(2)]);
    }
    return {checked, low};
}"""

BACKGROUNDS = """() => {
    const page = getComputedStyle(document.documentElement).backgroundColor;
    const charts = Array.from(document.querySelectorAll('.plot .main-svg:first-child'))
        .filter(svg => svg.getClientRects().length).map(svg => getComputedStyle(svg).backgroundColor);
    return {page, charts};
}"""

CASES = [  # URL, the reader's preference, the theme expected
    ("", "light", "light"),
    ("", "dark", "dark"),
    ("?theme=dark", "light", "dark"),
    ("?embed=1&show=headline,controls,link&controls=link&theme=light", "dark", "light"),
    ("?embed=1&show=numbers,gap&controls=rps", "dark", "dark"),
    ("?embed=1&show=memory&theme=dark&" + state_query("memory-pushes-back"), "light", "dark"),
]


@pytest.mark.parametrize("query, prefers, theme", CASES, ids=[f"{q or 'page'}-{p}" for q, p, _ in CASES])
def test_theme_contrast_and_charts(browser, site, artifacts, query, prefers, theme):
    context = browser.new_context(viewport={"width": 375, "height": 740}, color_scheme=prefers)
    page = context.new_page()
    from conftest import BOOT_TIMEOUT, Watch
    page.watch = Watch(context, page)
    page.set_default_timeout(BOOT_TIMEOUT)
    try:
        page.goto(site + query)
        page.evaluate("window.pdsplit.ready")
        page.evaluate("window.pdsplit.settled()")
        name = f"theme-{theme}-{(query or 'page').strip('?').replace('&', '_').replace(',', '+').replace('=', '-')}"
        page.screenshot(path=str(artifacts / f"{name}.png"), full_page=True)
        backgrounds = page.evaluate(BACKGROUNDS)
        dark = sum(int(v) for v in backgrounds["page"][4:-1].split(",")[:3]) < 3 * 128
        assert dark == (theme == "dark"), backgrounds
        assert backgrounds["charts"] and set(backgrounds["charts"]) == {backgrounds["page"]}  # charts follow
        found = page.evaluate(LOW_CONTRAST)
        assert found["checked"] > 20
        assert found["low"] == []
        assert page.evaluate(SMALL_TEXT) == []
        assert page.evaluate(SMALL_TARGETS) == []
        assert page.evaluate("[document.documentElement.scrollWidth, innerWidth]")[0] <= 375
        # the dicts behind the charts are still native Python's, whatever colours they got
        s = sim.Settings().but(**page.evaluate("window.pdsplit.settings()"))
        shown = page.evaluate("""() => Array.from(document.querySelectorAll('.plot'))
            .filter(p => p.getClientRects().length && !p.closest('details:not([open])'))
        .map(p => p.id.replace('chart-', ''))""")
        for chart in shown:
            drawn = json.loads(json.dumps(FIGURES[chart].render(sim.Lab(), s)))
            assert page.evaluate("n => window.pdsplit.figure(n).figure", chart) == drawn["figure"]
        assert page.watch.console_errors() == []
    finally:
        context.close()


def test_the_charts_follow_a_change_of_preference(browser, site):
    page = open_page(browser, site + "?embed=1&show=link", 375, 740)
    try:
        page.evaluate("window.pdsplit.settled()")
        light = page.evaluate(BACKGROUNDS)
        page.emulate_media(color_scheme="dark")
        page.wait_for_function("""light => getComputedStyle(document.querySelector('#chart-link .main-svg')).backgroundColor !== light
            && getComputedStyle(document.querySelector('#chart-link .main-svg')).backgroundColor
               === getComputedStyle(document.documentElement).backgroundColor""", arg=light["page"])
        assert page.evaluate(BACKGROUNDS)["page"] != light["page"]
    finally:
        page.context.close()


def test_the_colours_are_the_same_list_everywhere():
    """style.css's custom properties are the ones docs/course-sites.md documents, view.js takes from a host
    and embed.js passes on (as --pdsplit-<name>)."""
    import re

    from conftest import COURSE_SITES, ROOT

    css = (ROOT / "web" / "style.css").read_text()
    root = css.split(":root {", 1)[1].split("}", 1)[0]
    defined = set(re.findall(r"^\s*(--[\w-]+):", root, re.M))
    table = COURSE_SITES.split("## Themes and colours", 1)[1].split("\n## ", 1)[0]
    documented = {name for row in table.splitlines() if row.startswith("| `--")
                  for name in re.findall(r"`(--[\w-]+)`", row.split("|")[1])}
    view = (ROOT / "web" / "view.js").read_text()
    taken = set(re.findall(r'"(--[\w-]+)"', view.split("COLOUR_PROPERTIES = [", 1)[1].split("]", 1)[0]))
    embed = (ROOT / "web" / "embed.js").read_text()
    passed = {f"--{name}" for name in re.findall(r'"([\w-]+)"', embed.split("const COLOURS = [", 1)[1].split("]", 1)[0])}
    assert len(defined) == 19
    assert defined == documented == taken == passed
