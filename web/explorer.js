// The "Go further" panel: a control for every explorer setting, each with a line of help
// (what it models, what to look for), a price field for each pool of GPUs (economics.js), and
// the explorer's named states. Closed by default; a URL that sets any of these settings opens
// it. The page owns the settings.
import { choiceRow, describe, showControl, sliderRow, stateButtons } from "./controls.js";
import { PriceField } from "./economics.js";
import { TRAFFIC_FIELDS } from "./traffic.js";

/** @typedef {import("./settings.js").SettingsTable} SettingsTable */
/** @typedef {Record<string, number|string>} Settings */

// The controls in the order they read best (two columns on a wide screen, row by row):
// local_queue beside local_below (Dynamo's rule, whole), then each pool's kind, power cap and
// price side by side, the readers' on the left. Any other setting follows, in the table's order.
const ORDER = ["gpus", "readers", "routing", "chunk", "link_sharing", "layerwise", "local_below",
  "local_queue", "reader_gpu", "writer_gpu", "reader_power", "writer_power", "reader_price",
  "writer_price", "slots", "attainment"];

/**
 * GPUs a step of the readers takes: whole reader instances that leave whole writer instances.
 * @param {Settings} s
 */
export function instanceOfReaders(s) {
  return Math.max(Number(s.tp), Number(s.reader_tp) || Number(s.tp));
}

export class Explorer {
  /**
   * @param {SettingsTable} table
   * @param {{panel: HTMLDetailsElement, controls: HTMLElement, states: HTMLElement}} where
   * @param {{label: string, settings: Settings}[]} named  the explorer's named states
   * @param {() => Settings} current  the settings now
   * @param {(next: Settings) => void} change  apply new settings
   * @param {Record<string, string>} [examples]  the price fields' placeholders, by GPU kind
   */
  constructor(table, where, named, current, change, examples = {}) {
    this.table = table;
    this.panel = where.panel;
    this.fields = table.fields.filter((f) => f.group === "explorer" || f.group === "price");
    // what "Back to the lesson's toy" sets back, the traffic's too (a trace is no toy's)
    // (and the model's: the lesson's is 8B on single GPUs, with toy costs and slots)
    this.further = [...this.fields, ...[...TRAFFIC_FIELDS, ...table.fields.filter((f) => f.group === "model").map((f) => f.name)]
      .map((name) => /** @type {import("./settings.js").Field} */ (table.byName.get(name)))];
    /** What the readers' + said, and for which settings. @type {string|null} */ this.saidFor = null;
    /** @type {Map<string, PriceField>} */ this.prices = new Map();
    /** @type {[string, HTMLElement][]} */ const rows = [];
    for (const f of this.fields) {
      const set = (/** @type {number|string} */ value) => change({ ...current(), [f.name]: value });
      if (f.group === "price") {
        const field = new PriceField(table, f, examples, current, set);
        this.prices.set(f.name, field);
        rows.push([f.name, field.row]);
        continue;
      }
      const atTop = f.name === "readers" ? () => this.moreReaders(current(), change) : undefined;
      // GPUs and readers step by whole instances (the readers' by the larger of both sizes:
      // what they leave must be whole writer instances too)
      const by = f.name === "gpus" ? (/** @type {number} */ v, /** @type {number} */ step) => v + step * Number(current().tp)
        : f.name === "readers" ? (/** @type {number} */ v, /** @type {number} */ step) => v + step * instanceOfReaders(current())
          : undefined;
      const row = f.choices || f.names ? choiceRow(f, set) : sliderRow(table, f, current, set, atTop, by);
      describe(row, f);
      if (f.name === "readers") { // says why + also added a GPU, or why it cannot
        this.note = document.createElement("p");
        this.note.className = "help said";
        this.note.id = "note-readers";
        this.note.setAttribute("role", "status");
        row.append(this.note);
      }
      rows.push([f.name, row]);
    }
    const place = (/** @type {string} */ name) => (ORDER.includes(name) ? ORDER.indexOf(name) : ORDER.length);
    rows.sort(([a], [b]) => place(a) - place(b)); // stable: the others keep the table's order
    where.controls.append(...rows.map(([, row]) => row));
    stateButtons(where.states, named, change);
    // The lesson's buttons keep these settings and the traffic; this sets them all back to the
    // lesson's (and a window a trace shortened to its requests as asked: traffic.js).
    const back = document.createElement("button");
    back.type = "button";
    back.className = "reset";
    back.textContent = "Back to the lesson's toy";
    back.addEventListener("click", () => {
      const next = { ...current() };
      for (const f of this.further) next[f.name] = f.default;
      change(next);
    });
    where.states.append(back);
  }

  /**
   * + on Readers at its top: the split needs a writer, so a reader more takes a GPU more
   * (the portfolio's "a second reader GPU"), unless the GPUs are at their top too. Either
   * way it says so by the slider, not silently.
   * @param {Settings} s @param {(next: Settings) => void} change
   */
  moreReaders(s, change) {
    const gpus = /** @type {import("./settings.js").Field} */ (this.table.byName.get("gpus"));
    const top = gpus.page[1];
    if (Number(s.gpus) + instanceOfReaders(s) > top) {
      this.say(s, `${top} GPUs is the most, and the split needs a writer: ${Number(s.readers)} readers is the most here.`);
      return;
    }
    const each = instanceOfReaders(s);
    const next = { ...s, gpus: Number(s.gpus) + each, readers: Number(s.readers) + each };
    change(next);
    this.say(next, each === 1 ? `A GPU was added too: the split needs a writer, so ${next.readers} readers take ${next.gpus} GPUs.`
      : `${each} GPUs were added too, a whole instance: the split needs a writer, so ${next.readers} readers take ${next.gpus} GPUs.`);
  }

  /** A note by the readers' slider, kept while these settings are. @param {Settings} s @param {string} text */
  say(s, text) {
    this.saidFor = this.table.key(s);
    if (this.note) this.note.textContent = text;
  }

  /** Whether any of these settings, or the traffic, differs from the lesson's. @param {Settings} s */
  changed(s) {
    return this.further.some((f) => s[f.name] !== f.default);
  }

  /** Whether the panel is open (its charts and rate goodput are then worked out). */
  get open() {
    return this.panel.open;
  }

  /** Show the settings on the controls; the readers' slider stops at gpus - 1. @param {Settings} s */
  show(s) {
    if (this.note && this.saidFor !== this.table.key(s) && this.note.textContent) this.note.textContent = "";
    for (const f of this.fields) {
      const price = this.prices.get(f.name);
      if (price) price.show(s);
      else showControl(this.table, f, s[f.name], f.name === "readers" ? Number(s.gpus) - Number(s.tp) : undefined);
    }
  }
}
