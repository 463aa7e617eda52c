// The page: settings (URL, sliders, buttons) -> the simulator in a worker -> the screen.
// Before Python is ready the page shows the results baked in at build time. The numbers and
// the two main charts come from one worker (started early by start.js); the lesson's three
// figures from a second one, where the device has the cores for it (start.js), once it has
// helped with the main charts' points (help.js), else from the same one, once the main
// charts are drawn.

/* global Plotly */

import { SettingsTable, VIEW, readView } from "./settings.js";
import { Python, PythonUnavailable } from "./python.js";
import { figureWorker, python, workerURL } from "./start.js";
import { Job, Latest, deferred } from "./latest.js";
import { help } from "./help.js";
import { Address } from "./address.js";
import { applyTheme, plotlyCame, plotlyHere, put, showFigure, showNotices, showNumbers, showStatus, showTemplate } from "./view.js";
import { movable, showControl, sliderRow, stateButtons } from "./controls.js";
import { Explorer } from "./explorer.js";
import { Models } from "./models.js";
import { TRAFFIC_FIELDS, Traffic } from "./traffic.js";
import { Watch } from "./watch.js";
import { download, forget, unpacked } from "./downloads.js";

const MAIN = ["goodput", "gap"]; // the two main charts, drawn by the numbers' worker
const LESSON = ["stall", "link", "prompt"]; // the lesson's figures 1, 3 and 4
// With the explorer's panel open, what the traffic looks like, DistServe's goodput with what a
// dollar and a kWh of it buy (no simulation more) and the portfolio's verdict come first, and the
// best-ratio chart and the chip mix (figure 9: four mixes' rate goodputs) last, the longest to
// work out, in the figures' lane; while a trace is chosen, real traffic's figures 7 and 8 follow.
// "kv", memory over time, right after them: one run of the split, drawn from its memory's events.
const EXPLORER = ["traffic", "kv", "rate", "economics", "verdict", "stall", "link", "prompt", "ratio", "chips"];
const WITH_A_TRACE = ["know", "traces_ratio"];
const WORDS_ONLY = ["rate", "economics", "verdict"]; // findings told in words, with no chart
const FURTHER = ["rate", "economics", "ratio", "chips"]; // the panel's own parts, in #further
// ms of pieces the figures' worker does per request: it answers only the figures' lane, so
// it need not hand back every 10 ms (sim.page's slice) to let newer numbers in
const FIGURE_BUDGET = 50;
const DIM_AFTER = 250; // ms: what is still for earlier settings then is dimmed (style.css .pending)
const VERDICT_WAITS = "Working it out for these settings, after the numbers and the charts…";
const ADDRESS_AFTER = 300; // ms without a change: then the address bar follows the settings (address.js)
// What ?show= may name: the page's parts (index.html marks each with data-part).
const PARTS = ["headline", "numbers", "controls", ...MAIN, ...LESSON, "watch", "explorer", "traffic", "rate",
  "economics", "verdict", "ratio", "chips", ...WITH_A_TRACE, "memory", "footer"];
/** The part that shows a figure, where the two names differ. @type {Record<string, string>} */
const PART_OF = { kv: "memory" };

/** @type {{schema: any[], fit: import("./settings.js").FitFacts, headline: string, wheel: string, pyodide: string, version: string, examples: Record<string, string>, sketched: string[], staged: string[], states: {name: string, label: string, group: string, settings: Record<string, number|string>, changes?: Record<string, number|string>, compare?: any, figures?: Record<string, any>}[], states_file?: {plain: string, packed: string}}} */
const baked = JSON.parse(/** @type {HTMLElement} */ (document.getElementById("pdsplit-baked")).textContent ?? "{}");
// The named states after the first (the defaults) come as what they change (build.py, changes).
for (const state of baked.states) state.settings ??= { ...baked.states[0].settings, ...state.changes };
const table = new SettingsTable(baked.schema, baked.fit);
const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

const timings = { firstNumbers: NaN, pythonReady: NaN };
let pythonReady = false; // a worker has booted and none has been lost since
/** @type {string|null} */ let gaveUp = null; // why the browser could not run the simulator
let readyStatus = ""; // what the status line says while Python is up (sayStatus)
/** @type {{python: string, pyodide: string, seconds: number, boot: string, fallback: string|null, restarts: number}|null} */
let workerInfo = null;
let restarts = 0;
let restartedLast = false; // the worker that booted last replaced a lost one
/** @type {{result: any, shown: Record<string, string>, key: string}|null} */ let onScreen = null;
/** @type {Record<string, any>} */ const figuresOnScreen = {}; // the figures drawn whole
/** @type {Record<string, any>} */ const chartsOnScreen = {}; // what each chart shows: a figure or its sketch
// For the current settings, the charts: given their whole figure (`whole`); showing it, by
// where it came from (`baked`, `python`); given a sketch; showing their first points.
const noneDrawn = () => ({ whole: new Set(), baked: new Set(), python: new Set(), sketched: new Set(), first: new Set() });
/** @type {Record<string, Set<string>>} */ let drawn = noneDrawn();

const opened = table.fromQuery(location.search);
let settings = opened.settings;
/** The lesson's sliders: the settings with a slider that are not the explorer's. */
const lessonSliders = table.fields.filter((f) => f.slider && f.group === "lesson");
const view = readView(location.search, PARTS, [...lessonSliders.map((f) => f.name), ...TRAFFIC_FIELDS]);
for (const notice of view.notices) console.warn(`pdsplit: ${notice}`);
const viewNotices = view.notices; // said for as long as the page is open
/** How the page is shown stays in its URL, whatever the settings become. */
const viewQuery = [...new URLSearchParams(location.search)].filter(([name]) => VIEW.includes(name));
const explorer = new Explorer(table, {
  panel: /** @type {HTMLDetailsElement} */ ($("explorer")), controls: $("explorer-controls"),
  states: $("explorer-states"),
}, baked.states.filter((s) => s.group === "explorer"), () => settings, (next) => change(next), baked.examples);
const traffic = new Traffic(table, {
  controls: $("traffic-controls"), states: $("traffic-states"), input: /** @type {HTMLInputElement} */ ($("trace-file")),
  drop: $("traffic-file"), notices: $("trace-notices"), attribution: $("traffic-attribution"), leftOut: $("traffic-left-out"),
}, baked.states.filter((s) => s.group === "traffic"), () => settings, (next, notices) => change(next, notices),
{ traces: baked.traces, limit: baked.trace_file_bytes }, readTrace);
// Bigger models and memory, in the panel: their controls, states and what the instances hold.
const models = new Models(table, { controls: $("model-controls"), states: $("model-states"), capacity: $("capacity"), moment: $("kv-moment") },
  baked.states.filter((s) => s.group === "model"), () => settings, (next) => change(next),
  async (s) => { await ready; return python.call("capacity", { settings: s }); },
  (t) => { watch.open(Math.max(0, t - 1), t); $("watch").scrollIntoView({ block: "start" }); });
// Watch it run, beside figure 1: its events are asked for once the page has settled.
const watch = new Watch({ call: (type, body) => python.call(type, body), current: () => ({ settings: { ...settings }, key: keyOf(settings) }) });
{ // a window from the URL within its trace (a file of one's own is fitted once it is known)
  const fitted = traffic.place(settings, null);
  settings = fitted.settings;
  if (fitted.notice) opened.notices.push(fitted.notice);
}
showNotices($("notices"), [...viewNotices, ...opened.notices]);
const query = new URLSearchParams(location.search);
// A URL that sets one of its settings opens it, and so does one that shows one of its parts or
// lists one of its controls.
explorer.panel.open = [...explorer.further.map((f) => f.name)].some((name) => query.has(name)) ||
  ["explorer", "traffic", "verdict", "memory", ...FURTHER, ...WITH_A_TRACE].some((part) => view.show?.has(part)) ||
  TRAFFIC_FIELDS.some((name) => view.controls?.includes(name));

/**
 * A key for a whole setting: the settings table's, and which file of one's own traffic=own
 * replays (a new file with the same settings is other numbers).
 * @param {Record<string, number|string>} s
 */
function keyOf(s) {
  return table.key(s) + (s.traffic === "own" ? `|own ${traffic.ownVersion}` : "");
}

/** DistServe's goodput, its economics, the best ratio and the chip mix follow the main charts
 * while the panel is open, and real traffic's figures while a trace is chosen. */
function showFurther() {
  const traced = Traffic.traced(settings);
  $("further").hidden = !explorer.open || ![...FURTHER, ...(traced ? WITH_A_TRACE : [])].some(shown);
  for (const figure of document.querySelectorAll("#further .trace-only")) {
    const hide = !traced || !shown(/** @type {HTMLElement} */ (figure).dataset.part ?? "");
    if (/** @type {HTMLElement} */ (figure).hidden !== hide) /** @type {HTMLElement} */ (figure).hidden = hide;
  }
  // memory over time: with memory=kv, or wherever ?show= names it (its caption then says what to set)
  const memory = $("memory-figure");
  const hide = !shown("memory") || (settings.memory !== "kv" && !view.show?.has("memory"));
  if (memory.hidden !== hide) memory.hidden = hide;
}

/** Whether a part is on screen (?show=; every part without it). @param {string} part */
function shown(part) {
  return !view.show || view.show.has(part);
}

/** The main charts shown, drawn by the numbers' worker. */
function mainCharts() {
  return MAIN.filter(shown);
}

/** The figures' lane for the page as it is: the explorer's only while its panel is open. */
function laneFigures() {
  if (!explorer.open) return LESSON.filter(shown);
  return [...EXPLORER, ...(Traffic.traced(settings) ? WITH_A_TRACE : [])].filter((name) => shown(PART_OF[name] ?? name));
}

/**
 * Show only the parts ?show= names, the sliders ?controls= names, and in embed mode no title
 * and no introduction (the course's text surrounds the piece). The status line and notices
 * stay whatever is shown: they say what the numbers are and what the URL got wrong.
 */
function applyView() {
  document.body.classList.toggle("embed", view.embed);
  document.body.classList.toggle("status-only", !shown("numbers"));
  /** @type {HTMLElement} */ (document.querySelector("body > header")).hidden = view.embed;
  if (view.show) {
    for (const element of document.querySelectorAll("[data-part]")) {
      const parts = /** @type {HTMLElement} */ (element).dataset.part?.split(" ") ?? [];
      /** @type {HTMLElement} */ (element).hidden = !parts.some(shown); // "page": whole page only
    }
    for (const section of [$("charts"), $("figures")]) {
      section.hidden = !section.querySelector("figure:not([hidden])");
    }
  }
  if (view.controls) {
    for (const f of lessonSliders) {
      /** @type {HTMLElement} */ ($(`slider-${f.name}`).closest(".slider")).hidden = !view.controls.includes(f.name);
    }
    $("states").hidden = true; // a named state sets sliders that are not there
    const listed = TRAFFIC_FIELDS.filter((name) => view.controls?.includes(name));
    if (listed.length) { // the traffic's controls asked for: those alone, with the file's input for `traffic`
      for (const element of [$("traffic"), $("traffic-controls"), explorer.panel]) element.hidden = false;
      $("traffic-file").hidden = !listed.includes("traffic");
      $("traffic-states").hidden = true;
      for (const row of $("traffic-controls").querySelectorAll("[data-control]")) {
        if (!listed.includes(/** @type {HTMLElement} */ (row).dataset.control ?? "")) row.classList.add("unlisted");
      }
    }
  }
  if (view.theme !== "auto") document.documentElement.dataset.theme = view.theme;
}

// ---- drawing ----

/** @param {any} message  a compare reply @param {string} source */
function drawNumbers(message, source) {
  showTemplate($("headline"), message.headline ?? baked.headline, message.shown);
  showNumbers($("results"), message.shown);
  showNumbers($("glance"), message.shown);
  if (message.intro) {
    showTemplate($("intro-gpus"), message.intro.gpus, message.shown, "span");
    showTemplate($("intro-split"), message.intro.split, message.shown, "span");
    if (message.intro.reads) showTemplate($("watch-reads"), message.intro.reads, message.shown, "span");
  }
  const chunked = "chunked" in message.result;
  document.body.classList.toggle("has-chunked", chunked); // a third column
  document.body.classList.toggle("has-kv", "backpressure" in (message.result.split ?? {})); // memory=kv's rows
  $("table-caption").textContent = `${chunked ? "The three" : "Both"} layouts, for the settings below`;
  document.body.classList.remove("stale");
  $("results").classList.remove("pending");
  if (source === "python") refused = null; // the simulator took these settings
  onScreen = { result: message.result, shown: message.shown, key: keyOf(settings) };
  if (Traffic.traced(settings)) drawControls(); // the trace's own words for its sliders
  sayStatus();
  if (Number.isNaN(timings.firstNumbers)) timings.firstNumbers = performance.now();
  dispatchEvent(new CustomEvent("pdsplit:numbers", { detail: { key: keyOf(settings), source } }));
  if (mainCharts().length === 0) mainDone(source); // no main chart is shown: none to wait for
}

/**
 * The main charts are drawn: say so, let the figures held for them follow, and if no other
 * figure is shown, the page has settled. @param {string} source
 */
function mainDone(source) {
  const key = keyOf(settings);
  dispatchEvent(new CustomEvent("pdsplit:charts", { detail: { key, source } }));
  if (source === "python") drawHeld();
  if ((current?.lane ?? laneFigures()).length === 0) settle(source);
}

/** Every chart and figure for the current settings is drawn. @param {string} source */
function settle(source) {
  // Screen readers hear the headline once the page has settled, not at every stop of a drag.
  $("announce").textContent = $("headline").textContent;
  dispatchEvent(new CustomEvent("pdsplit:settled", { detail: { key: keyOf(settings), source } }));
  if (source === "python") current.settled.resolve(undefined);
}

/**
 * Then, once the chart shows what showFigure was given (a redraw of its points alone: a few
 * microtasks on), unless the settings have changed meanwhile. Its events wait for it.
 * @param {Promise<void>|null} shown @param {() => void} then
 */
function whenShown(shown, then) {
  if (!shown) return then();
  const work = current;
  shown.then(() => { if (work === current) then(); });
}

/** @param {string} name @param {any} reply @param {string} source */
function drawFigure(name, reply, source) {
  const chart = document.getElementById(`chart-${name}`); // DistServe's goodput has no chart
  const caption = document.getElementById(`caption-${name}`);
  const shown = showFigure(chart, caption, reply);
  chart?.classList.remove("pending");
  caption?.classList.remove("pending");
  if (caption) caption.dataset.key = keyOf(settings);
  if (name === "verdict") caption?.style.removeProperty("min-height"); // its room was kept
  filling(chart, false);
  figuresOnScreen[name] = reply;
  chartsOnScreen[name] = reply;
  drawn.whole.add(name);
  if (name === "kv") models.heldBack(reply); // its button to the moment memory holds the readers back
  whenShown(shown, () => {
    firstPoints(name, source);
    const done = drawn[source];
    const before = done.size;
    done.add(name);
    if (done.size === before) return;
    const main = mainCharts();
    if (main.every((n) => done.has(n)) && main.includes(name)) mainDone(source);
    if (current.lane.length && done.size === main.length + current.lane.length) settle(source);
  });
}

/**
 * A chart's sketch for the current settings: fewer points, each exact, while the rest are
 * simulated. The chart says so, quietly, and its caption (still the earlier settings') is
 * dimmed until the whole figure comes with its own.
 * @param {string} name @param {any} reply
 */
function drawSketch(name, reply) {
  if (drawn.whole.has(name)) return; // already drawn whole
  const chart = document.getElementById(`chart-${name}`);
  if (!chart) return;
  const shown = showFigure(chart, null, { figure: reply.sketch });
  chart.classList.remove("pending");
  const caption = document.getElementById(`caption-${name}`);
  const older = Boolean(caption && caption.dataset.key !== keyOf(settings));
  if (older) caption?.classList.add("pending");
  filling(chart, true, older);
  chartsOnScreen[name] = { figure: reply.sketch };
  delete figuresOnScreen[name]; // pdsplit.figure() gives figures drawn whole, for these settings
  drawn.sketched.add(name);
  whenShown(shown, () => firstPoints(name, "python"));
}

// What follows a sketch: more points, or for figures 6 and 8 (their bars first) their line.
/** @type {Record<string, string>} */
const SKETCH_FOLLOWS = { ratio: "its rate goodput line follows", traces_ratio: "its rate goodput lines follow",
  know: "more panels follow", chips: "more mixes follow" }; // figures 7 and 9: drawn in stages
/** The quiet line under a chart's sketch. @param {string} name @param {boolean} older */
function sketchNote(name, older) {
  const note = `A sketch for these settings: ${SKETCH_FOLLOWS[name] ?? "more points follow"}.`;
  return older ? `${note} The caption below is still for the previous settings.` : note;
}

// Below each chart drawn first as a sketch, a quiet line that says so while it is one. Its room
// is kept when it says nothing, so that the page does not move as charts fill in.
for (const name of [...baked.sketched, ...baked.staged]) {
  const chart = document.getElementById(`chart-${name}`);
  if (!chart) continue;
  const note = document.createElement("p");
  note.className = "filling";
  note.textContent = sketchNote(name, true); // the longer words' room, kept while it is hidden
  chart.after(note);
}

// A caption keeps the room of the most lines it has had at this width: a drag that takes it
// from three lines to two and back would move everything below it up and down at each stop
// (a new width starts again from its own). The verdict keeps its room its own way.
const captionRoom = new ResizeObserver((entries) => {
  for (const { target, contentRect } of entries) {
    const caption = /** @type {HTMLElement} */ (target);
    const width = String(Math.round(contentRect.width));
    if (caption.dataset.roomWidth !== width) {
      caption.dataset.roomWidth = width;
      caption.style.removeProperty("min-height");
      caption.style.minHeight = `${caption.getBoundingClientRect().height}px`; // its own, at this width
    } else if (contentRect.height > parseFloat(caption.style.minHeight || "0")) {
      caption.style.minHeight = `${contentRect.height}px`;
    }
  }
});
for (const caption of document.querySelectorAll("figure.chart > figcaption, p.rate:not(#caption-verdict)")) {
  captionRoom.observe(caption);
}

/**
 * Say by a chart, quietly, that more of its points are on their way (or no longer), and
 * whether its caption is still the earlier settings' (its numbers dotted until it is not).
 * @param {HTMLElement|null} chart @param {boolean} on @param {boolean} [older]
 */
function filling(chart, on, older = false) {
  const note = chart?.parentElement?.querySelector(".filling");
  if (!note) return;
  if (note.classList.contains("on") !== on) note.classList.toggle("on", on);
  const text = sketchNote(chart.id.replace("chart-", ""), !on || older);
  if (note.textContent !== text) note.textContent = text;
}

/**
 * `pdsplit:charts-partial`: a main chart first shows points of the new settings (a sketch or
 * the whole figure), so that tools can tell it from `pdsplit:charts` (both complete).
 * @param {string} name @param {string} source
 */
function firstPoints(name, source) {
  if (!mainCharts().includes(name) || drawn.first.has(name)) return;
  drawn.first.add(name);
  dispatchEvent(new CustomEvent("pdsplit:charts-partial", { detail: { key: keyOf(settings), source, name } }));
}

/** @type {Promise<void>} */ let bakedDrawn = Promise.resolve(); // the baked charts on screen

/** The named state the build worked out for settings of `key`, once its results are here
 * (the defaults' in index.html, the others' from the states' file: loadStates). @param {string} key */
function builtFor(key) {
  return baked.states.find((s) => s.figures && keyOf(s.settings) === key);
}

/**
 * Show the baked result for the current settings, if the build made one. Spread, the charts
 * are drawn one a task, so that the main thread is free in between (the worker's start
 * needs it now and then), and `bakedDrawn` says when they are done.
 * @param {boolean} [spread]
 */
function drawBaked(spread = false) {
  const key = keyOf(settings);
  const state = builtFor(key);
  if (!state) return false;
  const figures = state.figures;
  drawNumbers(state.compare, "baked");
  const order = [...mainCharts(), ...laneFigures()];
  if (!spread) {
    for (const name of order) drawFigure(name, figures[name], "baked");
    return true;
  }
  bakedDrawn = (async () => {
    for (const name of order) {
      await new Promise((next) => setTimeout(next));
      if (keyOf(settings) !== key) return; // the user moved on: drawn by change()
      drawFigure(name, figures[name], "baked");
    }
  })();
  return true;
}

// ---- the workers ----

/** @type {Python|null} */ let figurePython = null; // the second worker, once the first is up

/** The figures' worker, unless there is none or it gave up. */
function figuresWorker() {
  return figurePython && !figurePython.gaveUp ? figurePython : null;
}

/**
 * The figures' worker, or the numbers' one if there is no second or it gave up: then the
 * figures wait for the main charts to be drawn, so as not to slow them. The figures' worker
 * first helps with the main charts' points (help.js): the figures are drawn after them anyway.
 */
async function figureCall(/** @type {string} */ type, /** @type {Object} */ body) {
  const work = current;
  if (figuresWorker()) await work.helped;
  if (!figuresWorker()) await work.mainDrawn.promise; // (it may have given up meanwhile)
  if (work !== current) throw new Error("superseded by newer settings");
  const worker = figuresWorker();
  if (worker) {
    try {
      return await worker.call(type, { ...body, budget: FIGURE_BUDGET });
    } catch (error) {
      if (!(error instanceof PythonUnavailable)) throw error;
      figurePython = null; // from now on the numbers' worker draws the figures too
      throw Object.assign(new Error(error.message), { retryable: true });
    }
  }
  return python.call(type, body);
}

/** What a lane puts on screen. @param {boolean} main  the numbers and main charts' lane */
function shows(main) {
  return {
    numbers: (/** @type {Job} */ job, /** @type {any} */ reply) => {
      drawNumbers(reply, "python");
      for (const name of mainCharts()) if (name in current.built) drawFigure(name, current.built[name], "python");
    },
    figure: (/** @type {Job} */ job, /** @type {string} */ name, /** @type {any} */ reply) => {
      // The main thread draws the main charts first: a figure that is ready before them
      // waits (the stall figure alone takes ~0.1 s to draw).
      if (main || current.mainDone) drawFigure(name, reply, "python");
      else current.held.set(name, { whole: true, draw: () => drawFigure(name, reply, "python") }); // over its sketch
    },
    // a sketch waits for the main charts too (figure 6's bars come long before its line); a
    // later stage of figure 7 or 9 takes its earlier one's place, never its whole figure's
    sketch: (/** @type {Job} */ job, /** @type {string} */ name, /** @type {any} */ reply) => {
      if (main || current.mainDone) drawSketch(name, reply);
      else if (!current.held.get(name)?.whole) current.held.set(name, { whole: false, draw: () => drawSketch(name, reply) });
    },
    failed: (/** @type {Job} */ job, /** @type {Error} */ error) => {
      current.settled.reject(error);
      if (main) drawHeld();
      if (error instanceof PythonUnavailable) return; // said by the watchers
      document.body.classList.add("stale"); // the numbers shown are for other settings
      refused = error.message;
      sayStatus();
    },
  };
}
const address = new Address(ADDRESS_AFTER);
// (while the figures' worker helps with the main charts' points, they reach the numbers'
// worker only with its next request: then it is asked for a slice at a time)
const numbersLane = new Latest((type, body) => python.call(type, body), shows(true),
  { helped: () => Boolean(current?.helping), together: true });
const figuresLane = new Latest(figureCall, shows(false));

/**
 * The work for the current settings: its two lanes' jobs, the figures waiting for the main
 * charts, and a promise that every chart and figure is drawn.
 * @type {{numbers: Job, figures: Job, lane: string[], built: Record<string, any>, held: Map<string, {whole: boolean, draw: () => void}>, mainDone: boolean, mainDrawn: ReturnType<typeof deferred>, settled: ReturnType<typeof deferred>, helped: Promise<void>, helping: boolean}}
 */
let current;

function compute() {
  const key = keyOf(settings);
  const lane = laneFigures();
  drawn = noneDrawn();
  current?.settled.reject(new Error("superseded by newer settings"));
  current?.mainDrawn.reject(new Error("superseded by newer settings"));
  // A named state's charts and figures were worked out by the build, by this very simulator
  // for these very settings: drawn from there once its numbers are (the main charts) and
  // after the main charts (the rest, as the figures' worker's would be), not worked out again,
  // which for the models' states took minutes. Only its numbers are asked of Python.
  const built = builtFor(key)?.figures ?? {};
  const toWork = (/** @type {string[]} */ names) => names.filter((name) => !(name in built));
  const main = toWork(mainCharts());
  const numbers = new Job({ ...settings }, key, main, true, baked.sketched);
  const figures = new Job({ ...settings }, key, toWork(lane), false, baked.sketched);
  // `current` first: the figures' lane asks it whether the main charts are drawn yet, or
  // whether the figures' worker, if any, is done helping with their points
  const helper = figuresWorker();
  const helping = Boolean(helper && main.length);
  const helped = helping ? help(numbers, main[0], (type, body) => /** @type {Python} */ (helper).call(type, body))
    : Promise.resolve();
  const work = current = { numbers, figures, lane, built, held: new Map(), mainDone: false, mainDrawn: deferred(), settled: deferred(), helped, helping };
  if (helping) helped.then(() => { work.helping = false; });
  for (const name of lane.filter((name) => name in built)) {
    work.held.set(name, { whole: true, draw: () => drawFigure(name, built[name], "python") });
  }
  numbersLane.want(numbers);
  figuresLane.want(figures);
  // The verdict is never shown for settings it was not worked out for: it gives way at once,
  // keeping its room, so that what follows it does not move (and need not be painted again).
  const verdict = $("caption-verdict");
  if (verdict.dataset.key !== "" && verdict.dataset.key !== key) {
    verdict.style.minHeight = `${verdict.offsetHeight}px`;
    verdict.textContent = VERDICT_WAITS;
    verdict.dataset.key = "";
  }
  return numbers;
}

/**
 * The main charts are drawn (or will not be): the figures held for them follow, one a task
 * (each the newest it has: its whole figure, else its sketch).
 */
function drawHeld() {
  const work = current;
  work.mainDone = true;
  work.mainDrawn.resolve(undefined);
  const held = [...work.held.values()];
  work.held.clear();
  for (const { draw } of held) setTimeout(() => { if (work === current) draw(); });
}

/** @type {ReturnType<typeof setTimeout>|null} */ let dimming = null;

/**
 * Dim the numbers and the charts that are still for earlier settings 0.25 s after a change,
 * if they are by then. Not by a class set at once with a delayed transition: a class set on a
 * chart (thousands of SVG nodes) at every key makes the browser paint it again, in the frame
 * that the reply with the new numbers then waits for.
 */
function dimIfSlow() {
  if (dimming !== null) return; // a change less than 0.25 s ago: its timer looks then
  dimming = setTimeout(() => {
    dimming = null;
    if (onScreen?.key !== keyOf(settings)) $("results").classList.add("pending");
    for (const name of [...mainCharts(), ...laneFigures()]) {
      if (drawn.whole.has(name)) continue;
      if (drawn.sketched.has(name)) continue; // its sketch is these settings' (its caption is dimmed)
      // a chart greys, and its caption with it, whose numbers are the same earlier settings';
      // a finding told in words greys too (the verdict has given way already)
      const caption = document.getElementById(`caption-${name}`);
      if (!WORDS_ONLY.includes(name)) document.getElementById(`chart-${name}`)?.classList.add("pending");
      if (caption && caption.dataset.key !== keyOf(settings)) caption.classList.add("pending");
    }
  }, DIM_AFTER);
}

/** The numbers on screen are not for the current settings: say so by their look. */
function markStale() {
  if (onScreen?.key !== keyOf(settings)) document.body.classList.add("stale");
}

const watchers = {
  ready(info, restartedAfter) {
    pythonReady = true;
    if (restartedAfter) restarts += 1;
    restartedLast = Boolean(restartedAfter);
    workerInfo = { ...info, restarts };
    const how = info.boot === "snapshot" ? `from its snapshot${info.kept?.includes("snapshot.bin.gz") ? ", which this browser kept from an earlier visit" : ""}`
      : `by a full start, since its snapshot could not be used (${info.fallback?.replace(/^the snapshot was not used: /, "")})`;
    readyStatus = `${restartedAfter ? `The simulator was restarted, since ${restartedAfter.replace(/^it /, "the one before ")}. ` : ""}` +
      `Python ${info.python} (Pyodide ${info.pyodide}) ready in ${info.seconds.toFixed(1)} s, ${how}: every number here is now computed in your browser.`;
    lostBecause = null;
    sayStatus();
  },
  lost(reason) {
    pythonReady = false;
    lostBecause = reason;
    markStale();
    sayStatus();
  },
  gaveUp(reason) {
    pythonReady = false;
    gaveUp = reason;
    showGaveUp();
  },
};

/** After the last failed start: the baked numbers stay, and the page says why. */
function showGaveUp() {
  if (!drawBaked()) document.body.classList.add("stale");
  sayStatus();
}

/** @type {string|null} */ let refused = null; // why the simulator refused the current settings
/** @type {string|null} */ let lostBecause = null; // why the worker was lost, while a new one starts

/**
 * Say in the status line what is true now: where the numbers on screen come from, and
 * whether they are for the settings shown (else they are dimmed, and it says so).
 */
function sayStatus() {
  const forThese = onScreen?.key === keyOf(settings); // the numbers shown are these settings'
  const status = $("status");
  if (gaveUp) {
    showStatus(status, `Your browser could not run the simulator: ${gaveUp}. ` + (forThese
      ? "The numbers shown were worked out when this page was built."
      : "The numbers shown are for other settings, worked out when this page was built; only the lesson's named states (the buttons) have numbers without it."), "error");
  } else if (refused) {
    showStatus(status, `The simulator refused these settings: ${refused}`, "error");
  } else if (lostBecause) {
    showStatus(status, `The simulator stopped: ${lostBecause}. A new one is starting, and your settings go to it.`, "busy");
  } else if (pythonReady) {
    // a piece of a course page: a quiet note, unless it tells of a restart (healing speaks up)
    showStatus(status, readyStatus + charts(), "info", view.embed && !restartedLast);
  } else {
    // what the learner waits for: Python, and the charts' library if it has not come
    showStatus(status, (forThese
      ? "Python is starting in your browser; until it is ready, the numbers shown were worked out for these settings when this page was built."
      : onScreen
        ? "Python is still starting: the numbers shown (dimmed) are for an earlier setting; yours follow as soon as it is ready."
        : "Python is starting in your browser; the numbers for these settings follow as soon as it is ready.") + charts(), "busy");
  }
}
/** What the status line adds while the charts' library has not come (index.html loads it async). */
function charts() {
  return plotlyHere() ? "" : " The charts follow as soon as their library has loaded.";
}
plotlyCame.then(sayStatus);

/**
 * Have the simulator read a file of one's own (in the worker, where the file goes as it is:
 * this page never reads it, nor sends it anywhere), and the figures' worker too, if any.
 * @param {Blob} file @param {string} name @returns {Promise<import("./traffic.js").TraceInfo>}
 */
async function readTrace(file, name) {
  const { trace } = await python.call("trace", { file, name });
  await figuresWorker()?.call("trace", { file, name }).catch(() => {});
  return trace;
}

/** A second worker for the lesson's figures, where the device has the cores for it: it boots
 * from the first one's snapshot and compiled wasm, so it downloads neither again. */
async function startFigureWorker() {
  if (!figureWorker) return;
  const gift = await python.call("share").catch(() => ({}));
  python.keep = false; // a new numbers' worker need not keep them
  figurePython = new Python(workerURL, {}, gift);
  // What befalls it is said while the numbers' worker is up (else that one's fate is).
  figurePython.watch({
    lost: (reason) => {
      if (pythonReady) showStatus($("status"), `The figures' simulator stopped: ${reason}. A new one is starting.`, "busy");
    },
    ready: (info, restartedAfter) => { if (restartedAfter && pythonReady) showStatus($("status"), readyStatus); },
    gaveUp: () => { if (pythonReady) showStatus($("status"), readyStatus); }, // the numbers' worker draws them
  });
}

// ---- settings in, from sliders, buttons, the URL and window.pdsplit ----

function drawControls() {
  // The load slider reaches as far as the load charts go for these GPUs (and the load set).
  const rpsTop = Math.max(baked.load_top[String(settings.gpus)], Number(settings.rps));
  // With a trace, each request has its own prompt and reply: their sliders are set by it, and
  // say so with its medians (the simulator's words, once worked out for these settings).
  const traced = Traffic.traced(settings);
  const said = onScreen?.key === keyOf(settings) ? onScreen.shown : null;
  for (const f of lessonSliders) {
    const fixed = traced && (f.name === "prompt" || f.name === "reply");
    const words = fixed ? said?.[`settings.${f.name}`] ?? "set by the trace" : undefined;
    showControl(table, f, settings[f.name], f.name === "rps" ? rpsTop : undefined, words);
    if (f.name === "prompt" || f.name === "reply") movable(f, !fixed);
  }
  traffic.show(settings, said);
  explorer.show(settings);
  models.show(settings);
  if (pythonReady && explorer.open && shown("explorer")) models.capacity(settings);
  const further = explorer.changed(settings);
  put($("states-keep"), "hidden", !further);
  if (further) put($("states-keep"), "textContent", "These buttons set the lesson's six sliders and keep what Go further sets; its “Back to the lesson's toy” clears that.");
  // With more GPUs or chunks the goodput chart is the explorer's figure 5 (figures/README.md).
  put($("title-goodput"), "textContent", `${Number(settings.gpus) !== 2 || Number(settings.chunk) ? "Figure 5. " : ""}Goodput against load`);
}

/** The lesson's sliders (and its URL-only settings) of a state; the rest as they are now. @param {Record<string, number|string>} state */
function lessonPart(state) {
  const next = { ...settings };
  for (const f of table.fields) if (f.group === "lesson") next[f.name] = state[f.name];
  return next;
}

/**
 * Apply new settings everywhere; what was said of earlier settings gives way to `notices`.
 * @param {Record<string, number|string>} next @param {string[]} [notices]
 */
function change(next, notices = []) {
  const fitted = table.fit(next); // readers stay below gpus, on screen too
  const window = traffic.place(fitted.settings, settings); // and a trace's window within the trace
  settings = window.settings;
  const job = compute(); // first: the worker computes while this thread shows the change
  watch.change(); // its events are now the settings before's
  showNotices($("notices"), [...viewNotices, ...notices, ...[fitted.notice, window.notice].filter((n) => n !== null)]);
  showFurther();
  const params = new URLSearchParams(table.toQuery(traffic.asAsked(settings))); // (the requests asked for)
  for (const [name, value] of viewQuery) params.set(name, value);
  const search = params.toString();
  address.want(`${location.pathname}${search ? `?${search}` : ""}${location.hash}`);
  drawControls();
  dimIfSlow();
  refused = null; // said of the settings before
  if (gaveUp) showGaveUp();
  else if (!pythonReady && !drawBaked()) document.body.classList.add("stale");
  sayStatus();
  return job;
}

function buildControls() {
  for (const f of lessonSliders) {
    $("sliders").append(sliderRow(table, f, () => settings, (value) => change({ ...settings, [f.name]: value })));
  }
  // The lesson's states set its sliders and keep the explorer's settings (said under them
  // while any differs from the lesson's); the panel's questions set everything.
  stateButtons($("states"), baked.states.filter((s) => s.group === "lesson"), (state) => change(lessonPart(state)));
  // Opened, the panel's own numbers (DistServe's goodput, the best ratio) are worked out too.
  explorer.panel.addEventListener("toggle", () => {
    showFurther();
    if (!explorer.open) return;
    if (pythonReady) models.capacity(settings);
    compute();
    if (gaveUp || !pythonReady) drawBaked();
  });
}

// ---- in a course site's iframe: tell the parent page how tall the lesson is ----

if (window.parent !== window) {
  let told = 0;
  new ResizeObserver(() => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height !== told) window.parent.postMessage({ type: "pdsplit:height", height }, "*");
    told = height;
  }).observe(document.documentElement);
}

// ---- the theme: charts are drawn in the page's colours, so they follow it ----

/** Draw the charts on screen again in the colours of the theme now. */
function redrawCharts() {
  for (const [name, reply] of Object.entries(chartsOnScreen)) {
    showFigure(document.getElementById(`chart-${name}`), null, reply);
  }
  watch.repaint();
}

// A chart whose width changed (a phone turned, a window resized) is drawn again from scratch,
// at its new width (view.js: showFigure, force): the legend's place depends on the width (it
// wraps on a phone), and so do a log axis's labels (fitted). Once the width has held for
// WIDTH_HOLDS ms, since a window dragged wider changes it at every frame, and a chart's whole
// draw costs 10 to 35 ms. Not by Plotly.Plots.resize and then a draw: the draw waited for its
// promise, which Plotly keeps only once its own relayout has resolved (on a CI run a chart was
// once left with a phone's labels at a laptop's width).
const WIDTH_HOLDS = 100;
/** @type {WeakMap<Element, number>} */ const chartWidths = new WeakMap();
/** @type {WeakMap<Element, ReturnType<typeof setTimeout>>} */ const widthTimers = new WeakMap();
const resized = new ResizeObserver((entries) => {
  for (const { target, contentRect } of entries) {
    const before = chartWidths.get(target);
    chartWidths.set(target, contentRect.width);
    // (a chart hidden has no width: drawn when it shows again, at the width it then has)
    if (before === undefined || before === contentRect.width || contentRect.width === 0) continue;
    clearTimeout(widthTimers.get(target));
    widthTimers.set(target, setTimeout(() => {
      const reply = chartsOnScreen[target.id.slice("chart-".length)];
      if (reply) showFigure(/** @type {HTMLElement} */ (target), null, reply, true);
    }, WIDTH_HOLDS));
  }
});
for (const chart of document.querySelectorAll(".plot")) resized.observe(chart);

matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
  if (view.theme === "auto") redrawCharts();
});

// In a course site's frame, embed.js passes on the colours its author set on the host page.
addEventListener("message", (event) => {
  if (event.source !== window.parent || event.source === window || event.data?.type !== "pdsplit:colours") return;
  if (applyTheme(event.data.colours)) redrawCharts();
});

// ---- start ----

buildControls();
applyView();
showFurther();
drawControls();
if (!drawBaked(true)) document.body.classList.add("stale");
sayStatus();
loadStates();

/**
 * The named states' results beyond the defaults' (which index.html carries), from a file of
 * their own (build.py, write_states), so that index.html, fetched again on every visit, stays
 * small: kept by this browser like Python's big files (downloads.js), gzipped where the
 * browser can unpack it. Until it has come, a named state waits for Python like any other
 * settings; once it has, the current settings' baked result is shown if Python has not
 * shown its own. A file that cannot be had leaves every state to Python.
 */
async function loadStates() {
  const file = baked.states_file;
  if (!file) return;
  const url = new URL(typeof DecompressionStream === "function" ? file.packed : file.plain, location.href).href;
  /** @type {{name: string, compare: any, figures: Record<string, any>}[]} */ let found;
  try {
    const response = await download(url);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    found = JSON.parse(await new Response(await unpacked(response)).text());
    for (const full of found) {
      const state = baked.states.find((s) => s.name === full.name);
      if (state) Object.assign(state, { compare: full.compare, figures: full.figures });
    }
  } catch (e) {
    forget(url); // a kept copy that is wrong is not used again
    console.warn(`the named states' results could not be read (${url}): ${e}; Python works them out`);
    return;
  }
  dispatchEvent(new CustomEvent("pdsplit:states", { detail: { count: found.length } }));
  // The work for a named state opened from its URL was planned before its results came:
  // planned again, its charts and figures come from the build, not from minutes of Python.
  if (builtFor(keyOf(settings)) && !Object.keys(current.built).length) compute();
  if ((gaveUp || !pythonReady) && onScreen?.key !== keyOf(settings)) drawBaked(true);
}

/**
 * Once what the newest settings need is on screen ("numbers", or "charts": every chart and
 * figure); if the user moves on meanwhile, wait for the newer settings instead.
 * @param {"numbers"|"charts"} what
 */
async function untilShown(what) {
  for (;;) {
    const jobs = current;
    try {
      const value = what === "numbers" ? await jobs.numbers.numbers.promise : await jobs.settled.promise;
      if (jobs === current) return value;
    } catch (error) {
      if (jobs === current) throw error;
    }
  }
}

compute();
python.watch(watchers); // what already happened to the worker is said at once
// A file of one's own kept from an earlier visit: traffic=own goes on meaning it (each worker
// reads it back as it boots), or, without one, the lesson's traffic, said.
const restored = traffic.restore().then(({ missing }) => {
  const notices = [...opened.notices, ...(missing ? [missing] : [])];
  const next = missing ? { ...settings, traffic: "lesson" } : settings;
  // the window fitted to the file kept (its requests known now), the URL's notices kept too
  if (missing || keyOf(traffic.fit(next).settings) !== keyOf(settings)) change(next, notices);
  else drawControls();
});
const ready = python.ready().then(async () => {
  timings.pythonReady = performance.now();
  await bakedDrawn; // the baked charts come first
  await restored;
  numbersLane.start();
  if (explorer.open && shown("explorer")) models.capacity(settings);
  // The figures' worker boots once the first numbers are on screen, so that it does not
  // slow them down; the figures' lane waits for it.
  const onScreen = untilShown("numbers");
  onScreen.catch(() => {}).finally(async () => {
    await startFigureWorker();
    figuresLane.start();
  });
  return onScreen.then(() => undefined);
});
ready.catch(() => {}); // said on the page; callers of pdsplit.ready still see the failure

/**
 * Work out one of the findings that come in steps (DistServe's goodput, the best ratio, the
 * economics) for the current settings, a short piece at a time, beside the page's own requests.
 * @param {"rate"|"ratio"|"economics"} name @returns {Promise<any>}  the JSON of sim.rate / sim.ratio / sim.economics
 */
async function stepped(name) {
  await ready;
  const asked = { ...settings };
  for (let part = 0; ;) {
    const reply = await python.call("figure", { name, part, settings: asked });
    if ("figure" in reply) return reply.result;
    part = reply.next;
  }
}

/**
 * The contract for tests and course sites' CI.
 * @type {{ready: Promise<void>, settings: () => Record<string, number|string>, result: () => any,
 *         set: (partial: Record<string, unknown>) => Promise<any>, settled: () => Promise<void>,
 *         figure: (name: string) => any, rate: () => Promise<any>, ratio: () => Promise<any>,
 *         traffic: () => Promise<any>, loadTrace: (text: string) => Promise<any>,
 *         economics: () => Promise<any>, capacity: () => Promise<any>,
 *         watch: (layout: string, t0?: number, t1?: number) => Promise<any[]>,
 *         timings: typeof timings, shown: () => Record<string, string>,
 *         python: () => typeof workerInfo, memory: () => Promise<Record<string, number>>,
 *         version: string}}
 */
window.pdsplit = {
  version: baked.simulator, // the sim package's version (sim.__version__), for `python -m sim check`
  ready,
  settings: () => ({ ...settings }),
  result: () => structuredClone(onScreen?.result ?? null),
  shown: () => ({ ...(onScreen?.shown ?? {}) }),
  figure: (name) => structuredClone(figuresOnScreen[name] ?? null),
  python: () => (workerInfo ? { ...workerInfo } : null),
  rate: () => stepped("rate"),
  ratio: () => stepped("ratio"),
  async traffic() {
    await ready;
    return python.call("traffic", { settings: { ...settings } });
  },
  async watch(layout, t0, t1) {
    await ready;
    return (await python.call("watch", { layout, t0, t1, settings: { ...settings } })).events;
  },
  async loadTrace(text) {
    await ready;
    await traffic.pick(new Blob([String(text)], { type: "text/plain" }), "your trace");
    return python.call("traffic", { settings: { ...settings } });
  },
  economics: () => stepped("economics"), // sim.economics's JSON for settings()
  async capacity() { // sim.capacity's JSON for settings(): each pool's instances and their memory
    await ready;
    return (await python.call("capacity", { settings: { ...settings } })).capacity;
  },
  async memory() {
    const sizes = { numbers: (await python.call("memory")).bytes };
    const worker = figuresWorker();
    if (worker) sizes.figures = (await worker.call("memory")).bytes;
    return sizes;
  },
  timings,
  async set(partial) {
    const next = { ...settings };
    const notices = [];
    if ("requests" in partial) traffic.asked = null; // the caller's own requests, as asked
    for (const [name, raw] of Object.entries(partial)) {
      if (!table.byName.has(name)) throw new Error(`unknown setting ${JSON.stringify(name)}; known: ${[...table.byName.keys()].join(", ")}`);
      const { value, notice } = table.accept(name, raw);
      next[name] = value;
      if (notice) notices.push(notice);
    }
    const job = change(next, notices);
    await ready;
    return job.numbers.promise;
  },
  async settled() {
    await ready;
    await untilShown("charts");
    address.write(); // the address bar too, without waiting for its moment
  },
};
