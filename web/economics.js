// Price and power on the page (docs/model.md: "Price and power"): a price field for each pool
// of GPUs in the "Go further" panel. Empty means the example price of the pool's kind, which
// the field shows as its placeholder ("$3.00 for an H100", written by Python at build time) and
// follows as the kind changes. A price changes no simulation, only what a dollar buys: the good
// requests per dollar beside the rate goodput, and figure 9. The power caps and the readers'
// queue rule are sliders like the panel's others (explorer.js).

/** @typedef {import("./settings.js").Field} Field */
/** @typedef {import("./settings.js").SettingsTable} SettingsTable */
/** @typedef {Record<string, number|string>} Settings */

/**
 * The field for one pool's price: label, a text input (a number input would hide what was
 * typed when it is not a number, so a refusal could not name it), a line of help, and a
 * note where a refused price is said, by the field that refused it.
 */
export class PriceField {
  /**
   * @param {SettingsTable} table @param {Field} f  reader_price or writer_price
   * @param {Record<string, string>} examples  each kind's placeholder, "$3.00 for an H100"
   * @param {() => Settings} current  the settings now
   * @param {(value: number) => void} set  apply a new price (0: the example price)
   */
  constructor(table, f, examples, current, set) {
    this.table = table;
    this.f = f;
    this.examples = examples;
    this.pool = f.name.split("_")[0]; // "reader" or "writer": reader_gpu, reader_power, ...
    /** What the note says, and for which settings. @type {string|null} */ this.saidFor = null;
    const row = document.createElement("div");
    row.className = "price";
    row.innerHTML = `<label for="price-${f.name}"></label>` +
      `<input type="text" id="price-${f.name}" data-setting="${f.name}" inputmode="decimal" autocomplete="off" spellcheck="false">` +
      `<p class="help" id="help-${f.name}"></p><p class="help said" id="note-${f.name}" role="status"></p>`;
    const label = /** @type {HTMLElement} */ (row.querySelector("label"));
    this.label = `${f.label} ($ per GPU-hour)`;
    label.textContent = this.label;
    label.title = f.help;
    /** @type {HTMLElement} */ (row.querySelector(".help:not(.said)")).textContent =
      `Dollars an hour for one ${this.pool} GPU; empty, the example price of its kind, as the field shows. ` +
      "A price changes no simulation, only what a dollar buys: the good requests per dollar beside DistServe's goodput, and the chip mix's chart.";
    this.input = /** @type {HTMLInputElement} */ (row.querySelector("input"));
    this.input.setAttribute("aria-describedby", `help-${f.name} note-${f.name}`);
    this.note = /** @type {HTMLElement} */ (row.querySelector(".said"));
    this.row = row;
    // A price that the page can use applies as it is typed; one it cannot ("-", "1e" on the
    // way to "1e3", or "abc") waits for Enter or for the field to be left, and is then refused.
    const commit = (/** @type {boolean} */ final) => {
      const { value, notice } = table.accept(f.name, this.input.value, this.label); // said as the field is labelled
      if (notice && !final) {
        this.input.setAttribute("aria-invalid", "true");
        return;
      }
      this.input.removeAttribute("aria-invalid");
      if (value !== current()[f.name]) set(value);
      else if (notice) this.write(value); // refused, and the price in use stays: show it
      if (notice) this.say(current(), notice);
    };
    this.input.addEventListener("input", () => {
      if (this.note.textContent) this.note.textContent = ""; // it spoke of what was typed before
      commit(false);
    });
    this.input.addEventListener("change", () => commit(true));
    this.input.addEventListener("keydown", (event) => { if (event.key === "Enter") commit(true); });
  }

  /** The price as the field writes it: empty for the example price. @param {number} value */
  write(value) {
    const text = value ? String(value) : "";
    if (this.input.value !== text) this.input.value = text;
  }

  /** A refusal said by the field, kept while these settings are. @param {Settings} s @param {string} text */
  say(s, text) {
    this.saidFor = this.table.key(s);
    this.note.textContent = text;
  }

  /**
   * Show the settings: the price (unless the text typed already means it: "2." is 2), and as
   * the placeholder the example price of the pool's kind now. @param {Settings} s
   */
  show(s) {
    if (this.note.textContent && this.saidFor !== this.table.key(s)) this.note.textContent = "";
    const placeholder = this.examples[String(s[`${this.pool}_gpu`])] ?? "";
    if (this.input.placeholder !== placeholder) this.input.placeholder = placeholder;
    const value = Number(s[this.f.name]);
    const typed = this.table.accept(this.f.name, this.input.value);
    if (typed.notice || typed.value !== value) {
      this.write(value);
      this.input.removeAttribute("aria-invalid");
    }
  }
}
