// Watch it run, drawn: the lanes of every layout on one clock, painted once into two layers,
// the run as it will be (faint) and as it was (solid), that watch.js copies up to the playhead
// each frame. Reads are blocks labelled with their tokens, steps are ticks (as tall as the
// share of the slots they wrote), crossings are bars on the link's lane.

const LABELS = 74; // px for the lanes' names
const PAD = 8; // px right of the window's end
const AXIS = 20; // px for the time axis at the top
const HEAD = 22; // px for a layout's name
const LANE = 24; // px a lane
const GAP = 8; // px between two layouts
// Each layout's name over its lanes, the longest that fits the canvas (a phone's is narrow).
const NAMES = { shared: ["shared: each GPU reads and writes", "shared: GPUs read and write", "shared"],
  split: ["split: readers, the link, writers", "split: readers, link, writers", "split"],
  chunked: ["chunked: each GPU reads in chunks while it writes", "chunked: reads in chunks as it writes",
    "chunked: reads in chunks", "chunked"] };

/**
 * The lanes of a layout, top to bottom: its instances (GPUs, with tp = 1); on the split its
 * readers, the link, then its writers (sim.watch's lanes and indices: they count instances).
 * @param {string} layout @param {Record<string, number|string>} s @returns {{lane: string, index: number}[]}
 */
export function laneRows(layout, s) {
  const gpus = Number(s.gpus), readers = Number(s.readers), tp = Number(s.tp ?? 1);
  const readerTp = Number(s.reader_tp ?? 0) || tp;
  const range = (/** @type {number} */ n, /** @type {string} */ lane) => Array.from({ length: n }, (_, index) => ({ lane, index }));
  if (layout !== "split") return range(gpus / tp, "gpu");
  return [...range(readers / readerTp, "reader"), { lane: "link", index: 0 }, ...range((gpus - readers) / tp, "writer")];
}

const TITLE_FONT = "600 13px system-ui, sans-serif";

/**
 * A layout's name over its lanes: the longest of its names that fits the canvas's width.
 * @param {CanvasRenderingContext2D} c  (its font: TITLE_FONT) @param {string} layout @param {number} width
 */
function title(c, layout, width) {
  const names = NAMES[/** @type {keyof NAMES} */ (layout)];
  return names.find((text) => 4 + c.measureText(text).width <= width - PAD) ?? names[names.length - 1];
}

/** A lane's name on the canvas. @param {{lane: string, index: number}} row */
const rowName = (row) => (row.lane === "link" ? "link" : `${row.lane === "gpu" ? "GPU" : row.lane} ${row.index}`);

/** "3,000 tokens", or as much of it as fits. @param {number} tokens @param {number} width @param {CanvasRenderingContext2D} c */
function tokenLabel(tokens, width, c) {
  for (const text of [`${tokens.toLocaleString("en-US")} tokens`, tokens.toLocaleString("en-US")]) {
    if (c.measureText(text).width + 6 <= width) return text;
  }
  return "";
}

/** Round seconds for the axis: a step of 1, 2 or 5 times a power of ten, about 5 labels across. @param {number} span */
function axisStep(span) {
  const raw = span / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= raw) ?? raw;
}

/**
 * px, the top and bottom of each layout's lanes, one under the other below the time axis, each
 * under its layout's name (HEAD px) and followed by a GAP.
 * @param {{rows: any[]}[]} layouts @returns {[number, number][]}
 */
function laneBands(layouts) {
  /** @type {[number, number][]} */ const bands = [];
  let top = AXIS;
  for (const layout of layouts) {
    bands.push([top + HEAD, top + HEAD + layout.rows.length * LANE]);
    top += HEAD + layout.rows.length * LANE + GAP;
  }
  return bands;
}

/**
 * Paint the window's events into two layers the canvas's size, and size the canvas to its lanes.
 * @param {HTMLCanvasElement} canvas
 * @param {{t0: number, t1: number, settings: Record<string, number|string>, layouts: {layout: string, events: any[], rows: {lane: string, index: number}[]}[]}} data
 * @param {Record<string, string>} colours  the theme's, resolved
 * @param {boolean} old  the events are for settings before the current ones: greyed
 * @returns {{solid: HTMLCanvasElement, ghost: HTMLCanvasElement, x: (t: number) => number, lanes: [number, number][]}}
 */
export function paintLayers(canvas, data, colours, old) {
  // the playhead crosses the lanes, not the layouts' names above them, which run across the
  // window (on a phone, most of it)
  const lanes = laneBands(data.layouts);
  const height = lanes.length ? lanes[lanes.length - 1][1] + GAP : AXIS;
  const scale = window.devicePixelRatio || 1;
  const width = Math.max(240, canvas.clientWidth);
  if (canvas.style.height !== `${height}px`) canvas.style.height = `${height}px`; // CSSOM, as CSP allows
  canvas.width = Math.round(width * scale);
  canvas.height = Math.round(height * scale);
  const { t0, t1 } = data;
  const x = (/** @type {number} */ t) => LABELS + ((t - t0) / (t1 - t0)) * (width - LABELS - PAD);
  const layer = (/** @type {boolean} */ solid) => {
    const out = document.createElement("canvas");
    out.width = canvas.width;
    out.height = canvas.height;
    const c = /** @type {CanvasRenderingContext2D} */ (out.getContext("2d"));
    c.scale(scale, scale);
    paint(c, data, colours, x, width, solid, lanes);
    return out;
  };
  const ghost = layer(false);
  const solid = layer(true);
  canvas.dataset.old = String(old);
  { // the layouts' names as drawn, and the room they had (for the tests: a canvas has no text)
    const c = /** @type {CanvasRenderingContext2D} */ (ghost.getContext("2d"));
    c.font = TITLE_FONT;
    canvas.dataset.titles = data.layouts.map((l) => title(c, l.layout, width)).join("|");
    canvas.dataset.room = String(width - PAD - 4);
  }
  if (old) for (const c of [ghost, solid]) greyed(c);
  return { solid, ghost, x, lanes };
}

/** Old events: faded into the background. @param {HTMLCanvasElement} layer */
function greyed(layer) {
  const c = /** @type {CanvasRenderingContext2D} */ (layer.getContext("2d"));
  c.save();
  c.setTransform(1, 0, 0, 1, 0, 0);
  c.globalCompositeOperation = "destination-out";
  c.globalAlpha = 0.65;
  c.fillRect(0, 0, layer.width, layer.height);
  c.restore();
}

/**
 * One layer: the axis, each layout's lanes and its events.
 * @param {CanvasRenderingContext2D} c @param {any} data @param {Record<string, string>} colours
 * @param {(t: number) => number} x @param {number} width @param {boolean} solid
 * @param {[number, number][]} lanes  laneBands' of data.layouts
 */
function paint(c, data, colours, x, width, solid, lanes) {
  const { t0, t1 } = data;
  const slots = Math.max(1, Number(data.settings.slots));
  c.font = "12px system-ui, sans-serif";
  c.textBaseline = "middle";
  { // the axis, in both layers alike
    c.fillStyle = colours.muted;
    const step = axisStep(t1 - t0);
    for (let t = Math.ceil(t0 / step) * step; t <= t1 + 1e-9; t += step) {
      const label = `${t.toFixed(Math.max(0, -Math.floor(Math.log10(step))))} s`;
      const at = x(t);
      c.fillRect(at, AXIS - 4, 1, 4);
      const w = c.measureText(label).width;
      if (at - w / 2 > LABELS - 4 && at + w / 2 < width) c.fillText(label, at - w / 2, AXIS / 2 - 1);
    }
  }
  for (const [k, layout] of data.layouts.entries()) {
    const [top] = lanes[k];
    const colour = colours[layout.layout];
    c.globalAlpha = 1;
    c.fillStyle = colours.ink;
    c.font = TITLE_FONT;
    c.fillText(title(c, layout.layout, width), 4, top - HEAD / 2);
    c.font = "12px system-ui, sans-serif";
    /** @type {Map<string, number>} */ const rowTop = new Map();
    layout.rows.forEach((/** @type {any} */ row, /** @type {number} */ i) => {
      const y = top + i * LANE;
      rowTop.set(`${row.lane} ${row.index}`, y);
      c.fillStyle = colours.line;
      c.fillRect(LABELS, y + LANE - 2, width - LABELS - PAD, 1);
      c.fillStyle = colours.ink;
      c.fillText(rowName(row), 4, y + LANE / 2);
    });
    c.globalAlpha = solid ? 1 : 0.22; // what has not happened yet, faint
    const ticks = new Path2D();
    for (const e of layout.events) {
      const y = rowTop.get(`${e.lane} ${e.index}`);
      if (y === undefined) continue;
      const a = Math.max(x(e.start), LABELS), b = Math.min(x(e.end), width - PAD);
      if (e.kind === "step") {
        if (e.tokens > 0) { // a chunked step that reads: a low block under its tick
          c.fillStyle = colour;
          c.globalAlpha = solid ? 0.35 : 0.1;
          c.fillRect(a, y + LANE - 8, Math.max(1, b - a), 6);
          c.globalAlpha = solid ? 1 : 0.22;
        }
        if (e.replies > 0 && x(e.end) <= width - PAD) {
          const h = 5 + (LANE - 9) * Math.min(1, e.replies / slots); // as tall as the slots it wrote
          ticks.rect(x(e.end) - 0.5, y + LANE - 2 - h, 1.2, h);
        }
      } else if (e.kind === "read") {
        c.fillStyle = colour;
        c.globalAlpha = solid ? 0.3 : 0.08;
        c.fillRect(a, y + 3, Math.max(1, b - a), LANE - 6);
        c.globalAlpha = solid ? 1 : 0.3;
        c.strokeStyle = colour;
        c.lineWidth = 1.5;
        c.strokeRect(a, y + 3, Math.max(1, b - a), LANE - 6);
        const label = tokenLabel(e.tokens, b - a, c);
        if (label) {
          c.fillStyle = colours.ink;
          c.fillText(label, a + 3, y + LANE / 2);
        }
        c.globalAlpha = solid ? 1 : 0.22;
      } else { // a crossing: a bar on the link's lane
        c.fillStyle = colour;
        c.globalAlpha = solid ? 0.75 : 0.2;
        c.fillRect(a, y + 8, Math.max(2, b - a), LANE - 16);
        c.globalAlpha = solid ? 1 : 0.22;
      }
    }
    c.fillStyle = colour;
    c.fill(ticks);
    c.globalAlpha = 1;
  }
}
