// Watch it run: what is true at the playhead, for one layout, worked out from the events of the
// window and each request's times (Watched.requests) that the same run gives; nothing else.

const EPS = 1e-9; // s: the model's tie (costs.EPS): a step that starts at a word writes the next

// The shapes of a layout's run as Watch it run holds it (here, the lowest of its modules, so
// that each of them can name them without importing one above it).
/** @typedef {{lane: string, index: number, kind: string, start: number, end: number, request: number, replies: number, tokens: number}} WatchEvent */
/** @typedef {{request: number, arrival: number, read: number|null, lane: string, index: number, first: number, last: number, word: number|null}} WatchRequest */
/** @typedef {{layout: string, events: WatchEvent[], requests: WatchRequest[], steps: Map<string, WatchEvent[]>, rows: {lane: string, index: number}[], capacity?: Record<string, number[]>}} Layout */

/** The largest i with list[i].end <= t, or -1 (a lane's steps follow one another). @param {WatchEvent[]} list @param {number} t */
function lastEnded(list, t) {
  let lo = 0, hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid].end <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/**
 * At the playhead t, for one layout: prompts waiting for a reader (chunked: not yet read), the
 * replies in each writing GPU's slots, and the longest gap any of them is in now (the time
 * since its last word: its first, or the end of its GPU's last step that began at its first
 * word or later).
 * @param {Layout} layout @param {number} t
 */
export function moment(layout, t) {
  let waiting = 0, gap = 0;
  /** @type {Map<string, number>} */ const slots = new Map();
  for (const row of layout.rows) if (layout.steps.has(`${row.lane} ${row.index}`)) slots.set(`${row.lane} ${row.index}`, 0);
  for (const r of layout.requests) {
    if (r.arrival <= t && (r.read === null ? r.first > t : r.read > t)) waiting += 1;
    if (!(r.first <= t && t < r.last)) continue;
    const lane = `${r.lane} ${r.index}`;
    slots.set(lane, (slots.get(lane) ?? 0) + 1);
    const steps = layout.steps.get(lane) ?? [];
    const k = lastEnded(steps, t);
    const word = k >= 0 && steps[k].start >= r.first - EPS ? steps[k].end : r.word ?? r.first;
    gap = Math.max(gap, t - word);
  }
  const doing = layout.events.filter((e) => e.kind !== "step" && e.start <= t && t < e.end);
  return { waiting, slots, gap, doing };
}
