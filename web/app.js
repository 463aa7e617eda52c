// The page: settings (URL, sliders, buttons) -> the simulator in a worker -> the screen.
// Before Python is ready the page shows the results baked in at build time.
import { SettingsTable } from "./settings.js";
import { PythonWorker } from "./python.js";
import { Job, Latest } from "./latest.js";
import { showFigure, showNotices, showNumbers, showStatus, showTemplate } from "./view.js";

const FIGURES = ["goodput", "gap", "stall", "link", "prompt"]; // drawing order: main charts first
const MAIN_CHARTS = 2;

/** @type {{schema: any[], headline: string, wheel: string, pyodide: string, version: string, states: {name: string, label: string, settings: Record<string, number>, compare: any, figures: Record<string, any>}[]}} */
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

// ---- drawing ----

/** @param {any} message  a compare reply @param {string} source */
function drawNumbers(message, source) {
  showTemplate($("headline"), message.headline ?? baked.headline, message.shown);
  showNumbers($("results"), message.shown);
  document.body.classList.remove("stale");
  if (source === "python") showStatus($("status"), readyStatus); // clears an earlier refusal
  onScreen = { result: message.result, shown: message.shown };
  if (Number.isNaN(timings.firstNumbers)) timings.firstNumbers = performance.now();
  dispatchEvent(new CustomEvent("pdsplit:numbers", { detail: { key: table.key(settings), source } }));
}

/** @param {string} name @param {any} reply @param {string} source */
function drawFigure(name, reply, source) {
  showFigure($(`chart-${name}`), document.getElementById(`caption-${name}`), reply);
  $(`chart-${name}`).classList.remove("pending");
  figuresOnScreen[name] = reply;
  const index = FIGURES.indexOf(name);
  const key = table.key(settings);
  if (index === MAIN_CHARTS - 1) dispatchEvent(new CustomEvent("pdsplit:charts", { detail: { key, source } }));
  if (index === FIGURES.length - 1) {
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
  for (const name of FIGURES) drawFigure(name, state.figures[name], "baked");
  return true;
}

// ---- the worker ----

const workerQuery = new URLSearchParams({ v: baked.version, wheel: baked.wheel, pyodide: baked.pyodide });
const worker = new PythonWorker(new URL(`./worker.js?${workerQuery}`, import.meta.url));
const latest = new Latest((type, body) => worker.call(type, body), {
  numbers: (job, reply) => drawNumbers(reply, "python"),
  figure: (job, name, reply) => drawFigure(name, reply, "python"),
  failed: (job, error) => {
    document.body.classList.add("stale"); // the numbers shown are for other settings
    showStatus($("status"), `The simulator refused these settings: ${error.message}`, "error");
  },
});

function compute() {
  return latest.want(new Job({ ...settings }, table.key(settings), FIGURES));
}

// ---- settings in, from sliders, buttons, the URL and window.pdsplit ----

function drawControls() {
  for (const f of table.fields) {
    if (!f.slider || f.group !== "lesson") continue; // the explorer's controls are its own panel
    const slider = /** @type {HTMLInputElement} */ ($(`slider-${f.name}`));
    slider.value = String(table.sliderIndex(f.name, settings[f.name]));
    const text = table.show(f.name, settings[f.name]);
    slider.setAttribute("aria-valuetext", text);
    $(`value-${f.name}`).textContent = text;
  }
}

/**
 * Apply new settings everywhere; what was said of earlier settings gives way to `notices`.
 * @param {Record<string, number>} next @param {string[]} [notices]
 */
function change(next, notices = []) {
  settings = next;
  showNotices($("notices"), notices);
  history.replaceState(null, "", `${location.pathname}${table.toQuery(settings)}${location.hash}`);
  drawControls();
  for (const name of FIGURES) $(`chart-${name}`).classList.add("pending"); // until redrawn
  if (!pythonReady && !drawBaked()) {
    document.body.classList.add("stale");
    showStatus($("status"), "Python is still starting: the numbers shown are for an earlier setting; yours follow as soon as it is ready.", "busy");
  }
  return compute();
}

function buildControls() {
  const sliders = $("sliders");
  for (const f of table.fields) {
    if (!f.slider || f.group !== "lesson") continue; // the explorer's controls are its own panel
    const row = document.createElement("div");
    row.className = "slider";
    row.innerHTML = `<div class="head"><label for="slider-${f.name}"></label><output id="value-${f.name}" for="slider-${f.name}" data-setting="${f.name}" data-metric="settings.${f.name}"></output></div>` +
      `<button type="button" class="step" data-step="-1">−</button>` +
      `<input type="range" id="slider-${f.name}" min="0" max="${f.slider.length - 1}" step="1">` +
      `<button type="button" class="step" data-step="1">+</button>`;
    /** @type {HTMLElement} */ (row.querySelector("label")).textContent = f.label;
    /** @type {HTMLElement} */ (row.querySelector("label")).title = f.help;
    const slider = /** @type {HTMLInputElement} */ (row.querySelector("input"));
    const stops = /** @type {number[]} */ (f.slider);
    slider.addEventListener("input", () => change({ ...settings, [f.name]: stops[Number(slider.value)] }));
    for (const button of row.querySelectorAll("button.step")) {
      const step = Number(/** @type {HTMLElement} */ (button).dataset.step);
      button.setAttribute("aria-label", `${step < 0 ? "Lower" : "Raise"} ${f.label.toLowerCase()} one stop`);
      button.addEventListener("click", () => {
        const index = Math.min(stops.length - 1, Math.max(0, table.sliderIndex(f.name, settings[f.name]) + step));
        if (stops[index] !== settings[f.name]) change({ ...settings, [f.name]: stops[index] });
      });
    }
    sliders.append(row);
  }
  const buttons = $("states");
  for (const state of baked.states) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = state.label;
    button.addEventListener("click", () => change({ ...state.settings }));
    buttons.append(button);
  }
  const reset = document.createElement("button");
  reset.type = "button";
  reset.textContent = "Reset";
  reset.className = "reset";
  reset.addEventListener("click", () => change(table.defaults()));
  buttons.append(reset);
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
 * The contract for tests and course sites' CI.
 * @type {{ready: Promise<void>, settings: () => Record<string, number>, result: () => any,
 *         set: (partial: Record<string, unknown>) => Promise<any>, settled: () => Promise<void>,
 *         figure: (name: string) => any, timings: typeof timings}}
 */
window.pdsplit = {
  ready,
  settings: () => ({ ...settings }),
  result: () => structuredClone(onScreen?.result ?? null),
  shown: () => ({ ...(onScreen?.shown ?? {}) }),
  figure: (name) => structuredClone(figuresOnScreen[name] ?? null),
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
