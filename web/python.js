// The main thread's side of the worker boundary, messages {id, type, ...} answered by
// {id, result} or {id, error}, and a watch over the worker: one that dies (an error event),
// stops answering within a deadline, or fails to boot is ended and replaced by a new one.
// After MAX_FAILED_STARTS starts in a row that never answered, it gives up for good.

/** How long the worker may say nothing (ms) while it owes a request of each type before it
 * counts as stuck or closed: the longest of its open requests' (see PythonWorker.watchSilence).
 * The work behind each is bounded: a compare at the page's limits (6,000 requests) takes
 * about 0.15 s in Pyodide here, and a figure request does pieces for at most 2 s (latest.js:
 * RUN_ON, past which it stops at the end of its piece: one run, less than a compare), or draws a
 * figure from cached runs (at most about 0.5 s at 6,000 requests). Settings that may walk every
 * word of every reply (costs=roofline, memory=kv: 70B's replies on two A100s took a compare
 * 9 s) get these times their patience, which the worker tells before it begins
 * (sim/show/page.py: patience). */
export const DEADLINES = {
  compare: 5000,
  figure: 8000,
  help: 8000, // about 10 ms of a chart's points
  memory: 5000,
  share: 5000,
  traffic: 5000, // the summary of a window: a sort of its lengths
  // one layout's events in a window: its run recorded first, if not cached (natively 0.35 to
  // 0.6 s at 6,000 requests here; in the page 0.5 to 1.2 s for two layouts), then the
  // window's events (a few ms, up to about 0.1 s natively on an overloaded split)
  watch: 20000,
  // a file of one's own, read whole: about a second for each 10 MB here (the page reads up
  // to 50 MB), far more on a slow phone
  trace: 120000,
  // while booting, the worker answers "alive" at once unless something holds its thread:
  // Pyodide's longest step, starting Python without the snapshot, takes about a second here
  alive: 15000,
};
const ALIVE_EVERY = 2000; // ms between two "alive" questions while a worker boots
export const MAX_FAILED_STARTS = 3;

/**
 * The worker's script, with what it boots from: the build's JSON (index.html's and hub.html's
 * #pdsplit-python). worker.js sits beside this module.
 * @param {{version: string, wheel: string, pyodide: string, snapshot: string, bytes: number, states?: string}} config
 */
export function workerURL(config) {
  return new URL(`./worker.js?${new URLSearchParams({
    v: config.version, wheel: config.wheel, pyodide: config.pyodide, snapshot: config.snapshot, bytes: String(config.bytes),
    states: config.states ?? "",
  })}`, import.meta.url);
}

/** The worker was lost (ended, stuck, closed, or failed) before answering: ask again. */
export class WorkerLost extends Error {
  /** @param {string} reason */
  constructor(reason) {
    super(reason);
    this.retryable = true;
  }
}

/** The browser could not run the simulator: no more tries. */
export class PythonUnavailable extends Error {}

/** How long a page waits at most for its service worker (sw.js) before it starts the
 * simulator's worker without it (ms): the first visit's wait is one small file's download. */
const SERVICE_WORKER_WAIT = 3000;
/** @type {Promise<boolean>|null} */
let serviceWorker = null;

/**
 * Once this page is served by its service worker (sw.js: it unpacks the two big scripts,
 * Pyodide's JavaScript core and Plotly, from their gzipped copies), or cannot be: true if
 * it is. A worker made after it is served by it too. On a first visit it registers sw.js and waits for it to take the page
 * (at most SERVICE_WORKER_WAIT); where there are no service workers (a browser, a profile
 * or a host without them) or it fails, at once false, and the worker imports the plain
 * file, as before there was one.
 * @returns {Promise<boolean>}
 */
export function underServiceWorker() {
  serviceWorker ??= (async () => {
    const container = navigator.serviceWorker;
    if (!container || typeof DecompressionStream !== "function") return false;
    if (container.controller) return true;
    try {
      const registration = await container.register(new URL("./sw.js", import.meta.url), { type: "module" });
      const coming = registration.installing ?? registration.waiting;
      if (container.controller) return true;
      if (!coming) return false; // active, but not for this page (a reload that bypassed it)
      return await new Promise((resolve) => {
        container.addEventListener("controllerchange", () => resolve(true), { once: true });
        coming.addEventListener("statechange", () => coming.state === "redundant" && resolve(false));
        setTimeout(() => resolve(Boolean(container.controller)), SERVICE_WORKER_WAIT);
      });
    } catch {
      return false; // refused: no sw.js, an insecure origin, a blocked profile
    }
  })();
  return serviceWorker;
}

/** One worker, and the requests it has not answered yet. */
class PythonWorker {
  /** @param {URL} url @param {(reason: string) => void} onLost */
  constructor(url, onLost) {
    /** @type {Worker|null} made once the service worker serves this page, or cannot */
    this.worker = null;
    /** @type {[any, Transferable[]][]} what was sent before the worker was made */
    this.unsent = [];
    this.onLost = onLost;
    this.nextId = 1;
    this.booted = false;
    /** @type {string|null} */ this.lost = null;
    /** Each open request: how to settle it, its deadline (ms, 0: none), and what it is
     * allowed (its deadline times its patience, once the worker has told it).
     * @type {Map<number, {resolve: (v: any) => void, reject: (e: Error) => void, deadline: number, allow: number}>} */
    this.waiting = new Map();
    /** When the worker last said anything, or began to owe an answer (performance.now()). */
    this.heard = 0;
    /** @type {ReturnType<typeof setTimeout>|undefined} */ this.silence = undefined;
    /** @type {() => void} */ this.nowRunning = () => {};
    /** Settles once the worker runs (its first message), or was ended first. */
    this.running = new Promise((resolve) => { this.nowRunning = resolve; });
    underServiceWorker().then(() => this.begin(url));
  }

  /** Make the worker, and send it what was asked meanwhile. @param {URL} url */
  begin(url) {
    if (this.lost) return;
    this.worker = new Worker(url, { type: "module" });
    this.worker.onmessage = (event) => {
      const { id, result, error, fatal, patience } = event.data;
      this.nowRunning();
      this.heard = performance.now();
      const call = this.waiting.get(id);
      if (call && patience !== undefined && result === undefined && error === undefined) {
        call.allow = call.deadline * patience; // a heavy request, about to begin
      } else if (call) {
        this.waiting.delete(id);
        if (error === undefined) call.resolve(result);
        else call.reject(Object.assign(new Error(error), { fatal: Boolean(fatal) }));
      }
      this.watchSilence();
    };
    this.worker.onerror = (event) => {
      event.preventDefault?.();
      this.lose(`it failed (${event.message || "its script did not load"})`);
    };
    this.worker.onmessageerror = () => this.lose("one of its replies could not be read");
    for (const [message, transfer] of this.unsent) this.worker.postMessage(message, transfer);
    this.unsent = [];
  }

  /**
   * Ask the worker something; with a deadline in ms, silence that long loses the worker (watchSilence).
   * @param {string} type @param {Object} [body] @param {number} [deadline]
   * @param {Transferable[]} [transfer]  buffers in `body` to hand over rather than copy
   * @returns {Promise<any>}
   */
  call(type, body = {}, deadline = 0, transfer = []) {
    if (this.lost) return Promise.reject(new WorkerLost(this.lost));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (![...this.waiting.values()].some((call) => call.allow)) this.heard = performance.now();
      this.waiting.set(id, { resolve, reject, deadline, allow: deadline });
      this.watchSilence();
      if (this.worker) this.worker.postMessage({ id, type, ...body }, transfer);
      else this.unsent.push([{ id, type, ...body }, transfer]);
    });
  }

  /**
   * The watch over the worker: while it owes answers, it is lost once it has said nothing
   * for longer than the most any of them is allowed. Not each request on a clock of its own:
   * one waits in the worker while another runs, and a heavy request may run for minutes
   * (its patience), during which nothing else is heard.
   */
  watchSilence() {
    clearTimeout(this.silence);
    const allow = Math.max(0, ...[...this.waiting.values()].map((call) => call.allow));
    if (!allow || this.lost) return;
    this.silence = setTimeout(() => this.lose(`it gave no answer within ${Math.round(allow / 1000)} s`),
      Math.max(0, this.heard + allow - performance.now()));
  }

  /** End the worker; every open request fails with WorkerLost. @param {string} reason */
  end(reason) {
    if (this.lost) return false;
    this.lost = reason;
    this.nowRunning();
    this.worker?.terminate();
    this.unsent = [];
    clearTimeout(this.silence);
    for (const call of this.waiting.values()) call.reject(new WorkerLost(reason));
    this.waiting.clear();
    return true;
  }

  /** End the worker and tell the watch. @param {string} reason */
  lose(reason) {
    if (this.end(reason)) this.onLost(reason);
  }
}

/**
 * @typedef {Object} BootInfo
 * @property {string} python
 * @property {string} pyodide
 * @property {number} seconds  the worker's boot, from its start
 * @property {"snapshot"|"plain"} boot
 * @property {string|null} fallback  why the snapshot was not used
 * @property {string[]} kept  the files this browser had kept from an earlier visit
 *   (downloads.js), which were not downloaded again
 */

/**
 * @typedef {Object} Watchers
 * @property {(info: BootInfo, restartedAfter: string|null) => void} [ready]  a worker booted;
 *   restartedAfter says why the one before it was ended, if one was
 * @property {(reason: string) => void} [lost]  a worker was ended; a new one is starting
 * @property {(reason: string) => void} [gaveUp]  no more tries
 */

/**
 * @typedef {Object} BootRequest  what the worker's first request carries (see worker.js)
 * @property {Uint8Array} [snapshot]  the snapshot, unpacked, from another worker
 * @property {WebAssembly.Module} [wasm]  Pyodide's wasm, compiled, from another worker
 * @property {boolean} [keep]  keep them, for a "share" request
 */

/** The simulator in a worker, watched: requests wait for a booted worker. */
export class Python {
  /**
   * @param {URL} url  the module worker's script @param {Watchers} [watchers]
   * @param {BootRequest} [first]  for the first worker's boot (`keep` goes to every one)
   */
  constructor(url, watchers = {}, first = {}) {
    this.url = url;
    this.watchers = watchers;
    this.keep = Boolean(first.keep);
    /** @type {[BootInfo, string|null]|null} */ this.lastReady = null;
    this.failedStarts = 0; // starts in a row whose worker never answered a request
    this.answered = false;
    /** @type {string|null} */ this.gaveUp = null;
    /** @type {string|null} */ this.lostBecause = null;
    /** @type {PythonWorker} */ this.worker = this.start(first);
    /** @type {Promise<BootInfo>} */ this.booted = this.boot(this.worker, first);
    this.booted.catch(() => {}); // callers see it through ready() and call()
  }

  /**
   * Set what to tell of the workers' fates; what already happened is told at once (the
   * newest boot, or giving up), so watching may begin after the first worker has booted.
   * @param {Watchers} watchers
   */
  watch(watchers) {
    this.watchers = watchers;
    if (this.gaveUp) watchers.gaveUp?.(this.gaveUp);
    else if (this.lostBecause) watchers.lost?.(this.lostBecause);
    else if (this.lastReady) watchers.ready?.(...this.lastReady);
  }

  /**
   * A new worker. Unless it is to wait for another worker's snapshot and wasm, it boots as
   * soon as it starts (?boot=now), not when the boot request reaches it (see worker.js).
   * @param {BootRequest} request  the boot request it will be sent
   */
  start(request) {
    const url = new URL(this.url);
    if (!request.snapshot && !request.wasm) {
      url.searchParams.set("boot", "now");
      if (request.keep) url.searchParams.set("keep", "1");
    }
    const worker = new PythonWorker(url, (reason) => this.failed(worker, reason));
    this.answered = false;
    return worker;
  }

  /** @param {PythonWorker} worker @param {BootRequest} request @returns {Promise<BootInfo>} */
  async boot(worker, request) {
    // A worker whose thread is held (stuck) or that closed itself answers nothing at all.
    const alive = setInterval(() => worker.call("alive", {}, DEADLINES.alive).catch(() => {}), ALIVE_EVERY);
    try {
      const info = await worker.call("boot", request, 0, request.snapshot ? [request.snapshot.buffer] : []);
      worker.booted = true;
      this.lastReady = [info, this.lostBecause];
      this.watchers.ready?.(info, this.lostBecause);
      this.lostBecause = null;
      return info;
    } catch (error) {
      const e = /** @type {Error & {fatal?: boolean}} */ (error);
      if (!(e instanceof WorkerLost)) this.failed(worker, `it could not start Python (${e.message})`, Boolean(e.fatal));
      throw e;
    } finally {
      clearInterval(alive);
    }
  }

  /**
   * A worker failed: end it, and start another unless it is time to give up.
   * @param {PythonWorker} worker @param {string} reason @param {boolean} [fatal]
   */
  failed(worker, reason, fatal = false) {
    if (worker !== this.worker || this.gaveUp) return;
    worker.end(reason);
    if (!this.answered) this.failedStarts += 1;
    if (fatal || this.failedStarts >= MAX_FAILED_STARTS) {
      this.gaveUp = fatal || this.failedStarts === 1 ? reason : `${reason}, ${this.failedStarts} times in a row`;
      this.watchers.gaveUp?.(this.gaveUp);
      return;
    }
    this.lostBecause = reason;
    this.watchers.lost?.(reason);
    const request = { keep: this.keep };
    this.worker = this.start(request);
    this.booted = this.boot(this.worker, request);
    this.booted.catch(() => {}); // callers see it through call()
  }

  /** Once a worker has booted (the first, or a new one): its info. @returns {Promise<BootInfo>} */
  async ready() {
    for (;;) {
      if (this.gaveUp) throw new PythonUnavailable(this.gaveUp);
      const booted = this.booted;
      try {
        return await booted;
      } catch {
        if (booted === this.booted && !this.gaveUp) throw new Error("internal: a failed boot was not replaced");
      }
    }
  }

  /**
   * Ask the simulator. Rejects with WorkerLost if the worker was lost meanwhile (ask again:
   * the next request goes to a new one), with PythonUnavailable once it gave up, and with
   * the simulator's own message if it refused the request.
   * @param {string} type @param {Object} [body] @returns {Promise<any>}
   */
  async call(type, body = {}) {
    // A booted worker is asked at once, with no await before it, so that it computes while
    // the caller goes on in this turn (drawing the last reply); otherwise after its boot.
    let worker = this.worker;
    while (this.gaveUp || !worker.booted) { // a worker lost just after its boot is replaced by one yet to boot
      await this.ready();
      worker = this.worker;
    }
    try {
      const result = await worker.call(type, body, DEADLINES[/** @type {keyof DEADLINES} */ (type)] ?? 0);
      if (type === "compare" || type === "figure") {
        this.answered = true;
        this.failedStarts = 0;
      }
      return result;
    } catch (error) {
      const e = /** @type {Error & {fatal?: boolean}} */ (error);
      if (e.fatal) {
        this.failed(worker, `Python failed (${e.message})`);
        throw new WorkerLost(e.message);
      }
      throw e;
    }
  }
}
