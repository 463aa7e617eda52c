"""Charts that follow the hand: after a change each main chart first shows a sketch (fewer
points, each exact for the new settings), says so quietly, then fills in. Every draw of a
chart is recorded as it happens (Plotly.react, wrapped): what it drew, for which settings, and
whether the chart said it was a sketch."""

import json

import pytest

import sim
from conftest import open_page
from helped import TOLD, figures_worker_up
from sim.show.figures import FIGURES

# Wraps Plotly.react as Plotly is defined, and listens for the page's two chart events.
DRAWS = """
    window.__draws = [];
    window.__partial = [];
    window.__complete = [];
    let real;
    Object.defineProperty(window, "Plotly", { configurable: true, get: () => real, set(plotly) {
        real = plotly;
        const react = plotly.react;
        plotly.react = function (chart, data, ...rest) {
            const draw = { id: chart.id, settings: window.pdsplit?.settings() ?? null,
                lines: data.map((t) => ({ name: t.name, type: t.type ?? "scatter", axis: t.xaxis ?? "x",
                    x: Array.from(t.x), y: Array.from(t.y), outline: t.marker?.line?.width ?? null })) };
            window.__draws.push(draw);
            // what the chart says once this draw's task has put it on screen
            queueMicrotask(() => {
                const note = chart.parentElement.querySelector(".filling");
                draw.sketch = note?.classList.contains("on") ?? false;
                draw.note = note?.textContent ?? "";
                // what the caption below says of itself: for earlier settings, its numbers dotted
                const caption = document.getElementById(chart.id.replace("chart-", "caption-"));
                const number = caption?.querySelector("[data-metric]");
                draw.older = caption?.classList.contains("pending") ?? false;
                draw.dotted = number ? getComputedStyle(number).textDecorationStyle === "dotted" : false;
                // the range Plotly gave each x axis
                draw.ranges = Object.fromEntries(Object.keys(chart._fullLayout ?? {})
                    .filter((k) => /^xaxis[0-9]*$/.test(k)).map((k) => [k, chart._fullLayout[k].range.slice()]));
            });
            return react.call(this, chart, data, ...rest);
        };
    } });
    addEventListener("pdsplit:charts-partial", (e) => window.__partial.push(e.detail));
    addEventListener("pdsplit:charts", (e) => window.__complete.push(e.detail));
"""
MAIN = ("goodput", "gap")
FIXED = ("this setting", "gap target")  # the circle at the current value; the target's line


@pytest.fixture(scope="module", params=[2, 4], ids=["one worker", "two workers"])
def page(browser, site, request):
    """A booted page on 2 cores (one worker), or on 4: then the figures' worker simulates
    some of the main charts' points for the numbers' worker, and every test holds as well."""
    page = open_page(browser, site, cores=request.param, script=DRAWS + TOLD)
    page.cores = request.param
    page.evaluate("window.pdsplit.settled()")
    if page.cores >= 4:
        figures_worker_up(page)  # (the defaults' charts are the build's: settled before it is)
    yield page
    page.context.close()


def native(name, settings):
    drawn = FIGURES[name].render(sim.Lab(), sim.Settings.make(**settings))["figure"]
    return {t["name"]: t for t in json.loads(json.dumps(drawn))["data"]}


def check_draw(draw, cache):
    """A chart's draw shows the settings current as it was drawn: either the whole chart,
    or a sketch that says it is one, whose every point is the whole chart's own."""
    name = draw["id"].removeprefix("chart-")
    settings = {k: v for k, v in draw["settings"].items()}
    key = (name, json.dumps(settings, sort_keys=True))
    if key not in cache:
        cache[key] = native(name, settings)
    whole = cache[key]
    for line in draw["lines"]:
        full = whole[line["name"]]
        if line["name"] in FIXED or len(set(full["x"])) < len(full["x"]):  # or a vertical line (figure 3's crossover)
            assert line["x"] == full["x"] and line["y"] == full["y"], (name, line["name"])
            continue
        at = dict(zip(full["x"], full["y"]))
        assert all(x in at for x in line["x"]), (name, line["name"], "a point not on the whole chart")
        assert [at[x] for x in line["x"]] == line["y"], (name, line["name"], "a point not exact")
        if len(line["x"]) < len(full["x"]):
            assert draw["sketch"], (name, "a sketch that does not say it is one")
        else:
            assert not draw["sketch"], (name, "a whole chart that says it is a sketch")


@pytest.mark.parametrize("change", [{"prompt": 1400}, {"reply": 350}, {"prompt": 2600, "reply": 150}])
def test_a_change_shows_a_sketch_first_then_the_whole_chart(page, change):
    page.evaluate("window.__draws.length = 0; window.__partial.length = 0; window.__complete.length = 0")
    page.evaluate("window.__told = 0")
    page.evaluate("s => window.pdsplit.set(s)", change)
    page.evaluate("window.pdsplit.settled()")
    told = page.evaluate("window.__told")
    if page.cores >= 4:  # the points drawn, checked below, include the second worker's
        assert told > 0, "the figures' worker helped with the main charts"
    else:
        assert told == 0
    settings = page.evaluate("window.pdsplit.settings()")
    draws = [d for d in page.evaluate("window.__draws") if d["id"] in {f"chart-{n}" for n in MAIN}]
    cache = {}
    for draw in draws:
        check_draw(draw, cache)
    for name in MAIN:
        mine = [d for d in draws if d["id"] == f"chart-{name}"]
        if not mine[0]["sketch"] and page.cores >= 4 and name == "gap" and len(mine) == 1:
            # With the second worker's help, figure 2's points (the goodput chart's runs) may
            # all be simulated by the time its sketch is asked for: it then comes whole at
            # once, as sim/show/page.py says, exact (check_draw) and under its own caption.
            assert mine[0]["settings"] == settings and not mine[0]["older"] and not mine[0]["dotted"]
            continue
        assert mine[0]["sketch"], f"{name}: its first draw for the new settings is its sketch"
        assert not mine[-1]["sketch"] and mine[-1]["settings"] == settings
        # a sketch under the caption of the settings before says so, and the caption's numbers are dotted
        assert mine[0]["older"] and mine[0]["dotted"], name
        assert "still for the previous settings" in mine[0]["note"], name
        assert not mine[-1]["older"] and not mine[-1]["dotted"], name
    # the events: each main chart's first points, once, before both are complete
    partial = page.evaluate("window.__partial")
    key = partial[0]["key"]
    assert sorted(p["name"] for p in partial) == sorted(MAIN)
    assert all(p["key"] == key and p["source"] == "python" for p in partial)
    assert [c["key"] for c in page.evaluate("window.__complete")] == [key]
    # settled: no chart says it is a sketch, and pdsplit.figure() is the whole chart
    assert page.evaluate("document.querySelectorAll('.filling.on').length") == 0
    for name in MAIN:
        shown = page.evaluate("n => window.pdsplit.figure(n)", name)
        assert {t["name"]: t for t in shown["figure"]["data"]} == native(name, settings)


def test_a_storm_of_changes_ends_whole_for_the_last_setting_and_no_draw_is_of_another(page):
    page.evaluate("window.__draws.length = 0")
    page.evaluate("""() => {
        for (const prompt of [600, 800, 1000, 1200, 1600, 1800, 2000, 2200]) window.pdsplit.set({prompt});
    }""")
    page.evaluate("window.pdsplit.settled()")
    settings = page.evaluate("window.pdsplit.settings()")
    assert settings["prompt"] == 2200
    cache = {}
    draws = [d for d in page.evaluate("window.__draws") if d["id"] in {f"chart-{n}" for n in MAIN}]
    for draw in draws:
        check_draw(draw, cache)
    for name in MAIN:
        last = [d for d in draws if d["id"] == f"chart-{name}"][-1]
        assert last["settings"] == settings and not last["sketch"]
    assert page.evaluate("document.querySelectorAll('.filling.on').length") == 0


def test_the_explorer_charts_and_figures_3_and_4_sketch_too(page):
    page.evaluate("window.__draws.length = 0")
    page.evaluate("window.pdsplit.set({gpus: 4, readers: 2, chunk: 512, routing: 'least-loaded', prompt: 1200})")
    page.evaluate("window.pdsplit.settled()")
    page.evaluate("window.__draws.length = 0")
    page.evaluate("window.pdsplit.set({prompt: 1600})")
    page.evaluate("window.pdsplit.settled()")
    draws = page.evaluate("window.__draws")
    cache = {}
    for draw in draws:
        if draw["id"] in ("chart-goodput", "chart-gap", "chart-prompt", "chart-link"):
            check_draw(draw, cache)
    # figure 3's link speeds at the new prompt are new runs; with a worker of their own, the
    # figures are worked out while the main charts are (the explorer's are not helped: their
    # load axis is found as it is simulated), and wait for them, so figure 3 may be whole by then
    for name in (*MAIN, "link") if page.cores < 4 else MAIN:
        mine = [d for d in draws if d["id"] == f"chart-{name}"]
        assert mine[0]["sketch"] and not mine[-1]["sketch"], name
    page.evaluate("window.pdsplit.set({gpus: 2, readers: 1, chunk: 0, routing: 'alternate', prompt: 2000})")
    page.evaluate("window.pdsplit.settled()")


def check_ratio(draw, cache):
    """Figure 6 drawn for the settings current as it was drawn: whole, or a sketch that says
    it is one, whose every bar (its height and its outline) is the whole figure's own and whose
    rate goodput line and best are still empty."""
    key = json.dumps(draw["settings"], sort_keys=True)
    if key not in cache:
        drawn = FIGURES["ratio"].render(sim.Lab(), sim.Settings.make(**draw["settings"]))["figure"]
        cache[key] = json.loads(json.dumps(drawn))["data"]
    whole = cache[key]
    assert [(line["name"], line["axis"]) for line in draw["lines"]] == \
        [(t["name"], t.get("xaxis", "x")) for t in whole]
    empty = [line for line in draw["lines"] if line["type"] != "bar" and not line["x"]]
    assert draw["sketch"] == bool(empty), "a sketch says it is one; the whole figure does not"
    for line, full in zip(draw["lines"], whole):
        if line["type"] == "bar":
            assert (line["x"], line["y"], line["outline"]) == (full["x"], full["y"], full["marker"]["line"]["width"])
        elif draw["sketch"]:
            assert line["x"] == line["y"] == [], "a sketch's line is empty until it is worked out"
        else:
            assert (line["x"], line["y"]) == (full["x"], full["y"])


@pytest.mark.parametrize("cores", [2, 4], ids=["one worker", "a worker for the figures"])
def test_figure_6_shows_its_bars_first_then_its_line(browser, site, cores):
    """In the explorer, figure 6's bars (a run a ratio) come long before its rate goodput line
    (a bisection of some thirty runs a ratio): its first draw for new settings is the bars alone,
    each exact, and says so; its last is the whole figure. With a second worker for the figures,
    the bars may come before the main charts are drawn: they wait for them, as the figures do."""
    page = open_page(browser, site + "?gpus=4&readers=2&chunk=512&routing=least-loaded&prompt=1200",
                     cores=cores, script=DRAWS)
    try:
        page.evaluate("window.pdsplit.settled()")
        page.evaluate("window.__draws.length = 0")
        page.evaluate("window.pdsplit.set({prompt: 1600})")
        page.evaluate("window.pdsplit.settled()")
        settings = page.evaluate("window.pdsplit.settings()")
        mine = [d for d in page.evaluate("window.__draws") if d["id"] == "chart-ratio"]
        cache = {}
        for draw in mine:
            check_ratio(draw, cache)
        assert mine[0]["sketch"] and mine[0]["older"] and mine[0]["dotted"]
        assert mine[0]["note"] == ("A sketch for these settings: its rate goodput line follows. "
                                   "The caption below is still for the previous settings.")
        assert not mine[-1]["sketch"] and mine[-1]["settings"] == settings and not mine[-1]["older"]
        assert page.evaluate("document.querySelectorAll('.filling.on').length") == 0
    finally:
        page.context.close()


def check_stage(name, draw, whole):
    """Figure 7 or 9 drawn for the settings current as it was drawn: whole, or a stage that says
    it is one, showing the whole figure's own lines (figure 7, panel after panel) or bars
    (figure 9, mix after mix) for what is done so far and nothing for the rest."""
    assert [line["name"] for line in draw["lines"]] == [t["name"] for t in whole]
    if not draw["sketch"]:
        assert [(line["x"], line["y"]) for line in draw["lines"]] == [(t["x"], t["y"]) for t in whole]
        return 0
    if name == "chips":
        done = sum(y is not None for y in draw["lines"][0]["y"])
        for line, full in zip(draw["lines"], whole):
            assert line["y"] == full["y"][:done] + [None] * (len(full["y"]) - done)
    else:
        shown = [any(y is not None for y in line["y"]) for line in draw["lines"]]
        done = shown.count(True)
        assert shown == [True] * done + [False] * (len(shown) - done)  # whole panels, in turn
        for line, full in zip(draw["lines"][:done], whole):
            assert (line["x"], line["y"]) == (full["x"], full["y"])
    assert 0 < done < len(whole[0]["y"] if name == "chips" else whole)
    return done


def test_figures_7_and_9_fill_in_panel_by_panel_and_mix_by_mix(browser, site):
    """Late in the figures' lane and long to work out, figures 7 and 9 show each panel or mix
    as soon as it is done, each exact, saying what follows; then the whole figure."""
    page = open_page(browser, site + "?gpus=3&readers=2&traffic=azure-chat", script=DRAWS)
    try:
        settled(page)
        page.evaluate("window.__draws.length = 0")
        page.evaluate("window.pdsplit.set({requests: 500})")
        settled(page)
        settings = page.evaluate("window.pdsplit.settings()")
        draws = page.evaluate("window.__draws")
        for name, follows in (("know", "more panels follow"), ("chips", "more mixes follow")):
            mine = [d for d in draws if d["id"] == f"chart-{name}"]
            whole = native_lines(name, settings)
            assert all(d["settings"] == settings for d in mine)
            stages = [check_stage(name, draw, whole) for draw in mine]
            assert stages[0] >= 1 and stages[-1] == 0, (name, stages)  # stages first, then whole
            assert stages[:-1] == sorted(stages[:-1])  # each stage shows more than the one before
            assert mine[0]["note"] == (f"A sketch for these settings: {follows}. "
                                       "The caption below is still for the previous settings.")
            assert mine[0]["older"] and mine[0]["dotted"] and not mine[-1]["older"]
            # every axis along the way as the whole figure has it: a panel or mix still to
            # come keeps its place, and nothing moves when it comes
            assert all(d["ranges"] == mine[-1]["ranges"] for d in mine), [d["ranges"] for d in mine]
        assert page.evaluate("document.querySelectorAll('.filling.on').length") == 0
    finally:
        page.context.close()


def settled(page):
    """Wait for every figure to be drawn, within two minutes: one left unfinished fails here."""
    page.evaluate("() => { window.__settled = false; window.pdsplit.settled().then(() => { window.__settled = true; }); }")
    page.wait_for_function("window.__settled", timeout=120_000)


def native_lines(name, settings):
    drawn = FIGURES[name].render(sim.Lab(), sim.Settings.make(**settings))["figure"]
    return json.loads(json.dumps(drawn))["data"]
