// The Python side of the page, in a module Web Worker so the page never blocks: boots
// Pyodide from the folder given as ?pyodide=, installs the simulator's wheel given as
// ?wheel= with micropip, then passes each message to sim.page.Page.handle (JSON in, JSON out).

const here = new URL(import.meta.url);
const wheel = new URL(here.searchParams.get("wheel") ?? "", here).href;
const pyodideDir = new URL(here.searchParams.get("pyodide") ?? "./pyodide/", here).href;

async function boot() {
  const began = performance.now();
  const { loadPyodide } = await import(new URL("pyodide.mjs", pyodideDir).href);
  const pyodide = await loadPyodide({ indexURL: pyodideDir });
  const failures = [];
  // loadPackage resolves even when a package fails to load: the import below is the check.
  await pyodide.loadPackage("micropip", { messageCallback: () => {}, errorCallback: (m) => failures.push(m) });
  let micropip;
  try {
    micropip = pyodide.pyimport("micropip");
  } catch (e) {
    throw new Error(`micropip did not load: ${failures.join("; ") || e}`);
  }
  await micropip.install.callKwargs(wheel, { deps: false }); // never ask PyPI
  const Page = pyodide.pyimport("sim.page").Page;
  const page = Page();
  const info = {
    python: pyodide.runPython("import sys; sys.version.split()[0]"),
    pyodide: pyodide.version,
    seconds: (performance.now() - began) / 1000,
  };
  return { handle: page.handle, info };
}

const booted = boot();

self.onmessage = async (event) => {
  const { id, type, ...body } = event.data;
  try {
    const { handle, info } = await booted;
    if (type === "boot") {
      self.postMessage({ id, result: info });
      return;
    }
    const reply = JSON.parse(handle(JSON.stringify({ type, ...body })));
    if ("error" in reply) self.postMessage({ id, error: reply.error });
    else self.postMessage({ id, result: reply });
  } catch (e) {
    self.postMessage({ id, error: String(e?.message ?? e) });
  }
};
