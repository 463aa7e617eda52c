// Watch it run, with memory=kv: each lane's KV cache in use at the playhead, as a bar against
// its capacity (a <meter>, so a screen reader hears it too), from the run's own `kv` events
// (sim.watch: a lane's maximal runs of equal tokens). On the split, a reader that is idle while
// prompts wait in its queue is held back by memory, the only thing that keeps it from them
// (docs/model.md: "Memory that pushes back"), and it says so.

/** @typedef {import("./watchnow.js").WatchEvent} WatchEvent */

/**
 * The tokens each lane holds at t: the lane's kv event that covers t (none: nothing held).
 * @param {WatchEvent[]} events  a layout's events in the window @param {number} t
 * @returns {Map<string, number>}  by "lane index"
 */
export function kvAt(events, t) {
  /** @type {Map<string, number>} */ const held = new Map();
  for (const e of events) {
    if (e.kind !== "kv") continue;
    const lane = `${e.lane} ${e.index}`;
    if (!held.has(lane)) held.set(lane, 0);
    if (e.start <= t && t < e.end) held.set(lane, e.tokens);
  }
  return held;
}

/** A lane's name as the readouts write it: "GPU 0", "reader 1". @param {string} lane */
const name = (lane) => lane.replace("gpu", "GPU");

/**
 * Fill a readout cell with a bar per lane: its tokens against its capacity, and for an idle
 * reader with prompts waiting, that it waits for room.
 * @param {HTMLElement} cell
 * @param {{lane: string, index: number}[]} rows  the layout's lanes (watchdraw.js laneRows)
 * @param {Map<string, number>} held  kvAt's
 * @param {Record<string, number[]>} capacity  each lane's instances' capacity (the watch reply's)
 * @param {Set<string>} busy  the lanes reading at the playhead
 * @param {number} waiting  prompts waiting for a reader
 */
export function showKv(cell, rows, held, capacity, busy, waiting) {
  const lines = [];
  for (const row of rows) {
    const of = capacity[row.lane]?.[row.index];
    if (of === undefined) continue; // the link holds no cache of its own
    const lane = `${row.lane} ${row.index}`;
    const tokens = held.get(lane) ?? 0;
    const stalled = row.lane === "reader" && waiting > 0 && !busy.has(lane);
    lines.push({ lane, tokens, of, stalled });
  }
  const text = lines.map((l) => `${l.lane}:${l.tokens}/${l.of}:${l.stalled}`).join(" ");
  if (cell.dataset.kv === text) return; // only what changed is written (a frame waits for it)
  cell.dataset.kv = text;
  cell.replaceChildren(...lines.map((l) => {
    const line = document.createElement("span");
    line.className = "kv-lane";
    line.dataset.lane = l.lane;
    line.dataset.tokens = String(l.tokens);
    const label = `${name(l.lane)}: ${l.tokens.toLocaleString("en-US")} of ${l.of.toLocaleString("en-US")} tokens`;
    const meter = document.createElement("meter");
    meter.min = 0;
    meter.max = l.of;
    meter.value = l.tokens;
    meter.setAttribute("aria-label", label);
    const words = document.createElement("span");
    words.textContent = `${name(l.lane).replace(" ", "\u00a0")} ${(100 * l.tokens / l.of).toFixed(1)}%` +
      (l.stalled ? ", waits for room" : "");
    if (l.stalled) line.classList.add("stalled");
    line.append(meter, words);
    return line;
  }));
}
