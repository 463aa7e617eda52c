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
 * @property {number[]|null} only  the only values a number may take (tp: 1, 2, 4 or 8)
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

/**
 * @typedef {Object} FitFacts  what keeps a model on instances that hold it (build.py bakes it
 *   from sim/model/costs.py): each model's weights and each kind's memory, in bytes, and the
 *   share of an instance's memory that is usable, [numerator, denominator]
 * @property {Record<string, number>} weights
 * @property {Record<string, number>} memory
 * @property {[number, number]} usable
 */

export class SettingsTable {
  /**
   * @param {Field[]} fields
   * @param {FitFacts} [facts]
   */
  constructor(fields, facts = { weights: {}, memory: {}, usable: [9, 10] }) {
    this.fields = fields;
    this.facts = facts;
    /** @type {Map<string, Field>} */
    this.byName = new Map(fields.map((f) => [f.name, f]));
  }

  /** @returns {Settings} */
  defaults() {
    return Object.fromEntries(this.fields.map((f) => [f.name, f.default]));
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
    if (f.only && !f.only.includes(value)) { // tp: 1, 2, 4 or 8 GPUs; the nearest, the larger on a tie
      const near = f.only.reduce((best, v) => (Math.abs(v - value) <= Math.abs(best - value) ? v : best));
      notice = notice || `${name}=${text} is not one of ${f.only.join(", ")}; using ${near}.`;
      value = near;
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
   * Settings that hang together, as the simulator's rules ask (sim/model/instances.py): the
   * model fits the instances that serve it; gpus counts whole instances, and readers whole
   * reader instances that leave at least one writer instance (so no shared instance mixes
   * the readers' and the writers' kinds). Returns the settings, changed as little as keeps
   * them together, and a sentence for each change, naming the setting and what it became.
   * @param {Settings} s @returns {{settings: Settings, notice: string|null}}
   */
  fit(s) {
    const next = { ...s };
    const said = [];
    const model = String(next.model);
    // 1. the model: the writers' tp must hold it on both kinds (the shared layout's first
    // instances are of the readers' kind), and reader_tp, if set, on the readers'
    const both = Math.max(this.smallestTp(model, String(next.reader_gpu)) ?? Infinity,
      this.smallestTp(model, String(next.writer_gpu)) ?? Infinity);
    if (both === Infinity) {
      const kind = this.smallestTp(model, String(next.reader_gpu)) === null ? next.reader_gpu : next.writer_gpu;
      const fallback = /** @type {Field} */ (this.byName.get("model")).default;
      said.push(`${this.tooBig(model, String(kind), 8)}; no instance of up to 8 ${kind}s holds it; using model=${fallback}.`);
      next.model = fallback;
    } else if (Number(next.tp) < both) {
      const kind = (this.smallestTp(model, String(next.writer_gpu)) ?? 0) >= both ? next.writer_gpu : next.reader_gpu;
      said.push(`${this.tooBig(model, String(kind), Number(next.tp))}; using tp=${both}.`);
      next.tp = both;
    }
    const readersNeed = this.smallestTp(String(next.model), String(next.reader_gpu)) ?? 1;
    if (Number(next.reader_tp) && Number(next.reader_tp) < readersNeed) {
      said.push(`${this.tooBig(String(next.model), String(next.reader_gpu), Number(next.reader_tp))}; using reader_tp=${readersNeed}.`);
      next.reader_tp = readersNeed;
    }
    // 2. whole instances: readers a multiple of both instance sizes, gpus of the writers', and
    // at least one writer instance (all within the page's range of GPUs)
    const tp = Number(next.tp);
    const each = Math.max(tp, Number(next.reader_tp) || tp);
    const top = /** @type {Field} */ (this.byName.get("gpus")).page[1];
    const [asked, of] = [Number(next.readers), Number(next.gpus)];
    const whole = Math.ceil(of / tp) * tp;
    let readers = Math.max(each, Math.round(asked / each) * each);
    const most = Math.floor((whole - tp) / each) * each; // the readers these GPUs leave a writer
    if (readers > most && most >= each) readers = most; // fewer readers, rather than more GPUs
    readers = Math.min(readers, Math.floor((top - tp) / each) * each);
    if (readers !== asked) {
      const sizes = Number(next.reader_tp) && Number(next.reader_tp) !== tp
        ? `whole instances of the readers' ${next.reader_tp} GPUs and of the writers' ${tp}` : `whole instances of ${tp} GPUs`;
      said.push(asked % each ? `readers=${asked} is not a multiple of ${each} (${sizes}); using ${readers}.`
        : `readers=${asked} leaves no writer among ${of} GPUs; using ${readers}.`);
      next.readers = readers;
    }
    const gpus = Math.max(whole, readers + tp);
    if (gpus !== of) {
      said.push(of % tp ? `gpus=${of} is not a whole number of instances of ${tp} GPUs; using ${gpus}.`
        : `gpus=${of} leaves no writer instance of ${tp} GPUs after ${readers} readers; using ${gpus}.`);
      next.gpus = gpus;
    }
    return { settings: said.length ? next : s, notice: said.length ? said.join(" ") : null };
  }

  /**
   * The fewest GPUs of a kind (1, 2, 4 or 8) whose usable memory holds a model's weights, or
   * null if no instance does. @param {string} model @param {string} kind @returns {number|null}
   */
  smallestTp(model, kind) {
    return [1, 2, 4, 8].find((t) => this.usable(kind, t) >= this.facts.weights[model]) ?? null;
  }

  /** The memory an instance of t GPUs of a kind may use, in bytes. @param {string} kind @param {number} t */
  usable(kind, t) {
    const [share, of] = this.facts.usable;
    return Math.floor((t * this.facts.memory[kind] * share) / of); // exact: below 2**53
  }

  /**
   * Why a model does not fit t GPUs of a kind, as the simulator says it (sim/model/instances.py).
   * @param {string} model @param {string} kind @param {number} t
   */
  tooBig(model, kind, t) {
    const gb = (/** @type {number} */ x) => (x / 1e9).toFixed(1);
    const [share, of] = this.facts.usable;
    return `model=${model} does not fit: its weights are ${gb(this.facts.weights[model])} GB, and an instance of ` +
      `${t} ${kind}${t > 1 ? "s" : ""} may use ${gb(this.usable(kind, t))} GB (${(share * 100) / of}% of ${(t * this.facts.memory[kind]) / 2 ** 30} GiB)`;
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
