// A piece's side of the hub: one Python for every piece of a course page (docs/course-sites.md:
// "What a page with N pieces costs: one Python, shared"). embed.js adds one hidden frame, hub.html, from the pieces' own
// origin, and gives each piece the hub's id (?hub=). The hub owns the worker; the pieces talk
// to it over a BroadcastChannel named after that id, which only same-origin frames under the
// same top-level page share (storage partitioning), so two course pages in two tabs never do.
//
// Each request carries the piece's id, and the hub answers on the piece's own channel: a
// piece hears only its own replies, so it never sees another piece's numbers. The hub says
// on every piece's channel what befalls its worker (ready, lost, given up), so each piece
// tells its reader, as it would of a worker of its own.
//
// SharedPython has the face of python.js's Python (call, ready, watch), so app.js does not
// know which it has. If the hub never answers (its page did not load, a host removed it), the
// piece starts a worker of its own, exactly as a piece without a hub does.

import { PythonUnavailable, WorkerLost } from "./python.js";

/** The channel every piece sends on, the hub listens on. @param {string} hub */
export const hubChannel = (hub) => `pdsplit-hub:${hub}`;
/** The channel the hub answers one piece on. @param {string} hub @param {string} piece */
export const pieceChannel = (hub, piece) => `pdsplit-hub:${hub}:${piece}`;

/** ms between two questions to the hub: often while it has not answered yet (it may still be
 * loading), then only to hear that it is still there. */
const HELLO_EVERY = 250;
const PING_EVERY = 2000;
/** ms without an answer after which the hub counts as missing: its page is a few kB and it
 * answers from its main thread, which runs nothing long (the Python is in its worker). */
export const HUB_SILENT = 10000;

/**
 * The hub's id from a piece's URL, if it is to use one: a piece of a course page (?embed=1)
 * that embed.js gave a hub, in a browser with BroadcastChannel. Otherwise null: the piece
 * runs its own worker, as a page opened alone does.
 * @param {string} search
 */
export function hubOf(search) {
  const query = new URLSearchParams(search);
  const hub = query.get("hub");
  if (query.get("embed") !== "1" || !hub || !/^[\w-]{1,64}$/.test(hub)) return null;
  return typeof BroadcastChannel === "function" ? hub : null;
}

/**
 * @typedef {{state: "starting"} | {state: "ready", info: import("./python.js").BootInfo & {worker: number}, restartedAfter: string|null}
 *   | {state: "lost", reason: string} | {state: "gaveUp", reason: string}} HubState
 */

/** The simulator of a course page's hub, or the piece's own once the hub is missing. */
export class SharedPython {
  /**
   * @param {string} hub  the hub's id
   * @param {() => import("./python.js").Python} own  a worker of the piece's own, if need be
   */
  constructor(hub, own) {
    this.hub = hub;
    this.makeOwn = own;
    this.piece = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
    /** @type {import("./python.js").Python|null} */ this.own = null;
    /** @type {import("./python.js").Watchers} */ this.watchers = {};
    this.keep = false; // app.js's switch for a figures' worker, which a piece never has
    /** @type {HubState["state"]} */ this.state = "starting";
    /** @type {any} */ this.info = null;
    /** @type {[any, string|null]|null} */ this.lastReady = null;
    /** @type {string|null} */ this.lostBecause = null;
    /** @type {string|null} */ this.gaveUp = null;
    this.nextId = 1;
    /** @type {Map<number, {resolve: (v: any) => void, reject: (e: Error) => void}>} */
    this.waiting = new Map();
    this.booted = this.newBoot();
    this.heard = false; // the hub has answered once
    this.asked = performance.now(); // when the question not answered yet was asked
    this.answered = true;
    this.send = new BroadcastChannel(hubChannel(hub));
    this.replies = new BroadcastChannel(pieceChannel(hub, this.piece));
    this.replies.onmessage = (event) => this.hear(event.data);
    this.tick();
    // A piece that goes away (its frame removed, its page left) frees its place at the hub.
    addEventListener("pagehide", () => { if (!this.own) this.send.postMessage({ piece: this.piece, bye: true }); });
  }

  /** A promise of the next boot, and its settling. */
  newBoot() {
    /** @type {{promise: Promise<any>, resolve: (v: any) => void, reject: (e: Error) => void}} */
    const boot = /** @type {any} */ ({});
    boot.promise = new Promise((resolve, reject) => { boot.resolve = resolve; boot.reject = reject; });
    boot.promise.catch(() => {}); // callers see it through ready() and call()
    return boot;
  }

  /** Ask the hub whether it is there; if the last question went unanswered too long, it is not. */
  tick() {
    if (this.own) return;
    const now = performance.now();
    // Judged from a question this very tick asked earlier: a tab in the background runs its
    // timers as rarely as once a minute, and that is no silence of the hub's.
    if (!this.answered && now - this.asked > HUB_SILENT) {
      this.alone(`the page's shared simulator gave no answer within ${HUB_SILENT / 1000} s`);
      return;
    }
    if (this.answered) {
      this.answered = false;
      this.asked = now;
    }
    this.send.postMessage({ piece: this.piece, hello: true });
    setTimeout(() => this.tick(), this.heard ? PING_EVERY : HELLO_EVERY);
  }

  /** A message from the hub, on this piece's own channel. @param {any} message */
  hear(message) {
    if (this.own) return;
    this.heard = true;
    this.answered = true;
    if (typeof message.id === "number") {
      const call = this.waiting.get(message.id);
      if (!call) return;
      this.waiting.delete(message.id);
      if (!("error" in message)) call.resolve(message.result);
      else if (message.gaveUp) call.reject(new PythonUnavailable(message.error));
      else if (message.lost) call.reject(new WorkerLost(message.error));
      else call.reject(new Error(message.error));
      return;
    }
    if (message.state) this.follow(/** @type {HubState} */ (message));
  }

  /** What befell the hub's worker, told once each. @param {HubState} told */
  follow(told) {
    if (told.state === "ready") {
      if (this.state === "ready" && this.info?.worker === told.info.worker) return;
      this.state = "ready";
      this.info = { ...told.info, hub: this.hub };
      this.lastReady = [this.info, told.restartedAfter];
      this.lostBecause = null;
      this.booted.resolve(this.info);
      this.watchers.ready?.(this.info, told.restartedAfter);
    } else if (told.state === "lost") {
      if (this.state === "lost" || this.state === "gaveUp") return;
      if (this.state === "ready") this.booted = this.newBoot();
      this.state = "lost";
      this.lostBecause = told.reason;
      this.watchers.lost?.(told.reason);
    } else if (told.state === "gaveUp") {
      if (this.state === "gaveUp") return;
      this.state = "gaveUp";
      this.gaveUp = told.reason;
      if (this.booted) this.booted.reject(new PythonUnavailable(told.reason));
      this.watchers.gaveUp?.(told.reason);
    }
  }

  /**
   * The hub is missing: from now on this piece has a worker of its own. Requests still open
   * fail as a lost worker's do, and go again to the new one. @param {string} reason
   */
  alone(reason) {
    this.own = this.makeOwn();
    this.send.close();
    this.replies.close();
    for (const call of this.waiting.values()) call.reject(new WorkerLost(reason));
    this.waiting.clear();
    const before = this.state;
    this.booted.resolve(null); // ready() then waits for the own worker
    // Said as a lost worker is, once the hub had been heard from; a hub never heard from
    // is simply not there, and the piece starts as it would alone.
    const watchers = this.watchers;
    this.watchers = {};
    this.lostBecause = before === "starting" ? null : reason;
    if (this.lostBecause) watchers.lost?.(reason);
    const restartedAfter = this.lostBecause;
    this.own.watch({
      ...watchers,
      ready: (info, after) => watchers.ready?.({ ...info, hub: null }, after ?? restartedAfter),
    });
  }

  /** @param {import("./python.js").Watchers} watchers  as Python's: what happened is told at once */
  watch(watchers) {
    if (this.own) {
      this.own.watch(watchers);
      return;
    }
    this.watchers = watchers;
    if (this.gaveUp) watchers.gaveUp?.(this.gaveUp);
    else if (this.lostBecause) watchers.lost?.(this.lostBecause);
    else if (this.lastReady) watchers.ready?.(...this.lastReady);
  }

  /** Once the hub's worker (or the piece's own) has booted: its info. */
  async ready() {
    for (;;) {
      if (this.own) return this.own.ready();
      if (this.gaveUp) throw new PythonUnavailable(this.gaveUp);
      const info = await this.booted.promise;
      if (info && this.state === "ready") return info;
    }
  }

  /**
   * Ask the simulator, as Python.call does: WorkerLost if the worker was lost meanwhile (ask
   * again), PythonUnavailable once it gave up, else the simulator's own refusal.
   * @param {string} type @param {Object} [body] @returns {Promise<any>}
   */
  async call(type, body = {}) {
    // Sent at once when the hub's worker is ready (no await before it), so that it computes
    // while this piece goes on drawing; else once it is.
    if (this.own || this.gaveUp || this.state !== "ready") await this.ready();
    if (this.own) return this.own.call(type, body);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.send.postMessage({ piece: this.piece, id, type, body });
    });
  }
}
