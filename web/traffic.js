// The "Go further" panel's Traffic section: where the requests come from (the lesson's random
// ones, Azure's chat or code trace, or a file of the learner's own), how they arrive, and where
// the window starts in the trace. A file of one's own goes to the simulator's Python in the
// worker as it is (the page never reads it, nor sends it anywhere), and is kept in this browser
// (store.js), so that a reload keeps it. The page owns the settings.

import { choiceRow, describe, stateButtons } from "./controls.js";
import { keep, kept } from "./store.js";
import { put } from "./view.js";

/** @typedef {import("./settings.js").SettingsTable} SettingsTable */
/** @typedef {import("./settings.js").Field} Field */
/** @typedef {Record<string, number|string>} Settings */
/** @typedef {{name: string, trace_requests: number, left_out: number, recorded: string|null}} TraceInfo */

/** What each choice says on the page (the settings table has the names, sim/settings.py). */
const WORDS = {
  traffic: { lesson: "The lesson's toy: random requests", "azure-chat": "Azure chat, a day in November",
    "azure-code": "Azure code, the same day", own: "A file of your own" },
  arrivals: { recorded: "As recorded: its own bursts and lulls", poisson: "Evenly random (Poisson)" },
};
export const TRAFFIC_FIELDS = ["traffic", "arrivals", "trace_start"];

/** "12.3 MB". @param {number} bytes */
const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

export class Traffic {
  /**
   * @param {SettingsTable} table
   * @param {{controls: HTMLElement, states: HTMLElement, input: HTMLInputElement, drop: HTMLElement,
   *          notices: HTMLElement, attribution: HTMLElement, leftOut: HTMLElement}} where
   * @param {{label: string, settings: Settings}[]} named  the traffic's named states
   * @param {() => Settings} current  the settings now
   * @param {(next: Settings, notices?: string[]) => void} change  apply new settings
   * @param {{traces: Record<string, number>, limit: number}} facts  the shipped traces' usable
   *   requests, and the largest file the page reads (bytes), both from the build
   * @param {(file: Blob, name: string) => Promise<TraceInfo>} read  has the simulator read a file
   */
  constructor(table, where, named, current, change, facts, read) {
    Object.assign(this, { table, where, current, change, facts, read });
    /** The file of one's own the simulator holds, once known. @type {TraceInfo|null} */
    this.own = null;
    this.ownVersion = 0; // goes up with each new file: the page's keys for traffic=own follow it
    /** The file in use, as the file box shows it. @type {File|null} */ this.file = null;
    // A window of a trace that has fewer usable requests than were asked for takes them all,
    // and is that trace's alone: the requests asked for, kept while it lasts, come back for
    // the lesson's toy and for a trace that has as many (and stay the URL's). @type {number|null}
    this.asked = null;
    for (const name of ["traffic", "arrivals"]) {
      const f = /** @type {Field} */ (table.byName.get(name));
      const worded = { ...f, names: (f.choices ?? []).map((c) => WORDS[name][c] ?? c) };
      const row = choiceRow(worded, (value) => this.set(name, value));
      row.dataset.control = name;
      describe(row, f);
      where.controls.append(row);
    }
    where.controls.append(this.startRow());
    stateButtons(where.states, named, (state) => change(state));
    // The box shows the file in use (showFile); it is emptied as it is opened, so that the
    // same file may be picked again after an edit, and shows the file in use again if no
    // other is picked.
    where.input.addEventListener("click", () => { where.input.value = ""; });
    where.input.addEventListener("cancel", () => this.showFile());
    where.input.addEventListener("change", () => {
      const file = where.input.files?.[0];
      if (file) this.pick(file, file.name).catch(() => {}); // said in the notice
      else this.showFile();
    });
    // A file dropped on the section is taken as picked.
    where.drop.addEventListener("dragover", (event) => { event.preventDefault(); where.drop.classList.add("over"); });
    where.drop.addEventListener("dragleave", () => where.drop.classList.remove("over"));
    where.drop.addEventListener("drop", (event) => {
      event.preventDefault();
      where.drop.classList.remove("over");
      const file = event.dataTransfer?.files?.[0];
      if (file) this.pick(file, file.name).catch(() => {});
    });
  }

  /** The trace-start slider: over the trace's usable requests, −/+ moving one window. */
  startRow() {
    const f = /** @type {Field} */ (this.table.byName.get("trace_start"));
    const row = document.createElement("div");
    row.className = "slider";
    row.dataset.control = "trace_start";
    row.innerHTML = `<div class="head"><label for="slider-trace_start">The window starts at</label>` +
      `<output id="value-trace_start" for="slider-trace_start" data-setting="trace_start" data-metric="settings.trace_start"></output></div>` +
      `<button type="button" class="step" data-step="-1" aria-label="The window before">−</button>` +
      `<input type="range" id="slider-trace_start" min="0" max="0" step="1">` +
      `<button type="button" class="step" data-step="1" aria-label="The window after">+</button>` +
      `<p class="help said" id="note-window" role="status"></p>`;
    const slider = /** @type {HTMLInputElement} */ (row.querySelector("input"));
    slider.addEventListener("input", () => this.set("trace_start", Number(slider.value)));
    for (const button of row.querySelectorAll("button.step")) {
      button.addEventListener("click", () => {
        const s = this.current();
        const step = Number(/** @type {HTMLElement} */ (button).dataset.step) * Number(s.requests);
        const top = Number(slider.max);
        const next = Math.min(top, Math.max(0, Number(s.trace_start) + step));
        if (next !== s.trace_start) this.set("trace_start", next);
      });
    }
    describe(row, f);
    return row;
  }

  /** @param {string} name @param {number|string} value */
  set(name, value) {
    const next = { ...this.current(), [name]: value };
    if (name === "traffic") next.trace_start = 0; // another trace: its window from its start
    this.change(next);
  }

  /** The usable requests of the trace settings s replay; null for the lesson's, or a file not yet known. @param {Settings} s */
  usable(s) {
    if (s.traffic === "own") return this.own?.trace_requests ?? null;
    return this.facts.traces[String(s.traffic)] ?? null;
  }

  /**
   * Settings whose window fits their trace: a window past its end, or longer than its
   * usable requests, is brought within it, and said. A window that took all of a trace's
   * requests is that trace's: given the settings before (`before`), requests left as they
   * were are the ones asked for (`asked`), for the lesson's toy or another trace.
   * @param {Settings} s @param {Settings|null} [before]
   * @returns {{settings: Settings, notice: string|null, asked: number|null}}
   */
  fit(s, before = null) {
    const kept = this.asked !== null && before !== null && Number(s.requests) === Number(before.requests);
    const asked = kept ? /** @type {number} */ (this.asked) : Number(s.requests);
    let next = asked === Number(s.requests) ? s : { ...s, requests: asked };
    const usable = this.usable(next);
    if (usable === null) return { settings: next, notice: null, asked: null };
    let notice = null;
    const all = usable.toLocaleString("en-US");
    let shortened = null;
    if (asked > usable) {
      next = { ...next, requests: usable };
      shortened = asked;
      if (!kept) notice = `${this.traceName(next)} has ${all} usable requests, fewer than the ${asked.toLocaleString("en-US")} asked for: ` +
        `its window takes all ${all}. The lesson's toy and Azure's traces keep ${asked.toLocaleString("en-US")}.`;
    }
    const top = usable - Number(next.requests);
    if (Number(next.trace_start) > top) {
      notice = notice ?? `trace_start=${s.trace_start} leaves too few of the trace's ${all} usable requests for a window of ${Number(next.requests).toLocaleString("en-US")}; using ${top.toLocaleString("en-US")}.`;
      next = { ...next, trace_start: top };
    }
    return { settings: next, notice, asked: shortened };
  }

  /**
   * fit(), and what it found kept: the page's settings from now on. @param {Settings} s
   * @param {Settings|null} before  the settings before (null: a URL's, a caller's own requests)
   */
  place(s, before) {
    const fitted = this.fit(s, before);
    this.asked = fitted.asked;
    return fitted;
  }

  /** The name of the trace settings s replay, as the page says it. @param {Settings} s */
  traceName(s) {
    if (s.traffic === "own") return this.own?.name ?? "Your file";
    return WORDS.traffic[/** @type {"azure-chat"|"azure-code"} */ (String(s.traffic))]?.split(",")[0] ?? String(s.traffic);
  }

  /** The settings as the URL keeps them: the requests asked for, not a trace's all. @param {Settings} s */
  asAsked(s) {
    return this.asked === null ? s : { ...s, requests: this.asked };
  }

  /** Whether settings s replay a trace. @param {Settings} s */
  static traced(s) {
    return s.traffic !== "lesson";
  }

  /**
   * Show the settings on the controls. The window's words are the simulator's (`said`, the
   * numbers' texts for exactly these settings, if on screen).
   * @param {Settings} s @param {Record<string, string>|null} said
   */
  show(s, said) {
    const traced = Traffic.traced(s);
    const select = /** @type {HTMLSelectElement} */ (document.getElementById("choice-traffic"));
    const own = /** @type {HTMLOptionElement} */ (select.querySelector('option[value="own"]'));
    put(own, "disabled", !this.own && s.traffic !== "own");
    const ownWords = this.own ? `A file of your own: ${this.own.name}` : "A file of your own (pick one below)";
    if (own.textContent !== ownWords) own.textContent = ownWords;
    if (select.value !== s.traffic) select.value = String(s.traffic);
    const arrivals = /** @type {HTMLSelectElement} */ (document.getElementById("choice-arrivals"));
    if (arrivals.value !== s.arrivals) arrivals.value = String(s.arrivals);
    for (const name of ["arrivals", "trace_start"]) {
      const row = /** @type {HTMLElement} */ (this.where.controls.querySelector(`[data-control="${name}"]`));
      if (row.hidden === traced) row.hidden = !traced; // with the lesson's traffic they do nothing
    }
    const slider = /** @type {HTMLInputElement} */ (document.getElementById("slider-trace_start"));
    const usable = this.usable(s);
    const max = String(usable === null ? Number(s.trace_start) : Math.max(0, usable - Number(s.requests)));
    if (slider.max !== max) slider.max = max;
    if (slider.value !== String(s.trace_start)) slider.value = String(s.trace_start);
    const words = said?.["settings.trace_start"] ?? "…"; // the window, once worked out for s
    const readout = /** @type {HTMLElement} */ (document.getElementById("value-trace_start"));
    if (readout.textContent !== words) readout.textContent = words;
    if (slider.getAttribute("aria-valuetext") !== words) slider.setAttribute("aria-valuetext", words);
    // what a window that took all of a trace's requests means for the other traffic, said by it
    const all = this.asked !== null && traced && usable !== null
      ? `The window is all ${usable.toLocaleString("en-US")} usable requests of ${this.traceName(s)}, fewer than the ` +
        `${this.asked.toLocaleString("en-US")} asked for. The lesson's toy and Azure's traces keep their ` +
        `${this.asked.toLocaleString("en-US")}, as figures 7 and 8 show.` : "";
    put(/** @type {HTMLElement} */ (document.getElementById("note-window")), "textContent", all);
    put(this.where.attribution, "hidden", !String(s.traffic).startsWith("azure"));
    put(this.where.leftOut, "hidden", !traced);
  }

  /**
   * The file box shows the file in use (the browser's own words would say "No file chosen"
   * once it was read, or after a reload), or none. @param {Blob|null} [file] @param {string} [name]
   */
  showFile(file = null, name = "") {
    if (file) this.file = file instanceof File ? file : new File([file], name);
    try {
      const list = new DataTransfer();
      if (this.file) list.items.add(this.file);
      this.where.input.files = list.files;
    } catch { /* a browser without DataTransfer(): its box says what it says */ }
  }

  /** Notices about a file (role="alert"). @param {string[]} lines */
  say(lines) {
    this.where.notices.replaceChildren(...lines.map((text) => Object.assign(document.createElement("li"), { textContent: text })));
    this.where.notices.hidden = lines.length === 0;
  }

  /**
   * A file of one's own: refused before it is read if too large, else read by the simulator;
   * once it is read, kept, and the traffic is it. A refusal says why and changes nothing.
   * @param {Blob} file @param {string} name @returns {Promise<TraceInfo>}
   */
  async pick(file, name) {
    this.say([]);
    if (file.size > this.facts.limit) {
      const why = `${name} is ${mb(file.size)}: the page reads files up to ${mb(this.facts.limit)}, so it was not read. ` +
        "Take the rows you want into a file of their own, or use the command line, which reads a file of any size " +
        "as far as its window: python -m sim compare --trace FILE.";
      this.say([why]);
      this.showFile();
      throw new Error(why);
    }
    let info;
    try {
      info = await this.read(file, name);
    } catch (error) {
      this.say([`${name} was not used: ${/** @type {Error} */ (error).message}`]);
      this.showFile(); // the file in use, if any, not the one refused
      throw error;
    }
    this.own = info;
    this.ownVersion += 1;
    this.showFile(file, name);
    const stored = await keep({ file, name, info });
    const s = this.current();
    const notices = [];
    // the trace's own rate, and the load it is replayed at (its window: fit() and its notice)
    if (info.recorded) notices.push(`${name} was recorded at ${info.recorded} req/s on average; it is replayed at the load ` +
      `set, ${this.table.show("rps", s.rps)}, ${s.arrivals === "recorded" ? "its own spacing scaled" : "at the lesson's random spacing"} ` +
      "(Requests a second and Arrivals set how).");
    if (!stored) notices.push(`This browser does not keep files for the page, so a reload will not have ${name}.`);
    this.change({ ...s, traffic: "own", trace_start: 0 }, notices);
    return info;
  }

  /**
   * The file kept from an earlier visit, if any, so that traffic=own can go on meaning it.
   * Returns what the page must say and do: a URL that asks for a file the browser does not
   * have gets the lesson's traffic, with a notice.
   * @returns {Promise<{missing: string|null}>}
   */
  async restore() {
    const found = await kept();
    if (found) {
      this.own = found.info;
      this.ownVersion += 1;
      this.showFile(found.file, found.name);
    }
    if (this.current().traffic !== "own" || found) return { missing: null };
    return { missing: "traffic=own asks for a file of your own, which this browser does not have " +
      "(it keeps the last one picked on this page): using the lesson's traffic. Pick a file under Traffic, in Go further." };
  }
}
