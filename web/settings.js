// The settings table from sim/settings.py (baked into the page as JSON): names, defaults,
// limits and slider values. The URL, the sliders and window.pdsplit all go through here.

/**
 * @typedef {Object} Field
 * @property {string} name      the API's name (also the URL's)
 * @property {number} default
 * @property {string} label     words by the slider
 * @property {string} unit
 * @property {string} one       the unit after exactly 1 ("GPU" where unit is "GPUs")
 * @property {[number, number]} limits  what the simulator accepts
 * @property {[number, number]} page    what the page takes from its URL
 * @property {boolean} whole
 * @property {number[]|null} slider     exact values a slider steps through
 * @property {[number, string|null]} shown  factor and unit used to show the value
 * @property {boolean} log
 * @property {string} help
 * @property {string[]|null} choices  the names a named setting takes (routing, reader_gpu ...)
 * @property {"lesson"|"explorer"} group
 * @property {string} look      what to look for when moving it (the explorer's settings)
 * @property {string[]|null} names  words for each slider value (layerwise: whole, layer by layer)
 */

/** @typedef {Record<string, number|string>} Settings */

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const INFINITE = /^([+-]?)inf(inity)?$/i;

/**
 * A number written in decimal, as Python's float() reads it ("2e3", ".5", "-inf"); NaN for
 * anything else, so "0x10", "1,000" or "" are refused rather than read some other way.
 * Infinite and huge values come back infinite, to be clamped to the range's end.
 * @param {string} text @returns {number}
 */
export function readNumber(text) {
  const infinite = text.match(INFINITE);
  if (infinite) return infinite[1] === "-" ? -Infinity : Infinity;
  return DECIMAL.test(text) ? Number(text) : NaN;
}

/** A price as the page writes it in words: "$1,000", "$2.5". @param {number} x */
function dollars(x) {
  return `$${x.toLocaleString("en-US")}`;
}

export class SettingsTable {
  /**
   * @param {Field[]} fields
   * @param {Record<string, number|string>} [later]  settings of the simulator's that the page
   *   does not offer yet (the model, tp, costs, memory), and their defaults, which it keeps
   */
  constructor(fields, later = {}) {
    this.fields = fields;
    this.later = later;
    /** @type {Map<string, Field>} */
    this.byName = new Map(fields.map((f) => [f.name, f]));
  }

  /** @returns {Settings} */
  defaults() { // with the settings the page keeps at their defaults, so that it says them all
    return { ...Object.fromEntries(this.fields.map((f) => [f.name, f.default])), ...this.later };
  }

  /** A stable key for a full set of settings. @param {Settings} s */
  key(s) {
    return this.fields.map((f) => s[f.name]).join("|");
  }

  /**
   * A value as the page may use it: a number within the page's range (whole if need be).
   * Returns the value and, if it had to change, a sentence saying so: naming the URL's key
   * ("reader_price=abc"), or, for what was typed into a field, the field as the page labels it.
   * @param {string} name @param {unknown} raw @param {string} [label]  the field's label
   * @returns {{value: number|string, notice: string|null}}
   */
  accept(name, raw, label) {
    const f = this.byName.get(name);
    if (!f) throw new Error(`unknown setting ${JSON.stringify(name)}`);
    if (f.choices) {
      const text = String(raw).trim();
      if (f.choices.includes(text)) return { value: text, notice: null };
      return { value: f.default, notice: `${name}=${text} is not one of ${f.choices.join(", ")}; using ${f.default}.` };
    }
    if (f.group === "price") return this.acceptPrice(f, raw, label);
    const [lo, hi] = f.page;
    const text = String(raw).trim();
    let value = typeof raw === "number" ? raw : readNumber(text);
    if (Number.isNaN(value)) {
      return { value: f.default, notice: `${name}=${text} is not a number; using ${this.show(name, f.default)}.` };
    }
    let notice = null;
    if (value < lo || value > hi) {
      const edge = value < lo ? lo : hi;
      notice = `${name}=${text} is ${value < lo ? "below" : "above"} the page's range ` +
        `(${this.show(name, lo)} to ${this.show(name, hi)}); using ${this.show(name, edge)}.`;
      value = edge;
    }
    if (f.whole && !Number.isInteger(value)) {
      value = Math.round(value);
      notice = notice || `${name}=${text} must be a whole number; using ${this.show(name, value)}.`;
    }
    return { value, notice };
  }

  /**
   * A price (reader_price, writer_price), in dollars an hour for one GPU: empty or 0 is the
   * example price of the pool's kind, and a leading "$" may be typed. Anything else is refused
   * with a sentence naming the field, the value and what the page takes, as accept() does.
   * @param {Field} f @param {unknown} raw @param {string} [label]  the field's, if typed into it
   * @returns {{value: number, notice: string|null}}
   */
  acceptPrice(f, raw, label) {
    const [lo, hi] = f.page;
    const text = String(raw).trim();
    const given = label ? `${label}: “${text}”` : `${f.name}=${text}`; // where it was given, as it was
    const value = typeof raw === "number" ? raw : text === "" ? 0 : readNumber(text.replace(/^\$\s*/, ""));
    const range = `${dollars(lo)} to ${dollars(hi)} an hour per GPU`;
    const example = "empty or 0: the example price of its kind";
    if (Number.isNaN(value)) {
      return { value: f.default, notice: `${given} is not a price: the page takes ${range} (${example}); using the example price.` };
    }
    if (value < lo) {
      return { value: f.default, notice: `${given} is below the page's range of prices (${range}; ${example}); using the example price.` };
    }
    if (value > hi) {
      return { value: hi, notice: `${given} is above the page's range of prices (${range}); using ${dollars(hi)}.` };
    }
    return { value, notice: null };
  }

  /**
   * Settings that hang together: the split needs a writer, so readers stay below gpus.
   * Returns the settings and, if they had to change, a sentence saying so.
   * @param {Settings} s @returns {{settings: Settings, notice: string|null}}
   */
  fit(s) {
    const most = Number(s.gpus) - 1;
    if (Number(s.readers) <= most) return { settings: s, notice: null };
    return {
      settings: { ...s, readers: most },
      notice: `readers=${s.readers} leaves no writer among ${s.gpus} GPUs; using ${most}.`,
    };
  }

  /**
   * Settings from a URL query (?rps=10&link=0.25): defaults for the rest.
   * @param {string} search
   * @returns {{settings: Settings, notices: string[]}}
   */
  fromQuery(search) {
    const settings = this.defaults();
    const notices = [];
    for (const [name, raw] of new URLSearchParams(search)) {
      if (VIEW.includes(name)) continue; // how it is shown: readView
      if (name in this.later) { // the page keeps its default; any other value is refused
        if (String(raw).trim() !== String(this.later[name])) notices.push(this.notOffered(name, raw));
        continue;
      }
      if (!this.byName.has(name)) {
        notices.push(`Unknown setting ${JSON.stringify(name)} ignored; known: ${[...this.byName.keys()].join(", ")}.`);
        continue;
      }
      const { value, notice } = this.accept(name, raw);
      settings[name] = value;
      if (notice) notices.push(notice);
    }
    const fitted = this.fit(settings);
    if (fitted.notice) notices.push(fitted.notice);
    return { settings: fitted.settings, notices };
  }

  /**
   * A setting of the simulator's that the page does not offer yet, refused in words.
   * @param {string} name @param {unknown} raw
   */
  notOffered(name, raw) {
    return `${name}=${String(raw).trim()} is not on this page yet: it runs ${this.later.model} on single GPUs with the lesson's costs and slots ` +
      `(bigger models, GPUs working as one, roofline costs and KV memory are in python -m sim; see docs/simulator.md); using ${name}=${this.later[name]}.`;
  }

  /** The query for settings: only what differs from the defaults. @param {Settings} s */
  toQuery(s) {
    const params = new URLSearchParams();
    for (const f of this.fields) if (s[f.name] !== f.default) params.set(f.name, String(s[f.name]));
    const text = params.toString();
    return text ? `?${text}` : "";
  }

  /** Index of the slider value nearest to a value. @param {string} name @param {number} value */
  sliderIndex(name, value) {
    const values = /** @type {number[]} */ (this.byName.get(name)?.slider);
    let best = 0;
    for (let i = 1; i < values.length; i++) {
      if (Math.abs(values[i] - value) < Math.abs(values[best] - value)) best = i;
    }
    return best;
  }

  /** A setting as the page shows it, e.g. "4 req/s", "100 ms". @param {string} name @param {number|string} value */
  show(name, value) {
    const f = /** @type {Field} */ (this.byName.get(name));
    if (typeof value === "string") return value;
    const [factor, unit] = f.shown;
    // 0.1 x 1000 reads 100, not 100.00000000000001; whole numbers are exact as they are
    const text = f.whole ? (value * factor).toLocaleString("en-US")
      : String(Number((value * factor).toPrecision(12)));
    const u = unit ?? (value * factor === 1 ? f.one : f.unit); // "1 GPU", "2 GPUs"
    return u ? `${text} ${u}` : text;
  }
}

/** The URL's names that say how the page is shown, not what is simulated. */
export const VIEW = ["embed", "show", "theme", "controls", "hub"]; // hub: embed.js's, for the page's shared Python
/** ?theme=: auto follows the reader's prefers-color-scheme. */
export const THEMES = ["auto", "light", "dark"];

/**
 * @typedef {Object} View
 * @property {boolean} embed  framed in a course site: no title, no introduction
 * @property {"auto"|"light"|"dark"} theme
 * @property {Set<string>|null} show  the parts shown; null: every part
 * @property {string[]|null} controls  the sliders shown; null: every slider (and the states)
 * @property {string[]} notices  what was refused, and what was used instead
 */

/**
 * A comma list from the URL, split into known and unknown names.
 * @param {string} raw @param {string[]} known
 */
function namesIn(raw, known) {
  const names = raw.split(",").map((n) => n.trim()).filter(Boolean);
  return { good: names.filter((n) => known.includes(n)), bad: names.filter((n) => !known.includes(n)) };
}

/**
 * How the page is shown, from its URL (?embed=1&show=link,controls&controls=link&theme=dark).
 * Like a setting, a value the page cannot use is refused with a sentence that names it and
 * what is allowed, and the page goes on with the rest (every part, if none is left): a bad
 * link in a course page never gives a blank piece.
 * @param {string} search @param {string[]} parts  the names of the parts @param {string[]} sliders
 * @returns {View}
 */
export function readView(search, parts, sliders) {
  const query = new URLSearchParams(search);
  /** @type {View} */
  const view = { embed: false, theme: "auto", show: null, controls: null, notices: [] };
  const embed = query.get("embed");
  if (embed !== null) {
    if (embed === "1" || embed === "0") view.embed = embed === "1";
    else view.notices.push(`embed=${embed} is not one of 0, 1; using 0.`);
  }
  const theme = query.get("theme");
  if (theme !== null) {
    if (THEMES.includes(theme)) view.theme = /** @type {View["theme"]} */ (theme);
    else view.notices.push(`theme=${theme} is not one of ${THEMES.join(", ")}; using auto (the reader's light or dark).`);
  }
  const controls = query.get("controls");
  if (controls !== null) {
    const { good, bad } = namesIn(controls, sliders);
    if (bad.length) {
      view.notices.push(`controls=${controls}: ${bad.join(", ")} ${bad.length > 1 ? "are not sliders" : "is not a slider"}; ` +
        `the sliders are ${sliders.join(", ")}. ${good.length ? `Showing ${good.join(", ")}.` : "Showing them all."}`);
    }
    if (good.length) view.controls = good;
  }
  const show = query.get("show");
  if (show !== null) {
    const { good, bad } = namesIn(show, parts);
    if (bad.length || !good.length) {
      view.notices.push(`show=${show}: ${bad.length ? `${bad.join(", ")} ${bad.length > 1 ? "are not parts" : "is not a part"}` : "names no part"}; ` +
        `the parts are ${parts.join(", ")}. ${good.length ? `Showing ${good.join(", ")}.` : "Showing every part."}`);
    }
    if (good.length) view.show = new Set(good);
  }
  if (view.show && controls !== null) view.show.add("controls"); // a list of sliders shows them
  return view;
}
