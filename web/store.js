// A trace file of the learner's own, kept in this browser (IndexedDB), so that a reload keeps
// it: the page saves it once the simulator has read it, and every worker that boots reads it
// back into its Python (worker.js), a new one after a failure too. It never leaves the browser.

const DB = "pdsplit";
const STORE = "trace";
const KEY = "own";

/** @returns {Promise<IDBDatabase|null>} null where the browser keeps no such store */
function open() {
  if (typeof indexedDB === "undefined") return Promise.resolve(null);
  return new Promise((resolve) => {
    let request;
    try {
      request = indexedDB.open(DB, 1);
    } catch {
      resolve(null); // a sandboxed frame, say: the page goes on without a kept file
      return;
    }
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => resolve(null);
    request.onblocked = () => resolve(null);
  });
}

/**
 * @typedef {Object} Kept
 * @property {Blob} file  the file as picked (its bytes)
 * @property {string} name  its name
 * @property {{name: string, trace_requests: number, left_out: number}} info  what the simulator read of it
 */

/** The kept file, or null. @returns {Promise<Kept|null>} */
export async function kept() {
  const db = await open();
  if (!db) return null;
  return new Promise((resolve) => {
    const request = db.transaction(STORE, "readonly").objectStore(STORE).get(KEY);
    request.onsuccess = () => { db.close(); resolve(request.result ?? null); };
    request.onerror = () => { db.close(); resolve(null); };
  });
}

/** Keep a file the simulator has read (the one before it goes). @param {Kept} entry @returns {Promise<boolean>} */
export async function keep(entry) {
  const db = await open();
  if (!db) return false;
  return new Promise((resolve) => {
    const done = db.transaction(STORE, "readwrite");
    done.objectStore(STORE).put(entry, KEY);
    done.oncomplete = () => { db.close(); resolve(true); };
    done.onerror = () => { db.close(); resolve(false); };
    done.onabort = () => { db.close(); resolve(false); };
  });
}
