// The "Go further" panel: a control for every explorer setting, each with a line of help
// (what it models, what to look for), and the explorer's named states. Closed by default; a
// URL that sets any explorer setting opens it. The page owns the settings.
import { choiceRow, showControl, sliderRow, stateButtons } from "./controls.js";

/** @typedef {import("./settings.js").SettingsTable} SettingsTable */
/** @typedef {Record<string, number|string>} Settings */

/** "GPUs in all" -> "GPUs in all." and "more GPUs ..." -> "More GPUs ...". @param {string} text */
function sentence(text) {
  return text ? `${text[0].toUpperCase()}${text.slice(1)}.` : "";
}

export class Explorer {
  /**
   * @param {SettingsTable} table
   * @param {{panel: HTMLDetailsElement, controls: HTMLElement, states: HTMLElement}} where
   * @param {{label: string, settings: Settings}[]} named  the explorer's named states
   * @param {() => Settings} current  the settings now
   * @param {(next: Settings) => void} change  apply new settings
   */
  constructor(table, where, named, current, change) {
    this.table = table;
    this.panel = where.panel;
    this.fields = table.fields.filter((f) => f.group === "explorer");
    for (const f of this.fields) {
      const set = (/** @type {number|string} */ value) => change({ ...current(), [f.name]: value });
      const row = f.choices || f.names ? choiceRow(f, set) : sliderRow(table, f, current, set);
      const help = document.createElement("p");
      help.className = "help";
      help.id = `help-${f.name}`;
      help.textContent = `${sentence(f.help)} ${sentence(f.look)}`;
      row.append(help);
      row.querySelector("select, input")?.setAttribute("aria-describedby", help.id);
      where.controls.append(row);
    }
    stateButtons(where.states, named, change);
  }

  /** Whether the panel is open (its charts and rate goodput are then worked out). */
  get open() {
    return this.panel.open;
  }

  /** Show the settings on the controls; the readers' slider stops at gpus - 1. @param {Settings} s */
  show(s) {
    for (const f of this.fields) {
      showControl(this.table, f, s[f.name], f.name === "readers" ? Number(s.gpus) - 1 : undefined);
    }
  }
}
