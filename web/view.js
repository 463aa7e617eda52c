// Putting things on screen: the headline, the table, the charts, the status and notices.
// Every number shown is text made by the simulator's Python (sim/report.py).

/* global Plotly */

const PLOTLY_CONFIG = { responsive: true, displayModeBar: false, scrollZoom: false };

/**
 * Text from a template made in Python (the headline, a caption): "{shared.goodput}" becomes
 * that number, marked data-metric="shared.goodput".
 * @param {HTMLElement} element @param {string} template @param {Record<string, string>} shown
 * @param {string} [tag] the element each number goes in
 */
export function showTemplate(element, template, shown, tag = "strong") {
  element.replaceChildren();
  for (const piece of template.split(/(\{[a-z_0-9]+\.[a-z_0-9]+\})/)) {
    const key = piece.match(/^\{(.+)\}$/)?.[1];
    if (key && key in shown) {
      const span = document.createElement(tag);
      span.dataset.metric = key;
      span.textContent = shown[key];
      element.append(span);
    } else {
      element.append(piece);
    }
  }
}

/** Fill every [data-metric] element below root. @param {ParentNode} root @param {Record<string, string>} shown */
export function showNumbers(root, shown) {
  for (const element of root.querySelectorAll("[data-metric]")) {
    const key = /** @type {HTMLElement} */ (element).dataset.metric ?? "";
    if (key in shown) element.textContent = shown[key];
  }
}

/**
 * Draw a Plotly figure dict made in Python (none for a finding told in words); the caption.
 * @param {HTMLElement|null} chart @param {HTMLElement|null} caption
 * @param {{figure: any, caption: string, template: string, shown: Record<string, string>}} reply
 */
export function showFigure(chart, caption, reply) {
  if (chart && reply.figure) {
    const figure = structuredClone(reply.figure); // Plotly writes into what it is given
    Plotly.react(chart, figure.data, figure.layout, PLOTLY_CONFIG);
  }
  if (caption) showTemplate(caption, reply.template, reply.shown, "span");
}

/** @param {HTMLElement} element @param {string} text @param {"info"|"busy"|"error"} [kind] */
export function showStatus(element, text, kind = "info") {
  element.textContent = text;
  element.dataset.kind = kind;
}

/** @param {HTMLElement} element @param {string[]} notices */
export function showNotices(element, notices) {
  element.replaceChildren(...notices.map((text) => Object.assign(document.createElement("li"), { textContent: text })));
  element.hidden = notices.length === 0;
}
