// Putting things on screen: the headline, the table, the charts, the status and notices.
// Every number shown is text made by the simulator's Python (sim/report.py).

/* global Plotly */

// Not Plotly's `responsive`: its resize keeps the legend's margin from the old width, so
// after a phone turns or a window widens the legend overlaps the plot. app.js draws each chart
// again when its width changes instead.
const PLOTLY_CONFIG = { responsive: false, displayModeBar: false, scrollZoom: false };

/**
 * The colours sim/charts.py draws with, and the page's custom property for each. The figure
 * dicts stay Python's (the tests hold them equal to native sim.figures); they are recoloured
 * here, as they are drawn, in the theme's colours (style.css), which an author may override.
 */
const CHART_COLOURS = {
  "#d95f02": "--shared", "#1b9e77": "--split", "#7570b3": "--chunked", "#555555": "--target",
  "#000": "--mark", "#222": "--ink", "#e5e5e5": "--grid", white: "--bg",
};

/** The colours an author may set (docs/course-sites.md: "Themes and colours"): style.css's custom properties. */
export const COLOUR_PROPERTIES = ["--bg", "--ink", "--muted", "--line", "--accent", "--hover", "--error",
  "--notice-bg", "--notice-line", "--track", "--shared", "--split", "--chunked", "--shared-text",
  "--split-text", "--chunked-text", "--target", "--mark", "--grid"];

/** @type {HTMLElement|null} */ let probe = null;

/**
 * A custom property's colour as the theme now resolves it (light-dark() is resolved only
 * where a colour is used, so it is read off an element that uses it).
 * @param {string} property @returns {string}
 */
export function resolved(property) {
  if (!probe) {
    probe = document.createElement("span");
    probe.hidden = true;
    probe.setAttribute("aria-hidden", "true");
    document.body.append(probe);
  }
  probe.style.color = `var(${property})`; // CSSOM, which a strict style-src allows
  return getComputedStyle(probe).color;
}

/** @type {{key: string, colours: Record<string, string>}|null} */ let lastColours = null;

/**
 * CHART_COLOURS as the theme now resolves them. Each resolution forces a style recalculation,
 * so they are worked out again only when what decides them changes: the reader's preference,
 * ?theme= (data-theme) or an author's colours (the root's inline style).
 * @returns {Record<string, string>}
 */
function chartColours() {
  const root = document.documentElement;
  const key = [matchMedia("(prefers-color-scheme: dark)").matches, root.dataset.theme, root.getAttribute("style")].join("|");
  if (lastColours?.key !== key) {
    /** @type {Record<string, string>} */ const colours = {};
    for (const [python, property] of Object.entries(CHART_COLOURS)) colours[python] = resolved(property);
    lastColours = { key, colours };
  }
  return lastColours.colours;
}

/**
 * A figure dict in the page's colours: every colour Python gave (under a key ending in
 * "color", alone or in a list) that is one of CHART_COLOURS becomes that property's colour.
 * @param {any} figure @returns {any}
 */
export function themed(figure) {
  const colours = chartColours();
  const swap = (/** @type {any} */ value) => (typeof value === "string" && value in colours ? colours[value] : value);
  const walk = (/** @type {any} */ node) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === "object") {
      for (const [key, value] of Object.entries(node)) {
        if (/color$/i.test(key)) node[key] = Array.isArray(value) ? value.map(swap) : swap(value);
        else walk(value);
      }
    }
  };
  walk(figure);
  return figure;
}

/** px: a chart narrower than this (a phone's) labels only the powers of ten on a log x axis. */
const NARROW = 480;

/**
 * A figure fitted to its chart's width. Python labels a log axis 1-2-5 a decade, readable on
 * a laptop; on a phone those labels would crowd and turn, and "0.5" would run into "1", so
 * there only the powers of ten keep theirs (app.js draws a chart again when its width changes).
 * Category labels and a note above the plot are fitted at any width (fitCategories).
 * @param {any} figure @param {number} width @returns {any}
 */
export function fitted(figure, width) {
  fitCategories(figure, width);
  fitTitles(figure, width);
  if (width >= NARROW) return figure;
  for (const [key, axis] of Object.entries(figure.layout ?? {})) {
    if (!/^xaxis\d*$/.test(key) || axis?.type !== "log" || !Array.isArray(axis.tickvals)) continue;
    const keep = axis.tickvals.map((/** @type {number} */ v, /** @type {number} */ i) => [v, axis.ticktext?.[i] ?? String(v)])
      .filter(([, text]) => /^(0\.0*)?10*$/.test(String(text)));
    if (keep.length >= 2) Object.assign(axis, { tickvals: keep.map(([v]) => v), ticktext: keep.map(([, text]) => text) });
  }
  return figure;
}

/**
 * A figure with one trace for each run of consecutive marker traces that are alike but for
 * their points: figure 1 draws each reply's words as a trace of its own (21 at the lesson's
 * 200-word replies, 68 at 1,000), and a Plotly draw costs mostly by the trace. Merged, the
 * picture is the same, pixel for pixel (tests/page/test_page_stall.py), and takes about a
 * third less to draw (bench/chart_speed.py: "stall"). A trace joins the run before it only if
 * it is a scatter of markers alone, no other property of it holds a list (which may be per
 * point), and not both it and the run show in the legend (each would have its entry); the
 * run shows in the legend if one of its traces does. What the page says it shows
 * (pdsplit.figure) stays Python's figure.
 * @param {any} figure  changed in place @returns {any}
 */
export function merged(figure) {
  if (!Array.isArray(figure?.data)) return figure;
  /** @type {any[]} */ const data = [];
  let runKey = null;
  let runShows = false;
  for (const trace of figure.data) {
    const { x, y, showlegend, ...rest } = trace ?? {};
    const shows = showlegend !== false; // Plotly's default: in the legend
    const key = trace?.type === "scatter" && trace.mode === "markers" && Array.isArray(x) && Array.isArray(y)
      && !holdsList(rest) ? JSON.stringify(rest) : null;
    if (key !== null && key === runKey && !(runShows && shows)) {
      const run = data[data.length - 1];
      run.x = run.x.concat(x);
      run.y = run.y.concat(y);
      if (shows) { // the run's entry in the legend is this trace's (true, or Plotly's default)
        if (showlegend === undefined) delete run.showlegend;
        else run.showlegend = showlegend;
        runShows = true;
      }
      continue;
    }
    data.push(trace); // the figure's own copy: a run grows in place
    runKey = key;
    runShows = shows;
  }
  figure.data = data;
  return figure;
}

/** Whether a value holds a list anywhere. @param {unknown} value @returns {boolean} */
function holdsList(value) {
  if (Array.isArray(value)) return true;
  return value !== null && typeof value === "object" && Object.values(value).some(holdsList);
}

/** px: a chart's plot area across, inside its margins (Plotly's default of 80 each side).
 * @param {any} margin @param {number} width */
const plotWidth = (margin, width) => width - (margin.l ?? 80) - (margin.r ?? 80);

// px: the height of a line of an axis title; the smallest font a title takes to fit on one
// line (the tick labels')
const TITLE_LINE = 19;
const MIN_TITLE = 12;
/** A canvas's context, to measure titles in their font. @type {CanvasRenderingContext2D | null} */
let measure = null;

/**
 * An x axis title wider than its axis (figure 1's "split's writer: ms" under half of a phone's
 * width) would run into its neighbour's. Its figure's x titles first take a smaller font, all
 * the same one (titles side by side in two sizes would read as two kinds of thing), down to
 * the ticks' 12 px. Where even that does not fit (figure 7's "req/s, the lesson's traffic"
 * under a third), the words are wrapped to the axis's length at their own size, and the chart
 * grows by the lines added so that its plot keeps its height. Titles are measured in their
 * font; the words and their order stay Python's.
 * @param {any} figure @param {number} width
 */
function fitTitles(figure, width) {
  const layout = figure.layout ?? {};
  const margin = layout.margin ?? {};
  const plot = plotWidth(margin, width);
  measure ??= document.createElement("canvas").getContext("2d");
  const context = measure;
  if (!context) return;
  const titles = Object.entries(layout).filter(([key, axis]) => /^xaxis\d*$/.test(key)
    && typeof axis?.title?.text === "string" && axis.title.text && !axis.title.text.includes("<br>"))
    .map(([, axis]) => {
      const [from, to] = axis.domain ?? [0, 1];
      // Plotly's default: the layout's font, 1.2 times as large
      const size = axis.title.font?.size ?? Math.round(1.2 * (layout.font?.size ?? 12));
      const family = axis.title.font?.family ?? layout.font?.family ?? "sans-serif";
      /** @param {string} line @param {number} px */
      const fits = (line, px) => {
        context.font = `${px}px ${family}`;
        return context.measureText(line).width <= plot * (to - from);
      };
      return { axis, size, fits };
    });
  const over = titles.filter(({ axis, size, fits }) => !fits(axis.title.text, size));
  if (!over.length) return;
  const sizes = over.map(({ axis, size, fits }) => {
    for (let px = size - 1; px >= MIN_TITLE; px -= 1) if (fits(axis.title.text, px)) return px;
    return 0;
  });
  if (sizes.every((px) => px > 0)) {
    const px = Math.min(...sizes);
    for (const { axis, size } of titles) axis.title = { ...axis.title, font: { ...axis.title.font, size: Math.min(size, px) } };
    return;
  }
  let added = 0;
  for (const { axis, size, fits } of over) {
    const lines = wrapWords(axis.title.text, (line) => fits(line, size));
    axis.title = { ...axis.title, text: lines.join("<br>") };
    added = Math.max(added, (lines.length - 1) * TITLE_LINE);
  }
  if (!added) return; // a word too long alone: nothing to wrap
  layout.margin = { ...margin, b: (margin.b ?? 80) + added };
  if (typeof layout.height === "number") layout.height += added;
}

/**
 * A line's words in lines that fit (a word too long alone has a line of its own).
 * @param {string} line @param {(line: string) => boolean} fits
 */
function wrapWords(line, fits) {
  const lines = [""];
  for (const word of line.split(" ")) {
    const last = lines.length - 1;
    if (lines[last] && !fits(`${lines[last]} ${word}`)) lines.push(word);
    else lines[last] = lines[last] ? `${lines[last]} ${word}` : word;
  }
  return lines;
}

// px, about the widest average character: of 12 px text (tick labels, notes) and of the
// legend's 13 px; a legend entry's symbol and gaps; a line of 12 px tick labels
const CHAR = 7.2;
const LEGEND_CHAR = 7.8;
const LEGEND_ENTRY = 50;
const TICK_LINE = 15;

/**
 * Category labels of several lines (figure 9's "H100 readers<br>H100 writers") that are wider
 * than a category (on a phone) would be turned and cut off: their words are wrapped to fit it
 * instead, and the bottom margin grows to hold them. A note above the plot at the right (the
 * prices figure 9 used) that would meet the legend, at the left, goes below the labels. The
 * words and their order stay Python's; what fits is left as it is.
 * @param {any} figure @param {number} width
 */
function fitCategories(figure, width) {
  const layout = figure.layout ?? {};
  const margin = layout.margin ?? {};
  const plot = plotWidth(margin, width);
  for (const [key, axis] of Object.entries(layout)) {
    if (!/^xaxis\d*$/.test(key) || axis?.type !== "category" || axis.showticklabels === false) continue;
    const name = `x${key.slice("xaxis".length)}`;
    /** @type {string[]} */ const labels = [];
    for (const trace of figure.data ?? []) {
      if ((trace.xaxis ?? "x") !== name) continue;
      for (const x of trace.x ?? []) if (!labels.includes(String(x))) labels.push(String(x));
    }
    if (!labels.some((label) => label.includes("<br>"))) continue;
    const room = Math.max(4, Math.floor(plot / labels.length / CHAR));
    const wrapped = labels.map((label) => label.split("<br>").flatMap((line) => wrapWords(line, (text) => text.length <= room)));
    const tall = Math.max(...wrapped.map((lines) => lines.length)) * TICK_LINE;
    if (wrapped.some((lines, i) => lines.join("<br>") !== labels[i])) {
      Object.assign(axis, { tickvals: labels, ticktext: wrapped.map((lines) => lines.join("<br>")), tickangle: 0 });
    }
    const legend = (figure.data ?? []).filter((/** @type {any} */ t) => t.showlegend !== false && t.name)
      .reduce((/** @type {number} */ sum, /** @type {any} */ t) => sum + LEGEND_ENTRY + LEGEND_CHAR * t.name.length, 0);
    const notes = (layout.annotations ?? []).filter((/** @type {any} */ a) => a.yref === "paper" && a.y >= 1 &&
      a.xanchor === "right" && legend + CHAR * String(a.text).length + 16 > plot);
    for (const note of notes) {
      Object.assign(note, { x: 0, xanchor: "left", xshift: 8 - (margin.l ?? 80), y: 0, yanchor: "top", yshift: -(tall + 12) });
    }
    layout.margin = { ...margin, b: Math.max(margin.b ?? 80, tall + 16 + (notes.length ? 22 : 0)) };
  }
}

/**
 * Colours an author set for this piece (embed.js passes on the host page's --pdsplit-<name>):
 * only the page's own properties, and only values that are colours. Returns whether any was
 * set. @param {unknown} colours
 */
export function applyTheme(colours) {
  if (!colours || typeof colours !== "object") return false;
  let any = false;
  for (const [property, value] of Object.entries(colours)) {
    if (COLOUR_PROPERTIES.includes(property) && typeof value === "string" && CSS.supports("color", value)) {
      document.documentElement.style.setProperty(property, value);
      any = true;
    }
  }
  return any;
}

/**
 * Text from a template made in Python (the headline, a caption): "{shared.goodput}" becomes
 * that number, marked data-metric="shared.goodput".
 * @param {HTMLElement} element @param {string} template @param {Record<string, string>} shown
 * @param {string} [tag] the element each number goes in
 */
export function showTemplate(element, template, shown, tag = "strong") {
  element.replaceChildren();
  for (const piece of template.split(/(\{[a-z_0-9]+\.[a-z_0-9]+\})/)) {
    const key = piece.match(/^\{(.+)\}$/)?.[1];
    if (key && key in shown) {
      const span = document.createElement(tag);
      span.dataset.metric = key;
      span.textContent = shown[key];
      element.append(span);
    } else {
      element.append(piece);
    }
  }
}

/** Fill every [data-metric] element below root. @param {ParentNode} root @param {Record<string, string>} shown */
export function showNumbers(root, shown) {
  for (const element of root.querySelectorAll("[data-metric]")) {
    const key = /** @type {HTMLElement} */ (element).dataset.metric ?? "";
    if (key in shown) element.textContent = shown[key];
  }
}

/**
 * What each chart was last drawn with: its figure, themed and fitted, as JSON; the same
 * without its points (`frame`); where its traces' points end (`ends`).
 * @type {WeakMap<HTMLElement, {drawing: string, frame: string, ends: string|null}>}
 */
const onChart = new WeakMap();

/** An axis's layout key from a trace's axis id ("x2" is "xaxis2"). @param {string} id */
const axisKey = (id) => `${id[0]}axis${id.slice(1)}`;

/**
 * Where each trace's points end, along each axis Plotly ranges itself (one without a range
 * given), as JSON; null if a value is not a number or a trace is not a scatter. With the rest
 * of a figure the same, these ends (and the markers, part of its frame) are all that Plotly's
 * autorange and automatic axis type depend on: same ends, same axes.
 * @param {any} figure @returns {string|null}
 */
function ends(figure) {
  const layout = figure.layout ?? {};
  const out = [];
  for (const trace of figure.data) {
    if ((trace.type ?? "scatter") !== "scatter") return null;
    for (const letter of ["x", "y"]) {
      const axis = layout[axisKey(trace[`${letter}axis`] ?? letter)] ?? {};
      const values = trace[letter];
      if (!Array.isArray(values) || !values.every((/** @type {unknown} */ v) => v === null || typeof v === "number")) return null;
      const ranged = Array.isArray(axis.range) && axis.range.every(Number.isFinite) && axis.autorange !== true;
      if (ranged) { out.push(null); continue; }
      const counted = values.filter((/** @type {number} */ v) => Number.isFinite(v) && (axis.type !== "log" || v > 0));
      out.push(counted.length ? [Math.min(...counted), Math.max(...counted)] : []);
    }
  }
  return JSON.stringify(out);
}

/**
 * Each chart's last draw while it is not finished. One by Plotly's transition path is
 * finished only when Plotly.react's promise resolves (a task after its traces are drawn),
 * and until then a full draw would skip autorange: the chart's next draw waits for it (in a
 * hidden tab, whose timers run once a second, up to a second; nobody sees it there).
 * @type {WeakMap<HTMLElement, Promise<unknown>>}
 */
const unfinished = new WeakMap();

/** Each chart's last draw while its figure is not on the chart yet. @type {WeakMap<HTMLElement, Promise<void>>} */
const coming = new WeakMap();

/**
 * Draw a Plotly figure dict made in Python (none for a finding told in words); the caption.
 * Returns null once the chart shows the figure, or a promise that it soon will.
 *
 * A full draw costs ~10 ms here, mostly axes, legend and text. When only the traces' points
 * differ from the chart's last draw (a sketch filling in; a prompt step on a load chart) and
 * they end where they did, nothing but the traces can change, and Plotly's transition path
 * (duration 0) draws only them, in less than half that time. It draws them a few
 * microtasks after Plotly.react returns, before the browser paints: the promise resolves
 * then, and the page's events wait for it.
 * @param {HTMLElement|null} chart @param {HTMLElement|null} caption
 * @param {{figure: any, caption: string, template: string, shown: Record<string, string>}} reply
 * @param {boolean} [force]  draw it whole even if the chart shows this figure already (a new width)
 * @returns {Promise<void>|null}
 */
export function showFigure(chart, caption, reply, force = false) {
  /** @type {Promise<void>|null} */ let shown = null;
  if (chart && reply.figure) {
    const figure = fitted(themed(merged(structuredClone(reply.figure))), chart.clientWidth); // Plotly writes into what it is given
    const drawing = JSON.stringify([figure.data, figure.layout]);
    const before = onChart.get(chart);
    // A figure that changes nothing is not drawn again (Python's figure for the settings
    // whose baked one is on screen, a price that moves no curve): it is shown once the
    // chart's last draw is.
    shown = coming.get(chart) ?? null;
    if (force || before?.drawing !== drawing) {
      const frame = JSON.stringify([figure.data.map(({ x, y, ...rest }) => rest), figure.layout]);
      const at = ends(figure);
      const pointsOnly = !force && at !== null && before?.frame === frame && before.ends === at;
      onChart.set(chart, { drawing, frame, ends: at });
      shown = inTurn(chart, () => {
        if (pointsOnly) return drawPoints(chart, figure);
        // After its first draw Plotly keeps a chart's width, whatever its box's, and the room
        // its legend took at that width: a new width (force) is drawn afresh, at the box's.
        (force ? Plotly.newPlot : Plotly.react)(chart, figure.data, figure.layout, PLOTLY_CONFIG);
        return { shown: null, finished: null };
      });
      if (shown) whilePending(coming, chart, shown);
      else coming.delete(chart);
    }
  }
  if (caption) showTemplate(caption, reply.template, reply.shown, "span");
  return shown;
}

/**
 * Plotly, once its script has run. start.js runs it once the simulator's worker runs: the
 * controls, the text and the baked numbers do not wait for its 1.2 MB, which on a phone's
 * network share the line with Python's download (issue 49); a chart asked for before it has
 * come is drawn when it has. (Should it never come, the charts stay empty and the rest of
 * the page works.)
 * @type {Promise<void>}
 */
export const plotlyCame = new Promise((resolve) => {
  if (typeof Plotly === "object") resolve();
  else document.addEventListener("load", (event) => {
    if (/** @type {Element} */ (event.target).id === "plotly-script") resolve();
  }, true); // a script's load does not bubble, but is seen on its way down
});

/**
 * A moment when the main thread has nothing else to do, for each chart that waited for
 * Plotly: drawn all at once as it came (on a phone's CPU a second for the four), they held
 * the worker's message that Python was ready behind them. @returns {Promise<void>}
 */
const idle = () => new Promise((resolve) => {
  if (typeof requestIdleCallback === "function") requestIdleCallback(() => resolve(), { timeout: 1000 });
  else setTimeout(resolve, 0);
});

/** Whether Plotly has come (plotlyCame), to draw with it at once. */
export const plotlyHere = () => typeof Plotly === "object";

/**
 * A chart's draw, at once, or after its last one if that is not finished (or Plotly has not
 * come yet): what it shows (null: shown on return). @param {HTMLElement} chart
 * @param {() => {shown: Promise<void>|null, finished: Promise<unknown>|null}} draw
 * @returns {Promise<void>|null}
 */
function inTurn(chart, draw) {
  const last = unfinished.get(chart) ?? (plotlyHere() ? undefined : plotlyCame.then(idle));
  if (!last) {
    const now = draw();
    if (now.finished) whilePending(unfinished, chart, now.finished);
    return now.shown;
  }
  const now = last.then(draw, draw);
  whilePending(unfinished, chart, now.then((d) => d.finished));
  return now.then((d) => d.shown ?? undefined);
}

/**
 * Keep a chart's promise in `map` until it settles, unless a newer one has taken its place.
 * @param {WeakMap<HTMLElement, Promise<any>>} map @param {HTMLElement} chart @param {Promise<any>} promise
 */
function whilePending(map, chart, promise) {
  map.set(chart, promise);
  const over = () => { if (map.get(chart) === promise) map.delete(chart); };
  promise.then(over, over);
}

// An axis's arrays that Plotly.react takes for changed whenever they are new arrays, without
// comparing them (it compares data arrays only through layout.datarevision), and then draws
// every axis's ticks again: ~8 ms of the gap chart's ~20 ms trace-only draw here, for the
// tick labels of its log axis (sim/show/charts.py: log_ticks).
const TICK_ARRAYS = ["tickvals", "ticktext", "categoryarray"];

/**
 * Give each axis the very tick arrays of the chart's last layout where they are equal, so
 * that Plotly sees them unchanged. @param {any} layout @param {any} before  the last layout
 */
function sameTicks(layout, before) {
  for (const [key, axis] of Object.entries(layout)) {
    if (!/^[xy]axis\d*$/.test(key) || !axis || !before?.[key]) continue;
    for (const name of TICK_ARRAYS) {
      const now = axis[name], last = before[key][name];
      if (Array.isArray(now) && Array.isArray(last) && JSON.stringify(now) === JSON.stringify(last)) axis[name] = last;
    }
  }
}

/**
 * A figure's traces drawn again by Plotly's transition path (showFigure): `shown` once they
 * are on the chart, `finished` once Plotly is done.
 * @param {HTMLElement} chart @param {any} figure
 */
function drawPoints(chart, figure) {
  const gd = /** @type {any} */ (chart);
  sameTicks(figure.layout, gd.layout);
  /** @type {() => void} */ let showing = () => {};
  /** @type {Promise<void>} */ const shown = new Promise((resolve) => { showing = resolve; });
  const drawn = () => { gd.removeListener("plotly_transitioning", soon); showing(); };
  const soon = () => queueMicrotask(drawn); // Plotly draws the traces just after it says so
  gd.once("plotly_transitioning", soon);
  const finished = Plotly.react(chart, figure.data, { ...figure.layout, transition: { duration: 0 } }, PLOTLY_CONFIG);
  finished.then(drawn, drawn); // should Plotly take its full path after all
  return { shown, finished };
}

/** What a piece of a course page says while all is well: the rest is its details. */
export const QUIET_NOTE = "computed in your browser";

/**
 * Say what is true now in the status line. `quiet` (a piece of a course page, while all is
 * well): only a small note, QUIET_NOTE, focusable, whose details are its accessible description
 * and show on hover or focus (a tap focuses it too), since a `title` alone reaches neither touch
 * nor keyboard. Errors and a worker's healing are never quiet.
 * @param {HTMLElement} element @param {string} text @param {"info"|"busy"|"error"} [kind]
 * @param {boolean} [quiet]
 */
export function showStatus(element, text, kind = "info", quiet = false) {
  // written only when it changes: the page says what is true after every change, and a
  // status line rewritten with the same words would be read out again
  const wasQuiet = element.classList.contains("quiet");
  if (quiet) {
    if (!wasQuiet || element.querySelector(".status-details")?.textContent !== text) {
      const note = Object.assign(document.createElement("span"), { className: "quiet-note", tabIndex: 0, textContent: QUIET_NOTE });
      const details = Object.assign(document.createElement("span"), { id: `${element.id}-details`, className: "status-details", textContent: text });
      details.setAttribute("role", "tooltip");
      note.setAttribute("aria-describedby", details.id);
      element.replaceChildren(note, details);
    }
  } else if (wasQuiet || element.textContent !== text) {
    element.textContent = text;
  }
  element.classList.toggle("quiet", quiet);
  if (element.dataset.kind !== kind) element.dataset.kind = kind;
}

/**
 * Set an element's property (textContent, hidden, ...) only if it differs. The page is shown
 * again at every change, and a write, even of the same value, makes the browser lay out and
 * paint again, in the frame that the new numbers then wait for.
 * @param {HTMLElement} element @param {string} name @param {unknown} value
 */
export function put(element, name, value) {
  const el = /** @type {any} */ (element);
  if (el[name] !== value) el[name] = value;
}

/** @param {HTMLElement} element @param {string[]} notices */
export function showNotices(element, notices) {
  const now = [...element.children].map((li) => li.textContent);
  if (now.length !== notices.length || now.some((text, i) => text !== notices[i])) {
    element.replaceChildren(...notices.map((text) => Object.assign(document.createElement("li"), { textContent: text })));
  }
  put(element, "hidden", notices.length === 0);
}
