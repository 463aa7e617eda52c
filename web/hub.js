// The hub of a course page (hub.html, a hidden frame that embed.js adds once per page): it owns
// the page's one simulator, watched and healed by python.js as a page's own is, and serves
// every piece of the page (hub-client.js) over the page's BroadcastChannel.
//
// Requests from different pieces reach the worker in the order they came, one at a time, and
// each is short: a compare at the page's limits takes about 0.15 s, and a figure comes in
// pieces of about 10 ms (sim.show.page's part/next). So a piece drawing a figure holds
// another's numbers back by a piece of work at most, never by a whole figure.

import { Python, PythonUnavailable, WorkerLost, workerURL } from "./python.js";
import { hubChannel, pieceChannel } from "./hub-client.js";

const hub = new URLSearchParams(location.search).get("hub") ?? "";
/** @type {{version: string, wheel: string, pyodide: string, snapshot: string, bytes: number, states?: string}} */
const config = JSON.parse(/** @type {HTMLElement} */ (document.getElementById("pdsplit-python")).textContent ?? "{}");

// Without BroadcastChannel (or an id) no piece could reach it: then it boots nothing, and each
// piece runs its own worker (hub-client.js's hubOf).
if (typeof BroadcastChannel === "function" && /^[\w-]{1,64}$/.test(hub)) serve();

function serve() {
  const inbox = new BroadcastChannel(hubChannel(hub));
  /** Each piece's channel, by its id. @type {Map<string, BroadcastChannel>} */
  const pieces = new Map();
  /** What befell the worker, as told to a piece that asks. @type {import("./hub-client.js").HubState} */
  let state = { state: "starting" };
  let workers = 0; // the workers booted so far: a piece tells a new one from the one before

  /** @param {string} piece */
  const channel = (piece) => {
    let found = pieces.get(piece);
    if (!found) {
      found = new BroadcastChannel(pieceChannel(hub, piece));
      pieces.set(piece, found);
    }
    return found;
  };
  /** A piece's channel may be closed by its "bye" while its request was worked on. @param {BroadcastChannel} to @param {any} message */
  const post = (to, message) => {
    try {
      to.postMessage(message);
    } catch {
      // that piece is gone
    }
  };
  /** Tell every piece. @param {import("./hub-client.js").HubState} told */
  const tellAll = (told) => {
    state = told;
    for (const piece of pieces.values()) post(piece, told);
  };

  const python = new Python(workerURL(config));
  python.watch({
    ready(info, restartedAfter) {
      workers += 1;
      tellAll({ state: "ready", info: { ...info, worker: workers }, restartedAfter });
      // a piece that comes later hears of this worker as new, not of the one before it
      state = { ...state, restartedAfter: null };
    },
    lost: (reason) => tellAll({ state: "lost", reason }),
    gaveUp: (reason) => tellAll({ state: "gaveUp", reason }),
  });

  inbox.onmessage = async (event) => {
    const { piece, hello, bye, id, type, body } = event.data ?? {};
    if (typeof piece !== "string") return;
    if (bye) {
      pieces.get(piece)?.close();
      pieces.delete(piece);
      return;
    }
    const reply = channel(piece);
    if (hello) { // the answer to "are you there?" is what befell the worker
      post(reply, state);
      return;
    }
    if (typeof id !== "number" || typeof type !== "string") return;
    try {
      post(reply, { id, result: await python.call(type, body ?? {}) });
    } catch (error) {
      const e = /** @type {Error} */ (error);
      post(reply, { id, error: e.message, lost: e instanceof WorkerLost, gaveUp: e instanceof PythonUnavailable });
    }
  };
}
