// The controls that set one setting each: a slider with − and + buttons (the lesson's six and
// the explorer's numeric settings), or a choice (the explorer's named settings). Built from
// the settings table; the page owns the settings and is told of each new value.

/** @typedef {import("./settings.js").Field} Field */
/** @typedef {import("./settings.js").SettingsTable} SettingsTable */

/**
 * A slider row: label and value, then [−] slider [+]. On a phone a stop is a few px wide, so
 * the buttons step exactly one stop.
 * @param {SettingsTable} table @param {Field} f
 * @param {() => Record<string, number|string>} current  the settings now
 * @param {(value: number) => void} set  called with a new value
 * @param {() => void} [atTop]  called when + is pressed at the highest stop it may reach now
 * @param {(value: number, step: number) => number} [by]  the value a button steps to, where a
 *   stop is not the step (GPUs and readers move by whole instances); the settings fit it
 * @returns {HTMLElement}
 */
export function sliderRow(table, f, current, set, atTop = () => {}, by = undefined) {
  const row = document.createElement("div");
  row.className = "slider";
  row.innerHTML = `<div class="head"><label for="slider-${f.name}"></label><output id="value-${f.name}" for="slider-${f.name}" data-setting="${f.name}" data-metric="settings.${f.name}"></output></div>` +
    `<button type="button" class="step" data-step="-1">−</button>` +
    `<input type="range" id="slider-${f.name}" min="0" max="${(f.slider ?? []).length - 1}" step="1">` +
    `<button type="button" class="step" data-step="1">+</button>`;
  const label = /** @type {HTMLElement} */ (row.querySelector("label"));
  label.textContent = f.label;
  label.title = f.help;
  const slider = /** @type {HTMLInputElement} */ (row.querySelector("input"));
  const stops = /** @type {number[]} */ (f.slider);
  slider.addEventListener("input", () => set(stops[Number(slider.value)]));
  for (const button of row.querySelectorAll("button.step")) {
    const step = Number(/** @type {HTMLElement} */ (button).dataset.step);
    button.setAttribute("aria-label", `${step < 0 ? "Lower" : "Raise"} ${f.label.toLowerCase()} one stop`);
    button.addEventListener("click", () => {
      const top = Number(slider.max); // a slider may offer fewer stops than its field (readers)
      const now = Number(current()[f.name]);
      if (by) { // whole instances: within the stops the slider may reach now
        const next = by(now, step);
        if (next >= stops[Number(slider.min)] && next <= stops[top] && next !== now) set(next);
        else if (step > 0) atTop();
        return;
      }
      const index = Math.min(top, Math.max(Number(slider.min), table.sliderIndex(f.name, now) + step));
      if (stops[index] !== current()[f.name]) set(stops[index]);
      else if (step > 0) atTop();
    });
  }
  return row;
}

/**
 * A choice row: label and a select of the setting's names (or of a 0/1 setting's words).
 * @param {Field} f @param {(value: number|string) => void} set
 * @returns {HTMLElement}
 */
export function choiceRow(f, set) {
  const row = document.createElement("div");
  row.className = "choice";
  row.innerHTML = `<label for="choice-${f.name}"></label><select id="choice-${f.name}" data-setting="${f.name}"></select>`;
  const label = /** @type {HTMLElement} */ (row.querySelector("label"));
  label.textContent = f.label;
  label.title = f.help;
  const select = /** @type {HTMLSelectElement} */ (row.querySelector("select"));
  const values = f.choices ?? (f.slider ?? []);
  values.forEach((value, i) => {
    select.append(new Option(f.names ? f.names[i] : String(value), String(value)));
  });
  select.addEventListener("change", () => set(f.choices ? select.value : Number(select.value)));
  return row;
}

/**
 * Show a setting's value on its control.
 * @param {SettingsTable} table @param {Field} f @param {number|string} value
 * @param {number} [top]  the highest stop the slider may reach now (readers: gpus - 1)
 * @param {string} [words]  what its value reads instead of the value (a prompt set by a trace)
 * @param {number} [bottom]  the lowest stop it may reach now (tp: the fewest GPUs that hold the model)
 */
export function showControl(table, f, value, top, words, bottom) {
  // Only what differs is written: every control is shown again at every change, and a
  // write, even of the same text, makes the browser lay out and paint it again, in the
  // frame that the new numbers then wait for.
  const select = /** @type {HTMLSelectElement|null} */ (document.getElementById(`choice-${f.name}`));
  if (select) {
    if (select.value !== String(value)) select.value = String(value);
    return;
  }
  const slider = /** @type {HTMLInputElement} */ (document.getElementById(`slider-${f.name}`));
  const max = top === undefined ? slider.max : String(table.sliderIndex(f.name, top));
  if (slider.max !== max) slider.max = max;
  const min = bottom === undefined ? "0" : String(table.sliderIndex(f.name, bottom));
  if (slider.min !== min) slider.min = min;
  const index = String(table.sliderIndex(f.name, Number(value)));
  if (slider.value !== index) slider.value = index;
  const text = words ?? table.show(f.name, value);
  if (slider.getAttribute("aria-valuetext") !== text) slider.setAttribute("aria-valuetext", text);
  const shown = /** @type {HTMLElement} */ (document.getElementById(`value-${f.name}`));
  if (shown.textContent !== text) shown.textContent = text;
}

/**
 * A row of buttons, one per named state, each setting exactly its settings.
 * @param {HTMLElement} where @param {{label: string, settings: Record<string, number|string>}[]} states
 * @param {(settings: Record<string, number|string>) => void} set
 */
export function stateButtons(where, states, set) {
  for (const state of states) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = state.label;
    button.addEventListener("click", () => set({ ...state.settings }));
    where.append(button);
  }
}

/** "GPUs in all" -> "GPUs in all." and "more GPUs ..." -> "More GPUs ...". @param {string} text */
function sentence(text) {
  if (!text) return "";
  return `${text[0].toUpperCase()}${text.slice(1)}${/[.?!]$/.test(text) ? "" : "."}`;
}

/**
 * Put a control's line of help under it: what it models and what to look for, in the
 * lesson's words; the control is described by it. @param {HTMLElement} row @param {Field} f
 */
export function describe(row, f) {
  const help = document.createElement("p");
  help.className = "help";
  help.id = `help-${f.name}`;
  help.textContent = `${sentence(f.help)} ${sentence(f.look)}`.trim();
  row.append(help);
  row.querySelector("select, input")?.setAttribute("aria-describedby", help.id);
}

/**
 * Let a slider be moved, or not (the prompt and reply while a trace sets them).
 * @param {Field} f @param {boolean} on
 */
export function movable(f, on) {
  const row = document.getElementById(`slider-${f.name}`)?.closest(".slider");
  if (!row) return;
  for (const control of row.querySelectorAll("input, button")) {
    if (/** @type {HTMLInputElement} */ (control).disabled === on) /** @type {HTMLInputElement} */ (control).disabled = !on;
  }
  row.classList.toggle("fixed", !on);
}
