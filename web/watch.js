// The "Watch it run" section, beside figure 1: the GPUs of every layout on one clock, played
// event by event. Every event drawn is one of sim.watch's for the settings on screen (the page
// boundary's "watch" request, through the worker); every count and gap at the playhead is
// worked out from those events and from each request's times that the same run gives
// (Watched.requests), never from a model of our own. The page owns the settings.
//
// Cheap by design: the events of a window are fetched once per window and setting; the run is
// drawn into two layers (as it will be, faint, and as it was, solid) only when the events, the
// size or the theme change, so a frame copies the solid layer up to the playhead and draws one
// line; nothing runs while paused or off screen.

import { resolved } from "./view.js";
import { laneRows, paintLayers } from "./watchdraw.js";
import { kvAt, showKv } from "./watchkv.js";
import { moment } from "./watchnow.js";

const EPS = 1e-9; // s: the model's tie (costs.EPS): a step that starts at a word writes the next
const TEXT_EVERY = 100; // ms: the readouts, at most ten times a second while playing
const SAY_EVERY = 1000; // ms: the spoken summary, at most once a second while playing
const WORDS = { shared: "shared", split: "split", chunked: "chunked" };

/** @typedef {import("./watchnow.js").WatchEvent} WatchEvent */
/** @typedef {import("./watchnow.js").Layout} Layout */

/** The layouts the settings have (sim's layouts_of). @param {Record<string, number|string>} s */
export function layoutsOf(s) {
  return Number(s.chunk) > 0 ? ["shared", "split", "chunked"] : ["shared", "split"];
}

/** "1,234". @param {number} n */
const whole = (n) => n.toLocaleString("en-US");
/** A time on the clock, in seconds to the tenth of a millisecond. @param {number} t */
const clock = (t) => `${t.toFixed(4)} s`;
/** A gap, in ms. @param {number} t */
const ms = (t) => `${(t * 1e3).toFixed(1)} ms`;

export class Watch {
  /**
   * @param {{call: (type: string, body: Object) => Promise<any>, current: () => {settings: Record<string, number|string>, key: string}}} page
   *   asks the simulator; the settings on screen and their key
   */
  constructor(page) {
    const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(`watch${id}`));
    /** @type {Record<string, HTMLElement>} */
    this.where = { section: $(""), canvas: $("-canvas"), play: $("-play"), prev: $("-prev"), next: $("-next"),
      speed: $("-speed"), earlier: $("-earlier"), later: $("-later"), scrub: $("-scrub"), clock: $("-clock"),
      window: $("-window"), now: $("-now"), said: $("-said"), note: $("-note") };
    const where = this.where;
    this.page = page;
    /** @type {{key: string, wanted: string, settings: Record<string, number|string>, t0: number, t1: number, end: number, layouts: Layout[], starts: number[]}|null} */
    this.data = null;
    this.at = 0; // the playhead, s
    this.playing = false;
    this.speed = Number(/** @type {HTMLSelectElement} */ (where.speed).value);
    /** @type {number|null} */ this.moved = null; // t0 of a window the learner moved to, for `movedFor`
    this.movedFor = "";
    /** @type {number|null} */ this.aim = null; // where open() puts the playhead once its window comes
    this.visible = false;
    this.loading = false;
    this.frame = 0; // the requestAnimationFrame's id, while playing on screen
    this.lastFrame = 0;
    this.lastSaid = 0;
    this.lastText = 0;
    /** @type {number|null} */ this.cut = null; // px: where the playhead was last drawn
    this.old = false; // the events shown are for the settings before
    this.asked = ""; // a window the simulator refused, not asked for again
    this.settledKey = ""; // the settings the page last settled for: their events may be asked for
    /** @type {Record<string, string>|null} */ this.colours = null;
    /** @type {ReturnType<typeof paintLayers>|null} */ this.layers = null;
    this.wire();
  }

  wire() {
    const w = this.where;
    w.play.addEventListener("click", () => this.toggle());
    w.next.addEventListener("click", () => this.step(1));
    w.prev.addEventListener("click", () => this.step(-1));
    w.earlier.addEventListener("click", () => this.move(-1));
    w.later.addEventListener("click", () => this.move(1));
    w.speed.addEventListener("change", () => { this.speed = Number(/** @type {HTMLSelectElement} */ (w.speed).value); });
    w.scrub.addEventListener("input", () => this.seek(Number(/** @type {HTMLInputElement} */ (w.scrub).value), true));
    // Space plays or pauses and the arrows step, on the canvas and the controls (a button
    // keeps its own space, the speed's choice its own arrows).
    w.section.addEventListener("keydown", (event) => {
      const target = /** @type {HTMLElement} */ (event.target);
      if (target.tagName === "SELECT") return;
      if (event.key === " " && target.tagName !== "BUTTON") this.toggle();
      else if (event.key === "ArrowRight" || event.key === "ArrowDown") this.step(1);
      else if (event.key === "ArrowLeft" || event.key === "ArrowUp") this.step(-1);
      else return;
      event.preventDefault();
    });
    new IntersectionObserver((entries) => {
      this.visible = entries.some((e) => e.isIntersecting);
      if (this.visible) this.load();
      this.run();
    }).observe(w.section);
    new ResizeObserver(() => this.repaint()).observe(w.canvas);
    matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => this.repaint());
    // Asked for once the page has settled (app.js says so), so never ahead of the numbers.
    addEventListener("pdsplit:settled", (event) => {
      const { key, source } = /** @type {CustomEvent} */ (event).detail;
      if (source === "python") this.settled(key);
    });
  }

  /** The settings changed: the events on screen are now old (greyed, and said) until the new
   * run's come; a moved window goes back to the default one, figure 1's. */
  change() {
    this.mark();
  }

  /** The page is settled for the current settings: their events may be asked for now, so that
   * they never hold up the numbers and charts. @param {string} key */
  settled(key) {
    this.settledKey = key;
    if (key === this.page.current().key) this.load();
  }

  /** What the section says of its events: for these settings, old, on their way, or refused. @param {string} [error] */
  mark(error) {
    const { key } = this.page.current();
    const old = this.data !== null && this.data.key !== key;
    const state = error ? "error" : old ? "old" : this.data ? "current" : "none";
    const s = this.where.section;
    if (s.dataset.state !== state) s.dataset.state = state;
    const words = error ? `The simulator refused this window: ${error}`
      : old ? "These events are for the settings before (greyed): the new run's are on their way."
        : this.data ? "" : "The events of this window are on their way from the simulator.";
    if (this.where.note.textContent !== words) this.where.note.textContent = words;
    this.where.note.hidden = words === "";
    if (old !== this.old) {
      this.old = old;
      this.repaint();
    }
  }

  /** Fetch the current settings' events, once per window and setting, while on screen. */
  async load() {
    const { settings, key } = this.page.current();
    if (!this.visible || this.loading || this.settledKey !== key) return;
    const t0 = this.movedFor === key ? this.moved : null;
    const wanted = `${key}|${t0}`;
    if (this.data?.wanted === wanted || this.asked === wanted) return this.mark(); // (asked: refused before)
    this.loading = true;
    this.mark();
    try {
      const layouts = layoutsOf(settings);
      const window = t0 === null ? {} : { t0, t1: t0 + (this.data ? this.data.t1 - this.data.t0 : 2) };
      const first = await this.page.call("watch", { layout: layouts[0], settings, ...window });
      const rest = await Promise.all(layouts.slice(1).map((layout) =>
        this.page.call("watch", { layout, settings, t0: first.t0, t1: first.t1 })));
      if (this.page.current().key === key) this.take(key, wanted, settings, [first, ...rest], layouts);
    } catch (error) {
      if (!(/** @type {any} */ (error)?.retryable)) this.asked = wanted; // not asked again
      if (this.page.current().key === key && !(/** @type {any} */ (error)?.retryable)) this.mark(/** @type {Error} */ (error).message);
    } finally {
      this.loading = false;
    }
    this.load(); // newer settings, or a moved window, came meanwhile
  }

  /**
   * The new run's events, all layouts at once: never two runs mixed.
   * @param {string} key @param {string} wanted  the settings' key and the window asked for
   * @param {Record<string, number|string>} settings @param {any[]} replies @param {string[]} names
   */
  take(key, wanted, settings, replies, names) {
    const { t0, t1 } = replies[0];
    const layouts = names.map((layout, i) => {
      const { events, requests, capacity } = replies[i]; // capacity: with memory=kv
      /** @type {Map<string, WatchEvent[]>} */ const steps = new Map();
      for (const e of events) {
        if (e.kind !== "step") continue;
        const lane = `${e.lane} ${e.index}`;
        if (!steps.has(lane)) steps.set(lane, []);
        /** @type {WatchEvent[]} */ (steps.get(lane)).push(e);
      }
      const rows = laneRows(layout, settings);
      for (const row of rows) if (row.lane !== "reader" && row.lane !== "link" && !steps.has(`${row.lane} ${row.index}`)) steps.set(`${row.lane} ${row.index}`, []);
      return { layout, events, requests, steps, rows, capacity };
    });
    const starts = [...new Set(layouts.flatMap((l) => l.events.map((e) => e.start)))].filter((t) => t >= t0 && t <= t1).sort((a, b) => a - b);
    const changed = this.data?.key !== key; // a new run: it starts at its window's start
    this.data = { key, settings, t0, t1, end: Math.max(...replies.map((r) => r.end)), layouts, starts, wanted };
    const scrub = /** @type {HTMLInputElement} */ (this.where.scrub);
    scrub.min = String(t0);
    scrub.max = String(t1);
    const s = this.where.section;
    Object.assign(s.dataset, { key, t0: String(t0), t1: String(t1), events: layouts.map((l) => `${l.layout} ${l.events.length}`).join(" ") });
    this.where.window.textContent = `from ${clock(t0)} to ${clock(t1)}; the runs' last word comes at ${clock(this.data.end)}`;
    /** @type {HTMLButtonElement} */ (this.where.earlier).disabled = t0 <= 0;
    /** @type {HTMLButtonElement} */ (this.where.later).disabled = t1 >= this.data.end;
    this.mark();
    this.repaint();
    // A changed run plays from its window's start, with nothing of it drawn yet (the playhead
    // where the run before left it could be at the window's end, every event drawn); a window
    // moved along the same run keeps the playhead move() gave it.
    const aim = this.aim;
    this.aim = null;
    this.seek(aim === null && changed ? t0 : Math.min(Math.max(aim ?? this.at, t0), t1), true);
  }

  /** Move the window by its width, within the run. @param {number} direction */
  move(direction) {
    if (!this.data) return;
    const { t0, t1, end } = this.data;
    const width = t1 - t0;
    const next = Math.min(Math.max(0, t0 + direction * width), Math.max(0, end - width));
    if (next !== t0) this.open(next);
  }

  /**
   * Open the current run's window from t0, the playhead at `at` (the memory chart's "Watch the
   * moment": where a reader is first held back). @param {number} t0 @param {number} [at]
   */
  open(t0, at = t0) {
    this.moved = t0;
    this.movedFor = this.page.current().key;
    this.at = at;
    this.aim = at;
    this.load();
  }

  toggle() {
    if (!this.data) return;
    this.playing = !this.playing;
    if (this.playing && this.at >= this.data.t1) this.at = this.data.t0; // from the start again
    this.where.play.textContent = this.playing ? "Pause" : "Play";
    this.where.play.setAttribute("aria-pressed", String(this.playing));
    this.lastFrame = 0;
    this.run();
    this.say(true);
  }

  /** The playhead to the next (+1) or previous (-1) event's start. @param {number} direction */
  step(direction) {
    if (!this.data) return;
    if (this.playing) this.toggle();
    const { starts } = this.data;
    const next = direction > 0 ? starts.find((t) => t > this.at + EPS) : [...starts].reverse().find((t) => t < this.at - EPS);
    if (next !== undefined) this.seek(next, true);
  }

  /** Put the playhead at t, draw, and say it (always, or once a second while playing). @param {number} t @param {boolean} say */
  seek(t, say) {
    if (!this.data) return;
    this.at = Math.min(Math.max(t, this.data.t0), this.data.t1);
    this.where.section.dataset.at = String(this.at);
    this.draw();
    // While playing, the text under the canvas follows ten times a second, not every frame:
    // each change of it costs the page a layout, and a frame has 16 ms.
    const now = performance.now();
    if (say || !this.playing || now - this.lastText >= TEXT_EVERY) {
      this.lastText = now;
      const scrub = /** @type {HTMLInputElement} */ (this.where.scrub);
      scrub.value = String(this.at);
      scrub.setAttribute("aria-valuetext", clock(this.at));
      this.readouts();
    }
    this.say(say);
  }

  /** Play while playing and on screen; nothing at all otherwise. */
  run() {
    const go = this.playing && this.visible;
    if (go && !this.frame) this.frame = requestAnimationFrame((now) => this.tick(now));
    if (!go && this.frame) {
      cancelAnimationFrame(this.frame);
      this.frame = 0;
      this.lastFrame = 0;
    }
  }

  /** One frame: the clock moves by the time since the last frame, times the speed. @param {number} now */
  tick(now) {
    this.frame = 0;
    if (!this.data || !this.playing) return;
    const dt = this.lastFrame ? (now - this.lastFrame) / 1000 : 0;
    this.lastFrame = now;
    const t = this.at + dt * this.speed;
    if (t >= this.data.t1) {
      this.seek(this.data.t1, true);
      this.toggle(); // the window's end: pause there
      return;
    }
    this.seek(t, false);
    this.run();
  }

  /** Draw the layers again (new events, a new size, a new theme). */
  repaint() {
    if (!this.data) return;
    const canvas = /** @type {HTMLCanvasElement} */ (this.where.canvas);
    const colours = Object.fromEntries(["--bg", "--ink", "--muted", "--line", "--shared", "--split", "--chunked", "--mark"]
      .map((p) => [p.slice(2), resolved(p)]));
    this.layers = paintLayers(canvas, this.data, colours, this.old);
    this.colours = colours;
    this.draw(true);
  }

  /**
   * A frame: the faint run, the solid run up to the playhead, the playhead. While the playhead
   * moves on, only the strip it crossed is drawn again: the browser then updates only that.
   * @param {boolean} [whole]  draw it all (new layers)
   */
  draw(whole = false) {
    const canvas = /** @type {HTMLCanvasElement} */ (this.where.canvas);
    if (!this.layers || !this.data) return;
    const c = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"));
    const { solid, ghost, x, lanes } = this.layers;
    const scale = canvas.width / canvas.clientWidth;
    const cut = Math.round(x(this.at) * scale), line = Math.ceil(scale);
    const from = whole || this.cut === null || cut < this.cut ? 0 : Math.max(0, this.cut - line);
    const to = whole || this.cut === null || cut < this.cut ? canvas.width : Math.min(canvas.width, cut + line);
    const h = canvas.height;
    c.clearRect(from, 0, to - from, h);
    c.drawImage(ghost, from, 0, to - from, h, from, 0, to - from, h);
    if (cut > from) c.drawImage(solid, from, 0, cut - from, h, from, 0, cut - from, h);
    c.fillStyle = this.colours?.mark ?? "#000";
    for (const [top, bottom] of lanes) c.fillRect(cut - line, Math.round(top * scale), line, Math.round((bottom - top) * scale));
    this.cut = cut;
  }

  /** The clock and, per layout, what is true at the playhead. */
  readouts() {
    if (!this.data) return;
    const target = Number(this.data.settings.gap_target);
    const text = clock(this.at);
    if (this.where.clock.textContent !== text) this.where.clock.textContent = text;
    for (const layout of this.data.layouts) {
      const row = /** @type {HTMLElement} */ (this.where.now.querySelector(`[data-layout="${layout.layout}"]`));
      row.hidden = false;
      const now = moment(layout, this.at);
      const cells = row.querySelectorAll("td");
      // each GPU's count, and the gap's value, kept whole on a line (a phone's column is narrow)
      const slots = [...now.slots.entries()].map(([lane, n]) => `${lane.replace("gpu", "GPU")}: ${n}`.replace(/ /g, "\u00a0")).join(", ");
      const over = now.gap > target;
      const values = [whole(now.waiting), slots, ms(now.gap).replace(" ", "\u00a0") + (over ? ", past the target" : "")];
      values.forEach((value, i) => { if (cells[i].textContent !== value) cells[i].textContent = value; });
      cells[2].classList.toggle("over", over);
      if (layout.capacity) { // memory=kv: each lane's KV in use against its capacity
        const busy = new Set(now.doing.filter((e) => e.kind === "read").map((e) => `${e.lane} ${e.index}`));
        showKv(cells[3], layout.rows, kvAt(layout.events, this.at), layout.capacity, busy, now.waiting);
      }
    }
    this.where.now.classList.toggle("kv", this.data.layouts.some((l) => l.capacity));
    for (const row of this.where.now.querySelectorAll("[data-layout]")) {
      if (!this.data.layouts.some((l) => l.layout === /** @type {HTMLElement} */ (row).dataset.layout)) /** @type {HTMLElement} */ (row).hidden = true;
    }
  }

  /** The moment in words, for screen readers (aria-live). @param {boolean} now  said at once, else at most once a second */
  say(now) {
    if (!this.data) return;
    const at = performance.now();
    if (!now && at - this.lastSaid < SAY_EVERY) return;
    this.lastSaid = at;
    const target = Number(this.data.settings.gap_target);
    const parts = this.data.layouts.map((layout) => {
      const m = moment(layout, this.at);
      const doing = m.doing.map((e) => e.kind === "read"
        ? `${e.lane === "gpu" ? "GPU" : e.lane} ${e.index} reads request ${e.request}'s ${whole(e.tokens)} tokens`
        : `request ${e.request}'s cache crosses the link`);
      const waiting = `${whole(m.waiting)} prompt${m.waiting === 1 ? "" : "s"} waiting`;
      return `${WORDS[/** @type {keyof WORDS} */ (layout.layout)]}: ${[...doing, waiting].join("; ")}; ` +
        `longest gap ${ms(m.gap)}, ${m.gap > target ? "past" : "within"} the gap target`;
    });
    this.where.said.textContent = `${this.playing ? "Playing" : "Paused"} at ${clock(this.at)}. ${parts.join(". ")}.`;
  }
}
