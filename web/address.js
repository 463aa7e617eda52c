// The address bar follows the settings a moment after they stop changing, not at every change:
// - writing it costs the browser ~10 ms of work (its session history, a devtools event) in the
//   very moment the worker works out the new numbers; on 2 cores that slowed them by a third
//   (docs/course-sites.md: "The whole page in one frame, by hand");
// - Safari refuses more than 100 writes in 30 s with a SecurityError, and a dragged slider
//   makes that many changes in seconds. Writes come at least `after` ms apart, so at most 100
//   in 30 s; one refused is written again later, and the newest address is never lost.
// `pdsplit.settled()` writes a waiting address at once, and so does a page being hidden.

const RETRY = 5000; // ms: after a refusal, when to write again

export class Address {
  /** @param {number} after  ms without a change before the address is written */
  constructor(after) {
    this.after = after;
    /** @type {string|null} */ this.waiting = null; // the address to write, if not written yet
    /** @type {ReturnType<typeof setTimeout>|null} */ this.timer = null;
    addEventListener("pagehide", () => this.write());
    document.addEventListener("visibilitychange", () => { if (document.hidden) this.write(); });
  }

  /** The address for the settings now, written once nothing changed for `after` ms. @param {string} url */
  want(url) {
    this.waiting = url;
    this.later(this.after);
  }

  /** @param {number} ms */
  later(ms) {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.write(), ms);
  }

  /** Write the waiting address now, if there is one. */
  write() {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.waiting === null) return;
    try {
      history.replaceState(null, "", this.waiting);
      this.waiting = null;
    } catch (error) { // Safari's limit: the address waits, and is written when it allows
      console.warn(`pdsplit: the address bar could not follow the settings yet (${error}); it will`);
      this.later(RETRY);
    }
  }
}
