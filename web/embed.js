// The one-line embed for course sites. A page that loads this script once, as
//   <script src="<where dist/ is>/embed.js" defer></script>
// gets, for every element <div data-pdsplit="?rps=10&show=link"></div>, a frame of the lesson
// in embed mode with those settings and parts. How to use it, the parts, the themes, the CSP
// a strict host needs: README, "On a course site: live pieces in your text, one line each".
// Each frame is its own page with its own worker, so it is made lazily: its page (and its
// Python, about a second's boot and some 100 MB) loads only once it is near the screen. Each
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
      frame.src = /** @type {string} */ (frame.dataset.src);
    }
  }, { rootMargin: NEAR });

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
