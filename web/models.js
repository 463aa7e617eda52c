// The "Go further" panel's section for bigger models, GPUs working as one, costs that grow with
// context and memory that pushes back (docs/model.md: "Bigger models, GPUs working as one, and
// memory"): a control for each of the model's settings with its line of help, the line that
// says what each pool's instances hold (sim.capacity, in the simulator's words), and the
// section's named states. The page owns the settings; the settings table keeps them together
// (settings.js, fit: a model on instances that hold it, whole instances).
import { choiceRow, describe, showControl, sliderRow, stateButtons } from "./controls.js";
import { showTemplate } from "./view.js";

/** @typedef {import("./settings.js").SettingsTable} SettingsTable */
/** @typedef {import("./settings.js").Field} Field */
/** @typedef {Record<string, number|string>} Settings */
/** @typedef {{capacity: any, line: string, shown: Record<string, string>}} CapacityReply */

// The controls in the order they read best: what is served, on how many GPUs, then its costs
// and its memory.
const ORDER = ["model", "tp", "reader_tp", "costs", "memory"];
// What the capacity line depends on: the instances, their kinds, and a request's tokens.
const CAPACITY_OF = ["model", "tp", "reader_tp", "memory", "gpus", "readers", "reader_gpu", "writer_gpu",
  "reader_power", "writer_power", "prompt", "reply"];

export class Models {
  /**
   * @param {SettingsTable} table
   * @param {{controls: HTMLElement, states: HTMLElement, capacity: HTMLElement, moment: HTMLElement}} where
   * @param {{label: string, settings: Settings}[]} named  the section's named states
   * @param {() => Settings} current  the settings now
   * @param {(next: Settings) => void} change  apply new settings
   * @param {(s: Settings) => Promise<CapacityReply>} ask  sim.capacity's line for settings
   * @param {(t: number) => void} watchAt  open Watch it run at the moment t of the split's run
   */
  constructor(table, where, named, current, change, ask, watchAt) {
    this.table = table;
    this.where = where;
    this.ask = ask;
    /** The capacity line on screen is for these settings (CAPACITY_OF's values). */ this.lineFor = "";
    this.fields = ORDER.map((name) => /** @type {Field} */ (table.byName.get(name)));
    for (const f of this.fields) {
      const set = (/** @type {number|string} */ value) => change({ ...current(), [f.name]: value });
      // the readers' tp steps through 0 ("as the writers'"), then the sizes that hold the model
      const by = f.name === "reader_tp" ? (/** @type {number} */ v, /** @type {number} */ step) => {
        const least = table.smallestTp(String(current().model), String(current().reader_gpu)) ?? 8;
        const allowed = [0, .../** @type {number[]} */ (f.slider).filter((t) => t >= least)];
        return allowed[Math.min(allowed.length - 1, Math.max(0, allowed.indexOf(v) + step))];
      } : undefined;
      const row = f.choices ? choiceRow(f, set) : sliderRow(table, f, current, set, undefined, by);
      describe(row, f);
      if (f.name === "tp") { // why it cannot go lower, for the model and GPUs chosen
        this.floor = document.createElement("p");
        this.floor.className = "help said";
        this.floor.id = "note-tp";
        row.append(this.floor);
      }
      where.controls.append(row);
    }
    stateButtons(where.states, named, change);
    where.moment.addEventListener("click", () => watchAt(Number(where.moment.dataset.at)));
  }

  /**
   * The memory chart came, whole: its button opens Watch it run in the middle of the first
   * stretch in which the readers were held back (the chart's shaded bands), where a reader
   * says it waits for room; with none, no button. @param {any} reply  the kv figure's
   */
  heldBack(reply) {
    const first = reply?.figure?.layout?.meta?.held_back?.[0];
    const button = this.where.moment;
    button.hidden = !first;
    if (!first) return;
    const at = (first[0] + first[1]) / 2;
    button.dataset.at = String(at);
    button.textContent = "Watch it run where memory first holds the readers back";
  }

  /** Show the settings on the controls, and the line of capacity for them. @param {Settings} s */
  show(s) {
    const model = String(s.model);
    const least = Math.max(this.table.smallestTp(model, String(s.reader_gpu)) ?? 8,
      this.table.smallestTp(model, String(s.writer_gpu)) ?? 8);
    for (const f of this.fields) {
      if (f.name === "tp") showControl(this.table, f, s.tp, undefined, undefined, least);
      else if (f.name === "reader_tp") {
        const same = Number(s.reader_tp) === 0;
        // 0 is "as the writers'": the slider's lowest stop, then the sizes that hold the model
        showControl(this.table, f, s.reader_tp, undefined, same ? `as the writers' (${this.table.show("tp", Number(s.tp))})` : undefined);
      } else showControl(this.table, f, s[f.name]);
    }
    const floor = least > 1 ? this.why(model, String(s.reader_gpu), String(s.writer_gpu), least) : "";
    if (this.floor && this.floor.textContent !== floor) this.floor.textContent = floor;
  }

  /**
   * Why tp cannot go below `least` GPUs: the weights against what one instance of fewer may use.
   * @param {string} model @param {string} readerKind @param {string} writerKind @param {number} least
   */
  why(model, readerKind, writerKind, least) {
    const gb = (/** @type {number} */ x) => `${(x / 1e9).toFixed(1)} GB`;
    const kind = (this.table.smallestTp(model, writerKind) ?? 16) >= least ? writerKind : readerKind;
    const fewer = least / 2;
    return `At least ${least} GPUs an instance: ${model}'s weights are ${gb(this.table.facts.weights[model])}, ` +
      `and ${fewer} ${kind}${fewer > 1 ? "s" : ""} may use ${gb(this.table.usable(kind, fewer))} (90% of their memory).`;
  }

  /**
   * The capacity line for the settings, from the simulator (asked again only when what it
   * depends on changed). A refusal leaves the line as it was, dimmed: the status line says why.
   * @param {Settings} s
   */
  async capacity(s) {
    const key = CAPACITY_OF.map((name) => s[name]).join("|");
    if (key === this.lineFor) return;
    this.lineFor = key;
    const line = this.where.capacity;
    line.classList.add("pending");
    try {
      const reply = await this.ask({ ...s });
      if (this.lineFor !== key) return; // newer settings asked meanwhile
      showTemplate(line, reply.line, reply.shown, "span");
      line.classList.remove("pending");
    } catch (error) {
      if (this.lineFor === key) this.lineFor = ""; // asked again with the next change
    }
  }
}
