// Starts the simulator's worker as early as the page allows: index.html loads this module
// `async` in its head, before the page's own drawing holds the main thread, so Pyodide boots
// while the page loads. app.js imports the same module (the same URL), so there is one
// worker. Its settings come from the JSON the build put in the head.
//
// Then Plotly, which index.html only names: it is fetched and run once the worker runs.
// - Run as soon as it arrived, its 1.2 MB of script held a phone's main thread (CPU 4x
//   slower) for most of a second before this module could make the worker, whose start
//   needs a turn of that thread: on a second visit, the worker started at 1.0 to 1.4 s;
//   with Plotly after it, at 0.5 s.
// - Fetched once the page's service worker serves it (python.js waits for that before it
//   makes the worker), it comes gzipped (0.4 MB) even on a first visit, and from the
//   browser's disk after (sw.js).
//
// A piece of a course page that embed.js gave a hub (?hub=) starts no worker: it asks the
// page's one simulator, in the hub's frame (hub-client.js), unless that proves missing.
import { Python, workerURL as workerOf } from "./python.js";
import { SharedPython, hubOf } from "./hub-client.js";

/** @type {{version: string, wheel: string, pyodide: string, snapshot: string, bytes: number, states?: string}} */
const config = JSON.parse(/** @type {HTMLElement} */ (document.getElementById("pdsplit-python")).textContent ?? "{}");

/** The worker's script, with what it boots from. */
export const workerURL = workerOf(config);

/**
 * Whether a second worker computes the lesson's figures, once it has helped with the main
 * charts' points (help.js): where the device has 4 cores or more. Measured on 2 cores, it
 * did not pay: figures computed alongside slowed the main charts (the main thread draws, and a core each is all
 * there is), and computed after them they took as long as in the first worker. Never for a
 * piece of a course page (?embed=1): it shows a chart or two, and its page's other pieces
 * share its Python (or each has its own, where there is no hub).
 */
export const figureWorker = (navigator.hardwareConcurrency ?? 1) >= 4 &&
  new URLSearchParams(location.search).get("embed") !== "1";

const hub = hubOf(location.search);

/** The simulator for the numbers and the two main charts. It keeps its snapshot and compiled
 * wasm for the figures' worker, which then downloads neither. */
export const python = hub
  ? new SharedPython(hub, () => new Python(workerURL))
  : new Python(workerURL, {}, { keep: figureWorker });

/** Run Plotly's script, which index.html names (meta pdsplit:plotly), once. */
function runPlotly() {
  const named = /** @type {HTMLMetaElement|null} */ (document.querySelector('meta[name="pdsplit:plotly"]'));
  if (!named || document.getElementById("plotly-script")) return;
  const script = document.createElement("script");
  script.id = "plotly-script"; // view.js's plotlyCame waits for its load
  script.src = new URL(named.content, document.baseURI).href;
  document.head.append(script);
}

(python instanceof Python ? python.worker.running : Promise.resolve()).then(runPlotly);
