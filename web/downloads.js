// Where the worker's big downloads come from: Pyodide's core (pyodide.asm.wasm, shipped
// gzipped beside it as pyodide.asm.wasm.gz), its standard library, and the memory snapshot.
//
// - This browser's Cache API first, so that a second visit, or the next lesson on the same
//   site, starts from disk whatever cache headers the host sends; else the network, and what
//   came is kept there for next time. Every URL asked for here names its content (the
//   build's ?v= hash, or Pyodide's version in its folder), so a kept copy is never stale: a
//   new build asks for new URLs, and once it has booted, the copies this folder's older builds
//   kept are deleted (`tidy`). Where there is no Cache API (a page served over plain http
//   from another machine, some private windows), or it refuses, everything comes from the
//   network as before.
// - Gzipped files are unpacked as they arrive (DecompressionStream), so that the bytes fall
//   on any static host, one that compresses nothing included. A host that sent one with
//   Content-Encoding: gzip has had the browser unpack it already: the first bytes tell.

const CACHE = "pdsplit"; // one cache; its entries are keyed by their full URLs
// The network's fetch, as this module found it: the worker answers Pyodide's own fetch of the
// core with nothing while Pyodide starts (worker.js, withDownloads), and a download begun or
// retried here meanwhile must still reach the network.
const network = self.fetch.bind(self);

/** @type {string[]} the names of the files that came from the cache, for the boot's info */
export const kept = [];

/** @returns {Promise<Cache|null>} */
async function open() {
  try {
    return typeof caches === "object" && caches ? await caches.open(CACHE) : null;
  } catch {
    return null; // refused (a private window, say): the network, as before
  }
}

/**
 * The response for `url`: a copy kept by this browser, else the network's, kept for next time
 * (a failed or partial one is not kept).
 * @param {string} url @returns {Promise<Response>}
 */
export async function download(url) {
  const cache = await open();
  const found = cache ? await cache.match(url).catch(() => undefined) : undefined;
  if (found) {
    kept.push(new URL(url).pathname.split("/").pop() ?? url);
    return found;
  }
  const response = await network(url);
  if (cache && response.ok && response.status === 200) {
    cache.put(url, response.clone()).catch(() => {}); // full, or quota: next time from the network
  }
  return response;
}

/**
 * The response kept for `url`, else the one `make` gives, kept for next time: for a file the
 * service worker makes (sw.js, a script unpacked), which, answered from this cache, the
 * browser may also keep compiled.
 * @param {string} url @param {() => Promise<Response>} make @returns {Promise<Response>}
 */
export async function made(url, make) {
  const cache = await open();
  const found = cache ? await cache.match(url).catch(() => undefined) : undefined;
  if (found) return found;
  const response = await make();
  if (!cache) return response;
  const copy = response.clone();
  try {
    await cache.put(url, response);
    return (await cache.match(url)) ?? copy;
  } catch {
    return copy; // full, or quota: not kept
  }
}

/**
 * Forget the kept copy of `url`: it could not be used (corrupt, or refused), so the next try
 * downloads it again.
 * @param {string} url
 */
export async function forget(url) {
  const cache = await open();
  await cache?.delete(url).catch(() => false);
}

/**
 * Once Python has booted: delete the copies kept for older builds of this folder (`folder`,
 * the page's own), that is every one of its entries but `current`, the URLs this build asks
 * for, and those named by this build's `version` (?v=: Plotly's, which the service worker
 * kept). Another folder's (another lesson's build) are left alone.
 * @param {string} folder @param {string[]} current @param {string} version
 */
export async function tidy(folder, current, version) {
  const cache = await open();
  if (!cache) return;
  try {
    for (const request of await cache.keys()) {
      const mine = current.includes(request.url) || new URL(request.url).searchParams.get("v") === version;
      if (request.url.startsWith(folder) && !mine) await cache.delete(request);
    }
  } catch {
    // nothing kept is lost by a tidy that did not finish: it is tried again next boot
  }
}

/**
 * A response's body unpacked as it arrives if it is gzip (its first two bytes), else as is.
 * A corrupt gzip errors the stream.
 * @param {Response} response @returns {Promise<ReadableStream<Uint8Array>>}
 */
export async function unpacked(response) {
  if (!response.body) throw new Error("it has no body");
  const reader = response.body.getReader();
  const first = await reader.read();
  const gzipped = !first.done && first.value[0] === 0x1f && first.value[1] === 0x8b;
  /** @type {ReadableStream<Uint8Array>} what came, its first chunk included */
  const body = new ReadableStream({
    start(controller) {
      if (!first.done) controller.enqueue(first.value);
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return gzipped ? body.pipeThrough(new DecompressionStream("gzip")) : body;
}
