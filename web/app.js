// The page: settings (URL, sliders, buttons) -> the simulator in a worker -> the screen.
// Before Python is ready the page shows the results baked in at build time.
import { SettingsTable } from "./settings.js";
import { PythonWorker } from "./python.js";
import { Job, Latest } from "./latest.js";
import { showFigure, showNotices, showNumbers, showStatus, showTemplate } from "./view.js";
import { showControl, sliderRow, stateButtons } from "./controls.js";
import { Explorer } from "./explorer.js";

// Drawing order: the two main charts first; with the explorer's panel open, DistServe's
// goodput next and its best-ratio chart last (the longest to work out).
const LESSON_FIGURES = ["goodput", "gap", "stall", "link", "prompt"];
const EXPLORER_FIGURES = ["goodput", "gap", "rate", "stall", "link", "prompt", "ratio"];
const MAIN_CHARTS = 2;

/** @type {{schema: any[], headline: string, wheel: string, pyodide: string, version: string, states: {name: string, label: string, group: string, settings: Record<string, number|string>, compare: any, figures: Record<string, any>}[]}} */
const baked = JSON.parse(/** @type {HTMLElement} */ (document.getElementById("pdsplit-baked")).textContent ?? "{}");
const table = new SettingsTable(baked.schema);
const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

const timings = { firstNumbers: NaN, pythonReady: NaN };
let pythonReady = false;
let readyStatus = ""; // what the status line says once Python is up
/** @type {{result: any, shown: Record<string, string>}|null} */ let onScreen = null;
/** @type {Record<string, any>} */ const figuresOnScreen = {};

const opened = table.fromQuery(location.search);
let settings = opened.settings;
showNotices($("notices"), opened.notices);
const explorer = new Explorer(table, {
  panel: /** @type {HTMLDetailsElement} */ ($("explorer")), controls: $("explorer-controls"),
  states: $("explorer-states"),
}, baked.states.filter((s) => s.group === "explorer"), () => settings, (next) => change(next));
const query = new URLSearchParams(location.search);
explorer.panel.open = explorer.fields.some((f) => query.has(f.name)); // a URL that sets one opens it

/** The figures worked out for the page as it is: the explorer's only while its panel is open. */
function figures() {
  return explorer.open ? EXPLORER_FIGURES : LESSON_FIGURES;
}

// ---- drawing ----

/** @param {any} message  a compare reply @param {string} source */
function drawNumbers(message, source) {
  showTemplate($("headline"), message.headline ?? baked.headline, message.shown);
  showNumbers($("results"), message.shown);
  document.body.classList.toggle("has-chunked", "chunked" in message.result); // a third column
  document.body.classList.remove("stale");
  if (source === "python") showStatus($("status"), readyStatus); // clears an earlier refusal
  onScreen = { result: message.result, shown: message.shown };
  if (Number.isNaN(timings.firstNumbers)) timings.firstNumbers = performance.now();
  dispatchEvent(new CustomEvent("pdsplit:numbers", { detail: { key: table.key(settings), source } }));
}

/** @param {string} name @param {any} reply @param {string} source @param {string[]} order */
function drawFigure(name, reply, source, order) {
  const chart = document.getElementById(`chart-${name}`); // DistServe's goodput has no chart
  showFigure(chart, document.getElementById(`caption-${name}`), reply);
  chart?.classList.remove("pending");
  figuresOnScreen[name] = reply;
  const index = order.indexOf(name);
  const key = table.key(settings);
  if (index === MAIN_CHARTS - 1) dispatchEvent(new CustomEvent("pdsplit:charts", { detail: { key, source } }));
  if (index === order.length - 1) {
    // Screen readers hear the headline once the page has settled, not at every stop of a drag.
    $("announce").textContent = $("headline").textContent;
    dispatchEvent(new CustomEvent("pdsplit:settled", { detail: { key, source } }));
  }
}

/** Show the baked result for the current settings, if the build made one. */
function drawBaked() {
  const state = baked.states.find((s) => table.key(s.settings) === table.key(settings));
  if (!state) return false;
  drawNumbers(state.compare, "baked");
  const order = figures();
  for (const name of order) drawFigure(name, state.figures[name], "baked", order);
  return true;
}

// ---- the worker ----

const workerQuery = new URLSearchParams({ v: baked.version, wheel: baked.wheel, pyodide: baked.pyodide });
const worker = new PythonWorker(new URL(`./worker.js?${workerQuery}`, import.meta.url));
const latest = new Latest((type, body) => worker.call(type, body), {
  numbers: (job, reply) => drawNumbers(reply, "python"),
  figure: (job, name, reply) => drawFigure(name, reply, "python", job.figures),
  failed: (job, error) => {
    document.body.classList.add("stale"); // the numbers shown are for other settings
    showStatus($("status"), `The simulator refused these settings: ${error.message}`, "error");
  },
});

function compute() {
  return latest.want(new Job({ ...settings }, table.key(settings), figures()));
}

// ---- settings in, from sliders, buttons, the URL and window.pdsplit ----

/** The lesson's sliders: the settings with a slider that are not the explorer's. */
const lessonSliders = table.fields.filter((f) => f.slider && f.group === "lesson");

function drawControls() {
  for (const f of lessonSliders) showControl(table, f, settings[f.name]);
  explorer.show(settings);
}

/**
 * Apply new settings everywhere; what was said of earlier settings gives way to `notices`.
 * @param {Record<string, number|string>} next @param {string[]} [notices]
 */
function change(next, notices = []) {
  const fitted = table.fit(next); // readers stay below gpus, on screen too
  settings = fitted.settings;
  showNotices($("notices"), fitted.notice ? [...notices, fitted.notice] : notices);
  history.replaceState(null, "", `${location.pathname}${table.toQuery(settings)}${location.hash}`);
  drawControls();
  for (const name of figures()) document.getElementById(`chart-${name}`)?.classList.add("pending"); // until redrawn
  if (!pythonReady && !drawBaked()) {
    document.body.classList.add("stale");
    showStatus($("status"), "Python is still starting: the numbers shown are for an earlier setting; yours follow as soon as it is ready.", "busy");
  }
  return compute();
}

function buildControls() {
  for (const f of lessonSliders) {
    $("sliders").append(sliderRow(table, f, () => settings, (value) => change({ ...settings, [f.name]: value })));
  }
  const buttons = $("states");
  stateButtons(buttons, baked.states.filter((s) => s.group === "lesson"), (next) => change(next));
  const reset = document.createElement("button");
  reset.type = "button";
  reset.textContent = "Reset";
  reset.className = "reset";
  reset.addEventListener("click", () => change(table.defaults()));
  buttons.append(reset);
  // Opened, the panel's own numbers (DistServe's goodput, the best ratio) are worked out too.
  explorer.panel.addEventListener("toggle", () => {
    if (!explorer.open) return;
    if (!pythonReady) drawBaked();
    compute();
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

// ---- start ----

buildControls();
drawControls();
if (!drawBaked()) {
  document.body.classList.add("stale");
  showStatus($("status"), "Python is starting in your browser; the numbers for these settings follow as soon as it is ready.", "busy");
}

/**
 * Once what the newest settings need is on screen; if the user moves on meanwhile, wait
 * for the newer settings instead. @param {"numbers"|"charts"} what
 */
async function untilShown(what) {
  for (;;) {
    const job = /** @type {Job} */ (latest.job);
    try {
      const value = await job[what].promise;
      if (job === latest.job) return value;
    } catch (error) {
      if (job === latest.job) throw error;
    }
  }
}

compute();
const ready = worker.call("boot").then((info) => {
  pythonReady = true;
  timings.pythonReady = performance.now();
  readyStatus = `Python ${info.python} (Pyodide ${info.pyodide}) ready in ${info.seconds.toFixed(1)} s: every number here is now computed in your browser.`;
  showStatus($("status"), readyStatus);
  latest.start();
  return untilShown("numbers").then(() => undefined);
}, (error) => {
  showStatus($("status"), `Python could not start (${error.message}); the numbers shown are the ones baked in when the page was built.`, "error");
  throw error;
});
ready.catch(() => {}); // said on the page; callers of pdsplit.ready still see the failure

/**
 * Work out one of the findings that come in steps (DistServe's goodput, the best ratio) for
 * the current settings, a short piece at a time, beside the page's own requests.
 * @param {"rate"|"ratio"} name @returns {Promise<any>}  the JSON of sim.rate / sim.ratio
 */
async function stepped(name) {
  await ready;
  const asked = { ...settings };
  for (let part = 0; ;) {
    const reply = await worker.call("figure", { name, part, settings: asked });
    if ("figure" in reply) return reply.result;
    part = reply.next;
  }
}

/**
 * The contract for tests and course sites' CI.
 * @type {{ready: Promise<void>, settings: () => Record<string, number|string>, result: () => any,
 *         set: (partial: Record<string, unknown>) => Promise<any>, settled: () => Promise<void>,
 *         figure: (name: string) => any, rate: () => Promise<any>, ratio: () => Promise<any>,
 *         timings: typeof timings}}
 */
window.pdsplit = {
  ready,
  settings: () => ({ ...settings }),
  result: () => structuredClone(onScreen?.result ?? null),
  shown: () => ({ ...(onScreen?.shown ?? {}) }),
  figure: (name) => structuredClone(figuresOnScreen[name] ?? null),
  rate: () => stepped("rate"),
  ratio: () => stepped("ratio"),
  timings,
  async set(partial) {
    const next = { ...settings };
    const notices = [];
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
  },
};
