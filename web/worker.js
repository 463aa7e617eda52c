// The Python side of the page, in a module Web Worker so the page never blocks. It boots
// Pyodide (the folder given as ?pyodide=) from the memory snapshot made at build time
// (?snapshot=, gzip, of ?bytes= bytes unpacked), which holds sim already imported. If that
// fails for any reason, it boots plainly instead: Pyodide, then micropip installs the wheel
// given as ?wheel=. Then each message goes to sim.show.page.Page.handle (JSON in, JSON out).
//
// With ?boot=now it boots as soon as it starts (and keeps what `keep` keeps, with ?keep=1):
// a message to a worker that has just started waits until the page's main thread, busy
// with its own start, gets round to passing it on (up to 0.3 s, measured here).
//
// Messages {id, type, ...} are answered {id, result} or {id, error}:
//   boot    -> boots (the first request does, unless ?boot=now did), and once Python is
//              ready: {python, pyodide, seconds, boot: "snapshot"|"plain", fallback: why
//              the snapshot was not used, or null}. It may carry another worker's unpacked
//              snapshot and compiled wasm (then this worker downloads neither), and `keep:
//              true` to keep its own
//   share   -> what `keep` kept: {snapshot, wasm} (the snapshot's buffer is transferred)
//   alive   -> at once, even while booting: {booting}
//   memory  -> {bytes}: the size of Python's wasm memory
//   trace   -> a file of one's own ({file: a Blob, name}) read into sim.show.page: its reply;
//              it never leaves the browser. Each worker also reads back, as it boots, the
//              file kept from an earlier visit (store.js), so traffic=own goes on meaning it
//   compare -> sim.show.page's reply
//   help    -> sim.show.page's reply: a main chart's points, simulated for the numbers' worker
//   figure  -> sim.show.page's reply; with `then` (figure names), a whole figure's reply has
//              `also`: those of them that came whole at once, in order, each {name, ...reply}.
//              With `budget` (ms), the worker asks sim.show.page for the next
//              pieces until that much time has passed, the figure or its sketch is done,
//              or a newer request has come in, and answers the last reply: fewer round
//              trips, and none while the page's main thread is drawing and could not ask.
//              Between two of sim.show.page's slices (~10 ms) it lets waiting messages in,
//              so a newer setting is heard within a slice however long the budget.
//              With `follows: true` (the next piece of the same work, sent with the request
//              before it so that the worker goes straight on to it, rather than wait for the
//              page to ask once it has drawn that one's reply), it does not end the request
//              before it but waits for its end; should a newer request come meanwhile, it
//              ends at once with nothing done: {next: part}
// An error after which this Python cannot go on carries `fatal: true`. Once running, before
// any request, it posts {started: true}.

import { download, forget, kept as fromDisk, tidy, unpacked } from "./downloads.js";
import { kept as keptTrace } from "./store.js";

const here = new URL(import.meta.url);
const wheel = new URL(here.searchParams.get("wheel") ?? "", here).href;
const pyodideDir = new URL(here.searchParams.get("pyodide") ?? "./pyodide/", here).href;
const wasmURL = new URL("pyodide.asm.wasm", pyodideDir).href; // where Pyodide looks for it
const packedWasmURL = `${wasmURL}.gz`; // what we fetch instead: a third of its bytes
const stdlibURL = new URL("python_stdlib.zip", pyodideDir).href; // and for the standard library
const snapshotURL = here.searchParams.get("snapshot") ? new URL(/** @type {string} */ (here.searchParams.get("snapshot")), here).href : null;
const snapshotBytes = Number(here.searchParams.get("bytes"));
// Pyodide's JavaScript core, which the page's service worker unpacks and keeps (sw.js)
const scriptURL = new URL("pyodide.asm.mjs", pyodideDir).href;
// the big files this build asks for, which the browser keeps (downloads.js)
const big = [packedWasmURL, wasmURL, stdlibURL, scriptURL, ...(snapshotURL ? [snapshotURL] : [])];
// and the named states' results, which the page keeps the same way (app.js): not to be tidied
const statesURLs = here.searchParams.get("states")
  ? [new URL(/** @type {string} */ (here.searchParams.get("states")), here).href,
    new URL(/** @type {string} */ (here.searchParams.get("states")).replace(".json.gz", ".json"), here).href]
  : [];

/** An error that no second try in this browser would mend. */
class Fatal extends Error {}

/**
 * Download the snapshot into `bytes`, unpacking it as it arrives: gzip as built, or already
 * unpacked by a host that sent it with Content-Encoding: gzip. Its size is checked; gzip's
 * own check catches corrupt bytes.
 * @param {Uint8Array} bytes  of the snapshot's size
 */
async function fetchSnapshot(bytes) {
  if (!snapshotURL) throw new Error("this build has none");
  const response = await download(snapshotURL);
  if (!response.ok || !response.body) throw new Error(`it could not be downloaded (HTTP ${response.status})`);
  let size = 0;
  /** @type {ReadableStreamDefaultReader<Uint8Array>|null} */ let chunks = null;
  try {
    chunks = (await unpacked(response)).getReader();
    for (;;) {
      const { done, value } = await chunks.read();
      if (done) break;
      if (size + value.length > bytes.length) throw new Error(`it holds more than ${snapshotBytes} bytes`);
      bytes.set(value, size);
      size += value.length;
    }
    if (size !== bytes.length) throw new Error(`it holds ${size} bytes, not ${snapshotBytes}`);
  } catch (e) {
    chunks?.cancel().catch(() => {});
    forget(snapshotURL); // a kept copy that is wrong is not used again
    throw new Error(`it is corrupt (${/** @type {Error} */ (e).message})`);
  }
}

/**
 * Pyodide's wasm, compiled as it downloads, from the worker's start: alongside the
 * snapshot's download and unpacking, instead of after them as Pyodide would.
 * @returns {Promise<WebAssembly.Module>}
 */
async function compileWasm() {
  const compile = async (/** @type {string} */ url) => {
    const response = await download(url);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    try {
      const body = url === packedWasmURL ? await unpacked(response) : response.body;
      return await WebAssembly.compileStreaming(new Response(body, { headers: { "Content-Type": "application/wasm" } }));
    } catch (e) {
      forget(url); // a kept copy that is wrong is not used again
      throw e;
    }
  };
  try {
    if (typeof DecompressionStream === "function") {
      try {
        return await compile(packedWasmURL);
      } catch {
        // not there, or not gzip after all: the plain file, as Pyodide ships it
      }
    }
    return await compile(wasmURL);
  } catch (e) {
    throw new Error(`Python's core (pyodide.asm.wasm) could not be loaded: ${/** @type {Error} */ (e)?.message ?? e}`);
  }
}

/**
 * Runs `boot` (a loadPyodide) with `wasm`, compiled here or by another worker. Pyodide 314.0.7
 * downloads and instantiates its wasm itself, in a callback that, if that fails, only logs a
 * warning and never settles loadPyodide. Meanwhile, its download of the wasm is answered
 * with nothing, and its instantiation uses `wasm`; a failure of either rejects. Its download
 * of the standard library is answered, the first time, by `stdlib`, started with the rest
 * (Pyodide starts it only once its script has run, and it then came last, measured here), or
 * empty for a boot from the snapshot.
 * @template T @param {() => Promise<T>} boot @param {Promise<WebAssembly.Module>} wasm
 * @param {{response: Promise<Response>|null}} stdlib  taken by the first boot that asks
 * @returns {Promise<T>}
 */
async function withDownloads(boot, wasm, stdlib) {
  const { fetch: network } = self;
  const { instantiateStreaming } = WebAssembly;
  /** @type {(e: Error) => void} */ let fail = () => {};
  const failed = /** @type {Promise<never>} */ (new Promise((_, reject) => { fail = reject; }));
  wasm.catch(fail);
  self.fetch = (input, init) => {
    const url = String(input);
    if (url === wasmURL) return Promise.resolve(new Response(null));
    if (url === stdlibURL && stdlib.response) {
      const { response } = stdlib;
      stdlib.response = null; // a body is read once: a second boot downloads it again
      return response;
    }
    return network(input, init);
  };
  WebAssembly.instantiateStreaming = async (_source, imports) => {
    try {
      const module = await wasm;
      return { module, instance: await WebAssembly.instantiate(module, imports) };
    } catch (e) {
      fail(new Error(`Python's core (pyodide.asm.wasm) could not be started: ${/** @type {Error} */ (e)?.message ?? e}`));
      throw e;
    }
  };
  try {
    return await Promise.race([boot(), failed]);
  } finally {
    self.fetch = network;
    WebAssembly.instantiateStreaming = instantiateStreaming;
  }
}

/**
 * @typedef {Object} BootRequest
 * @property {Uint8Array} [snapshot]  the snapshot, unpacked, from another worker
 * @property {WebAssembly.Module} [wasm]  Pyodide's wasm, compiled, from another worker
 * @property {boolean} [keep]  keep the snapshot and the compiled wasm for a "share" request
 */

/** What a "share" request hands over, if asked to keep it. @type {{snapshot?: Uint8Array, wasm?: WebAssembly.Module}|null} */
let kept = null;

/** @param {BootRequest} request */
async function boot(request) {
  const began = performance.now();
  if (typeof WebAssembly !== "object" || typeof WebAssembly.compileStreaming !== "function") {
    throw new Fatal("this browser cannot run WebAssembly");
  }
  // Everything at once: the wasm (compiled as it arrives) and the snapshot (unpacked as it
  // arrives), given by another worker or downloaded, and Pyodide's two scripts.
  const wasm = request.wasm ? Promise.resolve(request.wasm) : compileWasm();
  wasm.catch(() => {}); // its failure is handled by withDownloads
  // The standard library's zip (2.5 MB): a boot from the snapshot needs none of it (every
  // module the simulator imports is in the snapshot), so Pyodide is given an empty one, and
  // the snapshot's Python fetches the whole should an import ever need it (snapshot.mjs,
  // STDLIB_ON_DEMAND, from this URL). A plain boot downloads it.
  /** @type {any} */ (self).pdsplitStdlib = stdlibURL;
  const noStdlib = { response: Promise.resolve(new Response(new Uint8Array(0))) };
  const given = request.snapshot?.length === snapshotBytes ? request.snapshot : null;
  const snapshot = given ?? new Uint8Array(snapshotBytes);
  const filled = given ? Promise.resolve() : fetchSnapshot(snapshot);
  filled.catch(() => {}); // its failure is handled below
  const core = import(scriptURL);
  const { loadPyodide } = await import(new URL("pyodide.mjs", pyodideDir).href);
  /** @type {(settings: any) => Promise<any>} */
  const createPyodideModule = async (settings) => (await core).default(settings);
  let pyodide = null;
  let fallback = null;
  try {
    // Pyodide only needs the snapshot's size to start its runtime, and its bytes after: it is
    // given the buffer at once, and the runtime, once started, waits for it to be filled.
    pyodide = await withDownloads(() => loadPyodide({
      indexURL: pyodideDir,
      _loadSnapshot: snapshot,
      createPyodideModule: async (/** @type {any} */ settings) => (await Promise.all([createPyodideModule(settings), filled]))[0],
    }), wasm, noStdlib);
    pyodide.runPython("import random; random.seed()"); // not the state frozen in the snapshot
    if (pyodide._api?.config) pyodide._api.config._loadSnapshot = undefined; // Pyodide keeps its options: 31 MB
    if (request.keep) kept = { snapshot, wasm: await wasm };
  } catch (e) {
    if (/** @type {Error} */ (e).message.startsWith("Python's core")) throw e; // a plain boot needs it too
    fallback = `the snapshot was not used: ${/** @type {Error} */ (e).message.split("\n")[0]}`;
    pyodide = null;
  }
  if (!pyodide) {
    const stdlib = { response: download(stdlibURL) };
    stdlib.response.catch(() => {}); // Pyodide says so, if it fails
    pyodide = await withDownloads(() => loadPyodide({ indexURL: pyodideDir, createPyodideModule }), wasm, stdlib);
    const failures = [];
    // loadPackage resolves even when a package fails to load: the import below is the check.
    await pyodide.loadPackage("micropip", { messageCallback: () => {}, errorCallback: (/** @type {string} */ m) => failures.push(m) });
    let micropip;
    try {
      micropip = pyodide.pyimport("micropip");
    } catch (e) {
      throw new Error(`micropip did not load: ${failures.join("; ") || e}`);
    }
    await micropip.install.callKwargs(wheel, { deps: false }); // never ask PyPI
  }
  const page = pyodide.pyimport("sim.show.page").Page();
  await restoreTrace(page.handle);
  const info = {
    python: pyodide.runPython("import sys; sys.version.split()[0]"),
    pyodide: pyodide.version,
    seconds: (performance.now() - began) / 1000,
    boot: fallback ? "plain" : "snapshot",
    fallback,
    kept: [...fromDisk], // the files this browser had kept from an earlier visit
  };
  // the copies older builds of this folder kept
  tidy(new URL("./", here).href, [...big, ...statesURLs], here.searchParams.get("v") ?? "");
  return { pyodide, handle: page.handle, info };
}

/**
 * The learner's own file, kept from an earlier visit, read back into Python before any request
 * is answered. A file that cannot be read back (gone, or refused) leaves traffic=own to say so.
 * @param {(text: string) => string} handle
 */
async function restoreTrace(handle) {
  try {
    const found = await keptTrace();
    if (found) handle(JSON.stringify({ type: "trace", text: await found.file.text(), name: found.name }));
  } catch {
    // no store here (a sandboxed frame): the page goes on without a kept file
  }
}

/** @type {ReturnType<typeof boot>|null} */ let booted = null; // from ?boot=now or the first request
let booting = true;

/** @param {BootRequest} request */
function start(request) {
  booted = boot(request);
  booted.then(() => { booting = false; }, () => {
    booting = false;
    // Whatever failed, the next worker downloads the big files again rather than trust a
    // kept copy that may be why (the page starts a new one: "healing", docs/page.md)
    for (const url of big) forget(url);
  });
}

if (here.searchParams.get("boot") === "now") start({ keep: here.searchParams.get("keep") === "1" });
// Running: the page holds back its own heavy work (Plotly's script, start.js) until now, for
// a worker's start needs a turn of the page's main thread
postMessage({ started: true });

/** Whether Pyodide can go on after this error. @param {any} e */
function isFatal(e) {
  return e instanceof Fatal || Boolean(e?.pyodide_fatal_error) || /fatally failed|Pyodide has suffered a fatal error/.test(String(e?.message ?? e));
}

// A pause of one task between two slices of a figure, so that messages already waiting are
// heard: a newer request then ends the figure's request at once (`heard`). This port's message
// and the page's come by the same task source (HTML's posted-message one), in the order
// sent, so a request that came before the pause is heard before it ends.
const pause = new MessageChannel();
/** @type {((value: unknown) => void)[]} */ const paused = [];
pause.port1.onmessage = () => paused.shift()?.(undefined);
const nextTask = () => new Promise((resolve) => { paused.push(resolve); pause.port2.postMessage(null); });
let heard = 0; // requests heard so far, but those that follow another
/** The end of the last request heard, which a request that follows waits for. */
let lastEnded = Promise.resolve();

self.onmessage = async (event) => {
  const { id, type, follows = false, ...body } = event.data;
  if (type === "alive") {
    self.postMessage({ id, result: { booting } });
    return;
  }
  const mine = follows ? heard : ++heard;
  const before = lastEnded;
  /** @type {() => void} */ let ended = () => {};
  lastEnded = new Promise((resolve) => { ended = resolve; });
  try {
    if (follows) {
      await before;
      if (heard !== mine) { // a newer request came: this one's settings are left
        self.postMessage({ id, result: { next: body.part ?? 0 } });
        return;
      }
    }
    if (!booted) start(type === "boot" ? body : {});
    const { pyodide, handle, info } = await /** @type {ReturnType<typeof boot>} */ (booted);
    if (type === "boot") {
      self.postMessage({ id, result: info });
    } else if (type === "share") {
      const gift = kept ?? {};
      kept = null;
      self.postMessage({ id, result: gift }, gift.snapshot ? [gift.snapshot.buffer] : []);
    } else if (type === "memory") {
      self.postMessage({ id, result: { bytes: pyodide._module.HEAP8.length } });
    } else {
      const { budget = 0, then = [], ...request } = body;
      if (type === "trace" && request.file instanceof Blob) { // read here, never sent anywhere
        request.text = await request.file.text();
        delete request.file;
      }
      if (request.settings) { // how long it may take: the page's watch over this worker waits so long (python.js)
        const { patience = 1 } = JSON.parse(handle(JSON.stringify({ type: "patience", settings: request.settings })));
        if (patience > 1) self.postMessage({ id, patience });
      }
      const began = performance.now();
      let reply = JSON.parse(handle(JSON.stringify({ type, ...request })));
      while (type === "figure" && "next" in reply && !("figure" in reply) && !("sketch" in reply) &&
             performance.now() - began < budget) {
        await nextTask();
        if (heard !== mine) break; // a newer request: this one hands back what is done
        reply = JSON.parse(handle(JSON.stringify({ type, ...request, part: reply.next, told: [] })));
      }
      // The figures asked for `then` come with a whole figure if they are whole at once (the
      // other main chart, from the runs just simulated), so that the page draws them in the
      // same task and frame. One that is not stops it: its pieces, if any were simulated,
      // are kept for its own request.
      if (type === "figure" && "figure" in reply && then.length && heard === mine) {
        reply.also = [];
        for (const name of then) {
          const more = JSON.parse(handle(JSON.stringify({ type, name, part: 0, settings: request.settings })));
          if (!("figure" in more)) break; // (an error included: its own request says it)
          reply.also.push({ name, ...more });
        }
      }
      if ("error" in reply) self.postMessage({ id, error: reply.error });
      else self.postMessage({ id, result: reply });
    }
  } catch (e) {
    const message = String(/** @type {Error} */ (e)?.message ?? e);
    self.postMessage(isFatal(e) ? { id, error: message, fatal: true } : { id, error: message });
  } finally {
    ended();
  }
};
