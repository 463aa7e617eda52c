// node snapshot.mjs: the Pyodide memory snapshot the page's worker boots from (run by build.py).
//
//   node snapshot.mjs make <pyodide dir> <sim wheel> <out file>
//       Boots the Pyodide core in dist/ once, unpacks the sim wheel into site-packages,
//       imports every module of sim, reads the shipped traces' bytes and warms sim.show.page
//       (a compare and every figure the page draws), then writes pyodide.makeMemorySnapshot()
//       to <out file>.
//   node snapshot.mjs check <pyodide dir> <snapshot file, gzip or not>
//       Boots from the snapshot as the browser's worker does and answers the JSON requests
//       on stdin, one a line, with sim.show.page's replies, one a line, on stdout (after a first
//       line {seconds} it took to boot). A figure is followed through its pieces, and only
//       the whole figure is written.
//
// The snapshot API is experimental (loadPyodide's _makeSnapshot and _loadSnapshot): this is
// written for the pinned Pyodide (package.json), and the page falls back to a plain boot if
// the snapshot does not load. What that version asks of a snapshot:
// - It is the wasm memory only. The filesystem is not in it, so the wheel's files are gone
//   after a load: every module of sim is imported, and the shipped traces' bytes read,
//   before the snapshot is taken, and the check below runs the page's requests without
//   them. (The standard library's zip is written again by every boot.)
// - Python may hold only JavaScript objects it can find again by a path from globalThis,
//   and pyodide.loadedPackages must be empty. micropip holds Pyodide's own functions, so the
//   wheel is unpacked without it: that also keeps micropip's modules out of the memory
//   (the snapshot is 6.6 MB gzipped without them, 7.7 MB with them).
// - It records the build id of pyodide.asm.wasm: another Pyodide refuses it.

import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
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

async function make(wheelPath, out) {
  const pyodide = await loadPyodide({ indexURL, _makeSnapshot: true, ...quiet });
  pyodide.unpackArchive(new Uint8Array(readFileSync(wheelPath)), "wheel"); // what micropip installs
  pyodide.runPython(WARM_UP);
  const snapshot = pyodide.makeMemorySnapshot();
  writeFileSync(out, snapshot);
  process.stdout.write(JSON.stringify({ bytes: snapshot.length, python: pyodide.runPython("import sys; sys.version.split()[0]") }) + "\n");
}

async function check(file) {
  let bytes = new Uint8Array(readFileSync(file));
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) { // gzip: unpacked as the browser does
    bytes = new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).arrayBuffer());
  }
  const began = performance.now();
  const pyodide = await loadPyodide({ indexURL, _loadSnapshot: bytes, ...quiet });
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
}

if (command === "make" && rest.length === 2) await make(rest[0], rest[1]);
else if (command === "check" && rest.length === 1) await check(rest[0]);
else {
  process.stderr.write("usage: node snapshot.mjs make <pyodide dir> <sim wheel> <out> | check <pyodide dir> <snapshot>\n");
  process.exit(2);
}
