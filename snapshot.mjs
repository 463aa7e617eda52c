// node snapshot.mjs: the Pyodide memory snapshot the page's worker boots from (run by build.py).
//
//   node snapshot.mjs make <pyodide dir> <sim wheel> <out file>
//       Boots the Pyodide core in dist/ once, unpacks the sim wheel into site-packages,
//       imports every module of sim, reads the shipped traces' bytes and warms sim.show.page
//       (a compare and every figure the page draws), then writes pyodide.makeMemorySnapshot()
//       to <out file>.
//   node snapshot.mjs check <pyodide dir> <snapshot file, gzip or not>
//       Boots from the snapshot as the browser's worker does (its standard library's zip
//       empty) and answers the JSON requests on stdin, one a line, with sim.show.page's
//       replies, one a line, on stdout (after a first line {seconds} it took to boot). A
//       figure is followed through its pieces, and only the whole figure is written. A last
//       line {stdlib: {needed, on_demand}}: how many times the requests needed the whole zip
//       (STDLIB_ON_DEMAND), and whether an import outside the snapshot fetched it and worked.
//
// The snapshot API is experimental (loadPyodide's _makeSnapshot and _loadSnapshot): this is
// written for the pinned Pyodide (package.json), and the page falls back to a plain boot if
// the snapshot does not load. What that version asks of a snapshot:
// - It is the wasm memory only. The filesystem is not in it, so the wheel's files are gone
//   after a load: every module of sim is imported, and the shipped traces' bytes read,
//   before the snapshot is taken, and the check below runs the page's requests without
//   them. (The standard library's zip is written again by every boot: the page's, from the
//   snapshot, writes an empty one, and fetches the whole only if an import needs it:
//   STDLIB_ON_DEMAND.)
// - Python may hold only JavaScript objects it can find again by a path from globalThis,
//   and pyodide.loadedPackages must be empty. micropip holds Pyodide's own functions, so the
//   wheel is unpacked without it: that also keeps micropip's modules out of the memory
//   (the snapshot is 6.6 MB gzipped without them, 7.7 MB with them).
// - It records the build id of pyodide.asm.wasm: another Pyodide refuses it.

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";

const [command, pyodideDir, ...rest] = process.argv.slice(2);
const indexURL = resolve(pyodideDir) + "/";
const { loadPyodide } = await import(new URL(`file://${indexURL}pyodide.mjs`).href);
const quiet = { stdout: () => {}, stderr: (line) => process.stderr.write(`${line}\n`) };

/**
 * A warm-up for sim.show.page: a compare and every figure the page draws, at a small count so
 * memory stays small. The shipped traces' gzipped bytes are read into memory (their files are
 * not in the snapshot); they are parsed when first used.
 */
const WARM_UP = `
import json, pkgutil, importlib, gc
import sim
for module in pkgutil.walk_packages(sim.__path__, "sim."):
    if module.name != "sim.__main__":  # that one runs the command line
        importlib.import_module(module.name)
from sim.show.figures import FIGURES, SHOWN_WITH_A_TRACE
from sim.show.page import Page
from sim.workload import azure
for name in azure.FILES:
    azure.packed(name)
page = Page()
settings = {"requests": 50}
assert "result" in json.loads(page.handle(json.dumps({"type": "compare", "settings": settings})))
# What the page draws, but real traffic's figures: warming them would parse both traces into
# the snapshot, a heavier boot for every page; a trace is parsed when first used instead.
for name in (name for name, figure in FIGURES.items() if figure.page and name not in SHOWN_WITH_A_TRACE):
    part = 0
    while True:
        reply = json.loads(page.handle(json.dumps({"type": "figure", "name": name, "part": part, "settings": settings})))
        assert "error" not in reply, reply
        if "figure" in reply:
            break
        part = reply["next"]
del page, reply
gc.collect()
`;

/**
 * The standard library on demand. A boot from the snapshot is given an empty zip for it
 * (web/worker.js): every module the simulator imports is in the snapshot already, and the
 * zip is 2.5 MB, a sixth of a phone's first visit. Should an import still need it (a codec,
 * say: a module no import of sim's reached), this finder, first on sys.meta_path, fetches it
 * then, synchronously (a worker may), from the URL the worker set (self.pdsplitStdlib), and
 * the import goes on as if the zip had always been there. Where the zip is whole (a plain
 * boot, this script's check) it does nothing.
 */
const STDLIB_ON_DEMAND = `
import os, sys, zipimport

class StdlibOnDemand:
    zip = f"/lib/python{sys.version_info[0]}{sys.version_info[1]}.zip"
    fetching = False

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if not cls.fetching and os.path.exists(cls.zip) and os.path.getsize(cls.zip) == 0:
            cls.fetching = True
            try:
                cls.fetch()
            finally:
                cls.fetching = False
        return None  # the zip's own importer finds it

    @classmethod
    def fetch(cls):
        import js
        url = getattr(js, "pdsplitStdlib", None)
        if not url:
            raise ImportError("the standard library is not here, and no URL was given for it")
        request = js.XMLHttpRequest.new()
        request.open("GET", url, False)
        request.responseType = "arraybuffer"
        request.send()
        if request.status != 200:
            raise ImportError(f"the standard library could not be fetched (HTTP {request.status})")
        with open(cls.zip, "wb") as f:
            f.write(js.Uint8Array.new(request.response).to_bytes())
        zipimport._zip_directory_cache.pop(cls.zip, None)  # read again, from the whole zip
        sys.path_importer_cache.pop(cls.zip, None)

sys.meta_path.insert(0, StdlibOnDemand)
del StdlibOnDemand
`;

/**
 * Zero the memory no one holds, so that the snapshot's gzip is smaller: of its 31 MB, about
 * 7 MB are blocks the warm-up used and freed, still holding their old bytes (and the C
 * stack below its pointer, idle while JavaScript runs). Every free block the allocator has
 * is taken, largest first, zeroed, and given back; the memory is kept from growing
 * meanwhile (a malloc that would grow it fails instead), so the snapshot keeps its size.
 * Measured: 6.86 MB gzipped before, 6.01 MB after; what Python holds is untouched.
 * @returns {number} the bytes zeroed
 */
function zeroFreeMemory(pyodide) {
  const M = pyodide._module;
  const grow = WebAssembly.Memory.prototype.grow;
  WebAssembly.Memory.prototype.grow = () => { throw new RangeError("kept from growing"); };
  const taken = [];
  let zeroed = 0;
  try {
    for (let size = 1 << 24; size >= 8; size >>= 1) {
      for (let block = M._malloc(size); block; block = M._malloc(size)) {
        M.HEAPU8.fill(0, block, block + size);
        taken.push(block);
        zeroed += size;
      }
    }
  } finally {
    WebAssembly.Memory.prototype.grow = grow;
    for (const block of taken) M._free(block);
  }
  const stackEnd = M._emscripten_stack_get_end(); // the stack grows down, towards its end
  M.HEAPU8.fill(0, stackEnd, M._emscripten_stack_get_current());
  return zeroed;
}

async function make(wheelPath, out) {
  const pyodide = await loadPyodide({ indexURL, _makeSnapshot: true, ...quiet });
  pyodide.unpackArchive(new Uint8Array(readFileSync(wheelPath)), "wheel"); // what micropip installs
  pyodide.runPython(WARM_UP);
  pyodide.runPython(STDLIB_ON_DEMAND);
  const size = pyodide._module.HEAPU8.length;
  const zeroed = zeroFreeMemory(pyodide);
  if (pyodide._module.HEAPU8.length !== size) throw new Error("the memory grew while it was zeroed");
  const snapshot = pyodide.makeMemorySnapshot();
  writeFileSync(out, snapshot);
  process.stdout.write(JSON.stringify({ bytes: snapshot.length, zeroed, python: pyodide.runPython("import sys; sys.version.split()[0]") }) + "\n");
}

/**
 * What the worker's sync XMLHttpRequest does for STDLIB_ON_DEMAND, here from the disk: Node
 * has none. `fetched` counts the files it gave.
 */
class DiskRequest {
  static fetched = 0;
  open(method, url) { this.url = url; }
  send() {
    const data = readFileSync(this.url);
    this.response = data.buffer.slice(data.byteOffset, data.byteOffset + data.length);
    this.status = 200;
    DiskRequest.fetched++;
  }
}

async function check(file) {
  let bytes = new Uint8Array(readFileSync(file));
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) { // gzip: unpacked as the browser does
    bytes = new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).arrayBuffer());
  }
  // As the page boots: an empty standard library, the whole one on demand (STDLIB_ON_DEMAND)
  const empty = join(mkdtempSync(join(tmpdir(), "pdsplit-")), "empty.zip");
  writeFileSync(empty, new Uint8Array(0));
  globalThis.XMLHttpRequest = DiskRequest;
  globalThis.pdsplitStdlib = `${indexURL}python_stdlib.zip`;
  const began = performance.now();
  const pyodide = await loadPyodide({ indexURL, _loadSnapshot: bytes, stdLibURL: empty, ...quiet });
  const page = pyodide.pyimport("sim.show.page").Page();
  const seconds = (performance.now() - began) / 1000;
  process.stdout.write(JSON.stringify({ seconds }) + "\n");
  for await (const line of createInterface({ input: process.stdin })) {
    if (!line.trim()) continue;
    const request = JSON.parse(line);
    let reply = JSON.parse(page.handle(line));
    while ("next" in reply && !("figure" in reply)) {
      reply = JSON.parse(page.handle(JSON.stringify({ ...request, part: reply.next })));
    }
    process.stdout.write(JSON.stringify(reply) + "\n");
  }
  // Last: how often the page's requests needed the zip, and a module outside the snapshot
  // (colorsys: no part of sim imports it) imported, the zip fetched for it once.
  const needed = DiskRequest.fetched;
  const imported = pyodide.runPython(`
import sys
outside = "colorsys" not in sys.modules
import colorsys
outside and colorsys.rgb_to_hsv(1, 0, 0) == (0, 1, 1)
`);
  process.stdout.write(JSON.stringify({ stdlib: { needed, on_demand: imported && DiskRequest.fetched === needed + 1 } }) + "\n");
}

if (command === "make" && rest.length === 2) await make(rest[0], rest[1]);
else if (command === "check" && rest.length === 1) await check(rest[0]);
else {
  process.stderr.write("usage: node snapshot.mjs make <pyodide dir> <sim wheel> <out> | check <pyodide dir> <snapshot>\n");
  process.exit(2);
}
