// The page's service worker: it unpacks the two big scripts as they arrive, and keeps them.
//
// Pyodide's JavaScript core (pyodide.asm.mjs, which the simulator's worker imports) is
// 1.25 MB, and Plotly 1.2 MB: a fifth of a phone's first visit. Gzipped, beside them, they
// are 0.26 and 0.4 MB. The worker can unpack the big files it reads as data (downloads.js),
// but a script runs only from a URL whose answer is the script itself: the strict CSP
// allows no blob: URL and no eval. So on a host that compresses nothing, only this can
// unpack them: asked for the script, it answers with its .gz unpacked.
//
// - Every other request, and these where the .gz cannot be had or unpacked, goes to the
//   network as if there were no service worker.
// - What it unpacked is kept as the big files are (downloads.js, `made`), so that a second
//   visit, or the next lesson on the same site, has it from disk, and the browser can keep
//   it compiled. Its URL names its content (Pyodide's version is its folder; Plotly's has
//   the build's ?v=), so a kept copy is never stale, and the worker deletes an older
//   build's once a new one has booted (downloads.js, `tidy`).
// - The page works without it, as before it (python.js: a browser without service workers,
//   a host that serves no sw.js, a profile that blocks them): the plain files are fetched.
import { made, unpacked } from "./downloads.js";

/** The files served from their gzipped copy beside them (`<name>.gz`), by name: Pyodide's
 * JavaScript core, and Plotly (1.2 MB, 0.4 gzipped), which start.js asks for once this
 * serves the page. */
const PACKED = ["pyodide.asm.mjs", "plotly-basic.min.js"];

self.addEventListener("install", (event) => {
  self.skipWaiting();
  // Where the browser can route without it (Static Routing API), every other request goes
  // straight to the network: this worker is not even started for a page's load.
  if (typeof event.addRoutes === "function" && typeof URLPattern === "function") {
    event.waitUntil(event.addRoutes([
      ...PACKED.map((name) => ({ condition: { urlPattern: new URLPattern({ pathname: `*/${name}` }) }, source: "fetch-event" })),
      { condition: { urlPattern: new URLPattern({}) }, source: "network" },
    ]).catch(() => {})); // refused: the fetch handler below lets them by all the same
  }
});
// the page that registered it is served from its first visit on (python.js waits for that)
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || !PACKED.includes(url.pathname.split("/").pop() ?? "")) return;
  event.respondWith(made(url.href, () => fromPacked(url)).catch(() => fetch(event.request)));
});

/**
 * The file at `url`, from its gzipped copy, unpacked whole before it is answered (a module
 * runs only once whole anyway): a copy that is missing, cut short or corrupt rejects, and
 * the plain file is fetched instead.
 * @param {URL} url @returns {Promise<Response>}
 */
async function fromPacked(url) {
  const packed = new URL(url);
  packed.pathname += ".gz"; // the same ?v=
  const response = await fetch(packed);
  if (!response.ok) throw new Error(`${packed.pathname}: HTTP ${response.status}`);
  const script = await new Response(await unpacked(response)).arrayBuffer();
  return new Response(script, { headers: { "Content-Type": "text/javascript; charset=utf-8" } });
}
