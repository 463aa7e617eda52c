// The one-line embed for course sites. A page that loads this script once, as
//   <script src="<where dist/ is>/embed.js" defer></script>
// gets, for every element <div data-pdsplit="?rps=10&show=link"></div>, a frame of the lesson
// in embed mode with those settings and parts. How to use it, the parts, the themes, the CSP
// a strict host needs: docs/course-sites.md, "Live pieces in your text, one line each"; what a
// page with N pieces costs, and how they share one Python: its "What a page with N pieces
// costs: one Python, shared".
// The pieces of one page share one Python: with the first piece, this script adds one hidden
// frame, hub.html, beside the pieces, which owns the page's worker (hub.js), and gives every
// piece its id (?hub=, fresh for each page load, so two pages in two tabs never share). A piece
// whose hub is missing runs its own worker, as a piece did before there was a hub.
// Each frame is made lazily: its page loads only once it is near the screen (and the hub,
// with its Python, some 65 MB of memory and a second's boot, only with the first piece). Each
// fits its content: the page says how tall it is (a "pdsplit:height" message) and the frame
// takes that height, so it never scrolls inside. Elements added later (a Docusaurus page
// rendered after this script ran, MkDocs Material's instant navigation) are found too.
//
// A classic script, not a module, so that the same line works wherever a site lets an author
// write a <script> tag; everything is kept inside a block so that it adds no global name. It
// sets no inline style the host's CSP would have to allow: sizes go through the CSSOM.
{
  const script = /** @type {HTMLScriptElement|null} */ (document.currentScript);
  // The page sits beside this script, wherever the site put dist/.
  const page = new URL("index.html", script?.src ?? location.href);
  // This page load's hub: where the browser has BroadcastChannel, over which the pieces reach
  // it (without it, no hub, and each piece runs its own worker).
  const hubId = typeof BroadcastChannel === "function"
    ? `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}` : null;
  /** @type {HTMLIFrameElement|null} */ let hub = null;
  /** The colours an author may set on the host page, as --pdsplit-<name> (style.css's names). */
  const COLOURS = ["bg", "ink", "muted", "line", "accent", "hover", "error", "notice-bg", "notice-line",
    "track", "shared", "split", "chunked", "shared-text", "split-text", "chunked-text", "target", "mark", "grid"];
  const NEAR = "600px 0px"; // start loading a piece this far before it scrolls into view
  const FIRST_HEIGHT = 480; // px, until the piece says how tall it is

  /** Each piece's frame by its page's window (weakly: a site may remove a piece). */
  /** @type {WeakMap<Window, HTMLIFrameElement>} */
  const frames = new WeakMap();

  /** The frame's URL: the element's query, in embed mode. @param {string} query */
  const frameURL = (query) => {
    const url = new URL(page);
    url.search = new URLSearchParams(query.trim().replace(/^\?/, "")).toString();
    url.searchParams.set("embed", "1");
    if (hubId) url.searchParams.set("hub", hubId);
    return url.href;
  };

  /** The host's --pdsplit-<name> colours for a piece, as the page's --<name>. @param {Element} element */
  const colours = (element) => {
    const style = getComputedStyle(element);
    /** @type {Record<string, string>} */ const found = {};
    for (const name of COLOURS) {
      const value = style.getPropertyValue(`--pdsplit-${name}`).trim();
      if (value) found[`--${name}`] = value;
    }
    return found;
  };

  const lazy = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      const frame = /** @type {HTMLIFrameElement} */ (entry.target);
      lazy.unobserve(frame);
      startHub();
      frame.src = /** @type {string} */ (frame.dataset.src);
    }
  }, { rootMargin: NEAR });

  /** The hub's frame, once, with the first piece that loads: hidden, out of the reading and
   * tab order, at the end of <body> (outside whatever part a site's router re-renders). */
  const startHub = () => {
    if (!hubId || hub) return;
    hub = document.createElement("iframe");
    hub.className = "pdsplit-hub";
    hub.title = "The simulator shared by this page's live pieces (nothing to see)";
    hub.hidden = true;
    hub.tabIndex = -1;
    hub.setAttribute("aria-hidden", "true");
    hub.src = new URL(`hub.html?hub=${hubId}`, page).href;
    (document.body ?? document.documentElement).append(hub);
  };

  /** Put a frame in an element that asks for a piece (once). @param {HTMLElement} element */
  const mount = (element) => {
    if (element.dataset.pdsplitMounted) return;
    element.dataset.pdsplitMounted = "1";
    const frame = document.createElement("iframe");
    frame.className = "pdsplit-frame";
    frame.title = element.dataset.pdsplitTitle || "Interactive lesson: why split reading the prompt from writing the reply?";
    frame.loading = "lazy"; // the browser's own laziness too, where the observer is not run
    frame.dataset.src = frameURL(element.dataset.pdsplit ?? "");
    frame.width = "100%";
    frame.style.height = `${FIRST_HEIGHT}px`;
    frame.style.border = "0";
    frame.style.display = "block";
    frame.style.width = "100%";
    element.replaceChildren(frame);
    frame.addEventListener("load", () => {
      if (frame.contentWindow) frames.set(frame.contentWindow, frame);
    });
    lazy.observe(frame);
  };

  const mountAll = (/** @type {ParentNode} */ root) => {
    for (const element of root.querySelectorAll("[data-pdsplit]")) mount(/** @type {HTMLElement} */ (element));
  };

  addEventListener("message", (event) => {
    if (event.origin !== page.origin || event.data?.type !== "pdsplit:height") return;
    // The frame whose page sent it (found before its load event too: a frame's window is
    // known as soon as it exists).
    let frame = frames.get(/** @type {Window} */ (event.source));
    if (!frame) {
      frame = [...document.querySelectorAll("iframe.pdsplit-frame")].find((f) => /** @type {HTMLIFrameElement} */ (f).contentWindow === event.source);
      if (!frame) return;
      frames.set(/** @type {Window} */ (event.source), frame);
    }
    const height = Number(event.data.height);
    if (Number.isFinite(height) && height > 0) frame.style.height = `${Math.ceil(height)}px`;
    if (!frame.dataset.coloured) { // the page is up and listening: pass on the author's colours
      frame.dataset.coloured = "1";
      const found = colours(/** @type {Element} */ (frame.parentElement));
      if (Object.keys(found).length) frame.contentWindow?.postMessage({ type: "pdsplit:colours", colours: found }, page.origin);
    }
  });

  mountAll(document);
  new MutationObserver((changes) => {
    for (const change of changes) {
      for (const node of change.addedNodes) {
        if (!(node instanceof HTMLElement)) continue;
        if (node.matches("[data-pdsplit]")) mount(node);
        mountAll(node);
      }
    }
  }).observe(document.documentElement, { childList: true, subtree: true });
}
